/* The portable reference families of Q4_1, Q5_0, Q5_1, the K-quants
 * Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, the i-quant grid types and the ternary
 * types: packed layout = the plain GGUF rows, GET_ROWS = the exact
 * dequantization, and the defining dot products (numerics:
 * src/kernels/family.h and docs/formats.md). Written for clarity, not speed:
 * they are the oracle.
 *
 * Every type is seen per 32-element block b of the activation row (for the
 * K-quants: 32-block b % 8 of super-block b / 8), as exact integer terms and
 * two fp32 factors:
 *   acc = fmaf((float)isum, s * x_d, acc), then for types with a min
 *   acc = fmaf((float)imin, t * x_d, acc). */
#include <math.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/ref/ref_kernels.h"

typedef struct block_terms {
    int32_t isum, imin; /* exact; |.| < 2^24, so (float) is exact */
    float s, t;         /* fp16 factors widened exactly */
} block_terms;

typedef void (*terms_fn)(const void *row, int64_t b, const qmm_act_block *xb, block_terms *out);

/* sum q_w * q_x over elements [l0, l0 + len) of the 32-block, with q(l) the
 * type's q of weight element base + l. */
#define DOT_RANGE(qfun, blk, base, xq, l0, len, out)                                                                             \
    do {                                                                                                                         \
        int32_t s_ = 0;                                                                                                          \
        for (int l_ = (l0); l_ < (l0) + (len); l_++)                                                                             \
            s_ += qfun((blk), (base) + l_) * (xq)[l_];                                                                           \
        (out) = s_;                                                                                                              \
    } while (0)

static int32_t act_sum16(const qmm_act_block *xb, int half) {
    int32_t s = 0;
    for (int l = 16 * half; l < 16 * half + 16; l++)
        s += xb->q[l];
    return s;
}

/* --------------------------------------------------------- 32-blocks */

static void q4_1_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q4_1 *wb = (const qmm_block_q4_1 *)row + b;
    DOT_RANGE(qmm_q4_1_q, wb, 0, xb->q, 0, QMM_QK, o->isum);
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = xb->sum;
    o->t = qmm_fp16_to_fp32(wb->m);
}

static void q5_0_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q5_0 *wb = (const qmm_block_q5_0 *)row + b;
    DOT_RANGE(qmm_q5_0_q, wb, 0, xb->q, 0, QMM_QK, o->isum);
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = 0;
    o->t = 0.0f;
}

static void q5_1_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q5_1 *wb = (const qmm_block_q5_1 *)row + b;
    DOT_RANGE(qmm_q5_1_q, wb, 0, xb->q, 0, QMM_QK, o->isum);
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = xb->sum;
    o->t = qmm_fp16_to_fp32(wb->m);
}

/* ------------------------------------------------------------ K-quants */

static void q2_k_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q2_k *wb = (const qmm_block_q2_k *)row + b / 8;
    const int j = (int)(b % 8), base = 32 * j;
    int32_t sa, sb;
    DOT_RANGE(qmm_q2_k_q, wb, base, xb->q, 0, 16, sa);
    DOT_RANGE(qmm_q2_k_q, wb, base, xb->q, 16, 16, sb);
    const int sca = wb->scales[2 * j] & 0x0f, scb = wb->scales[2 * j + 1] & 0x0f;
    const int ma = wb->scales[2 * j] >> 4, mb = wb->scales[2 * j + 1] >> 4;
    o->isum = sca * sa + scb * sb;
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = -(ma * act_sum16(xb, 0) + mb * act_sum16(xb, 1));
    o->t = qmm_fp16_to_fp32(wb->dmin);
}

static void q3_k_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q3_k *wb = (const qmm_block_q3_k *)row + b / 8;
    const int j = (int)(b % 8), base = 32 * j;
    int32_t sa, sb;
    DOT_RANGE(qmm_q3_k_q, wb, base, xb->q, 0, 16, sa);
    DOT_RANGE(qmm_q3_k_q, wb, base, xb->q, 16, 16, sb);
    o->isum = qmm_q3_k_scale(wb->scales, 2 * j) * sa + qmm_q3_k_scale(wb->scales, 2 * j + 1) * sb;
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = 0;
    o->t = 0.0f;
}

static void q4_k_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q4_k *wb = (const qmm_block_q4_k *)row + b / 8;
    const int j = (int)(b % 8);
    int sc, m;
    int32_t s;
    qmm_k_scale_min(wb->scales, j, &sc, &m);
    DOT_RANGE(qmm_q4_k_q, wb, 32 * j, xb->q, 0, QMM_QK, s);
    o->isum = sc * s;
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = -m * xb->sum;
    o->t = qmm_fp16_to_fp32(wb->dmin);
}

static void q5_k_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q5_k *wb = (const qmm_block_q5_k *)row + b / 8;
    const int j = (int)(b % 8);
    int sc, m;
    int32_t s;
    qmm_k_scale_min(wb->scales, j, &sc, &m);
    DOT_RANGE(qmm_q5_k_q, wb, 32 * j, xb->q, 0, QMM_QK, s);
    o->isum = sc * s;
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = -m * xb->sum;
    o->t = qmm_fp16_to_fp32(wb->dmin);
}

static void q6_k_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_q6_k *wb = (const qmm_block_q6_k *)row + b / 8;
    const int j = (int)(b % 8), base = 32 * j;
    int32_t sa, sb;
    DOT_RANGE(qmm_q6_k_q, wb, base, xb->q, 0, 16, sa);
    DOT_RANGE(qmm_q6_k_q, wb, base, xb->q, 16, 16, sb);
    o->isum = wb->scales[2 * j] * sa + wb->scales[2 * j + 1] * sb;
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = 0;
    o->t = 0.0f;
}

/* ------------------------------------------------- 4-bit table types */

static void iq4_nl_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_iq4_nl *wb = (const qmm_block_iq4_nl *)row + b;
    DOT_RANGE(qmm_iq4_nl_q, wb, 0, xb->q, 0, QMM_QK, o->isum);
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = 0;
    o->t = 0.0f;
}

static void mxfp4_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_mxfp4 *wb = (const qmm_block_mxfp4 *)row + b;
    DOT_RANGE(qmm_mxfp4_q, wb, 0, xb->q, 0, QMM_QK, o->isum);
    o->s = qmm_e8m0_half_to_fp32(wb->e); /* a power of two: s * x_d is exact unless it under- or overflows */
    o->imin = 0;
    o->t = 0.0f;
}

static void iq4_xs_terms(const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const qmm_block_iq4_xs *wb = (const qmm_block_iq4_xs *)row + b / 8;
    const int j = (int)(b % 8);
    int32_t s;
    DOT_RANGE(qmm_iq4_xs_q, wb, 32 * j, xb->q, 0, QMM_QK, s);
    o->isum = qmm_iq4_xs_scale(wb, j) * s; /* |.| <= 32 * 32 * 127 * 127 = 16516096 < 2^24 */
    o->s = qmm_fp16_to_fp32(wb->d);
    o->imin = 0;
    o->t = 0.0f;
}

/* ------------------------------- i-quant grid types, ternary types */

/* iq_quants.h: per 32-block j of super-block b / 8, the exact integer levels
 * w and the two 16-element sub-scales; s = the super-block's exact factor. */
static void iq_grid_terms(qmm_type t, const void *row, int64_t b, const qmm_act_block *xb, block_terms *o) {
    const void *blk = (const char *)row + (size_t)(b / 8) * qmm_type_block_bytes(t);
    const int j = (int)(b % 8);
    int32_t half[2] = {0, 0};
    for (int l = 0; l < QMM_QK; l++)
        half[l / 16] += qmm_iq_level(t, blk, 32 * j + l) * xb->q[l];
    /* |.| <= 2 * 31 * 16 * 62 * 127 = 7813040 < 2^24 (IQ3_XXS, the largest) */
    o->isum = qmm_iq_subscale(t, blk, 2 * j) * half[0] + qmm_iq_subscale(t, blk, 2 * j + 1) * half[1];
    o->s = qmm_iq_factor(t, blk);
    o->imin = 0;
    o->t = 0.0f;
}

/* ------------------------------------------------------------- driver */

/* The definition of an output element of these types. */
static void quant_gemm(qmm_type wt, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys,
                       size_t row_bytes, terms_fn terms, int has_min) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    for (int64_t i = 0; i < m; i++) {
        float *yrow = (float *)((char *)y + (size_t)i * ys);
        for (int64_t j = 0; j < n; j++) {
            const void *wrow = (const char *)w + (size_t)j * row_bytes;
            float acc = 0.0f;
            for (int64_t b = 0; b < nb; b++) {
                const qmm_act_block *xb = &act[i * nb + b];
                block_terms t;
                if (terms)
                    terms(wrow, b, xb, &t);
                else
                    iq_grid_terms(wt, wrow, b, xb, &t);
                acc = fmaf((float)t.isum, t.s * xb->d, acc);
                if (has_min)
                    acc = fmaf((float)t.imin, t.t * xb->d, acc);
            }
            yrow[j] = acc;
        }
    }
}

static terms_fn terms_of(qmm_type t) {
    switch (t) {
    case QMM_TYPE_Q4_1: return q4_1_terms;
    case QMM_TYPE_Q5_0: return q5_0_terms;
    case QMM_TYPE_Q5_1: return q5_1_terms;
    case QMM_TYPE_Q2_K: return q2_k_terms;
    case QMM_TYPE_Q3_K: return q3_k_terms;
    case QMM_TYPE_Q4_K: return q4_k_terms;
    case QMM_TYPE_Q5_K: return q5_k_terms;
    case QMM_TYPE_Q6_K: return q6_k_terms;
    case QMM_TYPE_IQ4_NL: return iq4_nl_terms;
    case QMM_TYPE_IQ4_XS: return iq4_xs_terms;
    case QMM_TYPE_MXFP4: return mxfp4_terms;
    default: return NULL; /* the grid and ternary types: iq_grid_terms */
    }
}

void qmm_ref_gemm_quant(qmm_type t, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int has_min =
        t == QMM_TYPE_Q4_1 || t == QMM_TYPE_Q5_1 || t == QMM_TYPE_Q2_K || t == QMM_TYPE_Q4_K || t == QMM_TYPE_Q5_K;
    quant_gemm(t, m, n, k, a, w, y, ys, qmm_row_size(t, k), terms_of(t), has_min);
}
