/* Q2_K x int8 activations with SME: the SMOPA GEMM and streaming SDOT GEMV of
 * sve_sme_int8_body.h on the Q2_K panels of sve_sme_layout.h (GGUF's size:
 * its scale bytes and 2-bit fields); each q times its sub-scale (<= 45, an
 * int8) before the SMOPA, so one chain sums the block; the per-16 min term
 * by two FMOPA into ZA1 from the activations' per-16 sums. Built for
 * armv8.6-a+sme, so a CPU with SME but without non-streaming SVE (Apple M4)
 * runs it, as matmul_q4_0_sme.c. */

#include "kernels/arm/sve_sme_int8_body.h"

static size_t sme_q2_k_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_Q2_K, k, n); }
static size_t sme_q2_k_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_Q2_K, n_idx, k); }
static void sme_q2_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_svesme_w_pack(QMM_SVESME_KIND_Q2_K, k, n, n0, n1, src, stride, dst);
}
static void sme_q2_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_svesme_w_unpack_row(QMM_SVESME_KIND_Q2_K, packed, k, n, row, dst);
}
__arm_locally_streaming __arm_new("za") static void sme_q2_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                                  float *y, size_t ys) {
    sme_mopa_gemm(QMM_SVESME_KIND_Q2_K, m, n, k, a, w, y, ys);
}
__arm_locally_streaming static void sme_q2_k_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    svesme_dot_gemm(QMM_SVESME_KIND_Q2_K, 1, n, k, a, w, y, 0);
}

const qmm_family qmm_family_sme_q2_k = QMM_SME_MOPA_FAMILY(
    "sme_q2_k", QMM_TYPE_Q2_K, QMM_CPU_SME, qmm_svesme_act_size_sums2, qmm_svesme_act_offset_sums2, qmm_svesme_act_pack_sums2,
    sme_q2_k_w_size, sme_q2_k_w_offset, sme_q2_k_w_pack, sme_q2_k_w_unpack_row, sme_q2_k_gemm, sme_q2_k_gemv);
