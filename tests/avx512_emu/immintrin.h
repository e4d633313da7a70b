/* Test-only: AVX-512 intrinsics emulated by SIMDe on a host without AVX-512
 * (scripts/test-avx512-emu.sh). The real header first, then SIMDe's
 * implementations under the native names. Never part of the library. */
#include_next <immintrin.h>
#ifndef QMM_AVX512_EMU_IMMINTRIN_H
#define QMM_AVX512_EMU_IMMINTRIN_H
#ifndef SIMDE_ENABLE_NATIVE_ALIASES
#define SIMDE_ENABLE_NATIVE_ALIASES
#endif
#include <simde/x86/avx512.h>

/* SIMDe 0.8.2 writes zeros to the masked-off lanes of a masked store; the
 * hardware leaves that memory alone (and the oracle test checks it). */
#undef _mm512_mask_storeu_ps
static inline void qmm_emu_mask_storeu_ps(void *p, simde__mmask16 k, simde__m512 a) {
    float t[16];
    simde_mm512_storeu_ps(t, a);
    for (int i = 0; i < 16; i++)
        if ((k >> i) & 1)
            ((float *)p)[i] = t[i];
}
#define _mm512_mask_storeu_ps(p, k, a) qmm_emu_mask_storeu_ps(p, k, a)
#endif
