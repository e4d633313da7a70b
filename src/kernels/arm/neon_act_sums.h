/* The NEON int8 activation layout with block sums, for the families whose weights have a min or a zero point
 * that needs sum q_x (neon_legacy_body.h: Q4_1, Q5_1). Groups of 4 rows as neon_common.h's layout (m_step = 4; a
 * short group is padded with zero rows), per 32-block (QMM_NEON_ACT_SUMS_BLK = 160 bytes):
 *   float d[4]                 the blocks' d, row r at 4 r (as neon_common.h)
 *   int16 sum16[8]             sum of q over elements 16 h .. 16 h + 15 of row r at 2 (2 r + h): exact, |.| <= 2032
 *   128 bytes of int8 quants   at 32, in the arrangement (ROWS4 or PAIRS) of neon_common.h
 * The sums are computed once per activation block here, not once per weight panel in the tile. Per-16 halves so
 * that a type with per-16 mins can use them too; pairwise adds give the per-32 sums. */
#ifndef QMM_NEON_ACT_SUMS_H
#define QMM_NEON_ACT_SUMS_H

#include "kernels/arm/neon_common.h"

#define QMM_NEON_ACT_SUMS_BLK 160 /* bytes per block of an activation group: 16 + 16 + 128 */
#define QMM_NEON_ACT_SUMS_Q   32  /* offset of the quants in a block */

static inline size_t qmm_neon_act_sums_size(int64_t m, int64_t k) {
    return (size_t)((m + QMM_NEON_MR - 1) / QMM_NEON_MR) * (size_t)(k / QMM_QK) * QMM_NEON_ACT_SUMS_BLK;
}

static inline size_t qmm_neon_act_sums_offset(int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_NEON_MR) * (size_t)(k / QMM_QK) * QMM_NEON_ACT_SUMS_BLK;
}

static inline void qmm_neon_act_sums_pack(int arrangement, int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    uint8_t *out = (uint8_t *)dst;
    for (int64_t i0 = 0; i0 < m; i0 += QMM_NEON_MR, out += (size_t)nb * QMM_NEON_ACT_SUMS_BLK) {
        for (int r = 0; r < QMM_NEON_MR; r++) {
            const int64_t i = i0 + r;
            const float *row = i < m ? (const float *)((const char *)x + (size_t)i * x_row_stride) : NULL;
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = out + (size_t)b * QMM_NEON_ACT_SUMS_BLK;
                int8_t q[QMM_QK];
                float d = 0.0f;
                if (row)
                    d = qmm_neon_quantize_block(row + b * QMM_QK, q);
                else
                    memset(q, 0, sizeof q);
                const int16_t sums[2] = {vaddlvq_s8(vld1q_s8(q)), vaddlvq_s8(vld1q_s8(q + 16))};
                memcpy(blk + 4 * r, &d, 4);
                memcpy(blk + 16 + 4 * r, sums, 4);
                for (int g = 0; g < 4; g++)
                    memcpy(blk + QMM_NEON_ACT_SUMS_Q + qmm_neon_act_pos(arrangement, r, 8 * g), q + 8 * g, 8);
            }
        }
    }
}

#endif
