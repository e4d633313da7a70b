/* The 32-block NEON int8 kinds Q4_0, Q8_0, Q4_1, Q5_0, Q5_1 (dotprod: sdot on ROWS4 panels; i8mm: smmla on PAIRS
 * panels): one tile, qmm_neon_legacy_tile, with the weight kind (a qmm_type) a constant argument; the panel formats
 * of Q4_1 / Q5_0 / Q5_1 (Q4_0's and Q8_0's are neon_common.h's).
 *
 * Q8_0 and Q4_0 panels (neon_common.h): fp32 scale[4], then the quants; Q4_0's nibbles are stored as q ^ 8, so that
 * a shift left by 4 (low nibbles, elements 0..15) or a mask with 0xf0 (high nibbles, 16..31) yields 16 * (q - 8) as
 * int8: the dot is 16 * the exact block sum, and >> 4 recovers it exactly.
 *
 * Q4_1 / Q5_0 / Q5_1 panel of 4 weight rows, per 32-block (80 / 88 / 96 bytes, the GGUF bytes of 4 rows exactly):
 *   fp16 d[4]                                  row r at 2 r
 *   fp16 m[4]            (Q4_1, Q5_1)          row r at 8 + 2 r
 *   16 bytes H           (Q5_*)                see below
 *   64 bytes of nibbles: GGUF's byte t (element t low, t + 16 high) of row r at qmm_neon_pos(arrangement, r, t)
 * fp16 is widened in the kernel (fcvtl, exact). Byte B of the nibble area is position p = B % 16 of the 16-byte
 * chunk c = B / 16; the fifth bits of the two elements of that byte, inverted, are bits c (low nibble's element)
 * and 4 + c (high nibble's) of H[p]. Then, per chunk, (nibble << 3) with the stored bit inserted as bit 7 (sli, sri)
 * is the int8 8 * (q - 16) exactly (the 5-bit two's complement of q - 16, scaled): a dot product of those gives
 * 8 * sum (q - 16) q_x exactly (|.| <= 520192), and >> 3 recovers it. Q4_1 uses the nibbles as they are (0..15).
 *
 * Numerics, the reference's exactly: Q8_0 isum = sum q q_x, Q4_0 sum (q - 8) q_x, Q5_0 sum (q - 16) q_x; Q4_1
 * isum = sum q q_x, Q5_1 isum = sum (q - 16) q_x + 16 sum q_x (exact int32); acc = fma((float)isum, d * x_d, acc),
 * and with a min then acc = fma((float)sum q_x, m * x_d, acc). The kinds with a min take the activation layout with
 * sums (neon_act_sums.h), the others the plain one (neon_common.h). */
#ifndef QMM_NEON_LEGACY_BODY_H
#define QMM_NEON_LEGACY_BODY_H

#include <stddef.h>

#include "kernels/arm/neon_act_sums.h"

static inline int qmm_neon_legacy_has_min(qmm_type kind) { return kind == QMM_TYPE_Q4_1 || kind == QMM_TYPE_Q5_1; }
static inline int qmm_neon_legacy_has_qh(qmm_type kind) { return kind == QMM_TYPE_Q5_0 || kind == QMM_TYPE_Q5_1; }

/* Panel offsets of m, H and the nibbles (Q4_1 / Q5_0 / Q5_1), and bytes per 32-block of a panel (all five). */
#define QMM_NEON_LEGACY_M_OFF 8
static inline int qmm_neon_legacy_qh_off(qmm_type kind) { return 8 + 8 * qmm_neon_legacy_has_min(kind); }
static inline int qmm_neon_legacy_qs_off(qmm_type kind) {
    return qmm_neon_legacy_qh_off(kind) + 16 * qmm_neon_legacy_has_qh(kind);
}
static inline size_t qmm_neon_legacy_blk(qmm_type kind) {
    return kind == QMM_TYPE_Q8_0   ? QMM_NEON_Q8_BLK
           : kind == QMM_TYPE_Q4_0 ? QMM_NEON_Q4_BLK
                                   : (size_t)qmm_neon_legacy_qs_off(kind) + 64;
}

/* The GGUF block (Q4_1 / Q5_0 / Q5_1): fp16 d at 0, then m, qh[4], qs[16] where the type has them. */
static inline size_t qmm_neon_legacy_gguf_m(qmm_type kind) {
    (void)kind;
    return 2;
}
static inline size_t qmm_neon_legacy_gguf_qh(qmm_type kind) { return 2 + 2 * (size_t)qmm_neon_legacy_has_min(kind); }
static inline size_t qmm_neon_legacy_gguf_qs(qmm_type kind) {
    return qmm_neon_legacy_gguf_qh(kind) + 4 * (size_t)qmm_neon_legacy_has_qh(kind);
}
static inline size_t qmm_neon_legacy_gguf_bytes(qmm_type kind) { return qmm_neon_legacy_gguf_qs(kind) + QMM_QK / 2; }
_Static_assert(offsetof(qmm_block_q4_1, m) == 2 && offsetof(qmm_block_q4_1, qs) == 4 && sizeof(qmm_block_q4_1) == 20, "Q4_1");
_Static_assert(offsetof(qmm_block_q5_0, qh) == 2 && offsetof(qmm_block_q5_0, qs) == 6 && sizeof(qmm_block_q5_0) == 22, "Q5_0");
_Static_assert(offsetof(qmm_block_q5_1, m) == 2 && offsetof(qmm_block_q5_1, qh) == 4 && offsetof(qmm_block_q5_1, qs) == 8 &&
                   sizeof(qmm_block_q5_1) == 24,
               "Q5_1");

/* The quants of one panel block as int8: wq[c] from the low nibbles of chunk c, wq[4 + c] from the high ones (Q8_0:
 * the 8 chunks as stored); Q4_0: 16 * (q - 8), Q5_*: 8 * (q - 16), Q4_1: q. */
static inline __attribute__((always_inline)) void qmm_neon_legacy_unpack(qmm_type kind, const uint8_t *w, int8x16_t wq[8]) {
    if (kind == QMM_TYPE_Q8_0) {
        for (int c = 0; c < 8; c++)
            wq[c] = vld1q_s8((const int8_t *)w + 16 + 16 * c);
        return;
    }
    if (kind == QMM_TYPE_Q4_0) {
        for (int c = 0; c < 4; c++) {
            const uint8x16_t v = vld1q_u8(w + 16 + 16 * c);
            wq[c] = vreinterpretq_s8_u8(vshlq_n_u8(v, 4));
            wq[c + 4] = vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(0xf0)));
        }
        return;
    }
    const uint8_t *qs = w + qmm_neon_legacy_qs_off(kind);
    const uint8x16_t v0 = vld1q_u8(qs), v1 = vld1q_u8(qs + 16), v2 = vld1q_u8(qs + 32), v3 = vld1q_u8(qs + 48);
    if (qmm_neon_legacy_has_qh(kind)) {
        const uint8x16_t h = vld1q_u8(w + qmm_neon_legacy_qh_off(kind)), f0 = vdupq_n_u8(0xf0);
        /* low: (v << 3) keeps bits 3..6 = nibble; sli #7 puts bit c of H at bit 7 */
        wq[0] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v0, 3), h, 7));
        wq[1] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v1, 3), vshrq_n_u8(h, 1), 7));
        wq[2] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v2, 3), vshrq_n_u8(h, 2), 7));
        wq[3] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v3, 3), vshrq_n_u8(h, 3), 7));
        /* high: (v & 0xf0) >> 1 is the nibble at bits 3..6; sri #1 keeps bit 7 of H << (3 - c), i.e. bit 4 + c of H */
        wq[4] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(h, 3), vandq_u8(v0, f0), 1));
        wq[5] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(h, 2), vandq_u8(v1, f0), 1));
        wq[6] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(h, 1), vandq_u8(v2, f0), 1));
        wq[7] = vreinterpretq_s8_u8(vsriq_n_u8(h, vandq_u8(v3, f0), 1));
    } else {
        const uint8x16_t m4 = vdupq_n_u8(0x0f);
        wq[0] = vreinterpretq_s8_u8(vandq_u8(v0, m4));
        wq[1] = vreinterpretq_s8_u8(vandq_u8(v1, m4));
        wq[2] = vreinterpretq_s8_u8(vandq_u8(v2, m4));
        wq[3] = vreinterpretq_s8_u8(vandq_u8(v3, m4));
        wq[4] = vreinterpretq_s8_u8(vshrq_n_u8(v0, 4));
        wq[5] = vreinterpretq_s8_u8(vshrq_n_u8(v1, 4));
        wq[6] = vreinterpretq_s8_u8(vshrq_n_u8(v2, 4));
        wq[7] = vreinterpretq_s8_u8(vshrq_n_u8(v3, 4));
    }
}

/* The float step of activation row i of block a for the 4 weight rows: dot is the int32 dot product of the
 * unpacked quants, wd the rows' d, wm their m (kinds with a min). */
static inline __attribute__((always_inline)) float32x4_t
qmm_neon_legacy_step(qmm_type kind, float32x4_t acc, int32x4_t dot, float32x4_t wd, float32x4_t wm, const uint8_t *a, int i) {
    const float xd = ((const float *)a)[i];
    int32x4_t isum = dot;
    if (kind == QMM_TYPE_Q4_0)
        isum = vshrq_n_s32(dot, 4);
    if (qmm_neon_legacy_has_qh(kind))
        isum = vshrq_n_s32(dot, 3);
    int32_t xs = 0;
    if (qmm_neon_legacy_has_min(kind)) {
        const int16_t *s16 = (const int16_t *)(a + 16);
        xs = s16[2 * i] + s16[2 * i + 1];
        if (qmm_neon_legacy_has_qh(kind))
            isum = vaddq_s32(isum, vdupq_n_s32(16 * xs));
    }
    acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(wd, xd));
    if (qmm_neon_legacy_has_min(kind))
        acc = vfmaq_n_f32(acc, vmulq_n_f32(wm, xd), (float)xs);
    return acc;
}

/* mc (constant after inlining) activation rows of group a x the 4 rows of panel w, all nb blocks. ROWS4: sdot by
 * lane, the block's weight vectors serving every activation row; PAIRS: smmla per activation pair, GEMV (one row)
 * included (one smmla does the work of one sdot then). */
static inline __attribute__((always_inline)) void qmm_neon_legacy_tile(qmm_type kind, int arrangement, const int mc, int64_t nb,
                                                                       const uint8_t *a, const uint8_t *w,
                                                                       float32x4_t out[QMM_NEON_MR]) {
    const int with_sums = qmm_neon_legacy_has_min(kind);
    const size_t q_off = with_sums ? QMM_NEON_ACT_SUMS_Q : 16;
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; b++, a += qmm_neon_act_blk_bytes(with_sums), w += qmm_neon_legacy_blk(kind)) {
        const int fp32_d = kind == QMM_TYPE_Q8_0 || kind == QMM_TYPE_Q4_0;
        const float32x4_t wd = fp32_d ? vld1q_f32((const float *)w) : qmm_neon_fp16x4(w);
        const float32x4_t wm = with_sums ? qmm_neon_fp16x4(w + QMM_NEON_LEGACY_M_OFF) : vdupq_n_f32(0.0f);
        int8x16_t wq[8];
        qmm_neon_legacy_unpack(kind, w, wq);
        if (arrangement == QMM_NEON_PAIRS) {
            for (int p = 0; p < (mc + 1) / 2; p++) {
                int32x4_t r[2];
                qmm_neon_smmla_block(wq, (const int8_t *)a + q_off + 16 * p, &r[0], &r[1]);
                for (int h = 0; h < 2 && 2 * p + h < mc; h++)
                    acc[2 * p + h] = qmm_neon_legacy_step(kind, acc[2 * p + h], r[h], wd, wm, a, 2 * p + h);
            }
        } else {
            for (int i = 0; i < mc; i++)
                acc[i] =
                    qmm_neon_legacy_step(kind, acc[i], qmm_neon_sdot_block(wq, (const int8_t *)a + q_off + 32 * i), wd, wm, a, i);
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

/* Q4_1 / Q5_0 / Q5_1: GGUF rows [n0, n1) (whole panels; rows from n on are padding: zero scales, zero quants). */
static inline void qmm_neon_legacy_pack(qmm_type kind, int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1,
                                        const void *src, size_t src_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t blk_bytes = qmm_neon_legacy_blk(kind), gbytes = qmm_neon_legacy_gguf_bytes(kind);
    const int qh_off = qmm_neon_legacy_qh_off(kind), qs_off = qmm_neon_legacy_qs_off(kind);
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(blk_bytes, p0, k);
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *blk = panel + (size_t)b * blk_bytes;
            memset(blk, 0, blk_bytes);
            for (int r = 0; r < QMM_NEON_NR && p0 + r < n; r++) {
                const uint8_t *wb = (const uint8_t *)src + (size_t)(p0 + r) * src_row_stride + (size_t)b * gbytes;
                memcpy(blk + 2 * r, wb, 2);
                if (qmm_neon_legacy_has_min(kind))
                    memcpy(blk + QMM_NEON_LEGACY_M_OFF + 2 * r, wb + qmm_neon_legacy_gguf_m(kind), 2);
                const uint8_t *qh = wb + qmm_neon_legacy_gguf_qh(kind), *qs = wb + qmm_neon_legacy_gguf_qs(kind);
                const uint32_t qhw = (uint32_t)qh[0] | (uint32_t)qh[1] << 8 | (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24;
                for (int t = 0; t < QMM_QK / 2; t++) {
                    const size_t pos = qmm_neon_pos(arrangement, r, t);
                    blk[qs_off + pos] = qs[t];
                    if (qmm_neon_legacy_has_qh(kind)) {
                        const int c = (int)(pos / 16);
                        const unsigned inv_lo = ~(qhw >> t) & 1u, inv_hi = ~(qhw >> (t + 16)) & 1u;
                        blk[qh_off + pos % 16] |= (uint8_t)(inv_lo << c | inv_hi << (4 + c));
                    }
                }
            }
        }
    }
}

/* Row r's GGUF block rebuilt from panel block blk into wb (the packer's inverse: every field is kept, H's bits
 * inverted). */
static inline void qmm_neon_legacy_block(qmm_type kind, int arrangement, const uint8_t *blk, int r, uint8_t *wb) {
    memset(wb, 0, qmm_neon_legacy_gguf_bytes(kind));
    memcpy(wb, blk + 2 * r, 2);
    if (qmm_neon_legacy_has_min(kind))
        memcpy(wb + qmm_neon_legacy_gguf_m(kind), blk + QMM_NEON_LEGACY_M_OFF + 2 * r, 2);
    uint8_t *qs = wb + qmm_neon_legacy_gguf_qs(kind);
    uint32_t qh = 0;
    for (int t = 0; t < QMM_QK / 2; t++) {
        const size_t pos = qmm_neon_pos(arrangement, r, t);
        qs[t] = blk[qmm_neon_legacy_qs_off(kind) + pos];
        if (qmm_neon_legacy_has_qh(kind)) {
            const unsigned h = blk[qmm_neon_legacy_qh_off(kind) + pos % 16] >> (pos / 16);
            qh |= (~h & 1u) << t | (~(h >> 4) & 1u) << (t + 16);
        }
    }
    if (qmm_neon_legacy_has_qh(kind))
        for (int i = 0; i < 4; i++)
            wb[qmm_neon_legacy_gguf_qh(kind) + (size_t)i] = (uint8_t)(qh >> (8 * i));
}

/* GGUF block storage for the three types (aligned for the dequantizer). */
typedef union {
    qmm_block_q4_1 q4_1;
    qmm_block_q5_0 q5_0;
    qmm_block_q5_1 q5_1;
} qmm_neon_legacy_gguf;

/* w_unpack_row: the same blocks, as bytes. */
static inline void qmm_neon_legacy_unpack_row(qmm_type kind, int arrangement, const void *packed, int64_t k, int64_t row,
                                              void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t blk_bytes = qmm_neon_legacy_blk(kind), gbytes = qmm_neon_legacy_gguf_bytes(kind);
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(blk_bytes, row, k);
    for (int64_t b = 0; b < nb; b++)
        qmm_neon_legacy_block(kind, arrangement, panel + (size_t)b * blk_bytes, (int)(row % QMM_NEON_NR),
                              (uint8_t *)dst + (size_t)b * gbytes);
}

#endif
