/* Q5_0 (value d * (q - 16)) x int8 activations with smmla (i8mm): 4 weight rows x up to 4 activation rows per tile, PAIRS
 * arrangement, panels of neon_legacy_body.h. Tile and numerics: neon_legacy_body.h; GEMV runs the same tile. */
#include "kernels/arm/neon_driver.h"

static size_t neon_i8mm_q5_0_w_size(int64_t k, int64_t n) { return qmm_neon_int8_w_size(QMM_TYPE_Q5_0, k, n); }
static size_t neon_i8mm_q5_0_w_offset(int64_t n_idx, int64_t k) { return qmm_neon_int8_w_offset(QMM_TYPE_Q5_0, n_idx, k); }
static void neon_i8mm_q5_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_neon_int8_w_pack(QMM_TYPE_Q5_0, QMM_NEON_PAIRS, k, n, n0, n1, src, stride, dst);
}
static void neon_i8mm_q5_0_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_neon_int8_w_unpack_row(QMM_TYPE_Q5_0, QMM_NEON_PAIRS, packed, k, n, row, dst);
}
static size_t neon_i8mm_q5_0_act_size(int64_t m, int64_t k) { return qmm_neon_int8_act_size(QMM_TYPE_Q5_0, m, k); }
static size_t neon_i8mm_q5_0_act_offset(int64_t m_idx, int64_t k) { return qmm_neon_int8_act_offset(QMM_TYPE_Q5_0, m_idx, k); }
static void neon_i8mm_q5_0_act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_neon_int8_act_pack(QMM_TYPE_Q5_0, QMM_NEON_PAIRS, m, k, x, xs, dst);
}
static void neon_i8mm_q5_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_neon_int8_gemm(QMM_TYPE_Q5_0, QMM_NEON_PAIRS, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_neon_i8mm_q5_0 =
    QMM_NEON_FAMILY("neon_i8mm_q5_0", QMM_TYPE_Q5_0, QMM_NEON_PAIRS, neon_i8mm_q5_0_w_size, neon_i8mm_q5_0_w_offset,
                    neon_i8mm_q5_0_w_pack, neon_i8mm_q5_0_w_unpack_row, neon_i8mm_q5_0_act_size, neon_i8mm_q5_0_act_offset,
                    neon_i8mm_q5_0_act_pack, neon_i8mm_q5_0_gemm);
