/* The NEON int8 kind Q6_K (dotprod: sdot on ROWS4 panels; i8mm: smmla on PAIRS panels): panel format, packer,
 * GET_ROWS reader and the tile qmm_neon_q6_k_tile, with the plain activation layout (neon_common.h).
 *
 * Packed panel of 4 weight rows, per super-block of 256 (840 bytes, the GGUF bytes of 4 rows exactly; 105 per
 * 32-block as the driver counts):
 *   fp16 d[4]                                    row r at 2 r                         8 B
 *   int8 sc[16][4]: 16-sub-block s, row r at 8 + 4 s + r                            64 B
 *   8 x 96 B, 32-block j at 72 + 96 j:
 *     64 B nibbles: byte B = qmm_neon_pos(arrangement, r, t) (t < 16) holds the low 4 bits of P(t) (low nibble)
 *                   and of P(t + 16) (high nibble), P = (q - 32) & 63 the 6-bit two's complement of the signed q
 *     16 B Hl, 16 B Hh: bits 2c..2c+1 of byte p hold P >> 4 of the element in the low (Hl) / high (Hh) nibble of
 *                   byte 16 c + p of the nibble area
 * Per chunk, (nibble << 2) with the two stored bits inserted as bits 6..7 (sli, sri) is the int8 4 * (q - 32):
 * the low nibbles are sub-block a (elements 0..15 of the 32-block), the high ones sub-block b, dotted separately
 * (4 sum, |.| <= 260096), and isum = (sc_a * 4 sum_a + sc_b * 4 sum_b) >> 2 exactly (|4 isum| <= 66584576 < 2^31),
 * the reference's sc_a sum_a + sc_b sum_b; then acc = fma((float)isum, d * x_d, acc). */
#ifndef QMM_NEON_Q6_K_BODY_H
#define QMM_NEON_Q6_K_BODY_H

#include "kernels/arm/neon_common.h"

#define QMM_NEON_Q6_K_SB  840
#define QMM_NEON_Q6_K_SC  8
#define QMM_NEON_Q6_K_Q   72
#define QMM_NEON_Q6_K_BLK 105 /* QMM_NEON_Q6_K_SB / 8 */

/* The quants of 32-block q as int8 4 * (q - 32): lo[c] from the low nibbles of chunk c, hi[c] from the high ones. */
static inline __attribute__((always_inline)) void qmm_neon_q6_k_unpack(const uint8_t *q, int8x16_t lo[4], int8x16_t hi[4]) {
    const uint8x16_t v0 = vld1q_u8(q), v1 = vld1q_u8(q + 16), v2 = vld1q_u8(q + 32), v3 = vld1q_u8(q + 48);
    const uint8x16_t hl = vld1q_u8(q + 64), hh = vld1q_u8(q + 80), f0 = vdupq_n_u8(0xf0);
    /* low: (v << 2) keeps bits 2..5 = nibble; sli #6 puts bits 2c..2c+1 of Hl at bits 6..7 */
    lo[0] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v0, 2), hl, 6));
    lo[1] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v1, 2), vshrq_n_u8(hl, 2), 6));
    lo[2] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v2, 2), vshrq_n_u8(hl, 4), 6));
    lo[3] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v3, 2), vshrq_n_u8(hl, 6), 6));
    /* high: (v & 0xf0) >> 2 is the nibble at bits 2..5; sri #2 keeps bits 6..7 of Hh << (6 - 2c) */
    hi[0] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(hh, 6), vandq_u8(v0, f0), 2));
    hi[1] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(hh, 4), vandq_u8(v1, f0), 2));
    hi[2] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(hh, 2), vandq_u8(v2, f0), 2));
    hi[3] = vreinterpretq_s8_u8(vsriq_n_u8(hh, vandq_u8(v3, f0), 2));
}

/* The float step of one activation row (scale xd) for the 4 weight rows: sa, sb the sub-block dots (times 4). */
static inline __attribute__((always_inline)) float32x4_t
qmm_neon_q6_k_step(float32x4_t acc, int32x4_t sa, int32x4_t sb, int32x4_t sca, int32x4_t scb, float32x4_t wd, float xd) {
    const int32x4_t isum = vshrq_n_s32(vmlaq_s32(vmulq_s32(sa, sca), sb, scb), 2);
    return vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(wd, xd));
}

/* mc (constant after inlining) activation rows of group a x the 4 rows of panel w, all nb 32-blocks. */
static inline __attribute__((always_inline)) void qmm_neon_q6_k_tile(int arrangement, const int mc, int64_t nb, const uint8_t *a,
                                                                     const uint8_t *w, float32x4_t out[QMM_NEON_MR]) {
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t s = 0; s < nb / 8; s++, w += QMM_NEON_Q6_K_SB) {
        const float32x4_t wd = qmm_neon_fp16x4(w);
        for (int j = 0; j < 8; j++, a += QMM_NEON_ACT_BLK) {
            /* sub-blocks 2j (a) and 2j + 1 (b) of the 4 rows */
            const int16x8_t sc16 = vmovl_s8(vld1_s8((const int8_t *)w + QMM_NEON_Q6_K_SC + 8 * j));
            const int32x4_t sca = vmovl_s16(vget_low_s16(sc16)), scb = vmovl_high_s16(sc16);
            int8x16_t wq[8]; /* lo[c] = wq[c], hi[c] = wq[4 + c] */
            qmm_neon_q6_k_unpack(w + QMM_NEON_Q6_K_Q + 96 * j, wq, wq + 4);
            if (arrangement == QMM_NEON_PAIRS) {
                for (int p = 0; p < (mc + 1) / 2; p++) {
                    int32x4_t ra[2], rb[2];
                    qmm_neon_smmla_halves(wq, (const int8_t *)a + 16 + 16 * p, ra, rb);
                    for (int h = 0; h < 2 && 2 * p + h < mc; h++)
                        acc[2 * p + h] =
                            qmm_neon_q6_k_step(acc[2 * p + h], ra[h], rb[h], sca, scb, wd, ((const float *)a)[2 * p + h]);
                }
            } else {
                for (int i = 0; i < mc; i++) {
                    int32x4_t sa, sb;
                    qmm_neon_sdot_halves(wq, (const int8_t *)a + 16 + 32 * i, &sa, &sb);
                    acc[i] = qmm_neon_q6_k_step(acc[i], sa, sb, sca, scb, wd, ((const float *)a)[i]);
                }
            }
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

/* Element e of a GGUF Q6_K block set to u = q + 32 (0..63), in a block whose ql / qh start zeroed. */
static inline void qmm_neon_q6_k_set_u(qmm_block_q6_k *wb, int e, unsigned u) {
    const int h = e / 128, l = e % 128;
    wb->ql[64 * h + l % 64] |= (uint8_t)((u & 15u) << (4 * (l / 64)));
    wb->qh[32 * h + l % 32] |= (uint8_t)((u >> 4) << (2 * (l / 32)));
}

/* GGUF rows [n0, n1) (whole panels; rows from n on are padding: zero scales, zero quants) into panels. */
static inline void qmm_neon_q6_k_pack(int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                      size_t src_row_stride, void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(QMM_NEON_Q6_K_BLK, p0, k);
        for (int64_t s = 0; s < nsb; s++) {
            uint8_t *sb = panel + (size_t)s * QMM_NEON_Q6_K_SB;
            memset(sb, 0, QMM_NEON_Q6_K_SB);
            for (int r = 0; r < QMM_NEON_NR && p0 + r < n; r++) {
                const qmm_block_q6_k *wb = (const qmm_block_q6_k *)((const char *)src + (size_t)(p0 + r) * src_row_stride) + s;
                memcpy(sb + 2 * r, &wb->d, 2);
                for (int u = 0; u < 16; u++)
                    sb[QMM_NEON_Q6_K_SC + 4 * u + r] = (uint8_t)wb->scales[u];
                for (int j = 0; j < 8; j++) {
                    uint8_t *q = sb + QMM_NEON_Q6_K_Q + 96 * j;
                    for (int t = 0; t < QMM_QK / 2; t++) {
                        const size_t pos = qmm_neon_pos(arrangement, r, t);
                        const unsigned plo = (unsigned)qmm_q6_k_q(wb, 32 * j + t) & 63u;
                        const unsigned phi = (unsigned)qmm_q6_k_q(wb, 32 * j + 16 + t) & 63u;
                        const int c = (int)(pos / 16);
                        q[pos] = (uint8_t)((plo & 15u) | (phi & 15u) << 4);
                        q[64 + pos % 16] |= (uint8_t)((plo >> 4) << (2 * c));
                        q[80 + pos % 16] |= (uint8_t)((phi >> 4) << (2 * c));
                    }
                }
            }
        }
    }
}

/* Row r's GGUF super-block rebuilt from panel super-block sb (the packer's inverse: every bit is kept). */
static inline void qmm_neon_q6_k_block(int arrangement, const uint8_t *sb, int r, qmm_block_q6_k *wb) {
    memset(wb, 0, sizeof *wb);
    memcpy(&wb->d, sb + 2 * r, 2);
    for (int u = 0; u < 16; u++)
        wb->scales[u] = (int8_t)sb[QMM_NEON_Q6_K_SC + 4 * u + r];
    for (int j = 0; j < 8; j++) {
        const uint8_t *q = sb + QMM_NEON_Q6_K_Q + 96 * j;
        for (int t = 0; t < QMM_QK / 2; t++) {
            const size_t pos = qmm_neon_pos(arrangement, r, t);
            const int c = (int)(pos / 16);
            const unsigned plo = (q[pos] & 15u) | ((q[64 + pos % 16] >> (2 * c)) & 3u) << 4;
            const unsigned phi = (unsigned)(q[pos] >> 4) | ((q[80 + pos % 16] >> (2 * c)) & 3u) << 4;
            qmm_neon_q6_k_set_u(wb, 32 * j + t, plo ^ 32u); /* u = q + 32 = P ^ 32 */
            qmm_neon_q6_k_set_u(wb, 32 * j + 16 + t, phi ^ 32u);
        }
    }
}

/* w_unpack_row: the same blocks, as bytes. */
static inline void qmm_neon_q6_k_unpack_row(int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(QMM_NEON_Q6_K_BLK, row, k);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        qmm_block_q6_k wb;
        qmm_neon_q6_k_block(arrangement, panel + (size_t)s * QMM_NEON_Q6_K_SB, (int)(row % QMM_NEON_NR), &wb);
        memcpy((uint8_t *)dst + (size_t)s * sizeof wb, &wb, sizeof wb);
    }
}

#endif
