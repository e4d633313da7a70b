/* The K-quants' expanded AVX2 tiles multiply int16 pair sums by per-row
 * scales inside vpmaddwd, which wants each 32-bit lane as two int16: one
 * helper builds those lanes from int32 vectors, for every format. */
#ifndef QMM_X86_AVX2_PAIR16_H
#define QMM_X86_AVX2_PAIR16_H

#include <immintrin.h>

/* Lane j: (lo_j, hi_j) as two int16 (each value must fit in int16). */
static inline __attribute__((always_inline)) __m256i qmm_avx2_pack16x2(__m256i lo, __m256i hi) {
    return _mm256_or_si256(_mm256_and_si256(lo, _mm256_set1_epi32(0xffff)), _mm256_slli_epi32(hi, 16));
}

/* Lane j: (v_j, v_j) as two int16: the multiplier of vpmaddwd that scales
 * both pair sums of the lane by v_j. */
static inline __attribute__((always_inline)) __m256i qmm_avx2_pair16(__m256i v) { return qmm_avx2_pack16x2(v, v); }

#endif
