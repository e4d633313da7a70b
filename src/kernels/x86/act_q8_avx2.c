/* AVX2 activation quantize-and-pack: qmm_act_quantize_block, vectorised over
 * the 32 values of a block (each value's arithmetic is independent, so this
 * is the reference's result exactly; amax is a max, order-free). */
#include "kernels/x86/act_q8_avx2.h"

#include <immintrin.h>

#include "formats/formats.h"

static inline void quantize_block(const float *x, qmm_act_block *out) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int i = 0; i < 4; i++) {
        v[i] = _mm256_loadu_ps(x + 8 * i);
        /* maxps returns its second operand when the first is NaN: NaN never
         * replaces amax, exactly as the reference's a > amax ? a : amax. */
        amax = _mm256_max_ps(_mm256_and_ps(v[i], absmask), amax);
    }
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    const qmm_act_scale sc = qmm_act_block_scale(_mm_cvtss_f32(h));
    if (sc.pre != 1.0f) /* a tiny block: scaled exactly first, as the reference does */
        for (int i = 0; i < 4; i++)
            v[i] = _mm256_mul_ps(v[i], _mm256_set1_ps(sc.pre));

    const __m256 vid = _mm256_set1_ps(sc.id);
    const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
    __m256i q[4];
    for (int i = 0; i < 4; i++) {
        __m256 p = _mm256_mul_ps(v[i], vid);
        p = _mm256_and_ps(p, _mm256_cmp_ps(p, p, _CMP_ORD_Q)); /* NaN -> +0 */
        /* Clamping to the integers +-127 before rounding equals clamping
         * after: rounding is monotonic. cvtps2dq rounds in the current mode
         * (half to even by default), as nearbyintf does. */
        p = _mm256_min_ps(_mm256_max_ps(p, lo), hi);
        q[i] = _mm256_cvtps_epi32(p);
    }
    __m256i s = _mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3]));
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));

    /* packs works per 128-bit lane: dwords come out as q0a q1a q2a q3a q0b q1b
     * q2b q3b (a/b: low/high four of each vector); put them back in order. */
    const __m256i p16a = _mm256_packs_epi32(q[0], q[1]);
    const __m256i p16b = _mm256_packs_epi32(q[2], q[3]);
    const __m256i p8 = _mm256_packs_epi16(p16a, p16b);
    const __m256i bytes = _mm256_permutevar8x32_epi32(p8, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));

    out->d = sc.d;
    out->sum = _mm_cvtsi128_si32(s4);
    _mm256_storeu_si256((__m256i *)out->q, bytes);
}

void qmm_avx2_act_q8_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_act_block *out = (qmm_act_block *)dst;
    const int64_t nb = k / QMM_QK;
    for (int64_t i = 0; i < m; i++) {
        const float *row = (const float *)((const char *)x + (size_t)i * x_row_stride);
        for (int64_t b = 0; b < nb; b++)
            quantize_block(row + b * QMM_QK, &out[i * nb + b]);
    }
}

void qmm_avx2_act_q8_pack_sum16(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_avx2_act_q8_pack(m, k, x, x_row_stride, dst);
    qmm_act_block *blk = (qmm_act_block *)dst;
    for (int64_t i = 0; i < m * (k / QMM_QK); i++) {
        int32_t sa = 0;
        for (int l = 0; l < 16; l++)
            sa += blk[i].q[l];
        blk[i].sum = (int32_t)((uint32_t)(uint16_t)(int16_t)sa | (uint32_t)(uint16_t)(int16_t)(blk[i].sum - sa) << 16);
    }
}
