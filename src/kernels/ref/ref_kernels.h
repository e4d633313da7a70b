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
extern const qmm_family qmm_family_ref_iq1_s;
extern const qmm_family qmm_family_ref_iq1_m;
extern const qmm_family qmm_family_ref_iq2_xxs;
extern const qmm_family qmm_family_ref_iq2_xs;
extern const qmm_family qmm_family_ref_iq2_s;
extern const qmm_family qmm_family_ref_iq3_xxs;
extern const qmm_family qmm_family_ref_iq3_s;
extern const qmm_family qmm_family_ref_tq1_0;
extern const qmm_family qmm_family_ref_tq2_0;
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

/* The plain-row weight layout every reference family packs (the GGUF rows
 * as they are, qmm_row_size(type, k) bytes each), for weight type t. */
size_t qmm_ref_rows_size(qmm_type t, int64_t k, int64_t n);
size_t qmm_ref_rows_offset(qmm_type t, int64_t n_idx, int64_t k);
void qmm_ref_rows_pack(qmm_type t, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst);
void qmm_ref_rows_unpack(qmm_type t, const void *packed, int64_t k, int64_t row, void *dst);

/* The defining products on plain rows: Q4_0, Q8_0 and the float types
 * (ref_kernels.c); every other quantized type (ref_quant_kernels.c). */
void qmm_ref_gemm_q4_0(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys);
void qmm_ref_gemm_q8_0(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys);
void qmm_ref_gemm_fp(qmm_type t, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys);
void qmm_ref_gemm_quant(qmm_type t, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys);

#endif
