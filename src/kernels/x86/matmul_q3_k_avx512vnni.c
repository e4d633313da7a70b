/* Q3_K weights x int8 activations with AVX-512 VNNI (vpdpbusd): the x-family
 * tiles of avx512_int8.h on the Q3_K panels of avx512x_units.h. */
#include "kernels/x86/avx512_gemm.h"
#include "kernels/x86/avx512x_units.h"

static size_t avx512vnni_q3_k_w_size(int64_t k, int64_t n) { return qmm_avx512x_w_size(QMM_AVX512X_Q3_K, k, n); }
static size_t avx512vnni_q3_k_w_offset(int64_t n_idx, int64_t k) { return qmm_avx512x_w_offset(QMM_AVX512X_Q3_K, n_idx, k); }
static void avx512vnni_q3_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512x_w_pack(QMM_AVX512X_Q3_K, k, n, n0, n1, src, stride, dst, qmm_avx512x_put_q3_k);
}
static void avx512vnni_q3_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_avx512x_w_unpack_row(QMM_AVX512X_Q3_K, packed, k, row, dst, qmm_avx512x_get_q3_k);
}
static void avx512vnni_q3_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512_gemm(QMM_AVX512_PANELS_X, QMM_AVX512X_Q3_K, 0, m, n, k, a, w, y, ys);
}
static void avx512vnni_q3_k_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512x_gemv(QMM_AVX512X_Q3_K, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_q3_k = {
    .name = "avx512vnni_q3_k",
    .wtype = QMM_TYPE_Q3_K,
    .layout_id = 1,
    QMM_AVX512_VNNI_GEOMETRY,
    .w_packed_size = avx512vnni_q3_k_w_size,
    .w_packed_offset = avx512vnni_q3_k_w_offset,
    .w_pack = avx512vnni_q3_k_w_pack,
    .w_unpack_row = avx512vnni_q3_k_w_unpack_row,
    .act = QMM_AVX512X_ACT8,
    .act_gemv = QMM_AVX512X_ACT1,
    .gemm = avx512vnni_q3_k_gemm,
    .gemv = avx512vnni_q3_k_gemv,
};
