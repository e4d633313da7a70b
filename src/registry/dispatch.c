#include "registry/dispatch.h"

#include <stddef.h>
#include <string.h>

#include "cpu/cpu.h"
#if defined(QMM_ARCH_X86) && !defined(QMM_PORTABLE_ONLY)
#include "kernels/x86/avx2_fp_widen.h"
#include "kernels/x86/avx512_gemv_streams.h"
#endif

const qmm_type qmm_packable_types[QMM_N_WTYPES] = {
    QMM_TYPE_F32,     QMM_TYPE_F16,   QMM_TYPE_Q4_0,  QMM_TYPE_Q8_0,  QMM_TYPE_Q4_1,    QMM_TYPE_Q5_0,   QMM_TYPE_Q5_1,
    QMM_TYPE_Q2_K,    QMM_TYPE_Q3_K,  QMM_TYPE_Q4_K,  QMM_TYPE_Q5_K,  QMM_TYPE_Q6_K,    QMM_TYPE_IQ4_NL, QMM_TYPE_IQ4_XS,
    QMM_TYPE_MXFP4,   QMM_TYPE_BF16,  QMM_TYPE_IQ1_S, QMM_TYPE_IQ1_M, QMM_TYPE_IQ2_XXS, QMM_TYPE_IQ2_XS, QMM_TYPE_IQ2_S,
    QMM_TYPE_IQ3_XXS, QMM_TYPE_IQ3_S, QMM_TYPE_TQ1_0, QMM_TYPE_TQ2_0};

int qmm_wtype_index(qmm_type t) {
    for (int i = 0; i < QMM_N_WTYPES; i++)
        if (qmm_packable_types[i] == t)
            return i;
    return -1;
}

const qmm_chain *qmm_dispatch_chain(const qmm_dispatch *d, qmm_type t) {
    const int i = qmm_wtype_index(t);
    return i < 0 ? NULL : &d->chains[i];
}

int qmm_dispatch_cap(const qmm_dispatch *d, const qmm_family *kf) {
    if (!kf)
        return 0;
    if (kf->flags & QMM_FAMILY_CAPPED)
        return d->capped_threads;
    if (d->primary_cap > 0 && kf->fallback_hides)
        return d->primary_cap;
    return 0;
}

#if defined(QMM_ARCH_X86) && !defined(QMM_PORTABLE_ONLY)
/* The AVX2 F16 / BF16 GEMMs widen each weight panel once into an fp32 copy,
 * except on AMD and Hygon (Zen): there the conversions run on pipes the FMAs
 * do not use, and widening at each use ran faster (avx2_fp_widen.h). */
static int widen_once_pays(const qmm_cpu_info *ci) {
    return strcmp(ci->vendor, "AuthenticAMD") != 0 && strcmp(ci->vendor, "HygonGenuine") != 0;
}

/* The AVX-512 int8 GEMVs read one weight stream at a time on AMD (a Zen 4
 * guest: Q4_0 / Q8_0 decode 4-40% faster, the K-quants -5 to +20%), two on
 * the rest (the Sapphire Rapids class measured them 5-10% faster than one)
 * (avx512_gemv_streams.h, avx512_int8.h). */
static int gemv_streams(const qmm_cpu_info *ci) { return strcmp(ci->vendor, "AuthenticAMD") == 0 ? 1 : 2; }
#endif

void qmm_dispatch_tune_kernels(void) {
#if defined(QMM_ARCH_X86) && !defined(QMM_PORTABLE_ONLY)
    qmm_avx2fp_set_widen_copy(widen_once_pays(qmm_cpu_detect()));
    qmm_avx512_set_gemv_streams(gemv_streams(qmm_cpu_detect()));
#endif
}
