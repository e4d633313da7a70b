/* Q8_0 x int8 activations with smmla (Armv8.6 i8mm): 4 weight rows x up to 4 activation rows per tile.
 *
 * smmla multiplies a 2x8 int8 matrix (two activation rows, 8 elements) by an 8x2 one (two weight rows, the same
 * 8 elements) into a 2x2 int32 tile. Weights are packed in the PAIRS arrangement and activations likewise
 * (neon_common.h), so each 16-byte load is one operand; over the 4 groups of 8 elements of a block, the four
 * 2x2 tiles (activation pair x weight pair) accumulate every (row, column) block sum exactly, and zips turn them
 * into one int32x4 per activation row (the 4 weight rows). Float step per block and output as the reference:
 * acc = fma((float)isum, wscale * xscale, acc). GEMV (one activation row) runs the same tile: one smmla does the
 * work of one sdot then, so a separate sdot path would not be faster. */
#include "kernels/arm/neon_driver.h"

#define BLK QMM_NEON_Q8_BLK

/* mc (constant after inlining) activation rows of group a x the 4 rows of panel w. */
static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    const int pairs = (mc + 1) / 2;
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; b++, a += QMM_NEON_ACT_BLK, w += BLK) {
        const float32x4_t ws = vld1q_f32((const float *)w);
        int8x16_t wq[8]; /* [g * 2 + weight pair] */
        for (int c = 0; c < 8; c++)
            wq[c] = vld1q_s8((const int8_t *)w + 16 + 16 * c);
        for (int p = 0; p < pairs; p++) {
            int32x4_t c0 = vdupq_n_s32(0), c1 = vdupq_n_s32(0); /* weight pairs (0,1) and (2,3) */
            for (int g = 0; g < 4; g++) {
                const int8x16_t x = vld1q_s8((const int8_t *)a + 16 + 32 * g + 16 * p);
                c0 = vmmlaq_s32(c0, x, wq[2 * g]);
                c1 = vmmlaq_s32(c1, x, wq[2 * g + 1]);
            }
            /* c0 = [y(2p,0) y(2p,1) y(2p+1,0) y(2p+1,1)], c1 likewise for columns 2, 3 */
            const int64x2_t c0l = vreinterpretq_s64_s32(c0), c1l = vreinterpretq_s64_s32(c1);
            const int32x4_t r0 = vreinterpretq_s32_s64(vzip1q_s64(c0l, c1l));
            const int32x4_t r1 = vreinterpretq_s32_s64(vzip2q_s64(c0l, c1l));
            const float xd0 = ((const float *)a)[2 * p], xd1 = ((const float *)a)[2 * p + 1];
            acc[2 * p] = vfmaq_f32(acc[2 * p], vcvtq_f32_s32(r0), vmulq_n_f32(ws, xd0));
            if (2 * p + 1 < mc)
                acc[2 * p + 1] = vfmaq_f32(acc[2 * p + 1], vcvtq_f32_s32(r1), vmulq_n_f32(ws, xd1));
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the dotprod family */
QMM_NEON_INT8_FAMILY(neon_i8mm_q8_0, QMM_TYPE_Q8_0, q8_0, BLK, QMM_NEON_PAIRS, 8, QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM,
                     QMM_CPU_I8MM, tile)
