/* MXFP4 x int8, AVX2 (every x86-64-v3 CPU): the nibbles become kv + 12
 * (0..24) by vpshufb, so vpmaddubsw takes them as they are (no vpabsb /
 * vpsignb); four products pairs add in int16 (8 products a lane, at most
 * 8 * 24 * 128 = 24576, exact), then one vpmaddwd into int32; the float step
 * takes 12 x the activation block's sum off: the format code,
 * avx2_table_body.h, does that four-pair step itself on AVX2; dot_step is the
 * other formats'. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w_u8, x_s8), _mm256_set1_epi16(1)));
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#include "kernels/x86/avx2_int8_body.h"

static void avx2_mxfp4_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx2_int8_gemm(QMM_TYPE_MXFP4, QMM_AVX2_ISA_AVX2, m, n, k, a, w, y, ys);
}

static void avx2_mxfp4_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2_int8_gemv(QMM_TYPE_MXFP4, QMM_AVX2_ISA_AVX2, n, k, a, w, y);
}

static size_t avx2_mxfp4_w_size(int64_t k, int64_t n) { return qmm_avx2_int8_w_size(QMM_TYPE_MXFP4, k, n); }

static size_t avx2_mxfp4_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2_int8_w_offset(QMM_TYPE_MXFP4, n_idx, k); }

static void avx2_mxfp4_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_avx2_int8_w_pack(QMM_TYPE_MXFP4, k, n0, n1, src, stride, dst);
}

static void avx2_mxfp4_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2_int8_w_unpack_row(QMM_TYPE_MXFP4, w, k, row, dst);
}

const qmm_family qmm_family_avx2_mxfp4 =
    QMM_AVX2_INT8_FAMILY("avx2_mxfp4", QMM_TYPE_MXFP4, QMM_AVX2_INT8_REQUIRED, avx2_mxfp4_w_size, avx2_mxfp4_w_offset,
                         avx2_mxfp4_w_pack, avx2_mxfp4_w_unpack_row, qmm_avx2_act_q8_pack, avx2_mxfp4_gemm, avx2_mxfp4_gemv);
