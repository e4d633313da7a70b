/* Q8_0 x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * 2 activation rows x 2 weight rows x 8 k per 128-bit segment; see
 * sve_i8mm_body.h for the lane order and why the numerics are the
 * reference's. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_Q8_0
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_q8_0 = QMM_SVEI8MM_FAMILY("sve_i8mm_q8_0", QMM_TYPE_Q8_0);
