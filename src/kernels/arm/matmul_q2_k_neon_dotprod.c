/* Q2_K x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile, ROWS4
 * panels. Layout: neon_k_quant.h; tile and numerics: neon_k_quant_body.h. */
#include "kernels/arm/neon_driver.h"

static size_t neon_dotprod_q2_k_w_size(int64_t k, int64_t n) { return qmm_neon_int8_w_size(QMM_TYPE_Q2_K, k, n); }
static size_t neon_dotprod_q2_k_w_offset(int64_t n_idx, int64_t k) { return qmm_neon_int8_w_offset(QMM_TYPE_Q2_K, n_idx, k); }
static void neon_dotprod_q2_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_neon_int8_w_pack(QMM_TYPE_Q2_K, QMM_NEON_ROWS4, k, n, n0, n1, src, stride, dst);
}
static void neon_dotprod_q2_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_neon_int8_w_unpack_row(QMM_TYPE_Q2_K, QMM_NEON_ROWS4, packed, k, n, row, dst);
}
static size_t neon_dotprod_q2_k_act_size(int64_t m, int64_t k) { return qmm_neon_int8_act_size(QMM_TYPE_Q2_K, m, k); }
static size_t neon_dotprod_q2_k_act_offset(int64_t m_idx, int64_t k) { return qmm_neon_int8_act_offset(QMM_TYPE_Q2_K, m_idx, k); }
static void neon_dotprod_q2_k_act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_neon_int8_act_pack(QMM_TYPE_Q2_K, QMM_NEON_ROWS4, m, k, x, xs, dst);
}
static void neon_dotprod_q2_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_neon_int8_gemm(QMM_TYPE_Q2_K, QMM_NEON_ROWS4, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_neon_dotprod_q2_k =
    QMM_NEON_FAMILY("neon_dotprod_q2_k", QMM_TYPE_Q2_K, QMM_NEON_ROWS4, neon_dotprod_q2_k_w_size, neon_dotprod_q2_k_w_offset,
                    neon_dotprod_q2_k_w_pack, neon_dotprod_q2_k_w_unpack_row, neon_dotprod_q2_k_act_size,
                    neon_dotprod_q2_k_act_offset, neon_dotprod_q2_k_act_pack, neon_dotprod_q2_k_gemm);
