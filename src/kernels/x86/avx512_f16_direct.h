/* The direct F16 product of the AVX-512 F16 family (fp_attention.h: `direct`):
 * y = x W^T reading the F16 rows of W where they are (qmm_mul_mat_f16's K or
 * V^T, rows ws bytes apart), without the packed copy, for the few activation
 * rows of decode. Per block of 16 W rows and 8 l, rows j and j + 8 are loaded
 * into the two 128-bit lanes of one ymm and transposed in registers (16-bit
 * unpacks: exact, the bits move), so that vector l holds the 16 rows at l,
 * widened by vcvtph2ps and fed to one FMA per activation row: each zmm lane
 * is one output and its chain runs over ascending l from 0, the reference's
 * order. Two blocks go at once (32 rows) for short rows (K) and groups of
 * at most 4 rows: with the 4 query rows of a GQA group, one block gave only
 * 4 dependent FMA chains, too few for the FMA latency (15 GB/s a thread with
 * K in L2). W's bytes stream
 * once from memory, in the order they lie. Included by the AVX-512 F16
 * translation unit only. */
#ifndef QMM_X86_AVX512_F16_DIRECT_H
#define QMM_X86_AVX512_F16_DIRECT_H

#include <immintrin.h>
#include <stdint.h>

#include "kernels/x86/f16_direct_common.h"

/* Activation rows per pass: with two blocks, 2 x 4 accumulators + 16
 * transposed vectors; with one, 8 + 8. */
#define QMM_F16D_MR1 8
#define QMM_F16D_MR2 4

/* Two blocks at once only for short rows (K's head dim): long ones (V^T,
 * kv long) stream 32 rows at once from memory, too many streams for the
 * hardware prefetchers (PV at kv = 4096 ran 7% slower than by 16 rows). */
#ifndef QMM_F16D_PAIR_MAX_K
#define QMM_F16D_PAIR_MAX_K 256
#endif

#define QMM_F16D_INLINE QMM_F16DC_INLINE

/* 8 l (kt <= 8) of row wr from l0; a short step loads fault-suppressed,
 * never past the row. */
QMM_F16D_INLINE __m128i qmm_f16d_load8(const uint16_t *wr, int kt, int64_t l0) {
    if (kt == 8)
        return _mm_loadu_si128((const __m128i *)(const void *)(wr + l0));
    /* the 256-bit form: the 128-bit one is not in SIMDe (the AVX-512 emulation) */
    return _mm256_castsi256_si128(_mm256_maskz_loadu_epi16((__mmask16)((1u << kt) - 1u), wr + l0));
}

/* MR activation rows (x, rows xs bytes apart, at column l0 of W) x NB blocks
 * of 16 rows (wr[16 b + j]) over l in [l0, l0 + kt), kt <= 8, accumulated
 * into acc[b MR + i] (one flat array: GCC keeps it in registers, a [2][8]
 * one it kept on the stack). */
QMM_F16D_INLINE void qmm_f16d_step(int MR, int NB, int kt, const uint16_t *const *wr, int64_t l0, const float *x, size_t xs,
                                   __m512 acc[QMM_F16D_MR1]) {
    __m256i c[2][8];
    for (int b = 0; b < NB; b++) {
        __m256i r[8];
        for (int j = 0; j < 8; j++)
            r[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(qmm_f16d_load8(wr[16 * b + j], kt, l0)),
                                           qmm_f16d_load8(wr[16 * b + j + 8], kt, l0), 1);
        qmm_f16dc_transpose8x2(r, c[b]);
    }
#pragma GCC unroll 8
    for (int l = 0; l < kt; l++) {
        const __m512 w0 = _mm512_cvtph_ps(c[0][l]);
        const __m512 w1 = NB == 2 ? _mm512_cvtph_ps(c[1][l]) : w0;
        for (int i = 0; i < MR; i++) {
            const __m512 xb =
                _mm512_set1_ps(*(const float *)(const void *)((const char *)x + (size_t)i * xs + (size_t)(l0 + l) * 4));
            acc[i] = _mm512_fmadd_ps(w0, xb, acc[i]);
            if (NB == 2)
                acc[MR + i] = _mm512_fmadd_ps(w1, xb, acc[MR + i]);
        }
    }
}

/* MR rows of x times NB blocks of W rows wr (the last block's nr rows
 * valid, the others 16), whole k, into y; the prefetches of pf on the way. */
QMM_F16D_INLINE void qmm_f16d_block(int MR, int NB, int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs,
                                    float *y, size_t ys, qmm_f16dc_pf pf) {
    __m512 acc[QMM_F16D_MR1];
    for (int i = 0; i < NB * MR; i++)
        acc[i] = _mm512_setzero_ps();
    int64_t l0 = 0;
    for (; l0 + 8 <= k; l0 += 8) {
        qmm_f16dc_pf_step(&pf);
        qmm_f16d_step(MR, NB, 8, wr, l0, x, xs, acc);
    }
    qmm_f16dc_pf_rest(&pf);
    switch (k - l0) { /* constant kt: the tail's loops unroll as the main one's */
    case 0: break;
    case 1: qmm_f16d_step(MR, NB, 1, wr, l0, x, xs, acc); break;
    case 2: qmm_f16d_step(MR, NB, 2, wr, l0, x, xs, acc); break;
    case 3: qmm_f16d_step(MR, NB, 3, wr, l0, x, xs, acc); break;
    case 4: qmm_f16d_step(MR, NB, 4, wr, l0, x, xs, acc); break;
    case 5: qmm_f16d_step(MR, NB, 5, wr, l0, x, xs, acc); break;
    case 6: qmm_f16d_step(MR, NB, 6, wr, l0, x, xs, acc); break;
    case 7: qmm_f16d_step(MR, NB, 7, wr, l0, x, xs, acc); break;
    default: break;
    }
    const __mmask16 nm = (__mmask16)((1u << nr) - 1u);
    for (int i = 0; i < MR; i++) {
        float *yr = (float *)(void *)((char *)y + (size_t)i * ys);
        if (NB == 2) {
            _mm512_storeu_ps(yr, acc[i]);
            _mm512_mask_storeu_ps(yr + 16, nm, acc[MR + i]);
        } else {
            _mm512_mask_storeu_ps(yr, nm, acc[i]);
        }
    }
}

/* The blocks by count nb (1, 2) and activation rows mr, one function each
 * (qmm_f16d_block<nb>_<mr>), so that each compiles as it would alone. */
typedef void (*qmm_f16d_block_fn)(int64_t, const uint16_t *const *, int, const float *, size_t, float *, size_t, qmm_f16dc_pf);
static void qmm_f16d_block1_1(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(1, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_2(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(2, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_3(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(3, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_4(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(4, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_5(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(5, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_6(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(6, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_7(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(7, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block1_8(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(8, 1, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block2_1(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(1, 2, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block2_2(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(2, 2, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block2_3(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(3, 2, k, wr, nr, x, xs, y, ys, pf);
}
static void qmm_f16d_block2_4(int64_t k, const uint16_t *const *wr, int nr, const float *x, size_t xs, float *y, size_t ys,
                              qmm_f16dc_pf pf) {
    qmm_f16d_block(4, 2, k, wr, nr, x, xs, y, ys, pf);
}

/* The family's `direct` entry: y[i][j] = sum over ascending l of
 * w[j][l] x[i][l] (fmaf chain from 0) for i < m, j < n. */
static void qmm_f16d_direct(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, size_t ws, float *y,
                            size_t ys) {
    static const qmm_f16d_block_fn one[QMM_F16D_MR1 + 1] = {NULL,
                                                            qmm_f16d_block1_1,
                                                            qmm_f16d_block1_2,
                                                            qmm_f16d_block1_3,
                                                            qmm_f16d_block1_4,
                                                            qmm_f16d_block1_5,
                                                            qmm_f16d_block1_6,
                                                            qmm_f16d_block1_7,
                                                            qmm_f16d_block1_8};
    static const qmm_f16d_block_fn two[QMM_F16D_MR2 + 1] = {NULL, qmm_f16d_block2_1, qmm_f16d_block2_2, qmm_f16d_block2_3,
                                                            qmm_f16d_block2_4};
    /* Short rows (K: k = head dim, 128 B) go by 16 or 32 rows at once, whose
     * lines the hardware did not fetch ahead of the transposes (1.3 bytes a
     * cycle from memory): the rows ahead are prefetched (f16_direct_common.h)
     * by the first pass over the activation rows. */
    for (int64_t j0 = 0; j0 < n;) {
        /* two blocks for short rows and at most 4 group rows; more rows have
         * their own chains in one block (and would transpose twice): 5-8 rows
         * ran 9-36% faster by one */
        const int nb = n - j0 > 16 && k <= QMM_F16D_PAIR_MAX_K && m <= QMM_F16D_MR2 ? 2 : 1;
        const int nr = (int)(n - j0 - 16 * (nb - 1) < 16 ? n - j0 - 16 * (nb - 1) : 16);
        const int64_t rows = 16 * (nb - 1) + nr;
        qmm_f16dc_pf pf = qmm_f16dc_pf_of(w, ws, n, k, j0, rows);
        const uint16_t *wr[32];
        qmm_f16dc_rows(w, ws, j0, rows, 32, wr);
        const int mr_max = nb == 2 ? QMM_F16D_MR2 : QMM_F16D_MR1;
        for (int64_t i0 = 0; i0 < m; i0 += mr_max) {
            const int mr = (int)(m - i0 < mr_max ? m - i0 : mr_max);
            (nb == 2 ? two : one)[mr](k, wr, nr, (const float *)(const void *)((const char *)x + (size_t)i0 * xs), xs,
                                      (float *)(void *)((char *)y + (size_t)i0 * ys) + j0, ys, pf);
            pf.rows = 0; /* the first pass fetched them */
        }
        j0 += rows;
    }
}

#endif
