/* Q3_K x int8 activations with SVE SDOT, vector-length agnostic: per 32-block
 * the sub-scales' low nibbles, the q's 2-bit fields and bit-2 word in
 * 16-row panels (sve_sme_layout.h: GGUF's size), the signed q rebuilt per
 * weight vector, two SDOT chains per block (elements 0..15, 16..31) each
 * times its sub-scale, in the SDOT GEMM of sve_sme_int8_body.h.
 * Activations: the reference layout. */
#include <arm_sve.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q3_K
#define QMM_SVESME_FN
#define QMM_SVESME_SME 0
#include "kernels/arm/sve_sme_int8_body.h"

/* fallback_hides: masked off for capped (hybrid) runs, whose fallback is then a NEON family */
QMM_SVESME_FAMILY(sve_dotprod_q3_k, QMM_TYPE_Q3_K, QMM_CPU_SVE, QMM_CPU_SVE)
