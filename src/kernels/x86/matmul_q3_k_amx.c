/* Q3_K weights x int8 activations with AMX (TDPBSSD): the AMX GEMM of
 * amx_int8.h on the Q3_K panels of avx512x_units.h (GEMV and GET_ROWS as the
 * AVX-512 VNNI family's). */
#include "kernels/x86/amx_int8.h"
#include "kernels/x86/avx512x_units.h"

static size_t amx_q3_k_w_size(int64_t k, int64_t n) { return qmm_avx512x_w_size(QMM_AVX512X_Q3_K, k, n); }
static size_t amx_q3_k_w_offset(int64_t n_idx, int64_t k) { return qmm_avx512x_w_offset(QMM_AVX512X_Q3_K, n_idx, k); }
static void amx_q3_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512x_w_pack(QMM_AVX512X_Q3_K, k, n, n0, n1, src, stride, dst, qmm_avx512x_put_q3_k);
}
static void amx_q3_k_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_avx512x_w_unpack_row(QMM_AVX512X_Q3_K, packed, k, row, dst, qmm_avx512x_get_q3_k);
}
static void amx_q3_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_amx_x_gemm(QMM_AVX512X_Q3_K, m, n, k, a, w, y, ys);
}
static void amx_q3_k_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512x_gemv(QMM_AVX512X_Q3_K, n, k, a, w, y);
}

const qmm_family qmm_family_amx_q3_k = {
    .name = "amx_q3_k",
    .wtype = QMM_TYPE_Q3_K,
    .layout_id = 1,
    QMM_AMX_GEOMETRY,
    .w_packed_size = amx_q3_k_w_size,
    .w_packed_offset = amx_q3_k_w_offset,
    .w_pack = amx_q3_k_w_pack,
    .w_unpack_row = amx_q3_k_w_unpack_row,
    .act = QMM_AMX_ACT,
    .act_gemv = QMM_AVX512X_ACT1,
    .gemm = amx_q3_k_gemm,
    .gemv = amx_q3_k_gemv,
};
