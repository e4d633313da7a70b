/* The reference families' descriptors: one per weight type, each its plain
 * GGUF rows (qmm_ref_rows_*) and its defining product (qmm_ref_gemm_*). Each
 * type's entry points have names of their own (ref_<type>_w_pack, ...),
 * defined by QMM_REF_ROWS_ENTRIES with the full names spelled out. */
#include "kernels/ref/ref_kernels.h"

/* The four plain-row entry points of weight type `wt`, named by the caller. */
#define QMM_REF_ROWS_ENTRIES(wt, size_fn, offset_fn, pack_fn, unpack_fn)                                                         \
    static size_t size_fn(int64_t k, int64_t n) { return qmm_ref_rows_size(wt, k, n); }                                          \
    static size_t offset_fn(int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(wt, n_idx, k); }                              \
    static void pack_fn(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {               \
        (void)n;                                                                                                                 \
        qmm_ref_rows_pack(wt, k, n0, n1, src, stride, dst);                                                                      \
    }                                                                                                                            \
    static void unpack_fn(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {                                         \
        (void)n;                                                                                                                 \
        qmm_ref_rows_unpack(wt, w, k, row, dst);                                                                                 \
    }

/* Every reference family: 1 x 1 tiles, rows packed as they are. */
#define QMM_REF_DESCRIPTOR(name_str, wt, size_fn, offset_fn, pack_fn, unpack_fn, act_layout, gemm_fn)                            \
    {                                                                                                                            \
        .name = name_str, .wtype = wt, .layout_id = 1, .mr = 1, .nr = 1, .kr = 1, .sr = 1, .n_step = 1,                          \
        .w_packed_size = size_fn, .w_packed_offset = offset_fn, .w_pack = pack_fn, .w_unpack_row = unpack_fn, .act = act_layout, \
        .gemm = gemm_fn,                                                                                                         \
    }
#define QMM_REF_ACT_Q8                                                                                                           \
    { 1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack }
#define QMM_REF_ACT_F32                                                                                                          \
    { 1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack }

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q4_0, ref_q4_0_w_size, ref_q4_0_w_offset, ref_q4_0_w_pack, ref_q4_0_w_unpack_row)
const qmm_family qmm_family_ref_q4_0 =
    QMM_REF_DESCRIPTOR("ref_q4_0", QMM_TYPE_Q4_0, ref_q4_0_w_size, ref_q4_0_w_offset, ref_q4_0_w_pack, ref_q4_0_w_unpack_row,
                       QMM_REF_ACT_Q8, qmm_ref_gemm_q4_0);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q8_0, ref_q8_0_w_size, ref_q8_0_w_offset, ref_q8_0_w_pack, ref_q8_0_w_unpack_row)
const qmm_family qmm_family_ref_q8_0 =
    QMM_REF_DESCRIPTOR("ref_q8_0", QMM_TYPE_Q8_0, ref_q8_0_w_size, ref_q8_0_w_offset, ref_q8_0_w_pack, ref_q8_0_w_unpack_row,
                       QMM_REF_ACT_Q8, qmm_ref_gemm_q8_0);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_F32, ref_f32_w_size, ref_f32_w_offset, ref_f32_w_pack, ref_f32_w_unpack_row)
static void ref_f32_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_fp(QMM_TYPE_F32, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_f32 = QMM_REF_DESCRIPTOR("ref_f32", QMM_TYPE_F32, ref_f32_w_size, ref_f32_w_offset,
                                                         ref_f32_w_pack, ref_f32_w_unpack_row, QMM_REF_ACT_F32, ref_f32_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_F16, ref_f16_w_size, ref_f16_w_offset, ref_f16_w_pack, ref_f16_w_unpack_row)
static void ref_f16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_fp(QMM_TYPE_F16, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_f16 = QMM_REF_DESCRIPTOR("ref_f16", QMM_TYPE_F16, ref_f16_w_size, ref_f16_w_offset,
                                                         ref_f16_w_pack, ref_f16_w_unpack_row, QMM_REF_ACT_F32, ref_f16_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_BF16, ref_bf16_w_size, ref_bf16_w_offset, ref_bf16_w_pack, ref_bf16_w_unpack_row)
static void ref_bf16_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_fp(QMM_TYPE_BF16, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_bf16 = QMM_REF_DESCRIPTOR("ref_bf16", QMM_TYPE_BF16, ref_bf16_w_size, ref_bf16_w_offset,
                                                          ref_bf16_w_pack, ref_bf16_w_unpack_row, QMM_REF_ACT_F32, ref_bf16_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q4_1, ref_q4_1_w_size, ref_q4_1_w_offset, ref_q4_1_w_pack, ref_q4_1_w_unpack_row)
static void ref_q4_1_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q4_1, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q4_1 = QMM_REF_DESCRIPTOR("ref_q4_1", QMM_TYPE_Q4_1, ref_q4_1_w_size, ref_q4_1_w_offset,
                                                          ref_q4_1_w_pack, ref_q4_1_w_unpack_row, QMM_REF_ACT_Q8, ref_q4_1_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q5_0, ref_q5_0_w_size, ref_q5_0_w_offset, ref_q5_0_w_pack, ref_q5_0_w_unpack_row)
static void ref_q5_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q5_0, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q5_0 = QMM_REF_DESCRIPTOR("ref_q5_0", QMM_TYPE_Q5_0, ref_q5_0_w_size, ref_q5_0_w_offset,
                                                          ref_q5_0_w_pack, ref_q5_0_w_unpack_row, QMM_REF_ACT_Q8, ref_q5_0_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q5_1, ref_q5_1_w_size, ref_q5_1_w_offset, ref_q5_1_w_pack, ref_q5_1_w_unpack_row)
static void ref_q5_1_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q5_1, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q5_1 = QMM_REF_DESCRIPTOR("ref_q5_1", QMM_TYPE_Q5_1, ref_q5_1_w_size, ref_q5_1_w_offset,
                                                          ref_q5_1_w_pack, ref_q5_1_w_unpack_row, QMM_REF_ACT_Q8, ref_q5_1_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q2_K, ref_q2_k_w_size, ref_q2_k_w_offset, ref_q2_k_w_pack, ref_q2_k_w_unpack_row)
static void ref_q2_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q2_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q2_k = QMM_REF_DESCRIPTOR("ref_q2_k", QMM_TYPE_Q2_K, ref_q2_k_w_size, ref_q2_k_w_offset,
                                                          ref_q2_k_w_pack, ref_q2_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q2_k_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q3_K, ref_q3_k_w_size, ref_q3_k_w_offset, ref_q3_k_w_pack, ref_q3_k_w_unpack_row)
static void ref_q3_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q3_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q3_k = QMM_REF_DESCRIPTOR("ref_q3_k", QMM_TYPE_Q3_K, ref_q3_k_w_size, ref_q3_k_w_offset,
                                                          ref_q3_k_w_pack, ref_q3_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q3_k_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q4_K, ref_q4_k_w_size, ref_q4_k_w_offset, ref_q4_k_w_pack, ref_q4_k_w_unpack_row)
static void ref_q4_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q4_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q4_k = QMM_REF_DESCRIPTOR("ref_q4_k", QMM_TYPE_Q4_K, ref_q4_k_w_size, ref_q4_k_w_offset,
                                                          ref_q4_k_w_pack, ref_q4_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q4_k_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q5_K, ref_q5_k_w_size, ref_q5_k_w_offset, ref_q5_k_w_pack, ref_q5_k_w_unpack_row)
static void ref_q5_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q5_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q5_k = QMM_REF_DESCRIPTOR("ref_q5_k", QMM_TYPE_Q5_K, ref_q5_k_w_size, ref_q5_k_w_offset,
                                                          ref_q5_k_w_pack, ref_q5_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q5_k_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_Q6_K, ref_q6_k_w_size, ref_q6_k_w_offset, ref_q6_k_w_pack, ref_q6_k_w_unpack_row)
static void ref_q6_k_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_Q6_K, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_q6_k = QMM_REF_DESCRIPTOR("ref_q6_k", QMM_TYPE_Q6_K, ref_q6_k_w_size, ref_q6_k_w_offset,
                                                          ref_q6_k_w_pack, ref_q6_k_w_unpack_row, QMM_REF_ACT_Q8, ref_q6_k_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ4_NL, ref_iq4_nl_w_size, ref_iq4_nl_w_offset, ref_iq4_nl_w_pack, ref_iq4_nl_w_unpack_row)
static void ref_iq4_nl_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ4_NL, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq4_nl =
    QMM_REF_DESCRIPTOR("ref_iq4_nl", QMM_TYPE_IQ4_NL, ref_iq4_nl_w_size, ref_iq4_nl_w_offset, ref_iq4_nl_w_pack,
                       ref_iq4_nl_w_unpack_row, QMM_REF_ACT_Q8, ref_iq4_nl_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ4_XS, ref_iq4_xs_w_size, ref_iq4_xs_w_offset, ref_iq4_xs_w_pack, ref_iq4_xs_w_unpack_row)
static void ref_iq4_xs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ4_XS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq4_xs =
    QMM_REF_DESCRIPTOR("ref_iq4_xs", QMM_TYPE_IQ4_XS, ref_iq4_xs_w_size, ref_iq4_xs_w_offset, ref_iq4_xs_w_pack,
                       ref_iq4_xs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq4_xs_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_MXFP4, ref_mxfp4_w_size, ref_mxfp4_w_offset, ref_mxfp4_w_pack, ref_mxfp4_w_unpack_row)
static void ref_mxfp4_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_MXFP4, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_mxfp4 =
    QMM_REF_DESCRIPTOR("ref_mxfp4", QMM_TYPE_MXFP4, ref_mxfp4_w_size, ref_mxfp4_w_offset, ref_mxfp4_w_pack,
                       ref_mxfp4_w_unpack_row, QMM_REF_ACT_Q8, ref_mxfp4_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ1_S, ref_iq1_s_w_size, ref_iq1_s_w_offset, ref_iq1_s_w_pack, ref_iq1_s_w_unpack_row)
static void ref_iq1_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ1_S, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq1_s =
    QMM_REF_DESCRIPTOR("ref_iq1_s", QMM_TYPE_IQ1_S, ref_iq1_s_w_size, ref_iq1_s_w_offset, ref_iq1_s_w_pack,
                       ref_iq1_s_w_unpack_row, QMM_REF_ACT_Q8, ref_iq1_s_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ1_M, ref_iq1_m_w_size, ref_iq1_m_w_offset, ref_iq1_m_w_pack, ref_iq1_m_w_unpack_row)
static void ref_iq1_m_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ1_M, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq1_m =
    QMM_REF_DESCRIPTOR("ref_iq1_m", QMM_TYPE_IQ1_M, ref_iq1_m_w_size, ref_iq1_m_w_offset, ref_iq1_m_w_pack,
                       ref_iq1_m_w_unpack_row, QMM_REF_ACT_Q8, ref_iq1_m_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ2_XXS, ref_iq2_xxs_w_size, ref_iq2_xxs_w_offset, ref_iq2_xxs_w_pack, ref_iq2_xxs_w_unpack_row)
static void ref_iq2_xxs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ2_XXS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq2_xxs =
    QMM_REF_DESCRIPTOR("ref_iq2_xxs", QMM_TYPE_IQ2_XXS, ref_iq2_xxs_w_size, ref_iq2_xxs_w_offset, ref_iq2_xxs_w_pack,
                       ref_iq2_xxs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq2_xxs_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ2_XS, ref_iq2_xs_w_size, ref_iq2_xs_w_offset, ref_iq2_xs_w_pack, ref_iq2_xs_w_unpack_row)
static void ref_iq2_xs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ2_XS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq2_xs =
    QMM_REF_DESCRIPTOR("ref_iq2_xs", QMM_TYPE_IQ2_XS, ref_iq2_xs_w_size, ref_iq2_xs_w_offset, ref_iq2_xs_w_pack,
                       ref_iq2_xs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq2_xs_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ2_S, ref_iq2_s_w_size, ref_iq2_s_w_offset, ref_iq2_s_w_pack, ref_iq2_s_w_unpack_row)
static void ref_iq2_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ2_S, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq2_s =
    QMM_REF_DESCRIPTOR("ref_iq2_s", QMM_TYPE_IQ2_S, ref_iq2_s_w_size, ref_iq2_s_w_offset, ref_iq2_s_w_pack,
                       ref_iq2_s_w_unpack_row, QMM_REF_ACT_Q8, ref_iq2_s_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ3_XXS, ref_iq3_xxs_w_size, ref_iq3_xxs_w_offset, ref_iq3_xxs_w_pack, ref_iq3_xxs_w_unpack_row)
static void ref_iq3_xxs_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ3_XXS, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq3_xxs =
    QMM_REF_DESCRIPTOR("ref_iq3_xxs", QMM_TYPE_IQ3_XXS, ref_iq3_xxs_w_size, ref_iq3_xxs_w_offset, ref_iq3_xxs_w_pack,
                       ref_iq3_xxs_w_unpack_row, QMM_REF_ACT_Q8, ref_iq3_xxs_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_IQ3_S, ref_iq3_s_w_size, ref_iq3_s_w_offset, ref_iq3_s_w_pack, ref_iq3_s_w_unpack_row)
static void ref_iq3_s_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_IQ3_S, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_iq3_s =
    QMM_REF_DESCRIPTOR("ref_iq3_s", QMM_TYPE_IQ3_S, ref_iq3_s_w_size, ref_iq3_s_w_offset, ref_iq3_s_w_pack,
                       ref_iq3_s_w_unpack_row, QMM_REF_ACT_Q8, ref_iq3_s_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_TQ1_0, ref_tq1_0_w_size, ref_tq1_0_w_offset, ref_tq1_0_w_pack, ref_tq1_0_w_unpack_row)
static void ref_tq1_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_TQ1_0, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_tq1_0 =
    QMM_REF_DESCRIPTOR("ref_tq1_0", QMM_TYPE_TQ1_0, ref_tq1_0_w_size, ref_tq1_0_w_offset, ref_tq1_0_w_pack,
                       ref_tq1_0_w_unpack_row, QMM_REF_ACT_Q8, ref_tq1_0_gemm);

QMM_REF_ROWS_ENTRIES(QMM_TYPE_TQ2_0, ref_tq2_0_w_size, ref_tq2_0_w_offset, ref_tq2_0_w_pack, ref_tq2_0_w_unpack_row)
static void ref_tq2_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_ref_gemm_quant(QMM_TYPE_TQ2_0, m, n, k, a, w, y, ys);
}
const qmm_family qmm_family_ref_tq2_0 =
    QMM_REF_DESCRIPTOR("ref_tq2_0", QMM_TYPE_TQ2_0, ref_tq2_0_w_size, ref_tq2_0_w_offset, ref_tq2_0_w_pack,
                       ref_tq2_0_w_unpack_row, QMM_REF_ACT_Q8, ref_tq2_0_gemm);
