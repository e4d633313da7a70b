/* The direct F16 product of the AVX2 F16 family (family.h: `direct`): y =
 * x W^T reading the F16 rows of W where they are (qmm_mul_mat_f16's K or
 * V^T, rows ws bytes apart), without the packed copy, for the few activation
 * rows of decode. Per block of 16 W rows and 8 l, rows j and j + 8 are loaded
 * into the two 128-bit lanes of one ymm and transposed in registers (16-bit
 * unpacks: exact, the bits move); vector l then holds the 16 rows at l, whose
 * halves vcvtph2ps widens (exact) into a small buffer in L1: AVX2's 16
 * registers cannot hold the 8 transposed vectors and the accumulators too.
 * Each ymm lane of an accumulator is one output, its chain over ascending l
 * from 0: the reference's order. Included by the AVX2 F16 translation unit
 * only. */
#ifndef QMM_X86_AVX2_F16_DIRECT_H
#define QMM_X86_AVX2_F16_DIRECT_H

#include <immintrin.h>
#include <stdint.h>

/* Rows of the block QMM_F16D2_PF_ROWS ahead are prefetched, their first
 * QMM_F16D2_PF_ROW_BYTES, spread over the block's steps (as the AVX-512
 * kernel: a burst at once waits on the L1's fill buffers). */
#ifndef QMM_F16D2_PF_ROWS
#define QMM_F16D2_PF_ROWS 128
#endif
#ifndef QMM_F16D2_PF_ROW_BYTES
#define QMM_F16D2_PF_ROW_BYTES 256
#endif
/* Activation rows per pass: 2 x 4 accumulators (8 chains, enough for the FMA
 * latency), 2 weight vectors and a broadcast of the 16 registers. */
#define QMM_F16D2_MR 4

#define QMM_F16D2_INLINE static inline __attribute__((always_inline))

/* In each 128-bit lane, 8 rows x 8 l of 16-bit values transposed: c[l] gets
 * rows 0-7 at l (low lane) and rows 8-15 at l (high lane), r[j] holding rows
 * j and j + 8. */
QMM_F16D2_INLINE void qmm_f16d2_transpose8x2(const __m256i r[8], __m256i c[8]) {
    const __m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]), a1 = _mm256_unpackhi_epi16(r[0], r[1]);
    const __m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]), a3 = _mm256_unpackhi_epi16(r[2], r[3]);
    const __m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]), a5 = _mm256_unpackhi_epi16(r[4], r[5]);
    const __m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]), a7 = _mm256_unpackhi_epi16(r[6], r[7]);
    const __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
    const __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
    const __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
    const __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
    c[0] = _mm256_unpacklo_epi64(b0, b4), c[1] = _mm256_unpackhi_epi64(b0, b4);
    c[2] = _mm256_unpacklo_epi64(b1, b5), c[3] = _mm256_unpackhi_epi64(b1, b5);
    c[4] = _mm256_unpacklo_epi64(b2, b6), c[5] = _mm256_unpackhi_epi64(b2, b6);
    c[6] = _mm256_unpacklo_epi64(b3, b7), c[7] = _mm256_unpackhi_epi64(b3, b7);
}

/* 8 l (kt <= 8) of row wr from l0: NULL, a padding row, reads as zeros; a
 * short step copies the kt values it has (AVX2 has no 16-bit masked load),
 * never reading past the row. */
QMM_F16D2_INLINE __m128i qmm_f16d2_load8(const uint16_t *wr, int kt, int64_t l0) {
    if (!wr)
        return _mm_setzero_si128();
    if (kt == 8)
        return _mm_loadu_si128((const __m128i *)(const void *)(wr + l0));
    uint16_t t[8] = {0};
    for (int l = 0; l < kt; l++)
        t[l] = wr[l0 + l];
    return _mm_loadu_si128((const __m128i *)(const void *)t);
}

/* Lines of the rows ahead to prefetch: row `row` of `rows` left, line `seg`
 * of `segs`, `per` lines a step. */
typedef struct qmm_f16d2_pf {
    const char *row;
    size_t ws;
    int rows, segs, seg, per;
} qmm_f16d2_pf;

QMM_F16D2_INLINE void qmm_f16d2_pf_step(qmm_f16d2_pf *pf) {
    for (int t = 0; t < pf->per && pf->rows > 0; t++) {
        _mm_prefetch(pf->row + (size_t)pf->seg * 64, _MM_HINT_T0);
        if (++pf->seg == pf->segs) {
            pf->seg = 0;
            pf->row += pf->ws;
            pf->rows--;
        }
    }
}

/* MR activation rows (x, rows xs bytes apart) x the 16 rows wr over l in
 * [l0, l0 + kt), kt <= 8: acc[2 i] rows 0-7 of output row i, acc[2 i + 1]
 * rows 8-15. */
QMM_F16D2_INLINE void qmm_f16d2_step(int MR, int kt, const uint16_t *const *wr, int64_t l0, const float *x, size_t xs,
                                     __m256 acc[2 * QMM_F16D2_MR]) {
    __m256i r[8], c[8];
    for (int j = 0; j < 8; j++)
        r[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(qmm_f16d2_load8(wr[j], kt, l0)), qmm_f16d2_load8(wr[j + 8], kt, l0),
                                       1);
    qmm_f16d2_transpose8x2(r, c);
    float buf[8][16] __attribute__((aligned(32)));
    for (int l = 0; l < kt; l++) {
        _mm256_store_ps(buf[l], _mm256_cvtph_ps(_mm256_castsi256_si128(c[l])));
        _mm256_store_ps(buf[l] + 8, _mm256_cvtph_ps(_mm256_extracti128_si256(c[l], 1)));
    }
#pragma GCC unroll 8
    for (int l = 0; l < kt; l++) {
        const __m256 w0 = _mm256_load_ps(buf[l]), w1 = _mm256_load_ps(buf[l] + 8);
        for (int i = 0; i < MR; i++) {
            const __m256 xb =
                _mm256_broadcast_ss((const float *)(const void *)((const char *)x + (size_t)i * xs + (size_t)(l0 + l) * 4));
            acc[2 * i] = _mm256_fmadd_ps(w0, xb, acc[2 * i]);
            acc[2 * i + 1] = _mm256_fmadd_ps(w1, xb, acc[2 * i + 1]);
        }
    }
}

/* y row i, columns [0, nr) (nr <= 16) from its two accumulators. */
QMM_F16D2_INLINE void qmm_f16d2_store(float *y, int nr, __m256 lo, __m256 hi) {
    if (nr == 16) {
        _mm256_storeu_ps(y, lo);
        _mm256_storeu_ps(y + 8, hi);
        return;
    }
    float t[16] __attribute__((aligned(32)));
    _mm256_store_ps(t, lo);
    _mm256_store_ps(t + 8, hi);
    for (int j = 0; j < nr; j++)
        y[j] = t[j];
}

/* MR rows of x times the 16 W rows wr (nr valid), whole k, into y; the
 * prefetches of pf on the way. */
QMM_F16D2_INLINE void qmm_f16d2_block(int MR, int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y,
                                      size_t ys, qmm_f16d2_pf pf) {
    __m256 acc[2 * QMM_F16D2_MR];
    for (int i = 0; i < 2 * MR; i++)
        acc[i] = _mm256_setzero_ps();
    int64_t l0 = 0;
    for (; l0 + 8 <= k; l0 += 8) {
        qmm_f16d2_pf_step(&pf);
        qmm_f16d2_step(MR, 8, wr, l0, x, xs, acc);
    }
    pf.per = pf.rows * pf.segs; /* what is left */
    qmm_f16d2_pf_step(&pf);
    switch (k - l0) { /* constant kt: the tail's loops unroll as the main one's */
    case 0: break;
#define QMM_F16D2_TAIL(t)                                                                                                        \
    case t: qmm_f16d2_step(MR, t, wr, l0, x, xs, acc); break;
        QMM_F16D2_TAIL(1)
        QMM_F16D2_TAIL(2)
        QMM_F16D2_TAIL(3)
        QMM_F16D2_TAIL(4)
        QMM_F16D2_TAIL(5)
        QMM_F16D2_TAIL(6)
        QMM_F16D2_TAIL(7)
#undef QMM_F16D2_TAIL
    default: break;
    }
    for (int i = 0; i < MR; i++)
        qmm_f16d2_store((float *)(void *)((char *)y + (size_t)i * ys), nr, acc[2 * i], acc[2 * i + 1]);
}

typedef void (*qmm_f16d2_block_fn)(int64_t, const uint16_t *const *, int, const float *, size_t, float *, size_t, qmm_f16d2_pf);
#define QMM_F16D2_BLOCK(mr)                                                                                                      \
    static void qmm_f16d2_block##mr(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y,           \
                                    size_t ys, qmm_f16d2_pf pf) {                                                                \
        qmm_f16d2_block(mr, k, wr, nr, x, xs, y, ys, pf);                                                                        \
    }
QMM_F16D2_BLOCK(1)
QMM_F16D2_BLOCK(2)
QMM_F16D2_BLOCK(3)
QMM_F16D2_BLOCK(4)
#undef QMM_F16D2_BLOCK

/* The family's `direct` entry: y[i][j] = sum over ascending l of
 * w[j][l] x[i][l] (fmaf chain from 0) for i < m, j < n. */
static void qmm_f16d2_direct(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, size_t ws, float *y,
                             size_t ys) {
    static const qmm_f16d2_block_fn blocks[QMM_F16D2_MR + 1] = {NULL, qmm_f16d2_block1, qmm_f16d2_block2, qmm_f16d2_block3,
                                                                qmm_f16d2_block4};
    const size_t pf_row = (size_t)k * 2 < QMM_F16D2_PF_ROW_BYTES ? (size_t)k * 2 : QMM_F16D2_PF_ROW_BYTES;
    const int segs = (int)((pf_row + 63) / 64);
    const int64_t steps = k / 8 > 0 ? k / 8 : 1;
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
        const int nr = (int)(n - j0 < 16 ? n - j0 : 16);
        const int64_t ahead = j0 + QMM_F16D2_PF_ROWS;
        qmm_f16d2_pf pf = {(const char *)w + (size_t)ahead * ws, ws, 0, segs, 0, 0};
        pf.rows = (int)(ahead >= n ? 0 : n - ahead < 16 ? n - ahead : 16);
        pf.per = (int)((pf.rows * segs + steps - 1) / steps);
        const uint16_t *wr[16];
        for (int j = 0; j < 16; j++)
            wr[j] = j < nr ? (const uint16_t *)(const void *)((const char *)w + (size_t)(j0 + j) * ws) : NULL;
        for (int64_t i0 = 0; i0 < m; i0 += QMM_F16D2_MR) {
            const int mr = (int)(m - i0 < QMM_F16D2_MR ? m - i0 : QMM_F16D2_MR);
            blocks[mr](k, wr, nr, (const float *)(const void *)((const char *)x + (size_t)i0 * xs), xs,
                       (float *)(void *)((char *)y + (size_t)i0 * ys) + j0, ys, pf);
            pf.rows = 0; /* the first pass fetched them */
        }
    }
}

#endif
