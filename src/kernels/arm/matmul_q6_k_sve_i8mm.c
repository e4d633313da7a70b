/* Q6_K x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * row-pair panels per 32-block with the two int8 sub-scales, the low nibbles
 * (Q4_0's form) and the high 2 bits (GGUF's size), the signed q rebuilt per
 * weight vector, two SMMLA chains per block (elements 0..15, 16..31) each
 * times its sub-scale; see sve_i8mm_body.h for the lane order. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_Q6_K
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_q6_k = QMM_SVEI8MM_FAMILY("sve_i8mm_q6_k", QMM_TYPE_Q6_K);
