/* Q8_0 x int8, AVX2 (every x86-64-v3 CPU): the dot is vpmaddubsw on |w| and
 * sign-moved x (pairs into int16, exact: at most 32512), then vpmaddwd into
 * int32 at once, as two such pairs could overflow int16. The body is
 * avx2_q8_0_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w_u8, x_s8), _mm256_set1_epi16(1)));
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#include "kernels/x86/avx2_int8_body.h"

static void avx2_q8_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx2_int8_gemm(QMM_TYPE_Q8_0, QMM_AVX2_ISA_AVX2, m, n, k, a, w, y, ys);
}

static void avx2_q8_0_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2_int8_gemv(QMM_TYPE_Q8_0, QMM_AVX2_ISA_AVX2, n, k, a, w, y);
}

static size_t avx2_q8_0_w_size(int64_t k, int64_t n) { return qmm_avx2_int8_w_size(QMM_TYPE_Q8_0, k, n); }

static size_t avx2_q8_0_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2_int8_w_offset(QMM_TYPE_Q8_0, n_idx, k); }

static void avx2_q8_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_avx2_int8_w_pack(QMM_TYPE_Q8_0, k, n0, n1, src, stride, dst);
}

static void avx2_q8_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2_int8_w_unpack_row(QMM_TYPE_Q8_0, w, k, row, dst);
}

const qmm_family qmm_family_avx2_q8_0 =
    QMM_AVX2_INT8_FAMILY("avx2_q8_0", QMM_TYPE_Q8_0, QMM_AVX2_INT8_REQUIRED, avx2_q8_0_w_size, avx2_q8_0_w_offset,
                         avx2_q8_0_w_pack, avx2_q8_0_w_unpack_row, qmm_avx2_act_q8_pack, avx2_q8_0_gemm, avx2_q8_0_gemv);
