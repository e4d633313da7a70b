/* MXFP4 x int8 activations with SVE SDOT, vector-length agnostic: Q4_0's
 * 16-row panels with the GGUF nibbles kept (sve_sme_layout.h), TBL turning
 * them into the int8 levels, then the SDOT GEMM of sve_sme_int8_body.h.
 * Activations: the reference layout. */
#include <arm_sve.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_MXFP4
#define QMM_SVESME_FN
#define QMM_SVESME_SME 0
#include "kernels/arm/sve_sme_int8_body.h"

/* fallback_hides: masked off for capped (hybrid) runs, whose fallback is then a NEON family */
QMM_SVESME_FAMILY(sve_dotprod_mxfp4, QMM_TYPE_MXFP4, QMM_CPU_SVE, QMM_CPU_SVE)
