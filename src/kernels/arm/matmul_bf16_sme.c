/* BF16 weights x fp32 activations with SME FMOPA (GEMM) and streaming FMLA
 * (GEMV): F32's arithmetic on weights widened exactly by a 16-bit shift (the
 * bf16 bits are the top half of the fp32 ones); why it is bit-exact:
 * sme_fp_body.h. Built for armv8.6-a+sme: all SVE work runs in streaming
 * mode. */
#include <arm_sme.h>

#include "kernels/arm/sme_fp_body.h"

static size_t sme_bf16_w_size(int64_t k, int64_t n) { return smefp_w_size(QMM_TYPE_BF16, k, n); }
static size_t sme_bf16_w_offset(int64_t n_idx, int64_t k) { return smefp_w_offset(QMM_TYPE_BF16, n_idx, k); }
static void sme_bf16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    smefp_w_pack(QMM_TYPE_BF16, k, n, n0, n1, src, stride, dst);
}
static void sme_bf16_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    smefp_w_unpack_row(QMM_TYPE_BF16, packed, k, row, dst);
}
/* The GEMM as a function of its own (optimised alone, then inlined into the
 * entry point); ZA is live only inside the GEMM, and both run streaming. */
static void sme_bf16_mopa_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) __arm_streaming
    __arm_inout("za") {
    smefp_mopa_gemm(QMM_TYPE_BF16, m, n, k, a, w, y, ys);
}
__arm_locally_streaming __arm_new("za") static void sme_bf16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                                  float *y, size_t ys) {
    sme_bf16_mopa_gemm(m, n, k, a, w, y, ys);
}
__arm_locally_streaming static void sme_bf16_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    smefp_gemv(QMM_TYPE_BF16, n, k, (const float *)a, w, y);
}

const qmm_family qmm_family_sme_bf16 = QMM_SMEFP_DESCRIPTOR("sme_bf16", QMM_TYPE_BF16, sme_bf16_w_size, sme_bf16_w_offset,
                                                            sme_bf16_w_pack, sme_bf16_w_unpack_row, sme_bf16_gemm, sme_bf16_gemv);
