/* The portable reference families: the oracle every SIMD family is tested
 * against bit for bit, and the fallback of last resort. Their packed layout
 * is the plain GGUF rows; their activation layouts are the reference ones. */
#ifndef QMM_REF_KERNELS_H
#define QMM_REF_KERNELS_H

#include "kernels/family.h"

extern const qmm_family qmm_family_ref_q4_0;
extern const qmm_family qmm_family_ref_q8_0;
extern const qmm_family qmm_family_ref_f32;
extern const qmm_family qmm_family_ref_f16;
/* ref_quant_kernels.c */
extern const qmm_family qmm_family_ref_q4_1;
extern const qmm_family qmm_family_ref_q5_0;
extern const qmm_family qmm_family_ref_q5_1;
extern const qmm_family qmm_family_ref_q2_k;
extern const qmm_family qmm_family_ref_q3_k;
extern const qmm_family qmm_family_ref_q4_k;
extern const qmm_family qmm_family_ref_q5_k;
extern const qmm_family qmm_family_ref_q6_k;
extern const qmm_family qmm_family_ref_iq4_nl;
extern const qmm_family qmm_family_ref_iq4_xs;
extern const qmm_family qmm_family_ref_mxfp4;
extern const qmm_family qmm_family_ref_bf16; /* ref_kernels.c */

/* Reference int8 activation layout (rows of qmm_act_block), reusable by
 * families that consume it. */
size_t qmm_ref_act_q8_size(int64_t m, int64_t k);
size_t qmm_ref_act_q8_offset(int64_t m_idx, int64_t k);
void qmm_ref_act_q8_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst);

/* Reference fp32 activation layout (contiguous rows of k floats). */
size_t qmm_ref_act_f32_size(int64_t m, int64_t k);
size_t qmm_ref_act_f32_offset(int64_t m_idx, int64_t k);
void qmm_ref_act_f32_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst);

/* The plain-row weight layout of every reference family (the GGUF rows as
 * they are) and the descriptor; a family file defines tag##_read_row and
 * tag##_gemm, then invokes REF_FAMILY. */
#include <string.h>

#define REF_WEIGHTS(tag, row_bytes_expr)                                                                                         \
    static size_t tag##_row_bytes(int64_t k) { return (size_t)(row_bytes_expr); }                                                \
    static size_t tag##_w_size(int64_t k, int64_t n) { return tag##_row_bytes(k) * (size_t)n; }                                  \
    static size_t tag##_w_offset(int64_t n_idx, int64_t k) { return tag##_row_bytes(k) * (size_t)n_idx; }                        \
    static void tag##_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {          \
        (void)n;                                                                                                                 \
        const size_t rb = tag##_row_bytes(k);                                                                                    \
        for (int64_t i = n0; i < n1; i++)                                                                                        \
            memcpy((char *)dst + (size_t)i * rb, (const char *)src + (size_t)i * stride, rb);                                    \
    }                                                                                                                            \
    static void tag##_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {                           \
        (void)n;                                                                                                                 \
        memcpy(dst, (const char *)packed + (size_t)row * tag##_row_bytes(k), tag##_row_bytes(k));                                \
    }

#define REF_ACT_Q8                                                                                                               \
    { 1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack }
#define REF_ACT_F32                                                                                                              \
    { 1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack }

#define REF_FAMILY(tag, wt, act_layout)                                                                                          \
    const qmm_family qmm_family_ref_##tag = {                                                                                    \
        .name = "ref_" #tag,                                                                                                     \
        .wtype = wt,                                                                                                             \
        .required = 0,                                                                                                           \
        .fallback_hides = 0,                                                                                                     \
        .flags = 0,                                                                                                              \
        .layout_id = 1,                                                                                                          \
        .mr = 1,                                                                                                                 \
        .nr = 1,                                                                                                                 \
        .kr = 1,                                                                                                                 \
        .sr = 1,                                                                                                                 \
        .n_step = 1,                                                                                                             \
        .w_packed_size = tag##_w_size,                                                                                           \
        .w_packed_offset = tag##_w_offset,                                                                                       \
        .w_pack = tag##_w_pack,                                                                                                  \
        .w_read_row = tag##_read_row,                                                                                            \
        .w_unpack_row = tag##_w_unpack_row,                                                                                      \
        .act = act_layout,                                                                                                       \
        .act_gemv = {0, NULL, NULL, NULL},                                                                                       \
        .gemm = tag##_gemm,                                                                                                      \
        .gemv = NULL,                                                                                                            \
    };

#endif
