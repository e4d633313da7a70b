/* BF16 weights x fp32 activations with NEON fmla: 16 weight rows x up to 4 activation rows per tile.
 *
 * As neon_f16 (layout and tile in neon_fp_body.h), with the panel kept in BF16 and widened to fp32 by ushll #16
 * (the bf16 bits are the top half of the fp32 ones: exact, NaN payloads kept); all arithmetic is F32's. */
#include "kernels/arm/neon_fp_body.h"

static size_t neon_bf16_w_size(int64_t k, int64_t n) { return qmm_neonfp_w_size(QMM_TYPE_BF16, k, n); }
static size_t neon_bf16_w_offset(int64_t n_idx, int64_t k) { return qmm_neonfp_w_offset(QMM_TYPE_BF16, n_idx, k); }
static void neon_bf16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_neonfp_w_pack(QMM_TYPE_BF16, k, n, n0, n1, src, stride, dst);
}
static void neon_bf16_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_neonfp_w_unpack_row(QMM_TYPE_BF16, packed, k, row, dst);
}
static void neon_bf16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_neonfp_gemm(QMM_TYPE_BF16, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_neon_bf16 = QMM_NEONFP_DESCRIPTOR("neon_bf16", QMM_TYPE_BF16, neon_bf16_w_size, neon_bf16_w_offset,
                                                              neon_bf16_w_pack, neon_bf16_w_unpack_row, neon_bf16_gemm);
