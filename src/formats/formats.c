/* GGUF block formats and the reference quantizers. Portable scalar C. */
#include "formats/formats.h"

#include <math.h>
#include <string.h>

static inline uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float qmm_fp16_to_fp32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) /* inf / nan: keep the payload */
        return f32_from_bits(sign | 0x7f800000u | (mant << 13));
    if (exp != 0)
        return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
    if (mant == 0)
        return f32_from_bits(sign);
    /* subnormal half: normalise */
    int e = -1;
    do {
        e++;
        mant <<= 1;
    } while ((mant & 0x400u) == 0);
    return f32_from_bits(sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ffu) << 13));
}

uint16_t qmm_fp32_to_fp16(float f) {
    const uint32_t u = f32_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) /* nan: quiet, keep top payload bits */
        return (uint16_t)(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) {   /* below the smallest normal half: subnormal */
        if (abs < 0x33000000u) /* < 2^-25: rounds to zero (ties to even 0) */
            return sign;
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - e; /* 14..24 */
        uint32_t r = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((abs >> 13) - (112u << 10));
    const uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
        r++; /* may carry into the exponent: that is correct rounding */
    return (uint16_t)(sign | r);
}

/* The float-to-integer steps of the weight quantizers, defined for every
 * input: ggml converts x * id directly, which is undefined behaviour when
 * the product is NaN or out of range (a NaN weight; a block so small that
 * 1 / d overflows, whose fp16 d is 0 anyway). In range the result is
 * ggml's; NaN gives the zero level, and out of range the nearest end. */
static int q4_nibble(float v) {
    if (!(v >= 0.0f)) /* NaN, or below the lowest level */
        return v != v ? 8 : 0;
    return v >= 15.0f ? 15 : (int)v;
}
static int8_t q8_value(float v) {
    if (v != v)
        return 0;
    return v >= 127.0f ? 127 : v <= -127.0f ? -127 : (int8_t)roundf(v);
}

void qmm_quantize_row_q4_0(const float *x, qmm_block_q4_0 *y, int64_t k) {
    const int64_t nb = k / QMM_QK;
    for (int64_t b = 0; b < nb; b++) {
        const float *xb = x + b * QMM_QK;
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < QMM_QK; j++) {
            const float v = xb[j];
            if (amax < fabsf(v)) {
                amax = fabsf(v);
                max = v;
            }
        }
        const float d = max / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[b].d = qmm_fp32_to_fp16(d);
        for (int j = 0; j < QMM_QK / 2; j++) {
            const float x0 = xb[j] * id;
            const float x1 = xb[QMM_QK / 2 + j] * id;
            /* ggml: truncation toward zero of x + 8.5, capped at 15 */
            const int q0 = q4_nibble(x0 + 8.5f), q1 = q4_nibble(x1 + 8.5f);
            y[b].qs[j] = (uint8_t)(q0 | (q1 << 4));
        }
    }
}

void qmm_quantize_row_q8_0(const float *x, qmm_block_q8_0 *y, int64_t k) {
    const int64_t nb = k / QMM_QK;
    for (int64_t b = 0; b < nb; b++) {
        const float *xb = x + b * QMM_QK;
        float amax = 0.0f;
        for (int j = 0; j < QMM_QK; j++) {
            const float a = fabsf(xb[j]);
            if (a > amax)
                amax = a;
        }
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[b].d = qmm_fp32_to_fp16(d);
        for (int j = 0; j < QMM_QK; j++)
            y[b].qs[j] = q8_value(xb[j] * id); /* ggml: half away from zero */
    }
}

void qmm_dequantize_row_q4_0(const qmm_block_q4_0 *x, float *y, int64_t k) {
    const int64_t nb = k / QMM_QK;
    for (int64_t b = 0; b < nb; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int j = 0; j < QMM_QK / 2; j++) {
            y[b * QMM_QK + j] = (float)((x[b].qs[j] & 0x0f) - 8) * d;
            y[b * QMM_QK + j + QMM_QK / 2] = (float)((x[b].qs[j] >> 4) - 8) * d;
        }
    }
}

void qmm_dequantize_row_q8_0(const qmm_block_q8_0 *x, float *y, int64_t k) {
    const int64_t nb = k / QMM_QK;
    for (int64_t b = 0; b < nb; b++) {
        const float d = qmm_fp16_to_fp32(x[b].d);
        for (int j = 0; j < QMM_QK; j++)
            y[b * QMM_QK + j] = (float)x[b].qs[j] * d;
    }
}

void qmm_act_quantize_block(const float *x, int8_t *q, float *d_out, int32_t *sum_out) {
    float amax = 0.0f;
    for (int j = 0; j < QMM_QK; j++) {
        const float a = fabsf(x[j]);
        amax = a > amax ? a : amax; /* NaN never wins, as with a SIMD max */
    }
    const qmm_act_scale sc = qmm_act_block_scale(amax);
    int32_t sum = 0;
    for (int j = 0; j < QMM_QK; j++) {
        float v = nearbyintf((x[j] * sc.pre) * sc.id); /* default rounding mode: half to even */
        if (v != v)
            v = 0.0f; /* NaN (a NaN input, or inf * 0) quantizes to 0 */
        v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
        q[j] = (int8_t)v;
        sum += q[j];
    }
    *d_out = sc.d;
    *sum_out = sum;
}
