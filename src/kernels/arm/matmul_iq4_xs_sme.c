/* IQ4_XS x int8 activations with SME: the SMOPA GEMM and streaming SDOT GEMV
 * of sve_sme_int8_body.h on the IQ4_XS panels of sve_sme_layout.h (per
 * 32-block the int8 sub-scales and the GGUF nibbles, TBL into IQ4_NL's
 * levels; each ZA block sum times its sub-scale before the float step).
 * Built for armv8.6-a+sme, so a CPU with SME but without non-streaming SVE
 * (Apple M4) runs it, as matmul_q4_0_sme.c. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_IQ4_XS
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme_iq4_xs, QMM_TYPE_IQ4_XS, QMM_CPU_SME, QMM_CPU_SME | QMM_CPU_SME2)
