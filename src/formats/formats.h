/* GGUF block formats, their reference quantizers, and the activation
 * quantizer. Pure functions, no state. */
#ifndef QMM_FORMATS_H
#define QMM_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The address alignment a type's rows need when the library reads or writes
 * them through its C block types (or as floats): 4 for F32 / I32, else 2. */
size_t qmm_type_align(qmm_type t);

/* The other 32-element GGUF blocks. Nibbles as Q4_0: byte j holds element j
 * (low) and j + 16 (high). Q5_*: qh is a little-endian uint32 whose bit j is
 * bit 4 of element j. */
typedef struct qmm_block_q4_1 { /* value = d * q + m, q in 0..15 */
    uint16_t d, m;
    uint8_t qs[QMM_QK / 2];
} qmm_block_q4_1;

typedef struct qmm_block_q5_0 { /* value = (q - 16) * d, q in 0..31 */
    uint16_t d;
    uint8_t qh[4];
    uint8_t qs[QMM_QK / 2];
} qmm_block_q5_0;

typedef struct qmm_block_q5_1 { /* value = d * q + m, q in 0..31 */
    uint16_t d, m;
    uint8_t qh[4];
    uint8_t qs[QMM_QK / 2];
} qmm_block_q5_1;

/* K-quant super-blocks of 256 elements (docs/formats.md gives the bit
 * layouts and values). */
#define QMM_QK_K 256

typedef struct qmm_block_q2_k {
    uint8_t scales[16]; /* per 16 elements: low nibble sc, high nibble m */
    uint8_t qs[64];     /* 2-bit q: element 128h + 32s + l in qs[32h + l] bits 2s..2s+1 */
    uint16_t d, dmin;   /* value = (d * sc) * q - dmin * m */
} qmm_block_q2_k;

typedef struct qmm_block_q3_k {
    uint8_t hmask[32];  /* element 32s + l: bit s of hmask[l]; clear means q -= 4 */
    uint8_t qs[64];     /* low 2 bits, as Q2_K */
    uint8_t scales[12]; /* 16 6-bit scales, stored + 32 */
    uint16_t d;         /* value = (d * sc) * q, q in -4..3, sc in -32..31 */
} qmm_block_q3_k;

typedef struct qmm_block_q4_k {
    uint16_t d, dmin;   /* value = (d * sc_j) * q - dmin * m_j per 32-block j */
    uint8_t scales[12]; /* 8 6-bit sc and 8 6-bit m (qmm_k_scale_min) */
    uint8_t qs[128];    /* element 64c + 32h + l: qs[32c + l] nibble h */
} qmm_block_q4_k;

typedef struct qmm_block_q5_k {
    uint16_t d, dmin;
    uint8_t scales[12];
    uint8_t qh[32]; /* element 32s + l: bit s of qh[l] is bit 4 of q */
    uint8_t qs[128];
} qmm_block_q5_k;

typedef struct qmm_block_q6_k {
    uint8_t ql[128];   /* element 128h + 64s + l (l < 64): ql[64h + l] nibble s */
    uint8_t qh[64];    /* element 128h + 32t + l (l < 32): qh[32h + l] bits 2t..2t+1 */
    int8_t scales[16]; /* per 16 elements */
    uint16_t d;        /* value = (d * sc) * (q - 32), q in 0..63 */
} qmm_block_q6_k;

_Static_assert(sizeof(qmm_block_q4_1) == 20, "Q4_1 block is 20 bytes");
_Static_assert(sizeof(qmm_block_q5_0) == 22, "Q5_0 block is 22 bytes");
_Static_assert(sizeof(qmm_block_q5_1) == 24, "Q5_1 block is 24 bytes");
_Static_assert(sizeof(qmm_block_q2_k) == 84, "Q2_K block is 84 bytes");
_Static_assert(sizeof(qmm_block_q3_k) == 110, "Q3_K block is 110 bytes");
_Static_assert(sizeof(qmm_block_q4_k) == 144, "Q4_K block is 144 bytes");
_Static_assert(sizeof(qmm_block_q5_k) == 176, "Q5_K block is 176 bytes");
_Static_assert(sizeof(qmm_block_q6_k) == 210, "Q6_K block is 210 bytes");

/* The 4-bit table types (docs/formats.md): a nibble indexes a 16-entry int8
 * table of levels. IQ4_NL: 32 elements, fp16 d, nibbles as Q4_0; value =
 * d * kv[q]. IQ4_XS: 256 elements, fp16 d, 6-bit sub-scales per 32 (low 4
 * bits: nibble j % 2 of scales_l[j / 2]; high 2 bits: bits 2j of scales_h;
 * stored + 32), then per 32-block j the 16 bytes qs[16j..] as Q4_0 nibbles;
 * value = (d * ls_j) * kv[q]. MXFP4: 32 elements, one E8M0 byte e, nibbles
 * as Q4_0 holding E2M1 codes; value = 2^(e - 128) * kv2[q] (kv2: the E2M1
 * values doubled, so the scale is halved: exact for every e). */
typedef struct qmm_block_iq4_nl {
    uint16_t d;
    uint8_t qs[QMM_QK / 2];
} qmm_block_iq4_nl;

typedef struct qmm_block_iq4_xs {
    uint16_t d;
    uint16_t scales_h;
    uint8_t scales_l[4];
    uint8_t qs[128];
} qmm_block_iq4_xs;

typedef struct qmm_block_mxfp4 {
    uint8_t e;
    uint8_t qs[QMM_QK / 2];
} qmm_block_mxfp4;

_Static_assert(sizeof(qmm_block_iq4_nl) == 18, "IQ4_NL block is 18 bytes");
_Static_assert(sizeof(qmm_block_iq4_xs) == 136, "IQ4_XS block is 136 bytes");
_Static_assert(sizeof(qmm_block_mxfp4) == 17, "MXFP4 block is 17 bytes");

/* The levels: IQ4_NL / IQ4_XS, and MXFP4's E2M1 values times 2. */
extern const int8_t qmm_kvalues_iq4nl[16];
extern const int8_t qmm_kvalues_mxfp4[16];
/* IQ4_XS: signed sub-scale (-32..31) of 32-block j (0..7). */
int qmm_iq4_xs_scale(const qmm_block_iq4_xs *b, int j);
/* Its inverse: ORs ls (-32..31) of 32-block j into b's scales_l / scales_h,
 * which must start zeroed (packers that rebuild a GGUF block). */
void qmm_iq4_xs_scale_put(qmm_block_iq4_xs *b, int j, int ls);
/* A packed panel's IQ4_XS header back into b (GET_ROWS readers, which then
 * copy the nibbles and dequantize): b zeroed, its fp16 d from the 2 bytes at
 * d, sub-scale j from the int8 at ls[j * ls_stride]. */
void qmm_iq4_xs_header_put(qmm_block_iq4_xs *b, const uint8_t *d, const uint8_t *ls, ptrdiff_t ls_stride);
/* The table level of element l: IQ4_NL (l < 32), IQ4_XS (l < 256), MXFP4. */
int qmm_iq4_nl_q(const qmm_block_iq4_nl *b, int l);
int qmm_iq4_xs_q(const qmm_block_iq4_xs *b, int l);
int qmm_mxfp4_q(const qmm_block_mxfp4 *b, int l);
/* MXFP4's halved scale 2^(e - 128), exact for every e: 2^-128 and 2^-127 are
 * subnormal, e = 255 is 2^127 (ggml has no NaN code). */
float qmm_e8m0_half_to_fp32(uint8_t e);
/* One IQ4_NL (mxfp4 = 0) or MXFP4 (mxfp4 = 1) block rebuilt from a packed
 * panel's parts, ggml's values exactly (GET_ROWS readers): scale is the fp16
 * d's 2 bytes or the E8M0 byte, qs the GGUF nibble bytes. */
void qmm_dequantize_nl_block(int mxfp4, const uint8_t *scale, const uint8_t qs[QMM_QK / 2], float *y);
/* bf16 -> fp32 is exact (the bits shifted up); fp32 -> bf16 is ggml's: NaN
 * kept quiet (top half | 0x40), else rounded to nearest even. */
static inline float qmm_bf16_to_fp32(uint16_t h) {
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
uint16_t qmm_fp32_to_bf16(float f);

/* Unpacked element q values and per-16 / per-32 scales of one block, the
 * common ground of dequantization and the reference dot products. */
/* Q4_K / Q5_K: 6-bit scale and min of 32-block j (0..7). */
void qmm_k_scale_min(const uint8_t scales[12], int j, int *sc, int *m);
/* Its inverse: ORs sc and m (0..63) of 32-block j into scales, which must
 * start zeroed (packers that rebuild a GGUF block from a repacked one). */
void qmm_k_scale_min_put(uint8_t scales[12], int j, int sc, int m);
/* Q3_K: signed scale (-32..31) of 16-block i (0..15). */
int qmm_q3_k_scale(const uint8_t scales[12], int i);
/* q of element l of a block, in the value formula's terms: Q4_1 / Q5_1 /
 * Q4_K / Q5_K / Q2_K unsigned q; Q5_0 q - 16; Q3_K q in -4..3; Q6_K q - 32. */
int qmm_q4_1_q(const qmm_block_q4_1 *b, int l);
int qmm_q5_0_q(const qmm_block_q5_0 *b, int l);
int qmm_q5_1_q(const qmm_block_q5_1 *b, int l);
int qmm_q2_k_q(const qmm_block_q2_k *b, int l);
int qmm_q3_k_q(const qmm_block_q3_k *b, int l);
int qmm_q4_k_q(const qmm_block_q4_k *b, int l);
int qmm_q5_k_q(const qmm_block_q5_k *b, int l);
int qmm_q6_k_q(const qmm_block_q6_k *b, int l);
/* The 16 nibble bytes of a 32-element block (Q4_0, Q4_1, Q5_*, IQ4_NL, MXFP4,
 * and each 32-block of IQ4_XS) as 32 unsigned q (element l: low nibble of
 * qs[l % 16], high for l >= 16), and back: the low 4 bits of q[l] as GGUF's
 * nibbles and, for Q5_*, bit 4 as qh's bit l. The puts write every byte of
 * qs / qh (packers that rebuild a GGUF block from a repacked one). */
void qmm_q4_nibbles_get(const uint8_t qs[QMM_QK / 2], uint8_t q[QMM_QK]);
void qmm_q4_nibbles_put(const uint8_t q[QMM_QK], uint8_t qs[QMM_QK / 2]);
void qmm_q5_high_bits_put(const uint8_t q[QMM_QK], uint8_t qh[4]);

/* Dequantization of one row of k elements of a quantized type (ggml's values
 * bit for bit) and the quantizers the library has (ggml's reference ones,
 * byte for byte). Return 0, or -1 when the type has none (nothing written). */
int qmm_dequantize_row(qmm_type t, const void *src, float *dst, int64_t k);
/* The same, of the row's GGUF bytes held in the tail of dst itself (the last
 * qmm_row_size(t, k) of its 4 k bytes: a family's GET_ROWS through its
 * w_unpack_row, with no buffer), dequantized in place. */
int qmm_dequantize_row_tail(qmm_type t, float *dst, int64_t k);
/* Whether qmm_dequantize_row_tail serves type t: it has a dequantizer, and
 * no block is wider than its floats nor than the unit buffer. */
#define QMM_TAIL_UNIT_MAX 256
int qmm_type_dequantizes_in_place(qmm_type t);
int qmm_quantize_row(qmm_type t, const float *src, void *dst, int64_t k);
int qmm_type_has_dequantizer(qmm_type t);
int qmm_type_has_quantizer(qmm_type t);

/* IEEE half <-> single. fp16 -> fp32 is exact; fp32 -> fp16 rounds to
 * nearest even (as F16C and ggml do). */
float qmm_fp16_to_fp32(uint16_t h);
uint16_t qmm_fp32_to_fp16(float f);

/* ggml's reference quantizers, byte for byte. k % 32 == 0. */
void qmm_quantize_row_q4_0(const float *x, qmm_block_q4_0 *y, int64_t k);
void qmm_quantize_row_q8_0(const float *x, qmm_block_q8_0 *y, int64_t k);
void qmm_dequantize_row_q4_0(const qmm_block_q4_0 *x, float *y, int64_t k);
void qmm_dequantize_row_q8_0(const qmm_block_q8_0 *x, float *y, int64_t k);
void qmm_quantize_row_q4_1(const float *x, qmm_block_q4_1 *y, int64_t k);
void qmm_quantize_row_q5_0(const float *x, qmm_block_q5_0 *y, int64_t k);
void qmm_quantize_row_q5_1(const float *x, qmm_block_q5_1 *y, int64_t k);
void qmm_dequantize_row_q4_1(const qmm_block_q4_1 *x, float *y, int64_t k);
void qmm_dequantize_row_q5_0(const qmm_block_q5_0 *x, float *y, int64_t k);
void qmm_dequantize_row_q5_1(const qmm_block_q5_1 *x, float *y, int64_t k);
/* k % 256 == 0. */
void qmm_dequantize_row_q2_k(const qmm_block_q2_k *x, float *y, int64_t k);
void qmm_dequantize_row_q3_k(const qmm_block_q3_k *x, float *y, int64_t k);
void qmm_dequantize_row_q4_k(const qmm_block_q4_k *x, float *y, int64_t k);
void qmm_dequantize_row_q5_k(const qmm_block_q5_k *x, float *y, int64_t k);
void qmm_dequantize_row_q6_k(const qmm_block_q6_k *x, float *y, int64_t k);

void qmm_dequantize_row_iq4_nl(const qmm_block_iq4_nl *x, float *y, int64_t k);
void qmm_dequantize_row_mxfp4(const qmm_block_mxfp4 *x, float *y, int64_t k);
void qmm_dequantize_row_iq4_xs(const qmm_block_iq4_xs *x, float *y, int64_t k); /* k % 256 == 0 */

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

/* The sum of a quantized block's q[0..15]: Q2_K's per-16 min term takes it
 * and the block sum minus it (the SIMD activation packers that carry both). */
static inline int32_t qmm_act_sum_first16(const int8_t *q) {
    int32_t s = 0;
    for (int l = 0; l < QMM_QK / 2; l++)
        s += q[l];
    return s;
}

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

#include "formats/iq_quants.h" /* the i-quant grid and ternary types */

#endif
