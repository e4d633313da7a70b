/* The i-quant grid and ternary types (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S,
 * IQ3_XXS, IQ3_S, TQ1_0, TQ2_0) on x86: the AVX2 and AVX-512 VNNI families
 * (256-bit integer vectors; the AVX-512 decode of the grid types, 512-bit).
 *
 * Packed weights are the plain GGUF rows (qmm_ref_rows_*), except for the
 * ternary types' 8-row groups of interleaved words (below); activations are
 * the reference rows of qmm_act_block. The numerics are the reference's
 * (src/kernels/ref/ref_quant_kernels.c, iq_grid_terms): per output and
 * 32-block in ascending k, isum = sc_a * dot(0..15) + sc_b * dot(16..31)
 * exactly in int32, then acc = fmaf((float)isum, factor * x_d, acc).
 *
 * Weight rows go in groups of QMM_IQG_NR = 8, one int32 / float lane each.
 *
 * Prefill (gemm): activation chunks of QMM_IQG_MC rows run outermost, so a
 * chunk stays in L2 while the weight groups stream past. For QMM_IQG_CHUNK_SB
 * super-blocks at a time a group's blocks are expanded once into an L1
 * scratch: w + 64 as uint8 (1..126), transposed so that one vector holds 4
 * consecutive k of all 8 rows, with the sub-scales and factors. A register
 * tile of QMM_IQG_MR activation rows runs over it: per 32-block, 8
 * multiply-adds of a panel vector with 4 broadcast activation bytes (the
 * includer's iqg_dot_acc) give each row's two 16-element sums plus 64 times
 * the activation's sums (carried by the packed activation block), which come
 * off; times the sub-scales, one exact int32 per row, and the float step is
 * one vector fma across the rows. Nothing is summed horizontally.
 *
 * Decode (gemv): no panel. Each row's blocks are dotted in place against the
 * activation block (vpsignb puts the weights' signs on the activations); a
 * row's 8 block vectors of a super-block reduce to one vector of its 8
 * isums, the 8 rows' vectors are transposed so that lane r is row r, and the
 * float step is one vector fma per block across the rows, in ascending k.
 * Types whose levels allow it take a cheaper exact form: IQ1_S dots g
 * (w = 8 g + delta) and adds delta times the sum, IQ1_M dots g and adds its
 * deltas times 8-element activation sums. The ternary types need neither a
 * panel nor a reduction: their packed words are panel vectors already
 * (qmm_iqg_tq_sb), dotted as w + 1 with the activation sum taken off.
 *
 * The AVX-512 VNNI family decodes the grid types with 512-bit vectors, two
 * blocks per vector (qmm_iqg_isums512): the signs go on the activations by
 * a 64-bit mask (the stored sign bits, or sign bytes made in vectors from
 * the 7-bit codes), IQ1_S / IQ1_M dot g + 1 and take the half sums off.
 *
 * Both decodes take what a row needs in general registers from vectors made
 * for the group's 8 rows before the rows' loop (qmm_iqg_prepare): the grid
 * indices that take several instructions to assemble (IQ1_S, IQ1_M, IQ2_S,
 * IQ3_S) and the sign bytes of IQ2_XS and the XXS types (a 32-bit word a
 * block, which the AVX2 decode spreads to +-1 bytes for vpsignb). Per index
 * one load and one table load, or shifts of a 64-bit load, split so that the
 * load ports and integer pipes share the work; these, not the arithmetic,
 * bound the decode.
 *
 * The includer defines, before including this header:
 *   static inline __m256i iqg_dot_acc(__m256i acc, __m256i w_u8, __m256i x_s8);
 * acc plus the 8 int32 sums of 4 consecutive byte products (vpdpbusd, or
 * its AVX2 equivalent: every pair is at most 2 * 126 * 127 < 2^15), and
 *   static inline __m256i iqg_negate_where(__m256i x, uint32_t bits);
 * x with byte l negated where bit l is set (an AVX-512 masked subtract, or
 * vpsignb with the bits spread to bytes). */
#ifndef QMM_IQ_GRID_X86_H
#define QMM_IQ_GRID_X86_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/x86/act_q8_avx2.h"

/* The includer's hooks (see above). */
static inline __m256i iqg_dot_acc(__m256i acc, __m256i w_u8, __m256i x_s8);
static inline __m256i iqg_negate_where(__m256i x, uint32_t bits);

#define QMM_IQG_NR       8  /* weight rows per group: one float lane each */
#define QMM_IQG_CHUNK_SB 2  /* super-blocks expanded per scratch fill */
#define QMM_IQG_MC       64 /* activation rows per chunk (in L2 while the weights stream past) */
#define QMM_IQG_MR       4  /* activation rows per register tile */
#define QMM_IQG_CHUNK_B  (QMM_IQG_CHUNK_SB * 8)

#define QMM_IQG_INLINE static inline __attribute__((always_inline))

/* One chunk of expanded weights for QMM_IQG_NR rows. */
typedef struct qmm_iqg_scratch {
    uint8_t w[QMM_IQG_CHUNK_B][8][32];          /* per block and 4-group g: w + 64 of k 4g..4g+3, row r at 4 r */
    int32_t sc[QMM_IQG_CHUNK_B][2][QMM_IQG_NR]; /* the sub-scales of elements 0..15, 16..31, per row */
    float fac[QMM_IQG_CHUNK_SB][QMM_IQG_NR];    /* the super-block factors */
} qmm_iqg_scratch;

/* Eight 4-byte grid entries in order, written as copies into a buffer that
 * one vector load reads: GCC builds the vector straight from the table
 * (vmovd / vpinsrd with memory operands, two vpunpcklqdq, a vinserti128),
 * where pairs joined in scalar registers became zero-extends, shifts and
 * ors (IQ3_S decode 0.81 against 0.87-1.0 ms). */
QMM_IQG_INLINE __m256i qmm_iqg_grid4x8(const uint8_t (*grid)[4], unsigned i0, unsigned i1, unsigned i2, unsigned i3, unsigned i4,
                                       unsigned i5, unsigned i6, unsigned i7) {
    uint8_t buf[32] __attribute__((aligned(32)));
    memcpy(buf, grid[i0], 4);
    memcpy(buf + 4, grid[i1], 4);
    memcpy(buf + 8, grid[i2], 4);
    memcpy(buf + 12, grid[i3], 4);
    memcpy(buf + 16, grid[i4], 4);
    memcpy(buf + 20, grid[i5], 4);
    memcpy(buf + 24, grid[i6], 4);
    memcpy(buf + 28, grid[i7], 4);
    return _mm256_load_si256((const __m256i *)(const void *)buf);
}

/* Four 8-byte table entries in order, written the same way (GCC: vmovq /
 * vpinsrq with memory operands, a vinserti128). */
QMM_IQG_INLINE __m256i qmm_iqg_join8(const void *e0, const void *e1, const void *e2, const void *e3) {
    uint8_t buf[32] __attribute__((aligned(32)));
    memcpy(buf, e0, 8);
    memcpy(buf + 8, e1, 8);
    memcpy(buf + 16, e2, 8);
    memcpy(buf + 24, e3, 8);
    return _mm256_load_si256((const __m256i *)(const void *)buf);
}

/* +1 / -1 per byte from 32 sign bits (bit l set = element l negative). */
QMM_IQG_INLINE __m256i qmm_iqg_signs(uint32_t bits) {
    const __m256i spread =
        _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((int64_t)0x8040201008040201ull);
    const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int32_t)bits), spread);
    const __m256i neg = _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
    return _mm256_or_si256(neg, _mm256_set1_epi8(1));
}

/* The top base-3 digit of each byte p, (p * 3) >> 8 = [p >= 86] + [p >= 171]
 * (0..2): TQ1_0's trit of q where p = q * 3^n mod 256. */
QMM_IQG_INLINE __m256i qmm_iqg_top_trit(__m256i p) {
    const __m256i ge86 = _mm256_cmpeq_epi8(_mm256_max_epu8(p, _mm256_set1_epi8(86)), p);
    const __m256i ge171 = _mm256_cmpeq_epi8(_mm256_max_epu8(p, _mm256_set1_epi8((char)171)), p);
    return _mm256_sub_epi8(_mm256_sub_epi8(_mm256_setzero_si256(), ge86), ge171); /* the compares give -1 when true */
}

/* The super-block's exact factor (qmm_iq_factor's, with F16C). */
static inline float qmm_iqg_factor(qmm_type kind, const uint8_t *blk) {
    return _cvtsh_ss(qmm_iq_d_bits(kind, blk)) * qmm_iq_d_multiplier(kind);
}

/* Bytes of 7-bit sign codes with their parity as bit 7 (qmm_iq_sign_bits:
 * the 8th sign makes the count of negatives even). */
QMM_IQG_INLINE __m256i qmm_iqg_with_parity(__m256i c) {
    /* bit 7 of entry i: the parity of nibble i */
    const __m256i par = _mm256_setr_epi8(0, -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0, 0, -128, -128, 0,
                                         -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0);
    const __m256i m15 = _mm256_set1_epi8(15);
    return _mm256_or_si256(c, _mm256_xor_si256(_mm256_shuffle_epi8(par, _mm256_and_si256(c, m15)),
                                               _mm256_shuffle_epi8(par, _mm256_and_si256(_mm256_srli_epi16(c, 4), m15))));
}

/* The sign bytes of a super-block, per 8-weight group in group order, so
 * that a block's 32 sign bits are one little-endian uint32 (the AVX2 decode
 * spreads them to bytes) and two blocks' one uint64 (the 512-bit decode's
 * mask register): IQ2_XS's from the top 7 bits of its codes, the
 * XXS types' from the four 7-bit codes of each block's sign word. Made in
 * vectors: looked up per group, 8 table loads per block were the bottleneck
 * (the load ports). */
QMM_IQG_INLINE void qmm_iqg_sign_bytes(qmm_type kind, const uint8_t *blk, uint8_t signs[32]) {
    __m256i c;
    if (kind == QMM_TYPE_IQ2_XS) {
        const __m256i c0 = _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 2)), 9);
        const __m256i c1 = _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 34)), 9);
        /* packus interleaves the 128-bit halves: groups 0-7, 16-23, 8-15, 24-31 */
        c = _mm256_permute4x64_epi64(_mm256_packus_epi16(c0, c1), 0xd8);
    } else {
        __m256i aux; /* lane jj: block jj's sign word */
        if (kind == QMM_TYPE_IQ3_XXS) {
            aux = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 66));
        } else { /* IQ2_XXS: the second word of each block's 8 bytes */
            const __m256 a = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 2)));
            const __m256 b = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 34)));
            aux = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8);
        }
        /* code g (bits 7 g) to byte g */
        c = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(aux, _mm256_set1_epi32(0x7f)),
                                            _mm256_and_si256(_mm256_slli_epi32(aux, 1), _mm256_set1_epi32(0x7f00))),
                            _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi32(aux, 2), _mm256_set1_epi32(0x7f0000)),
                                            _mm256_and_si256(_mm256_slli_epi32(aux, 3), _mm256_set1_epi32(0x7f000000))));
    }
    _mm256_storeu_si256((__m256i *)(void *)signs, qmm_iqg_with_parity(c));
    /* read back as mask registers: left to itself GCC would forward the
     * vector through shuffles to general registers */
    __asm__("" : "+m"(*(uint8_t(*)[32])signs));
}

/* What a row's super-block is prepared into before its blocks are read (by
 * the decode before the rows' loop, by the prefill's expansion): the grid
 * indices of IQ1_S, IQ1_M, IQ2_S, IQ3_S; the sign bytes of IQ2_XS and the
 * XXS types. */
typedef union qmm_iqg_row_prep {
    uint16_t idx[64];
    uint8_t signs[32];
} qmm_iqg_row_prep;

/* IQ1_M's 32 grid indices of a super-block (index bits 0..7 from the index
 * bytes, 8..10 from the group's nibble), made in vectors: assembled in
 * general registers they took 4-5 instructions each (the integer pipes
 * were the bottleneck). */
QMM_IQG_INLINE void qmm_iqg_iq1m_indices(const uint8_t *blk, uint16_t idx[32]) {
    for (int h = 0; h < 2; h++) { /* groups 16 h .. 16 h + 15 */
        const __m256i q = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 16 * h)));
        /* byte b of the nibbles in int32 lane b: its low nibble is group 2 b's, the high one group 2 b + 1's */
        const __m256i t = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(blk + 32 + 8 * h)));
        const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi32(t, 8), _mm256_set1_epi32(0x700)),
                                           _mm256_and_si256(_mm256_slli_epi32(t, 20), _mm256_set1_epi32(0x7000000)));
        _mm256_storeu_si256((__m256i *)(void *)(idx + 16 * h), _mm256_or_si256(q, hi));
    }
    __asm__("" : "+m"(*(uint16_t(*)[32])idx)); /* loads read it back, not shuffles (GCC would forward the vectors) */
}

/* IQ3_S's 64 grid indices of a super-block (bits 0..7 from the index
 * bytes, bit 8 from the block's high-bit byte), made in vectors. */
QMM_IQG_INLINE void qmm_iqg_iq3s_indices(const uint8_t *blk, uint16_t idx[64]) {
    /* lane l of 16: bit l % 8 of the high-bit byte of block 2 t + l / 8, moved to bit 8 */
    const __m256i scale = _mm256_setr_epi16(256, 128, 64, 32, 16, 8, 4, 2, 256, 128, 64, 32, 16, 8, 4, 2);
    const __m256i bit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128);
    const __m128i qh = _mm_loadl_epi64((const __m128i *)(const void *)(blk + 66));
    for (int t = 0; t < 4; t++) { /* blocks 2 t, 2 t + 1 */
        const __m256i q = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * t)));
        const __m128i sel =
            _mm_setr_epi8((char)(2 * t), (char)(2 * t), (char)(2 * t), (char)(2 * t), (char)(2 * t), (char)(2 * t), (char)(2 * t),
                          (char)(2 * t), (char)(2 * t + 1), (char)(2 * t + 1), (char)(2 * t + 1), (char)(2 * t + 1),
                          (char)(2 * t + 1), (char)(2 * t + 1), (char)(2 * t + 1), (char)(2 * t + 1));
        const __m256i h = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qh, sel));
        const __m256i b8 = _mm256_mullo_epi16(_mm256_and_si256(h, bit), scale);
        _mm256_storeu_si256((__m256i *)(void *)(idx + 16 * t), _mm256_or_si256(q, b8));
    }
    __asm__("" : "+m"(*(uint16_t(*)[64])idx)); /* loads read it back, not shuffles */
}

/* IQ1_S's 32 grid indices of a super-block (bits 0..7 from the index bytes,
 * 8..10 from the block's high word, 3 per group), made in vectors. */
QMM_IQG_INLINE void qmm_iqg_iq1s_indices(const uint8_t *blk, uint16_t idx[32]) {
    /* times 2^(9 - 3 g): group g's 3 bits to bits 9..11 */
    const __m256i up = _mm256_setr_epi16(512, 64, 8, 1, 512, 64, 8, 1, 512, 64, 8, 1, 512, 64, 8, 1);
    for (int t = 0; t < 2; t++) { /* blocks 4 t .. 4 t + 3 */
        const __m256i q = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * t)));
        /* lane l of 16: the high word of block 4 t + l / 4 */
        const __m128i w4 = _mm_loadl_epi64((const __m128i *)(const void *)(blk + 34 + 8 * t));
        const __m128i w = _mm_shuffle_epi8(w4, _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3));
        const __m128i w2 = _mm_shuffle_epi8(w4, _mm_setr_epi8(4, 5, 4, 5, 4, 5, 4, 5, 6, 7, 6, 7, 6, 7, 6, 7));
        const __m256i h = _mm256_inserti128_si256(_mm256_castsi128_si256(w), w2, 1);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(_mm256_mullo_epi16(h, up), 1), _mm256_set1_epi16(0x700));
        _mm256_storeu_si256((__m256i *)(void *)(idx + 16 * t), _mm256_or_si256(q, hi));
    }
    __asm__("" : "+m"(*(uint16_t(*)[32])idx)); /* loads read it back, not shuffles */
}

/* IQ2_S's 32 grid indices of a super-block (bits 0..7 from the index bytes,
 * 8..9 from the block's high-bit byte, 2 per group), made in vectors. */
QMM_IQG_INLINE void qmm_iqg_iq2s_indices(const uint8_t *blk, uint16_t idx[32]) {
    /* lane l of 16: bits 2 (l % 4) of the high-bit byte of block 4 t + l / 4, moved to bits 8..9 */
    const __m256i scale = _mm256_setr_epi16(256, 64, 16, 4, 256, 64, 16, 4, 256, 64, 16, 4, 256, 64, 16, 4);
    const __m256i bits = _mm256_setr_epi16(3, 12, 48, 192, 3, 12, 48, 192, 3, 12, 48, 192, 3, 12, 48, 192);
    const __m128i qh = _mm_loadl_epi64((const __m128i *)(const void *)(blk + 66));
    for (int t = 0; t < 2; t++) { /* blocks 4 t .. 4 t + 3 */
        const __m256i q = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * t)));
        const char b0 = (char)(4 * t), b1 = (char)(4 * t + 1), b2 = (char)(4 * t + 2), b3 = (char)(4 * t + 3);
        const __m128i sel = _mm_setr_epi8(b0, b0, b0, b0, b1, b1, b1, b1, b2, b2, b2, b2, b3, b3, b3, b3);
        const __m256i h = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qh, sel));
        _mm256_storeu_si256((__m256i *)(void *)(idx + 16 * t),
                            _mm256_or_si256(q, _mm256_mullo_epi16(_mm256_and_si256(h, bits), scale)));
    }
    __asm__("" : "+m"(*(uint16_t(*)[32])idx)); /* loads read it back, not shuffles */
}

/* A row's super-block prepared (qmm_iqg_row_prep), before its blocks are read. */
QMM_IQG_INLINE void qmm_iqg_prepare(qmm_type kind, const uint8_t *blk, qmm_iqg_row_prep *pre) {
    if (kind == QMM_TYPE_IQ1_S)
        qmm_iqg_iq1s_indices(blk, pre->idx);
    else if (kind == QMM_TYPE_IQ1_M)
        qmm_iqg_iq1m_indices(blk, pre->idx);
    else if (kind == QMM_TYPE_IQ2_S)
        qmm_iqg_iq2s_indices(blk, pre->idx);
    else if (kind == QMM_TYPE_IQ3_S)
        qmm_iqg_iq3s_indices(blk, pre->idx);
    else /* IQ2_XS, IQ2_XXS, IQ3_XXS */
        qmm_iqg_sign_bytes(kind, blk, pre->signs);
}

/* The types whose grid indices take several instructions to assemble (some
 * of their bits elsewhere in the super-block): made by qmm_iqg_prepare. */
QMM_IQG_INLINE int qmm_iqg_has_indices(qmm_type kind) {
    return kind == QMM_TYPE_IQ1_S || kind == QMM_TYPE_IQ1_M || kind == QMM_TYPE_IQ2_S || kind == QMM_TYPE_IQ3_S;
}

/* Block jj's grid entries from the prepared indices, one 256-bit vector:
 * |w| (IQ2_S, IQ3_S) or g (IQ1_S, IQ1_M). */
QMM_IQG_INLINE __m256i qmm_iqg_prepared_levels(qmm_type kind, const qmm_iqg_row_prep *pre, int jj) {
    if (kind == QMM_TYPE_IQ3_S) {
        const uint16_t *ix = pre->idx + 8 * jj;
        return qmm_iqg_grid4x8(qmm_grid_iq3s, ix[0], ix[1], ix[2], ix[3], ix[4], ix[5], ix[6], ix[7]);
    }
    const uint16_t *ix = pre->idx + 4 * jj;
    if (kind == QMM_TYPE_IQ2_S)
        return qmm_iqg_join8(qmm_grid_iq2s[ix[0]], qmm_grid_iq2s[ix[1]], qmm_grid_iq2s[ix[2]], qmm_grid_iq2s[ix[3]]);
    return qmm_iqg_join8(qmm_grid_iq1s[ix[0]], qmm_grid_iq1s[ix[1]], qmm_grid_iq1s[ix[2]], qmm_grid_iq1s[ix[3]]);
}

/* IQ1_M's per-8 deltas of 32-block jj as +-1 bytes (w = 8 g + delta): -1
 * where bit 4 g + 3 of the block's nibble word is set (group g: 64-bit lane g). */
QMM_IQG_INLINE __m256i qmm_iqg_iq1m_deltas(const uint8_t *blk, int jj) {
    const unsigned h = qmm_get16(blk + 32 + 2 * jj);
    const __m256i bit =
        _mm256_setr_epi64x(0x0008000800080008ll, 0x0080008000800080ll, 0x0800080008000800ll, (int64_t)0x8000800080008000ull);
    return _mm256_or_si256(_mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16((short)h), bit), bit), _mm256_set1_epi8(1));
}

/* IQ2_S and IQ3_S: the sign bits of 32-block jj (bit l set: element l negative). */
static inline uint32_t qmm_iqg_explicit_signs(qmm_type kind, const uint8_t *blk, int jj) {
    return qmm_get32(blk + (kind == QMM_TYPE_IQ2_S ? 34 : 74) + 4 * jj);
}

/* 32-block jj of a super-block (pre: its preparation, for the types with
 * indices to assemble): |w| (uint8), a sign source for vpsignb and the two
 * sub-scales (elements 0..15, 16..31). */
QMM_IQG_INLINE void qmm_iqg_expand(qmm_type kind, const uint8_t *blk, const qmm_iqg_row_prep *pre, int jj, __m256i *absw,
                                   __m256i *sgn, int *sc0, int *sc1) {
    if (kind == QMM_TYPE_IQ2_XXS) {
        const uint8_t *q8 = blk + 2 + 8 * jj;
        const uint32_t aux = qmm_get32(q8 + 4);
        *absw = qmm_iqg_join8(qmm_grid_iq2xxs[q8[0]], qmm_grid_iq2xxs[q8[1]], qmm_grid_iq2xxs[q8[2]], qmm_grid_iq2xxs[q8[3]]);
        *sgn = qmm_iqg_signs(qmm_get32(pre->signs + 4 * jj));
        *sc0 = *sc1 = 2 * (int)(aux >> 28) + 1;
    } else if (kind == QMM_TYPE_IQ2_XS) {
        const uint8_t *q = blk + 2 + 8 * jj;
        const uint64_t qq = qmm_get64(q);
        const unsigned q0 = (unsigned)qq & 0xffffu, q1 = (unsigned)(qq >> 16) & 0xffffu, q2 = (unsigned)(qq >> 32) & 0xffffu,
                       q3 = (unsigned)(qq >> 48);
        *absw = qmm_iqg_join8(qmm_grid_iq2xs[q0 & 511u], qmm_grid_iq2xs[q1 & 511u], qmm_grid_iq2xs[q2 & 511u],
                              qmm_grid_iq2xs[q3 & 511u]);
        *sgn = qmm_iqg_signs(qmm_get32(pre->signs + 4 * jj));
        const unsigned s = blk[66 + jj];
        *sc0 = 2 * (int)(s & 15u) + 1;
        *sc1 = 2 * (int)(s >> 4) + 1;
    } else if (kind == QMM_TYPE_IQ2_S) {
        *absw = qmm_iqg_prepared_levels(kind, pre, jj);
        *sgn = qmm_iqg_signs(qmm_iqg_explicit_signs(kind, blk, jj));
        const unsigned s = blk[74 + jj];
        *sc0 = 2 * (int)(s & 15u) + 1;
        *sc1 = 2 * (int)(s >> 4) + 1;
    } else if (kind == QMM_TYPE_IQ3_XXS) {
        const uint8_t *q = blk + 2 + 8 * jj;
        const uint32_t aux = qmm_get32(blk + 66 + 4 * jj);
        *absw = qmm_iqg_grid4x8(qmm_grid_iq3xxs, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]);
        *sgn = qmm_iqg_signs(qmm_get32(pre->signs + 4 * jj));
        *sc0 = *sc1 = 2 * (int)(aux >> 28) + 1;
    } else if (kind == QMM_TYPE_IQ3_S) {
        *absw = qmm_iqg_prepared_levels(kind, pre, jj);
        *sgn = qmm_iqg_signs(qmm_iqg_explicit_signs(kind, blk, jj));
        *sc0 = *sc1 = 2 * (int)((blk[106 + jj / 2] >> (4 * (jj % 2))) & 15) + 1;
    } else { /* IQ1_S, IQ1_M */
        const __m256i g = qmm_iqg_prepared_levels(kind, pre, jj);
        __m256i delta;
        if (kind == QMM_TYPE_IQ1_S) {
            const unsigned qh = qmm_get16(blk + 34 + 2 * jj);
            delta = _mm256_set1_epi8(qh & 0x8000u ? -1 : 1);
            *sc0 = *sc1 = 2 * (int)((qh >> 12) & 7u) + 1;
        } else {
            delta = qmm_iqg_iq1m_deltas(blk, jj);
            const unsigned sw = qmm_get16(blk + 48 + 2 * (jj / 2));
            *sc0 = 2 * (int)((sw >> (3 * (2 * (jj % 2)))) & 7u) + 1;
            *sc1 = 2 * (int)((sw >> (3 * (2 * (jj % 2) + 1))) & 7u) + 1;
        }
        const __m256i g2 = _mm256_add_epi8(g, g), g4 = _mm256_add_epi8(g2, g2);
        const __m256i w = _mm256_add_epi8(_mm256_add_epi8(g4, g4), delta);
        *absw = _mm256_abs_epi8(w);
        *sgn = w;
    }
}

/* The 8 x 8 transpose of 4-byte groups (int32 lanes): out[g] holds group g
 * of rows 0..7. */
QMM_IQG_INLINE void qmm_iqg_transpose8(const __m256i r[8], __m256i out[8]) {
    __m256i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);     /* groups 0, 1 | 4, 5 of rows 2i, 2i+1 */
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]); /* groups 2, 3 | 6, 7 */
    }
    for (int h = 0; h < 2; h++) {                                     /* rows 4h .. 4h + 3 */
        u[4 * h] = _mm256_unpacklo_epi64(t[4 * h], t[4 * h + 2]);     /* group 0 | 4 */
        u[4 * h + 1] = _mm256_unpackhi_epi64(t[4 * h], t[4 * h + 2]); /* group 1 | 5 */
        u[4 * h + 2] = _mm256_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
        u[4 * h + 3] = _mm256_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
    }
    for (int g = 0; g < 4; g++) {
        out[g] = _mm256_permute2x128_si256(u[g], u[4 + g], 0x20);
        out[4 + g] = _mm256_permute2x128_si256(u[g], u[4 + g], 0x31);
    }
}

/* Block b of the scratch from 32-block jj of the super-blocks at blk0 of
 * `rows` rows (QMM_IQG_NR as a constant in the common case) and their
 * preparations; rows beyond are zero. */
QMM_IQG_INLINE void qmm_iqg_expand8(qmm_type kind, const uint8_t *blk0, size_t row_bytes, const qmm_iqg_row_prep *pre, int rows,
                                    int jj, __m256i *panel, __m256i *scv) {
    __m256i wr[QMM_IQG_NR];
    int sc0[QMM_IQG_NR], sc1[QMM_IQG_NR];
    for (int r = 0; r < QMM_IQG_NR; r++) {
        if (r >= rows) {
            wr[r] = _mm256_setzero_si256();
            sc0[r] = sc1[r] = 0;
            continue;
        }
        __m256i aw, sg;
        qmm_iqg_expand(kind, blk0 + (size_t)r * row_bytes, &pre[r], jj, &aw, &sg, &sc0[r], &sc1[r]);
        wr[r] = _mm256_add_epi8(_mm256_sign_epi8(aw, sg), _mm256_set1_epi8(64));
    }
    scv[0] = _mm256_setr_epi32(sc0[0], sc0[1], sc0[2], sc0[3], sc0[4], sc0[5], sc0[6], sc0[7]);
    scv[1] = _mm256_setr_epi32(sc1[0], sc1[1], sc1[2], sc1[3], sc1[4], sc1[5], sc1[6], sc1[7]);
    qmm_iqg_transpose8(wr, panel);
}

/* ------------------------------------------------ the ternary types' layout
 * TQ1_0 and TQ2_0 rows are packed in groups of QMM_IQG_NR (the last group:
 * the rows left) with each super-block's 4-byte words side by side: word c
 * of row r at 4 (c rows + r), then the rows' fp16 d. Every byte's levels
 * (TQ2_0: its 4 bit pairs, TQ1_0: its base-3 digits) are elements of one
 * 32-block each, and a word's 4 bytes are 4 consecutive elements; so a vector
 * of word c, one level per byte, is already a panel vector (lane r: 4
 * consecutive elements of row r) and nothing is transposed or reduced. The
 * bytes are GGUF's, only moved. */

/* 4-byte words per super-block of a row: TQ1_0 12 of qs and 1 of qh, TQ2_0
 * 16 of qs; d follows them. */
QMM_IQG_INLINE int qmm_iqg_tq_words(qmm_type kind) { return kind == QMM_TYPE_TQ1_0 ? 13 : 16; }

/* Where word c of row r (c == qmm_iqg_tq_words: its fp16 d) lies in a packed
 * super-block of a group of `rows` rows, and its width in bytes. */
QMM_IQG_INLINE size_t qmm_iqg_tq_offset(qmm_type kind, int c, size_t rows, size_t r) {
    const size_t nw = (size_t)qmm_iqg_tq_words(kind);
    return (size_t)c < nw ? 4 * ((size_t)c * rows + r) : 4 * nw * rows + 2 * r;
}
QMM_IQG_INLINE size_t qmm_iqg_tq_width(qmm_type kind, int c) { return c < qmm_iqg_tq_words(kind) ? 4 : 2; }

/* Level t of the bytes of word c (TQ2_0: bit pair t; TQ1_0: base-3 digit t,
 * top first) is 4-element group *g of 32-block *jj of the super-block. */
QMM_IQG_INLINE void qmm_iqg_tq_place(qmm_type kind, int c, int t, int *jj, int *g) {
    if (kind == QMM_TYPE_TQ2_0) { /* byte m of qs half h, pair t: element 128 h + 32 t + m */
        *jj = 4 * (c / 8) + t;
        *g = c % 8;
    } else if (c < 8) { /* qs[m], m < 32: element 32 t + m */
        *jj = t;
        *g = c;
    } else if (c < 12) { /* qs[32 + m]: element 160 + 16 t + m */
        *jj = 5 + t / 2;
        *g = 4 * (t % 2) + c - 8;
    } else { /* qh[m]: element 240 + 4 t + m */
        *jj = 7;
        *g = 4 + t;
    }
}

/* Levels per byte of word c: TQ1_0's qh word has 4 digits, the others 5 or 4 pairs. */
QMM_IQG_INLINE int qmm_iqg_tq_levels(qmm_type kind, int c) { return kind == QMM_TYPE_TQ2_0 ? 4 : c < 12 ? 5 : 4; }

/* Level t of each byte of v, plus one (0..2). p: for TQ1_0, v times 3^t
 * (mod 256, per byte), whose top base-3 digit is digit t of v. */
QMM_IQG_INLINE __m256i qmm_iqg_tq_u(qmm_type kind, __m256i v, __m256i p, int t) {
    if (kind == QMM_TYPE_TQ2_0)
        return _mm256_and_si256(_mm256_srli_epi16(v, 2 * t), _mm256_set1_epi8(3));
    return qmm_iqg_top_trit(p);
}

/* Packs rows [n0, n1) (n0 on a group; n1 too, or n1 == n). */
static inline void qmm_iqg_tq_pack(qmm_type kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                   void *dst) {
    const size_t bb = qmm_type_block_bytes(kind), row_bytes = qmm_row_size(kind, k);
    const int nw = qmm_iqg_tq_words(kind);
    for (int64_t j0 = n0; j0 < n1; j0 += QMM_IQG_NR) {
        const int rows = n - j0 < QMM_IQG_NR ? (int)(n - j0) : QMM_IQG_NR;
        uint8_t *grp = (uint8_t *)dst + (size_t)j0 * row_bytes;
        for (int r = 0; r < rows; r++) {
            const uint8_t *srow = (const uint8_t *)src + (size_t)(j0 + r) * stride;
            for (int64_t sb = 0; sb < k / 256; sb++) {
                uint8_t *o = grp + (size_t)sb * (size_t)rows * bb;
                const uint8_t *blk = srow + (size_t)sb * bb;
                for (int c = 0; c <= nw; c++)
                    memcpy(o + qmm_iqg_tq_offset(kind, c, (size_t)rows, (size_t)r), blk + 4 * c, qmm_iqg_tq_width(kind, c));
            }
        }
    }
}

/* Super-block sb of packed row `row` as its GGUF block (bb bytes at dst). */
static inline void qmm_iqg_tq_block(qmm_type kind, const void *packed, int64_t k, int64_t n, int64_t row, int64_t sb,
                                    uint8_t *dst) {
    const size_t bb = qmm_type_block_bytes(kind);
    const int64_t j0 = row - row % QMM_IQG_NR;
    const size_t rows = n - j0 < QMM_IQG_NR ? (size_t)(n - j0) : QMM_IQG_NR, r = (size_t)(row - j0);
    const int nw = qmm_iqg_tq_words(kind);
    const uint8_t *o = (const uint8_t *)packed + (size_t)j0 * qmm_row_size(kind, k) + (size_t)sb * rows * bb;
    for (int c = 0; c <= nw; c++)
        memcpy(dst + 4 * c, o + qmm_iqg_tq_offset(kind, c, rows, r), qmm_iqg_tq_width(kind, c));
}

static inline void qmm_iqg_tq_unpack_row(qmm_type kind, const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    for (int64_t sb = 0; sb < k / 256; sb++)
        qmm_iqg_tq_block(kind, packed, k, n, row, sb, (uint8_t *)dst + (size_t)sb * qmm_type_block_bytes(kind));
}

/* Super-block sb of a group of `rows` < QMM_IQG_NR rows, widened to the
 * layout of a full group (the missing rows zero) at dst. */
static inline void qmm_iqg_tq_widen(qmm_type kind, const uint8_t *grp, int rows, int64_t sb, uint8_t *dst) {
    const size_t bb = qmm_type_block_bytes(kind);
    const int nw = qmm_iqg_tq_words(kind);
    const uint8_t *o = grp + (size_t)sb * (size_t)rows * bb;
    memset(dst, 0, QMM_IQG_NR * bb);
    for (int c = 0; c <= nw; c++)
        memcpy(dst + qmm_iqg_tq_offset(kind, c, QMM_IQG_NR, 0), o + qmm_iqg_tq_offset(kind, c, (size_t)rows, 0),
               qmm_iqg_tq_width(kind, c) * (size_t)rows);
}

/* The 8 rows' factors (d: qmm_iq_d_multiplier is 1 for the ternary types)
 * of a full group's super-block p. */
QMM_IQG_INLINE __m256 qmm_iqg_tq_factors(qmm_type kind, const uint8_t *p) {
    const __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(p + 4 * QMM_IQG_NR * qmm_iqg_tq_words(kind)));
    return _mm256_mul_ps(_mm256_cvtph_ps(d), _mm256_set1_ps(qmm_iq_d_multiplier(kind)));
}

/* The scratch's block 8 t .. 8 t + 7 from a full group's super-block p: w +
 * 64 = u + 63. */
QMM_IQG_INLINE void qmm_iqg_tq_expand(qmm_type kind, const uint8_t *p, int t, qmm_iqg_scratch *s) {
    _mm256_store_ps(s->fac[t], qmm_iqg_tq_factors(kind, p));
    for (int c = 0; c < qmm_iqg_tq_words(kind); c++) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * c));
        __m256i pw = v;
        for (int l = 0; l < qmm_iqg_tq_levels(kind, c); l++) {
            int jj, g;
            qmm_iqg_tq_place(kind, c, l, &jj, &g);
            _mm256_store_si256((__m256i *)(void *)s->w[8 * t + jj][g],
                               _mm256_add_epi8(qmm_iqg_tq_u(kind, v, pw, l), _mm256_set1_epi8(63)));
            pw = _mm256_add_epi8(pw, _mm256_add_epi8(pw, pw));
        }
    }
}

/* Fills the scratch from super-blocks [sb0, sb0 + nsb) of `rows` (<= NR)
 * rows. */
QMM_IQG_INLINE void qmm_iqg_fill(qmm_type kind, const uint8_t *w, size_t row_bytes, int rows, int64_t sb0, int nsb,
                                 qmm_iqg_scratch *s) {
    const size_t bb = qmm_type_block_bytes(kind);
    if (kind == QMM_TYPE_TQ1_0 || kind == QMM_TYPE_TQ2_0) { /* w: the group (the ternary layout) */
        uint8_t wide[QMM_IQG_NR * sizeof(qmm_block_tq2_0)] __attribute__((aligned(32)));
        for (int t = 0; t < nsb; t++) {
            if (rows == QMM_IQG_NR) {
                qmm_iqg_tq_expand(kind, w + (size_t)(sb0 + t) * QMM_IQG_NR * bb, t, s);
            } else {
                qmm_iqg_tq_widen(kind, w, rows, sb0 + t, wide);
                qmm_iqg_tq_expand(kind, wide, t, s);
            }
        }
        return;
    }
    qmm_iqg_row_prep pre[QMM_IQG_NR];
    for (int t = 0; t < nsb; t++) {
        const uint8_t *blk0 = w + (size_t)(sb0 + t) * bb;
        for (int r = 0; r < QMM_IQG_NR; r++)
            s->fac[t][r] = r < rows ? qmm_iqg_factor(kind, blk0 + (size_t)r * row_bytes) : 0.0f;
        for (int r = 0; r < rows; r++)
            qmm_iqg_prepare(kind, blk0 + (size_t)r * row_bytes, &pre[r]);
        for (int jj = 0; jj < 8; jj++) {
            if (rows == QMM_IQG_NR)
                qmm_iqg_expand8(kind, blk0, row_bytes, pre, QMM_IQG_NR, jj, (__m256i *)(void *)s->w[8 * t + jj],
                                (__m256i *)(void *)s->sc[8 * t + jj]);
            else
                qmm_iqg_expand8(kind, blk0, row_bytes, pre, rows, jj, (__m256i *)(void *)s->w[8 * t + jj],
                                (__m256i *)(void *)s->sc[8 * t + jj]);
        }
    }
}

/* 0 for the ternary types (no sub-scales), 1 if a 32-block has one integer
 * sub-scale, 2 if the two halves of a 32-block
 * have their own. */
QMM_IQG_INLINE int qmm_iqg_scale_count(qmm_type kind) {
    if (kind == QMM_TYPE_TQ1_0 || kind == QMM_TYPE_TQ2_0)
        return 0;
    return kind == QMM_TYPE_IQ2_XS || kind == QMM_TYPE_IQ2_S || kind == QMM_TYPE_IQ1_M ? 2 : 1;
}

static inline __m256i qmm_iqg_bcast4(const int8_t *xq, int byte) {
    return _mm256_set1_epi32((int32_t)qmm_get32((const uint8_t *)xq + byte));
}

/* Activation block xb's exact isums against the 8 rows of scratch block b,
 * from h0 / h1 = the panel's dots with its first / second 16 elements: the
 * panel holds w + 64, so 64 times the activation's sums come off (the whole
 * sum of the reference layout; the two half sums of the sum16 layout, which
 * the types with two sub-scales per block use). */
QMM_IQG_INLINE __m256i qmm_iqg_tile_isum(qmm_type kind, const qmm_iqg_scratch *s, int b, const qmm_act_block *xb, __m256i h0,
                                         __m256i h1) {
    if (qmm_iqg_scale_count(kind) == 2) {
        const int32_t sums = xb->sum; /* low 16 bits: elements 0..15; high: 16..31 */
        const __m256i b0 = _mm256_set1_epi32(64 * (int32_t)(int16_t)(uint16_t)((uint32_t)sums & 0xffffu));
        const __m256i b1 = _mm256_set1_epi32(64 * (sums >> 16));
        return _mm256_add_epi32(
            _mm256_mullo_epi32(_mm256_sub_epi32(h0, b0), _mm256_load_si256((const __m256i *)(const void *)s->sc[b][0])),
            _mm256_mullo_epi32(_mm256_sub_epi32(h1, b1), _mm256_load_si256((const __m256i *)(const void *)s->sc[b][1])));
    }
    const __m256i d = _mm256_sub_epi32(_mm256_add_epi32(h0, h1), _mm256_set1_epi32(64 * xb->sum));
    if (qmm_iqg_scale_count(kind) == 0)
        return d;
    return _mm256_mullo_epi32(d, _mm256_load_si256((const __m256i *)(const void *)s->sc[b][0]));
}

/* mr (a constant, 1..QMM_IQG_MR) activation rows, QMM_IQG_MR rows of nb
 * blocks apart from x, over the scratch's cs super-blocks, into acc. */
QMM_IQG_INLINE void qmm_iqg_tile(qmm_type kind, const qmm_iqg_scratch *s, const qmm_act_block *x, int64_t nb, int mr, int cs,
                                 float (*acc)[QMM_IQG_NR]) {
    __m256 av[QMM_IQG_MR];
    for (int i = 0; i < mr; i++)
        av[i] = _mm256_load_ps(acc[i]);
    for (int t = 0; t < cs; t++) {
        const __m256 fac = _mm256_load_ps(s->fac[t]);
        for (int jj = 0; jj < 8; jj++) {
            const int b = 8 * t + jj;
            const __m256i *wp = (const __m256i *)(const void *)s->w[b];
            __m256i h0[QMM_IQG_MR], h1[QMM_IQG_MR];
            for (int i = 0; i < mr; i++)
                h0[i] = h1[i] = _mm256_setzero_si256();
            for (int g = 0; g < 4; g++) {
                const __m256i wa = _mm256_load_si256(wp + g), wb = _mm256_load_si256(wp + 4 + g);
                for (int i = 0; i < mr; i++) {
                    h0[i] = iqg_dot_acc(h0[i], wa, qmm_iqg_bcast4(x[i * nb + b].q, 4 * g));
                    h1[i] = iqg_dot_acc(h1[i], wb, qmm_iqg_bcast4(x[i * nb + b].q, 16 + 4 * g));
                }
            }
            for (int i = 0; i < mr; i++) {
                const qmm_act_block *xb = &x[i * nb + b];
                const __m256i is = qmm_iqg_tile_isum(kind, s, b, xb, h0[i], h1[i]);
                av[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(is), _mm256_mul_ps(fac, _mm256_set1_ps(xb->d)), av[i]);
            }
        }
    }
    for (int i = 0; i < mr; i++)
        _mm256_store_ps(acc[i], av[i]);
}

/* y[i][j] for i < m, j < n: the family's gemm. The loops run activation
 * chunks of QMM_IQG_MC rows outermost, so that a chunk stays in L2 while
 * every group of 8 weight rows streams past it; each group's blocks are
 * expanded once per chunk of activation rows. */
QMM_IQG_INLINE void qmm_iqg_gemm(qmm_type kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                 size_t ys) {
    const size_t row_bytes = qmm_row_size(kind, k);
    const int64_t nsb = k / 256, nb = k / 32;
    const qmm_act_block *act = (const qmm_act_block *)a;
    qmm_iqg_scratch s __attribute__((aligned(32)));
    float acc[QMM_IQG_MC][QMM_IQG_NR] __attribute__((aligned(32)));
    for (int64_t i0 = 0; i0 < m; i0 += QMM_IQG_MC) {
        const int mc = m - i0 < QMM_IQG_MC ? (int)(m - i0) : QMM_IQG_MC;
        for (int64_t j0 = 0; j0 < n; j0 += QMM_IQG_NR) {
            const int rows = n - j0 < QMM_IQG_NR ? (int)(n - j0) : QMM_IQG_NR;
            const uint8_t *wj = (const uint8_t *)w + (size_t)j0 * row_bytes;
            for (int i = 0; i < mc; i++)
                _mm256_store_ps(acc[i], _mm256_setzero_ps());
            for (int64_t sb0 = 0; sb0 < nsb; sb0 += QMM_IQG_CHUNK_SB) {
                const int cs = nsb - sb0 < QMM_IQG_CHUNK_SB ? (int)(nsb - sb0) : QMM_IQG_CHUNK_SB;
                qmm_iqg_fill(kind, wj, row_bytes, rows, sb0, cs, &s);
                const qmm_act_block *xc = act + i0 * nb + sb0 * 8;
                int i = 0;
                for (; i + QMM_IQG_MR <= mc; i += QMM_IQG_MR)
                    qmm_iqg_tile(kind, &s, xc + i * nb, nb, QMM_IQG_MR, cs, acc + i);
                if (mc - i == 3)
                    qmm_iqg_tile(kind, &s, xc + i * nb, nb, 3, cs, acc + i);
                else if (mc - i == 2)
                    qmm_iqg_tile(kind, &s, xc + i * nb, nb, 2, cs, acc + i);
                else if (mc - i == 1)
                    qmm_iqg_tile(kind, &s, xc + i * nb, nb, 1, cs, acc + i);
            }
            for (int i = 0; i < mc; i++) {
                float *yr = (float *)(void *)((char *)y + (size_t)(i0 + i) * ys) + j0;
                if (rows == QMM_IQG_NR)
                    _mm256_storeu_ps(yr, _mm256_load_ps(acc[i]));
                else
                    memcpy(yr, acc[i], (size_t)rows * sizeof(float));
            }
        }
    }
}

/* ------------------------------------------------------------- decode
 * One activation row: each weight row's blocks are dotted in place (no
 * panel): per 32-block one vector of 8 int32 lanes, lane g the 4 products of
 * elements 4g..4g+3 (lanes 0..3 the first 16, 4..7 the second 16). A row's
 * 8 blocks reduce to one vector of its 8 exact isums (lane jj), the 8 rows'
 * vectors are transposed so that lane r holds row r, and the float step is
 * then one vector fma per block across the rows, in ascending k as the
 * reference. */

/* 2 s + 1 per lane. */
QMM_IQG_INLINE __m256i qmm_iqg_odd(__m256i s) { return _mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1)); }

/* The sub-scales of a super-block, lane jj: of elements 0..15 of block jj
 * in *lo, of 16..31 in *hi (types with one sub-scale per block: *lo). */
QMM_IQG_INLINE void qmm_iqg_sb_scales(qmm_type kind, const uint8_t *blk, __m256i *lo, __m256i *hi) {
    const __m256i m15 = _mm256_set1_epi32(15);
    if (kind == QMM_TYPE_IQ2_XXS) { /* the top 4 bits of each block's second word */
        const __m256 a = _mm256_castsi256_ps(_mm256_srli_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 2)), 60));
        const __m256 b =
            _mm256_castsi256_ps(_mm256_srli_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 34)), 60));
        const __m256i s = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88)), 0xd8);
        *lo = qmm_iqg_odd(s);
    } else if (kind == QMM_TYPE_IQ3_XXS) { /* the top 4 bits of each block's sign word */
        *lo = qmm_iqg_odd(_mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 66)), 28));
    } else if (kind == QMM_TYPE_IQ3_S) { /* nibble jj of the 4 scale bytes */
        const __m256i s = _mm256_set1_epi32((int32_t)qmm_get32(blk + 106));
        *lo = qmm_iqg_odd(_mm256_and_si256(_mm256_srlv_epi32(s, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)), m15));
    } else if (kind == QMM_TYPE_IQ1_S) { /* bits 12..14 of qh[jj] */
        const __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(blk + 34)));
        *lo = qmm_iqg_odd(_mm256_and_si256(_mm256_srli_epi32(qh, 12), _mm256_set1_epi32(7)));
    } else if (kind == QMM_TYPE_IQ1_M) { /* 3-bit fields 2 (jj % 2) and 2 (jj % 2) + 1 of scale word jj / 2 */
        const __m256i ws = _mm256_cvtepu16_epi32(_mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(blk + 48)),
                                                                  _mm_setr_epi8(0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7)));
        *lo =
            qmm_iqg_odd(_mm256_and_si256(_mm256_srlv_epi32(ws, _mm256_setr_epi32(0, 6, 0, 6, 0, 6, 0, 6)), _mm256_set1_epi32(7)));
        *hi =
            qmm_iqg_odd(_mm256_and_si256(_mm256_srlv_epi32(ws, _mm256_setr_epi32(3, 9, 3, 9, 3, 9, 3, 9)), _mm256_set1_epi32(7)));
    } else { /* IQ2_XS, IQ2_S: one byte per block, a nibble per half */
        const __m256i s =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(blk + (kind == QMM_TYPE_IQ2_XS ? 66 : 74))));
        *lo = qmm_iqg_odd(_mm256_and_si256(s, m15));
        *hi = qmm_iqg_odd(_mm256_srli_epi32(s, 4));
    }
}
/* Pairwise sums of 4 vectors' lanes: [v0 lanes 0-3, v1 0-3, v2 0-3, v3 0-3 |
 * the same of lanes 4-7]. */
QMM_IQG_INLINE __m256i qmm_iqg_sum4x4(__m256i v0, __m256i v1, __m256i v2, __m256i v3) {
    const __m256i a = _mm256_add_epi32(_mm256_unpacklo_epi32(v0, v1), _mm256_unpackhi_epi32(v0, v1));
    const __m256i b = _mm256_add_epi32(_mm256_unpacklo_epi32(v2, v3), _mm256_unpackhi_epi32(v2, v3));
    return _mm256_add_epi32(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}

/* One weight row's super-block at blk times the 8 activation blocks x: the
 * 8 exact isums, lane jj. */
/* The 8-element group sums of 8 activation blocks: out[g] lane jj = the
 * sum of elements 8 g .. 8 g + 7 of block jj. */
QMM_IQG_INLINE void qmm_iqg_group_sums(const qmm_act_block *x, __m256i out[4]) {
    __m256i t[8], u[4];
    for (int jj = 0; jj < 8; jj++) /* vpsadbw of x + 128: per 8 bytes, their sum + 1024, one per 64-bit lane */
        t[jj] = _mm256_sad_epu8(
            _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)x[jj].q), _mm256_set1_epi8((char)0x80)),
            _mm256_setzero_si256());
    for (int i = 0; i < 4; i++) /* 64-bit lane g: [block 2 i, block 2 i + 1] */
        u[i] = _mm256_blend_epi32(t[2 * i], _mm256_slli_epi64(t[2 * i + 1], 32), 0xaa);
    const __m256i lo01 = _mm256_unpacklo_epi64(u[0], u[1]), hi01 = _mm256_unpackhi_epi64(u[0], u[1]);
    const __m256i lo23 = _mm256_unpacklo_epi64(u[2], u[3]), hi23 = _mm256_unpackhi_epi64(u[2], u[3]);
    const __m256i bias = _mm256_set1_epi32(1024);
    out[0] = _mm256_sub_epi32(_mm256_permute2x128_si256(lo01, lo23, 0x20), bias);
    out[1] = _mm256_sub_epi32(_mm256_permute2x128_si256(hi01, hi23, 0x20), bias);
    out[2] = _mm256_sub_epi32(_mm256_permute2x128_si256(lo01, lo23, 0x31), bias);
    out[3] = _mm256_sub_epi32(_mm256_permute2x128_si256(hi01, hi23, 0x31), bias);
}

#if defined(__AVX512BW__) && defined(__AVX512VNNI__)
/* The 8 blocks' dot products of a row, 4 vectors of two blocks each (128-bit
 * lane L of v[i]: block 2 i + L / 2, elements 16 (L % 2) .. + 15, in 4 int32
 * lanes), reduced to [the first halves' sums of blocks 0..7 | the second
 * halves']. */
QMM_IQG_INLINE __m512i qmm_iqg_halves512(const __m512i v[4]) {
    /* element i of lane L: the sum of v[i]'s lane L */
    const __m512i a = _mm512_add_epi32(_mm512_unpacklo_epi32(v[0], v[1]), _mm512_unpackhi_epi32(v[0], v[1]));
    const __m512i b = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2], v[3]), _mm512_unpackhi_epi32(v[2], v[3]));
    const __m512i r = _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15), r);
}

/* Blocks 2 i and 2 i + 1 of a row's super-block as one 512-bit vector of
 * |w| (IQ1_S, IQ1_M: g + 1, 0..2). */
QMM_IQG_INLINE __m512i qmm_iqg_pair_levels(qmm_type kind, const uint8_t *blk, const qmm_iqg_row_prep *pre, int i) {
    __m256i lo, hi;
    if (kind == QMM_TYPE_IQ2_XS) { /* the indices cut in general registers: a load each competed with the grid loads */
        const uint64_t q0 = qmm_get64(blk + 2 + 16 * i), q1 = qmm_get64(blk + 10 + 16 * i);
        lo = qmm_iqg_join8(qmm_grid_iq2xs[q0 & 511u], qmm_grid_iq2xs[(q0 >> 16) & 511u], qmm_grid_iq2xs[(q0 >> 32) & 511u],
                           qmm_grid_iq2xs[(q0 >> 48) & 511u]);
        hi = qmm_iqg_join8(qmm_grid_iq2xs[q1 & 511u], qmm_grid_iq2xs[(q1 >> 16) & 511u], qmm_grid_iq2xs[(q1 >> 32) & 511u],
                           qmm_grid_iq2xs[(q1 >> 48) & 511u]);
    } else if (kind == QMM_TYPE_IQ1_M || kind == QMM_TYPE_IQ1_S) {
        const uint16_t *ix = pre->idx + 8 * i;
        lo = qmm_iqg_join8(qmm_grid_iq1s[ix[0]], qmm_grid_iq1s[ix[1]], qmm_grid_iq1s[ix[2]], qmm_grid_iq1s[ix[3]]);
        hi = qmm_iqg_join8(qmm_grid_iq1s[ix[4]], qmm_grid_iq1s[ix[5]], qmm_grid_iq1s[ix[6]], qmm_grid_iq1s[ix[7]]);
        return _mm512_add_epi8(_mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1), _mm512_set1_epi8(1));
    } else if (kind == QMM_TYPE_IQ2_XXS) {
        const uint8_t *a = blk + 2 + 16 * i, *b = a + 8;
        lo = qmm_iqg_join8(qmm_grid_iq2xxs[a[0]], qmm_grid_iq2xxs[a[1]], qmm_grid_iq2xxs[a[2]], qmm_grid_iq2xxs[a[3]]);
        hi = qmm_iqg_join8(qmm_grid_iq2xxs[b[0]], qmm_grid_iq2xxs[b[1]], qmm_grid_iq2xxs[b[2]], qmm_grid_iq2xxs[b[3]]);
    } else if (kind == QMM_TYPE_IQ3_XXS) {
        /* half the indices cut from a register, half loaded: the integer
         * pipes and the load ports share the work (16.1 against 16.5 ns per
         * row and super-block all cut, 17.1 all loaded) */
        const uint64_t a = qmm_get64(blk + 2 + 16 * i);
        lo = qmm_iqg_grid4x8(qmm_grid_iq3xxs, a & 255u, (a >> 8) & 255u, (a >> 16) & 255u, (a >> 24) & 255u, (a >> 32) & 255u,
                             (a >> 40) & 255u, (a >> 48) & 255u, a >> 56);
        const uint8_t *b = blk + 10 + 16 * i;
        hi = qmm_iqg_grid4x8(qmm_grid_iq3xxs, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    } else if (kind == QMM_TYPE_IQ3_S) { /* as IQ3_XXS, from the indices made before */
        const uint64_t a = qmm_get64((const uint8_t *)(pre->idx + 16 * i)),
                       a2 = qmm_get64((const uint8_t *)(pre->idx + 16 * i + 4));
        const uint16_t *b = pre->idx + 16 * i + 8;
        lo = qmm_iqg_grid4x8(qmm_grid_iq3s, a & 0xffffu, (a >> 16) & 0xffffu, (a >> 32) & 0xffffu, a >> 48, a2 & 0xffffu,
                             (a2 >> 16) & 0xffffu, (a2 >> 32) & 0xffffu, a2 >> 48);
        hi = qmm_iqg_grid4x8(qmm_grid_iq3s, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    } else { /* IQ2_S: as IQ3_S, half the indices cut from a register, half loaded */
        const uint64_t a = qmm_get64((const uint8_t *)(pre->idx + 8 * i));
        const uint16_t *b = pre->idx + 8 * i + 4;
        lo = qmm_iqg_join8(qmm_grid_iq2s[a & 0xffffu], qmm_grid_iq2s[(a >> 16) & 0xffffu], qmm_grid_iq2s[(a >> 32) & 0xffffu],
                           qmm_grid_iq2s[a >> 48]);
        hi = qmm_iqg_join8(qmm_grid_iq2s[b[0]], qmm_grid_iq2s[b[1]], qmm_grid_iq2s[b[2]], qmm_grid_iq2s[b[3]]);
    }
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

/* Their 64 sign bits (bit l: element l negative). */
QMM_IQG_INLINE __mmask64 qmm_iqg_pair_signs(qmm_type kind, const uint8_t *blk, const qmm_iqg_row_prep *pre, int i) {
    if (kind == QMM_TYPE_IQ2_S || kind == QMM_TYPE_IQ3_S)
        return (__mmask64)qmm_get64(blk + (kind == QMM_TYPE_IQ2_S ? 34 : 74) + 8 * i);
    return (__mmask64)qmm_get64(pre->signs + 8 * i);
}

/* qmm_iqg_row_isums with 512-bit vectors, two blocks per vector (the
 * AVX-512 VNNI family): x2[i] holds activation blocks 2 i and 2 i + 1, nx2[i]
 * their negation, and the sign mask picks per byte. IQ1_S and IQ1_M dot g + 1
 * with x2 directly (w = 8 g + delta), so each block carries its activation
 * sum once more, which asum2 takes off: IQ1_S's low half the blocks' sums
 * (lane jj: block jj's), IQ1_M's [the first halves' sums | the second
 * halves']; IQ1_M's deltas come in from the 8-element group sums gs_a =
 * [group 0 | group 2], gs_b = [group 1 | group 3]. */
QMM_IQG_INLINE __m256i qmm_iqg_isums512(qmm_type kind, const uint8_t *blk, const qmm_iqg_row_prep *pre, const __m512i x2[4],
                                        const __m512i nx2[4], __m512i asum2, __m512i gs_a, __m512i gs_b) {
    __m512i v[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        const __m512i xs = kind == QMM_TYPE_IQ1_M || kind == QMM_TYPE_IQ1_S
                               ? x2[i]
                               : _mm512_mask_blend_epi8(qmm_iqg_pair_signs(kind, blk, pre, i), x2[i], nx2[i]);
        v[i] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), qmm_iqg_pair_levels(kind, blk, pre, i), xs);
    }
    __m512i halves = qmm_iqg_halves512(v);
    if (kind == QMM_TYPE_IQ1_M) {
        const __m512i gx = _mm512_sub_epi32(halves, asum2); /* sum g x per half */
        /* the deltas: -1 where bit 4 g + 3 of block jj's nibble word is set */
        const __m512i h =
            _mm512_broadcast_i64x4(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(blk + 32))));
        const __mmask16 neg_a = _mm512_test_epi32_mask(h, _mm512_inserti64x4(_mm512_set1_epi32(8), _mm256_set1_epi32(8 << 8), 1));
        const __mmask16 neg_b =
            _mm512_test_epi32_mask(h, _mm512_inserti64x4(_mm512_set1_epi32(8 << 4), _mm256_set1_epi32(8 << 12), 1));
        const __m512i da = _mm512_mask_sub_epi32(gs_a, neg_a, _mm512_setzero_si512(), gs_a);
        const __m512i db = _mm512_mask_sub_epi32(gs_b, neg_b, _mm512_setzero_si512(), gs_b);
        halves = _mm512_add_epi32(_mm512_slli_epi32(gx, 3), _mm512_add_epi32(da, db));
    }
    __m256i lo, hi;
    qmm_iqg_sb_scales(kind, blk, &lo, &hi);
    if (kind == QMM_TYPE_IQ1_S) { /* isum = sc (8 sum g x + delta sum x), delta -1 where bit 15 of qh is set */
        const __m256i sums = _mm512_castsi512_si256(asum2);
        const __m256i gx =
            _mm256_sub_epi32(_mm256_add_epi32(_mm512_castsi512_si256(halves), _mm512_extracti64x4_epi64(halves, 1)), sums);
        const __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(blk + 34)));
        const __m256i delta =
            _mm256_sub_epi32(_mm256_set1_epi32(1), _mm256_and_si256(_mm256_srli_epi32(qh, 14), _mm256_set1_epi32(2)));
        return _mm256_mullo_epi32(_mm256_add_epi32(_mm256_slli_epi32(gx, 3), _mm256_sign_epi32(sums, delta)), lo);
    }
    if (qmm_iqg_scale_count(kind) == 1)
        return _mm256_mullo_epi32(_mm256_add_epi32(_mm512_castsi512_si256(halves), _mm512_extracti64x4_epi64(halves, 1)), lo);
    const __m512i p = _mm512_mullo_epi32(halves, _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
    return _mm256_add_epi32(_mm512_castsi512_si256(p), _mm512_extracti64x4_epi64(p, 1));
}

/* The types the 512-bit decode runs. */
QMM_IQG_INLINE int qmm_iqg_decode512(qmm_type kind) {
    return kind == QMM_TYPE_IQ2_XS || kind == QMM_TYPE_IQ1_M || kind == QMM_TYPE_IQ1_S || kind == QMM_TYPE_IQ2_XXS ||
           kind == QMM_TYPE_IQ3_XXS || kind == QMM_TYPE_IQ2_S || kind == QMM_TYPE_IQ3_S;
}
#endif

/* asum: the activation's sums for the types that use them, lane jj: [0]
 * whole blocks (IQ1_S); [0..3] the 8-element groups g (IQ1_M). */
QMM_IQG_INLINE __m256i qmm_iqg_row_isums(qmm_type kind, const uint8_t *blk, const qmm_iqg_row_prep *pre, const qmm_act_block *x,
                                         const __m256i *asum) {
    const __m256i sums = asum[0];
    __m256i v[8];
#pragma GCC unroll 8
    for (int jj = 0; jj < 8; jj++) {
        const __m256i xq = _mm256_loadu_si256((const __m256i *)(const void *)x[jj].q);
        if (kind == QMM_TYPE_IQ2_S || kind == QMM_TYPE_IQ3_S) {
            v[jj] = iqg_dot_acc(_mm256_setzero_si256(), qmm_iqg_prepared_levels(kind, pre, jj),
                                iqg_negate_where(xq, qmm_iqg_explicit_signs(kind, blk, jj)));
        } else if (kind == QMM_TYPE_IQ1_S || kind == QMM_TYPE_IQ1_M) { /* g x; the deltas come in below */
            v[jj] = iqg_dot_acc(_mm256_setzero_si256(), _mm256_set1_epi8(1),
                                _mm256_sign_epi8(xq, qmm_iqg_prepared_levels(kind, pre, jj)));
        } else {
            __m256i absw, sgn;
            int sc0, sc1;
            qmm_iqg_expand(kind, blk, pre, jj, &absw, &sgn, &sc0, &sc1);
            (void)sc0;
            (void)sc1;
            v[jj] = iqg_dot_acc(_mm256_setzero_si256(), absw, _mm256_sign_epi8(xq, sgn));
        }
    }
    const __m256i a = qmm_iqg_sum4x4(v[0], v[1], v[2], v[3]); /* [first halves of blocks 0..3 | second halves] */
    const __m256i b = qmm_iqg_sum4x4(v[4], v[5], v[6], v[7]);
    const __m256i first = _mm256_permute2x128_si256(a, b, 0x20), second = _mm256_permute2x128_si256(a, b, 0x31);
    __m256i lo, hi;
    qmm_iqg_sb_scales(kind, blk, &lo, &hi);
    if (kind == QMM_TYPE_IQ1_S) { /* isum = sc (8 sum g x + delta sum x), delta -1 where bit 15 of qh is set */
        const __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(blk + 34)));
        const __m256i delta =
            _mm256_sub_epi32(_mm256_set1_epi32(1), _mm256_and_si256(_mm256_srli_epi32(qh, 14), _mm256_set1_epi32(2)));
        const __m256i g = _mm256_slli_epi32(_mm256_add_epi32(first, second), 3);
        return _mm256_mullo_epi32(_mm256_add_epi32(g, _mm256_sign_epi32(sums, delta)), lo);
    }
    if (kind == QMM_TYPE_IQ1_M) { /* per half: 8 sum g x + sum over its 2 groups of delta_g S_g */
        const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(blk + 32)));
        __m256i d[4];
        for (int g = 0; g < 4; g++) { /* delta_g = -1 where bit 4 g + 3 of block jj's word is set */
            const __m256i bit = _mm256_set1_epi32(8 << (4 * g));
            const __m256i neg = _mm256_cmpeq_epi32(_mm256_and_si256(h, bit), bit);
            d[g] = _mm256_sign_epi32(asum[g], _mm256_or_si256(neg, _mm256_set1_epi32(1)));
        }
        const __m256i fa = _mm256_add_epi32(_mm256_slli_epi32(first, 3), _mm256_add_epi32(d[0], d[1]));
        const __m256i fb = _mm256_add_epi32(_mm256_slli_epi32(second, 3), _mm256_add_epi32(d[2], d[3]));
        return _mm256_add_epi32(_mm256_mullo_epi32(fa, lo), _mm256_mullo_epi32(fb, hi));
    }
    if (qmm_iqg_scale_count(kind) == 1)
        return _mm256_mullo_epi32(_mm256_add_epi32(first, second), lo);
    return _mm256_add_epi32(_mm256_mullo_epi32(first, lo), _mm256_mullo_epi32(second, hi));
}

/* The ternary types' decode: a full group's super-block p times the 8
 * activation blocks x, added into av. Per 32-block, the 8 panel vectors of
 * u = w + 1 dot broadcast activation bytes into one vector of the 8 rows'
 * sums; the block's activation sum comes off (exact), then the float step. */
QMM_IQG_INLINE __m256 qmm_iqg_tq_sb(qmm_type kind, const uint8_t *p, const qmm_act_block *x, __m256 av) {
    __m256i acc[8];
    for (int jj = 0; jj < 8; jj++)
        acc[jj] = _mm256_setzero_si256();
        /* unrolled, so that acc[] stays in registers */
#pragma GCC unroll 16
    for (int c = 0; c < qmm_iqg_tq_words(kind); c++) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * c));
        __m256i pw = v;
#pragma GCC unroll 5
        for (int l = 0; l < qmm_iqg_tq_levels(kind, c); l++) {
            int jj, g;
            qmm_iqg_tq_place(kind, c, l, &jj, &g);
            acc[jj] = iqg_dot_acc(acc[jj], qmm_iqg_tq_u(kind, v, pw, l), qmm_iqg_bcast4(x[jj].q, 4 * g));
            pw = _mm256_add_epi8(pw, _mm256_add_epi8(pw, pw));
        }
    }
    const __m256 fac = qmm_iqg_tq_factors(kind, p);
    for (int jj = 0; jj < 8; jj++) {
        const __m256i is = _mm256_sub_epi32(acc[jj], _mm256_set1_epi32(x[jj].sum));
        av = _mm256_fmadd_ps(_mm256_cvtepi32_ps(is), _mm256_mul_ps(fac, _mm256_set1_ps(x[jj].d)), av);
    }
    return av;
}

QMM_IQG_INLINE void qmm_iqg_tq_gemv(qmm_type kind, int64_t n, int64_t k, const qmm_act_block *x, const uint8_t *w, float *y) {
    const size_t bb = qmm_type_block_bytes(kind), row_bytes = qmm_row_size(kind, k);
    const int64_t nsb = k / 256;
    int64_t j0 = 0;
    for (; j0 + QMM_IQG_NR <= n; j0 += QMM_IQG_NR) {
        const uint8_t *grp = w + (size_t)j0 * row_bytes;
        __m256 av = _mm256_setzero_ps();
        for (int64_t sb = 0; sb < nsb; sb++) {
            /* no software prefetch: a group is one contiguous stream (1 to 8 KB ahead measured no different) */
            av = qmm_iqg_tq_sb(kind, grp + (size_t)sb * QMM_IQG_NR * bb, x + 8 * sb, av);
        }
        _mm256_storeu_ps(y + j0, av);
    }
    if (j0 < n) {
        const int rows = (int)(n - j0);
        uint8_t wide[QMM_IQG_NR * 66] __attribute__((aligned(32)));
        float t[QMM_IQG_NR];
        __m256 av = _mm256_setzero_ps();
        for (int64_t sb = 0; sb < nsb; sb++) {
            qmm_iqg_tq_widen(kind, w + (size_t)j0 * row_bytes, rows, sb, wide);
            av = qmm_iqg_tq_sb(kind, wide, x + 8 * sb, av);
        }
        _mm256_storeu_ps(t, av);
        memcpy(y + j0, t, (size_t)rows * sizeof(float));
    }
}

/* One group of `rows` (<= 8) weight rows times one activation row. */
QMM_IQG_INLINE __m256 qmm_iqg_gemv_group(qmm_type kind, int rows, int64_t nsb, const qmm_act_block *x, const uint8_t *wj,
                                         size_t row_bytes) {
    const size_t bb = qmm_type_block_bytes(kind);
    const size_t pf_share = (QMM_IQG_NR * row_bytes / (size_t)nsb + 63) & ~(size_t)63;
    __m256 av = _mm256_setzero_ps();
    for (int64_t sb = 0; sb < nsb; sb++) {
        const qmm_act_block *xs = x + sb * 8;
        __m256i is[8], isj[8];
        /* 8 rows read side by side are 8 streams that the hardware prefetcher
         * follows badly; the next group's rows are one contiguous range:
         * fetch a share of it per super-block */
        for (size_t o = (size_t)sb * pf_share; o < (size_t)(sb + 1) * pf_share; o += 64)
            _mm_prefetch((const char *)wj + QMM_IQG_NR * row_bytes + o, _MM_HINT_T0);
        /* the 8 activation blocks' sums (IQ1_S uses them),
         * or their 8-element group sums (IQ1_M) */
        __m256i asum[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
        if (kind == QMM_TYPE_IQ1_S)
            asum[0] = _mm256_setr_epi32(xs[0].sum, xs[1].sum, xs[2].sum, xs[3].sum, xs[4].sum, xs[5].sum, xs[6].sum, xs[7].sum);
        if (kind == QMM_TYPE_IQ1_M)
            qmm_iqg_group_sums(xs, asum);
        float f[QMM_IQG_NR];
#if defined(__AVX512BW__) && defined(__AVX512VNNI__)
        __m512i x2[4], nx2[4], asum2 = _mm512_setzero_si512(), gs_a = _mm512_setzero_si512(), gs_b = _mm512_setzero_si512();
        for (int i = 0; i < 4 && qmm_iqg_decode512(kind); i++) {
            x2[i] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)xs[2 * i].q)),
                                       _mm256_loadu_si256((const __m256i *)(const void *)xs[2 * i + 1].q), 1);
            nx2[i] = _mm512_sub_epi8(_mm512_setzero_si512(), x2[i]);
        }
        if (kind == QMM_TYPE_IQ1_S) /* the blocks' sums, lane jj */
            asum2 = _mm512_castsi256_si512(asum[0]);
        if (kind == QMM_TYPE_IQ1_M) {
            gs_a = _mm512_inserti64x4(_mm512_castsi256_si512(asum[0]), asum[2], 1);
            gs_b = _mm512_inserti64x4(_mm512_castsi256_si512(asum[1]), asum[3], 1);
            asum2 = _mm512_add_epi32(gs_a, gs_b);
        }
#endif
        /* every row's part made in vectors first, so that the rows' loop
         * reads it from L1, not from stores still in flight (IQ1_M 14.5
         * against 15.7 ns per row and super-block) */
        qmm_iqg_row_prep pre[QMM_IQG_NR];
        for (int r = 0; r < rows; r++)
            qmm_iqg_prepare(kind, wj + (size_t)r * row_bytes + (size_t)sb * bb, &pre[r]);
        for (int r = 0; r < QMM_IQG_NR; r++) {
            const uint8_t *blk = wj + (size_t)r * row_bytes + (size_t)sb * bb;
            if (r >= rows) {
                is[r] = _mm256_setzero_si256();
                f[r] = 0.0f;
                continue;
            }
#if defined(__AVX512BW__) && defined(__AVX512VNNI__)
            if (qmm_iqg_decode512(kind))
                is[r] = qmm_iqg_isums512(kind, blk, &pre[r], x2, nx2, asum2, gs_a, gs_b);
            else
#endif
                is[r] = qmm_iqg_row_isums(kind, blk, &pre[r], xs, asum);
            f[r] = qmm_iqg_factor(kind, blk);
        }
        qmm_iqg_transpose8(is, isj);
        const __m256 fac = _mm256_loadu_ps(f);
        for (int jj = 0; jj < 8; jj++)
            av = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isj[jj]), _mm256_mul_ps(fac, _mm256_set1_ps(xs[jj].d)), av);
    }
    return av;
}

QMM_IQG_INLINE void qmm_iqg_gemv(qmm_type kind, int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const size_t row_bytes = qmm_row_size(kind, k);
    const qmm_act_block *x = (const qmm_act_block *)a;
    if (kind == QMM_TYPE_TQ1_0 || kind == QMM_TYPE_TQ2_0) {
        qmm_iqg_tq_gemv(kind, n, k, x, (const uint8_t *)w, y);
        return;
    }
    int64_t j0 = 0;
    for (; j0 + QMM_IQG_NR <= n; j0 += QMM_IQG_NR)
        _mm256_storeu_ps(
            y + j0, qmm_iqg_gemv_group(kind, QMM_IQG_NR, k / 256, x, (const uint8_t *)w + (size_t)j0 * row_bytes, row_bytes));
    if (j0 < n) {
        float t[QMM_IQG_NR];
        _mm256_storeu_ps(
            t, qmm_iqg_gemv_group(kind, (int)(n - j0), k / 256, x, (const uint8_t *)w + (size_t)j0 * row_bytes, row_bytes));
        memcpy(y + j0, t, (size_t)(n - j0) * sizeof(float));
    }
}

/* ------------------------------------------------- layout and descriptor */

static inline size_t qmm_iqg_w_size(qmm_type kind, int64_t k, int64_t n) { return qmm_ref_rows_size(kind, k, n); }
static inline size_t qmm_iqg_w_offset(qmm_type kind, int64_t n_idx, int64_t k) { return qmm_ref_rows_offset(kind, n_idx, k); }

#define QMM_IQG_AVX2_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#define QMM_IQG_AVX512_VNNI_REQUIRED                                                                                             \
    (QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI | QMM_CPU_F16C)

/* Masked off to pick the fallback: AVX-512 VNNI falls back to AVX2, AVX2 to
 * the reference. */
#define QMM_IQG_AVX512_VNNI_HIDES (QMM_IQG_AVX512_VNNI_REQUIRED & ~(uint64_t)QMM_CPU_F16C)

/* The descriptor fields every family of this header shares: plain rows in
 * groups of 8, the reference activation rows (packed by AVX2). */
#define QMM_IQG_GEOMETRY                                                                                                         \
    .flags = 0, .layout_id = 1, .mr = 1, .nr = QMM_IQG_NR, .kr = 32, .sr = 1, .n_step = QMM_IQG_NR,                              \
    .act = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_avx2_act_q8_pack}, .act_gemv = {0, NULL, NULL, NULL}
/* The same for the ternary types, whose rows go in groups of interleaved
 * words (qmm_iqg_tq_pack). */
#define QMM_IQG_GEOMETRY_TERNARY                                                                                                 \
    .flags = 0, .layout_id = 2, .mr = 1, .nr = QMM_IQG_NR, .kr = 32, .sr = 1, .n_step = QMM_IQG_NR,                              \
    .act = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_avx2_act_q8_pack}, .act_gemv = {0, NULL, NULL, NULL}
/* The same for the types with two sub-scales per block (IQ2_XS, IQ2_S,
 * IQ1_M): activation blocks carry their two half sums (sum16 layout). */
#define QMM_IQG_GEOMETRY_SUM16                                                                                                   \
    .flags = 0, .layout_id = 1, .mr = 1, .nr = QMM_IQG_NR, .kr = 32, .sr = 1, .n_step = QMM_IQG_NR,                              \
    .act = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_avx2_act_q8_pack_sum16}, .act_gemv = {0, NULL, NULL, NULL}

#endif
