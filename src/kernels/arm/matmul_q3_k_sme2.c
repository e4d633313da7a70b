/* Q3_K x int8 activations with SME2: the SME family (matmul_q3_k_sme.c) with
 * its per-block float step on 4 ZA slices per MOVA and 4 vectors per SCVTF
 * (sve_sme_int8_body.h, sme2_fp_row4); same layouts, same numerics. */

#include "kernels/arm/sve_sme_int8_body.h"

static size_t sme2_q3_k_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_Q3_K, k, n); }
static size_t sme2_q3_k_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_Q3_K, n_idx, k); }
static void sme2_q3_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_svesme_w_pack(QMM_SVESME_KIND_Q3_K, k, n, n0, n1, src, stride, dst);
}
static void sme2_q3_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_svesme_w_unpack_row(QMM_SVESME_KIND_Q3_K, packed, k, n, row, dst);
}
__arm_locally_streaming __arm_new("za") static void sme2_q3_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                                   float *y, size_t ys) {
    sme_mopa_gemm(QMM_SVESME_KIND_Q3_K, m, n, k, a, w, y, ys);
}
__arm_locally_streaming static void sme2_q3_k_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    svesme_dot_gemm(QMM_SVESME_KIND_Q3_K, 1, n, k, a, w, y, 0);
}

const qmm_family qmm_family_sme2_q3_k = QMM_SME_MOPA_FAMILY(
    "sme2_q3_k", QMM_TYPE_Q3_K, QMM_CPU_SME | QMM_CPU_SME2, qmm_svesme_act_size, qmm_svesme_act_offset, qmm_svesme_act_pack,
    sme2_q3_k_w_size, sme2_q3_k_w_offset, sme2_q3_k_w_pack, sme2_q3_k_w_unpack_row, sme2_q3_k_gemm, sme2_q3_k_gemv);
