/* Q6_K x int8 activations on NEON, sdot (dotprod) or smmla (i8mm): the body shared by its two families
 * (matmul_q6_k_neon_dotprod.c, matmul_q6_k_neon_i8mm.c), on the NEON int8 driver (neon_driver.h) with the plain
 * activation layout (neon_common.h). The includer defines Q6N_ID (the family id) and Q6N_I8MM (1: smmla tile,
 * PAIRS arrangement; 0: sdot tile, ROWS4).
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
#include "kernels/arm/neon_driver.h"

#define Q6N_SB_BYTES 840
#define Q6N_SC_OFF   8
#define Q6N_Q_OFF    72
#define Q6N_BLK      105 /* Q6N_SB_BYTES / 8 */

/* The quants of 32-block q as int8 4 * (q - 32): lo[c] from the low nibbles of chunk c, hi[c] from the high ones. */
static inline __attribute__((always_inline)) void q6n_unpack(const uint8_t *q, int8x16_t lo[4], int8x16_t hi[4]) {
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
static inline __attribute__((always_inline)) float32x4_t q6n_step(float32x4_t acc, int32x4_t sa, int32x4_t sb, int32x4_t sca,
                                                                  int32x4_t scb, float32x4_t wd, float xd) {
    const int32x4_t isum = vshrq_n_s32(vmlaq_s32(vmulq_s32(sa, sca), sb, scb), 2);
    return vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(wd, xd));
}

static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t s = 0; s < nb / 8; s++, w += Q6N_SB_BYTES) {
        const float32x4_t wd = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)w)));
        for (int j = 0; j < 8; j++, a += QMM_NEON_ACT_BLK) {
            /* sub-blocks 2j (a) and 2j + 1 (b) of the 4 rows */
            const int16x8_t sc16 = vmovl_s8(vld1_s8((const int8_t *)w + Q6N_SC_OFF + 8 * j));
            const int32x4_t sca = vmovl_s16(vget_low_s16(sc16)), scb = vmovl_high_s16(sc16);
            int8x16_t wq[8]; /* lo[c] = wq[c], hi[c] = wq[4 + c] */
            q6n_unpack(w + Q6N_Q_OFF + 96 * j, wq, wq + 4);
#if Q6N_I8MM
            /* smmla as neon_legacy_body.h, groups 0, 1 (sub-block a) and 2, 3 (b) in their own accumulators */
            for (int p = 0; p < (mc + 1) / 2; p++) {
                int32x4_t a0 = vdupq_n_s32(0), a1 = vdupq_n_s32(0), b0 = vdupq_n_s32(0), b1 = vdupq_n_s32(0);
                for (int g = 0; g < 2; g++) {
                    const int8x16_t xa = vld1q_s8((const int8_t *)a + 16 + 32 * g + 16 * p);
                    const int8x16_t xb = vld1q_s8((const int8_t *)a + 16 + 32 * (g + 2) + 16 * p);
                    a0 = vmmlaq_s32(a0, xa, wq[2 * g]);
                    a1 = vmmlaq_s32(a1, xa, wq[2 * g + 1]);
                    b0 = vmmlaq_s32(b0, xb, wq[2 * g + 4]);
                    b1 = vmmlaq_s32(b1, xb, wq[2 * g + 5]);
                }
                const int64x2_t a0l = vreinterpretq_s64_s32(a0), a1l = vreinterpretq_s64_s32(a1);
                const int64x2_t b0l = vreinterpretq_s64_s32(b0), b1l = vreinterpretq_s64_s32(b1);
                acc[2 * p] = q6n_step(acc[2 * p], vreinterpretq_s32_s64(vzip1q_s64(a0l, a1l)),
                                      vreinterpretq_s32_s64(vzip1q_s64(b0l, b1l)), sca, scb, wd, ((const float *)a)[2 * p]);
                if (2 * p + 1 < mc)
                    acc[2 * p + 1] =
                        q6n_step(acc[2 * p + 1], vreinterpretq_s32_s64(vzip2q_s64(a0l, a1l)),
                                 vreinterpretq_s32_s64(vzip2q_s64(b0l, b1l)), sca, scb, wd, ((const float *)a)[2 * p + 1]);
            }
#else
            for (int i = 0; i < mc; i++) {
                const int8x16_t x0 = vld1q_s8((const int8_t *)a + 16 + 32 * i);
                const int8x16_t x1 = vld1q_s8((const int8_t *)a + 16 + 32 * i + 16);
                int32x4_t sa = vdupq_n_s32(0), sb = vdupq_n_s32(0);
                sa = vdotq_laneq_s32(sa, wq[0], x0, 0);
                sb = vdotq_laneq_s32(sb, wq[4], x1, 0);
                sa = vdotq_laneq_s32(sa, wq[1], x0, 1);
                sb = vdotq_laneq_s32(sb, wq[5], x1, 1);
                sa = vdotq_laneq_s32(sa, wq[2], x0, 2);
                sb = vdotq_laneq_s32(sb, wq[6], x1, 2);
                sa = vdotq_laneq_s32(sa, wq[3], x0, 3);
                sb = vdotq_laneq_s32(sb, wq[7], x1, 3);
                acc[i] = q6n_step(acc[i], sa, sb, sca, scb, wd, ((const float *)a)[i]);
            }
#endif
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

/* Element e of a GGUF Q6_K block set to u = q + 32 (0..63), in a block whose ql / qh start zeroed. */
static inline void q6n_set_u(qmm_block_q6_k *wb, int e, unsigned u) {
    const int h = e / 128, l = e % 128;
    wb->ql[64 * h + l % 64] |= (uint8_t)((u & 15u) << (4 * (l / 64)));
    wb->qh[32 * h + l % 32] |= (uint8_t)((u >> 4) << (2 * (l / 32)));
}

/* GGUF rows [n0, n1) (whole panels; rows from n on are padding: zero scales, zero quants) into panels. */
static inline void qmm_neon_pack_q6n(int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                     size_t src_row_stride, void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(Q6N_BLK, p0, k);
        for (int64_t s = 0; s < nsb; s++) {
            uint8_t *sb = panel + (size_t)s * Q6N_SB_BYTES;
            memset(sb, 0, Q6N_SB_BYTES);
            for (int r = 0; r < QMM_NEON_NR && p0 + r < n; r++) {
                const qmm_block_q6_k *wb = (const qmm_block_q6_k *)((const char *)src + (size_t)(p0 + r) * src_row_stride) + s;
                memcpy(sb + 2 * r, &wb->d, 2);
                for (int u = 0; u < 16; u++)
                    sb[Q6N_SC_OFF + 4 * u + r] = (uint8_t)wb->scales[u];
                for (int j = 0; j < 8; j++) {
                    uint8_t *q = sb + Q6N_Q_OFF + 96 * j;
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
static inline void qmm_neon_q6n_block(int arrangement, const uint8_t *sb, int r, qmm_block_q6_k *wb) {
    memset(wb, 0, sizeof *wb);
    memcpy(&wb->d, sb + 2 * r, 2);
    for (int u = 0; u < 16; u++)
        wb->scales[u] = (int8_t)sb[Q6N_SC_OFF + 4 * u + r];
    for (int j = 0; j < 8; j++) {
        const uint8_t *q = sb + Q6N_Q_OFF + 96 * j;
        for (int t = 0; t < QMM_QK / 2; t++) {
            const size_t pos = qmm_neon_pos(arrangement, r, t);
            const int c = (int)(pos / 16);
            const unsigned plo = (q[pos] & 15u) | ((q[64 + pos % 16] >> (2 * c)) & 3u) << 4;
            const unsigned phi = (unsigned)(q[pos] >> 4) | ((q[80 + pos % 16] >> (2 * c)) & 3u) << 4;
            q6n_set_u(wb, 32 * j + t, plo ^ 32u); /* u = q + 32 = P ^ 32 */
            q6n_set_u(wb, 32 * j + 16 + t, phi ^ 32u);
        }
    }
}

/* GET_ROWS: the row's GGUF blocks rebuilt from the panel, dequantized by the reference's own function. */
static inline void qmm_neon_read_q6n(int arrangement, const void *packed, int64_t k, int64_t row, float *dst) {
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(Q6N_BLK, row, k);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        qmm_block_q6_k wb;
        qmm_neon_q6n_block(arrangement, panel + (size_t)s * Q6N_SB_BYTES, (int)(row % QMM_NEON_NR), &wb);
        qmm_dequantize_row_q6_k(&wb, dst + s * QMM_QK_K, QMM_QK_K);
    }
}

/* w_unpack_row: the same blocks, as bytes. */
static inline void qmm_neon_unpack_q6n(int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(Q6N_BLK, row, k);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        qmm_block_q6_k wb;
        qmm_neon_q6n_block(arrangement, panel + (size_t)s * Q6N_SB_BYTES, (int)(row % QMM_NEON_NR), &wb);
        memcpy((uint8_t *)dst + (size_t)s * sizeof wb, &wb, sizeof wb);
    }
}

#define Q6N_FAMILY(...) QMM_NEON_INT8_FAMILY(__VA_ARGS__)
#if Q6N_I8MM
/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the dotprod family */
Q6N_FAMILY(Q6N_ID, QMM_TYPE_Q6_K, q6n, Q6N_BLK, QMM_NEON_PAIRS, 8, QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM, QMM_CPU_I8MM,
           tile)
#else
/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the reference */
Q6N_FAMILY(Q6N_ID, QMM_TYPE_Q6_K, q6n, Q6N_BLK, QMM_NEON_ROWS4, 4, QMM_CPU_NEON | QMM_CPU_DOTPROD, QMM_CPU_DOTPROD, tile)
#endif
