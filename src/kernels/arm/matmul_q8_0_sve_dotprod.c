/* Q8_0 x int8 activations with SVE SDOT, vector-length agnostic (128 to
 * 2048 bits): lanes are weight rows of a 16-row panel (sve_sme_layout.h),
 * each activation's 4-byte group is broadcast, 4 activation rows share the
 * weight loads. Activations: the reference layout. */

#include "kernels/arm/sve_sme_int8_body.h"

static size_t sve_dotprod_q8_0_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND_Q8_0, k, n); }
static size_t sve_dotprod_q8_0_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND_Q8_0, n_idx, k); }
static void sve_dotprod_q8_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_svesme_w_pack(QMM_SVESME_KIND_Q8_0, k, n, n0, n1, src, stride, dst);
}
static void sve_dotprod_q8_0_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_svesme_w_unpack_row(QMM_SVESME_KIND_Q8_0, packed, k, n, row, dst);
}
static void sve_dotprod_q8_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    svesme_dot_gemm(QMM_SVESME_KIND_Q8_0, m, n, k, a, w, y, ys);
}

const qmm_family qmm_family_sve_dotprod_q8_0 =
    QMM_SVESME_DOT_FAMILY("sve_dotprod_q8_0", QMM_TYPE_Q8_0, sve_dotprod_q8_0_w_size, sve_dotprod_q8_0_w_offset,
                          sve_dotprod_q8_0_w_pack, sve_dotprod_q8_0_w_unpack_row, sve_dotprod_q8_0_gemm);
