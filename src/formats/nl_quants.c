/* GGUF IQ4_NL, IQ4_XS, MXFP4 and BF16: unpacking and dequantization, ggml's
 * values bit for bit. Each value is one fp32 product of the block scale (for
 * IQ4_XS the rounded d * ls first) and a small integer level. */
#include "formats/formats.h"

const int8_t qmm_kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
/* E2M1 codes 0..15: sign bit 3, magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6} doubled */
const int8_t qmm_kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* Nibble of element l of a 32-element run of 16 bytes (Q4_0 order). */
static int nibble32(const uint8_t *qs, int l) { return (qs[l % 16] >> (4 * (l / 16))) & 0x0f; }

int qmm_iq4_nl_q(const qmm_block_iq4_nl *b, int l) { return qmm_kvalues_iq4nl[nibble32(b->qs, l)]; }

int qmm_iq4_xs_q(const qmm_block_iq4_xs *b, int l) { return qmm_kvalues_iq4nl[nibble32(b->qs + 16 * (l / 32), l % 32)]; }

int qmm_mxfp4_q(const qmm_block_mxfp4 *b, int l) { return qmm_kvalues_mxfp4[nibble32(b->qs, l)]; }

int qmm_iq4_xs_scale(const qmm_block_iq4_xs *b, int j) {
    const int lo = (b->scales_l[j / 2] >> (4 * (j % 2))) & 0x0f;
    const int hi = (b->scales_h >> (2 * j)) & 0x03;
    return (lo | (hi << 4)) - 32;
}

void qmm_iq4_xs_scale_put(qmm_block_iq4_xs *b, int j, int ls) {
    const unsigned st = (unsigned)(ls + 32) & 63u; /* the stored 6 bits */
    b->scales_l[j / 2] |= (uint8_t)((st & 0x0fu) << (4 * (j % 2)));
    b->scales_h |= (uint16_t)((st >> 4) << (2 * j));
}

void qmm_iq4_xs_header_put(qmm_block_iq4_xs *b, const uint8_t *d, const uint8_t *ls, ptrdiff_t ls_stride) {
    memset(b, 0, sizeof *b);
    memcpy(&b->d, d, 2);
    for (int j = 0; j < 8; j++)
        qmm_iq4_xs_scale_put(b, j, (int8_t)ls[j * ls_stride]);
}

float qmm_e8m0_half_to_fp32(uint8_t e) {
    /* 2^(e - 128): a normal's exponent field e - 1 for e >= 2; the subnormals
     * 2^-128 (bit 21) and 2^-127 (bit 22) below */
    const uint32_t u = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t qmm_fp32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u); /* NaN: quiet, sign and payload top kept */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

void qmm_dequantize_row_iq4_nl(const qmm_block_iq4_nl *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int l = 0; l < QMM_QK; l++)
            y[b * QMM_QK + l] = d * (float)qmm_iq4_nl_q(&x[b], l);
    }
}

void qmm_dequantize_row_mxfp4(const qmm_block_mxfp4 *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const float d = qmm_e8m0_half_to_fp32(x[b].e);
        for (int l = 0; l < QMM_QK; l++)
            y[b * QMM_QK + l] = d * (float)qmm_mxfp4_q(&x[b], l);
    }
}

void qmm_dequantize_nl_block(int mxfp4, const uint8_t *scale, const uint8_t qs[QMM_QK / 2], float *y) {
    if (mxfp4) {
        qmm_block_mxfp4 g;
        g.e = scale[0];
        memcpy(g.qs, qs, sizeof g.qs);
        qmm_dequantize_row_mxfp4(&g, y, QMM_QK);
    } else {
        qmm_block_iq4_nl g;
        memcpy(&g.d, scale, 2);
        memcpy(g.qs, qs, sizeof g.qs);
        qmm_dequantize_row_iq4_nl(&g, y, QMM_QK);
    }
}

void qmm_dequantize_row_iq4_xs(const qmm_block_iq4_xs *x, float *y, int64_t k) {
    for (int64_t b = 0; b < k / QMM_QK_K; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int l = 0; l < QMM_QK_K; l++) {
            const float dl = d * (float)qmm_iq4_xs_scale(&x[b], l / 32);
            y[b * QMM_QK_K + l] = dl * (float)qmm_iq4_xs_q(&x[b], l);
        }
    }
}
