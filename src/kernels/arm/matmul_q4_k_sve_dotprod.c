/* Q4_K x int8 activations with SVE SDOT, vector-length agnostic: per 32-block
 * the sub-scales, mins and Q4_0-form nibbles in 16-row panels
 * (sve_sme_layout.h), each exact block sum times its sub-scale, then the min
 * term from the activation's block sum, in the SDOT GEMM of
 * sve_sme_int8_body.h. Activations: the reference layout. */

#include "kernels/arm/sve_sme_int8_body.h"

static size_t sve_dotprod_q4_k_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_Q4_K, k, n); }
static size_t sve_dotprod_q4_k_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_Q4_K, n_idx, k); }
static void sve_dotprod_q4_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_svesme_w_pack(QMM_SVESME_KIND_Q4_K, k, n, n0, n1, src, stride, dst);
}
static void sve_dotprod_q4_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_svesme_w_unpack_row(QMM_SVESME_KIND_Q4_K, packed, k, n, row, dst);
}
static void sve_dotprod_q4_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    svesme_dot_gemm(QMM_SVESME_KIND_Q4_K, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_sve_dotprod_q4_k =
    QMM_SVESME_DOT_FAMILY("sve_dotprod_q4_k", QMM_TYPE_Q4_K, sve_dotprod_q4_k_w_size, sve_dotprod_q4_k_w_offset,
                          sve_dotprod_q4_k_w_pack, sve_dotprod_q4_k_w_unpack_row, sve_dotprod_q4_k_gemm);
