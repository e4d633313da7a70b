/* Q8_0 x int8 activations with SVE SDOT, vector-length agnostic (128 to
 * 2048 bits): lanes are weight rows of a 16-row panel (sve_sme_layout.h),
 * each activation's 4-byte group is broadcast, 4 activation rows share the
 * weight loads. Activations: the reference layout. */
#include <arm_sve.h>

#include "cpu/cpu.h"
#include "kernels/kernel.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_SS_Q4 0
#define QMM_SS_FN
#define QMM_SS_SME 0
#include "kernels/arm/sve_sme_kernels.h"

const qmm_kernel qmm_kernel_sve_dotprod_q8_0 = {
    .name = "sve_dotprod_q8_0",
    .wtype = QMM_TYPE_Q8_0,
    .required = QMM_CPU_SVE,
    .exclusive = QMM_CPU_SVE, /* fallback for capped (hybrid) runs: a NEON family */
    .flags = 0,
    .layout_id = 1,
    .mr = 4,
    .nr = QMM_SS_NP,
    .kr = 4,
    .sr = 1,
    .n_step = QMM_SS_NP,
    .w_packed_size = qmm_ss_w_size_q8,
    .w_packed_offset = qmm_ss_w_offset_q8,
    .w_pack = qmm_ss_w_pack_q8,
    .w_read_row = qmm_ss_w_read_row_q8,
    .act = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = ss_dot_gemm,
    .gemv = NULL,
};
