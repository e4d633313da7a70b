/* F16 weights x fp32 activations with SME FMOPA (GEMM) and streaming FMLA
 * (GEMV); why it is bit-exact: sme_fp_body.h. Built for armv8.6-a+sme:
 * all SVE work runs in streaming mode. */
#include <arm_sme.h>

#define QMM_SMEFP_ELT QMM_SMEFP_F16
#include "kernels/arm/sme_fp_body.h"

QMM_SMEFP_FAMILY(sme_f16, QMM_TYPE_F16)
