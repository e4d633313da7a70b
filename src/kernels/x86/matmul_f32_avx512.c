/* F32 weights x fp32 activations with AVX-512 FMA, vectorised across 16
 * weight rows (panel layout and tiles in avx512_fp.h). GEMM tile: 12
 * activation rows x 32 weight rows (two panels: 24 accumulators, each
 * broadcast feeds 2 FMAs, each weight vector 12). */
#include "kernels/fp_attention.h"
#include "kernels/x86/avx512_fp.h"

/* The per-thread GEMM scratch of the three AVX-512 fp families (avx512_fp.h). */
_Thread_local float qmm_avx512fp_scratch[QMM_AVX512FP_SCRATCH] __attribute__((aligned(64)));

/* The F32 tiles of every AVX-512 fp family (avx512_fp.h). */
void qmm_avx512fp_f32_tile(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                           const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                           const qmm_avx512fp_next *nx, float *wo) {
    qmm_avx512fp_tile_route(QMM_AVX512FP_F32, 0, mr, np, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo);
}
void qmm_avx512fp_f32_tile_dx(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                              const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                              const qmm_avx512fp_next *nx, float *wo) {
    qmm_avx512fp_tile_route(QMM_AVX512FP_F32, 1, mr, np, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo);
}

static size_t avx512_f32_w_size(int64_t k, int64_t n) { return qmm_avx512fp_w_size(QMM_AVX512FP_F32, k, n); }
static size_t avx512_f32_w_offset(int64_t n_idx, int64_t k) { return qmm_avx512fp_w_offset(QMM_AVX512FP_F32, n_idx, k); }
static void avx512_f32_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512fp_w_pack(QMM_AVX512FP_F32, k, n, n0, n1, src, stride, dst);
}
static void avx512_f32_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx512fp_w_unpack_row(QMM_AVX512FP_F32, packed, k, row, dst);
}
static void avx512_f32_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512fp_gemm(QMM_AVX512FP_F32, qmm_avx512fp_f32_tile, NULL, m, n, k, a, 0, w, y, ys);
}
static void avx512_f32_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t ys) {
    qmm_avx512fp_gemm(QMM_AVX512FP_F32, qmm_avx512fp_f32_tile_dx, NULL, m, n, k, x, xs / sizeof(float), w, y, ys);
}
static void avx512_f32_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512fp_gemv(QMM_AVX512FP_F32, n, k, a, w, y);
}

const qmm_family qmm_family_avx512_f32 =
    QMM_AVX512FP_DESCRIPTOR("avx512_f32", QMM_TYPE_F32, avx512_f32_w_size, avx512_f32_w_offset, avx512_f32_w_pack,
                            avx512_f32_w_unpack_row, avx512_f32_gemm, avx512_f32_gemv);

const qmm_fp_attention qmm_fp_attention_avx512_f32 = {.family = &qmm_family_avx512_f32, .gemm_rows = avx512_f32_gemm_rows};
