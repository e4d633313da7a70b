/* BF16 weights x fp32 activations, AVX2 + FMA: the panel keeps BF16 (the
 * source's values, paired by rows), widened exactly at use into the top half
 * of each fp32 lane (the bf16 bits are the top half of the fp32 ones); the
 * arithmetic is F32's. Layout and tiles in avx2_fp_body.h. */
#include "kernels/fp_attention.h"
#include "kernels/x86/avx2_fp_body.h"

static size_t avx2_bf16_w_size(int64_t k, int64_t n) { return qmm_avx2fp_w_size(QMM_TYPE_BF16, k, n); }
static size_t avx2_bf16_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2fp_w_offset(QMM_TYPE_BF16, n_idx, k); }
static void avx2_bf16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx2fp_w_pack(QMM_TYPE_BF16, k, n, n0, n1, src, stride, dst);
}
static void avx2_bf16_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2fp_w_unpack_row(QMM_TYPE_BF16, w, k, row, dst);
}
static void avx2_bf16_gemm_x(int64_t m, int64_t n, int64_t k, const float *x, size_t xr, const void *w, float *y, size_t ys) {
    qmm_avx2fp_gemm_x(QMM_TYPE_BF16, m, n, k, x, xr, w, y, ys);
}
static void avx2_bf16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    avx2_bf16_gemm_x(m, n, k, (const float *)a, (size_t)k, w, y, ys);
}
static void avx2_bf16_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t ys) {
    avx2_bf16_gemm_x(m, n, k, x, xs / sizeof(float), w, y, ys);
}
static void avx2_bf16_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2fp_gemv(QMM_TYPE_BF16, n, k, a, w, y);
}

const qmm_family qmm_family_avx2_bf16 =
    QMM_AVX2FP_DESCRIPTOR("avx2_bf16", QMM_TYPE_BF16, QMM_CPU_AVX2 | QMM_CPU_FMA, avx2_bf16_w_size, avx2_bf16_w_offset,
                          avx2_bf16_w_pack, avx2_bf16_w_unpack_row, avx2_bf16_gemm, avx2_bf16_gemv);

/* widen_once: the GEMM's copy of the widened panel follows dispatch's answer */
const qmm_fp_attention qmm_fp_attention_avx2_bf16 = {
    .family = &qmm_family_avx2_bf16, .gemm_rows = avx2_bf16_gemm_rows, .widen_once = qmm_avx2fp_widen_copy};
