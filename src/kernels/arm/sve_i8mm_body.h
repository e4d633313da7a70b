/* SVE SMMLA (i8mm) families, vector-length agnostic; shared by
 * matmul_<type>_sve_i8mm.c for Q4_0, Q8_0, IQ4_NL, MXFP4, IQ4_XS, Q4_K, Q5_K, Q6_K,
 * Q4_1, Q5_0, Q5_1, Q3_K and Q2_K. Every function takes the
 * kind (one of sve_sme_layout.h's QMM_SVESME_KIND_*) as a constant first
 * argument; each family file spells out its entry points with its kind and
 * its descriptor (QMM_SVEI8MM_FAMILY).
 *
 * SMMLA multiplies, in every 128-bit segment, a 2x8 int8 matrix (two
 * activation rows, 8 k) by the transpose of another 2x8 (two weight rows,
 * the same 8 k) into a 2x2 int32 tile [x0.w0, x0.w1, x1.w0, x1.w1]. The
 * activation pair is replicated in every segment (LD1RQ), segment s holds
 * weight rows 2s, 2s+1: four SMMLA give a block's exact sums for 2 x L/2
 * outputs (L = 32-bit lanes). The float step runs in that lane order, with
 * the scales arranged alike: w_d zipped [d0 d1 d0 d1 d2 d3 ...] and x_d as
 * [x0 x0 x1 x1] per segment; UZP1/UZP2 on 64-bit pairs sort the two rows
 * out at the end. Per output, per block in order: fma((float)isum,
 * fl(w_d * x_d), acc), as src/kernels/family.h requires; Q4_K / Q5_K then fma((float)(-m_j *
 * sum qx), fl(dmin * x_d), acc), its mins and the pair's block sums in the
 * same lane order; Q6_K's and Q3_K's isum is sc_a times the sum of elements
 * 0..15 plus sc_b times that of 16..31 (two SMMLA chains), as their
 * reference; Q2_K's the same integer from one chain, each q times its
 * sub-scale first (<= 45), then its min term -(m_a sum_a qx + m_b sum_b qx)
 * from the pair's per-16 sums.
 *
 * Weights: 16-row panels (a VL-independent blob, see sve_sme_layout.h), per
 * block: 16 fp16 scales (32 bytes), then groups h of 8 row pairs x 16 bytes
 * [row 2p: 8 bytes, row 2p+1: 8 bytes]: Q8_0: 4 groups, k = 8h..8h+7;
 * Q4_0: 2 groups of GGUF bytes qs[8h..8h+7] xor 0x88 (low nibbles k = 8h..,
 * high nibbles k = 16 + 8h..; signed 4-bit value = q - 8); IQ4_NL, MXFP4:
 * the same 2 groups of GGUF bytes as they are (indices that TBL turns into
 * the int8 levels), MXFP4's scales its 16 E8M0 bytes (2^(e - 128) built
 * exactly): both keep GGUF's size. The K-quants and legacy types: the
 * kinds' layouts of sve_sme_layout.h with kr = 8 (Q3_K, Q2_K: its two-bit
 * panels, qmm_svesme_two_at).
 * Activations: row pairs (a zero row pads an odd m), per block: d0, d1
 * (fp32), then 4 x 16 bytes [row 0: q[8h..8h+7], row 1: q[8h..8h+7]];
 * Q4_K, Q5_K, Q4_1 and Q5_1 add the two rows' block sums (int32) after them,
 * Q2_K the two rows' sums of elements 0..15, then of 16..31. */
#include <arm_sve.h>
#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/arm/sve_sme_layout.h"
#include "kernels/family.h"

#define QMM_SVEI8MM_INLINE static inline __attribute__((always_inline))

#define QMM_SVEI8MM_NP    16
#define QMM_SVEI8MM_GROUP 128 /* 8 row pairs x 16 bytes */

/* The scales' bytes of a block (16 rows of fp16 d, MXFP4's E8M0 bytes),
 * and an activation pair's block: d0, d1, the q, then the rows' block sums
 * where the kind has a min term (Q2_K: two per row). */
static inline size_t svei8mm_scales(int kind) { return (size_t)QMM_SVEI8MM_NP * QMM_SVESME_SB(kind); }
static inline size_t svei8mm_act_blk(int kind) { return kind == QMM_SVESME_KIND_Q2_K ? 88 : qmm_svesme_has_min(kind) ? 80 : 72; }

/* Where the scales d of block b of a panel at wp are and where the block
 * starts (the per-32 kinds: the block itself; the super-block kinds: its
 * head, then its 32-block; the packers cast the const away), the sizes of
 * sve_sme_layout.h (kr = 8 groups hold the same bytes). IQ4_XS, per
 * super-block of 8: d[16] (32 bytes), then per 32-block its 16 int8
 * sub-scales and Q4_0's 2 groups of nibble bytes (+1.5% on GGUF). Q6_K:
 * d[16], then per 32-block sc_a[16], sc_b[16], 2 nibble groups, 1 hi
 * group. The legacy kinds: per 32-block d[16] (m[16]), 2 groups (Q5_0 /
 * Q5_1: then 16 x 4 bytes of bit 4). Q4_K, Q5_K: d[16], dmin[16], then per
 * 32-block sc[16], m[16], 2 groups (Q5_K: then 16 x 4 bytes of bit 4). */
QMM_SVEI8MM_INLINE const uint8_t *svei8mm_dptr(int kind, const uint8_t *wp, int64_t b) {
    if (qmm_svesme_unit_k(kind) == QMM_QK_K)
        return wp + (size_t)(b >> 3) * qmm_svesme_unit_bytes(kind);
    return wp + (size_t)b * qmm_svesme_unit_bytes(kind);
}
QMM_SVEI8MM_INLINE const uint8_t *svei8mm_blk(int kind, const uint8_t *wp, int64_t b) {
    if (qmm_svesme_unit_k(kind) == QMM_QK_K)
        return svei8mm_dptr(kind, wp, b) + qmm_svesme_head_bytes(kind) + (size_t)(b & 7) * qmm_svesme_blk_bytes(kind);
    return svei8mm_dptr(kind, wp, b);
}

/* Byte of row r (in its panel), k-chunk h (8 k) inside a packed block. */
static inline size_t svei8mm_at(int kind, int r, int h) {
    return qmm_svesme_qoff(kind) + (size_t)h * QMM_SVEI8MM_GROUP + (size_t)(r / 2) * 16 + (size_t)(r % 2) * 8;
}

/* Row r's 32 q (0..15, or 0..31 with a bit-4 word) in a packed block: the 2
 * nibble groups, then the bit-4 group of 16 rows x 4 bytes (kr = 8 form). */
static inline void svei8mm_q_put(int kind, uint8_t *blk, int r, const uint8_t q[QMM_QK]) {
    uint8_t lo[QMM_QK / 2], hi[4];
    qmm_svesme_nibbles(q, lo);
    for (int h = 0; h < 2; h++)
        memcpy(blk + svei8mm_at(kind, r, h), lo + 8 * h, 8);
    if (qmm_svesme_has_five(kind)) {
        qmm_svesme_bit_split(q, 4, 8, hi);
        memcpy(blk + qmm_svesme_qoff(kind) + 2 * QMM_SVEI8MM_GROUP + 4 * r, hi, 4);
    }
}
static inline void svei8mm_q_get(int kind, const uint8_t *blk, int r, uint8_t q[QMM_QK]) {
    uint8_t lo[QMM_QK / 2];
    for (int h = 0; h < 2; h++)
        memcpy(lo + 8 * h, blk + svei8mm_at(kind, r, h), 8);
    qmm_svesme_nibbles_join(lo, q);
    if (qmm_svesme_has_five(kind))
        qmm_svesme_bit_join(blk + qmm_svesme_qoff(kind) + 2 * QMM_SVEI8MM_GROUP + 4 * r, 4, 8, q);
}

/* The panels of rows [n0, n1), and a row's GGUF blocks back (unpack_row),
 * per group of kinds; every bit survives packing. Pad rows: zero scales, never stored. */
static inline void svei8mm_w_pack_q6_k(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int kind = QMM_SVESME_KIND_Q6_K;
    const int64_t ns = k / QMM_QK_K;
    for (int64_t p = n0 / QMM_SVEI8MM_NP; p < (n1 + QMM_SVEI8MM_NP - 1) / QMM_SVEI8MM_NP; p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(kind, p * QMM_SVEI8MM_NP, k);
        memset(panel, 0, (size_t)ns * qmm_svesme_unit_bytes(kind));
        for (int r = 0; r < QMM_SVEI8MM_NP && p * QMM_SVEI8MM_NP + r < n; r++) {
            const qmm_block_q6_k *row =
                (const qmm_block_q6_k *)((const uint8_t *)src + (size_t)(p * QMM_SVEI8MM_NP + r) * stride);
            for (int64_t s = 0; s < ns; s++) {
                memcpy((uint8_t *)svei8mm_dptr(kind, panel, 8 * s) + 2 * r, &row[s].d, 2);
                for (int j = 0; j < 8; j++) {
                    uint8_t *blk = (uint8_t *)svei8mm_blk(kind, panel, 8 * s + j);
                    uint8_t q[QMM_QK], lo[QMM_QK / 2], hi[8];
                    blk[r] = (uint8_t)row[s].scales[2 * j];
                    blk[QMM_SVEI8MM_NP + r] = (uint8_t)row[s].scales[2 * j + 1];
                    qmm_svesme_q6_get(&row[s], j, q);
                    qmm_svesme_q6_split(q, 8, lo, hi);
                    for (int h = 0; h < 2; h++)
                        memcpy(blk + svei8mm_at(kind, r, h), lo + 8 * h, 8);
                    memcpy(blk + svei8mm_at(kind, r, 2), hi, 8);
                }
            }
        }
    }
}

/* Row r's GGUF super-block s rebuilt from the panel. */
static inline void svei8mm_q6_super(const uint8_t *panel, int64_t s, int r, qmm_block_q6_k *g) {
    const int kind = QMM_SVESME_KIND_Q6_K;
    memset(g, 0, sizeof *g);
    memcpy(&g->d, svei8mm_dptr(kind, panel, 8 * s) + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        const uint8_t *blk = svei8mm_blk(kind, panel, 8 * s + j);
        uint8_t q[QMM_QK], lo[QMM_QK / 2], hi[8];
        g->scales[2 * j] = (int8_t)blk[r];
        g->scales[2 * j + 1] = (int8_t)blk[QMM_SVEI8MM_NP + r];
        for (int h = 0; h < 2; h++)
            memcpy(lo + 8 * h, blk + svei8mm_at(kind, r, h), 8);
        memcpy(hi, blk + svei8mm_at(kind, r, 2), 8);
        qmm_svesme_q6_join(lo, hi, 8, q);
        qmm_svesme_q6_put(g, j, q);
    }
}

static inline void svei8mm_w_pack_leg(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                      void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t gb_bytes = qmm_svesme_leg_gguf_bytes(kind);
    for (int64_t p = n0 / QMM_SVEI8MM_NP; p < (n1 + QMM_SVEI8MM_NP - 1) / QMM_SVEI8MM_NP; p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(kind, p * QMM_SVEI8MM_NP, k);
        memset(panel, 0, (size_t)nb * qmm_svesme_unit_bytes(kind));
        for (int r = 0; r < QMM_SVEI8MM_NP && p * QMM_SVEI8MM_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVEI8MM_NP + r) * stride;
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = (uint8_t *)svei8mm_blk(kind, panel, b);
                uint8_t q[QMM_QK];
                uint16_t d, m;
                qmm_svesme_leg_get(kind, row + (size_t)b * gb_bytes, &d, &m, q);
                memcpy(blk + 2 * r, &d, 2);
                if (QMM_SVESME_LEG_MIN(kind))
                    memcpy(blk + svei8mm_scales(kind) + 2 * r, &m, 2);
                svei8mm_q_put(kind, blk, r, q);
            }
        }
    }
}

/* Row r's d, m (0 without) and q in panel block blk. */
static inline void svei8mm_leg_get(int kind, const uint8_t *blk, int r, uint16_t *d, uint16_t *m, uint8_t q[QMM_QK]) {
    *m = 0;
    memcpy(d, blk + 2 * r, 2);
    if (QMM_SVESME_LEG_MIN(kind))
        memcpy(m, blk + svei8mm_scales(kind) + 2 * r, 2);
    svei8mm_q_get(kind, blk, r, q);
}

static inline void svei8mm_w_pack_kmin(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                       void *dst) {
    const int five = qmm_svesme_has_five(kind);
    const int64_t ns = k / QMM_QK_K;
    const size_t gb_bytes = five ? sizeof(qmm_block_q5_k) : sizeof(qmm_block_q4_k);
    for (int64_t p = n0 / QMM_SVEI8MM_NP; p < (n1 + QMM_SVEI8MM_NP - 1) / QMM_SVEI8MM_NP; p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(kind, p * QMM_SVEI8MM_NP, k);
        memset(panel, 0, (size_t)ns * qmm_svesme_unit_bytes(kind));
        for (int r = 0; r < QMM_SVEI8MM_NP && p * QMM_SVEI8MM_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVEI8MM_NP + r) * stride;
            for (int64_t s = 0; s < ns; s++) {
                const uint8_t *gb = row + (size_t)s * gb_bytes;
                qmm_svesme_k_header_get(gb, (uint8_t *)svei8mm_dptr(kind, panel, 8 * s),
                                        (uint8_t *)svei8mm_blk(kind, panel, 8 * s), qmm_svesme_blk_bytes(kind), r);
                for (int j = 0; j < 8; j++) {
                    uint8_t q[QMM_QK];
                    qmm_svesme_kmin_q(five, gb, j, q);
                    svei8mm_q_put(kind, (uint8_t *)svei8mm_blk(kind, panel, 8 * s + j), r, q);
                }
            }
        }
    }
}

/* Row r's GGUF super-block s (g zeroed by the caller) rebuilt from the panel: sc_j and m_j packed back into
 * the 12 scale bytes, whose every bit they came from. */
static inline void svei8mm_kmin_super(int kind, const uint8_t *panel, int64_t s, int r, qmm_svesme_kmin_block *g) {
    qmm_svesme_k_header_put((uint8_t *)g, svei8mm_dptr(kind, panel, 8 * s), svei8mm_blk(kind, panel, 8 * s),
                            qmm_svesme_blk_bytes(kind), r);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        svei8mm_q_get(kind, svei8mm_blk(kind, panel, 8 * s + j), r, q);
        qmm_svesme_kmin_q_put(qmm_svesme_has_five(kind), g, j, q);
    }
}

static inline void svei8mm_w_pack_iq4_xs(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                         void *dst) {
    const int kind = QMM_SVESME_KIND_IQ4_XS;
    const int64_t ns = k / QMM_QK_K;
    for (int64_t p = n0 / QMM_SVEI8MM_NP; p < (n1 + QMM_SVEI8MM_NP - 1) / QMM_SVEI8MM_NP; p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(kind, p * QMM_SVEI8MM_NP, k);
        memset(panel, 0, (size_t)ns * qmm_svesme_unit_bytes(kind));
        for (int r = 0; r < QMM_SVEI8MM_NP && p * QMM_SVEI8MM_NP + r < n; r++) {
            const qmm_block_iq4_xs *row =
                (const qmm_block_iq4_xs *)((const uint8_t *)src + (size_t)(p * QMM_SVEI8MM_NP + r) * stride);
            for (int64_t b = 0; b < 8 * ns; b++) {
                const qmm_block_iq4_xs *g = row + b / 8;
                uint8_t *blk = (uint8_t *)svei8mm_blk(kind, panel, b);
                memcpy((uint8_t *)svei8mm_dptr(kind, panel, b) + 2 * r, &g->d, 2);
                blk[r] = (uint8_t)(int8_t)qmm_iq4_xs_scale(g, (int)(b % 8));
                for (int h = 0; h < 2; h++)
                    memcpy(blk + svei8mm_at(kind, r, h), g->qs + 16 * (b % 8) + 8 * h, 8);
            }
        }
    }
}

/* Row r's GGUF super-block s rebuilt from the panel: the 6-bit sub-scales split back into scales_l / scales_h,
 * the nibble bytes as they are. */
static inline void svei8mm_xs_super(const uint8_t *panel, int64_t s, int r, qmm_block_iq4_xs *g) {
    const int kind = QMM_SVESME_KIND_IQ4_XS;
    qmm_iq4_xs_header_put(g, svei8mm_dptr(kind, panel, 8 * s) + 2 * r, svei8mm_blk(kind, panel, 8 * s) + r, QMM_SVESME_XS_BLK);
    for (int j = 0; j < 8; j++) {
        const uint8_t *blk = svei8mm_blk(kind, panel, 8 * s + j);
        for (int h = 0; h < 2; h++)
            memcpy(g->qs + 16 * j + 8 * h, blk + svei8mm_at(kind, r, h), 8);
    }
}

/* Q8_0, Q4_0 and the table kinds IQ4_NL, MXFP4: per 32-block the scales,
 * then the groups. */
static inline void svei8mm_w_pack_blk(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                      void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t sb = QMM_SVESME_SB(kind);
    for (int64_t p = n0 / QMM_SVEI8MM_NP; p < (n1 + QMM_SVEI8MM_NP - 1) / QMM_SVEI8MM_NP; p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(kind, p * QMM_SVEI8MM_NP, k);
        memset(panel, 0, (size_t)nb * qmm_svesme_unit_bytes(kind));
        for (int r = 0; r < QMM_SVEI8MM_NP && p * QMM_SVEI8MM_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVEI8MM_NP + r) * stride;
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = (uint8_t *)svei8mm_blk(kind, panel, b);
                if (qmm_svesme_is_table(kind)) { /* IQ4_NL and MXFP4 blocks: the scale bytes, then the 16 qs */
                    const uint8_t *wb = row + (size_t)b * (sb + QMM_QK / 2);
                    memcpy(blk + sb * r, wb, sb);
                    for (int h = 0; h < 2; h++)
                        memcpy(blk + svei8mm_at(kind, r, h), wb + sb + 8 * h, 8);
                } else if (kind == QMM_SVESME_KIND_Q4_0) {
                    const qmm_block_q4_0 *wb = (const qmm_block_q4_0 *)row + b;
                    memcpy(blk + 2 * r, &wb->d, 2);
                    for (int h = 0; h < 2; h++)
                        for (int t = 0; t < 8; t++)
                            blk[svei8mm_at(kind, r, h) + t] = (uint8_t)(wb->qs[8 * h + t] ^ 0x88);
                } else {
                    const qmm_block_q8_0 *wb = (const qmm_block_q8_0 *)row + b;
                    memcpy(blk + 2 * r, &wb->d, 2);
                    for (int h = 0; h < 4; h++)
                        memcpy(blk + svei8mm_at(kind, r, h), wb->qs + 8 * h, 8);
                }
            }
        }
    }
}

/* Row r of a Q8_0 / Q4_0 / table kind's block blk as its GGUF block bytes at g (the table kinds' scale and
 * qs bytes as they are; d kept as fp16; Q4_0's nibble bytes xor 0x88 again). */
static inline void svei8mm_blk_get(int kind, const uint8_t *blk, int r, uint8_t *g) {
    const size_t sb = QMM_SVESME_SB(kind);
    memcpy(g, blk + sb * r, sb);
    for (int h = 0; h < (kind == QMM_SVESME_KIND_Q8_0 ? 4 : 2); h++) {
        memcpy(g + sb + 8 * h, blk + svei8mm_at(kind, r, h), 8);
        if (kind == QMM_SVESME_KIND_Q4_0)
            for (int t = 0; t < 8; t++)
                g[sb + 8 * h + t] ^= 0x88;
    }
}

/* The i8mm layout's unit_get (qmm_svesme_unit_get_fn). */
static inline void svei8mm_unit_get(int kind, const uint8_t *panel, int64_t u, int r, qmm_svesme_gguf_block *g) {
    if (qmm_svesme_is_two(kind)) {
        qmm_svesme_two_super(kind, 8, panel + (size_t)u * qmm_svesme_unit_bytes(kind), r, &g->two);
    } else if (kind == QMM_SVESME_KIND_Q6_K) {
        svei8mm_q6_super(panel, u, r, &g->q6_k);
    } else if (qmm_svesme_is_leg(kind)) {
        uint8_t q[QMM_QK];
        uint16_t d, m;
        svei8mm_leg_get(kind, svei8mm_blk(kind, panel, u), r, &d, &m, q);
        qmm_svesme_leg_put(kind, d, m, q, g->bytes);
    } else if (qmm_svesme_is_kmin(kind)) {
        svei8mm_kmin_super(kind, panel, u, r, &g->kmin);
    } else if (kind == QMM_SVESME_KIND_IQ4_XS) {
        svei8mm_xs_super(panel, u, r, &g->iq4_xs);
    } else {
        svei8mm_blk_get(kind, svei8mm_blk(kind, panel, u), r, g->bytes);
    }
}

/* The descriptor's w_pack and w_unpack_row (the row's GGUF blocks rebuilt;
 * GET_ROWS dequantizes them) of every kind. */
static inline void svei8mm_w_pack(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                  void *dst) {
    if (qmm_svesme_is_two(kind))
        qmm_svesme_w_pack_two(kind, 8, k, n, n0, n1, src, stride, dst);
    else if (kind == QMM_SVESME_KIND_Q6_K)
        svei8mm_w_pack_q6_k(k, n, n0, n1, src, stride, dst);
    else if (qmm_svesme_is_leg(kind))
        svei8mm_w_pack_leg(kind, k, n, n0, n1, src, stride, dst);
    else if (qmm_svesme_is_kmin(kind))
        svei8mm_w_pack_kmin(kind, k, n, n0, n1, src, stride, dst);
    else if (kind == QMM_SVESME_KIND_IQ4_XS)
        svei8mm_w_pack_iq4_xs(k, n, n0, n1, src, stride, dst);
    else
        svei8mm_w_pack_blk(kind, k, n, n0, n1, src, stride, dst);
}

static inline void svei8mm_w_unpack_row(int kind, const void *packed, int64_t k, int64_t row, void *dst) {
    qmm_svesme_row_unpack(svei8mm_unit_get, kind, packed, k, row, dst);
}

/* The activation pairs (a zero row pads an odd m). */
static inline size_t svei8mm_act_size(int kind, int64_t m, int64_t k) {
    return (size_t)((m + 1) / 2) * (size_t)(k / QMM_QK) * svei8mm_act_blk(kind);
}
static inline size_t svei8mm_act_offset(int kind, int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / 2) * (size_t)(k / QMM_QK) * svei8mm_act_blk(kind);
}
static inline void svei8mm_act_pack(int kind, int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t ab = svei8mm_act_blk(kind);
    for (int64_t m0 = 0; m0 < m; m0 += 2) {
        uint8_t *pair = (uint8_t *)dst + svei8mm_act_offset(kind, m0, k);
        memset(pair, 0, (size_t)nb * ab);
        for (int i = 0; i < 2 && m0 + i < m; i++) {
            const float *row = (const float *)((const char *)x + (size_t)(m0 + i) * x_row_stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = pair + (size_t)b * ab;
                int8_t q[QMM_QK];
                float d;
                int32_t sum;
                qmm_act_quantize_block(row + b * QMM_QK, q, &d, &sum);
                memcpy(blk + 4 * i, &d, 4);
                for (int h = 0; h < 4; h++)
                    memcpy(blk + 8 + 16 * h + 8 * i, q + 8 * h, 8);
                if (kind == QMM_SVESME_KIND_Q2_K) { /* the sums of elements 0..15 and 16..31 */
                    const int32_t half = qmm_act_sum_first16(q), rest = sum - half;
                    memcpy(blk + 72 + 4 * i, &half, 4);
                    memcpy(blk + 80 + 4 * i, &rest, 4);
                } else if (qmm_svesme_has_min(kind)) {
                    memcpy(blk + 72 + 4 * i, &sum, 4);
                }
            }
        }
    }
}

/* A vector of rows c0.. (32-bit lanes) duplicated pairwise, the scales' lane order. */
#define SI_PAIRS_S32(v) svreinterpret_s32_u64(svzip1_u64(svreinterpret_u64_s32(v), svreinterpret_u64_s32(v)))

/* The 16 panel scales from lane c0 on, exactly as fp32: the fp16 d widened,
 * or MXFP4's 2^(e - 128) from its E8M0 byte (QMM_SVE_E8M0_HALF). */
QMM_SVEI8MM_INLINE svfloat32_t svei8mm_wscale(int kind, svbool_t ph, const uint8_t *blk, int64_t c0) {
    if (kind == QMM_SVESME_KIND_MXFP4) {
        const svuint32_t e = svld1ub_u32(ph, blk + c0);
        return QMM_SVE_E8M0_HALF(ph, e);
    }
    return svcvt_f32_f16_x(ph, svreinterpret_f16_u32(svld1uh_u32(ph, (const uint16_t *)blk + c0)));
}

/* A block's per-row factors of rows c0.., duplicated pairwise as the
 * scales, each returned by value (0 where the kind has none: unused). The
 * sub-scale a: IQ4_XS's, Q4_K's / Q5_K's sc_j (times the block sum), Q6_K's
 * and Q3_K's sc_a (of elements 0..15; Q3_K's 6 bits from the block's low
 * nibbles and the super-block's high-bit words); b: their sc_b. */
QMM_SVEI8MM_INLINE svint32_t svei8mm_ls(int kind, int half, svbool_t ph, const uint8_t *blk, const uint8_t *dptr, int64_t b,
                                        int64_t c0) {
    if (kind == QMM_SVESME_KIND_IQ4_XS || kind == QMM_SVESME_KIND_Q6_K)
        return SI_PAIRS_S32(svld1sb_s32(ph, (const int8_t *)blk + half * QMM_SVEI8MM_NP + c0));
    if (kind == QMM_SVESME_KIND_Q3_K) {
        const svuint32_t lo = svld1ub_u32(ph, blk + c0);
        const svuint32_t hs = svlsr_n_u32_x(ph, svld1_u32(ph, (const uint32_t *)(dptr + svei8mm_scales(kind)) + c0), 4 * (b & 7));
        return SI_PAIRS_S32(QMM_SVE_Q3_SC(ph, lo, hs, half));
    }
    if (qmm_svesme_is_kmin(kind))
        return SI_PAIRS_S32(svld1ub_s32(ph, blk + c0));
    return svdup_n_s32(0);
}
/* The min factor: Q4_K's / Q5_K's -m_j, Q2_K's -m_a (half 0) or -m_b (1). */
QMM_SVEI8MM_INLINE svint32_t svei8mm_nm(int kind, int half, svbool_t ph, const uint8_t *blk, int64_t c0) {
    if (kind == QMM_SVESME_KIND_Q2_K)
        return SI_PAIRS_S32(
            svneg_s32_x(ph, svreinterpret_s32_u32(svlsr_n_u32_x(ph, svld1ub_u32(ph, blk + half * QMM_SVEI8MM_NP + c0), 4))));
    if (qmm_svesme_is_kmin(kind))
        return SI_PAIRS_S32(svneg_s32_x(ph, svld1ub_s32(ph, blk + QMM_SVEI8MM_NP + c0)));
    return svdup_n_s32(0);
}
/* The min term's scale: dmin, or Q4_1's / Q5_1's m. */
QMM_SVEI8MM_INLINE svfloat32_t svei8mm_wm(int kind, svbool_t ph, const uint8_t *dptr, int64_t c0) {
    if (!qmm_svesme_has_min(kind))
        return svdup_n_f32(0.0f);
    const svuint64_t mu = svreinterpret_u64_f32(svei8mm_wscale(kind, ph, dptr + svei8mm_scales(kind), c0));
    return svreinterpret_f32_u64(svzip1_u64(mu, mu));
}
/* Q2_K's sc_a (half 0) or sc_b (1) of rows c0.. in every byte of their
 * 64-bit lanes (the q's factors). */
QMM_SVEI8MM_INLINE svuint8_t svei8mm_sc8(int kind, int half, svbool_t pb, const uint8_t *blk, int64_t c0) {
    if (kind != QMM_SVESME_KIND_Q2_K)
        return svdup_n_u8(0);
    const svbool_t pt8 = svptrue_b8();
    const svuint64_t y = svld1ub_u64(pb, blk + half * QMM_SVEI8MM_NP + c0);
    return svreinterpret_u8_u64(svmul_n_u64_x(pt8, svand_n_u64_x(pt8, y, 0x0f), 0x0101010101010101ULL));
}

/* Q5_K, Q5_1, Q5_0: nibble u with bit 4 of vector i from the row's word
 * spread over its 64-bit lane (QMM_SVE_Q5_SPREAD, QMM_SVE_Q5_HI8), q 0..31
 * as int8 (Q5_0: q - 16, signed). */
QMM_SVEI8MM_INLINE svint8_t svei8mm_q5(int kind, svbool_t pt8, svuint8_t u, svuint64_t y5, int i) {
    svuint8_t q = svorr_u8_x(pt8, u, QMM_SVE_Q5_HI8(pt8, y5, i));
    if (kind == QMM_SVESME_KIND_Q5_0)
        q = svsub_n_u8_x(pt8, q, 16);
    return svreinterpret_s8_u8(q);
}
/* The 4-bit kinds' weights of a nibble vector u: the table kinds' levels,
 * Q4_K's and Q4_1's unsigned q 0..15. */
QMM_SVEI8MM_INLINE svint8_t svei8mm_nib(int kind, svint8_t tab, svuint8_t u) {
    if (qmm_svesme_is_table(kind))
        return svtbl_s8(tab, u);
    return svreinterpret_s8_u8(u);
}

/* The 4 signed weight vectors w0..w3 (k chunks 0..3 of a block) of rows
 * c0.. (8 bytes a row). */
QMM_SVEI8MM_INLINE void svei8mm_load_w(int kind, svbool_t pb, const uint8_t *blk, int64_t c0, svint8_t tab, svuint8_t sca8,
                                       svuint8_t scb8, svint8_t *w0, svint8_t *w1, svint8_t *w2, svint8_t *w3) {
    const svbool_t pt8 = svptrue_b8();
    const uint8_t *wq = blk + qmm_svesme_qoff(kind) + 8 * c0;
    if (qmm_svesme_has_five(kind)) {
        const svuint8_t v0 = svld1_u8(pb, wq), v1 = svld1_u8(pb, wq + QMM_SVEI8MM_GROUP);
        const svuint64_t x5 = svld1uw_u64(pb, (const uint32_t *)(blk + qmm_svesme_qoff(kind) + 2 * QMM_SVEI8MM_GROUP) + c0);
        const svuint64_t y5 = QMM_SVE_Q5_SPREAD(pt8, x5);
        *w0 = svei8mm_q5(kind, pt8, svand_n_u8_x(pt8, v0, 0x0f), y5, 0);
        *w1 = svei8mm_q5(kind, pt8, svand_n_u8_x(pt8, v1, 0x0f), y5, 1);
        *w2 = svei8mm_q5(kind, pt8, svlsr_n_u8_x(pt8, v0, 4), y5, 2);
        *w3 = svei8mm_q5(kind, pt8, svlsr_n_u8_x(pt8, v1, 4), y5, 3);
    } else if (qmm_svesme_is_table(kind) || (qmm_svesme_has_min(kind) && !qmm_svesme_is_two(kind))) {
        const svuint8_t v0 = svld1_u8(pb, wq), v1 = svld1_u8(pb, wq + QMM_SVEI8MM_GROUP);
        *w0 = svei8mm_nib(kind, tab, svand_n_u8_x(pt8, v0, 0x0f));
        *w1 = svei8mm_nib(kind, tab, svand_n_u8_x(pt8, v1, 0x0f));
        *w2 = svei8mm_nib(kind, tab, svlsr_n_u8_x(pt8, v0, 4));
        *w3 = svei8mm_nib(kind, tab, svlsr_n_u8_x(pt8, v1, 4));
    } else if (kind == QMM_SVESME_KIND_Q6_K) { /* the signed q per vector (QMM_SVE_Q6_W) */
        const svuint8_t v0 = svld1_u8(pb, wq), v1 = svld1_u8(pb, wq + QMM_SVEI8MM_GROUP);
        const svuint32_t h = svreinterpret_u32_u8(svld1_u8(pb, wq + 2 * QMM_SVEI8MM_GROUP));
        *w0 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v0, 0x0f), h, 0);
        *w1 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v1, 0x0f), h, 1);
        *w2 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v0, 4), h, 2);
        *w3 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v1, 4), h, 3);
    } else if (kind == QMM_SVESME_KIND_Q2_K) { /* the unsigned q times the sub-scale of its half (sc_a: vectors 0, 1) */
        const svuint8_t l = svld1_u8(pb, wq);
        *w0 = svreinterpret_s8_u8(svmul_u8_x(pt8, QMM_SVE_PAIR(pt8, l, 0), sca8));
        *w1 = svreinterpret_s8_u8(svmul_u8_x(pt8, QMM_SVE_PAIR(pt8, l, 1), sca8));
        *w2 = svreinterpret_s8_u8(svmul_u8_x(pt8, QMM_SVE_PAIR(pt8, l, 2), scb8));
        *w3 = svreinterpret_s8_u8(svmul_u8_x(pt8, QMM_SVE_PAIR(pt8, l, 3), scb8));
    } else if (kind == QMM_SVESME_KIND_Q3_K) { /* the signed q from the 2-bit fields and the bit-2 word spread (QMM_SVE_Q3_W) */
        const svuint8_t l = svld1_u8(pb, wq);
        const svuint8_t hb = svreinterpret_u8_u64(
            QMM_SVE_Q5_SPREAD(pt8, svld1uw_u64(pb, (const uint32_t *)(blk + qmm_svesme_qoff(kind) + QMM_SVEI8MM_GROUP) + c0)));
        *w0 = QMM_SVE_Q3_W(pt8, l, 0, hb, 0);
        *w1 = QMM_SVE_Q3_W(pt8, l, 1, hb, 1);
        *w2 = QMM_SVE_Q3_W(pt8, l, 2, hb, 2);
        *w3 = QMM_SVE_Q3_W(pt8, l, 3, hb, 3);
    } else if (kind == QMM_SVESME_KIND_Q4_0) { /* nibbles s of q ^ 8: two shifts give the signed q - 8 */
        const int8_t *sq = (const int8_t *)blk + svei8mm_scales(kind) + 8 * c0;
        const svint8_t v0 = svld1_s8(pb, sq), v1 = svld1_s8(pb, sq + QMM_SVEI8MM_GROUP);
        *w0 = svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v0, 4), 4);
        *w1 = svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v1, 4), 4);
        *w2 = svasr_n_s8_x(pt8, v0, 4);
        *w3 = svasr_n_s8_x(pt8, v1, 4);
    } else { /* Q8_0 */
        const int8_t *sq = (const int8_t *)blk + svei8mm_scales(kind) + 8 * c0;
        *w0 = svld1_s8(pb, sq);
        *w1 = svld1_s8(pb, sq + QMM_SVEI8MM_GROUP);
        *w2 = svld1_s8(pb, sq + 2 * QMM_SVEI8MM_GROUP);
        *w3 = svld1_s8(pb, sq + 3 * QMM_SVEI8MM_GROUP);
    }
}

/* One activation pair's block ab: exact sums in the 2x2 lane order, then
 * the float step with scales in the same order. The isum from the sums of
 * k 0..15 (s) and then of 16..31 (t): one chain (times a sub-scale), or
 * Q6_K's and Q3_K's two, each times its own. Then the min term, its exact
 * integer from the rows' sums [s0 s0 s1 s1] times fl(dmin * x_d): -m_j s
 * (Q4_K, Q5_K), s (Q4_1, Q5_1), Q2_K's -(m_a s_a + m_b s_b) from its
 * per-16 sums. */
QMM_SVEI8MM_INLINE svfloat32_t svei8mm_pair_step(int kind, svbool_t pw, svint8_t w0, svint8_t w1, svint8_t w2, svint8_t w3,
                                                 svint32_t lsa, svint32_t lsb, svint32_t nma, svint32_t nmb, svfloat32_t wd,
                                                 svfloat32_t wm, const uint8_t *ab, svfloat32_t acc) {
    const svbool_t pt8 = svptrue_b8();
    const int8_t *aq = (const int8_t *)ab + 8;
    svint32_t s = svmmla_s32(svdup_n_s32(0), svld1rq_s8(pt8, aq), w0);
    s = svmmla_s32(s, svld1rq_s8(pt8, aq + 16), w1);
    svint32_t t = s;
    if (qmm_svesme_is_split(kind))
        t = svdup_n_s32(0);
    t = svmmla_s32(t, svld1rq_s8(pt8, aq + 32), w2);
    t = svmmla_s32(t, svld1rq_s8(pt8, aq + 48), w3);
    const float *xd = (const float *)ab;
    const svfloat32_t sc = svmul_f32_x(pw, wd, svdupq_n_f32(xd[0], xd[0], xd[1], xd[1]));
    svint32_t isum = t;
    if (qmm_svesme_is_split(kind))
        isum = svmla_s32_x(pw, svmul_s32_x(pw, s, lsa), t, lsb);
    else if (kind == QMM_SVESME_KIND_IQ4_XS || qmm_svesme_is_kmin(kind))
        isum = svmul_s32_x(pw, t, lsa);
    acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, isum), sc);
    if (qmm_svesme_has_min(kind)) {
        const int32_t *xs = (const int32_t *)(ab + 72);
        svint32_t im;
        if (kind == QMM_SVESME_KIND_Q2_K)
            im = svmla_s32_x(pw, svmul_s32_x(pw, nma, svdupq_n_s32(xs[0], xs[0], xs[1], xs[1])), nmb,
                             svdupq_n_s32(xs[2], xs[2], xs[3], xs[3]));
        else if (qmm_svesme_is_kmin(kind))
            im = svmul_s32_x(pw, nma, svdupq_n_s32(xs[0], xs[0], xs[1], xs[1]));
        else
            im = svdupq_n_s32(xs[0], xs[0], xs[1], xs[1]);
        acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, im), svmul_f32_x(pw, wm, svdupq_n_f32(xd[0], xd[0], xd[1], xd[1])));
    }
    return acc;
}

/* Stores the two rows of a pair's accumulators (rows: 1 or 2 to store). */
QMM_SVEI8MM_INLINE void svei8mm_store(svbool_t pst, svfloat32_t acc, int64_t rows, float *y, size_t ys) {
    const svuint64_t u = svreinterpret_u64_f32(acc);
    svst1_f32(pst, y, svreinterpret_f32_u64(svuzp1_u64(u, u)));
    if (rows > 1)
        svst1_f32(pst, (float *)((char *)y + ys), svreinterpret_f32_u64(svuzp2_u64(u, u)));
}

/* Up to NP (1 or 2, constant after inlining) activation pairs against panel
 * rows c0.. of one chunk (cw rows = lw / 2 lanes' worth), all blocks. */
QMM_SVEI8MM_INLINE void svei8mm_rows(int kind, const int NP, int64_t rows, int64_t nb, const uint8_t *a0, const uint8_t *wp,
                                     int64_t c0, int64_t cw, svbool_t pw, svbool_t pb, svbool_t pst, float *y, size_t ys) {
    const svbool_t ph = svwhilelt_b32_s64(0, cw);
    const uint8_t *a1 = a0 + (rows > 2 ? (size_t)nb * svei8mm_act_blk(kind) : 0);
    svfloat32_t acc0 = svdup_n_f32(0.0f), acc1 = acc0;
    /* TBL's table: the 16 levels in the low bytes (indices are nibbles) */
    const svint8_t tab =
        qmm_svesme_is_table(kind)
            ? svld1_s8(svwhilelt_b8_s32(0, 16), kind == QMM_SVESME_KIND_MXFP4 ? qmm_kvalues_mxfp4 : qmm_kvalues_iq4nl)
            : svdup_n_s8(0);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = svei8mm_blk(kind, wp, b), *dptr = svei8mm_dptr(kind, wp, b);
        /* the scales of rows c0.., exactly as fp32, then duplicated pairwise */
        const svfloat32_t wh = svei8mm_wscale(kind, ph, dptr, c0);
        const svint32_t lsa = svei8mm_ls(kind, 0, ph, blk, dptr, b, c0), lsb = svei8mm_ls(kind, 1, ph, blk, dptr, b, c0);
        const svint32_t nma = svei8mm_nm(kind, 0, ph, blk, c0), nmb = svei8mm_nm(kind, 1, ph, blk, c0);
        const svfloat32_t wm = svei8mm_wm(kind, ph, dptr, c0);
        const svuint8_t sca8 = svei8mm_sc8(kind, 0, pb, blk, c0), scb8 = svei8mm_sc8(kind, 1, pb, blk, c0);
        const svuint64_t wu = svreinterpret_u64_f32(wh);
        const svfloat32_t wd = svreinterpret_f32_u64(svzip1_u64(wu, wu));
        svint8_t w0, w1, w2, w3;
        svei8mm_load_w(kind, pb, blk, c0, tab, sca8, scb8, &w0, &w1, &w2, &w3);
        acc0 =
            svei8mm_pair_step(kind, pw, w0, w1, w2, w3, lsa, lsb, nma, nmb, wd, wm, a0 + (size_t)b * svei8mm_act_blk(kind), acc0);
        if (NP > 1)
            acc1 = svei8mm_pair_step(kind, pw, w0, w1, w2, w3, lsa, lsb, nma, nmb, wd, wm, a1 + (size_t)b * svei8mm_act_blk(kind),
                                     acc1);
    }
    svei8mm_store(pst, acc0, rows, y, ys);
    if (NP > 1 && rows > 2)
        svei8mm_store(pst, acc1, rows - 2, (float *)((char *)y + 2 * ys), ys);
}

QMM_SVEI8MM_INLINE void svei8mm_gemm(int kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                     size_t ys) {
    const int64_t nb = k / QMM_QK;
    const int64_t lanes = (int64_t)svcntw(), cw = lanes / 2 < QMM_SVEI8MM_NP ? lanes / 2 : QMM_SVEI8MM_NP;
    /* lanes 2 cw hold the 2 x cw outputs; 8 bytes of weights per row per k-chunk */
    const svbool_t pw = svwhilelt_b32_s64(0, 2 * cw), pb = svwhilelt_b8_s64(0, 8 * cw);
    const uint8_t *act = (const uint8_t *)a;
    const size_t pair_bytes = (size_t)nb * svei8mm_act_blk(kind);
    for (int64_t n0 = 0; n0 < n; n0 += QMM_SVEI8MM_NP) {
        const uint8_t *wp = (const uint8_t *)w + qmm_svesme_w_offset(kind, n0, k);
        for (int64_t c0 = 0; c0 < QMM_SVEI8MM_NP && n0 + c0 < n; c0 += cw) {
            const svbool_t pst = svwhilelt_b32_s64(0, n - n0 - c0 < cw ? n - n0 - c0 : cw);
            int64_t i = 0;
            for (; i + 4 <= m; i += 4)
                svei8mm_rows(kind, 2, 4, nb, act + (size_t)(i / 2) * pair_bytes, wp, c0, cw, pw, pb, pst,
                             (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
            if (m - i > 2)
                svei8mm_rows(kind, 2, m - i, nb, act + (size_t)(i / 2) * pair_bytes, wp, c0, cw, pw, pb, pst,
                             (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
            else if (m - i > 0)
                svei8mm_rows(kind, 1, m - i, nb, act + (size_t)(i / 2) * pair_bytes, wp, c0, cw, pw, pb, pst,
                             (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
        }
    }
}

/* A family's descriptor from its name, type and entry points. */
#define QMM_SVEI8MM_FAMILY(name_, wtype_, w_size_, w_offset_, w_pack_, w_unpack_row_, act_size_, act_offset_, act_pack_, gemm_)  \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_, .required = QMM_CPU_SVE | QMM_CPU_SVE_I8MM,                                              \
        .fallback_hides = QMM_CPU_SVE_I8MM, /* fallback for capped (hybrid) runs: the SDOT family */                             \
            .flags = 0, .layout_id = 1, .mr = 4, .nr = QMM_SVEI8MM_NP, .kr = 8, .sr = 1, .n_step = QMM_SVEI8MM_NP,               \
        .w_packed_size = w_size_, .w_packed_offset = w_offset_, .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                \
        .act = {2, act_size_, act_offset_, act_pack_}, .act_gemv = {0, NULL, NULL, NULL}, .gemm = gemm_, .gemv = NULL,           \
    }
