/* IQ4_XS x int8 activations with SVE SDOT, vector-length agnostic: per 32-block
 * the int8 sub-scales and the GGUF nibbles in 16-row panels (sve_sme_layout.h),
 * TBL turning the nibbles into IQ4_NL's levels, each exact block sum times its
 * sub-scale, then the SDOT GEMM of sve_sme_int8_body.h. Activations: the
 * reference layout. */
#include <arm_sve.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_IQ4_XS
#define QMM_SVESME_FN
#define QMM_SVESME_SME 0
#include "kernels/arm/sve_sme_int8_body.h"

/* fallback_hides: masked off for capped (hybrid) runs, whose fallback is then a NEON family */
QMM_SVESME_FAMILY(sve_dotprod_iq4_xs, QMM_TYPE_IQ4_XS, QMM_CPU_SVE, QMM_CPU_SVE)
