/* TQ1_0 x int8, AVX-512 VNNI at 256 bits (EVEX vpdpbusd): rows in groups of 8 with their
 * 4-byte words interleaved (iq_grid_x86.h, the ternary layout), so that one
 * load, one level per byte, is a panel vector of 4 elements of 8 rows. Decode
 * and prefill multiply such vectors with 4 broadcast activation bytes
 * (vpdpbusd), one lane per row, nothing reduced across lanes. */
#include <immintrin.h>

static inline __m256i iqg_dot_acc(__m256i acc, __m256i w_u8, __m256i x_s8) { return _mm256_dpbusd_epi32(acc, w_u8, x_s8); }

#include "kernels/x86/iq_grid_x86.h"

static inline __m256i iqg_negate_where(__m256i x, uint32_t bits) {
    return _mm256_mask_mov_epi8(x, (__mmask32)bits, _mm256_sub_epi8(_mm256_setzero_si256(), x));
}

static size_t avx512vnni_tq1_0_w_size(int64_t k, int64_t n) { return qmm_iqg_w_size(QMM_TYPE_TQ1_0, k, n); }
static size_t avx512vnni_tq1_0_w_offset(int64_t n_idx, int64_t k) { return qmm_iqg_w_offset(QMM_TYPE_TQ1_0, n_idx, k); }
static void avx512vnni_tq1_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_iqg_tq_pack(QMM_TYPE_TQ1_0, k, n, n0, n1, src, stride, dst);
}
static void avx512vnni_tq1_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_iqg_tq_unpack_row(QMM_TYPE_TQ1_0, w, k, n, row, dst);
}
static void avx512vnni_tq1_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_iqg_gemm(QMM_TYPE_TQ1_0, m, n, k, a, w, y, ys);
}
static void avx512vnni_tq1_0_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_iqg_gemv(QMM_TYPE_TQ1_0, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_tq1_0 = {
    .name = "avx512vnni_tq1_0",
    .wtype = QMM_TYPE_TQ1_0,
    .required = QMM_IQG_AVX512_VNNI_REQUIRED,
    .fallback_hides = QMM_IQG_AVX512_VNNI_HIDES,
    QMM_IQG_GEOMETRY_TERNARY,
    .w_packed_size = avx512vnni_tq1_0_w_size,
    .w_packed_offset = avx512vnni_tq1_0_w_offset,
    .w_pack = avx512vnni_tq1_0_w_pack,
    .w_unpack_row = avx512vnni_tq1_0_w_unpack_row,
    .gemm = avx512vnni_tq1_0_gemm,
    .gemv = avx512vnni_tq1_0_gemv,
};
