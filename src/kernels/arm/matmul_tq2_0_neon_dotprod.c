/* TQ2_0 x int8 activations with sdot (Armv8.2 dotprod): ROWS4 images, one activation row per sdot chain. Weights: plain GGUF rows
 * (qmm_ref_rows_*), n_step 4; the GEMM expands each 4-row panel's levels once per call into an L1 scratch and runs every
 * activation group over it. Layout, expansion and numerics: iq_grid_neon.h. */
#include "kernels/arm/iq_grid_neon.h"

static size_t neon_dotprod_tq2_0_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_TQ2_0, k, n); }
static size_t neon_dotprod_tq2_0_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_TQ2_0, n_idx, k); }
static void neon_dotprod_tq2_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_TQ2_0, k, n0, n1, src, stride, dst);
}
static void neon_dotprod_tq2_0_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_TQ2_0, packed, k, row, dst);
}
static size_t neon_dotprod_tq2_0_act_size(int64_t m, int64_t k) { return qmm_iqn_act_size(m, k); }
static size_t neon_dotprod_tq2_0_act_offset(int64_t m_idx, int64_t k) { return qmm_iqn_act_offset(m_idx, k); }
static void neon_dotprod_tq2_0_act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_iqn_act_pack(QMM_NEON_ROWS4, m, k, x, xs, dst);
}
static void neon_dotprod_tq2_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_iqn_gemm(QMM_TYPE_TQ2_0, QMM_NEON_ROWS4, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_neon_dotprod_tq2_0 =
    QMM_NEON_FAMILY("neon_dotprod_tq2_0", QMM_TYPE_TQ2_0, QMM_NEON_ROWS4, neon_dotprod_tq2_0_w_size, neon_dotprod_tq2_0_w_offset,
                    neon_dotprod_tq2_0_w_pack, neon_dotprod_tq2_0_w_unpack_row, neon_dotprod_tq2_0_act_size,
                    neon_dotprod_tq2_0_act_offset, neon_dotprod_tq2_0_act_pack, neon_dotprod_tq2_0_gemm);
