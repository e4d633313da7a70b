/* The NEON int8 families (dotprod: sdot, i8mm: smmla) of the i-quant grid and ternary types IQ1_S, IQ1_M,
 * IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, TQ1_0, TQ2_0: the entry points with the kind (a qmm_type) and the
 * arrangement (neon_common.h: ROWS4 for sdot, PAIRS for smmla) as constant arguments.
 *
 * Weights stay plain GGUF rows (qmm_ref_rows_*: pack, GET_ROWS and unpack are the reference's), n_step 4. The
 * grids make the levels expensive to expand, so the GEMM expands them once per call and panel: for the 4 rows
 * j0..j0+3 and a chunk of QMM_IQN_CHUNK super-blocks, each 32-block becomes a scratch block (QMM_IQN_BLK bytes,
 * L1-resident) of
 *   the 4 rows' int8 levels w (|w| <= 62; padding rows 0) in the arrangement, the 8-vector image wq[8] the
 *   sdot / smmla halves steps of neon_common.h take, 128 bytes; then int32 sc_a[4], sc_b[4], the rows'
 *   sub-scales of elements 0..15 and 16..31;
 * and per super-block the rows' fp32 factors (qmm_iq_factor's, the fp16 d converted by fcvtl). Every activation
 * group of 4 rows (the NEON int8 activation layout without sums) then runs over the chunk: per 32-block and
 * activation row, the two exact half dots of the levels with the int8 activations (sdot / smmla: signed x signed,
 * the signs are in the levels), then as the reference, isum = sc_a * dot_a + sc_b * dot_b (exact, |.| < 2^24) and
 * acc = fma((float)isum, factor * x_d, acc), one lane per weight row. Between chunks the accumulators rest in y
 * (fp32, exact). With m = 1 (decode) there is no activation row to reuse an expansion for, so each row's levels go
 * straight into two plain sdots with the activation halves, without transpose or scratch.
 *
 * Expansion per row and 32-block: one 8-byte grid load per 8 weights, straight into a vector lane (IQ3: two
 * 4-byte ones), the 8 sign bits of each group (7-bit codes: parity by cnt, all four groups at once) turned into a
 * byte mask by tbl and vtst against {1, 2, .., 128} and applied as (mag ^ mask) - mask; IQ1 levels are 8 g + delta
 * (g the grid's -1 / 0 / 1); the ternary levels are shifted / multiplied trits minus 1. For the scratch the 4 rows'
 * vectors are then transposed (4-byte chunks for ROWS4, 8-byte ones for PAIRS). */
#ifndef QMM_IQ_GRID_NEON_H
#define QMM_IQ_GRID_NEON_H

#include "base/bytes.h"
#include "kernels/arm/neon_driver.h" /* QMM_NEON_FAMILY, the descriptor */
#include "kernels/ref/ref_kernels.h"

#define QMM_IQN_CHUNK 8   /* super-blocks expanded per pass: 8 x 8 x 160 = 10 KiB of scratch, L1-resident */
#define QMM_IQN_BLK   160 /* scratch bytes per 32-block: levels 128, sc_a[4], sc_b[4] */

/* Whether the kind has one sub-scale per 32-block (sc_a == sc_b): one dot per block then serves. */
static inline int qmm_iqn_one_scale(qmm_type kind) {
    return kind != QMM_TYPE_IQ2_XS && kind != QMM_TYPE_IQ2_S && kind != QMM_TYPE_IQ1_M;
}

/* Two 8-byte grid entries as one vector (a load and a lane load; AArch64 loads need no alignment). */
static inline __attribute__((always_inline)) uint8x16_t qmm_iqn_grid8x2(const uint8_t *p0, const uint8_t *p1) {
    const uint64x2_t v = vcombine_u64(vld1_u64((const uint64_t *)(const void *)p0), vcreate_u64(0));
    return vreinterpretq_u8_u64(vld1q_lane_u64((const uint64_t *)(const void *)p1, v, 1));
}

/* Four 4-byte grid entries (IQ3) as one vector. */
static inline __attribute__((always_inline)) uint8x16_t qmm_iqn_grid4x4(const uint8_t *p0, const uint8_t *p1, const uint8_t *p2,
                                                                        const uint8_t *p3) {
    uint32x4_t v = vld1q_dup_u32((const uint32_t *)(const void *)p0);
    v = vld1q_lane_u32((const uint32_t *)(const void *)p1, v, 1);
    v = vld1q_lane_u32((const uint32_t *)(const void *)p2, v, 2);
    return vreinterpretq_u8_u32(vld1q_lane_u32((const uint32_t *)(const void *)p3, v, 3));
}

/* The 4 groups' sign bytes of a 32-block (group q's at byte stride * q of sv; bit l set: element l of the group
 * negative) applied to the unsigned magnitudes mag[2]: each byte spread over its group by tbl, turned into a mask
 * by vtst against {1, 2, .., 128}, then (mag ^ mask) - mask. */
static inline __attribute__((always_inline)) void qmm_iqn_signed(const uint8x16_t mag[2], uint8x16_t sv, const int stride,
                                                                 int8x16_t lv[2]) {
    static const uint8_t bits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t bv = vld1q_u8(bits);
    for (int h = 0; h < 2; h++) {
        const uint8x16_t idx = vcombine_u8(vdup_n_u8((uint8_t)(stride * 2 * h)), vdup_n_u8((uint8_t)(stride * (2 * h + 1))));
        const int8x16_t neg = vreinterpretq_s8_u8(vtstq_u8(vqtbl1q_u8(sv, idx), bv)); /* -1 or 0 */
        lv[h] = vsubq_s8(veorq_s8(vreinterpretq_s8_u8(mag[h]), neg), neg);
    }
}

/* 7-bit sign codes (the low 7 bits of some bytes of c) as sign bytes: bit 7 the parity of the code
 * (qmm_iq_sign_bits; the count of negatives is even). Bytes that are not codes come out as garbage. */
static inline __attribute__((always_inline)) uint8x16_t qmm_iqn_codes(uint8x16_t c) {
    const uint8x16_t c7 = vandq_u8(c, vdupq_n_u8(127));
    return vorrq_u8(c7, vshlq_n_u8(vcntq_u8(c7), 7));
}

/* The four codes at bits 7 q of aux (IQ2_XXS, IQ3_XXS), code q at byte 4 q. */
static inline __attribute__((always_inline)) uint8x16_t qmm_iqn_codes32(uint32_t aux) {
    static const int32_t sh[4] = {0, -7, -14, -21};
    return qmm_iqn_codes(vreinterpretq_u8_u32(vshlq_u32(vdupq_n_u32(aux), vld1q_s32(sh))));
}

/* IQ1: two groups of the -1 / 0 / 1 grid with their deltas (+-1), 8 g + delta. */
static inline __attribute__((always_inline)) int8x16_t qmm_iqn_iq1(uint8x16_t gv, int d0, int d1) {
    const int8x16_t g = vreinterpretq_s8_u8(gv);
    return vaddq_s8(vshlq_n_s8(g, 3), vcombine_s8(vdup_n_s8((int8_t)d0), vdup_n_s8((int8_t)d1)));
}

/* TQ1_0: the trits of bytes src (trit n of a byte: ((byte * 3^n mod 256) * 3) >> 8, n by mult = 3^n), minus 1. */
static inline __attribute__((always_inline)) int8x16_t qmm_iqn_trits(uint8x16_t src, uint8x16_t mult) {
    const uint8x16_t q = vmulq_u8(src, mult);
    const uint8x8_t three = vdup_n_u8(3);
    const uint8x16_t t =
        vcombine_u8(vshrn_n_u16(vmull_u8(vget_low_u8(q), three), 8), vshrn_n_u16(vmull_u8(vget_high_u8(q), three), 8));
    return vsubq_s8(vreinterpretq_s8_u8(t), vdupq_n_s8(1));
}

/* The levels of 32-block j (0..7) of super-block blk of the kind: lv[0] elements 0..15, lv[1] 16..31, and the
 * two sub-scales sc[0], sc[1] (qmm_iq_level / qmm_iq_subscale, expanded). */
static inline __attribute__((always_inline)) void qmm_iqn_expand(qmm_type kind, const uint8_t *blk, int j, int8x16_t lv[2],
                                                                 int32_t sc[2]) {
    uint8x16_t mag[2], sv;
    int stride;
    switch (kind) {
    case QMM_TYPE_IQ2_XXS: {
        const qmm_block_iq2_xxs *b = (const qmm_block_iq2_xxs *)blk;
        const uint8_t *q = b->qs + 8 * j;
        const uint32_t aux = qmm_get32(q + 4);
        mag[0] = qmm_iqn_grid8x2(qmm_grid_iq2xxs[q[0]], qmm_grid_iq2xxs[q[1]]);
        mag[1] = qmm_iqn_grid8x2(qmm_grid_iq2xxs[q[2]], qmm_grid_iq2xxs[q[3]]);
        sv = qmm_iqn_codes32(aux), stride = 4;
        sc[0] = sc[1] = 2 * (int32_t)(aux >> 28) + 1;
        break;
    }
    case QMM_TYPE_IQ2_XS: {
        const qmm_block_iq2_xs *b = (const qmm_block_iq2_xs *)blk;
        const uint8_t *q = (const uint8_t *)(b->qs + 4 * j);
        for (int h = 0; h < 2; h++)
            mag[h] =
                qmm_iqn_grid8x2(qmm_grid_iq2xs[qmm_get16(q + 4 * h) & 511u], qmm_grid_iq2xs[qmm_get16(q + 4 * h + 2) & 511u]);
        /* 16 bytes from group 4 j: within the block (the scales follow the 64 bytes of qs) */
        sv = qmm_iqn_codes(vreinterpretq_u8_u16(vshrq_n_u16(vld1q_u16(b->qs + 4 * j), 9))), stride = 2;
        sc[0] = 2 * (b->scales[j] & 15) + 1;
        sc[1] = 2 * (b->scales[j] >> 4) + 1;
        break;
    }
    case QMM_TYPE_IQ2_S: {
        const qmm_block_iq2_s *b = (const qmm_block_iq2_s *)blk;
        const unsigned qh = b->qh[j];
        const uint8_t *q = b->qs + 4 * j;
        for (int h = 0; h < 2; h++)
            mag[h] = qmm_iqn_grid8x2(qmm_grid_iq2s[q[2 * h] | ((qh >> (4 * h)) & 3u) << 8],
                                     qmm_grid_iq2s[q[2 * h + 1] | ((qh >> (4 * h + 2)) & 3u) << 8]);
        const uint8x8_t s8 = vld1_u8(b->signs + 4 * j); /* 8 bytes: within the block (qh follows) */
        sv = vcombine_u8(s8, s8), stride = 1;
        sc[0] = 2 * (b->scales[j] & 15) + 1;
        sc[1] = 2 * (b->scales[j] >> 4) + 1;
        break;
    }
    case QMM_TYPE_IQ3_XXS: {
        const qmm_block_iq3_xxs *b = (const qmm_block_iq3_xxs *)blk;
        const uint8_t *q = b->qs + 8 * j;
        const uint32_t aux = qmm_get32(b->signs + 4 * j);
        for (int h = 0; h < 2; h++)
            mag[h] = qmm_iqn_grid4x4(qmm_grid_iq3xxs[q[4 * h]], qmm_grid_iq3xxs[q[4 * h + 1]], qmm_grid_iq3xxs[q[4 * h + 2]],
                                     qmm_grid_iq3xxs[q[4 * h + 3]]);
        sv = qmm_iqn_codes32(aux), stride = 4;
        sc[0] = sc[1] = 2 * (int32_t)(aux >> 28) + 1;
        break;
    }
    case QMM_TYPE_IQ3_S: {
        const qmm_block_iq3_s *b = (const qmm_block_iq3_s *)blk;
        const unsigned qh = b->qh[j];
        const uint8_t *q = b->qs + 8 * j;
        for (int h = 0; h < 2; h++)
            mag[h] = qmm_iqn_grid4x4(qmm_grid_iq3s[q[4 * h] | ((qh >> (4 * h)) & 1u) << 8],
                                     qmm_grid_iq3s[q[4 * h + 1] | ((qh >> (4 * h + 1)) & 1u) << 8],
                                     qmm_grid_iq3s[q[4 * h + 2] | ((qh >> (4 * h + 2)) & 1u) << 8],
                                     qmm_grid_iq3s[q[4 * h + 3] | ((qh >> (4 * h + 3)) & 1u) << 8]);
        const uint8x8_t s8 = vld1_u8(b->signs + 4 * j); /* 8 bytes: within the block (the scales follow) */
        sv = vcombine_u8(s8, s8), stride = 1;
        sc[0] = sc[1] = 2 * ((b->scales[j / 2] >> (4 * (j % 2))) & 15) + 1;
        break;
    }
    case QMM_TYPE_IQ1_S: {
        const qmm_block_iq1_s *b = (const qmm_block_iq1_s *)blk;
        const unsigned qh = qmm_get16((const uint8_t *)b->qh + 2 * j);
        const int delta = qh & 0x8000u ? -1 : 1;
        const uint8_t *q = b->qs + 4 * j;
        for (int h = 0; h < 2; h++)
            lv[h] = qmm_iqn_iq1(qmm_iqn_grid8x2((const uint8_t *)qmm_grid_iq1s[q[2 * h] | ((qh >> (6 * h)) & 7u) << 8],
                                                (const uint8_t *)qmm_grid_iq1s[q[2 * h + 1] | ((qh >> (6 * h + 3)) & 7u) << 8]),
                                delta, delta);
        sc[0] = sc[1] = 2 * (int32_t)((qh >> 12) & 7) + 1;
        return;
    }
    case QMM_TYPE_IQ1_M: {
        const qmm_block_iq1_m *b = (const qmm_block_iq1_m *)blk;
        for (int h = 0; h < 2; h++) { /* byte qh[2 j + h]: the nibbles of groups 2 h (low) and 2 h + 1 */
            const unsigned n2 = b->qh[2 * j + h];
            lv[h] = qmm_iqn_iq1(qmm_iqn_grid8x2((const uint8_t *)qmm_grid_iq1s[b->qs[4 * j + 2 * h] | (n2 & 7u) << 8],
                                                (const uint8_t *)qmm_grid_iq1s[b->qs[4 * j + 2 * h + 1] | (n2 & 0x70u) << 4]),
                                n2 & 8u ? -1 : 1, n2 & 0x80u ? -1 : 1);
        }
        const unsigned s16 = qmm_get16(b->scales + 2 * (j / 2));
        sc[0] = 2 * (int32_t)((s16 >> (3 * (2 * (j % 2)))) & 7) + 1;
        sc[1] = 2 * (int32_t)((s16 >> (3 * (2 * (j % 2) + 1))) & 7) + 1;
        return;
    }
    case QMM_TYPE_TQ2_0: {
        const qmm_block_tq2_0 *b = (const qmm_block_tq2_0 *)blk;
        const int8x16_t sh = vdupq_n_s8((int8_t)(-2 * (j % 4))); /* shift right by 2 (j % 4) */
        for (int h = 0; h < 2; h++) {
            const uint8x16_t v = vandq_u8(vshlq_u8(vld1q_u8(b->qs + 32 * (j / 4) + 16 * h), sh), vdupq_n_u8(3));
            lv[h] = vsubq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(1));
        }
        sc[0] = sc[1] = 1;
        return;
    }
    case QMM_TYPE_TQ1_0: {
        const qmm_block_tq1_0 *b = (const qmm_block_tq1_0 *)blk;
        static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
        if (j < 5) { /* elements 32 j + r: trit j of qs[r] */
            for (int h = 0; h < 2; h++)
                lv[h] = qmm_iqn_trits(vld1q_u8(b->qs + 16 * h), vdupq_n_u8(pow3[j]));
        } else { /* elements 160 + 16 n + r (n = 2 (j - 5) + h): trit n of qs[32 + r]; from 240, of qh */
            const uint8x16_t hi = vld1q_u8(b->qs + 32);
            lv[0] = qmm_iqn_trits(hi, vdupq_n_u8(pow3[2 * (j - 5)]));
            if (j < 7) {
                lv[1] = qmm_iqn_trits(hi, vdupq_n_u8(pow3[2 * (j - 5) + 1]));
            } else { /* element 240 + r: trit r / 4 of qh[r % 4] */
                static const uint8_t mult[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
                const uint8x16_t qh = vreinterpretq_u8_u32(vdupq_n_u32(qmm_get32(b->qh)));
                lv[1] = qmm_iqn_trits(qh, vld1q_u8(mult));
            }
        }
        sc[0] = sc[1] = 1;
        return;
    }
    default: lv[0] = lv[1] = vdupq_n_s8(0), sc[0] = sc[1] = 0; return;
    }
    qmm_iqn_signed(mag, sv, stride, lv);
}

/* The factors (qmm_iq_factor) of the super-blocks at blk of nr (<= 4) rows rb bytes apart, 0 for padding rows: the
 * rows' fp16 d bits converted at once by fcvtl (exact, as qmm_fp16_to_fp32), times the kind's power of two. */
static inline __attribute__((always_inline)) float32x4_t qmm_iqn_factors(qmm_type kind, const uint8_t *blk, size_t rb,
                                                                         int64_t nr) {
    uint16_t h[4] = {0, 0, 0, 0};
    for (int64_t r = 0; r < nr; r++)
        h[r] = qmm_iq_d_bits(kind, blk + (size_t)r * rb);
    return vmulq_n_f32(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))), qmm_iq_d_multiplier(kind));
}

/* Expands super-blocks [s0, s1) of the nc (<= 4) rows at w (GGUF rows, rb bytes apart) into scratch blocks (see
 * the top) and fac[s - s0] (the rows' factors; 0 for padding rows). */
static inline __attribute__((always_inline)) void qmm_iqn_expand_panel(qmm_type kind, int arrangement, const uint8_t *w,
                                                                       size_t rb, int64_t nc, int64_t s0, int64_t s1,
                                                                       uint8_t *scratch, float32x4_t *fac) {
    const size_t sbb = qmm_type_block_bytes(kind);
    for (int64_t s = s0; s < s1; s++) {
        fac[s - s0] = qmm_iqn_factors(kind, w + (size_t)s * sbb, rb, nc);
        for (int j = 0; j < 8; j++) {
            uint8x16_t lo[4], hi[4];
            int32_t sa[4] = {0, 0, 0, 0}, sb[4] = {0, 0, 0, 0};
            for (int r = 0; r < 4; r++) {
                int8x16_t lv[2] = {vdupq_n_s8(0), vdupq_n_s8(0)};
                if (r < nc) {
                    int32_t sc[2];
                    qmm_iqn_expand(kind, w + (size_t)r * rb + (size_t)s * sbb, j, lv, sc);
                    sa[r] = sc[0];
                    sb[r] = sc[1];
                }
                lo[r] = vreinterpretq_u8_s8(lv[0]);
                hi[r] = vreinterpretq_u8_s8(lv[1]);
            }
            uint8_t *blk = scratch + (size_t)((s - s0) * 8 + j) * QMM_IQN_BLK;
            uint8x16_t wq[8];
            if (arrangement == QMM_NEON_PAIRS) { /* wq[2 g + h]: 8-element group g of rows 2h, 2h + 1 */
                for (int h = 0; h < 2; h++) {
                    const uint64x2_t a0 = vreinterpretq_u64_u8(lo[2 * h]), a1 = vreinterpretq_u64_u8(lo[2 * h + 1]);
                    const uint64x2_t b0 = vreinterpretq_u64_u8(hi[2 * h]), b1 = vreinterpretq_u64_u8(hi[2 * h + 1]);
                    wq[h] = vreinterpretq_u8_u64(vtrn1q_u64(a0, a1));
                    wq[2 + h] = vreinterpretq_u8_u64(vtrn2q_u64(a0, a1));
                    wq[4 + h] = vreinterpretq_u8_u64(vtrn1q_u64(b0, b1));
                    wq[6 + h] = vreinterpretq_u8_u64(vtrn2q_u64(b0, b1));
                }
            } else { /* wq[c]: 4-element chunk c of the 4 rows, a 4x4 transpose of 32-bit lanes */
                for (int h = 0; h < 2; h++) {
                    const uint8x16_t *v = h ? hi : lo;
                    const uint32x4_t t0 = vtrn1q_u32(vreinterpretq_u32_u8(v[0]), vreinterpretq_u32_u8(v[1]));
                    const uint32x4_t t1 = vtrn2q_u32(vreinterpretq_u32_u8(v[0]), vreinterpretq_u32_u8(v[1]));
                    const uint32x4_t t2 = vtrn1q_u32(vreinterpretq_u32_u8(v[2]), vreinterpretq_u32_u8(v[3]));
                    const uint32x4_t t3 = vtrn2q_u32(vreinterpretq_u32_u8(v[2]), vreinterpretq_u32_u8(v[3]));
                    const uint64x2_t u0 = vreinterpretq_u64_u32(t0), u1 = vreinterpretq_u64_u32(t1);
                    const uint64x2_t u2 = vreinterpretq_u64_u32(t2), u3 = vreinterpretq_u64_u32(t3);
                    wq[4 * h] = vreinterpretq_u8_u64(vtrn1q_u64(u0, u2));
                    wq[4 * h + 1] = vreinterpretq_u8_u64(vtrn1q_u64(u1, u3));
                    wq[4 * h + 2] = vreinterpretq_u8_u64(vtrn2q_u64(u0, u2));
                    wq[4 * h + 3] = vreinterpretq_u8_u64(vtrn2q_u64(u1, u3));
                }
            }
            for (int c = 0; c < 8; c++)
                vst1q_u8(blk + 16 * c, wq[c]);
            vst1q_s32((int32_t *)(blk + 128), vld1q_s32(sa));
            vst1q_s32((int32_t *)(blk + 144), vld1q_s32(sb));
        }
    }
}

/* The float step of one activation row: the two half dots of a block, its sub-scales and the row's x_d. */
static inline __attribute__((always_inline)) float32x4_t qmm_iqn_step(float32x4_t acc, int32x4_t da, int32x4_t db, int32x4_t sa,
                                                                      int32x4_t sb, float32x4_t fac, float xd) {
    const int32x4_t isum = vmlaq_s32(vmulq_s32(da, sa), db, sb);
    return vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(fac, xd));
}

/* The same for a kind with one sub-scale per 32-block: d the whole block dot. */
static inline __attribute__((always_inline)) float32x4_t qmm_iqn_step1(float32x4_t acc, int32x4_t d, int32x4_t sc,
                                                                       float32x4_t fac, float xd) {
    return vfmaq_f32(acc, vcvtq_f32_s32(vmulq_s32(d, sc)), vmulq_n_f32(fac, xd));
}

/* mc (constant after inlining) activation rows of group a (at the chunk's first block) over the nsb expanded
 * super-blocks; acc in and out. */
static inline __attribute__((always_inline)) void qmm_iqn_tile(qmm_type kind, int arrangement, const int mc, int64_t nsb,
                                                               const uint8_t *a, const uint8_t *scratch, const float32x4_t *fac,
                                                               float32x4_t acc[QMM_NEON_MR]) {
    for (int64_t s = 0; s < nsb; s++) {
        for (int j = 0; j < 8; j++, a += QMM_NEON_ACT_BLK) {
            const uint8_t *blk = scratch + (size_t)(s * 8 + j) * QMM_IQN_BLK;
            int8x16_t wq[8];
            for (int c = 0; c < 8; c++)
                wq[c] = vld1q_s8((const int8_t *)blk + 16 * c);
            const int32x4_t sa = vld1q_s32((const int32_t *)(blk + 128)), sb = vld1q_s32((const int32_t *)(blk + 144));
            const float *xd = (const float *)a;
            if (qmm_iqn_one_scale(kind) && arrangement == QMM_NEON_PAIRS) {
                for (int p = 0; p < (mc + 1) / 2; p++) {
                    int32x4_t r[2];
                    qmm_neon_smmla_block(wq, (const int8_t *)a + 16 + 16 * p, &r[0], &r[1]);
                    for (int h = 0; h < 2 && 2 * p + h < mc; h++)
                        acc[2 * p + h] = qmm_iqn_step1(acc[2 * p + h], r[h], sa, fac[s], xd[2 * p + h]);
                }
            } else if (qmm_iqn_one_scale(kind)) {
                for (int i = 0; i < mc; i++)
                    acc[i] = qmm_iqn_step1(acc[i], qmm_neon_sdot_block(wq, (const int8_t *)a + 16 + 32 * i), sa, fac[s], xd[i]);
            } else if (arrangement == QMM_NEON_PAIRS) {
                for (int p = 0; p < (mc + 1) / 2; p++) {
                    int32x4_t ra[2], rb[2];
                    qmm_neon_smmla_halves(wq, (const int8_t *)a + 16 + 16 * p, ra, rb);
                    for (int h = 0; h < 2 && 2 * p + h < mc; h++)
                        acc[2 * p + h] = qmm_iqn_step(acc[2 * p + h], ra[h], rb[h], sa, sb, fac[s], xd[2 * p + h]);
                }
            } else {
                for (int i = 0; i < mc; i++) {
                    int32x4_t da, db;
                    qmm_neon_sdot_halves(wq, (const int8_t *)a + 16 + 32 * i, &da, &db);
                    acc[i] = qmm_iqn_step(acc[i], da, db, sa, sb, fac[s], xd[i]);
                }
            }
        }
    }
}

/* m = 1: one activation row, so nothing to reuse an expansion for: each row's levels go straight into two
 * plain sdots with the row's halves (no transpose, no scratch), and pairwise adds gather the 4 rows' half dots
 * into lanes. nr (constant after inlining) rows at w; PAIRS activations are gathered from their 8-byte pieces. */
static inline __attribute__((always_inline)) float32x4_t
qmm_iqn_gemv_panel(qmm_type kind, int arrangement, const int nr, const uint8_t *w, size_t rb, int64_t nsb, const uint8_t *a) {
    const size_t sbb = qmm_type_block_bytes(kind);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (int64_t s = 0; s < nsb; s++) {
        const float32x4_t fac = qmm_iqn_factors(kind, w + (size_t)s * sbb, rb, nr);
        for (int j = 0; j < 8; j++, a += QMM_NEON_ACT_BLK) {
            const int8_t *x = (const int8_t *)a + 16;
            const int8x16_t x0 = arrangement == QMM_NEON_PAIRS ? vcombine_s8(vld1_s8(x), vld1_s8(x + 32)) : vld1q_s8(x);
            const int8x16_t x1 = arrangement == QMM_NEON_PAIRS ? vcombine_s8(vld1_s8(x + 64), vld1_s8(x + 96)) : vld1q_s8(x + 16);
            int32x4_t da[4], db[4];
            int32_t sa[4] = {0, 0, 0, 0}, sb[4] = {0, 0, 0, 0};
            for (int r = 0; r < 4; r++) {
                da[r] = db[r] = vdupq_n_s32(0);
                if (r < nr) {
                    int8x16_t lv[2];
                    int32_t sc[2];
                    qmm_iqn_expand(kind, w + (size_t)r * rb + (size_t)s * sbb, j, lv, sc);
                    da[r] = vdotq_s32(da[r], lv[0], x0);
                    if (qmm_iqn_one_scale(kind)) /* one chain: sc_a dot_a + sc_b dot_b = sc (dot_a + dot_b) */
                        da[r] = vdotq_s32(da[r], lv[1], x1);
                    else
                        db[r] = vdotq_s32(db[r], lv[1], x1);
                    sa[r] = sc[0];
                    sb[r] = sc[1];
                }
            }
            const int32x4_t dA = vpaddq_s32(vpaddq_s32(da[0], da[1]), vpaddq_s32(da[2], da[3]));
            if (qmm_iqn_one_scale(kind)) {
                acc = qmm_iqn_step1(acc, dA, vld1q_s32(sa), fac, ((const float *)a)[0]);
            } else {
                const int32x4_t dB = vpaddq_s32(vpaddq_s32(db[0], db[1]), vpaddq_s32(db[2], db[3]));
                acc = qmm_iqn_step(acc, dA, dB, vld1q_s32(sa), vld1q_s32(sb), fac, ((const float *)a)[0]);
            }
        }
    }
    return acc;
}

static inline float32x4_t qmm_iqn_load_cols(const float *y, int64_t nc) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(t, y, (size_t)nc * sizeof(float));
    return vld1q_f32(t);
}

/* The qmm_family gemm: per panel of 4 weight rows and chunk of super-blocks, expand once, then every activation
 * group over it; m = 1 (the GEMV) expands straight into the dots (qmm_iqn_gemv_panel). */
static inline __attribute__((always_inline)) void qmm_iqn_gemm(qmm_type kind, int arrangement, int64_t m, int64_t n, int64_t k,
                                                               const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK, nsb = k / QMM_QK_K;
    const size_t rb = qmm_row_size(kind, k);
    const size_t group_bytes = (size_t)nb * QMM_NEON_ACT_BLK;
    uint8_t scratch[QMM_IQN_CHUNK * 8 * QMM_IQN_BLK] __attribute__((aligned(16)));
    float32x4_t fac[QMM_IQN_CHUNK];
    if (m == 1) {
        for (int64_t j0 = 0; j0 < n; j0 += QMM_NEON_NR) {
            const uint8_t *wp = (const uint8_t *)w + (size_t)j0 * rb;
            const int64_t nc = n - j0 < QMM_NEON_NR ? n - j0 : QMM_NEON_NR;
            float32x4_t out;
            switch (nc) {
            case 1: out = qmm_iqn_gemv_panel(kind, arrangement, 1, wp, rb, nsb, a); break;
            case 2: out = qmm_iqn_gemv_panel(kind, arrangement, 2, wp, rb, nsb, a); break;
            case 3: out = qmm_iqn_gemv_panel(kind, arrangement, 3, wp, rb, nsb, a); break;
            default: out = qmm_iqn_gemv_panel(kind, arrangement, 4, wp, rb, nsb, a); break;
            }
            qmm_neon_store_cols(y + j0, out, nc);
        }
        return;
    }
    for (int64_t j0 = 0; j0 < n; j0 += QMM_NEON_NR) {
        const uint8_t *wp = (const uint8_t *)w + (size_t)j0 * rb;
        const int64_t nc = n - j0 < QMM_NEON_NR ? n - j0 : QMM_NEON_NR;
        for (int64_t s0 = 0; s0 < nsb; s0 += QMM_IQN_CHUNK) {
            const int64_t s1 = nsb - s0 < QMM_IQN_CHUNK ? nsb : s0 + QMM_IQN_CHUNK;
            qmm_iqn_expand_panel(kind, arrangement, wp, rb, nc, s0, s1, scratch, fac);
            for (int64_t i0 = 0; i0 < m; i0 += QMM_NEON_MR) {
                const uint8_t *ap =
                    (const uint8_t *)a + (size_t)(i0 / QMM_NEON_MR) * group_bytes + (size_t)s0 * 8 * QMM_NEON_ACT_BLK;
                const int64_t mc = m - i0 < QMM_NEON_MR ? m - i0 : QMM_NEON_MR;
                float32x4_t acc[QMM_NEON_MR];
                for (int64_t i = 0; i < QMM_NEON_MR; i++)
                    acc[i] = i < mc && s0 > 0 ? qmm_iqn_load_cols((float *)((char *)y + (size_t)(i0 + i) * ys) + j0, nc)
                                              : vdupq_n_f32(0.0f);
                switch (mc) {
                case 1: qmm_iqn_tile(kind, arrangement, 1, s1 - s0, ap, scratch, fac, acc); break;
                case 2: qmm_iqn_tile(kind, arrangement, 2, s1 - s0, ap, scratch, fac, acc); break;
                case 3: qmm_iqn_tile(kind, arrangement, 3, s1 - s0, ap, scratch, fac, acc); break;
                default: qmm_iqn_tile(kind, arrangement, 4, s1 - s0, ap, scratch, fac, acc); break;
                }
                for (int64_t i = 0; i < mc; i++)
                    qmm_neon_store_cols((float *)((char *)y + (size_t)(i0 + i) * ys) + j0, acc[i], nc);
            }
        }
    }
}

/* The activation layout: the NEON int8 one without sums. */
static inline size_t qmm_iqn_act_size(int64_t m, int64_t k) { return qmm_neon_act_layout_size(0, m, k); }
static inline size_t qmm_iqn_act_offset(int64_t m_idx, int64_t k) { return qmm_neon_act_layout_offset(0, m_idx, k); }
static inline void qmm_iqn_act_pack(int arrangement, int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_neon_act_layout_pack(0, arrangement, m, k, x, xs, dst);
}

#endif
