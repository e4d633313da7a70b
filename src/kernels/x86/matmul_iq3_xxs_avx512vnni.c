/* IQ3_XXS x int8, AVX-512 VNNI: plain GGUF rows (iq_grid_x86.h). Prefill, at
 * 256 bits (EVEX vpdpbusd), expands 8 rows' blocks once per chunk into an
 * 8-row panel of w + 64 and multiplies it with 4 broadcast activation bytes,
 * one lane per row; decode dots each row's blocks in place, two per 512-bit
 * vector with the signs applied by mask, and reduces 8 rows together. */
#include <immintrin.h>

static inline __m256i iqg_dot_acc(__m256i acc, __m256i w_u8, __m256i x_s8) { return _mm256_dpbusd_epi32(acc, w_u8, x_s8); }

#include "kernels/x86/iq_grid_x86.h"

static inline __m256i iqg_negate_where(__m256i x, uint32_t bits) {
    return _mm256_mask_mov_epi8(x, (__mmask32)bits, _mm256_sub_epi8(_mm256_setzero_si256(), x));
}

static size_t avx512vnni_iq3_xxs_w_size(int64_t k, int64_t n) { return qmm_iqg_w_size(QMM_TYPE_IQ3_XXS, k, n); }
static size_t avx512vnni_iq3_xxs_w_offset(int64_t n_idx, int64_t k) { return qmm_iqg_w_offset(QMM_TYPE_IQ3_XXS, n_idx, k); }
static void avx512vnni_iq3_xxs_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ3_XXS, k, n0, n1, src, stride, dst);
}
static void avx512vnni_iq3_xxs_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ3_XXS, w, k, row, dst);
}
static void avx512vnni_iq3_xxs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_iqg_gemm(QMM_TYPE_IQ3_XXS, m, n, k, a, w, y, ys);
}
static void avx512vnni_iq3_xxs_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_iqg_gemv(QMM_TYPE_IQ3_XXS, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_iq3_xxs = {
    .name = "avx512vnni_iq3_xxs",
    .wtype = QMM_TYPE_IQ3_XXS,
    .required = QMM_IQG_AVX512_VNNI_REQUIRED,
    .fallback_hides = QMM_IQG_AVX512_VNNI_HIDES,
    QMM_IQG_GEOMETRY,
    .w_packed_size = avx512vnni_iq3_xxs_w_size,
    .w_packed_offset = avx512vnni_iq3_xxs_w_offset,
    .w_pack = avx512vnni_iq3_xxs_w_pack,
    .w_unpack_row = avx512vnni_iq3_xxs_w_unpack_row,
    .gemm = avx512vnni_iq3_xxs_gemm,
    .gemv = avx512vnni_iq3_xxs_gemv,
};
