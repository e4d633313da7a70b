/* Q5_K x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * Q4_0's row-pair panels per 32-block with the sub-scales and mins before the
 * unsigned nibbles and a bit-4 word, each exact block sum times its sub-scale,
 * then the min term from the activation pair's block sums; see sve_i8mm_body.h
 * for the lane order and why the numerics are the reference's. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_Q5_K
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_q5_k = QMM_SVEI8MM_FAMILY("sve_i8mm_q5_k", QMM_TYPE_Q5_K);
