/* The 16-bit weight packers of the x86 fp families (AVX-512 and AVX2 panels
 * alike: 16 rows, element l of row j at l * 16 + j). SSE2 only, so every x86
 * fp translation unit can include it; the widening packer needs F16C (the
 * F16 units). */
#ifndef QMM_X86_FP_PACK16_H
#define QMM_X86_FP_PACK16_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* 8 rows x 8 l of 16-bit values transposed: c[l] gets the 8 rows at l (F16 /
 * BF16 keep their bits, so this is exact). */
static inline __attribute__((always_inline)) void qmm_x86fp_transpose8_u16(const __m128i r[8], __m128i c[8]) {
    const __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
    const __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
    const __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
    const __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
    const __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2); /* l 0,1 / 2,3 of rows 0-3 */
    const __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3); /* l 4,5 / 6,7 */
    const __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    const __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    c[0] = _mm_unpacklo_epi64(b0, b4);
    c[1] = _mm_unpackhi_epi64(b0, b4);
    c[2] = _mm_unpacklo_epi64(b1, b5);
    c[3] = _mm_unpackhi_epi64(b1, b5);
    c[4] = _mm_unpacklo_epi64(b2, b6);
    c[5] = _mm_unpackhi_epi64(b2, b6);
    c[6] = _mm_unpacklo_epi64(b3, b7);
    c[7] = _mm_unpackhi_epi64(b3, b7);
}

/* The 16 source rows of the panel starting at row p0 of n (rows `stride`
 * bytes apart): NULL for padding rows (zeros; no pointer past the source). */
static inline void qmm_x86fp_panel_rows(int64_t n, int64_t p0, const void *src, size_t stride, const uint16_t *row[16]) {
    for (int r = 0; r < 16; r++)
        row[r] = p0 + r < n ? (const uint16_t *)(const void *)((const char *)src + (size_t)(p0 + r) * stride) : NULL;
}

/* Elements [l, l + 8) of the 16 rows transposed: out + j * 16 gets the rows at
 * l + j, in row order, or with pairs as (j, j + 8) pairs of rows (AVX2 BF16's
 * layout 2: a 32-bit lane widens by a shift or a mask); only cnt <= 8 of them
 * are read (the rest are zeros), so a row's last l never reads past its end. */
static inline __attribute__((always_inline)) void qmm_x86fp_transpose16x8(const uint16_t *const row[16], int64_t l, int64_t cnt,
                                                                          int pairs, uint16_t *out) {
    static const uint16_t zeros[8] = {0};
    __m128i c[2][8]; /* rows 0-7 and 8-15 at each l */
    for (int h = 0; h < 2; h++) {
        __m128i r8[8];
        for (int i = 0; i < 8; i++) {
            const uint16_t *rp = row[h * 8 + i];
            if (rp && cnt == 8)
                r8[i] = _mm_loadu_si128((const __m128i *)(const void *)(rp + l));
            else {
                uint16_t part[8] = {0};
                for (int64_t j = 0; rp && j < cnt; j++)
                    memcpy(&part[j], rp + l + j, sizeof part[j]);
                r8[i] = _mm_loadu_si128((const __m128i *)(const void *)(rp ? part : zeros));
            }
        }
        qmm_x86fp_transpose8_u16(r8, c[h]);
    }
    for (int j = 0; j < 8; j++) {
        __m128i *o = (__m128i *)(void *)(out + j * 16);
        _mm_storeu_si128(o, pairs ? _mm_unpacklo_epi16(c[0][j], c[1][j]) : c[0][j]);
        _mm_storeu_si128(o + 1, pairs ? _mm_unpackhi_epi16(c[0][j], c[1][j]) : c[1][j]);
    }
}

/* F16 / BF16 rows [n0, n1) of n into 16-bit panels of panel_bytes (>= k * 32;
 * the panel's tail past k is zero): the 16-bit packer of the AVX-512 and AVX2
 * fp families. qmm_mul_mat_f16 packs every call, so this goes by register
 * transposes, not element by element. */
static inline void qmm_x86fp_pack16(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst,
                                    size_t panel_bytes, int pairs) {
    for (int64_t p0 = n0; p0 < n1; p0 += 16) {
        uint16_t *panel = (uint16_t *)(void *)((char *)dst + (size_t)(p0 / 16) * panel_bytes);
        const uint16_t *row[16];
        qmm_x86fp_panel_rows(n, p0, src, stride, row);
        int64_t l = 0;
        for (; l + 8 <= k; l += 8)
            qmm_x86fp_transpose16x8(row, l, 8, pairs, panel + l * 16);
        if (l < k) { /* the last l: through a block, the panel ends at k */
            uint16_t t[8 * 16];
            qmm_x86fp_transpose16x8(row, l, k - l, pairs, t);
            memcpy(panel + l * 16, t, (size_t)(k - l) * 32);
        }
        memset(panel + k * 16, 0, panel_bytes - (size_t)k * 32);
    }
}

#ifdef __F16C__
/* F16 rows [n0, n1) of n into the x86 F32 families' panels (16 rows, element l
 * of row j at l * 16 + j, k * 64 bytes a panel; AVX-512 and AVX2 alike), each
 * value widened exactly by vcvtph2ps (the F16 tiles' own conversion); padding
 * rows are zero. The F16 families' w_pack_wide (fp_attention.h): qmm_mul_mat_f16's
 * prefill widens its weights once. */
static inline void qmm_x86fp_pack16_wide(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                         void *dst) {
    for (int64_t p0 = n0; p0 < n1; p0 += 16) {
        float *panel = (float *)(void *)((char *)dst + (size_t)(p0 / 16) * (size_t)k * 64);
        const uint16_t *row[16];
        qmm_x86fp_panel_rows(n, p0, src, stride, row);
        for (int64_t l = 0; l < k; l += 8) {
            const int64_t cnt = k - l < 8 ? k - l : 8;
            uint16_t t[8 * 16]; /* 8 l x 16 rows, fp16 */
            qmm_x86fp_transpose16x8(row, l, cnt, 0, t);
            for (int64_t j = 0; j < cnt; j++) {
                float *out = panel + (size_t)(l + j) * 16;
                _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(t + j * 16))));
                _mm256_storeu_ps(out + 8, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(t + j * 16 + 8))));
            }
        }
    }
}
#endif

#endif
