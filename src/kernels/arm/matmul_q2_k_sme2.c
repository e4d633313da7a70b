/* Q2_K x int8 activations with SME2: the SME family (matmul_q2_k_sme.c) with
 * its per-block float step on 4 ZA slices per MOVA and 4 vectors per SCVTF
 * (sve_sme_int8_body.h, QMM_SVESME_SME2); same layouts, same numerics. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q2_K
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#define QMM_SVESME_SME2 1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme2_q2_k, QMM_TYPE_Q2_K, QMM_CPU_SME | QMM_CPU_SME2, QMM_CPU_SME | QMM_CPU_SME2)
