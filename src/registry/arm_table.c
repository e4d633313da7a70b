/* Arm kernel families in priority order: the first whose features the CPU
 * has wins (per weight type). */
#include "registry/registry.h"

#if defined(QMM_ARCH_ARM) && !defined(QMM_PORTABLE_ONLY)
/* extern const qmm_family qmm_family_<name>; one per family */
/* SME / SVE families: declared here, above the NEON ones. */
#if defined(QMM_HAVE_SME_KERNELS)
extern const qmm_family qmm_family_sme2_q4_0;
extern const qmm_family qmm_family_sme2_q8_0;
extern const qmm_family qmm_family_sme2_iq4_nl;
extern const qmm_family qmm_family_sme2_mxfp4;
extern const qmm_family qmm_family_sme2_iq4_xs;
extern const qmm_family qmm_family_sme2_q4_k;
extern const qmm_family qmm_family_sme2_q5_k;
extern const qmm_family qmm_family_sme2_q6_k;
extern const qmm_family qmm_family_sme2_q4_1;
extern const qmm_family qmm_family_sme2_q5_0;
extern const qmm_family qmm_family_sme2_q5_1;
extern const qmm_family qmm_family_sme2_q3_k;
extern const qmm_family qmm_family_sme2_q2_k;
extern const qmm_family qmm_family_sme_q4_0;
extern const qmm_family qmm_family_sme_q8_0;
extern const qmm_family qmm_family_sme_iq4_nl;
extern const qmm_family qmm_family_sme_mxfp4;
extern const qmm_family qmm_family_sme_iq4_xs;
extern const qmm_family qmm_family_sme_q4_k;
extern const qmm_family qmm_family_sme_q5_k;
extern const qmm_family qmm_family_sme_q6_k;
extern const qmm_family qmm_family_sme_q4_1;
extern const qmm_family qmm_family_sme_q5_0;
extern const qmm_family qmm_family_sme_q5_1;
extern const qmm_family qmm_family_sme_q3_k;
extern const qmm_family qmm_family_sme_q2_k;
extern const qmm_family qmm_family_sme_f32;
extern const qmm_family qmm_family_sme_f16;
extern const qmm_family qmm_family_sme_bf16;
#endif
extern const qmm_family qmm_family_sve_i8mm_q4_0;
extern const qmm_family qmm_family_sve_i8mm_q8_0;
extern const qmm_family qmm_family_sve_i8mm_iq4_nl;
extern const qmm_family qmm_family_sve_i8mm_mxfp4;
extern const qmm_family qmm_family_sve_i8mm_iq4_xs;
extern const qmm_family qmm_family_sve_i8mm_q4_k;
extern const qmm_family qmm_family_sve_i8mm_q5_k;
extern const qmm_family qmm_family_sve_i8mm_q6_k;
extern const qmm_family qmm_family_sve_i8mm_q4_1;
extern const qmm_family qmm_family_sve_i8mm_q5_0;
extern const qmm_family qmm_family_sve_i8mm_q5_1;
extern const qmm_family qmm_family_sve_i8mm_q3_k;
extern const qmm_family qmm_family_sve_i8mm_q2_k;
extern const qmm_family qmm_family_sve_dotprod_q4_0;
extern const qmm_family qmm_family_sve_dotprod_q8_0;
extern const qmm_family qmm_family_sve_dotprod_iq4_nl;
extern const qmm_family qmm_family_sve_dotprod_mxfp4;
extern const qmm_family qmm_family_sve_dotprod_iq4_xs;
extern const qmm_family qmm_family_sve_dotprod_q4_k;
extern const qmm_family qmm_family_sve_dotprod_q5_k;
extern const qmm_family qmm_family_sve_dotprod_q6_k;
extern const qmm_family qmm_family_sve_dotprod_q4_1;
extern const qmm_family qmm_family_sve_dotprod_q5_0;
extern const qmm_family qmm_family_sve_dotprod_q5_1;
extern const qmm_family qmm_family_sve_dotprod_q3_k;
extern const qmm_family qmm_family_sve_dotprod_q2_k;

/* NEON */
extern const qmm_family qmm_family_neon_i8mm_q4_0;
extern const qmm_family qmm_family_neon_i8mm_q8_0;
extern const qmm_family qmm_family_neon_i8mm_q4_1;
extern const qmm_family qmm_family_neon_i8mm_q5_0;
extern const qmm_family qmm_family_neon_i8mm_q5_1;
extern const qmm_family qmm_family_neon_i8mm_q6_k;
extern const qmm_family qmm_family_neon_dotprod_q4_0;
extern const qmm_family qmm_family_neon_dotprod_q8_0;
extern const qmm_family qmm_family_neon_dotprod_q4_1;
extern const qmm_family qmm_family_neon_dotprod_q5_0;
extern const qmm_family qmm_family_neon_dotprod_q5_1;
extern const qmm_family qmm_family_neon_dotprod_q6_k;
extern const qmm_family qmm_family_neon_i8mm_q4_k;
extern const qmm_family qmm_family_neon_i8mm_q5_k;
extern const qmm_family qmm_family_neon_i8mm_q2_k;
extern const qmm_family qmm_family_neon_i8mm_q3_k;
extern const qmm_family qmm_family_neon_dotprod_q4_k;
extern const qmm_family qmm_family_neon_dotprod_q5_k;
extern const qmm_family qmm_family_neon_dotprod_q2_k;
extern const qmm_family qmm_family_neon_dotprod_q3_k;
extern const qmm_family qmm_family_neon_i8mm_iq4_nl;
extern const qmm_family qmm_family_neon_i8mm_mxfp4;
extern const qmm_family qmm_family_neon_i8mm_iq4_xs;
extern const qmm_family qmm_family_neon_dotprod_iq4_nl;
extern const qmm_family qmm_family_neon_dotprod_mxfp4;
extern const qmm_family qmm_family_neon_dotprod_iq4_xs;
extern const qmm_family qmm_family_neon_i8mm_iq1_s;
extern const qmm_family qmm_family_neon_i8mm_iq1_m;
extern const qmm_family qmm_family_neon_i8mm_iq2_xxs;
extern const qmm_family qmm_family_neon_i8mm_iq2_xs;
extern const qmm_family qmm_family_neon_i8mm_iq2_s;
extern const qmm_family qmm_family_neon_i8mm_iq3_xxs;
extern const qmm_family qmm_family_neon_i8mm_iq3_s;
extern const qmm_family qmm_family_neon_i8mm_tq1_0;
extern const qmm_family qmm_family_neon_i8mm_tq2_0;
extern const qmm_family qmm_family_neon_dotprod_iq1_s;
extern const qmm_family qmm_family_neon_dotprod_iq1_m;
extern const qmm_family qmm_family_neon_dotprod_iq2_xxs;
extern const qmm_family qmm_family_neon_dotprod_iq2_xs;
extern const qmm_family qmm_family_neon_dotprod_iq2_s;
extern const qmm_family qmm_family_neon_dotprod_iq3_xxs;
extern const qmm_family qmm_family_neon_dotprod_iq3_s;
extern const qmm_family qmm_family_neon_dotprod_tq1_0;
extern const qmm_family qmm_family_neon_dotprod_tq2_0;
extern const qmm_family qmm_family_neon_f32;
extern const qmm_family qmm_family_neon_f16;
extern const qmm_family qmm_family_neon_bf16;

const qmm_family *const qmm_arm_kernels[] = {
/* SME / SVE rows go here, above the NEON rows. */
#if defined(QMM_HAVE_SME_KERNELS)
    &qmm_family_sme2_q4_0,
    &qmm_family_sme2_q8_0,
    &qmm_family_sme2_iq4_nl,
    &qmm_family_sme2_mxfp4,
    &qmm_family_sme2_iq4_xs,
    &qmm_family_sme2_q4_k,
    &qmm_family_sme2_q5_k,
    &qmm_family_sme2_q6_k,
    &qmm_family_sme2_q4_1,
    &qmm_family_sme2_q5_0,
    &qmm_family_sme2_q5_1,
    &qmm_family_sme2_q3_k,
    &qmm_family_sme2_q2_k,
    &qmm_family_sme_q4_0,
    &qmm_family_sme_q8_0,
    &qmm_family_sme_iq4_nl,
    &qmm_family_sme_mxfp4,
    &qmm_family_sme_iq4_xs,
    &qmm_family_sme_q4_k,
    &qmm_family_sme_q5_k,
    &qmm_family_sme_q6_k,
    &qmm_family_sme_q4_1,
    &qmm_family_sme_q5_0,
    &qmm_family_sme_q5_1,
    &qmm_family_sme_q3_k,
    &qmm_family_sme_q2_k,
    &qmm_family_sme_f32,
    &qmm_family_sme_f16,
    &qmm_family_sme_bf16,
#endif
    &qmm_family_sve_i8mm_q4_0,
    &qmm_family_sve_i8mm_q8_0,
    &qmm_family_sve_i8mm_iq4_nl,
    &qmm_family_sve_i8mm_mxfp4,
    &qmm_family_sve_i8mm_iq4_xs,
    &qmm_family_sve_i8mm_q4_k,
    &qmm_family_sve_i8mm_q5_k,
    &qmm_family_sve_i8mm_q6_k,
    &qmm_family_sve_i8mm_q4_1,
    &qmm_family_sve_i8mm_q5_0,
    &qmm_family_sve_i8mm_q5_1,
    &qmm_family_sve_i8mm_q3_k,
    &qmm_family_sve_i8mm_q2_k,
    &qmm_family_sve_dotprod_q4_0,
    &qmm_family_sve_dotprod_q8_0,
    &qmm_family_sve_dotprod_iq4_nl,
    &qmm_family_sve_dotprod_mxfp4,
    &qmm_family_sve_dotprod_iq4_xs,
    &qmm_family_sve_dotprod_q4_k,
    &qmm_family_sve_dotprod_q5_k,
    &qmm_family_sve_dotprod_q6_k,
    &qmm_family_sve_dotprod_q4_1,
    &qmm_family_sve_dotprod_q5_0,
    &qmm_family_sve_dotprod_q5_1,
    &qmm_family_sve_dotprod_q3_k,
    &qmm_family_sve_dotprod_q2_k,

    /* NEON: i8mm before dotprod, then fp32 / fp16. */
    &qmm_family_neon_i8mm_q4_0,
    &qmm_family_neon_i8mm_q8_0,
    &qmm_family_neon_i8mm_q4_1,
    &qmm_family_neon_i8mm_q5_0,
    &qmm_family_neon_i8mm_q5_1,
    &qmm_family_neon_i8mm_q6_k,
    &qmm_family_neon_dotprod_q4_0,
    &qmm_family_neon_dotprod_q8_0,
    &qmm_family_neon_dotprod_q4_1,
    &qmm_family_neon_dotprod_q5_0,
    &qmm_family_neon_dotprod_q5_1,
    &qmm_family_neon_dotprod_q6_k,
    &qmm_family_neon_i8mm_q4_k,
    &qmm_family_neon_i8mm_q5_k,
    &qmm_family_neon_i8mm_q2_k,
    &qmm_family_neon_i8mm_q3_k,
    &qmm_family_neon_dotprod_q4_k,
    &qmm_family_neon_dotprod_q5_k,
    &qmm_family_neon_dotprod_q2_k,
    &qmm_family_neon_dotprod_q3_k,
    &qmm_family_neon_i8mm_iq4_nl,
    &qmm_family_neon_i8mm_mxfp4,
    &qmm_family_neon_i8mm_iq4_xs,
    &qmm_family_neon_dotprod_iq4_nl,
    &qmm_family_neon_dotprod_mxfp4,
    &qmm_family_neon_dotprod_iq4_xs,
    &qmm_family_neon_i8mm_iq1_s,
    &qmm_family_neon_i8mm_iq1_m,
    &qmm_family_neon_i8mm_iq2_xxs,
    &qmm_family_neon_i8mm_iq2_xs,
    &qmm_family_neon_i8mm_iq2_s,
    &qmm_family_neon_i8mm_iq3_xxs,
    &qmm_family_neon_i8mm_iq3_s,
    &qmm_family_neon_i8mm_tq1_0,
    &qmm_family_neon_i8mm_tq2_0,
    &qmm_family_neon_dotprod_iq1_s,
    &qmm_family_neon_dotprod_iq1_m,
    &qmm_family_neon_dotprod_iq2_xxs,
    &qmm_family_neon_dotprod_iq2_xs,
    &qmm_family_neon_dotprod_iq2_s,
    &qmm_family_neon_dotprod_iq3_xxs,
    &qmm_family_neon_dotprod_iq3_s,
    &qmm_family_neon_dotprod_tq1_0,
    &qmm_family_neon_dotprod_tq2_0,
    &qmm_family_neon_f32,
    &qmm_family_neon_f16,
    &qmm_family_neon_bf16,
    NULL,
};
#else
const qmm_family *const qmm_arm_kernels[] = {NULL};
#endif

/* No Arm family has the F16 attention path's extras (kernels/fp_attention.h). */
const qmm_fp_attention *const qmm_arm_fp_attention[] = {NULL};
