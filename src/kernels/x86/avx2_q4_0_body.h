/* Q4_0 x int8 activations, 256-bit integer dot products: the format code
 * shared by the AVX2 family (matmul_q4_0_avx2.c) and the AVX-VNNI family
 * (matmul_q4_0_avxvnni.c), on the AVX2 int8 driver (avx2_int8_body.h), so
 * everything but the dot instruction is one code, tested through AVX2.
 *
 * Packed panel of 8 weight rows (n_step 8), nb = k / 32 blocks:
 *   [nb x 8 fp16 scales: block b, row j at b * 8 + j]       16 B per block
 *   [nb x 128 B quants : block b at b * 128, byte c * 32 + j * 4 + t is
 *                        source qs[4c + t] of row j (c < 4, t < 4)]
 * 144 B per block: the size of the source, so GEMV reads no extra bytes. A
 * 32-byte vector c holds, per row j, one dword: low nibbles are elements
 * 4c..4c+3, high nibbles 16+4c..16+4c+3. So one dot gives one int32 lane per
 * output row: no horizontal sums, and the block's float step is one vector
 * op for 8 rows: acc = fma((float)isum, fp32(d_w) * d_x, acc), the
 * reference's rounding exactly. fp16 scales stay fp16 (converted with
 * vcvtph2ps, exact) to keep the 144 B: GEMV is bound by memory.
 * Activations: the reference layout, quantized by the AVX2 packer. */
#ifndef QMM_X86_AVX2_Q4_0_BODY_H
#define QMM_X86_AVX2_Q4_0_BODY_H

#include "kernels/x86/avx2_d_panel.h"
#include "kernels/x86/avx2_int8_types.h"

#define QMM_AVX2_Q4_0_BLOCK_BYTES 144 /* per block of a panel: 16 B scales + 128 B quants */

QMM_AVX2_INLINE size_t qmm_avx2_q4_0_panel_bytes(int64_t nb) { return (size_t)nb * QMM_AVX2_Q4_0_BLOCK_BYTES; }

QMM_AVX2_INLINE size_t qmm_avx2_q4_0_quants(int64_t nb, int64_t b) { return (size_t)nb * 16 + (size_t)b * 128; }

/* Chunk c of a block: low nibbles elements 4c..4c+3, high 16+4c..16+4c+3. */
QMM_AVX2_INLINE void qmm_avx2_q4_0_unpack(qmm_avx2_wv *wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(panel + qmm_avx2_q4_0_quants(nb, b) + c * 32));
    wv->v[0] = _mm256_and_si256(raw, m4);
    wv->v[1] = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
}

QMM_AVX2_INLINE __m256 qmm_avx2_q4_0_float(__m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    /* sum (q - 8) x = sum q x - 8 sum x, exact in int32 */
    const __m256i isum = _mm256_sub_epi32(dot_finish(is->a), _mm256_slli_epi32(_mm256_set1_epi32(xb->sum), 3));
    const __m256 scale = _mm256_mul_ps(ws->d, _mm256_set1_ps(xb->d));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), scale, acc);
}

#endif
