/* What the direct F16 products of x86 (`avx2_f16_direct.h`,
 * `avx512_f16_direct.h`) share: the 16-bit transpose of 16 rows x 8 l in two
 * ymm lanes, the source rows of a pass, and the prefetch of the rows ahead.
 * AVX2 intrinsics only: included by the AVX2 and the AVX-512 F16 translation
 * units, each compiled with its own flags. */
#ifndef QMM_X86_F16_DIRECT_COMMON_H
#define QMM_X86_F16_DIRECT_COMMON_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define QMM_F16DC_INLINE static inline __attribute__((always_inline))

/* In each 128-bit lane, 8 rows x 8 l of 16-bit values transposed: c[l] gets
 * rows 0-7 at l (low lane) and rows 8-15 at l (high lane), r[j] holding rows
 * j and j + 8. Exact: the bits move. */
QMM_F16DC_INLINE void qmm_f16dc_transpose8x2(const __m256i r[8], __m256i c[8]) {
    const __m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]), a1 = _mm256_unpackhi_epi16(r[0], r[1]);
    const __m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]), a3 = _mm256_unpackhi_epi16(r[2], r[3]);
    const __m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]), a5 = _mm256_unpackhi_epi16(r[4], r[5]);
    const __m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]), a7 = _mm256_unpackhi_epi16(r[6], r[7]);
    const __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2); /* l 0,1 / 2,3 of rows 0-3 */
    const __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3); /* l 4,5 / 6,7 */
    const __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
    const __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
    c[0] = _mm256_unpacklo_epi64(b0, b4), c[1] = _mm256_unpackhi_epi64(b0, b4);
    c[2] = _mm256_unpacklo_epi64(b1, b5), c[3] = _mm256_unpackhi_epi64(b1, b5);
    c[4] = _mm256_unpacklo_epi64(b2, b6), c[5] = _mm256_unpackhi_epi64(b2, b6);
    c[6] = _mm256_unpacklo_epi64(b3, b7), c[7] = _mm256_unpackhi_epi64(b3, b7);
}

/* The `count` source rows of a pass from row j0 (`rows` of them real): rows
 * past the last repeat it, so that no load needs a test (a NULL test and
 * branch per row and step took ports from the FMAs); their lanes are never
 * stored. */
QMM_F16DC_INLINE void qmm_f16dc_rows(const void *w, size_t ws, int64_t j0, int64_t rows, int count, const uint16_t **wr) {
    for (int j = 0; j < count; j++)
        wr[j] = (const uint16_t *)(const void *)((const char *)w + (size_t)(j0 + (j < rows ? j : rows - 1)) * ws);
}

/* The prefetch of the rows QMM_F16DC_PF_ROWS past a pass (of `rows`), their
 * first QMM_F16DC_PF_ROW_BYTES each, spread over the pass's k steps of 8 l: a
 * burst of a block's 32-64 prefetches at once waited on the L1's fill
 * buffers (29% of the samples with K in L3). Cursor: row `row` (`rows`
 * left), line `seg` of `segs`; `per` lines a step. 128 rows ahead measured
 * best (64 and 256 slower). */
#ifndef QMM_F16DC_PF_ROWS
#define QMM_F16DC_PF_ROWS 128
#endif
#ifndef QMM_F16DC_PF_ROW_BYTES
#define QMM_F16DC_PF_ROW_BYTES 256
#endif
typedef struct qmm_f16dc_pf {
    const char *row;
    size_t ws;
    int rows, segs, seg, per;
} qmm_f16dc_pf;

QMM_F16DC_INLINE qmm_f16dc_pf qmm_f16dc_pf_of(const void *w, size_t ws, int64_t n, int64_t k, int64_t j0, int64_t rows) {
    const size_t pf_row = (size_t)k * 2 < QMM_F16DC_PF_ROW_BYTES ? (size_t)k * 2 : QMM_F16DC_PF_ROW_BYTES;
    const int64_t at = j0 + QMM_F16DC_PF_ROWS, steps = k / 8 > 0 ? k / 8 : 1;
    /* a row pointer only to a row there is (w + at ws past the end may wrap) */
    qmm_f16dc_pf pf = {at < n ? (const char *)w + (size_t)at * ws : (const char *)w, ws, 0, (int)((pf_row + 63) / 64), 0, 0};
    pf.rows = (int)(at >= n ? 0 : n - at < rows ? n - at : rows);
    pf.per = (int)((pf.rows * pf.segs + steps - 1) / steps);
    return pf;
}

QMM_F16DC_INLINE void qmm_f16dc_pf_step(qmm_f16dc_pf *pf) {
    for (int t = 0; t < pf->per && pf->rows > 0; t++) {
        _mm_prefetch(pf->row + (size_t)pf->seg * 64, _MM_HINT_T0);
        if (++pf->seg == pf->segs) {
            pf->seg = 0;
            if (--pf->rows > 0) /* never past the last row */
                pf->row += pf->ws;
        }
    }
}

/* The rest of the prefetches, at the end of a pass. */
QMM_F16DC_INLINE void qmm_f16dc_pf_rest(qmm_f16dc_pf *pf) {
    pf->per = pf->rows * pf->segs;
    qmm_f16dc_pf_step(pf);
}

#endif
