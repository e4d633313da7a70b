/* GGUF Q4_1, Q5_0, Q5_1: dequantization (ggml's values bit for bit) and the
 * reference quantizers (ggml's, byte for byte). Portable scalar C; every
 * product and sum below is one fp32 operation, in the format's order. */
#include <float.h>
#include <math.h>

#include "formats/formats.h"

static int nibble(const uint8_t *qs, int l) { return l < QMM_QK / 2 ? (qs[l] & 0x0f) : (qs[l - QMM_QK / 2] >> 4); }

static int high_bit(const uint8_t qh[4], int l) { return (qh[l / 8] >> (l % 8)) & 1; }

int qmm_q4_1_q(const qmm_block_q4_1 *b, int l) { return nibble(b->qs, l); }
int qmm_q5_0_q(const qmm_block_q5_0 *b, int l) { return (nibble(b->qs, l) | (high_bit(b->qh, l) << 4)) - 16; }
int qmm_q5_1_q(const qmm_block_q5_1 *b, int l) { return nibble(b->qs, l) | (high_bit(b->qh, l) << 4); }

void qmm_q4_nibbles_get(const uint8_t qs[QMM_QK / 2], uint8_t q[QMM_QK]) {
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)nibble(qs, l);
}

void qmm_q4_nibbles_put(const uint8_t q[QMM_QK], uint8_t qs[QMM_QK / 2]) {
    for (int l = 0; l < QMM_QK / 2; l++)
        qs[l] = (uint8_t)((q[l] & 0x0f) | (q[l + QMM_QK / 2] & 0x0f) << 4);
}

void qmm_q5_high_bits_put(const uint8_t q[QMM_QK], uint8_t qh[4]) {
    for (int i = 0; i < 4; i++) {
        uint8_t bits = 0;
        for (int l = 0; l < 8; l++)
            bits |= (uint8_t)(((q[8 * i + l] >> 4) & 1) << l);
        qh[i] = bits;
    }
}

void qmm_dequantize_row_q4_1(const qmm_block_q4_1 *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d), m = qmm_fp16_to_fp32(x[b].m);
        for (int l = 0; l < QMM_QK; l++)
            y[b * QMM_QK + l] = d * (float)qmm_q4_1_q(&x[b], l) + m;
    }
}

void qmm_dequantize_row_q5_0(const qmm_block_q5_0 *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int l = 0; l < QMM_QK; l++)
            y[b * QMM_QK + l] = d * (float)qmm_q5_0_q(&x[b], l);
    }
}

void qmm_dequantize_row_q5_1(const qmm_block_q5_1 *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d), m = qmm_fp16_to_fp32(x[b].m);
        for (int l = 0; l < QMM_QK; l++)
            y[b * QMM_QK + l] = d * (float)qmm_q5_1_q(&x[b], l) + m;
    }
}

/* Min / max of a block, from +FLT_MAX / -FLT_MAX (ggml's start values). */
static void block_min_max(const float *x, float *min, float *max) {
    *min = FLT_MAX;
    *max = -FLT_MAX;
    for (int l = 0; l < QMM_QK; l++) {
        if (x[l] < *min)
            *min = x[l];
        if (x[l] > *max)
            *max = x[l];
    }
}

/* Packs 32 q values (0..31) into nibbles and, for 5-bit types, the qh bits. */
static void pack_q(const int *q, uint8_t *qs, uint8_t *qh) {
    for (int l = 0; l < QMM_QK / 2; l++)
        qs[l] = (uint8_t)((q[l] & 0x0f) | ((q[l + QMM_QK / 2] & 0x0f) << 4));
    if (qh) {
        uint32_t h = 0;
        for (int l = 0; l < QMM_QK; l++)
            h |= (uint32_t)((q[l] >> 4) & 1) << l;
        for (int i = 0; i < 4; i++)
            qh[i] = (uint8_t)(h >> (8 * i));
    }
}

/* Affine (min-offset) quantization of Q4_1 / Q5_1 with qmax = 15 / 31:
 * d = (max - min) / qmax, q = min(qmax, trunc((x - min) * id + 0.5)). */
static void quantize_affine(const float *x, int qmax, uint16_t *d_out, uint16_t *m_out, int *q) {
    float min, max;
    block_min_max(x, &min, &max);
    const float d = (max - min) / (float)qmax;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    *d_out = qmm_fp32_to_fp16(d);
    *m_out = qmm_fp32_to_fp16(min);
    for (int l = 0; l < QMM_QK; l++) {
        int v = (int)(uint8_t)((x[l] - min) * id + 0.5f); /* truncation toward zero; >= 0 for finite x */
        q[l] = v > qmax ? qmax : v;
    }
}

void qmm_quantize_row_q4_1(const float *x, qmm_block_q4_1 *y, int64_t k) {
    int q[QMM_QK];
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        quantize_affine(x + b * QMM_QK, 15, &y[b].d, &y[b].m, q);
        pack_q(q, y[b].qs, NULL);
    }
}

void qmm_quantize_row_q5_1(const float *x, qmm_block_q5_1 *y, int64_t k) {
    int q[QMM_QK];
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        quantize_affine(x + b * QMM_QK, 31, &y[b].d, &y[b].m, q);
        pack_q(q, y[b].qs, y[b].qh);
    }
}

void qmm_quantize_row_q5_0(const float *x, qmm_block_q5_0 *y, int64_t k) {
    int q[QMM_QK];
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const float *xb = x + b * QMM_QK;
        float amax = 0.0f, max = 0.0f; /* max: the signed value of largest magnitude, first wins */
        for (int l = 0; l < QMM_QK; l++)
            if (amax < fabsf(xb[l])) {
                amax = fabsf(xb[l]);
                max = xb[l];
            }
        const float d = max / -16.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[b].d = qmm_fp32_to_fp16(d);
        for (int l = 0; l < QMM_QK; l++) {
            int v = (int)(int8_t)(xb[l] * id + 16.5f); /* truncation toward zero, capped at 31 */
            q[l] = v > 31 ? 31 : v;
        }
        pack_q(q, y[b].qs, y[b].qh);
    }
}
