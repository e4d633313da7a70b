/* Q4_1 x int8, AVX2 (every x86-64-v3 CPU): the dot is vpmaddubsw (u8 nibble
 * x s8 activation, pairs into int16) accumulated in int16, then vpmaddwd
 * into int32 once per block. Exact: a pair is at most 2 * 15 * 127 = 3810 in
 * magnitude, the 8 pairs of a block lane at most 30480 < 32767, so nothing
 * saturates. The format code is avx2_legacy_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi16(acc, _mm256_maddubs_epi16(w_u8, x_s8));
}

static inline __m256i dot_finish(__m256i acc) { return _mm256_madd_epi16(acc, _mm256_set1_epi16(1)); }

#include "kernels/x86/avx2_int8_body.h"

static void avx2_q4_1_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx2_int8_gemm(QMM_TYPE_Q4_1, QMM_AVX2_ISA_AVX2, m, n, k, a, w, y, ys);
}

static void avx2_q4_1_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2_int8_gemv(QMM_TYPE_Q4_1, QMM_AVX2_ISA_AVX2, n, k, a, w, y);
}

static size_t avx2_q4_1_w_size(int64_t k, int64_t n) { return qmm_avx2_int8_w_size(QMM_TYPE_Q4_1, k, n); }

static size_t avx2_q4_1_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2_int8_w_offset(QMM_TYPE_Q4_1, n_idx, k); }

static void avx2_q4_1_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_avx2_int8_w_pack(QMM_TYPE_Q4_1, k, n0, n1, src, stride, dst);
}

static void avx2_q4_1_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2_int8_w_unpack_row(QMM_TYPE_Q4_1, w, k, row, dst);
}

const qmm_family qmm_family_avx2_q4_1 =
    QMM_AVX2_INT8_FAMILY("avx2_q4_1", QMM_TYPE_Q4_1, QMM_AVX2_INT8_REQUIRED, avx2_q4_1_w_size, avx2_q4_1_w_offset,
                         avx2_q4_1_w_pack, avx2_q4_1_w_unpack_row, qmm_avx2_act_q8_pack, avx2_q4_1_gemm, avx2_q4_1_gemv);
