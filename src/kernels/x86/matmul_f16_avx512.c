/* F16 weights x fp32 activations with AVX-512 FMA. The panel keeps the fp16
 * bits (half the bytes of F32 to stream); vcvtph2ps widens 16 of them
 * exactly. GEMM: the first row step of a block widens in its tiles and keeps
 * the block as fp32, the others run the F32 tiles on it; GEMV widens per l.
 * Layout and tiles in avx512_fp.h. */
#include "kernels/fp_attention.h"
#include "kernels/x86/avx512_f16_direct.h"
#include "kernels/x86/avx512_fp.h"

/* The widening tiles, rows packed and rows in place. */
static void avx512_f16_wtile(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                             const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                             const qmm_avx512fp_next *nx, float *wo) {
    qmm_avx512fp_tile_route(QMM_AVX512FP_F16, 0, mr, np, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo);
}
static void avx512_f16_wtile_dx(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                                const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                                const qmm_avx512fp_next *nx, float *wo) {
    qmm_avx512fp_tile_route(QMM_AVX512FP_F16, 1, mr, np, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo);
}

static size_t avx512_f16_w_size(int64_t k, int64_t n) { return qmm_avx512fp_w_size(QMM_AVX512FP_F16, k, n); }
static size_t avx512_f16_w_offset(int64_t n_idx, int64_t k) { return qmm_avx512fp_w_offset(QMM_AVX512FP_F16, n_idx, k); }
static void avx512_f16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512fp_w_pack(QMM_AVX512FP_F16, k, n, n0, n1, src, stride, dst);
}
static void avx512_f16_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx512fp_w_unpack_row(QMM_AVX512FP_F16, packed, k, row, dst);
}
static void avx512_f16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512fp_gemm(QMM_AVX512FP_F16, qmm_avx512fp_f32_tile, avx512_f16_wtile, m, n, k, a, 0, w, y, ys);
}
static void avx512_f16_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t ys) {
    qmm_avx512fp_gemm(QMM_AVX512FP_F16, qmm_avx512fp_f32_tile_dx, avx512_f16_wtile_dx, m, n, k, x, xs / sizeof(float), w, y, ys);
}
static void avx512_f16_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512fp_gemv(QMM_AVX512FP_F16, n, k, a, w, y);
}
/* prefill of qmm_mul_mat_f16: the weights widened once into avx512_f32's panels */
static void avx512_f16_w_pack_wide(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_x86fp_pack16_wide(k, n, n0, n1, src, stride, dst);
}

const qmm_family qmm_family_avx512_f16 =
    QMM_AVX512FP_DESCRIPTOR("avx512_f16", QMM_TYPE_F16, avx512_f16_w_size, avx512_f16_w_offset, avx512_f16_w_pack,
                            avx512_f16_w_unpack_row, avx512_f16_gemm, avx512_f16_gemv);

extern const qmm_family qmm_family_avx512_f32;
const qmm_fp_attention qmm_fp_attention_avx512_f16 = {
    .family = &qmm_family_avx512_f16,
    .gemm_rows = avx512_f16_gemm_rows,
    .direct = qmm_f16d_direct, /* decode reads K / V^T in place */
    .wide = &qmm_family_avx512_f32,
    .w_pack_wide = avx512_f16_w_pack_wide,
};
