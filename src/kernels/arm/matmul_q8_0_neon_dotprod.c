/* Q8_0 x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile.
 *
 * Panels hold 4 weight rows in the ROWS4 arrangement (neon_common.h): each 16-byte load is 4 elements of each of
 * the 4 rows, and sdot by lane against 4 elements of one activation row gives the 4 rows' partial sums. The 8
 * weight loads of a block serve every activation row of the tile. Per block and output, the exact int32 sum then
 * takes the one float step of the reference: acc = fma((float)isum, wscale * xscale, acc). */
#include "kernels/arm/neon_common.h"

#define BLK QMM_NEON_Q8_BLK

static size_t w_size(int64_t k, int64_t n) { return qmm_neon_w_size(BLK, k, n); }
static size_t w_offset(int64_t n_idx, int64_t k) { return qmm_neon_w_offset(BLK, n_idx, k); }
static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_neon_pack_q8_0(QMM_NEON_ROWS4, k, n, n0, n1, src, stride, dst);
}
static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    qmm_neon_read_q8_0(QMM_NEON_ROWS4, packed, k, row, dst);
}
static void act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_neon_act_pack(QMM_NEON_ROWS4, m, k, x, x_row_stride, dst);
}

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

static void gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const size_t panel_bytes = (size_t)nb * BLK, group_bytes = (size_t)nb * QMM_NEON_ACT_BLK;
    for (int64_t j0 = 0; j0 < n; j0 += QMM_NEON_NR) {
        const uint8_t *wp = (const uint8_t *)w + (size_t)(j0 / QMM_NEON_NR) * panel_bytes;
        const int64_t nc = n - j0 < QMM_NEON_NR ? n - j0 : QMM_NEON_NR;
        for (int64_t i0 = 0; i0 < m; i0 += QMM_NEON_MR) {
            const uint8_t *ap = (const uint8_t *)a + (size_t)(i0 / QMM_NEON_MR) * group_bytes;
            const int64_t mc = m - i0 < QMM_NEON_MR ? m - i0 : QMM_NEON_MR;
            float32x4_t out[QMM_NEON_MR];
            switch (mc) {
            case 1: tile(1, nb, ap, wp, out); break;
            case 2: tile(2, nb, ap, wp, out); break;
            case 3: tile(3, nb, ap, wp, out); break;
            default: tile(4, nb, ap, wp, out); break;
            }
            for (int64_t i = 0; i < mc; i++)
                qmm_neon_store_cols((float *)((char *)y + (size_t)(i0 + i) * ys) + j0, out[i], nc);
        }
    }
}

const qmm_kernel qmm_kernel_neon_dotprod_q8_0 = {
    .name = "neon_dotprod_q8_0",
    .wtype = QMM_TYPE_Q8_0,
    .required = QMM_CPU_NEON | QMM_CPU_DOTPROD,
    .exclusive = QMM_CPU_DOTPROD, /* fallback for QMM_CAP hybrid runs: the reference */
    .flags = 0,
    .layout_id = 1,
    .mr = QMM_NEON_MR,
    .nr = QMM_NEON_NR,
    .kr = 4,
    .sr = 1,
    .n_step = QMM_NEON_NR,
    .w_packed_size = w_size,
    .w_packed_offset = w_offset,
    .w_pack = w_pack,
    .w_read_row = w_read_row,
    .act = {QMM_NEON_MR, qmm_neon_act_size, qmm_neon_act_offset, act_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = gemm,
    .gemv = NULL,
};
