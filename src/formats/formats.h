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
 * activation packer reproduces): d = amax / 127; id = d ? 1 / d : 0;
 * q = clamp(round_half_even(x * id), -127, 127), all in fp32; sum = sum q.
 * Non-finite input: amax skips NaN (amax = a > amax ? a : amax), and a NaN
 * product x * id quantizes to 0. */
void qmm_act_quantize_block(const float *x, int8_t *q, float *d, int32_t *sum);

/* The reference activation layout for int8 families: per row, k/32 blocks of
 * qmm_act_block. */
typedef struct qmm_act_block {
    float d;
    int32_t sum;
    int8_t q[QMM_QK];
} qmm_act_block;

_Static_assert(sizeof(qmm_act_block) == 40, "activation block is 40 bytes");

#endif
