/* Q2_K x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * row-pair panels per 32-block with GGUF's scale bytes and the q's 2-bit
 * fields (GGUF's size), each q times its sub-scale before one SMMLA chain,
 * then the per-16 min term from the pair's sums of elements 0..15 and
 * 16..31; see sve_i8mm_body.h for the lane order. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_Q2_K
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_q2_k = QMM_SVEI8MM_FAMILY("sve_i8mm_q2_k", QMM_TYPE_Q2_K);
