/* The NEON int8 kinds of the 4-bit table types IQ4_NL, MXFP4 and IQ4_XS (dotprod, i8mm): panel formats, packers,
 * GET_ROWS readers and the tile, qmm_neon_table_tile, with the kind (a qmm_type) a constant argument.
 *
 * Weight panel (n_step = 4 rows), per 32-block: the 4 rows' scales as GGUF has them (IQ4_NL: fp16 d, 8 bytes,
 * widened exactly by fcvtl; MXFP4: the E8M0 bytes, 4 bytes), then the GGUF nibble bytes of the 4 rows (64 bytes)
 * at qmm_neon_pos(arrangement, r, t) for byte t < 16 (low nibble element t, high nibble t + 16). 72 and 68
 * bytes per 4 blocks: the GGUF size. A table lookup (tbl) of the masked nibbles gives the int8 levels (the
 * signed IQ4_NL table, or the E2M1 values doubled), and sdot / smmla multiply them by the int8 activations
 * directly (s8 x s8): the int32 sum is exactly sum kv[q] q_x. Float step per block and output as the reference:
 * acc = fma((float)isum, s * x_d, acc), s the fp16 d or MXFP4's 2^(e - 128), built from the exponent bits as
 * max((e - 1) << 23, 0x200000 << min(e, 2)) in int32 (e = 0, 1: the subnormals 2^-128, 2^-127).
 *
 * IQ4_XS (per 256): the panel holds super-blocks ("units" of 8 32-blocks) of the 4 rows, 552 bytes each (GGUF:
 * 4 x 136 = 544, +1.5%, as the x86 families): fp16 d[4] at 2 r (the GGUF d), the signed 6-bit sub-scales
 * ls_j = -32..31 unpacked into int8 at 8 + 4 j + r (a vector of the 4 rows' ls_j is one load and two widenings,
 * where the packed scales_h / scales_l would need a decode per block: 8 bytes more per row), then per 32-block j
 * the 64 nibble bytes at 40 + 64 j, arranged as IQ4_NL's. Per 32-block the tile computes IQ4_NL's int32 dot of
 * the levels, then isum = ls_j * dot (exact: |.| <= 32 * 516128 = 16516096 < 2^24) and, in the reference's
 * order, acc = fma((float)isum, d * x_d, acc). The driver's blk is the panel bytes per 32-block, 552 / 8 = 69. */
#ifndef QMM_NEON_TABLE_H
#define QMM_NEON_TABLE_H

#include "kernels/arm/neon_common.h"

#define QMM_NEON_IQ4_NL_BLK 72 /* 8 + 64 */
#define QMM_NEON_MXFP4_BLK  68 /* 4 + 64 */
#define QMM_NEON_IQ4_XS_HDR 40 /* 8 + 32 */
#define QMM_NEON_IQ4_XS_SB  (QMM_NEON_IQ4_XS_HDR + 8 * 64)
#define QMM_NEON_IQ4_XS_BLK (QMM_NEON_IQ4_XS_SB / 8)
_Static_assert(QMM_NEON_IQ4_XS_SB == 552 && QMM_NEON_IQ4_XS_BLK * 8 == QMM_NEON_IQ4_XS_SB, "IQ4_XS panel super-block");

/* Per kind: 32-blocks per unit (a scale header and its blocks' nibbles), bytes of a unit, offset of its nibbles,
 * and bytes per 32-block of a panel. */
static inline int qmm_neon_table_ub(qmm_type kind) { return kind == QMM_TYPE_IQ4_XS ? 8 : 1; }
static inline size_t qmm_neon_table_unit(qmm_type kind) {
    return kind == QMM_TYPE_IQ4_XS ? QMM_NEON_IQ4_XS_SB : kind == QMM_TYPE_MXFP4 ? QMM_NEON_MXFP4_BLK : QMM_NEON_IQ4_NL_BLK;
}
static inline int qmm_neon_table_qoff(qmm_type kind) {
    return kind == QMM_TYPE_IQ4_XS ? QMM_NEON_IQ4_XS_HDR : kind == QMM_TYPE_MXFP4 ? 4 : 8;
}
static inline size_t qmm_neon_table_blk(qmm_type kind) { return qmm_neon_table_unit(kind) / (size_t)qmm_neon_table_ub(kind); }

static inline void qmm_neon_table_pack(qmm_type kind, int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1,
                                       const void *src, size_t src_row_stride, void *dst) {
    const size_t blk_bytes = kind == QMM_TYPE_MXFP4 ? QMM_NEON_MXFP4_BLK : QMM_NEON_IQ4_NL_BLK;
    const int hdr = kind == QMM_TYPE_MXFP4 ? 4 : 8;
    const size_t sb_bytes = kind == QMM_TYPE_MXFP4 ? sizeof(qmm_block_mxfp4) : sizeof(qmm_block_iq4_nl);
    const int64_t nb = k / QMM_QK;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(blk_bytes, p0, k);
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *blk = panel + (size_t)b * blk_bytes;
            for (int r = 0; r < QMM_NEON_NR; r++) {
                uint8_t s[2] = {0, 0}, qs[QMM_QK / 2]; /* padding rows: zero scale and nibbles */
                memset(qs, 0, sizeof qs);
                if (p0 + r < n) {
                    const uint8_t *sb = (const uint8_t *)src + (size_t)(p0 + r) * src_row_stride + (size_t)b * sb_bytes;
                    memcpy(s, sb, (size_t)(hdr / 4));
                    memcpy(qs, sb + hdr / 4, sizeof qs);
                }
                memcpy(blk + (size_t)(hdr / 4) * (size_t)r, s, (size_t)(hdr / 4));
                for (int t = 0; t < QMM_QK / 2; t++)
                    blk[hdr + qmm_neon_pos(arrangement, r, t)] = qs[t];
            }
        }
    }
}

/* w_unpack_row: the GGUF blocks back (the scale bytes and the nibble bytes are kept as they are). */
static inline void qmm_neon_table_unpack(qmm_type kind, int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const size_t blk_bytes = kind == QMM_TYPE_MXFP4 ? QMM_NEON_MXFP4_BLK : QMM_NEON_IQ4_NL_BLK;
    const int hdr = kind == QMM_TYPE_MXFP4 ? 4 : 8;
    const size_t sb_bytes = kind == QMM_TYPE_MXFP4 ? sizeof(qmm_block_mxfp4) : sizeof(qmm_block_iq4_nl);
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(blk_bytes, row, k);
    const int r = (int)(row % QMM_NEON_NR);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = panel + (size_t)b * blk_bytes;
        uint8_t *g = (uint8_t *)dst + (size_t)b * sb_bytes;
        memcpy(g, blk + (size_t)(hdr / 4) * (size_t)r, (size_t)(hdr / 4));
        for (int t = 0; t < QMM_QK / 2; t++)
            g[hdr / 4 + t] = blk[hdr + qmm_neon_pos(arrangement, r, t)];
    }
}

/* IQ4_XS: GGUF rows [n0, n1) (whole panels; rows from n on are padding: zero d, sub-scales and nibbles). */
static inline void qmm_neon_pack_iq4_xs(int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                        size_t src_row_stride, void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(QMM_NEON_IQ4_XS_BLK, p0, k);
        memset(panel, 0, (size_t)nsb * QMM_NEON_IQ4_XS_SB);
        for (int64_t s = 0; s < nsb; s++) {
            uint8_t *sb = panel + (size_t)s * QMM_NEON_IQ4_XS_SB;
            for (int r = 0; r < QMM_NEON_NR && p0 + r < n; r++) {
                const qmm_block_iq4_xs *g = (const qmm_block_iq4_xs *)((const char *)src + (size_t)(p0 + r) * src_row_stride) + s;
                memcpy(sb + 2 * r, &g->d, 2);
                for (int j = 0; j < 8; j++) {
                    sb[8 + 4 * j + r] = (uint8_t)(int8_t)qmm_iq4_xs_scale(g, j);
                    for (int t = 0; t < QMM_QK / 2; t++)
                        sb[QMM_NEON_IQ4_XS_HDR + 64 * j + qmm_neon_pos(arrangement, r, t)] = g->qs[16 * j + t];
                }
            }
        }
    }
}

/* Row r's GGUF super-block rebuilt from panel super-block sb: ls_j + 32 split back into scales_l / scales_h (the
 * 6 bits each ls_j came from), the nibble bytes as they are. */
static inline void qmm_neon_iq4_xs_block(int arrangement, const uint8_t *sb, int r, qmm_block_iq4_xs *g) {
    qmm_iq4_xs_header_put(g, sb + 2 * r, sb + 8 + r, 4);
    for (int j = 0; j < 8; j++)
        for (int t = 0; t < QMM_QK / 2; t++)
            g->qs[16 * j + t] = sb[QMM_NEON_IQ4_XS_HDR + 64 * j + qmm_neon_pos(arrangement, r, t)];
}

/* w_unpack_row: the same super-blocks, as bytes. */
static inline void qmm_neon_unpack_iq4_xs(int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(QMM_NEON_IQ4_XS_BLK, row, k);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        qmm_block_iq4_xs g;
        qmm_neon_iq4_xs_block(arrangement, panel + (size_t)s * QMM_NEON_IQ4_XS_SB, (int)(row % QMM_NEON_NR), &g);
        memcpy((uint8_t *)dst + (size_t)s * sizeof g, &g, sizeof g);
    }
}

/* The 4 rows' block scales as fp32, exactly (IQ4_XS: its super-block's d, as IQ4_NL's). */
static inline __attribute__((always_inline)) float32x4_t qmm_neon_table_scales(qmm_type kind, const uint8_t *w) {
    if (kind == QMM_TYPE_MXFP4) {
        uint32_t e4;
        memcpy(&e4, w, 4);
        const uint32x4_t e = vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(e4)))));
        const int32x4_t normal = vshlq_n_s32(vsubq_s32(vreinterpretq_s32_u32(e), vdupq_n_s32(1)), 23); /* e = 0: negative */
        const int32x4_t low = vshlq_s32(vdupq_n_s32(0x00200000), vreinterpretq_s32_u32(vminq_u32(e, vdupq_n_u32(2))));
        return vreinterpretq_f32_s32(vmaxq_s32(normal, low));
    }
    return vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(w)));
}

/* IQ4_XS: the 4 rows' sub-scales ls_j of 32-block j of the unit at w, as int32 (8 bytes read: within the unit). */
static inline __attribute__((always_inline)) int32x4_t qmm_neon_table_ls(const uint8_t *w, int j) {
    return vmovl_s16(vget_low_s16(vmovl_s8(vld1_s8((const int8_t *)w + 8 + 4 * j))));
}

static inline __attribute__((always_inline)) int8x16_t qmm_neon_table_levels(qmm_type kind) {
    return vld1q_s8(kind == QMM_TYPE_MXFP4 ? qmm_kvalues_mxfp4 : qmm_kvalues_iq4nl);
}

/* The float step of activation row i of block a for the 4 weight rows: dot the int32 block dot (IQ4_XS: times the
 * sub-scales ls), ws the rows' scales. */
static inline __attribute__((always_inline)) float32x4_t
qmm_neon_table_step(qmm_type kind, float32x4_t acc, int32x4_t dot, int32x4_t ls, float32x4_t ws, const uint8_t *a, int i) {
    const int32x4_t isum = kind == QMM_TYPE_IQ4_XS ? vmulq_s32(dot, ls) : dot;
    return vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(ws, ((const float *)a)[i]));
}

/* mc (constant after inlining) activation rows of group a x the 4 rows of panel w: the nibbles become int8 levels by
 * tbl, then the block steps of neon_common.h (ROWS4: sdot, PAIRS: smmla), and IQ4_XS's sub-scale times the exact
 * block dot. */
static inline __attribute__((always_inline)) void qmm_neon_table_tile(qmm_type kind, int arrangement, const int mc, int64_t nb,
                                                                      const uint8_t *a, const uint8_t *w,
                                                                      float32x4_t out[QMM_NEON_MR]) {
    const int ub = qmm_neon_table_ub(kind);
    const int8x16_t table = qmm_neon_table_levels(kind);
    const uint8x16_t m4 = vdupq_n_u8(0x0f);
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t s = 0; s < nb / ub; s++, w += qmm_neon_table_unit(kind)) {
        const float32x4_t ws = qmm_neon_table_scales(kind, w);
        for (int j = 0; j < ub; j++, a += QMM_NEON_ACT_BLK) {
            const uint8_t *wn = w + qmm_neon_table_qoff(kind) + 64 * j;
            const int32x4_t ls = kind == QMM_TYPE_IQ4_XS ? qmm_neon_table_ls(w, j) : vdupq_n_s32(1);
            int8x16_t wq[8]; /* wq[c]: the low nibbles of chunk c, wq[c + 4]: the high ones, as levels */
            for (int c = 0; c < 4; c++) {
                const uint8x16_t v = vld1q_u8(wn + 16 * c);
                wq[c] = vqtbl1q_s8(table, vandq_u8(v, m4));
                wq[c + 4] = vqtbl1q_s8(table, vshrq_n_u8(v, 4));
            }
            if (arrangement == QMM_NEON_PAIRS) {
                for (int p = 0; p < (mc + 1) / 2; p++) {
                    int32x4_t r[2];
                    qmm_neon_smmla_block(wq, (const int8_t *)a + 16 + 16 * p, &r[0], &r[1]);
                    for (int h = 0; h < 2 && 2 * p + h < mc; h++)
                        acc[2 * p + h] = qmm_neon_table_step(kind, acc[2 * p + h], r[h], ls, ws, a, 2 * p + h);
                }
            } else {
                for (int i = 0; i < mc; i++)
                    acc[i] =
                        qmm_neon_table_step(kind, acc[i], qmm_neon_sdot_block(wq, (const int8_t *)a + 16 + 32 * i), ls, ws, a, i);
            }
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

#endif
