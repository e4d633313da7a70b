/* The direct F16 product of the AVX-512 F16 family (family.h: `direct`):
 * y = x W^T reading the F16 rows of W where they are (qmm_mul_mat_f16's K or
 * V^T, rows ws bytes apart), without the packed copy, for the few activation
 * rows of decode. Per block of 16 W rows and 16 l, the rows are loaded
 * (one ymm each), transposed in registers (16-bit unpacks: exact, the bits
 * move) so that vector l holds the 16 rows at l, widened by vcvtph2ps, and
 * fed to one FMA per activation row: each zmm lane is one output and its
 * chain runs over ascending l from 0, the reference's order. W's bytes
 * stream once from memory, in the order they lie. Included by the AVX-512
 * F16 translation unit only. */
#ifndef QMM_X86_AVX512_F16_DIRECT_H
#define QMM_X86_AVX512_F16_DIRECT_H

#include <immintrin.h>
#include <stdint.h>

#ifndef QMM_F16D_PF_BLOCKS
#define QMM_F16D_PF_BLOCKS 8
#endif
#ifndef QMM_F16D_PF_ROW_BYTES
#define QMM_F16D_PF_ROW_BYTES 256
#endif
#define QMM_F16D_MR 8 /* activation rows per pass: 8 accumulators + 16 transposed vectors fit the 32 registers */

/* In each 128-bit lane, 8 rows x 8 l of 16-bit values transposed: c[l] gets
 * rows 0-7 at l (low lane) and at l + 8 (high lane). */
static inline __attribute__((always_inline)) void qmm_f16d_transpose8x2(const __m256i r[8], __m256i c[8]) {
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

/* MR activation rows (x, rows xs bytes apart, at column l0 of W) x the 16
 * rows wr (NULL: a padding row, read as zeros) over l in [l0, l0 + kt),
 * kt <= 16, accumulated into acc. */
static inline __attribute__((always_inline)) void qmm_f16d_step(int MR, int kt, const uint16_t *const wr[16], int64_t l0,
                                                                const float *x, size_t xs, __m512 acc[QMM_F16D_MR]) {
    const __mmask16 lm = (__mmask16)((1u << kt) - 1u);
    __m256i r[16];
    for (int j = 0; j < 16; j++) {
        if (!wr[j])
            r[j] = _mm256_setzero_si256();
        else if (kt == 16)
            r[j] = _mm256_loadu_si256((const __m256i *)(const void *)(wr[j] + l0));
        else /* fault-suppressing: never reads past the row */
            r[j] = _mm256_maskz_loadu_epi16(lm, wr[j] + l0);
    }
    __m256i lo[8], hi[8];
    qmm_f16d_transpose8x2(r, lo);
    qmm_f16d_transpose8x2(r + 8, hi);
#pragma GCC unroll 16
    for (int l = 0; l < kt; l++) {
        /* rows 0-7 and 8-15 at l: the low lanes (l < 8) or the high ones */
        const __m256i t =
            l < 8 ? _mm256_permute2x128_si256(lo[l], hi[l], 0x20) : _mm256_permute2x128_si256(lo[l - 8], hi[l - 8], 0x31);
        const __m512 w = _mm512_cvtph_ps(t);
        for (int i = 0; i < MR; i++)
            acc[i] = _mm512_fmadd_ps(
                w, _mm512_set1_ps(*(const float *)(const void *)((const char *)x + (size_t)i * xs + (size_t)(l0 + l) * 4)),
                acc[i]);
    }
}

/* MR rows of x times the 16 (or nr < 16) W rows wr, whole k, into y. */
static inline __attribute__((always_inline)) void qmm_f16d_block(int MR, int64_t k, const uint16_t *const wr[16], int nr,
                                                                 const float *x, size_t xs, float *y, size_t ys) {
    __m512 acc[QMM_F16D_MR];
    for (int i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_ps();
    int64_t l0 = 0;
    for (; l0 + 16 <= k; l0 += 16)
        qmm_f16d_step(MR, 16, wr, l0, x, xs, acc);
    switch (k - l0) { /* constant kt: the tail's loops unroll as the main one's */
    case 0: break;
#define QMM_F16D_TAIL(t)                                                                                                         \
    case t: qmm_f16d_step(MR, t, wr, l0, x, xs, acc); break;
        QMM_F16D_TAIL(1)
        QMM_F16D_TAIL(2)
        QMM_F16D_TAIL(3)
        QMM_F16D_TAIL(4)
        QMM_F16D_TAIL(5)
        QMM_F16D_TAIL(6)
        QMM_F16D_TAIL(7)
        QMM_F16D_TAIL(8)
        QMM_F16D_TAIL(9)
        QMM_F16D_TAIL(10)
        QMM_F16D_TAIL(11)
        QMM_F16D_TAIL(12)
        QMM_F16D_TAIL(13)
        QMM_F16D_TAIL(14)
        QMM_F16D_TAIL(15)
#undef QMM_F16D_TAIL
    default: break;
    }
    const __mmask16 nm = (__mmask16)((1u << nr) - 1u);
    for (int i = 0; i < MR; i++)
        _mm512_mask_storeu_ps((float *)(void *)((char *)y + (size_t)i * ys), nm, acc[i]);
}

#define QMM_F16D_BLOCK(mr)                                                                                                       \
    static void qmm_f16d_block##mr(int64_t k, const uint16_t *const wr[16], int nr, const float *x, size_t xs, float *y,         \
                                   size_t ys) {                                                                                  \
        qmm_f16d_block(mr, k, wr, nr, x, xs, y, ys);                                                                             \
    }
QMM_F16D_BLOCK(1)
QMM_F16D_BLOCK(2)
QMM_F16D_BLOCK(3)
QMM_F16D_BLOCK(4)
QMM_F16D_BLOCK(5)
QMM_F16D_BLOCK(6)
QMM_F16D_BLOCK(7)
QMM_F16D_BLOCK(8)
#undef QMM_F16D_BLOCK

/* The family's `direct` entry: y[i][j] = sum over ascending l of
 * w[j][l] x[i][l] (fmaf chain from 0) for i < m, j < n. */
static void qmm_f16d_direct(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, size_t ws, float *y,
                            size_t ys) {
    typedef void (*block_fn)(int64_t, const uint16_t *const[16], int, const float *, size_t, float *, size_t);
    static const block_fn blocks[QMM_F16D_MR + 1] = {NULL,
                                                     qmm_f16d_block1,
                                                     qmm_f16d_block2,
                                                     qmm_f16d_block3,
                                                     qmm_f16d_block4,
                                                     qmm_f16d_block5,
                                                     qmm_f16d_block6,
                                                     qmm_f16d_block7,
                                                     qmm_f16d_block8};
    /* Short rows (K: k = head dim, 128 B) go by 16 rows a block, whose 32
     * lines the hardware did not fetch ahead of the transposes (1.3 bytes a
     * cycle from memory): the rows of the block QMM_F16D_PF_BLOCKS ahead are
     * prefetched, their first QMM_F16D_PF_ROW_BYTES each. */
    const size_t pf_row = (size_t)k * 2 < QMM_F16D_PF_ROW_BYTES ? (size_t)k * 2 : QMM_F16D_PF_ROW_BYTES;
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
        const int nr = (int)(n - j0 < 16 ? n - j0 : 16);
        for (int64_t j = j0 + 16 * QMM_F16D_PF_BLOCKS; j < j0 + 16 * (QMM_F16D_PF_BLOCKS + 1) && j < n; j++)
            for (size_t b = 0; b < pf_row; b += 64)
                _mm_prefetch((const char *)w + (size_t)j * ws + b, _MM_HINT_T0);
        const uint16_t *wr[16];
        for (int j = 0; j < 16; j++)
            wr[j] = j < nr ? (const uint16_t *)(const void *)((const char *)w + (size_t)(j0 + j) * ws) : NULL;
        for (int64_t i0 = 0; i0 < m; i0 += QMM_F16D_MR) {
            const int mr = (int)(m - i0 < QMM_F16D_MR ? m - i0 : QMM_F16D_MR);
            blocks[mr](k, wr, nr, (const float *)(const void *)((const char *)x + (size_t)i0 * xs), xs,
                       (float *)(void *)((char *)y + (size_t)i0 * ys) + j0, ys);
        }
    }
}

#endif
