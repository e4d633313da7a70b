/* Q3_K x int8 activations with SME: the SMOPA GEMM and streaming SDOT GEMV of
 * sve_sme_int8_body.h on the Q3_K panels of sve_sme_layout.h (GGUF's size:
 * 2-bit fields and a bit-2 word per block, the 6-bit sub-scales as low
 * nibbles and high-bit words); the signed q rebuilt per weight vector, the
 * sums of elements 0..15 go to ZA0, of 16..31 to ZA1, each times its
 * sub-scale before the float step. Built for armv8.6-a+sme, so a CPU with
 * SME but without non-streaming SVE (Apple M4) runs it, as matmul_q4_0_sme.c. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q3_K
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme_q3_k, QMM_TYPE_Q3_K, QMM_CPU_SME, QMM_CPU_SME | QMM_CPU_SME2)
