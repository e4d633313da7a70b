/* Q8_0 x int8 activations with SME2: the SME family (matmul_q8_0_sme.c) with
 * its per-block float step on 4 ZA slices per MOVA and 4 vectors per SCVTF
 * (sve_sme_kernels.h, QMM_SS_SME2); same layouts, same numerics. Only
 * selected on CPUs with SME2 (an SME-only CPU never runs it). */
#include <arm_sme.h>

#include "cpu/cpu.h"
#include "kernels/kernel.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_SS_Q4   0
#define QMM_SS_FN   __arm_streaming
#define QMM_SS_SME  1
#define QMM_SS_SME2 1
#include "kernels/arm/sve_sme_kernels.h"

__arm_locally_streaming __arm_new("za") static void sme_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                             float *y, size_t ys) {
    ss_mopa_gemm(m, n, k, a, w, y, ys);
}

__arm_locally_streaming static void sme_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    ss_dot_gemm(1, n, k, a, w, y, 0);
}

const qmm_kernel qmm_kernel_sme2_q8_0 = {
    .name = "sme2_q8_0",
    .wtype = QMM_TYPE_Q8_0,
    .required = QMM_CPU_SME | QMM_CPU_SME2,
    .exclusive = QMM_CPU_SME | QMM_CPU_SME2,
    .flags = QMM_KF_CAPPED,
    .layout_id = 1,
    .mr = QMM_SS_MP,
    .nr = QMM_SS_NP,
    .kr = 4,
    .sr = 1,
    .n_step = QMM_SS_NP,
    .w_packed_size = qmm_ss_w_size_q8,
    .w_packed_offset = qmm_ss_w_offset_q8,
    .w_pack = qmm_ss_w_pack_q8,
    .w_read_row = qmm_ss_w_read_row_q8,
    .act = {QMM_SS_MP, qmm_ss_act_size, qmm_ss_act_offset, qmm_ss_act_pack},
    .act_gemv = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack},
    .gemm = sme_gemm,
    .gemv = sme_gemv,
};
