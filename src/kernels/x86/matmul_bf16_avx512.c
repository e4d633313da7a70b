/* BF16 weights x fp32 activations with AVX-512 FMA: the F16 family's panel
 * (the 16-bit values as they are) and blocking, widened exactly by a zero
 * extension and a 16-bit shift instead of vcvtph2ps; the arithmetic is
 * F32's (acc = fma(w, x, acc) in ascending k). Layout and tiles in
 * avx512_fp.h. */
#include "kernels/fp_attention.h"
#include "kernels/x86/avx512_fp.h"

/* The widening tiles, rows packed and rows in place. */
static void avx512_bf16_wtile(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                              const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                              const qmm_avx512fp_next *nx, float *wo) {
    qmm_avx512fp_tile_route(QMM_AVX512FP_BF16, 0, mr, np, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo);
}
static void avx512_bf16_wtile_dx(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                                 const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                                 const qmm_avx512fp_next *nx, float *wo) {
    qmm_avx512fp_tile_route(QMM_AVX512FP_BF16, 1, mr, np, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo);
}

static size_t avx512_bf16_w_size(int64_t k, int64_t n) { return qmm_avx512fp_w_size(QMM_AVX512FP_BF16, k, n); }
static size_t avx512_bf16_w_offset(int64_t n_idx, int64_t k) { return qmm_avx512fp_w_offset(QMM_AVX512FP_BF16, n_idx, k); }
static void avx512_bf16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512fp_w_pack(QMM_AVX512FP_BF16, k, n, n0, n1, src, stride, dst);
}
static void avx512_bf16_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx512fp_w_unpack_row(QMM_AVX512FP_BF16, packed, k, row, dst);
}
static void avx512_bf16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512fp_gemm(QMM_AVX512FP_BF16, qmm_avx512fp_f32_tile, avx512_bf16_wtile, m, n, k, a, 0, w, y, ys);
}
static void avx512_bf16_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y,
                                  size_t ys) {
    qmm_avx512fp_gemm(QMM_AVX512FP_BF16, qmm_avx512fp_f32_tile_dx, avx512_bf16_wtile_dx, m, n, k, x, xs / sizeof(float), w, y,
                      ys);
}
static void avx512_bf16_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512fp_gemv(QMM_AVX512FP_BF16, n, k, a, w, y);
}

const qmm_family qmm_family_avx512_bf16 =
    QMM_AVX512FP_DESCRIPTOR("avx512_bf16", QMM_TYPE_BF16, avx512_bf16_w_size, avx512_bf16_w_offset, avx512_bf16_w_pack,
                            avx512_bf16_w_unpack_row, avx512_bf16_gemm, avx512_bf16_gemv);

const qmm_fp_attention qmm_fp_attention_avx512_bf16 = {.family = &qmm_family_avx512_bf16, .gemm_rows = avx512_bf16_gemm_rows};
