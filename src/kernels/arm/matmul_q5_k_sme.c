/* Q5_K x int8 activations with SME: the SMOPA GEMM and streaming SDOT GEMV of
 * sve_sme_int8_body.h on the Q5_K panels of sve_sme_layout.h (per 32-block the
 * sub-scales, mins, unsigned nibbles and bit-4 words; each ZA block sum times
 * its sub-scale, the min term by FMOPA of the activation sums). Built for
 * armv8.6-a+sme, so a CPU with SME but without non-streaming SVE (Apple M4)
 * runs it, as matmul_q4_0_sme.c. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q5_K
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme_q5_k, QMM_TYPE_Q5_K, QMM_CPU_SME, QMM_CPU_SME | QMM_CPU_SME2)
