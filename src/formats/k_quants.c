/* GGUF K-quants (super-blocks of 256): Q2_K, Q3_K, Q4_K, Q5_K, Q6_K.
 * Unpacking and dequantization, ggml's values bit for bit: the fp32 order is
 * the format's definition, scale first: (d * sc) * q, then - (dmin * m).
 * Products of an fp16 value and a small integer are exact in fp32 only up to
 * rounding of the final product, so the order matters and is fixed here. */
#include "formats/formats.h"

void qmm_k_scale_min(const uint8_t s[12], int j, int *sc, int *m) {
    /* bytes 0-3: sc 0-3 (low 6 bits); 4-7: m 0-3; 8-11: low nibbles sc 4-7,
     * high nibbles m 4-7; the top 2 bits of bytes 0-3 / 4-7 are bits 4-5 of
     * sc 4-7 / m 4-7. */
    if (j < 4) {
        *sc = s[j] & 0x3f;
        *m = s[j + 4] & 0x3f;
    } else {
        *sc = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
        *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

void qmm_k_scale_min_put(uint8_t s[12], int j, int sc, int m) {
    /* the bit placement of qmm_k_scale_min, ORed into zeroed bytes */
    if (j < 4) {
        s[j] |= (uint8_t)(sc & 0x3f);
        s[j + 4] |= (uint8_t)(m & 0x3f);
    } else {
        s[j + 4] |= (uint8_t)((sc & 0x0f) | (m & 0x0f) << 4);
        s[j - 4] |= (uint8_t)(((sc >> 4) & 3) << 6);
        s[j] |= (uint8_t)(((m >> 4) & 3) << 6);
    }
}

int qmm_q3_k_scale(const uint8_t s[12], int i) {
    /* low 4 bits: nibble i / 8 of byte i % 8; high 2 bits: bits 2 (i / 4) of
     * byte 8 + i % 4; stored with a +32 offset. */
    const int lo = (s[i % 8] >> (4 * (i / 8))) & 0x0f;
    const int hi = (s[8 + i % 4] >> (2 * (i / 4))) & 0x03;
    return (lo | (hi << 4)) - 32;
}

/* 2 bits of element l (0..255) in the Q2_K / Q3_K qs layout. */
static int two_bits(const uint8_t qs[64], int l) { return (qs[32 * (l / 128) + l % 32] >> (2 * ((l / 32) % 4))) & 3; }

int qmm_q2_k_q(const qmm_block_q2_k *b, int l) { return two_bits(b->qs, l); }

int qmm_q3_k_q(const qmm_block_q3_k *b, int l) {
    const int high = (b->hmask[l % 32] >> (l / 32)) & 1;
    return two_bits(b->qs, l) - (high ? 0 : 4);
}

/* Nibble of element l (0..255) in the Q4_K / Q5_K qs layout. */
static int k_nibble(const uint8_t qs[128], int l) { return (qs[32 * (l / 64) + l % 32] >> (4 * ((l / 32) % 2))) & 0x0f; }

int qmm_q4_k_q(const qmm_block_q4_k *b, int l) { return k_nibble(b->qs, l); }

int qmm_q5_k_q(const qmm_block_q5_k *b, int l) { return k_nibble(b->qs, l) | (((b->qh[l % 32] >> (l / 32)) & 1) << 4); }

int qmm_q6_k_q(const qmm_block_q6_k *b, int l) {
    const int h = l / 128, r = l % 128;
    const int lo = (b->ql[64 * h + r % 64] >> (4 * (r / 64))) & 0x0f;
    const int hi = (b->qh[32 * h + r % 32] >> (2 * (r / 32))) & 0x03;
    return (lo | (hi << 4)) - 32;
}

void qmm_dequantize_row_q2_k(const qmm_block_q2_k *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK_K; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d), dmin = qmm_fp16_to_fp32(x[b].dmin);
        for (int l = 0; l < QMM_QK_K; l++) {
            const uint8_t s = x[b].scales[l / 16];
            const float dl = d * (float)(s & 0x0f), ml = dmin * (float)(s >> 4);
            y[b * QMM_QK_K + l] = dl * (float)qmm_q2_k_q(&x[b], l) - ml;
        }
    }
}

void qmm_dequantize_row_q3_k(const qmm_block_q3_k *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK_K; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int l = 0; l < QMM_QK_K; l++) {
            const float dl = d * (float)qmm_q3_k_scale(x[b].scales, l / 16);
            y[b * QMM_QK_K + l] = dl * (float)qmm_q3_k_q(&x[b], l);
        }
    }
}

/* Q4_K and Q5_K: (d * sc) * q - dmin * m per 32-element sub-block, ggml's
 * order; they differ only in how q is read. */
static inline void dequantize_row_asym_k(qmm_type t, const void *x, float *y, int64_t k) {
    const qmm_block_q4_k *x4 = (const qmm_block_q4_k *)x;
    const qmm_block_q5_k *x5 = (const qmm_block_q5_k *)x;
    for (int64_t b = 0; b < k / QMM_QK_K; b++) {
        const int is_q4 = t == QMM_TYPE_Q4_K;
        const uint8_t *scales = is_q4 ? x4[b].scales : x5[b].scales;
        const float d = qmm_fp16_to_fp32(is_q4 ? x4[b].d : x5[b].d), dmin = qmm_fp16_to_fp32(is_q4 ? x4[b].dmin : x5[b].dmin);
        for (int l = 0; l < QMM_QK_K; l++) {
            int sc, m;
            qmm_k_scale_min(scales, l / 32, &sc, &m);
            const float dl = d * (float)sc, ml = dmin * (float)m;
            const int q = is_q4 ? qmm_q4_k_q(&x4[b], l) : qmm_q5_k_q(&x5[b], l);
            y[b * QMM_QK_K + l] = dl * (float)q - ml;
        }
    }
}

void qmm_dequantize_row_q4_k(const qmm_block_q4_k *x, float *y, int64_t k) { dequantize_row_asym_k(QMM_TYPE_Q4_K, x, y, k); }

void qmm_dequantize_row_q5_k(const qmm_block_q5_k *x, float *y, int64_t k) { dequantize_row_asym_k(QMM_TYPE_Q5_K, x, y, k); }

void qmm_dequantize_row_q6_k(const qmm_block_q6_k *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK_K; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int l = 0; l < QMM_QK_K; l++) {
            const float dl = d * (float)x[b].scales[l / 16];
            y[b * QMM_QK_K + l] = dl * (float)qmm_q6_k_q(&x[b], l);
        }
    }
}

int qmm_dequantize_row(qmm_type t, const void *src, float *dst, int64_t k) {
    switch (t) {
    case QMM_TYPE_F16:
        for (int64_t l = 0; l < k; l++)
            dst[l] = qmm_fp16_to_fp32(((const uint16_t *)src)[l]);
        return 0;
    case QMM_TYPE_Q4_0: qmm_dequantize_row_q4_0(src, dst, k); return 0;
    case QMM_TYPE_Q8_0: qmm_dequantize_row_q8_0(src, dst, k); return 0;
    case QMM_TYPE_Q4_1: qmm_dequantize_row_q4_1(src, dst, k); return 0;
    case QMM_TYPE_Q5_0: qmm_dequantize_row_q5_0(src, dst, k); return 0;
    case QMM_TYPE_Q5_1: qmm_dequantize_row_q5_1(src, dst, k); return 0;
    case QMM_TYPE_Q2_K: qmm_dequantize_row_q2_k(src, dst, k); return 0;
    case QMM_TYPE_Q3_K: qmm_dequantize_row_q3_k(src, dst, k); return 0;
    case QMM_TYPE_Q4_K: qmm_dequantize_row_q4_k(src, dst, k); return 0;
    case QMM_TYPE_Q5_K: qmm_dequantize_row_q5_k(src, dst, k); return 0;
    case QMM_TYPE_Q6_K: qmm_dequantize_row_q6_k(src, dst, k); return 0;
    case QMM_TYPE_IQ4_NL: qmm_dequantize_row_iq4_nl(src, dst, k); return 0;
    case QMM_TYPE_IQ4_XS: qmm_dequantize_row_iq4_xs(src, dst, k); return 0;
    case QMM_TYPE_MXFP4: qmm_dequantize_row_mxfp4(src, dst, k); return 0;
    case QMM_TYPE_BF16:
        for (int64_t l = 0; l < k; l++)
            dst[l] = qmm_bf16_to_fp32(((const uint16_t *)src)[l]);
        return 0;
    default:
        if (!qmm_type_is_iq_grid(t))
            return -1;
        qmm_dequantize_row_iq(t, src, dst, k);
        return 0;
    }
}

int qmm_type_dequantizes_in_place(qmm_type t) {
    const size_t bb = qmm_type_block_bytes(t);
    return qmm_type_has_dequantizer(t) && bb && bb <= QMM_TAIL_UNIT_MAX && bb <= (size_t)qmm_type_block_elems(t) * sizeof(float);
}

int qmm_dequantize_row_tail(qmm_type t, float *dst, int64_t k) {
    const int64_t be = qmm_type_block_elems(t);
    const size_t bb = qmm_type_block_bytes(t), rb = qmm_row_size(t, k);
    uint8_t unit[QMM_TAIL_UNIT_MAX] __attribute__((aligned(16)));
    if (!rb || !qmm_type_dequantizes_in_place(t))
        return -1;
    /* Unit u's floats end at byte 4 be (u + 1); unit u + 1's bytes start at
     * 4 k - rb + (u + 1) bb = 4 be (u + 1) + (nb - u - 1) (4 be - bb), no
     * earlier, as no block is wider than its floats. Unit u itself is copied
     * out before its floats are written. */
    const uint8_t *src = (const uint8_t *)dst + (size_t)k * sizeof(float) - rb;
    for (int64_t u = 0; u < k / be; u++) {
        memcpy(unit, src + (size_t)u * bb, bb);
        qmm_dequantize_row(t, unit, dst + u * be, be);
    }
    return 0;
}

int qmm_quantize_row(qmm_type t, const float *src, void *dst, int64_t k) {
    switch (t) {
    case QMM_TYPE_F16:
        for (int64_t l = 0; l < k; l++)
            ((uint16_t *)dst)[l] = qmm_fp32_to_fp16(src[l]);
        return 0;
    case QMM_TYPE_Q4_0: qmm_quantize_row_q4_0(src, dst, k); return 0;
    case QMM_TYPE_Q8_0: qmm_quantize_row_q8_0(src, dst, k); return 0;
    case QMM_TYPE_Q4_1: qmm_quantize_row_q4_1(src, dst, k); return 0;
    case QMM_TYPE_Q5_0: qmm_quantize_row_q5_0(src, dst, k); return 0;
    case QMM_TYPE_Q5_1: qmm_quantize_row_q5_1(src, dst, k); return 0;
    case QMM_TYPE_BF16:
        for (int64_t l = 0; l < k; l++)
            ((uint16_t *)dst)[l] = qmm_fp32_to_bf16(src[l]);
        return 0;
    default: return -1; /* K-quants, IQ4_*, MXFP4: no quantizer (they come from GGUF files) */
    }
}

/* A row of zero elements writes nothing: it only asks the switch. */
int qmm_type_has_dequantizer(qmm_type t) { return qmm_dequantize_row(t, NULL, NULL, 0) == 0; }
int qmm_type_has_quantizer(qmm_type t) { return qmm_quantize_row(t, NULL, NULL, 0) == 0; }
