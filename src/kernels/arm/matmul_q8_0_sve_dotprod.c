/* Q8_0 x int8 activations with SVE SDOT, vector-length agnostic (128 to
 * 2048 bits): lanes are weight rows of a 16-row panel (sve_sme_layout.h),
 * each activation's 4-byte group is broadcast, 4 activation rows share the
 * weight loads. Activations: the reference layout. */
#include <arm_sve.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q8_0
#define QMM_SVESME_FN
#define QMM_SVESME_SME 0
#include "kernels/arm/sve_sme_int8_body.h"

/* fallback_hides: masked off for capped (hybrid) runs, whose fallback is then a NEON family */
QMM_SVESME_FAMILY(sve_dotprod_q8_0, QMM_TYPE_Q8_0, QMM_CPU_SVE, QMM_CPU_SVE)
