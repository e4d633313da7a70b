/* IQ3_S x int8, AVX2 (every x86-64-v3 CPU): plain GGUF rows (iq_grid_x86.h).
 * Prefill expands 8 rows' blocks once per chunk into an 8-row panel of w + 64
 * and multiplies it with 4 broadcast activation bytes (vpmaddubsw +
 * vpmaddwd), one lane per row; decode dots each row's blocks in place and
 * reduces 8 rows together. */
#include <immintrin.h>

static inline __m256i iqg_dot_acc(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w_u8, x_s8), _mm256_set1_epi16(1)));
}

#include "kernels/x86/iq_grid_x86.h"

static inline __m256i iqg_negate_where(__m256i x, uint32_t bits) { return _mm256_sign_epi8(x, qmm_iqg_signs(bits)); }

static size_t avx2_iq3_s_w_size(int64_t k, int64_t n) { return qmm_iqg_w_size(QMM_TYPE_IQ3_S, k, n); }
static size_t avx2_iq3_s_w_offset(int64_t n_idx, int64_t k) { return qmm_iqg_w_offset(QMM_TYPE_IQ3_S, n_idx, k); }
static void avx2_iq3_s_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ3_S, k, n0, n1, src, stride, dst);
}
static void avx2_iq3_s_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ3_S, w, k, row, dst);
}
static void avx2_iq3_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_iqg_gemm(QMM_TYPE_IQ3_S, m, n, k, a, w, y, ys);
}
static void avx2_iq3_s_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_iqg_gemv(QMM_TYPE_IQ3_S, n, k, a, w, y);
}

const qmm_family qmm_family_avx2_iq3_s = {
    .name = "avx2_iq3_s",
    .wtype = QMM_TYPE_IQ3_S,
    .required = QMM_IQG_AVX2_REQUIRED,
    .fallback_hides = QMM_IQG_AVX2_REQUIRED,
    QMM_IQG_GEOMETRY,
    .w_packed_size = avx2_iq3_s_w_size,
    .w_packed_offset = avx2_iq3_s_w_offset,
    .w_pack = avx2_iq3_s_w_pack,
    .w_unpack_row = avx2_iq3_s_w_unpack_row,
    .gemm = avx2_iq3_s_gemm,
    .gemv = avx2_iq3_s_gemv,
};
