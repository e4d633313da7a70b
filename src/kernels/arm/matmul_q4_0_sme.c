/* Q4_0 x int8 activations with SME. GEMM: SMOPA 4-way int8 outer products
 * into ZA (sve_sme_int8_body.h), exact int32 block sums per output, then the
 * per-block float step per output in block order. GEMV: SDOT across weight
 * rows in streaming mode (one activation row would fill one ZA row only).
 * Built for armv8.6-a+sme, not armv9-a: every SVE instruction here runs in
 * streaming mode (the entry points are __arm_locally_streaming), so a CPU
 * with SME but without non-streaming SVE (Apple M4) runs it. */

#include "kernels/arm/sve_sme_int8_body.h"

static size_t sme_q4_0_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_Q4_0, k, n); }
static size_t sme_q4_0_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_Q4_0, n_idx, k); }
static void sme_q4_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_svesme_w_pack(QMM_SVESME_KIND_Q4_0, k, n, n0, n1, src, stride, dst);
}
static void sme_q4_0_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_svesme_w_unpack_row(QMM_SVESME_KIND_Q4_0, packed, k, n, row, dst);
}
__arm_locally_streaming __arm_new("za") static void sme_q4_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                                  float *y, size_t ys) {
    sme_mopa_gemm(QMM_SVESME_KIND_Q4_0, m, n, k, a, w, y, ys);
}
__arm_locally_streaming static void sme_q4_0_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    svesme_dot_gemm(QMM_SVESME_KIND_Q4_0, 1, n, k, a, w, y, 0);
}

const qmm_family qmm_family_sme_q4_0 =
    QMM_SME_MOPA_FAMILY("sme_q4_0", QMM_TYPE_Q4_0, QMM_CPU_SME, qmm_svesme_act_size, qmm_svesme_act_offset, qmm_svesme_act_pack,
                        sme_q4_0_w_size, sme_q4_0_w_offset, sme_q4_0_w_pack, sme_q4_0_w_unpack_row, sme_q4_0_gemm, sme_q4_0_gemv);
