/* BF16 weights x fp32 activations with SME FMOPA (GEMM) and streaming FMLA
 * (GEMV): F32's arithmetic on weights widened exactly by a 16-bit shift (the
 * bf16 bits are the top half of the fp32 ones); why it is bit-exact:
 * sme_fp_body.h. Built for armv8.6-a+sme: all SVE work runs in streaming
 * mode. */
#include <arm_sme.h>

#define QMM_SMEFP_ELT QMM_SMEFP_BF16
#include "kernels/arm/sme_fp_body.h"

QMM_SMEFP_FAMILY(sme_bf16, QMM_TYPE_BF16)
