/* The portable reference families. This file defines every result qmatmul
 * computes; see the numerics in src/kernels/family.h. Written for clarity,
 * not speed: it is the oracle. Built with -ffp-contract=off, so each fmaf
 * below is the only fused step and nothing else is fused. */
#include "kernels/ref/ref_kernels.h"

#include <math.h>
#include <string.h>

#include "formats/formats.h"

/* ------------------------------------------------------------ activations */

size_t qmm_ref_act_q8_size(int64_t m, int64_t k) { return (size_t)m * (size_t)(k / QMM_QK) * sizeof(qmm_act_block); }

size_t qmm_ref_act_q8_offset(int64_t m_idx, int64_t k) { return qmm_ref_act_q8_size(m_idx, k); }

void qmm_ref_act_q8_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_act_block *out = (qmm_act_block *)dst;
    const int64_t nb = k / QMM_QK;
    for (int64_t i = 0; i < m; i++) {
        const float *row = (const float *)((const char *)x + (size_t)i * x_row_stride);
        for (int64_t b = 0; b < nb; b++) {
            qmm_act_block *blk = &out[i * nb + b];
            qmm_act_quantize_block(row + b * QMM_QK, blk->q, &blk->d, &blk->sum);
        }
    }
}

size_t qmm_ref_act_f32_size(int64_t m, int64_t k) { return (size_t)m * (size_t)k * sizeof(float); }

size_t qmm_ref_act_f32_offset(int64_t m_idx, int64_t k) { return qmm_ref_act_f32_size(m_idx, k); }

void qmm_ref_act_f32_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    float *out = (float *)dst;
    for (int64_t i = 0; i < m; i++)
        memcpy(out + i * k, (const char *)x + (size_t)i * x_row_stride, (size_t)k * sizeof(float));
}

/* ------------------------------------------------ plain-row weight layout */

size_t qmm_ref_rows_size(qmm_type t, int64_t k, int64_t n) { return qmm_row_size(t, k) * (size_t)n; }

size_t qmm_ref_rows_offset(qmm_type t, int64_t n_idx, int64_t k) { return qmm_row_size(t, k) * (size_t)n_idx; }

void qmm_ref_rows_pack(qmm_type t, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const size_t rb = qmm_row_size(t, k);
    for (int64_t i = n0; i < n1; i++)
        memcpy((char *)dst + (size_t)i * rb, (const char *)src + (size_t)i * stride, rb);
}

void qmm_ref_rows_unpack(qmm_type t, const void *packed, int64_t k, int64_t row, void *dst) {
    memcpy(dst, (const char *)packed + qmm_ref_rows_offset(t, row, k), qmm_row_size(t, k));
}

/* ------------------------------------------------------------------ compute */

/* The definition of a quantized output element. */
void qmm_ref_gemm_q4_0(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    const qmm_block_q4_0 *wq = (const qmm_block_q4_0 *)w;
    for (int64_t i = 0; i < m; i++) {
        float *yrow = (float *)((char *)y + (size_t)i * ys);
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t b = 0; b < nb; b++) {
                const qmm_block_q4_0 *wb = &wq[j * nb + b];
                const qmm_act_block *xb = &act[i * nb + b];
                int32_t isum = 0;
                for (int l = 0; l < QMM_QK / 2; l++) {
                    isum += ((wb->qs[l] & 0x0f) - 8) * xb->q[l];
                    isum += ((wb->qs[l] >> 4) - 8) * xb->q[l + QMM_QK / 2];
                }
                const float scale = qmm_fp16_to_fp32(wb->d) * xb->d;
                acc = fmaf((float)isum, scale, acc);
            }
            yrow[j] = acc;
        }
    }
}

void qmm_ref_gemm_q8_0(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    const qmm_block_q8_0 *wq = (const qmm_block_q8_0 *)w;
    for (int64_t i = 0; i < m; i++) {
        float *yrow = (float *)((char *)y + (size_t)i * ys);
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t b = 0; b < nb; b++) {
                const qmm_block_q8_0 *wb = &wq[j * nb + b];
                const qmm_act_block *xb = &act[i * nb + b];
                int32_t isum = 0;
                for (int l = 0; l < QMM_QK; l++)
                    isum += wb->qs[l] * xb->q[l];
                const float scale = qmm_fp16_to_fp32(wb->d) * xb->d;
                acc = fmaf((float)isum, scale, acc);
            }
            yrow[j] = acc;
        }
    }
}

/* F32 / F16 / BF16: one body, the widening told apart (F16 and BF16 widen
 * exactly, so all three are the same fmaf chain on fp32 weights). */
static float widen_f32(const void *w, int64_t i) { return ((const float *)w)[i]; }
static float widen_f16(const void *w, int64_t i) { return qmm_fp16_to_fp32(((const uint16_t *)w)[i]); }
static float widen_bf16(const void *w, int64_t i) { return qmm_bf16_to_fp32(((const uint16_t *)w)[i]); }

/* The definition of a float-weight output element: acc = fmaf(w, x, acc) in
 * ascending k from 0.0f. */
static inline __attribute__((always_inline)) void fp_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                                          size_t ys, float (*widen)(const void *, int64_t)) {
    const float *x = (const float *)a;
    for (int64_t i = 0; i < m; i++) {
        float *yrow = (float *)((char *)y + (size_t)i * ys);
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t l = 0; l < k; l++)
                acc = fmaf(widen(w, j * k + l), x[i * k + l], acc);
            yrow[j] = acc;
        }
    }
}

void qmm_ref_gemm_fp(qmm_type t, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    if (t == QMM_TYPE_F16)
        fp_gemm(m, n, k, a, w, y, ys, widen_f16);
    else if (t == QMM_TYPE_BF16)
        fp_gemm(m, n, k, a, w, y, ys, widen_bf16);
    else
        fp_gemm(m, n, k, a, w, y, ys, widen_f32);
}
