/* MXFP4 x int8 activations with SVE SMMLA (i8mm), vector-length agnostic:
 * Q4_0's row-pair panels with the GGUF nibbles kept, TBL turning them into
 * the int8 levels; see sve_i8mm_body.h for the lane order and why the
 * numerics are the reference's. */
#include <arm_sve.h>

#include "kernels/arm/sve_i8mm_body.h"

static size_t sve_i8mm_mxfp4_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_MXFP4, k, n); }
static size_t sve_i8mm_mxfp4_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_MXFP4, n_idx, k); }
static void sve_i8mm_mxfp4_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    svei8mm_w_pack(QMM_SVESME_KIND_MXFP4, k, n, n0, n1, src, stride, dst);
}
static void sve_i8mm_mxfp4_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    svei8mm_w_unpack_row(QMM_SVESME_KIND_MXFP4, packed, k, row, dst);
}
static size_t sve_i8mm_mxfp4_act_size(int64_t m, int64_t k) { return svei8mm_act_size(QMM_SVESME_KIND_MXFP4, m, k); }
static size_t sve_i8mm_mxfp4_act_offset(int64_t m_idx, int64_t k) { return svei8mm_act_offset(QMM_SVESME_KIND_MXFP4, m_idx, k); }
static void sve_i8mm_mxfp4_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    svei8mm_act_pack(QMM_SVESME_KIND_MXFP4, m, k, x, x_row_stride, dst);
}
static void sve_i8mm_mxfp4_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    svei8mm_gemm(QMM_SVESME_KIND_MXFP4, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_sve_i8mm_mxfp4 =
    QMM_SVEI8MM_FAMILY("sve_i8mm_mxfp4", QMM_TYPE_MXFP4, sve_i8mm_mxfp4_w_size, sve_i8mm_mxfp4_w_offset, sve_i8mm_mxfp4_w_pack,
                       sve_i8mm_mxfp4_w_unpack_row, sve_i8mm_mxfp4_act_size, sve_i8mm_mxfp4_act_offset, sve_i8mm_mxfp4_act_pack,
                       sve_i8mm_mxfp4_gemm);
