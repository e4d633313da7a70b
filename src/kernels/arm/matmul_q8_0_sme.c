/* Q8_0 x int8 activations with SME. GEMM: SMOPA 4-way int8 outer products
 * into ZA (sve_sme_kernels.h), exact int32 block sums per output, then the
 * per-block float step per output in block order. GEMV: SDOT across weight
 * rows in streaming mode (one activation row would fill one ZA row only).
 * Built for armv8.6-a+sme, not armv9-a: every SVE instruction here runs in
 * streaming mode (the entry points are __arm_locally_streaming), so a CPU
 * with SME but without non-streaming SVE (Apple M4) runs it. */
#include <arm_sme.h>

#include "cpu/cpu.h"
#include "kernels/kernel.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_SS_Q4  0
#define QMM_SS_FN  __arm_streaming
#define QMM_SS_SME 1
#include "kernels/arm/sve_sme_kernels.h"

__arm_locally_streaming __arm_new("za") static void sme_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                             float *y, size_t ys) {
    ss_mopa_gemm(m, n, k, a, w, y, ys);
}

__arm_locally_streaming static void sme_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    ss_dot_gemm(1, n, k, a, w, y, 0);
}

const qmm_kernel qmm_kernel_sme_q8_0 = {
    .name = "sme_q8_0",
    .wtype = QMM_TYPE_Q8_0,
    .required = QMM_CPU_SME,
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
