/* MXFP4 x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * Q4_0's row-pair panels with the GGUF nibbles kept, TBL turning them into
 * the int8 levels; see sve_i8mm_body.h for the lane order and why the
 * numerics are the reference's. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_MXFP4
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_mxfp4 = QMM_SVEI8MM_FAMILY("sve_i8mm_mxfp4", QMM_TYPE_MXFP4);
