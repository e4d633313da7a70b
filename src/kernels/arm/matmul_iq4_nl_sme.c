/* IQ4_NL x int8 activations with SME: the SMOPA GEMM and streaming SDOT GEMV
 * of sve_sme_int8_body.h on Q4_0's panels with the GGUF nibbles kept
 * (sve_sme_layout.h), TBL (streaming SVE) turning them into the int8 levels.
 * Built for armv8.6-a+sme, so a CPU with SME but without non-streaming SVE
 * (Apple M4) runs it, as matmul_q4_0_sme.c. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_IQ4_NL
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme_iq4_nl, QMM_TYPE_IQ4_NL, QMM_CPU_SME, QMM_CPU_SME | QMM_CPU_SME2)
