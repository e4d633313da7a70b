/* The 16-bit transpose of the x86 F16 / BF16 weight packers (AVX-512 and
 * AVX2 panels alike: 16 rows, element l of row j at l * 16 + j). SSE2 only,
 * so every x86 fp translation unit can include it. */
#ifndef QMM_X86_FP_PACK16_H
#define QMM_X86_FP_PACK16_H

#include <immintrin.h>
#include <stdint.h>

/* 8 rows x 8 l of 16-bit values transposed: out + l * 16 gets the 8 rows at l
 * (the panel's stride; F16 / BF16 keep their bits, so this is exact). */
static inline __attribute__((always_inline)) void qmm_x86fp_transpose8_u16(const __m128i r[8], uint16_t *out) {
    const __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
    const __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
    const __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
    const __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
    const __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2); /* l 0,1 / 2,3 of rows 0-3 */
    const __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3); /* l 4,5 / 6,7 */
    const __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    const __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    const __m128i c[8] = {_mm_unpacklo_epi64(b0, b4), _mm_unpackhi_epi64(b0, b4), _mm_unpacklo_epi64(b1, b5),
                          _mm_unpackhi_epi64(b1, b5), _mm_unpacklo_epi64(b2, b6), _mm_unpackhi_epi64(b2, b6),
                          _mm_unpacklo_epi64(b3, b7), _mm_unpackhi_epi64(b3, b7)};
    for (int l = 0; l < 8; l++)
        _mm_storeu_si128((__m128i *)(void *)(out + l * 16), c[l]);
}

#endif
