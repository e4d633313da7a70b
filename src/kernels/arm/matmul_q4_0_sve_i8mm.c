/* Q4_0 x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * 2 activation rows x 2 weight rows x 8 k per 128-bit segment; see
 * sve_i8mm_kernels.h for the lane order and why the numerics are the
 * reference's. */
#include <arm_sve.h>

#include "cpu/cpu.h"
#include "kernels/kernel.h"

#define QMM_SI_Q4 1
#include "kernels/arm/sve_i8mm_kernels.h"

const qmm_kernel qmm_kernel_sve_i8mm_q4_0 = {
    .name = "sve_i8mm_q4_0",
    .wtype = QMM_TYPE_Q4_0,
    .required = QMM_CPU_SVE | QMM_CPU_SVE_I8MM,
    .exclusive = QMM_CPU_SVE_I8MM, /* fallback for capped (hybrid) runs: the SDOT family */
    .flags = 0,
    .layout_id = 1,
    .mr = 4,
    .nr = QMM_SI_NP,
    .kr = 8,
    .sr = 1,
    .n_step = QMM_SI_NP,
    .w_packed_size = si_w_size,
    .w_packed_offset = si_w_offset,
    .w_pack = si_w_pack,
    .w_read_row = si_w_read_row,
    .act = {2, si_act_size, si_act_offset, si_act_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = si_gemm,
    .gemv = NULL,
};
