/* IQ4_XS weights x int8 activations with AVX-512 VNNI: the table lookup of
 * avx512_table.h (vpshufb of the nibbles into level + 128, vpdpbusd from the
 * -128 sum(q_x) bias). */
#include "kernels/x86/avx512_gemm.h"
#include "kernels/x86/avx512_table.h"

static size_t avx512vnni_iq4_xs_w_size(int64_t k, int64_t n) { return qmm_avx512t_w_size(QMM_AVX512T_IQ4_XS, k, n); }
static size_t avx512vnni_iq4_xs_w_offset(int64_t n_idx, int64_t k) { return qmm_avx512t_w_offset(QMM_AVX512T_IQ4_XS, n_idx, k); }
static void avx512vnni_iq4_xs_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512t_w_pack(QMM_AVX512T_IQ4_XS, k, n, n0, n1, src, stride, dst);
}
static void avx512vnni_iq4_xs_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_avx512t_w_unpack_row(QMM_AVX512T_IQ4_XS, QMM_TYPE_IQ4_XS, packed, k, row, dst);
}
static void avx512vnni_iq4_xs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512_gemm(QMM_AVX512_PANELS_T, QMM_AVX512T_IQ4_XS, 0, m, n, k, a, w, y, ys);
}
static void avx512vnni_iq4_xs_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512t_gemv(QMM_AVX512T_IQ4_XS, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_iq4_xs = {
    .name = "avx512vnni_iq4_xs",
    .wtype = QMM_TYPE_IQ4_XS,
    .layout_id = 1,
    QMM_AVX512_VNNI_GEOMETRY,
    .w_packed_size = avx512vnni_iq4_xs_w_size,
    .w_packed_offset = avx512vnni_iq4_xs_w_offset,
    .w_pack = avx512vnni_iq4_xs_w_pack,
    .w_unpack_row = avx512vnni_iq4_xs_w_unpack_row,
    .act = QMM_AVX512_ACT8_ZP128,
    .act_gemv = QMM_AVX512_ACT1_ZP128,
    .gemm = avx512vnni_iq4_xs_gemm,
    .gemv = avx512vnni_iq4_xs_gemv,
};
