/* The reference families' descriptors: one per weight type, each its plain
 * GGUF rows (qmm_ref_rows_*) and its defining product (qmm_ref_gemm_*). The
 * entry points are spelled out per type so that each has its own name. */
#include "kernels/ref/ref_kernels.h"

/* Every reference family: 1 x 1 tiles, rows packed as they are. */
#define QMM_REF_DESCRIPTOR(name_str, wt, size_fn, offset_fn, pack_fn, read_fn, unpack_fn, act_layout, gemm_fn)                   \
    {                                                                                                                            \
        .name = name_str, .wtype = wt, .layout_id = 1, .mr = 1, .nr = 1, .kr = 1, .sr = 1, .n_step = 1,                          \
        .w_packed_size = size_fn, .w_packed_offset = offset_fn, .w_pack = pack_fn, .w_read_row = read_fn,                        \
        .w_unpack_row = unpack_fn, .act = act_layout, .gemm = gemm_fn,                                                           \
    }
#define QMM_REF_ACT_Q8                                                                                                           \
    { 1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack }
#define QMM_REF_ACT_F32                                                                                                          \
    { 1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack }

static size_t ref_q4_0_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q4_0, k, n); }
static size_t ref_q4_0_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q4_0, n_idx, k); }
static void ref_q4_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q4_0, k, n0, n1, src, stride, dst);
}
static void ref_q4_0_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q4_0, w, k, row, dst);
}
static void ref_q4_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q4_0, w, k, row, dst);
}
const qmm_family qmm_family_ref_q4_0 =
    QMM_REF_DESCRIPTOR("ref_q4_0", QMM_TYPE_Q4_0, ref_q4_0_w_size, ref_q4_0_w_offset, ref_q4_0_w_pack, ref_q4_0_read_row,
                       ref_q4_0_w_unpack_row, QMM_REF_ACT_Q8, qmm_ref_gemm_q4_0);

static size_t ref_q8_0_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q8_0, k, n); }
static size_t ref_q8_0_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q8_0, n_idx, k); }
static void ref_q8_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q8_0, k, n0, n1, src, stride, dst);
}
static void ref_q8_0_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q8_0, w, k, row, dst);
}
static void ref_q8_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q8_0, w, k, row, dst);
}
const qmm_family qmm_family_ref_q8_0 =
    QMM_REF_DESCRIPTOR("ref_q8_0", QMM_TYPE_Q8_0, ref_q8_0_w_size, ref_q8_0_w_offset, ref_q8_0_w_pack, ref_q8_0_read_row,
                       ref_q8_0_w_unpack_row, QMM_REF_ACT_Q8, qmm_ref_gemm_q8_0);

static size_t ref_f32_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_F32, k, n); }
static size_t ref_f32_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_F32, n_idx, k); }
static void ref_f32_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_F32, k, n0, n1, src, stride, dst);
}
static void ref_f32_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_F32, w, k, row, dst);
}
static void ref_f32_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_F32, w, k, row, dst);
}
static void ref_f32_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_fp(QMM_TYPE_F32, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_f32 =
    QMM_REF_DESCRIPTOR("ref_f32", QMM_TYPE_F32, ref_f32_w_size, ref_f32_w_offset, ref_f32_w_pack, ref_f32_read_row,
                       ref_f32_w_unpack_row, QMM_REF_ACT_F32, ref_f32_gemm);

static size_t ref_f16_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_F16, k, n); }
static size_t ref_f16_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_F16, n_idx, k); }
static void ref_f16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_F16, k, n0, n1, src, stride, dst);
}
static void ref_f16_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_F16, w, k, row, dst);
}
static void ref_f16_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_F16, w, k, row, dst);
}
static void ref_f16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_fp(QMM_TYPE_F16, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_f16 =
    QMM_REF_DESCRIPTOR("ref_f16", QMM_TYPE_F16, ref_f16_w_size, ref_f16_w_offset, ref_f16_w_pack, ref_f16_read_row,
                       ref_f16_w_unpack_row, QMM_REF_ACT_F32, ref_f16_gemm);

static size_t ref_bf16_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_BF16, k, n); }
static size_t ref_bf16_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_BF16, n_idx, k); }
static void ref_bf16_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_BF16, k, n0, n1, src, stride, dst);
}
static void ref_bf16_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_BF16, w, k, row, dst);
}
static void ref_bf16_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_BF16, w, k, row, dst);
}
static void ref_bf16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_fp(QMM_TYPE_BF16, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_bf16 =
    QMM_REF_DESCRIPTOR("ref_bf16", QMM_TYPE_BF16, ref_bf16_w_size, ref_bf16_w_offset, ref_bf16_w_pack, ref_bf16_read_row,
                       ref_bf16_w_unpack_row, QMM_REF_ACT_F32, ref_bf16_gemm);

static size_t ref_q4_1_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q4_1, k, n); }
static size_t ref_q4_1_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q4_1, n_idx, k); }
static void ref_q4_1_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q4_1, k, n0, n1, src, stride, dst);
}
static void ref_q4_1_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q4_1, w, k, row, dst);
}
static void ref_q4_1_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q4_1, w, k, row, dst);
}
static void ref_q4_1_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q4_1, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q4_1 =
    QMM_REF_DESCRIPTOR("ref_q4_1", QMM_TYPE_Q4_1, ref_q4_1_w_size, ref_q4_1_w_offset, ref_q4_1_w_pack, ref_q4_1_read_row,
                       ref_q4_1_w_unpack_row, QMM_REF_ACT_Q8, ref_q4_1_gemm);

static size_t ref_q5_0_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q5_0, k, n); }
static size_t ref_q5_0_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q5_0, n_idx, k); }
static void ref_q5_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q5_0, k, n0, n1, src, stride, dst);
}
static void ref_q5_0_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q5_0, w, k, row, dst);
}
static void ref_q5_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q5_0, w, k, row, dst);
}
static void ref_q5_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q5_0, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q5_0 =
    QMM_REF_DESCRIPTOR("ref_q5_0", QMM_TYPE_Q5_0, ref_q5_0_w_size, ref_q5_0_w_offset, ref_q5_0_w_pack, ref_q5_0_read_row,
                       ref_q5_0_w_unpack_row, QMM_REF_ACT_Q8, ref_q5_0_gemm);

static size_t ref_q5_1_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q5_1, k, n); }
static size_t ref_q5_1_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q5_1, n_idx, k); }
static void ref_q5_1_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q5_1, k, n0, n1, src, stride, dst);
}
static void ref_q5_1_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q5_1, w, k, row, dst);
}
static void ref_q5_1_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q5_1, w, k, row, dst);
}
static void ref_q5_1_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q5_1, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q5_1 =
    QMM_REF_DESCRIPTOR("ref_q5_1", QMM_TYPE_Q5_1, ref_q5_1_w_size, ref_q5_1_w_offset, ref_q5_1_w_pack, ref_q5_1_read_row,
                       ref_q5_1_w_unpack_row, QMM_REF_ACT_Q8, ref_q5_1_gemm);

static size_t ref_q2_k_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q2_K, k, n); }
static size_t ref_q2_k_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q2_K, n_idx, k); }
static void ref_q2_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q2_K, k, n0, n1, src, stride, dst);
}
static void ref_q2_k_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q2_K, w, k, row, dst);
}
static void ref_q2_k_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q2_K, w, k, row, dst);
}
static void ref_q2_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q2_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q2_k =
    QMM_REF_DESCRIPTOR("ref_q2_k", QMM_TYPE_Q2_K, ref_q2_k_w_size, ref_q2_k_w_offset, ref_q2_k_w_pack, ref_q2_k_read_row,
                       ref_q2_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q2_k_gemm);

static size_t ref_q3_k_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q3_K, k, n); }
static size_t ref_q3_k_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q3_K, n_idx, k); }
static void ref_q3_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q3_K, k, n0, n1, src, stride, dst);
}
static void ref_q3_k_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q3_K, w, k, row, dst);
}
static void ref_q3_k_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q3_K, w, k, row, dst);
}
static void ref_q3_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q3_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q3_k =
    QMM_REF_DESCRIPTOR("ref_q3_k", QMM_TYPE_Q3_K, ref_q3_k_w_size, ref_q3_k_w_offset, ref_q3_k_w_pack, ref_q3_k_read_row,
                       ref_q3_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q3_k_gemm);

static size_t ref_q4_k_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q4_K, k, n); }
static size_t ref_q4_k_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q4_K, n_idx, k); }
static void ref_q4_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q4_K, k, n0, n1, src, stride, dst);
}
static void ref_q4_k_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q4_K, w, k, row, dst);
}
static void ref_q4_k_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q4_K, w, k, row, dst);
}
static void ref_q4_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q4_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q4_k =
    QMM_REF_DESCRIPTOR("ref_q4_k", QMM_TYPE_Q4_K, ref_q4_k_w_size, ref_q4_k_w_offset, ref_q4_k_w_pack, ref_q4_k_read_row,
                       ref_q4_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q4_k_gemm);

static size_t ref_q5_k_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q5_K, k, n); }
static size_t ref_q5_k_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q5_K, n_idx, k); }
static void ref_q5_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q5_K, k, n0, n1, src, stride, dst);
}
static void ref_q5_k_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q5_K, w, k, row, dst);
}
static void ref_q5_k_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q5_K, w, k, row, dst);
}
static void ref_q5_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q5_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q5_k =
    QMM_REF_DESCRIPTOR("ref_q5_k", QMM_TYPE_Q5_K, ref_q5_k_w_size, ref_q5_k_w_offset, ref_q5_k_w_pack, ref_q5_k_read_row,
                       ref_q5_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q5_k_gemm);

static size_t ref_q6_k_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_Q6_K, k, n); }
static size_t ref_q6_k_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_Q6_K, n_idx, k); }
static void ref_q6_k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_Q6_K, k, n0, n1, src, stride, dst);
}
static void ref_q6_k_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_Q6_K, w, k, row, dst);
}
static void ref_q6_k_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_Q6_K, w, k, row, dst);
}
static void ref_q6_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q6_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q6_k =
    QMM_REF_DESCRIPTOR("ref_q6_k", QMM_TYPE_Q6_K, ref_q6_k_w_size, ref_q6_k_w_offset, ref_q6_k_w_pack, ref_q6_k_read_row,
                       ref_q6_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q6_k_gemm);

static size_t ref_iq4_nl_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ4_NL, k, n); }
static size_t ref_iq4_nl_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ4_NL, n_idx, k); }
static void ref_iq4_nl_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ4_NL, k, n0, n1, src, stride, dst);
}
static void ref_iq4_nl_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ4_NL, w, k, row, dst);
}
static void ref_iq4_nl_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ4_NL, w, k, row, dst);
}
static void ref_iq4_nl_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ4_NL, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq4_nl =
    QMM_REF_DESCRIPTOR("ref_iq4_nl", QMM_TYPE_IQ4_NL, ref_iq4_nl_w_size, ref_iq4_nl_w_offset, ref_iq4_nl_w_pack,
                       ref_iq4_nl_read_row, ref_iq4_nl_w_unpack_row, QMM_REF_ACT_Q8, ref_iq4_nl_gemm);

static size_t ref_iq4_xs_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ4_XS, k, n); }
static size_t ref_iq4_xs_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ4_XS, n_idx, k); }
static void ref_iq4_xs_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ4_XS, k, n0, n1, src, stride, dst);
}
static void ref_iq4_xs_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ4_XS, w, k, row, dst);
}
static void ref_iq4_xs_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ4_XS, w, k, row, dst);
}
static void ref_iq4_xs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ4_XS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq4_xs =
    QMM_REF_DESCRIPTOR("ref_iq4_xs", QMM_TYPE_IQ4_XS, ref_iq4_xs_w_size, ref_iq4_xs_w_offset, ref_iq4_xs_w_pack,
                       ref_iq4_xs_read_row, ref_iq4_xs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq4_xs_gemm);

static size_t ref_mxfp4_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_MXFP4, k, n); }
static size_t ref_mxfp4_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_MXFP4, n_idx, k); }
static void ref_mxfp4_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_MXFP4, k, n0, n1, src, stride, dst);
}
static void ref_mxfp4_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_MXFP4, w, k, row, dst);
}
static void ref_mxfp4_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_MXFP4, w, k, row, dst);
}
static void ref_mxfp4_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_MXFP4, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_mxfp4 =
    QMM_REF_DESCRIPTOR("ref_mxfp4", QMM_TYPE_MXFP4, ref_mxfp4_w_size, ref_mxfp4_w_offset, ref_mxfp4_w_pack, ref_mxfp4_read_row,
                       ref_mxfp4_w_unpack_row, QMM_REF_ACT_Q8, ref_mxfp4_gemm);

static size_t ref_iq1_s_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ1_S, k, n); }
static size_t ref_iq1_s_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ1_S, n_idx, k); }
static void ref_iq1_s_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ1_S, k, n0, n1, src, stride, dst);
}
static void ref_iq1_s_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ1_S, w, k, row, dst);
}
static void ref_iq1_s_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ1_S, w, k, row, dst);
}
static void ref_iq1_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ1_S, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq1_s =
    QMM_REF_DESCRIPTOR("ref_iq1_s", QMM_TYPE_IQ1_S, ref_iq1_s_w_size, ref_iq1_s_w_offset, ref_iq1_s_w_pack, ref_iq1_s_read_row,
                       ref_iq1_s_w_unpack_row, QMM_REF_ACT_Q8, ref_iq1_s_gemm);

static size_t ref_iq1_m_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ1_M, k, n); }
static size_t ref_iq1_m_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ1_M, n_idx, k); }
static void ref_iq1_m_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ1_M, k, n0, n1, src, stride, dst);
}
static void ref_iq1_m_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ1_M, w, k, row, dst);
}
static void ref_iq1_m_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ1_M, w, k, row, dst);
}
static void ref_iq1_m_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ1_M, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq1_m =
    QMM_REF_DESCRIPTOR("ref_iq1_m", QMM_TYPE_IQ1_M, ref_iq1_m_w_size, ref_iq1_m_w_offset, ref_iq1_m_w_pack, ref_iq1_m_read_row,
                       ref_iq1_m_w_unpack_row, QMM_REF_ACT_Q8, ref_iq1_m_gemm);

static size_t ref_iq2_xxs_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ2_XXS, k, n); }
static size_t ref_iq2_xxs_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ2_XXS, n_idx, k); }
static void ref_iq2_xxs_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ2_XXS, k, n0, n1, src, stride, dst);
}
static void ref_iq2_xxs_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ2_XXS, w, k, row, dst);
}
static void ref_iq2_xxs_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ2_XXS, w, k, row, dst);
}
static void ref_iq2_xxs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ2_XXS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq2_xxs =
    QMM_REF_DESCRIPTOR("ref_iq2_xxs", QMM_TYPE_IQ2_XXS, ref_iq2_xxs_w_size, ref_iq2_xxs_w_offset, ref_iq2_xxs_w_pack,
                       ref_iq2_xxs_read_row, ref_iq2_xxs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq2_xxs_gemm);

static size_t ref_iq2_xs_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ2_XS, k, n); }
static size_t ref_iq2_xs_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ2_XS, n_idx, k); }
static void ref_iq2_xs_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ2_XS, k, n0, n1, src, stride, dst);
}
static void ref_iq2_xs_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ2_XS, w, k, row, dst);
}
static void ref_iq2_xs_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ2_XS, w, k, row, dst);
}
static void ref_iq2_xs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ2_XS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq2_xs =
    QMM_REF_DESCRIPTOR("ref_iq2_xs", QMM_TYPE_IQ2_XS, ref_iq2_xs_w_size, ref_iq2_xs_w_offset, ref_iq2_xs_w_pack,
                       ref_iq2_xs_read_row, ref_iq2_xs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq2_xs_gemm);

static size_t ref_iq2_s_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ2_S, k, n); }
static size_t ref_iq2_s_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ2_S, n_idx, k); }
static void ref_iq2_s_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ2_S, k, n0, n1, src, stride, dst);
}
static void ref_iq2_s_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ2_S, w, k, row, dst);
}
static void ref_iq2_s_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ2_S, w, k, row, dst);
}
static void ref_iq2_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ2_S, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq2_s =
    QMM_REF_DESCRIPTOR("ref_iq2_s", QMM_TYPE_IQ2_S, ref_iq2_s_w_size, ref_iq2_s_w_offset, ref_iq2_s_w_pack, ref_iq2_s_read_row,
                       ref_iq2_s_w_unpack_row, QMM_REF_ACT_Q8, ref_iq2_s_gemm);

static size_t ref_iq3_xxs_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ3_XXS, k, n); }
static size_t ref_iq3_xxs_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ3_XXS, n_idx, k); }
static void ref_iq3_xxs_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ3_XXS, k, n0, n1, src, stride, dst);
}
static void ref_iq3_xxs_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ3_XXS, w, k, row, dst);
}
static void ref_iq3_xxs_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ3_XXS, w, k, row, dst);
}
static void ref_iq3_xxs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ3_XXS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq3_xxs =
    QMM_REF_DESCRIPTOR("ref_iq3_xxs", QMM_TYPE_IQ3_XXS, ref_iq3_xxs_w_size, ref_iq3_xxs_w_offset, ref_iq3_xxs_w_pack,
                       ref_iq3_xxs_read_row, ref_iq3_xxs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq3_xxs_gemm);

static size_t ref_iq3_s_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_IQ3_S, k, n); }
static size_t ref_iq3_s_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_IQ3_S, n_idx, k); }
static void ref_iq3_s_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_IQ3_S, k, n0, n1, src, stride, dst);
}
static void ref_iq3_s_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_IQ3_S, w, k, row, dst);
}
static void ref_iq3_s_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_IQ3_S, w, k, row, dst);
}
static void ref_iq3_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ3_S, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq3_s =
    QMM_REF_DESCRIPTOR("ref_iq3_s", QMM_TYPE_IQ3_S, ref_iq3_s_w_size, ref_iq3_s_w_offset, ref_iq3_s_w_pack, ref_iq3_s_read_row,
                       ref_iq3_s_w_unpack_row, QMM_REF_ACT_Q8, ref_iq3_s_gemm);

static size_t ref_tq1_0_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_TQ1_0, k, n); }
static size_t ref_tq1_0_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_TQ1_0, n_idx, k); }
static void ref_tq1_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_TQ1_0, k, n0, n1, src, stride, dst);
}
static void ref_tq1_0_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_TQ1_0, w, k, row, dst);
}
static void ref_tq1_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_TQ1_0, w, k, row, dst);
}
static void ref_tq1_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_TQ1_0, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_tq1_0 =
    QMM_REF_DESCRIPTOR("ref_tq1_0", QMM_TYPE_TQ1_0, ref_tq1_0_w_size, ref_tq1_0_w_offset, ref_tq1_0_w_pack, ref_tq1_0_read_row,
                       ref_tq1_0_w_unpack_row, QMM_REF_ACT_Q8, ref_tq1_0_gemm);

static size_t ref_tq2_0_w_size(int64_t k, int64_t n) { return qmm_ref_rows_size(QMM_TYPE_TQ2_0, k, n); }
static size_t ref_tq2_0_w_offset(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(QMM_TYPE_TQ2_0, n_idx, k); }
static void ref_tq2_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_ref_rows_pack(QMM_TYPE_TQ2_0, k, n0, n1, src, stride, dst);
}
static void ref_tq2_0_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    qmm_ref_rows_read(QMM_TYPE_TQ2_0, w, k, row, dst);
}
static void ref_tq2_0_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_ref_rows_unpack(QMM_TYPE_TQ2_0, w, k, row, dst);
}
static void ref_tq2_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_TQ2_0, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_tq2_0 =
    QMM_REF_DESCRIPTOR("ref_tq2_0", QMM_TYPE_TQ2_0, ref_tq2_0_w_size, ref_tq2_0_w_offset, ref_tq2_0_w_pack, ref_tq2_0_read_row,
                       ref_tq2_0_w_unpack_row, QMM_REF_ACT_Q8, ref_tq2_0_gemm);
