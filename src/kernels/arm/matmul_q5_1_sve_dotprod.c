/* Q5_1 x int8 activations with SVE SDOT, vector-length agnostic: per 32-block
 * the fp16 d and m, the GGUF nibbles (Q4_0's form) and a bit-4 word, GGUF's
 * size; the min term from the activation block sums, in 16-row panels
 * (sve_sme_layout.h) and the SDOT GEMM of sve_sme_int8_body.h. Activations:
 * the reference layout. */
#include <arm_sve.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q5_1
#define QMM_SVESME_FN
#define QMM_SVESME_SME 0
#include "kernels/arm/sve_sme_int8_body.h"

/* fallback_hides: masked off for capped (hybrid) runs, whose fallback is then a NEON family */
QMM_SVESME_FAMILY(sve_dotprod_q5_1, QMM_TYPE_Q5_1, QMM_CPU_SVE, QMM_CPU_SVE)
