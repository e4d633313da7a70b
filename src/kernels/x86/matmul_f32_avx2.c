/* F32 weights x fp32 activations, AVX2 + FMA. Layout and tiles in
 * avx2_fp_body.h. */
#include "kernels/fp_attention.h"
#include "kernels/x86/avx2_fp_body.h"

static size_t avx2_f32_w_size(int64_t k, int64_t n) { return qmm_avx2fp_w_size(QMM_TYPE_F32, k, n); }
static size_t avx2_f32_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2fp_w_offset(QMM_TYPE_F32, n_idx, k); }
static void avx2_f32_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx2fp_w_pack(QMM_TYPE_F32, k, n, n0, n1, src, stride, dst);
}
static void avx2_f32_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2fp_w_unpack_row(QMM_TYPE_F32, w, k, row, dst);
}
static void avx2_f32_gemm_x(int64_t m, int64_t n, int64_t k, const float *x, size_t xr, const void *w, float *y, size_t ys) {
    qmm_avx2fp_gemm_x(QMM_TYPE_F32, m, n, k, x, xr, w, y, ys);
}
static void avx2_f32_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    avx2_f32_gemm_x(m, n, k, (const float *)a, (size_t)k, w, y, ys);
}
static void avx2_f32_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t ys) {
    avx2_f32_gemm_x(m, n, k, x, xs / sizeof(float), w, y, ys);
}
static void avx2_f32_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2fp_gemv(QMM_TYPE_F32, n, k, a, w, y);
}

const qmm_family qmm_family_avx2_f32 =
    QMM_AVX2FP_DESCRIPTOR("avx2_f32", QMM_TYPE_F32, QMM_CPU_AVX2 | QMM_CPU_FMA, avx2_f32_w_size, avx2_f32_w_offset,
                          avx2_f32_w_pack, avx2_f32_w_unpack_row, avx2_f32_gemm, avx2_f32_gemv);

const qmm_fp_attention qmm_fp_attention_avx2_f32 = {.family = &qmm_family_avx2_f32, .gemm_rows = avx2_f32_gemm_rows};
