/* Q8_0 x int8 activations, 256-bit integer dot products: the format code
 * shared by the AVX2 family (matmul_q8_0_avx2.c) and the AVX-VNNI family
 * (matmul_q8_0_avxvnni.c), on the AVX2 int8 driver (avx2_int8_body.h).
 *
 * The unsigned x signed dot takes |w| (vpabsb: -128 becomes 128, right as u8)
 * and x with w's sign (vpsignb; |x| <= 127, so negating never wraps); the
 * products are w * x exactly, a pair at most 2 * 128 * 127 = 32512 < 32767.
 *
 * Packed panel of 8 weight rows (n_step 8), nb = k / 32 blocks:
 *   [nb x 8 fp16 scales: block b, row j at b * 8 + j]       16 B per block
 *   [nb x 256 B quants : block b at b * 256, byte g * 32 + j * 4 + t is
 *                        source qs[4g + t] of row j (g < 8, t < 4)]
 * 272 B per block, the size of the source. Vector g holds one dword per row
 * (elements 4g..4g+3), so a dot gives one int32 lane per output row and the
 * float step is the reference's, 8 rows at once. */
#ifndef QMM_X86_AVX2_Q8_0_BODY_H
#define QMM_X86_AVX2_Q8_0_BODY_H

#include "kernels/x86/avx2_d_panel.h"
#include "kernels/x86/avx2_int8_types.h"

#define QMM_AVX2_Q8_0_BLOCK_BYTES 272 /* per block of a panel: 16 B scales + 256 B quants */

QMM_AVX2_INLINE size_t qmm_avx2_q8_0_panel_bytes(int64_t nb) { return (size_t)nb * QMM_AVX2_Q8_0_BLOCK_BYTES; }

QMM_AVX2_INLINE size_t qmm_avx2_q8_0_quants(int64_t nb, int64_t b) { return (size_t)nb * 16 + (size_t)b * 256; }

/* Chunk g of a block: elements 4g..4g+3 of each row (v[0]) and their
 * magnitudes (v[1]), taken once for all rows. */
QMM_AVX2_INLINE void qmm_avx2_q8_0_unpack(qmm_avx2_wv *w, const uint8_t *panel, int64_t nb, int64_t b, int g) {
    w->v[0] = _mm256_loadu_si256((const __m256i *)(panel + qmm_avx2_q8_0_quants(nb, b) + g * 32));
    w->v[1] = _mm256_abs_epi8(w->v[0]);
}

QMM_AVX2_INLINE void qmm_avx2_q8_0_dot(qmm_avx2_iacc *is, const qmm_avx2_wv *w, const qmm_avx2_xv *xv) {
    is->a = dot_step(is->a, w->v[1], _mm256_sign_epi8(xv->v[0], w->v[0]));
    /* keep the chain: gcc would reassociate the exact integer sums into a
     * tree and spill the products it holds */
    __asm__("" : "+x"(is->a));
}

QMM_AVX2_INLINE __m256 qmm_avx2_q8_0_float(__m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    const __m256 scale = _mm256_mul_ps(ws->d, _mm256_set1_ps(xb->d));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_finish(is->a)), scale, acc);
}

#endif
