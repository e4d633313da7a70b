/* Q4_0 x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile.
 *
 * Panels hold 4 weight rows in the ROWS4 arrangement with nibbles stored as q ^ 8 (neon_common.h): a shift left
 * by 4 (low nibbles, elements 0..15) or a mask with 0xf0 (high nibbles, elements 16..31) yields 16 * (q - 8) as
 * int8, so sdot by lane gives 16 * the exact block sum of each row, and >> 4 recovers it exactly. The 4 weight
 * loads of a block serve every activation row of the tile. Float step per block and output as the reference:
 * acc = fma((float)isum, wscale * xscale, acc). */
#include "kernels/arm/neon_driver.h"

#define BLK QMM_NEON_Q4_BLK

static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    const uint8x16_t high = vdupq_n_u8(0xf0);
    for (int64_t b = 0; b < nb; b++, a += QMM_NEON_ACT_BLK, w += BLK) {
        const float32x4_t ws = vld1q_f32((const float *)w);
        int8x16_t lo[4], hi[4]; /* lo[c]: elements 4c..4c+3, hi[c]: 16+4c..16+4c+3, of the 4 rows */
        for (int c = 0; c < 4; c++) {
            const uint8x16_t v = vld1q_u8(w + 16 + 16 * c);
            lo[c] = vreinterpretq_s8_u8(vshlq_n_u8(v, 4));
            hi[c] = vreinterpretq_s8_u8(vandq_u8(v, high));
        }
        for (int i = 0; i < mc; i++) {
            const int8x16_t x0 = vld1q_s8((const int8_t *)a + 16 + 32 * i);
            const int8x16_t x1 = vld1q_s8((const int8_t *)a + 16 + 32 * i + 16);
            int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
            s0 = vdotq_laneq_s32(s0, lo[0], x0, 0);
            s1 = vdotq_laneq_s32(s1, lo[1], x0, 1);
            s0 = vdotq_laneq_s32(s0, lo[2], x0, 2);
            s1 = vdotq_laneq_s32(s1, lo[3], x0, 3);
            s0 = vdotq_laneq_s32(s0, hi[0], x1, 0);
            s1 = vdotq_laneq_s32(s1, hi[1], x1, 1);
            s0 = vdotq_laneq_s32(s0, hi[2], x1, 2);
            s1 = vdotq_laneq_s32(s1, hi[3], x1, 3);
            const int32x4_t isum = vshrq_n_s32(vaddq_s32(s0, s1), 4);
            const float xd = ((const float *)a)[i];
            acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(isum), vmulq_n_f32(ws, xd));
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the reference */
QMM_NEON_INT8_FAMILY(neon_dotprod_q4_0, QMM_TYPE_Q4_0, q4_0, BLK, QMM_NEON_ROWS4, 4, QMM_CPU_NEON | QMM_CPU_DOTPROD,
                     QMM_CPU_DOTPROD, tile)
