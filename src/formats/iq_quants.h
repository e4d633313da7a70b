/* The i-quant grid types (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS,
 * IQ3_S) and the ternary types (TQ1_0, TQ2_0): GGUF blocks of 256 elements,
 * their grid tables, and each element as exact integers.
 *
 * Every one of these types is, per 32-block j of a super-block, integer
 * levels w_l (|w| <= 62), two integer sub-scales (elements 0..15 and 16..31;
 * equal where the format has one scale per 32) and one fp32 factor per
 * super-block, so that value_l = factor * sc * w_l exactly in the reals:
 *   IQ2_XXS / IQ2_XS / IQ2_S: w = grid level (8, 25, 43) with its sign,
 *     sc = 2 ls + 1, factor = d / 8   (ggml: d * (0.5 + ls) * 0.25 * level)
 *   IQ3_XXS: w = signed grid level (4..62), sc = 2 ls + 1, factor = d / 4
 *   IQ3_S:   w = signed grid level (1..15), sc = 2 ls + 1, factor = d
 *   IQ1_S / IQ1_M: w = 8 g + (delta < 0 ? -1 : 1), g the grid's -1 / 0 / 1,
 *     sc = 2 s + 1, factor = d / 8    (ggml: d * (2 s + 1) * (g +- 0.125))
 *   TQ1_0 / TQ2_0: w = q - 1 (q a trit), sc = 1, factor = d
 * The factors are exact (a power of two times an fp16). GET_ROWS uses ggml's
 * own float formulas instead (qmm_dequantize_row), which these equal up to
 * ggml's roundings. docs/formats.md gives the bit layouts. */
#ifndef QMM_IQ_QUANTS_H
#define QMM_IQ_QUANTS_H

#include <stdint.h>

#include "base/bytes.h"
#include "qmatmul.h"

typedef struct qmm_block_iq2_xxs {
    uint16_t d;
    uint8_t qs[64]; /* per 32-block: 4 grid indices (bytes), then a LE uint32: 4 x 7-bit sign codes, ls in bits 28..31 */
} qmm_block_iq2_xxs;

typedef struct qmm_block_iq2_xs {
    uint16_t d;
    uint16_t qs[32];   /* per 8 elements: grid index (9 bits), sign code (7 bits) */
    uint8_t scales[8]; /* per 32-block: ls of elements 0..15 (low nibble), 16..31 (high) */
} qmm_block_iq2_xs;

typedef struct qmm_block_iq2_s {
    uint16_t d;
    uint8_t qs[32];    /* per 8 elements: grid index bits 0..7 */
    uint8_t signs[32]; /* per 8 elements: bit l set = element l negative */
    uint8_t qh[8];     /* per 32-block: grid index bits 8..9 of its 4 groups, 2 bits each */
    uint8_t scales[8]; /* as IQ2_XS */
} qmm_block_iq2_s;

typedef struct qmm_block_iq3_xxs {
    uint16_t d;
    uint8_t qs[64];    /* per 4 elements: grid index */
    uint8_t signs[32]; /* per 32-block a LE uint32 as IQ2_XXS's */
} qmm_block_iq3_xxs;

typedef struct qmm_block_iq3_s {
    uint16_t d;
    uint8_t qs[64];    /* per 4 elements: grid index bits 0..7 */
    uint8_t qh[8];     /* per 32-block: bit g is grid index bit 8 of its 4-group g */
    uint8_t signs[32]; /* per 8 elements, as IQ2_S */
    uint8_t scales[4]; /* per 32-block j: nibble j % 2 of byte j / 2 */
} qmm_block_iq3_s;

typedef struct qmm_block_iq1_s {
    uint16_t d;
    uint8_t qs[32]; /* per 8 elements: grid index bits 0..7 */
    uint16_t qh[8]; /* per 32-block: index bits 8..10 of group g at bits 3g; s at 12..14; bit 15: delta < 0 */
} qmm_block_iq1_s;

typedef struct qmm_block_iq1_m {
    uint8_t qs[32];    /* per 8 elements: grid index bits 0..7 */
    uint8_t qh[16];    /* per 8 elements a nibble (byte g / 2, low first): index bits 8..10, bit 3: delta < 0 */
    uint8_t scales[8]; /* 4 LE uint16: 3-bit s per 16 elements (4 per uint16); fp16 d in their top nibbles */
} qmm_block_iq1_m;

typedef struct qmm_block_tq1_0 {
    uint8_t qs[48]; /* 5 trits per byte (elements 0..239), see qmm_iq_level */
    uint8_t qh[4];  /* 4 trits per byte (elements 240..255) */
    uint16_t d;
} qmm_block_tq1_0;

typedef struct qmm_block_tq2_0 {
    uint8_t qs[64]; /* 2-bit q, element 128h + 32s + l in qs[32h + l] bits 2s (as Q2_K) */
    uint16_t d;
} qmm_block_tq2_0;

_Static_assert(sizeof(qmm_block_iq2_xxs) == 66, "IQ2_XXS block is 66 bytes");
_Static_assert(sizeof(qmm_block_iq2_xs) == 74, "IQ2_XS block is 74 bytes");
_Static_assert(sizeof(qmm_block_iq2_s) == 82, "IQ2_S block is 82 bytes");
_Static_assert(sizeof(qmm_block_iq3_xxs) == 98, "IQ3_XXS block is 98 bytes");
_Static_assert(sizeof(qmm_block_iq3_s) == 110, "IQ3_S block is 110 bytes");
_Static_assert(sizeof(qmm_block_iq1_s) == 50, "IQ1_S block is 50 bytes");
_Static_assert(sizeof(qmm_block_iq1_m) == 56, "IQ1_M block is 56 bytes");
_Static_assert(sizeof(qmm_block_tq1_0) == 54, "TQ1_0 block is 54 bytes");
_Static_assert(sizeof(qmm_block_tq2_0) == 66, "TQ2_0 block is 66 bytes");

/* The grids (src/formats/iq_grids.c): an index names the unsigned levels of
 * 8 (IQ2, IQ1: -1 / 0 / 1) or 4 (IQ3) consecutive weights. */
extern const uint8_t qmm_grid_iq2xxs[256][8];
extern const uint8_t qmm_grid_iq2xs[512][8];
extern const uint8_t qmm_grid_iq2s[1024][8];
extern const uint8_t qmm_grid_iq3xxs[256][4];
extern const uint8_t qmm_grid_iq3s[512][4];
extern const int8_t qmm_grid_iq1s[2048][8];

/* The 8 signs of a 7-bit sign code (IQ2_XXS, IQ2_XS, IQ3_XXS): bit l set =
 * element l negative; bit 7 makes the count of negatives even. */
static inline uint8_t qmm_iq_sign_bits(unsigned code7) {
    const unsigned c = code7 & 127u;
    return (uint8_t)(c | ((unsigned)__builtin_parity(c) << 7));
}

/* 1 for the nine types above. */
int qmm_type_is_iq_grid(qmm_type t);
/* The integer level w of element l (0..255) of super-block `block`. */
int qmm_iq_level(qmm_type t, const void *block, int l);
/* The integer sub-scale of elements 16 i .. 16 i + 15 (i 0..15). */
int qmm_iq_subscale(qmm_type t, const void *block, int i);

/* IQ1_M's fp16 d, gathered from the top nibbles of its scales. */
static inline uint16_t qmm_iq1_m_d(const qmm_block_iq1_m *b) {
    const uint16_t s0 = qmm_get16(b->scales), s1 = qmm_get16(b->scales + 2), s2 = qmm_get16(b->scales + 4),
                   s3 = qmm_get16(b->scales + 6);
    return (uint16_t)((s0 >> 12) | ((s1 >> 8) & 0x00f0u) | ((s2 >> 4) & 0x0f00u) | (s3 & 0xf000u));
}

/* The two facts of a super-block's factor: the fp16 bits of its d, and the
 * power of two the type scales d by (0 for other types). Kernels combine
 * them with their own fp16 conversion (exact, so any conversion agrees). */
static inline uint16_t qmm_iq_d_bits(qmm_type t, const void *block) {
    switch (t) {
    case QMM_TYPE_IQ1_M: return qmm_iq1_m_d(block);
    case QMM_TYPE_TQ1_0: return ((const qmm_block_tq1_0 *)block)->d;
    case QMM_TYPE_TQ2_0: return ((const qmm_block_tq2_0 *)block)->d;
    default: return qmm_get16(block); /* the IQ2 / IQ3 / IQ1_S blocks start with d */
    }
}

static inline float qmm_iq_d_multiplier(qmm_type t) {
    switch (t) {
    case QMM_TYPE_IQ2_XXS:
    case QMM_TYPE_IQ2_XS:
    case QMM_TYPE_IQ2_S:
    case QMM_TYPE_IQ1_S:
    case QMM_TYPE_IQ1_M: return 0.125f;
    case QMM_TYPE_IQ3_XXS: return 0.25f;
    case QMM_TYPE_IQ3_S:
    case QMM_TYPE_TQ1_0:
    case QMM_TYPE_TQ2_0: return 1.0f;
    default: return 0.0f;
    }
}

/* The super-block's fp32 factor (exact). */
static inline float qmm_iq_factor(qmm_type t, const void *block) {
    return qmm_fp16_to_fp32(qmm_iq_d_bits(t, block)) * qmm_iq_d_multiplier(t);
}

/* ggml's dequantization of one row of k elements (k % 256 == 0). */
void qmm_dequantize_row_iq(qmm_type t, const void *src, float *dst, int64_t k);

#endif
