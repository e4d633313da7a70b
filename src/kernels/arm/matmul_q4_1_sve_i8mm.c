/* Q4_1 x int8 activations with SVE SMMLA (i8mm), vector-length agnostic: per
 * 32-block the fp16 d and m and the GGUF nibbles (Q4_0's form), GGUF's size;
 * the min term from the activation block sums, in row-pair panels; see
 * sve_i8mm_body.h for the lane order and why the numerics are the reference's. */
#include <arm_sve.h>

#define QMM_SVEI8MM_KIND QMM_SVESME_KIND_Q4_1
#include "kernels/arm/sve_i8mm_body.h"

const qmm_family qmm_family_sve_i8mm_q4_1 = QMM_SVEI8MM_FAMILY("sve_i8mm_q4_1", QMM_TYPE_Q4_1);
