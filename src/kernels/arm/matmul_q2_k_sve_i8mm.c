/* Q2_K x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * row-pair panels per 32-block with GGUF's scale bytes and the q's 2-bit
 * fields (GGUF's size), each q times its sub-scale before one SMMLA chain,
 * then the per-16 min term from the pair's sums of elements 0..15 and
 * 16..31; see sve_i8mm_body.h for the lane order. */
#include <arm_sve.h>

#include "kernels/arm/sve_i8mm_body.h"

static size_t sve_i8mm_q2_k_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_Q2_K, k, n); }
static size_t sve_i8mm_q2_k_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_Q2_K, n_idx, k); }
static void sve_i8mm_q2_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    svei8mm_w_pack(QMM_SVESME_KIND_Q2_K, k, n, n0, n1, src, stride, dst);
}
static void sve_i8mm_q2_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    svei8mm_w_unpack_row(QMM_SVESME_KIND_Q2_K, packed, k, row, dst);
}
static size_t sve_i8mm_q2_k_act_size(int64_t m, int64_t k) { return svei8mm_act_size(QMM_SVESME_KIND_Q2_K, m, k); }
static size_t sve_i8mm_q2_k_act_offset(int64_t m_idx, int64_t k) { return svei8mm_act_offset(QMM_SVESME_KIND_Q2_K, m_idx, k); }
static void sve_i8mm_q2_k_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    svei8mm_act_pack(QMM_SVESME_KIND_Q2_K, m, k, x, x_row_stride, dst);
}
static void sve_i8mm_q2_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    svei8mm_gemm(QMM_SVESME_KIND_Q2_K, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_sve_i8mm_q2_k = QMM_SVEI8MM_FAMILY(
    "sve_i8mm_q2_k", QMM_TYPE_Q2_K, sve_i8mm_q2_k_w_size, sve_i8mm_q2_k_w_offset, sve_i8mm_q2_k_w_pack,
    sve_i8mm_q2_k_w_unpack_row, sve_i8mm_q2_k_act_size, sve_i8mm_q2_k_act_offset, sve_i8mm_q2_k_act_pack, sve_i8mm_q2_k_gemm);
