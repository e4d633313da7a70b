/* x86 kernel families in priority order: the first whose features the CPU
 * has wins (per weight type). */
#include "registry/registry.h"

#if defined(QMM_ARCH_X86) && !defined(QMM_PORTABLE_ONLY)
/* extern const qmm_family qmm_family_<name>; one per family */
extern const qmm_family qmm_family_amx_q4_k;
extern const qmm_family qmm_family_amx_q6_k;
extern const qmm_family qmm_family_amx_q5_0;
extern const qmm_family qmm_family_amx_q4_0;
extern const qmm_family qmm_family_amx_q8_0;
extern const qmm_family qmm_family_amx_q4_1;
extern const qmm_family qmm_family_amx_q5_k;
extern const qmm_family qmm_family_amx_q5_1;
extern const qmm_family qmm_family_amx_q2_k;
extern const qmm_family qmm_family_amx_q3_k;
extern const qmm_family qmm_family_amx_iq4_nl;
extern const qmm_family qmm_family_amx_iq4_xs;
extern const qmm_family qmm_family_amx_mxfp4;
extern const qmm_family qmm_family_avx512vnni_q4_0;
extern const qmm_family qmm_family_avx512vnni_q8_0;
extern const qmm_family qmm_family_avx512vnni_q4_k;
extern const qmm_family qmm_family_avx512vnni_q6_k;
extern const qmm_family qmm_family_avx512vnni_q5_0;
extern const qmm_family qmm_family_avx512vnni_q4_1;
extern const qmm_family qmm_family_avx512vnni_q5_k;
extern const qmm_family qmm_family_avx512vnni_q5_1;
extern const qmm_family qmm_family_avx512vnni_q2_k;
extern const qmm_family qmm_family_avx512vnni_q3_k;
extern const qmm_family qmm_family_avx512vnni_iq4_nl;
extern const qmm_family qmm_family_avx512vnni_mxfp4;
extern const qmm_family qmm_family_avx512vnni_iq4_xs;
extern const qmm_family qmm_family_avx512vnni_iq1_s;
extern const qmm_family qmm_family_avx512vnni_iq1_m;
extern const qmm_family qmm_family_avx512vnni_iq2_xxs;
extern const qmm_family qmm_family_avx512vnni_iq2_xs;
extern const qmm_family qmm_family_avx512vnni_iq2_s;
extern const qmm_family qmm_family_avx512vnni_iq3_xxs;
extern const qmm_family qmm_family_avx512vnni_iq3_s;
extern const qmm_family qmm_family_avx512vnni_tq1_0;
extern const qmm_family qmm_family_avx512vnni_tq2_0;
extern const qmm_family qmm_family_avx512_f32;
extern const qmm_family qmm_family_avx512_f16;
extern const qmm_family qmm_family_avx512_bf16;
extern const qmm_family qmm_family_avxvnni_q4_0;
extern const qmm_family qmm_family_avxvnni_q8_0;
extern const qmm_family qmm_family_avxvnni_q4_k;
extern const qmm_family qmm_family_avxvnni_q6_k;
extern const qmm_family qmm_family_avxvnni_q5_0;
extern const qmm_family qmm_family_avxvnni_q4_1;
extern const qmm_family qmm_family_avxvnni_q5_1;
extern const qmm_family qmm_family_avxvnni_q5_k;
extern const qmm_family qmm_family_avxvnni_q2_k;
extern const qmm_family qmm_family_avxvnni_q3_k;
extern const qmm_family qmm_family_avxvnni_iq4_nl;
extern const qmm_family qmm_family_avxvnni_mxfp4;
extern const qmm_family qmm_family_avxvnni_iq4_xs;
extern const qmm_family qmm_family_avx2_q4_0;
extern const qmm_family qmm_family_avx2_q8_0;
extern const qmm_family qmm_family_avx2_q4_k;
extern const qmm_family qmm_family_avx2_q6_k;
extern const qmm_family qmm_family_avx2_q5_0;
extern const qmm_family qmm_family_avx2_q4_1;
extern const qmm_family qmm_family_avx2_q5_1;
extern const qmm_family qmm_family_avx2_q5_k;
extern const qmm_family qmm_family_avx2_q2_k;
extern const qmm_family qmm_family_avx2_q3_k;
extern const qmm_family qmm_family_avx2_iq4_nl;
extern const qmm_family qmm_family_avx2_mxfp4;
extern const qmm_family qmm_family_avx2_iq4_xs;
extern const qmm_family qmm_family_avx2_f32;
extern const qmm_family qmm_family_avx2_f16;
extern const qmm_family qmm_family_avx2_bf16;
extern const qmm_family qmm_family_avx2_iq2_xxs;
extern const qmm_family qmm_family_avx2_iq1_s;
extern const qmm_family qmm_family_avx2_iq1_m;
extern const qmm_family qmm_family_avx2_iq2_xs;
extern const qmm_family qmm_family_avx2_iq2_s;
extern const qmm_family qmm_family_avx2_iq3_xxs;
extern const qmm_family qmm_family_avx2_iq3_s;
extern const qmm_family qmm_family_avx2_tq1_0;
extern const qmm_family qmm_family_avx2_tq2_0;
/* the F16 attention path's extras (kernels/fp_attention.h), one per family that has them */
extern const qmm_fp_attention qmm_fp_attention_avx512_f32;
extern const qmm_fp_attention qmm_fp_attention_avx512_f16;
extern const qmm_fp_attention qmm_fp_attention_avx512_bf16;
extern const qmm_fp_attention qmm_fp_attention_avx2_f32;
extern const qmm_fp_attention qmm_fp_attention_avx2_f16;
extern const qmm_fp_attention qmm_fp_attention_avx2_bf16;

/* one family per line */
/* clang-format off */
const qmm_family *const qmm_x86_kernels[] = {
    /* AMX GEMM on the AVX-512 VNNI panels: first where the CPU (and the OS) grant AMX */
    &qmm_family_amx_q4_k,
    &qmm_family_amx_q6_k,
    &qmm_family_amx_q5_0,
    &qmm_family_amx_q4_0,
    &qmm_family_amx_q8_0,
    &qmm_family_amx_q4_1,
    &qmm_family_amx_q5_k,
    &qmm_family_amx_q5_1,
    &qmm_family_amx_q2_k,
    &qmm_family_amx_q3_k,
    &qmm_family_amx_iq4_nl,
    &qmm_family_amx_iq4_xs,
    &qmm_family_amx_mxfp4,
    &qmm_family_avx512vnni_q4_0,
    &qmm_family_avx512vnni_q8_0,
    &qmm_family_avx512vnni_q4_k,
    &qmm_family_avx512vnni_q6_k,
    &qmm_family_avx512vnni_q5_0,
    &qmm_family_avx512vnni_q4_1,
    &qmm_family_avx512vnni_q5_k,
    &qmm_family_avx512vnni_q5_1,
    &qmm_family_avx512vnni_q2_k,
    &qmm_family_avx512vnni_q3_k,
    &qmm_family_avx512vnni_iq4_nl,
    &qmm_family_avx512vnni_mxfp4,
    &qmm_family_avx512vnni_iq4_xs,
    &qmm_family_avx512vnni_iq1_s,
    &qmm_family_avx512vnni_iq1_m,
    &qmm_family_avx512vnni_iq2_xxs,
    &qmm_family_avx512vnni_iq2_xs,
    &qmm_family_avx512vnni_iq2_s,
    &qmm_family_avx512vnni_iq3_xxs,
    &qmm_family_avx512vnni_iq3_s,
    &qmm_family_avx512vnni_tq1_0,
    &qmm_family_avx512vnni_tq2_0,
    &qmm_family_avx512_f32,
    &qmm_family_avx512_f16,
    &qmm_family_avx512_bf16,
    /* AVX-VNNI, then AVX2: after the AVX-512 rows */
    &qmm_family_avxvnni_q4_0,
    &qmm_family_avxvnni_q8_0,
    &qmm_family_avxvnni_q4_k,
    &qmm_family_avxvnni_q6_k,
    &qmm_family_avxvnni_q5_0,
    &qmm_family_avxvnni_q4_1,
    &qmm_family_avxvnni_q5_1,
    &qmm_family_avxvnni_q5_k,
    &qmm_family_avxvnni_q2_k,
    &qmm_family_avxvnni_q3_k,
    &qmm_family_avxvnni_iq4_nl,
    &qmm_family_avxvnni_mxfp4,
    &qmm_family_avxvnni_iq4_xs,
    &qmm_family_avx2_q4_0,
    &qmm_family_avx2_q8_0,
    &qmm_family_avx2_q4_k,
    &qmm_family_avx2_q6_k,
    &qmm_family_avx2_q5_0,
    &qmm_family_avx2_q4_1,
    &qmm_family_avx2_q5_1,
    &qmm_family_avx2_q5_k,
    &qmm_family_avx2_q2_k,
    &qmm_family_avx2_q3_k,
    &qmm_family_avx2_iq4_nl,
    &qmm_family_avx2_mxfp4,
    &qmm_family_avx2_iq4_xs,
    &qmm_family_avx2_f32,
    &qmm_family_avx2_f16,
    &qmm_family_avx2_bf16,
    &qmm_family_avx2_iq2_xxs,
    &qmm_family_avx2_iq1_s,
    &qmm_family_avx2_iq1_m,
    &qmm_family_avx2_iq2_xs,
    &qmm_family_avx2_iq2_s,
    &qmm_family_avx2_iq3_xxs,
    &qmm_family_avx2_iq3_s,
    &qmm_family_avx2_tq1_0,
    &qmm_family_avx2_tq2_0,
    NULL,
};
/* clang-format on */

const qmm_fp_attention *const qmm_x86_fp_attention[] = {
    &qmm_fp_attention_avx512_f32,
    &qmm_fp_attention_avx512_f16,
    &qmm_fp_attention_avx512_bf16,
    &qmm_fp_attention_avx2_f32,
    &qmm_fp_attention_avx2_f16,
    &qmm_fp_attention_avx2_bf16,
    NULL,
};
#else
const qmm_family *const qmm_x86_kernels[] = {NULL};
const qmm_fp_attention *const qmm_x86_fp_attention[] = {NULL};
#endif
