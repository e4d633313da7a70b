/* GGUF block formats, their reference quantizers, and the activation
 * quantizer. Pure functions, no state. */
#ifndef QMM_FORMATS_H
#define QMM_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "qmatmul.h"

#define QMM_QK 32 /* elements per Q4_0 / Q8_0 / activation block */

/* GGUF Q4_0: fp16 d, then 16 bytes; low nibbles are elements 0..15, high
 * nibbles 16..31; value = (q - 8) * d. */
typedef struct qmm_block_q4_0 {
    uint16_t d;
    uint8_t qs[QMM_QK / 2];
} qmm_block_q4_0;

/* GGUF Q8_0: fp16 d, 32 int8; value = q * d. */
typedef struct qmm_block_q8_0 {
    uint16_t d;
    int8_t qs[QMM_QK];
} qmm_block_q8_0;

_Static_assert(sizeof(qmm_block_q4_0) == 18, "Q4_0 block is 18 bytes");
_Static_assert(sizeof(qmm_block_q8_0) == 34, "Q8_0 block is 34 bytes");

/* IEEE half <-> single. fp16 -> fp32 is exact; fp32 -> fp16 rounds to
 * nearest even (as F16C and ggml do). */
float qmm_fp16_to_fp32(uint16_t h);
uint16_t qmm_fp32_to_fp16(float f);

/* ggml's reference quantizers, byte for byte. k % 32 == 0. */
void qmm_quantize_row_q4_0(const float *x, qmm_block_q4_0 *y, int64_t k);
void qmm_quantize_row_q8_0(const float *x, qmm_block_q8_0 *y, int64_t k);
void qmm_dequantize_row_q4_0(const qmm_block_q4_0 *x, float *y, int64_t k);
void qmm_dequantize_row_q8_0(const qmm_block_q8_0 *x, float *y, int64_t k);

/* Activation quantization, one block of 32 (the reference every SIMD
 * activation packer reproduces), all in fp32 with round to nearest even:
 *   amax = max |x| (a > amax ? a : amax from 0: NaN never wins);
 *   s = qmm_act_block_scale(amax) (below): the stored d, a pre-multiplier
 *       `pre` (1 or 2^64, exact) and id;
 *   q = clamp(round_half_even((x * pre) * id), -127, 127), a NaN product
 *       gives 0; sum = sum q.
 * For every block where 1 / (amax / 127) is finite this is exactly ggml's
 * d = amax / 127, id = d ? 1 / d : 0, q = round(x * id) (pre = 1). Inf input:
 * d = inf, id = 0, every q of the block is 0 (inf * 0 is NaN), and the
 * outputs that use the block are NaN. See docs/formats.md, numerics. */
void qmm_act_quantize_block(const float *x, int8_t *q, float *d, int32_t *sum);

/* The per-block scale step, shared by every activation packer. */
typedef struct qmm_act_scale {
    float d;   /* the stored block scale: q * d approximates x */
    float pre; /* x is multiplied by pre (exactly) before the product with id */
    float id;  /* 1 / (d * pre), or 0 */
} qmm_act_scale;

/* Normal blocks: d = amax / 127, pre = 1, id = d ? 1 / d : 0 (ggml's).
 * Tiny blocks, amax > 0 and d <= 2^-128 (exactly those where 1 / d overflows
 * to inf or d underflows to 0, amax < ~3.7e-37): the block is scaled by 2^64
 * (exact: every |x| <= amax < 2^-121, subnormals become normal), so
 *   ds = (amax * 2^64) / 127                      (normal, >= 2^-92)
 *   d  = ds * 2^-64 rounded upward to fp32        (exact when representable,
 *        else the next subnormal above; so amax <= 127 d / (1 - u): the clamp
 *        stays idle and |q d - x| <= 0.5 d + 2.0001 u |x| holds as for
 *        normal blocks)
 *   pre = 2^64, id = 1 / (d * 2^64)               (d * 2^64 exact, normal).
 * Kernels use d as is: their w_d * d may be subnormal (see docs/formats.md
 * for the bound's underflow term). */
static inline qmm_act_scale qmm_act_block_scale(float amax) {
    qmm_act_scale s;
    s.d = amax / 127.0f;
    s.pre = 1.0f;
    if (amax > 0.0f && s.d <= 0x1p-128f) {
        const float ds = amax * 0x1p64f / 127.0f;
        float d = ds * 0x1p-64f; /* rounded to nearest: undo a rounding down */
        if (d * 0x1p64f < ds)
            d += 0x1p-149f; /* the next subnormal up, exactly */
        s.d = d;
        s.pre = 0x1p64f;
        s.id = 1.0f / (d * 0x1p64f);
    } else {
        s.id = s.d != 0.0f ? 1.0f / s.d : 0.0f;
    }
    return s;
}

/* The reference activation layout for int8 families: per row, k/32 blocks of
 * qmm_act_block. */
typedef struct qmm_act_block {
    float d;
    int32_t sum;
    int8_t q[QMM_QK];
} qmm_act_block;

_Static_assert(sizeof(qmm_act_block) == 40, "activation block is 40 bytes");

#endif
