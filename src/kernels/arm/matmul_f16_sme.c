/* F16 weights x fp32 activations with SME FMOPA (GEMM) and streaming FMLA
 * (GEMV); why it is bit-exact: sme_fp_kernels.h. Built for armv8.6-a+sme:
 * all SVE work runs in streaming mode. */
#include <arm_sme.h>

#include "cpu/cpu.h"
#include "kernels/kernel.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_SF_F16 1
#include "kernels/arm/sme_fp_kernels.h"

__arm_locally_streaming __arm_new("za") static void sme_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                             float *y, size_t ys) {
    sf_mopa_gemm(m, n, k, a, w, y, ys);
}

__arm_locally_streaming static void sme_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    sf_gemv(n, k, (const float *)a, w, y);
}

const qmm_kernel qmm_kernel_sme_f16 = {
    .name = "sme_f16",
    .wtype = QMM_TYPE_F16,
    .required = QMM_CPU_SME,
    .exclusive = QMM_CPU_SME | QMM_CPU_SME2,
    .flags = QMM_KF_CAPPED,
    .layout_id = 1,
    .mr = QMM_SF_MP,
    .nr = QMM_SF_NP,
    .kr = 1,
    .sr = 1,
    .n_step = QMM_SF_NP,
    .w_packed_size = sf_w_size,
    .w_packed_offset = sf_w_offset,
    .w_pack = sf_w_pack,
    .w_read_row = sf_w_read_row,
    .act = {QMM_SF_MP, sf_act_size, sf_act_offset, sf_act_pack},
    .act_gemv = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack},
    .gemm = sme_gemm,
    .gemv = sme_gemv,
};
