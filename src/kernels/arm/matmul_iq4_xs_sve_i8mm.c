/* IQ4_XS x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * Q4_0's row-pair panels per 32-block with the int8 sub-scales before the
 * GGUF nibbles, TBL turning them into IQ4_NL's levels, each exact block sum
 * times its sub-scale; see sve_i8mm_body.h for the lane order and why the
 * numerics are the reference's. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_IQ4_XS
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_iq4_xs = QMM_SVEI8MM_FAMILY("sve_i8mm_iq4_xs", QMM_TYPE_IQ4_XS);
