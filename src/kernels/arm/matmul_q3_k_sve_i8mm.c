/* Q3_K x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * row-pair panels per 32-block with the sub-scales' low nibbles, the q's
 * 2-bit fields and bit-2 word (GGUF's size), the signed q rebuilt per weight
 * vector, two SMMLA chains per block (elements 0..15, 16..31) each times its
 * sub-scale; see sve_i8mm_body.h for the lane order. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_Q3_K
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_q3_k = QMM_SVEI8MM_FAMILY("sve_i8mm_q3_k", QMM_TYPE_Q3_K);
