/* Q2_K x int8 activations with SVE SDOT, vector-length agnostic: per 32-block
 * GGUF's scale bytes and the q's 2-bit fields in 16-row panels
 * (sve_sme_layout.h: GGUF's size), each q times its sub-scale before one SDOT
 * chain per block, then the per-16 min term from the activations' sums of
 * elements 0..15 (SADDV) and 16..31, in the SDOT GEMM of
 * sve_sme_int8_body.h. Activations: the reference layout. */
#include <arm_sve.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q2_K
#define QMM_SVESME_FN
#define QMM_SVESME_SME 0
#include "kernels/arm/sve_sme_int8_body.h"

/* fallback_hides: masked off for capped (hybrid) runs, whose fallback is then a NEON family */
QMM_SVESME_FAMILY(sve_dotprod_q2_k, QMM_TYPE_Q2_K, QMM_CPU_SVE, QMM_CPU_SVE)
