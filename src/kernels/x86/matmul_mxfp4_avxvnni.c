/* MXFP4 x int8, AVX-VNNI (Alder Lake and later, Zen 5): the dot is 256-bit
 * vpdpbusd on the unsigned levels kv + 12 and x as they are, four products
 * at a time into int32, exact (four steps per chunk); the float step takes 12 x the activation
 * block's sum off. Everything else is the AVX2 family's code,
 * avx2_table_body.h, which the oracle test runs on any AVX2 CPU. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) { return _mm256_dpbusd_avx_epi32(acc, w_u8, x_s8); }

static inline __m256i dot_finish(__m256i acc) { return acc; }

#include "kernels/x86/avx2_int8_body.h"

static void avxvnni_mxfp4_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx2_int8_gemm(QMM_TYPE_MXFP4, QMM_AVX2_ISA_AVXVNNI, m, n, k, a, w, y, ys);
}

static void avxvnni_mxfp4_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2_int8_gemv(QMM_TYPE_MXFP4, QMM_AVX2_ISA_AVXVNNI, n, k, a, w, y);
}

static size_t avxvnni_mxfp4_w_size(int64_t k, int64_t n) { return qmm_avx2_int8_w_size(QMM_TYPE_MXFP4, k, n); }

static size_t avxvnni_mxfp4_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2_int8_w_offset(QMM_TYPE_MXFP4, n_idx, k); }

static void avxvnni_mxfp4_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_avx2_int8_w_pack(QMM_TYPE_MXFP4, k, n0, n1, src, stride, dst);
}

static void avxvnni_mxfp4_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2_int8_w_unpack_row(QMM_TYPE_MXFP4, w, k, row, dst);
}

const qmm_family qmm_family_avxvnni_mxfp4 = QMM_AVX2_INT8_FAMILY(
    "avxvnni_mxfp4", QMM_TYPE_MXFP4, QMM_AVXVNNI_INT8_REQUIRED, avxvnni_mxfp4_w_size, avxvnni_mxfp4_w_offset,
    avxvnni_mxfp4_w_pack, avxvnni_mxfp4_w_unpack_row, qmm_avx2_act_q8_pack, avxvnni_mxfp4_gemm, avxvnni_mxfp4_gemv);
