/* The store of 16 outputs held in two ymm (lanes 0-7, 8-15) of which the
 * first ncols are valid, shared by the AVX2 fp tiles (avx2_fp_body.h) and the
 * AVX2 direct decode product (avx2_f16_direct.h): masked, so nothing past the
 * last valid column is touched. */
#ifndef QMM_X86_AVX2_STORE16_H
#define QMM_X86_AVX2_STORE16_H

#include <immintrin.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void qmm_avx2_store16(float *y, __m256 v0, __m256 v1, int ncols) {
    static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    if (ncols == 16) {
        _mm256_storeu_ps(y, v0);
        _mm256_storeu_ps(y + 8, v1);
        return;
    }
    const int c0 = ncols < 8 ? ncols : 8, c1 = ncols - c0;
    _mm256_maskstore_ps(y, _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - c0)), v0);
    if (c1 > 0)
        _mm256_maskstore_ps(y + 8, _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - c1)), v1);
}

#endif
