/* The direct F16 product of the AVX2 F16 family (fp_attention.h: `direct`): y =
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

#include "kernels/x86/avx2_store16.h"
#include "kernels/x86/f16_direct_common.h"

/* Activation rows per pass: 2 x 4 accumulators (8 chains, enough for the FMA
 * latency), 2 weight vectors and a broadcast of the 16 registers. */
#define QMM_F16D2_MR 4

#define QMM_F16D2_INLINE QMM_F16DC_INLINE

/* 8 l (kt <= 8) of row wr from l0; a short step copies the kt values it
 * has (AVX2 has no 16-bit masked load), never reading past the row. */
QMM_F16D2_INLINE __m128i qmm_f16d2_load8(const uint16_t *wr, int kt, int64_t l0) {
    if (kt == 8)
        return _mm_loadu_si128((const __m128i *)(const void *)(wr + l0));
    uint16_t t[8] = {0};
    for (int l = 0; l < kt; l++)
        t[l] = wr[l0 + l];
    return _mm_loadu_si128((const __m128i *)(const void *)t);
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
    qmm_f16dc_transpose8x2(r, c);
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

/* W rows at least this many bytes apart are copied 32 l at a time into a
 * contiguous block before the steps read them (`gather`): V^T's rows (PV, kv
 * F16 values a row: 8 KiB at kv = 4096) all fall in one set of L1 (addresses
 * 4 KiB apart share it), and the 16 lines of a step, each read over 4 steps,
 * evicted one another. With the copy, PV decode (Zen 3, kv = 4096) ran
 * 1.5-1.8x faster with V^T in cache (best of four rounds, 1 and 2 threads,
 * head dim 64 and 128) and 1.2x from memory. QK^T's rows (the head dim's 128
 * or 256 bytes) are contiguous and read in place. */
#define QMM_F16D2_GATHER_WS 1024

/* MR rows of x times the 16 W rows wr (nr valid), whole k, into y; the
 * prefetches of pf on the way; gather: through the block copy (above). */
QMM_F16D2_INLINE void qmm_f16d2_block(int MR, int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y,
                                      size_t ys, qmm_f16dc_pf pf, int gather) {
    __m256 acc[2 * QMM_F16D2_MR];
    for (int i = 0; i < 2 * MR; i++)
        acc[i] = _mm256_setzero_ps();
    int64_t l0 = 0;
    if (gather) {
        uint16_t blk[16][32] __attribute__((aligned(64))); /* 16 rows x 32 l: 16 lines of distinct sets */
        const uint16_t *br[16];
        for (int j = 0; j < 16; j++)
            br[j] = blk[j];
        for (; l0 + 32 <= k; l0 += 32) {
            for (int j = 0; j < 16; j++) {
                const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(wr[j] + l0));
                const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(wr[j] + l0 + 16));
                _mm256_store_si256((__m256i *)(void *)blk[j], a);
                _mm256_store_si256((__m256i *)(void *)(blk[j] + 16), b);
            }
            const float *xl = (const float *)(const void *)((const char *)x + (size_t)l0 * 4);
            for (int q = 0; q < 4; q++) {
                qmm_f16dc_pf_step(&pf);
                qmm_f16d2_step(MR, 8, br, q * 8, xl, xs, acc);
            }
        }
    }
    for (; l0 + 8 <= k; l0 += 8) {
        qmm_f16dc_pf_step(&pf);
        qmm_f16d2_step(MR, 8, wr, l0, x, xs, acc);
    }
    qmm_f16dc_pf_rest(&pf);
    switch (k - l0) { /* constant kt: the tail's loops unroll as the main one's */
    case 0: break;
    case 1: qmm_f16d2_step(MR, 1, wr, l0, x, xs, acc); break;
    case 2: qmm_f16d2_step(MR, 2, wr, l0, x, xs, acc); break;
    case 3: qmm_f16d2_step(MR, 3, wr, l0, x, xs, acc); break;
    case 4: qmm_f16d2_step(MR, 4, wr, l0, x, xs, acc); break;
    case 5: qmm_f16d2_step(MR, 5, wr, l0, x, xs, acc); break;
    case 6: qmm_f16d2_step(MR, 6, wr, l0, x, xs, acc); break;
    case 7: qmm_f16d2_step(MR, 7, wr, l0, x, xs, acc); break;
    default: break;
    }
    for (int i = 0; i < MR; i++)
        qmm_avx2_store16((float *)(void *)((char *)y + (size_t)i * ys), acc[2 * i], acc[2 * i + 1], nr);
}

/* One function per row count and per way of reading W: qmm_f16d2_block<mr>
 * in place, qmm_f16d2_block<mr>g gathered (gather constant in each, so that
 * the in-place loop compiles as it did alone). */
typedef void (*qmm_f16d2_block_fn)(int64_t, const uint16_t *const *, int, const float *, size_t, float *, size_t, qmm_f16dc_pf);
static void qmm_f16d2_block1(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                             qmm_f16dc_pf pf) {
    qmm_f16d2_block(1, k, wr, nr, x, xs, y, ys, pf, 0);
}
static void qmm_f16d2_block1g(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d2_block(1, k, wr, nr, x, xs, y, ys, pf, 1);
}
static void qmm_f16d2_block2(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                             qmm_f16dc_pf pf) {
    qmm_f16d2_block(2, k, wr, nr, x, xs, y, ys, pf, 0);
}
static void qmm_f16d2_block2g(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d2_block(2, k, wr, nr, x, xs, y, ys, pf, 1);
}
static void qmm_f16d2_block3(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                             qmm_f16dc_pf pf) {
    qmm_f16d2_block(3, k, wr, nr, x, xs, y, ys, pf, 0);
}
static void qmm_f16d2_block3g(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d2_block(3, k, wr, nr, x, xs, y, ys, pf, 1);
}
static void qmm_f16d2_block4(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                             qmm_f16dc_pf pf) {
    qmm_f16d2_block(4, k, wr, nr, x, xs, y, ys, pf, 0);
}
static void qmm_f16d2_block4g(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d2_block(4, k, wr, nr, x, xs, y, ys, pf, 1);
}

/* The family's `direct` entry: y[i][j] = sum over ascending l of
 * w[j][l] x[i][l] (fmaf chain from 0) for i < m, j < n. */
static void qmm_f16d2_direct(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, size_t ws, float *y,
                             size_t ys) {
    static const qmm_f16d2_block_fn in_place[QMM_F16D2_MR + 1] = {NULL, qmm_f16d2_block1, qmm_f16d2_block2, qmm_f16d2_block3,
                                                                  qmm_f16d2_block4};
    static const qmm_f16d2_block_fn gathered[QMM_F16D2_MR + 1] = {NULL, qmm_f16d2_block1g, qmm_f16d2_block2g, qmm_f16d2_block3g,
                                                                  qmm_f16d2_block4g};
    const qmm_f16d2_block_fn *blocks = ws >= QMM_F16D2_GATHER_WS ? gathered : in_place;
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
        const int nr = (int)(n - j0 < 16 ? n - j0 : 16);
        qmm_f16dc_pf pf = qmm_f16dc_pf_of(w, ws, n, k, j0, nr);
        const uint16_t *wr[16];
        qmm_f16dc_rows(w, ws, j0, nr, 16, wr);
        for (int64_t i0 = 0; i0 < m; i0 += QMM_F16D2_MR) {
            const int mr = (int)(m - i0 < QMM_F16D2_MR ? m - i0 : QMM_F16D2_MR);
            blocks[mr](k, wr, nr, (const float *)(const void *)((const char *)x + (size_t)i0 * xs), xs,
                       (float *)(void *)((char *)y + (size_t)i0 * ys) + j0, ys, pf);
            pf.rows = 0; /* the first pass fetched them */
        }
    }
}

#endif
