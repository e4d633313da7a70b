/* F32 weights x fp32 activations with SME FMOPA (GEMM) and streaming FMLA
 * (GEMV); why it is bit-exact: sme_fp_body.h. Built for armv8.6-a+sme:
 * all SVE work runs in streaming mode. */
#include <arm_sme.h>

#include "kernels/arm/sme_fp_body.h"

static size_t sme_f32_w_size(int64_t k, int64_t n) { return smefp_w_size(QMM_TYPE_F32, k, n); }
static size_t sme_f32_w_offset(int64_t n_idx, int64_t k) { return smefp_w_offset(QMM_TYPE_F32, n_idx, k); }
static void sme_f32_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    smefp_w_pack(QMM_TYPE_F32, k, n, n0, n1, src, stride, dst);
}
static void sme_f32_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    smefp_w_unpack_row(QMM_TYPE_F32, packed, k, row, dst);
}
/* The GEMM as a function of its own (optimised alone, then inlined into the
 * entry point); ZA is live only inside the GEMM, and both run streaming. */
static void sme_f32_mopa_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) __arm_streaming
    __arm_inout("za") {
    smefp_mopa_gemm(QMM_TYPE_F32, m, n, k, a, w, y, ys);
}
__arm_locally_streaming __arm_new("za") static void sme_f32_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                                 float *y, size_t ys) {
    sme_f32_mopa_gemm(m, n, k, a, w, y, ys);
}
__arm_locally_streaming static void sme_f32_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    smefp_gemv(QMM_TYPE_F32, n, k, (const float *)a, w, y);
}

const qmm_family qmm_family_sme_f32 = QMM_SMEFP_DESCRIPTOR("sme_f32", QMM_TYPE_F32, sme_f32_w_size, sme_f32_w_offset,
                                                           sme_f32_w_pack, sme_f32_w_unpack_row, sme_f32_gemm, sme_f32_gemv);
