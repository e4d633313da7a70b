/* Q8_0 x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile.
 *
 * Panels hold 4 weight rows in the ROWS4 arrangement (neon_common.h): each 16-byte load is 4 elements of each of
 * the 4 rows, and sdot by lane against 4 elements of one activation row gives the 4 rows' partial sums. The 8
 * weight loads of a block serve every activation row of the tile. Per block and output, the exact int32 sum then
 * takes the one float step of the reference: acc = fma((float)isum, wscale * xscale, acc). */
#include "kernels/arm/neon_driver.h"

#define BLK QMM_NEON_Q8_BLK

/* One tile: mc (constant after inlining) activation rows of group a x the 4 rows of panel w. */
static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; b++, a += QMM_NEON_ACT_BLK, w += BLK) {
        const float32x4_t ws = vld1q_f32((const float *)w);
        int8x16_t wq[8];
        for (int c = 0; c < 8; c++)
            wq[c] = vld1q_s8((const int8_t *)w + 16 + 16 * c);
        for (int i = 0; i < mc; i++) {
            const int8x16_t x0 = vld1q_s8((const int8_t *)a + 16 + 32 * i);
            const int8x16_t x1 = vld1q_s8((const int8_t *)a + 16 + 32 * i + 16);
            int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
            s0 = vdotq_laneq_s32(s0, wq[0], x0, 0);
            s1 = vdotq_laneq_s32(s1, wq[1], x0, 1);
            s0 = vdotq_laneq_s32(s0, wq[2], x0, 2);
            s1 = vdotq_laneq_s32(s1, wq[3], x0, 3);
            s0 = vdotq_laneq_s32(s0, wq[4], x1, 0);
            s1 = vdotq_laneq_s32(s1, wq[5], x1, 1);
            s0 = vdotq_laneq_s32(s0, wq[6], x1, 2);
            s1 = vdotq_laneq_s32(s1, wq[7], x1, 3);
            const float xd = ((const float *)a)[i];
            acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(vaddq_s32(s0, s1)), vmulq_n_f32(ws, xd));
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the reference */
QMM_NEON_INT8_FAMILY(neon_dotprod_q8_0, QMM_TYPE_Q8_0, q8_0, BLK, QMM_NEON_ROWS4, 4, QMM_CPU_NEON | QMM_CPU_DOTPROD,
                     QMM_CPU_DOTPROD, tile)
