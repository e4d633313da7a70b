/* F16 weights x fp32 activations, AVX2 + FMA + F16C: the panel keeps F16
 * (half the bytes of F32 for the memory-bound GEMV), widened exactly by
 * vcvtph2ps at use. Layout and tiles in avx2_fp_body.h. */
#include <stdatomic.h>

#include "kernels/fp_attention.h"
#include "kernels/x86/avx2_f16_direct.h"
#include "kernels/x86/avx2_fp_body.h"

/* The widened panel's thread-local copy of the AVX2 F16 and BF16 GEMMs. */
_Thread_local float qmm_avx2fp_wide[QMM_AVX2FP_WIDE_MAX_K * 16] __attribute__((aligned(32)));

static atomic_int avx2fp_widen_forced = -1;
static atomic_int avx2fp_widen_told = 1; /* dispatch's answer (src/registry/dispatch.c) */

int qmm_avx2fp_widen_copy(void) {
    const int forced = atomic_load_explicit(&avx2fp_widen_forced, memory_order_relaxed);
    return forced >= 0 ? forced : atomic_load_explicit(&avx2fp_widen_told, memory_order_relaxed);
}

void qmm_avx2fp_set_widen_copy(int on) { atomic_store_explicit(&avx2fp_widen_told, on != 0, memory_order_relaxed); }

void qmm_avx2fp_force_widen_copy(int mode) {
    atomic_store_explicit(&avx2fp_widen_forced, mode < 0 ? -1 : mode != 0, memory_order_relaxed);
}

static size_t avx2_f16_w_size(int64_t k, int64_t n) { return qmm_avx2fp_w_size(QMM_TYPE_F16, k, n); }
static size_t avx2_f16_w_offset(int64_t n_idx, int64_t k) { return qmm_avx2fp_w_offset(QMM_TYPE_F16, n_idx, k); }
static void avx2_f16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx2fp_w_pack(QMM_TYPE_F16, k, n, n0, n1, src, stride, dst);
}
static void avx2_f16_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2fp_w_unpack_row(QMM_TYPE_F16, w, k, row, dst);
}
static void avx2_f16_gemm_x(int64_t m, int64_t n, int64_t k, const float *x, size_t xr, const void *w, float *y, size_t ys) {
    qmm_avx2fp_gemm_x(QMM_TYPE_F16, m, n, k, x, xr, w, y, ys);
}
static void avx2_f16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    avx2_f16_gemm_x(m, n, k, (const float *)a, (size_t)k, w, y, ys);
}
static void avx2_f16_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t ys) {
    avx2_f16_gemm_x(m, n, k, x, xs / sizeof(float), w, y, ys);
}
static void avx2_f16_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx2fp_gemv(QMM_TYPE_F16, n, k, a, w, y);
}
/* prefill of qmm_mul_mat_f16: the weights widened once into avx2_f32's panels (the same layout) */
static void avx2_f16_w_pack_wide(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_x86fp_pack16_wide(k, n, n0, n1, src, stride, dst);
}

const qmm_family qmm_family_avx2_f16 =
    QMM_AVX2FP_DESCRIPTOR("avx2_f16", QMM_TYPE_F16, QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C, avx2_f16_w_size, avx2_f16_w_offset,
                          avx2_f16_w_pack, avx2_f16_w_unpack_row, avx2_f16_gemm, avx2_f16_gemv);

extern const qmm_family qmm_family_avx2_f32;
const qmm_fp_attention qmm_fp_attention_avx2_f16 = {
    .family = &qmm_family_avx2_f16,
    .gemm_rows = avx2_f16_gemm_rows,
    .direct = qmm_f16d2_direct, /* decode reads K / V^T in place */
    .wide = &qmm_family_avx2_f32,
    .w_pack_wide = avx2_f16_w_pack_wide,
    .widen_once = qmm_avx2fp_widen_copy, /* the GEMM's copy and exec's `wide` follow dispatch's answer */
};
