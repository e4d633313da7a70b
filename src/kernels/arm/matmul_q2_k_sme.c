/* Q2_K x int8 activations with SME: the SMOPA GEMM and streaming SDOT GEMV of
 * sve_sme_int8_body.h on the Q2_K panels of sve_sme_layout.h (GGUF's size:
 * its scale bytes and 2-bit fields); each q times its sub-scale (<= 45, an
 * int8) before the SMOPA, so one chain sums the block; the per-16 min term
 * by two FMOPA into ZA1 from the activations' per-16 sums. Built for
 * armv8.6-a+sme, so a CPU with SME but without non-streaming SVE (Apple M4)
 * runs it, as matmul_q4_0_sme.c. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q2_K
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme_q2_k, QMM_TYPE_Q2_K, QMM_CPU_SME, QMM_CPU_SME | QMM_CPU_SME2)
