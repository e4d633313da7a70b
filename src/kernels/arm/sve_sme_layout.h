/* The packed layouts shared by the SVE and SME int8 families (plain C: the
 * packers and GET_ROWS readers; the kernels live in their own files).
 *
 * Why a fixed 16-row weight panel whatever the vector length: a packed blob
 * is stored with the family name and may be loaded on another CPU, and the
 * descriptor's n_step is a constant, so the layout must not depend on the
 * (SVE or streaming) vector length. 16 rows of int32 lanes is one 512-bit
 * vector, the common SVL (Apple M4) and a 16x16 int32 ZA tile there. Kernels
 * cover a panel in ceil(16 / lanes) chunks at 128/256 bits and predicate the
 * lanes past 16 off at 1024/2048 bits (correct, not fast: no such hardware is
 * common), so any VL from 128 to 2048 bits reads the same blob.
 *
 * Weight panel (16 rows, zero rows pad the last), per 32-element block:
 *   16 x fp16 scales (32 bytes, converted exactly in the kernels), then
 *   Q8_0: 8 groups g of [16 rows x 4 int8] = weights k = 4g..4g+3 of row r
 *         at byte 64 g + 4 r: one vector load gives a 4-way dot product
 *         operand per row lane (SDOT lanes, SMOPA columns);
 *   Q4_0: 4 groups g of [16 rows x 4 bytes], the GGUF bytes qs[4g..4g+3]
 *         xor 0x88: low nibbles hold k = 4g.., high nibbles k = 16 + 4g..,
 *         and a nibble s stores q ^ 8, whose signed 4-bit value is q - 8,
 *         so two shifts (lsl+asr, asr) yield the signed weights;
 *   IQ4_NL, MXFP4 (the 4-bit table types): Q4_0's groups of GGUF bytes as
 *         they are (low nibbles k = 4g.., high nibbles k = 16 + 4g..: indices
 *         that TBL turns into the int8 levels); MXFP4's scales are its E8M0
 *         bytes, 16 bytes instead of 32, so both keep GGUF's size;
 *   IQ4_XS, per super-block of 8 blocks instead: 16 x fp16 d (32 bytes), then
 *         per 32-block j its 16 signed sub-scales ls_j as int8 (16 bytes) and
 *         IQ4_NL's 4 groups of nibble bytes (GGUF's qs[16j..16j+15]):
 *         2208 bytes per 16 x 256, +1.5% on GGUF's 136 per row (as the x86
 *         and NEON families: the 6-bit scales unpacked once, at packing);
 *   Q4_K, per super-block of 8 blocks: 16 x fp16 d, 16 x fp16 dmin (64
 *         bytes), then per 32-block j its 16 sub-scales sc_j and 16 mins m_j
 *         (uint8, 0..63) and 4 groups of nibble bytes in Q4_0's form (low
 *         nibbles k = 4g.., high k = 16 + 4g.., the unsigned q 0..15; GGUF
 *         keeps a 32-block in the low or high nibbles of 32 bytes instead):
 *         2368 bytes per 16 x 256, +2.8% on GGUF's 144 per row;
 *   Q5_K: as Q4_K with the q's bit 4 after the nibbles, one group of 16 rows
 *         x 4 bytes (qmm_svesme_bit_split's form with kr = 4): 2880 bytes per
 *         16 x 256, +2.3% on GGUF's 176 per row;
 *   Q4_1, Q5_0, Q5_1 (the legacy kinds), per 32-block: 16 x fp16 d, then
 *         16 x fp16 m (Q4_1, Q5_1), Q4_0's 4 groups of GGUF nibble bytes as
 *         they are (the unsigned q's low 4 bits) and for Q5_0 / Q5_1 their
 *         bit 4 as one group of 16 rows x 4 bytes (as Q5_K's): GGUF's size.
 *   Q6_K, per super-block of 8 blocks: 16 x fp16 d (32 bytes), then per
 *         32-block j its 16 int8 sub-scales of elements 0..15 (sc_a), 16 of
 *         16..31 (sc_b), the low 4 bits of q (0..63) in Q4_0's nibble form (4
 *         groups) and the high 2 bits (2 groups, qmm_svesme_q6_split's form
 *         with kr = 4): GGUF's 210 bytes per row and 256 exactly;
 *   Q3_K, Q2_K (the two-bit kinds): GGUF's size, see QMM_SVESME_TWO_HEAD.
 * The body functions take the format as their kind argument, one of the kinds below.
 */
#ifndef QMM_SVE_SME_LAYOUT_H
#define QMM_SVE_SME_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/formats.h"

#define QMM_SVESME_NP     16                  /* weight panel rows */
#define QMM_SVESME_SCALES (QMM_SVESME_NP * 2) /* fp16 scale bytes per panel block */
#define QMM_SVESME_GROUP  (QMM_SVESME_NP * 4) /* bytes of one 4-k group of a panel */
#define QMM_SVESME_Q8_BLK (QMM_SVESME_SCALES + 8 * QMM_SVESME_GROUP)
#define QMM_SVESME_Q4_BLK (QMM_SVESME_SCALES + 4 * QMM_SVESME_GROUP)

/* The weight formats (kinds) of the SVE / SME int8 bodies. */
#define QMM_SVESME_KIND_Q8_0   0
#define QMM_SVESME_KIND_Q4_0   1
#define QMM_SVESME_KIND_IQ4_NL 2
#define QMM_SVESME_KIND_MXFP4  3
#define QMM_SVESME_KIND_IQ4_XS 4
#define QMM_SVESME_KIND_Q4_K   5
#define QMM_SVESME_KIND_Q6_K   6
#define QMM_SVESME_KIND_Q5_K   7
#define QMM_SVESME_KIND_Q4_1   8
#define QMM_SVESME_KIND_Q5_0   9
#define QMM_SVESME_KIND_Q5_1   10
#define QMM_SVESME_KIND_Q3_K   11
#define QMM_SVESME_KIND_Q2_K   12
/* IQ4_XS: a 32-block's sub-scales and nibbles, and a super-block of 8. */
#define QMM_SVESME_XS_BLK   (QMM_SVESME_NP + 4 * QMM_SVESME_GROUP)
#define QMM_SVESME_XS_SUPER (QMM_SVESME_SCALES + 8 * QMM_SVESME_XS_BLK)
/* Scale bytes per row and block: fp16 d, or MXFP4's E8M0 byte. */
#define QMM_SVESME_SB(kind) ((kind) == QMM_SVESME_KIND_MXFP4 ? 1 : 2)
/* Bytes of a panel block of the table kinds (the scales, then Q4_0's 4 groups). */
#define QMM_SVESME_TABLE_BLK(kind) (QMM_SVESME_NP * QMM_SVESME_SB(kind) + 4 * QMM_SVESME_GROUP)
/* Q4_K / Q5_K (five = 1: Q5_K, its bit-4 group after the nibbles): a
 * super-block's d and dmin, a 32-block's sc, m, nibbles (and bit-4 group). */
#define QMM_SVESME_K_HEAD        (2 * QMM_SVESME_SCALES)
#define QMM_SVESME_K_BLK(five)   (2 * QMM_SVESME_NP + (4 + (five)) * QMM_SVESME_GROUP)
#define QMM_SVESME_K_SUPER(five) (QMM_SVESME_K_HEAD + 8 * QMM_SVESME_K_BLK(five))
/* The legacy kinds: with a min m (Q4_1, Q5_1), with bit 4 (Q5_0, Q5_1). */
#define QMM_SVESME_LEG_MIN(kind)  ((kind) == QMM_SVESME_KIND_Q4_1 || (kind) == QMM_SVESME_KIND_Q5_1)
#define QMM_SVESME_LEG_FIVE(kind) ((kind) == QMM_SVESME_KIND_Q5_0 || (kind) == QMM_SVESME_KIND_Q5_1)
#define QMM_SVESME_LEG_BLK(kind)                                                                                                 \
    (QMM_SVESME_SCALES * (1 + QMM_SVESME_LEG_MIN(kind)) + (4 + QMM_SVESME_LEG_FIVE(kind)) * QMM_SVESME_GROUP)
/* Q6_K: a 32-block's sub-scales, low nibbles and high bits, and a super-block of 8. */
#define QMM_SVESME_Q6_BLK   (2 * QMM_SVESME_NP + 6 * QMM_SVESME_GROUP)
#define QMM_SVESME_Q6_SUPER (QMM_SVESME_SCALES + 8 * QMM_SVESME_Q6_BLK)
/* Q3_K, Q2_K (see their layout below): a super-block's head, the q's offset
 * in a 32-block, the 32-block and the super-block. */
#define QMM_SVESME_TWO_HEAD(kind)  ((kind) == QMM_SVESME_KIND_Q3_K ? QMM_SVESME_SCALES + 4 * QMM_SVESME_NP : 2 * QMM_SVESME_SCALES)
#define QMM_SVESME_TWO_QOFF(kind)  ((kind) == QMM_SVESME_KIND_Q3_K ? QMM_SVESME_NP : 2 * QMM_SVESME_NP) /* the q in a block */
#define QMM_SVESME_TWO_BLK(kind)   (QMM_SVESME_TWO_QOFF(kind) + ((kind) == QMM_SVESME_KIND_Q3_K ? 3 : 2) * QMM_SVESME_GROUP)
#define QMM_SVESME_TWO_SUPER(kind) (QMM_SVESME_TWO_HEAD(kind) + 8 * QMM_SVESME_TWO_BLK(kind))
/* MXFP4's scales in the kernel bodies: 2^(e - 128) from E8M0 bytes e widened
 * to the 32-bit lanes (svuint32_t) of predicate pg, exactly as
 * qmm_e8m0_half_to_fp32: exponent field e - 1, or for e < 2 the subnormal
 * bit 21 + e. A macro of SVE ACLE calls, so that streaming (SME) and
 * non-streaming (SVE) bodies share it. */
#define QMM_SVE_E8M0_HALF(pg, e)                                                                                                 \
    svreinterpret_f32_u32(svsel_u32(svcmplt_n_u32(pg, e, 2), svlsl_u32_x(pg, svdup_n_u32(0x00200000u), e),                       \
                                    svlsl_n_u32_x(pg, svsub_n_u32_x(pg, e, 1), 23)))

/* Q5_K's bit 4 of weight vector i in the kernel bodies: SDOT form (i < 8):
 * bit i of every byte of the hi word h (svuint32_t) moved to bit 4; SMMLA
 * form: the 4-byte word x of a row zero-extended into its 64-bit lane
 * (svuint64_t) spread so that byte t holds m_t (QMM_SVE_Q5_SPREAD), then bit
 * i (< 4) of each byte moved to bit 4. Byte-local under the mask 0x10; pg:
 * all lanes. */
#define QMM_SVE_Q5_HI(pg, h, i)                                                                                                  \
    svand_n_u8_x(pg,                                                                                                             \
                 svreinterpret_u8_u32((i) < 4    ? svlsl_n_u32_x(pg, h, (4 - (i)) & 7)                                           \
                                      : (i) == 4 ? (h)                                                                           \
                                                 : svlsr_n_u32_x(pg, h, ((i)-4) & 7)),                                           \
                 0x10)
#define QMM_SVE_Q5_SPREAD(pg, x) svand_n_u64_x(pg, svorr_u64_x(pg, x, svlsl_n_u64_x(pg, x, 28)), 0x0f0f0f0f0f0f0f0fULL)
#define QMM_SVE_Q5_HI8(pg, y, i) svand_n_u8_x(pg, svreinterpret_u8_u64(svlsl_n_u64_x(pg, y, 4 - (i))), 0x10)

/* Q6_K's signed weights q - 32 of weight vector i (0..3 of a hi word) in
 * the kernel bodies: q = nib | high 2 bits << 4, the high bits at bits 2i of
 * every byte of the hi word h (svuint32_t, qmm_svesme_q6_split) moved to
 * bits 4..5 by one 32-bit shift (byte-local under the mask). pg: all lanes. */
#define QMM_SVE_Q6_HI(pg, h, i)                                                                                                  \
    ((i) == 0 ? svlsl_n_u32_x(pg, h, 4) : (i) == 1 ? svlsl_n_u32_x(pg, h, 2) : (i) == 2 ? (h) : svlsr_n_u32_x(pg, h, 2))
#define QMM_SVE_Q6_W(pg, nib, h, i)                                                                                              \
    svreinterpret_s8_u8(                                                                                                         \
        svsub_n_u8_x(pg, svorr_u8_x(pg, nib, svand_n_u8_x(pg, svreinterpret_u8_u32(QMM_SVE_Q6_HI(pg, h, i)), 0x30)), 32))

/* The two-bit kinds' weight vectors in the kernel bodies: the 2-bit field s
 * (0..3) of every byte of lo (svuint8_t, qmm_svesme_pairs_split's form);
 * bit ib of every byte of hb moved to bit 2 (Q3_K's bit-2 word,
 * qmm_svesme_bit_split's form, spread for SMMLA); Q3_K's signed q - 4 from
 * both. Byte-local; pg: all lanes. */
#define QMM_SVE_PAIR(pg, lo, s) svand_n_u8_x(pg, (s) ? svlsr_n_u8_x(pg, lo, (2 * (s)) & 7) : (lo), 3)
#define QMM_SVE_BIT2(pg, hb, ib)                                                                                                 \
    svand_n_u8_x(pg, (ib) < 2 ? svlsl_n_u8_x(pg, hb, (2 - (ib)) & 7) : (ib) == 2 ? (hb) : svlsr_n_u8_x(pg, hb, ((ib)-2) & 7), 4)
#define QMM_SVE_Q3_W(pg, lo, s, hb, ib)                                                                                          \
    svreinterpret_s8_u8(svsub_n_u8_x(pg, svorr_u8_x(pg, QMM_SVE_PAIR(pg, lo, s), QMM_SVE_BIT2(pg, hb, ib)), 4))
/* Q3_K's sub-scales (-32..31) of a block's elements 0..15 (half 0) or
 * 16..31 (half 1) in 32-bit lanes: the low 4 bits from the block's byte lo
 * (svuint32_t), the high 2 from the row's word shifted right by 4 j (hs). */
#define QMM_SVE_Q3_SC(pg, lo, hs, half)                                                                                          \
    svsub_n_s32_x(pg,                                                                                                            \
                  svreinterpret_s32_u32(svorr_u32_x(pg, (half) ? svlsr_n_u32_x(pg, lo, 4) : svand_n_u32_x(pg, lo, 0x0f),         \
                                                    svand_n_u32_x(pg, svlsl_n_u32_x(pg, hs, (half) ? 2 : 4), 0x30))),            \
                  32)
/* Q2_K's sub-scales sc (the scale bytes' low nibbles, svuint32_t x) in every
 * byte of their lane: the factor its q are multiplied by (sc q <= 45). */
#define QMM_SVE_SC_BYTES32(pg, x) svreinterpret_u8_u32(svmul_n_u32_x(pg, svand_n_u32_x(pg, x, 0x0f), 0x01010101u))

static inline int64_t qmm_svesme_panels(int64_t n) { return (n + QMM_SVESME_NP - 1) / QMM_SVESME_NP; }

/* Q4_K or Q5_K by the Q5_K flag of the K-quant helpers. */
static inline int qmm_svesme_kmin_kind(int five) { return five ? QMM_SVESME_KIND_Q5_K : QMM_SVESME_KIND_Q4_K; }

/* The k a panel's unit holds (a 32-block, or a super-block of 8), and its
 * bytes (16 rows). */
static inline int64_t qmm_svesme_unit_k(int kind) {
    return kind == QMM_SVESME_KIND_IQ4_XS || kind == QMM_SVESME_KIND_Q4_K || kind == QMM_SVESME_KIND_Q5_K ||
                   kind == QMM_SVESME_KIND_Q6_K || kind == QMM_SVESME_KIND_Q3_K || kind == QMM_SVESME_KIND_Q2_K
               ? QMM_QK_K
               : QMM_QK;
}
static inline size_t qmm_svesme_unit_bytes(int kind) {
    switch (kind) {
    case QMM_SVESME_KIND_Q8_0: return QMM_SVESME_Q8_BLK;
    case QMM_SVESME_KIND_Q4_0: return QMM_SVESME_Q4_BLK;
    case QMM_SVESME_KIND_IQ4_NL:
    case QMM_SVESME_KIND_MXFP4: return QMM_SVESME_TABLE_BLK(kind);
    case QMM_SVESME_KIND_IQ4_XS: return QMM_SVESME_XS_SUPER;
    case QMM_SVESME_KIND_Q4_K: return QMM_SVESME_K_SUPER(0);
    case QMM_SVESME_KIND_Q5_K: return QMM_SVESME_K_SUPER(1);
    case QMM_SVESME_KIND_Q6_K: return QMM_SVESME_Q6_SUPER;
    case QMM_SVESME_KIND_Q3_K:
    case QMM_SVESME_KIND_Q2_K: return QMM_SVESME_TWO_SUPER(kind);
    default: /* the legacy kinds */ return QMM_SVESME_LEG_BLK(kind);
    }
}
/* A super-block kind's head (its d, ...) and the stride of its 32-blocks. */
static inline size_t qmm_svesme_head_bytes(int kind) {
    return kind == QMM_SVESME_KIND_Q4_K || kind == QMM_SVESME_KIND_Q5_K   ? QMM_SVESME_K_HEAD
           : kind == QMM_SVESME_KIND_Q3_K || kind == QMM_SVESME_KIND_Q2_K ? QMM_SVESME_TWO_HEAD(kind)
                                                                          : QMM_SVESME_SCALES; /* IQ4_XS, Q6_K */
}
static inline size_t qmm_svesme_blk_bytes(int kind) {
    switch (kind) {
    case QMM_SVESME_KIND_IQ4_XS: return QMM_SVESME_XS_BLK;
    case QMM_SVESME_KIND_Q4_K: return QMM_SVESME_K_BLK(0);
    case QMM_SVESME_KIND_Q5_K: return QMM_SVESME_K_BLK(1);
    case QMM_SVESME_KIND_Q6_K: return QMM_SVESME_Q6_BLK;
    case QMM_SVESME_KIND_Q3_K:
    case QMM_SVESME_KIND_Q2_K: return QMM_SVESME_TWO_BLK(kind);
    default: /* the per-32 kinds: the unit */ return qmm_svesme_unit_bytes(kind);
    }
}

/* The kinds' traits in the kernel bodies: the 4-bit table kinds (TBL of the
 * nibbles); the K-quants with a min per 32 (Q4_K, Q5_K); the two-bit kinds;
 * the legacy kinds; a min term (activation sums: per 32, or Q2_K's per 16);
 * a bit-4 group after the nibbles (Q5_K, Q5_0, Q5_1); two sums per block
 * (elements 0..15 and 16..31: Q6_K, Q3_K). */
static inline int qmm_svesme_is_table(int kind) {
    return kind == QMM_SVESME_KIND_IQ4_NL || kind == QMM_SVESME_KIND_MXFP4 || kind == QMM_SVESME_KIND_IQ4_XS;
}
static inline int qmm_svesme_is_kmin(int kind) { return kind == QMM_SVESME_KIND_Q4_K || kind == QMM_SVESME_KIND_Q5_K; }
static inline int qmm_svesme_is_two(int kind) { return kind == QMM_SVESME_KIND_Q3_K || kind == QMM_SVESME_KIND_Q2_K; }
static inline int qmm_svesme_is_leg(int kind) {
    return kind == QMM_SVESME_KIND_Q4_1 || kind == QMM_SVESME_KIND_Q5_0 || kind == QMM_SVESME_KIND_Q5_1;
}
static inline int qmm_svesme_has_min(int kind) {
    return qmm_svesme_is_kmin(kind) || QMM_SVESME_LEG_MIN(kind) || kind == QMM_SVESME_KIND_Q2_K;
}
static inline int qmm_svesme_act_sums(int kind) { return kind == QMM_SVESME_KIND_Q2_K ? 2 : qmm_svesme_has_min(kind); }
static inline int qmm_svesme_has_five(int kind) { return kind == QMM_SVESME_KIND_Q5_K || QMM_SVESME_LEG_FIVE(kind); }
static inline int qmm_svesme_is_split(int kind) { return kind == QMM_SVESME_KIND_Q6_K || kind == QMM_SVESME_KIND_Q3_K; }
/* Where the q's groups start in a 32-block of the SDOT / SME form: past its
 * d (and m), its sub-scales (and mins), or the table kinds' scale bytes. */
static inline size_t qmm_svesme_qoff(int kind) {
    if (qmm_svesme_is_leg(kind))
        return QMM_SVESME_SCALES * (1 + QMM_SVESME_LEG_MIN(kind));
    if (qmm_svesme_is_two(kind))
        return QMM_SVESME_TWO_QOFF(kind);
    if (qmm_svesme_is_kmin(kind) || kind == QMM_SVESME_KIND_Q6_K)
        return 2 * QMM_SVESME_NP;
    if (kind == QMM_SVESME_KIND_IQ4_XS)
        return QMM_SVESME_NP;
    if (qmm_svesme_is_table(kind))
        return QMM_SVESME_NP * QMM_SVESME_SB(kind);
    return QMM_SVESME_SCALES; /* Q8_0, Q4_0 */
}

/* The descriptor's w_packed_size and w_packed_offset of every kind. */
static inline size_t qmm_svesme_w_size(int kind, int64_t k, int64_t n) {
    return (size_t)qmm_svesme_panels(n) * (size_t)(k / qmm_svesme_unit_k(kind)) * qmm_svesme_unit_bytes(kind);
}
static inline size_t qmm_svesme_w_offset(int kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_SVESME_NP) * (size_t)(k / qmm_svesme_unit_k(kind)) * qmm_svesme_unit_bytes(kind);
}

/* Rows [n0, n1) cover whole panels (n0 % 16 == 0; n1 % 16 == 0 or n1 == n). */
static inline void qmm_svesme_w_pack_q8(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(QMM_SVESME_KIND_Q8_0, p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)nb * QMM_SVESME_Q8_BLK);
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const qmm_block_q8_0 *row = (const qmm_block_q8_0 *)((const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * QMM_SVESME_Q8_BLK;
                memcpy(blk + 2 * r, &row[b].d, 2);
                for (int g = 0; g < 8; g++)
                    memcpy(blk + QMM_SVESME_SCALES + g * QMM_SVESME_GROUP + 4 * r, row[b].qs + 4 * g, 4);
            }
        }
    }
}

static inline void qmm_svesme_w_pack_q4(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(QMM_SVESME_KIND_Q4_0, p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)nb * QMM_SVESME_Q4_BLK); /* pad rows: nibbles 0 = weight 0, d = 0 */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const qmm_block_q4_0 *row = (const qmm_block_q4_0 *)((const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * QMM_SVESME_Q4_BLK;
                memcpy(blk + 2 * r, &row[b].d, 2);
                for (int g = 0; g < 4; g++)
                    for (int t = 0; t < 4; t++)
                        blk[QMM_SVESME_SCALES + g * QMM_SVESME_GROUP + 4 * r + t] = (uint8_t)(row[b].qs[4 * g + t] ^ 0x88);
            }
        }
    }
}

/* Row r of a Q8_0 / Q4_0 panel block as its GGUF block (Q4_0's nibble bytes
 * were stored xor 0x88). */
static inline void qmm_svesme_q8_block_get(const uint8_t *blk, int r, qmm_block_q8_0 *g) {
    memcpy(&g->d, blk + 2 * r, 2);
    for (int gr = 0; gr < 8; gr++)
        memcpy(g->qs + 4 * gr, blk + QMM_SVESME_SCALES + gr * QMM_SVESME_GROUP + 4 * r, 4);
}
static inline void qmm_svesme_q4_block_get(const uint8_t *blk, int r, qmm_block_q4_0 *g) {
    memcpy(&g->d, blk + 2 * r, 2);
    for (int t = 0; t < QMM_QK / 2; t++)
        g->qs[t] = (uint8_t)(blk[QMM_SVESME_SCALES + (t / 4) * QMM_SVESME_GROUP + 4 * r + t % 4] ^ 0x88);
}

/* The table kinds' panels: the scale bytes of row r at SB r, the GGUF nibble
 * bytes qs[4g..4g+3] at scales + 64 g + 4 r. IQ4_NL and MXFP4 blocks both
 * hold their scale first, then the 16 qs bytes (formats.h). */
static inline void qmm_svesme_w_pack_table(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                           void *dst) {
    const int64_t nb = k / QMM_QK;
    const int sb = QMM_SVESME_SB(kind), blk_bytes = QMM_SVESME_TABLE_BLK(kind), row_bytes = sb + QMM_QK / 2;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * (size_t)nb * (size_t)blk_bytes;
        memset(panel, 0, (size_t)nb * (size_t)blk_bytes); /* pad rows: zero scales (their outputs are never stored) */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride;
            for (int64_t b = 0; b < nb; b++) {
                const uint8_t *g = row + (size_t)b * (size_t)row_bytes;
                uint8_t *blk = panel + (size_t)b * (size_t)blk_bytes;
                memcpy(blk + sb * r, g, (size_t)sb);
                for (int j = 0; j < 4; j++)
                    memcpy(blk + QMM_SVESME_NP * sb + j * QMM_SVESME_GROUP + 4 * r, g + sb + 4 * j, 4);
            }
        }
    }
}

/* Row r of a table kind's panel block as its GGUF block: the scale bytes,
 * then the 16 qs bytes, as they are. */
static inline void qmm_svesme_table_block_get(int kind, const uint8_t *blk, int r, uint8_t *g) {
    const int sb = QMM_SVESME_SB(kind);
    memcpy(g, blk + sb * r, (size_t)sb);
    for (int j = 0; j < 4; j++)
        memcpy(g + sb + 4 * j, blk + QMM_SVESME_NP * sb + j * QMM_SVESME_GROUP + 4 * r, 4);
}

/* IQ4_XS: GGUF rows [n0, n1) (whole panels; pad rows zero). */
static inline void qmm_svesme_w_pack_iq4_xs(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                            void *dst) {
    const int64_t ns = k / QMM_QK_K;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(QMM_SVESME_KIND_IQ4_XS, p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)ns * QMM_SVESME_XS_SUPER);
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const qmm_block_iq4_xs *row =
                (const qmm_block_iq4_xs *)((const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride);
            for (int64_t s = 0; s < ns; s++) {
                uint8_t *sup = panel + (size_t)s * QMM_SVESME_XS_SUPER;
                memcpy(sup + 2 * r, &row[s].d, 2);
                for (int j = 0; j < 8; j++) {
                    uint8_t *blk = sup + QMM_SVESME_SCALES + j * QMM_SVESME_XS_BLK;
                    blk[r] = (uint8_t)(int8_t)qmm_iq4_xs_scale(&row[s], j);
                    for (int g = 0; g < 4; g++)
                        memcpy(blk + QMM_SVESME_NP + g * QMM_SVESME_GROUP + 4 * r, row[s].qs + 16 * j + 4 * g, 4);
                }
            }
        }
    }
}
/* Row r's GGUF super-block rebuilt from panel super-block sup: the 6-bit
 * sub-scales ls_j + 32 split back into scales_l / scales_h, the nibble bytes
 * as they are (every bit of the block survives packing). */
static inline void qmm_svesme_iq4_xs_super(const uint8_t *sup, int r, qmm_block_iq4_xs *g) {
    qmm_iq4_xs_header_put(g, sup + 2 * r, sup + QMM_SVESME_SCALES + r, QMM_SVESME_XS_BLK);
    for (int j = 0; j < 8; j++) {
        const uint8_t *blk = sup + QMM_SVESME_SCALES + j * QMM_SVESME_XS_BLK;
        for (int q = 0; q < 4; q++)
            memcpy(g->qs + 16 * j + 4 * q, blk + QMM_SVESME_NP + q * QMM_SVESME_GROUP + 4 * r, 4);
    }
}

/* 32 q as Q4_0's 16 nibble bytes (byte t: q[t] & 15 | (q[t + 16] & 15) << 4), and back. */
static inline void qmm_svesme_nibbles(const uint8_t q[QMM_QK], uint8_t lo[QMM_QK / 2]) {
    for (int t = 0; t < QMM_QK / 2; t++)
        lo[t] = (uint8_t)((q[t] & 0x0f) | (q[t + 16] & 0x0f) << 4);
}
static inline void qmm_svesme_nibbles_join(const uint8_t lo[QMM_QK / 2], uint8_t q[QMM_QK]) {
    for (int t = 0; t < QMM_QK / 2; t++) {
        q[t] = (uint8_t)(lo[t] & 0x0f);
        q[t + 16] = (uint8_t)(lo[t] >> 4);
    }
}
/* Bit `bit` of 32 q (Q5_*: bit 4, Q3_K: bit 2), for weight vectors of kr
 * bytes per row: kr = 4 (SDOT): bit i of hi[t] is element 4i + t's (vector
 * i < 8), so vector i's is bit i of each byte of the word; kr = 8 (SMMLA):
 * with m_t the 4 bits of elements 8i + t (i < 4), hi[t] = m_t | m_(t + 4) <<
 * 4, which QMM_SVE_Q5_SPREAD turns into m_t in byte t of a 64-bit lane. 4
 * bytes a row either way; join ORs the bits back into q. */
static inline void qmm_svesme_bit_split(const uint8_t q[QMM_QK], int bit, int kr, uint8_t hi[4]) {
    memset(hi, 0, 4);
    for (int k = 0; k < QMM_QK; k++) {
        const int b = (q[k] >> bit) & 1, t = k % kr, i = k / kr;
        hi[t % 4] |= (uint8_t)(b << (i + 4 * (t / 4)));
    }
}
static inline void qmm_svesme_bit_join(const uint8_t hi[4], int bit, int kr, uint8_t q[QMM_QK]) {
    for (int k = 0; k < QMM_QK; k++) {
        const int t = k % kr, i = k / kr;
        q[k] |= (uint8_t)(((hi[t % 4] >> (i + 4 * (t / 4))) & 1) << bit);
    }
}
/* 2-bit fields v[k] & 3 of 32 values, for weight vectors of kr bytes per row
 * (Q6_K's high bits, Q3_K's and Q2_K's low bits): element k is byte t = k %
 * kr of vector i = k / kr, its bits at 2 (i % 4) of out[kr (i / 4) + t], so
 * that vector i's are (byte >> 2 (i % 4)) & 3: 8 bytes either way. */
static inline void qmm_svesme_pairs_split(const uint8_t v[QMM_QK], int kr, uint8_t out[8]) {
    memset(out, 0, 8);
    for (int k = 0; k < QMM_QK; k++) {
        const int i = k / kr;
        out[kr * (i / 4) + k % kr] |= (uint8_t)((v[k] & 3) << (2 * (i % 4)));
    }
}
static inline int qmm_svesme_pairs_at(const uint8_t in[8], int kr, int k) {
    const int i = k / kr;
    return (in[kr * (i / 4) + k % kr] >> (2 * (i % 4))) & 3;
}

/* Row r's 32 q (0..15; five: 0..31) in a block's groups of the SDOT form at
 * qb (the 4 nibble groups, then with five the bit-4 group), and back. */
static inline void qmm_svesme_q_put(uint8_t *qb, int r, int five, const uint8_t q[QMM_QK]) {
    uint8_t lo[QMM_QK / 2], hi[4];
    qmm_svesme_nibbles(q, lo);
    for (int g = 0; g < 4; g++)
        memcpy(qb + g * QMM_SVESME_GROUP + 4 * r, lo + 4 * g, 4);
    if (five) {
        qmm_svesme_bit_split(q, 4, 4, hi);
        memcpy(qb + 4 * QMM_SVESME_GROUP + 4 * r, hi, 4);
    }
}
static inline void qmm_svesme_q_get(const uint8_t *qb, int r, int five, uint8_t q[QMM_QK]) {
    uint8_t lo[QMM_QK / 2];
    for (int g = 0; g < 4; g++)
        memcpy(lo + 4 * g, qb + g * QMM_SVESME_GROUP + 4 * r, 4);
    qmm_svesme_nibbles_join(lo, q);
    if (five)
        qmm_svesme_bit_join(qb + 4 * QMM_SVESME_GROUP + 4 * r, 4, 4, q);
}

/* The q (0..15, Q5_K 0..31) of 32-block j of a GGUF block, and back (ORed
 * into a zeroed block). Both blocks start with d, dmin, scales[12]. */
_Static_assert(offsetof(qmm_block_q5_k, scales) == offsetof(qmm_block_q4_k, scales), "Q4_K / Q5_K headers");
static inline void qmm_svesme_kmin_q(int five, const void *g, int j, uint8_t q[QMM_QK]) {
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)(five ? qmm_q5_k_q((const qmm_block_q5_k *)g, 32 * j + l)
                              : qmm_q4_k_q((const qmm_block_q4_k *)g, 32 * j + l));
}
static inline void qmm_svesme_kmin_q_put(int five, void *g, int j, const uint8_t q[QMM_QK]) {
    uint8_t *qs = five ? ((qmm_block_q5_k *)g)->qs : ((qmm_block_q4_k *)g)->qs;
    for (int l = 0; l < QMM_QK; l++) {
        const int e = 32 * j + l;
        qs[32 * (e / 64) + e % 32] |= (uint8_t)((q[l] & 0x0f) << (4 * ((e / 32) % 2)));
        if (five)
            ((qmm_block_q5_k *)g)->qh[e % 32] |= (uint8_t)((q[l] >> 4) << (e / 32));
    }
}
/* A block's header (d, dmin, scales: its first 16 bytes) from row r's packed
 * parts: d at dptr[r], dmin at dptr[16 + r], sc_j / m_j at scm[j * blk_stride
 * + r] / [+ 16] (hdr zeroed), and into them. */
static inline void qmm_svesme_k_header_put(uint8_t *hdr, const uint8_t *dptr, const uint8_t *scm, size_t blk_stride, int r) {
    memcpy(hdr, dptr + 2 * r, 2);
    memcpy(hdr + 2, dptr + QMM_SVESME_SCALES + 2 * r, 2);
    for (int j = 0; j < 8; j++)
        qmm_k_scale_min_put(hdr + offsetof(qmm_block_q4_k, scales), j, scm[j * blk_stride + r],
                            scm[j * blk_stride + QMM_SVESME_NP + r]);
}
static inline void qmm_svesme_k_header_get(const uint8_t *hdr, uint8_t *dptr, uint8_t *scm, size_t blk_stride, int r) {
    memcpy(dptr + 2 * r, hdr, 2);
    memcpy(dptr + QMM_SVESME_SCALES + 2 * r, hdr + 2, 2);
    for (int j = 0; j < 8; j++) {
        int sc, m;
        qmm_k_scale_min(hdr + offsetof(qmm_block_q4_k, scales), j, &sc, &m);
        scm[j * blk_stride + r] = (uint8_t)sc;
        scm[j * blk_stride + QMM_SVESME_NP + r] = (uint8_t)m;
    }
}
/* A zeroed GGUF block of either type, for the readers. */
typedef union {
    qmm_block_q4_k q4;
    qmm_block_q5_k q5;
} qmm_svesme_kmin_block;

static inline void qmm_svesme_w_pack_kmin(int five, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                          void *dst) {
    const int64_t ns = k / QMM_QK_K;
    const size_t gb_bytes = five ? sizeof(qmm_block_q5_k) : sizeof(qmm_block_q4_k), blk_bytes = QMM_SVESME_K_BLK(five);
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(qmm_svesme_kmin_kind(five), p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)ns * QMM_SVESME_K_SUPER(five)); /* pad rows: zero scales, never stored */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride;
            for (int64_t s = 0; s < ns; s++) {
                const uint8_t *gb = row + (size_t)s * gb_bytes;
                uint8_t *sup = panel + (size_t)s * QMM_SVESME_K_SUPER(five);
                qmm_svesme_k_header_get(gb, sup, sup + QMM_SVESME_K_HEAD, blk_bytes, r);
                for (int j = 0; j < 8; j++) {
                    uint8_t q[QMM_QK];
                    qmm_svesme_kmin_q(five, gb, j, q);
                    qmm_svesme_q_put(sup + QMM_SVESME_K_HEAD + j * blk_bytes + 2 * QMM_SVESME_NP, r, five, q);
                }
            }
        }
    }
}
/* Row r's GGUF super-block (g zeroed by the caller) rebuilt from panel
 * super-block sup: sc_j and m_j (0..63 in bytes) packed back into the 12
 * scale bytes, whose every bit they came from. */
static inline void qmm_svesme_kmin_super(int five, const uint8_t *sup, int r, qmm_svesme_kmin_block *g) {
    const size_t blk_bytes = QMM_SVESME_K_BLK(five);
    qmm_svesme_k_header_put((uint8_t *)g, sup, sup + QMM_SVESME_K_HEAD, blk_bytes, r);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        qmm_svesme_q_get(sup + QMM_SVESME_K_HEAD + j * blk_bytes + 2 * QMM_SVESME_NP, r, five, q);
        qmm_svesme_kmin_q_put(five, g, j, q);
    }
}

/* A legacy GGUF block's fp16 d, m (0 without) and unsigned q (0..15 / 0..31). */
static inline void qmm_svesme_leg_get(int kind, const uint8_t *gb, uint16_t *d, uint16_t *m, uint8_t q[QMM_QK]) {
    *m = 0;
    if (kind == QMM_SVESME_KIND_Q4_1) {
        const qmm_block_q4_1 *g = (const qmm_block_q4_1 *)gb;
        *d = g->d, *m = g->m;
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q4_1_q(g, l);
    } else if (kind == QMM_SVESME_KIND_Q5_0) {
        const qmm_block_q5_0 *g = (const qmm_block_q5_0 *)gb;
        *d = g->d;
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)(qmm_q5_0_q(g, l) + 16);
    } else {
        const qmm_block_q5_1 *g = (const qmm_block_q5_1 *)gb;
        *d = g->d, *m = g->m;
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q5_1_q(g, l);
    }
}
/* ... and the GGUF block of 32 values rebuilt from them, as its bytes at gb
 * (GGUF rows need not be aligned for the block types); */
static inline void qmm_svesme_leg_put(int kind, uint16_t d, uint16_t m, const uint8_t q[QMM_QK], uint8_t *gb) {
    if (kind == QMM_SVESME_KIND_Q4_1) {
        qmm_block_q4_1 g = {.d = d, .m = m};
        qmm_q4_nibbles_put(q, g.qs);
        memcpy(gb, &g, sizeof g);
    } else if (kind == QMM_SVESME_KIND_Q5_0) {
        qmm_block_q5_0 g = {.d = d};
        qmm_q4_nibbles_put(q, g.qs);
        qmm_q5_high_bits_put(q, g.qh);
        memcpy(gb, &g, sizeof g);
    } else {
        qmm_block_q5_1 g = {.d = d, .m = m};
        qmm_q4_nibbles_put(q, g.qs);
        qmm_q5_high_bits_put(q, g.qh);
        memcpy(gb, &g, sizeof g);
    }
}
static inline size_t qmm_svesme_leg_gguf_bytes(int kind) {
    return kind == QMM_SVESME_KIND_Q4_1   ? sizeof(qmm_block_q4_1)
           : kind == QMM_SVESME_KIND_Q5_0 ? sizeof(qmm_block_q5_0)
                                          : sizeof(qmm_block_q5_1);
}
static inline void qmm_svesme_w_pack_leg(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                         void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t blk_bytes = QMM_SVESME_LEG_BLK(kind), qoff = QMM_SVESME_SCALES * (1 + QMM_SVESME_LEG_MIN(kind));
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * (size_t)nb * blk_bytes;
        memset(panel, 0, (size_t)nb * blk_bytes); /* pad rows: zero scales, never stored */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride;
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * blk_bytes;
                uint8_t q[QMM_QK];
                uint16_t d, m;
                qmm_svesme_leg_get(kind, row + (size_t)b * qmm_svesme_leg_gguf_bytes(kind), &d, &m, q);
                memcpy(blk + 2 * r, &d, 2);
                if (QMM_SVESME_LEG_MIN(kind))
                    memcpy(blk + QMM_SVESME_SCALES + 2 * r, &m, 2);
                qmm_svesme_q_put(blk + qoff, r, QMM_SVESME_LEG_FIVE(kind), q);
            }
        }
    }
}
/* Row r's d, m (0 without) and q in panel block blk. */
static inline void qmm_svesme_leg_block_get(int kind, const uint8_t *blk, int r, uint16_t *d, uint16_t *m, uint8_t q[QMM_QK]) {
    *m = 0;
    memcpy(d, blk + 2 * r, 2);
    if (QMM_SVESME_LEG_MIN(kind))
        memcpy(m, blk + QMM_SVESME_SCALES + 2 * r, 2);
    qmm_svesme_q_get(blk + QMM_SVESME_SCALES * (1 + QMM_SVESME_LEG_MIN(kind)), r, QMM_SVESME_LEG_FIVE(kind), q);
}

/* Q6_K's 32-block j as its q (0..63), and back (ORed into a zeroed block). */
static inline void qmm_svesme_q6_get(const qmm_block_q6_k *g, int j, uint8_t q[QMM_QK]) {
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)(qmm_q6_k_q(g, 32 * j + l) + 32);
}
static inline void qmm_svesme_q6_put(qmm_block_q6_k *g, int j, const uint8_t q[QMM_QK]) {
    for (int l = 0; l < QMM_QK; l++) {
        const int e = 32 * j + l, h = e / 128, r = e % 128;
        g->ql[64 * h + r % 64] |= (uint8_t)((q[l] & 0x0f) << (4 * (r / 64)));
        g->qh[32 * h + r % 32] |= (uint8_t)((q[l] >> 4) << (2 * (r / 32)));
    }
}
/* 32 q (0..63) as Q4_0-form low nibbles (byte t: q[t] & 15 | (q[t + 16] & 15)
 * << 4) and high 2 bits in qmm_svesme_pairs_split's form for weight vectors
 * of kr bytes per row (4: SDOT, 8: SMMLA), and back. */
static inline void qmm_svesme_q6_split(const uint8_t q[QMM_QK], int kr, uint8_t lo[QMM_QK / 2], uint8_t hi[8]) {
    uint8_t h[QMM_QK];
    for (int k = 0; k < QMM_QK; k++)
        h[k] = (uint8_t)(q[k] >> 4);
    qmm_svesme_nibbles(q, lo);
    qmm_svesme_pairs_split(h, kr, hi);
}
static inline void qmm_svesme_q6_join(const uint8_t lo[QMM_QK / 2], const uint8_t hi[8], int kr, uint8_t q[QMM_QK]) {
    qmm_svesme_nibbles_join(lo, q);
    for (int k = 0; k < QMM_QK; k++)
        q[k] |= (uint8_t)(qmm_svesme_pairs_at(hi, kr, k) << 4);
}

static inline void qmm_svesme_w_pack_q6_k(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                          void *dst) {
    const int64_t ns = k / QMM_QK_K;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(QMM_SVESME_KIND_Q6_K, p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)ns * QMM_SVESME_Q6_SUPER); /* pad rows: zero scales, never stored */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const qmm_block_q6_k *row = (const qmm_block_q6_k *)((const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride);
            for (int64_t s = 0; s < ns; s++) {
                uint8_t *sup = panel + (size_t)s * QMM_SVESME_Q6_SUPER;
                memcpy(sup + 2 * r, &row[s].d, 2);
                for (int j = 0; j < 8; j++) {
                    uint8_t *blk = sup + QMM_SVESME_SCALES + j * QMM_SVESME_Q6_BLK;
                    uint8_t q[QMM_QK], lo[QMM_QK / 2], hi[8];
                    blk[r] = (uint8_t)row[s].scales[2 * j];
                    blk[QMM_SVESME_NP + r] = (uint8_t)row[s].scales[2 * j + 1];
                    qmm_svesme_q6_get(&row[s], j, q);
                    qmm_svesme_q6_split(q, 4, lo, hi);
                    for (int g = 0; g < 4; g++)
                        memcpy(blk + 2 * QMM_SVESME_NP + g * QMM_SVESME_GROUP + 4 * r, lo + 4 * g, 4);
                    for (int g = 0; g < 2; g++)
                        memcpy(blk + 2 * QMM_SVESME_NP + (4 + g) * QMM_SVESME_GROUP + 4 * r, hi + 4 * g, 4);
                }
            }
        }
    }
}
/* Row r's GGUF super-block rebuilt from panel super-block sup (every bit of
 * it survives packing). */
static inline void qmm_svesme_q6_super(const uint8_t *sup, int r, qmm_block_q6_k *g) {
    memset(g, 0, sizeof *g);
    memcpy(&g->d, sup + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        const uint8_t *blk = sup + QMM_SVESME_SCALES + j * QMM_SVESME_Q6_BLK;
        uint8_t q[QMM_QK], lo[QMM_QK / 2], hi[8];
        g->scales[2 * j] = (int8_t)blk[r];
        g->scales[2 * j + 1] = (int8_t)blk[QMM_SVESME_NP + r];
        for (int q4 = 0; q4 < 4; q4++)
            memcpy(lo + 4 * q4, blk + 2 * QMM_SVESME_NP + q4 * QMM_SVESME_GROUP + 4 * r, 4);
        for (int q4 = 0; q4 < 2; q4++)
            memcpy(hi + 4 * q4, blk + 2 * QMM_SVESME_NP + (4 + q4) * QMM_SVESME_GROUP + 4 * r, 4);
        qmm_svesme_q6_join(lo, hi, 4, q);
        qmm_svesme_q6_put(g, j, q);
    }
}

/* Q3_K and Q2_K (the two-bit kinds), per super-block of 8 blocks, for weight
 * vectors of kr bytes per row (4: the SDOT / SME families, 8: SMMLA's row
 * pairs; qmm_svesme_two_at):
 *   Q3_K: 16 x fp16 d (32 bytes), 16 x uint32 of the sub-scales' high 2 bits
 *         (row r's word at 32 + 4 r: bits 2i of sub-block i's sc + 32), then
 *         per 32-block j 16 bytes of their low 4 bits (byte r: sub-block
 *         2j's | 2j + 1's << 4), the q's low 2 bits (128 bytes,
 *         qmm_svesme_pairs_split) and bit 2 (16 x 4 bytes,
 *         qmm_svesme_bit_split), q = the signed value + 4 (0..7): GGUF's 110
 *         bytes per row exactly (the 6-bit scales stay 6 bits: bytes of them
 *         would be 3.6% more);
 *   Q2_K: 16 x fp16 d, 16 x fp16 dmin (64 bytes), then per 32-block j GGUF's
 *         scale bytes 2j and 2j + 1 of the 16 rows (sc | m << 4 of elements
 *         0..15, then of 16..31) and the 2-bit q (128 bytes): GGUF's 84. */
#define QMM_SVESME_KIND_Q3_K 11
#define QMM_SVESME_KIND_Q2_K 12

/* Byte t (0..7) of row r's 2-bit q in a block's 128 bytes of them: kr = 4,
 * two groups of [16 rows x 4 bytes] (vectors 0..3, then 4..7); kr = 8, one
 * group of 8 row pairs x [row 2p: 8 bytes, row 2p + 1: 8 bytes]. */
static inline size_t qmm_svesme_two_at(int kr, int r, int t) {
    return kr == 4 ? (size_t)(t / 4) * QMM_SVESME_GROUP + (size_t)(4 * r + t % 4) : (size_t)(16 * (r / 2) + 8 * (r % 2) + t);
}
/* Q3_K's 6-bit scale i (0..63, the stored sc + 32) ORed into zeroed GGUF
 * scale bytes: qmm_q3_k_scale's placement. */
static inline void qmm_svesme_q3_scale_put(uint8_t s[12], int i, int u) {
    s[i % 8] |= (uint8_t)((u & 0x0f) << (4 * (i / 8)));
    s[8 + i % 4] |= (uint8_t)(((u >> 4) & 3) << (2 * (i / 4)));
}
/* 32-block j of a GGUF Q3_K / Q2_K super-block as q (Q3_K: value + 4, 0..7;
 * Q2_K: 0..3), and back (ORed into a zeroed block). */
static inline void qmm_svesme_two_q(int kind, const void *g, int j, uint8_t q[QMM_QK]) {
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)(kind == QMM_SVESME_KIND_Q3_K ? qmm_q3_k_q((const qmm_block_q3_k *)g, 32 * j + l) + 4
                                                      : qmm_q2_k_q((const qmm_block_q2_k *)g, 32 * j + l));
}
static inline void qmm_svesme_two_q_put(int kind, void *g, int j, const uint8_t q[QMM_QK]) {
    uint8_t *qs = kind == QMM_SVESME_KIND_Q3_K ? ((qmm_block_q3_k *)g)->qs : ((qmm_block_q2_k *)g)->qs;
    for (int l = 0; l < QMM_QK; l++) {
        const int e = 32 * j + l;
        qs[32 * (e / 128) + e % 32] |= (uint8_t)((q[l] & 3) << (2 * ((e / 32) % 4)));
        if (kind == QMM_SVESME_KIND_Q3_K)
            ((qmm_block_q3_k *)g)->hmask[e % 32] |= (uint8_t)((q[l] >> 2) << (e / 32));
    }
}
static inline void qmm_svesme_w_pack_two(int kind, int kr, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                         size_t stride, void *dst) {
    const int64_t ns = k / QMM_QK_K;
    const int q3 = kind == QMM_SVESME_KIND_Q3_K;
    const size_t gb_bytes = q3 ? sizeof(qmm_block_q3_k) : sizeof(qmm_block_q2_k), blk_bytes = QMM_SVESME_TWO_BLK(kind);
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset(kind, p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)ns * QMM_SVESME_TWO_SUPER(kind)); /* pad rows: zero scales, never stored */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride;
            for (int64_t s = 0; s < ns; s++) {
                const uint8_t *gb = row + (size_t)s * gb_bytes;
                uint8_t *sup = panel + (size_t)s * QMM_SVESME_TWO_SUPER(kind), *blk0 = sup + QMM_SVESME_TWO_HEAD(kind);
                if (q3) {
                    const qmm_block_q3_k *g = (const qmm_block_q3_k *)gb;
                    uint32_t hw = 0;
                    memcpy(sup + 2 * r, &g->d, 2);
                    for (int i = 0; i < 16; i++) {
                        const int u = qmm_q3_k_scale(g->scales, i) + 32;
                        hw |= (uint32_t)(u >> 4) << (2 * i);
                        blk0[(i / 2) * blk_bytes + (size_t)r] |= (uint8_t)((u & 0x0f) << (4 * (i % 2)));
                    }
                    memcpy(sup + QMM_SVESME_SCALES + 4 * r, &hw, 4);
                } else {
                    const qmm_block_q2_k *g = (const qmm_block_q2_k *)gb;
                    memcpy(sup + 2 * r, &g->d, 2);
                    memcpy(sup + QMM_SVESME_SCALES + 2 * r, &g->dmin, 2);
                    for (int j = 0; j < 8; j++) {
                        blk0[j * blk_bytes + (size_t)r] = g->scales[2 * j];
                        blk0[j * blk_bytes + QMM_SVESME_NP + (size_t)r] = g->scales[2 * j + 1];
                    }
                }
                for (int j = 0; j < 8; j++) {
                    uint8_t *qb = blk0 + j * blk_bytes + QMM_SVESME_TWO_QOFF(kind);
                    uint8_t q[QMM_QK], lo[8], hi[4];
                    qmm_svesme_two_q(kind, gb, j, q);
                    qmm_svesme_pairs_split(q, kr, lo);
                    for (int t = 0; t < 8; t++)
                        qb[qmm_svesme_two_at(kr, r, t)] = lo[t];
                    if (q3) {
                        qmm_svesme_bit_split(q, 2, kr, hi);
                        memcpy(qb + 2 * QMM_SVESME_GROUP + 4 * r, hi, 4);
                    }
                }
            }
        }
    }
}
/* Either two-bit GGUF super-block. */
typedef union {
    qmm_block_q3_k q3;
    qmm_block_q2_k q2;
} qmm_svesme_two_block;

/* Row r's GGUF super-block (g zeroed by the caller) rebuilt from panel
 * super-block sup: Q3_K's 16 6-bit scales put back from their low 4 and high
 * 2 bits, Q2_K's scale bytes as they are (every bit survives packing). */
static inline void qmm_svesme_two_super(int kind, int kr, const uint8_t *sup, int r, qmm_svesme_two_block *g) {
    const int q3 = kind == QMM_SVESME_KIND_Q3_K;
    const size_t blk_bytes = QMM_SVESME_TWO_BLK(kind);
    const uint8_t *blk0 = sup + QMM_SVESME_TWO_HEAD(kind);
    if (q3) {
        uint32_t hw;
        memcpy(&g->q3.d, sup + 2 * r, 2);
        memcpy(&hw, sup + QMM_SVESME_SCALES + 4 * r, 4);
        for (int i = 0; i < 16; i++)
            qmm_svesme_q3_scale_put(
                g->q3.scales, i, ((blk0[(i / 2) * blk_bytes + (size_t)r] >> (4 * (i % 2))) & 0x0f) | ((hw >> (2 * i)) & 3) << 4);
    } else {
        memcpy(&g->q2.d, sup + 2 * r, 2);
        memcpy(&g->q2.dmin, sup + QMM_SVESME_SCALES + 2 * r, 2);
        for (int j = 0; j < 8; j++) {
            g->q2.scales[2 * j] = blk0[j * blk_bytes + (size_t)r];
            g->q2.scales[2 * j + 1] = blk0[j * blk_bytes + QMM_SVESME_NP + (size_t)r];
        }
    }
    for (int j = 0; j < 8; j++) {
        const uint8_t *qb = blk0 + j * blk_bytes + QMM_SVESME_TWO_QOFF(kind);
        uint8_t q[QMM_QK], lo[8];
        for (int t = 0; t < 8; t++)
            lo[t] = qb[qmm_svesme_two_at(kr, r, t)];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_svesme_pairs_at(lo, kr, l);
        if (q3)
            qmm_svesme_bit_join(qb + 2 * QMM_SVESME_GROUP + 4 * r, 2, kr, q);
        qmm_svesme_two_q_put(kind, g, j, q);
    }
}
/* The descriptor's w_pack of every kind in the SDOT / SME form
 * (sve_i8mm_body.h has its own, kr = 8); w_unpack_row below. */
static inline void qmm_svesme_w_pack(int kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                     void *dst) {
    switch (kind) {
    case QMM_SVESME_KIND_Q8_0: qmm_svesme_w_pack_q8(k, n, n0, n1, src, stride, dst); break;
    case QMM_SVESME_KIND_Q4_0: qmm_svesme_w_pack_q4(k, n, n0, n1, src, stride, dst); break;
    case QMM_SVESME_KIND_IQ4_NL:
    case QMM_SVESME_KIND_MXFP4: qmm_svesme_w_pack_table(kind, k, n, n0, n1, src, stride, dst); break;
    case QMM_SVESME_KIND_IQ4_XS: qmm_svesme_w_pack_iq4_xs(k, n, n0, n1, src, stride, dst); break;
    case QMM_SVESME_KIND_Q4_K:
    case QMM_SVESME_KIND_Q5_K: qmm_svesme_w_pack_kmin(kind == QMM_SVESME_KIND_Q5_K, k, n, n0, n1, src, stride, dst); break;
    case QMM_SVESME_KIND_Q6_K: qmm_svesme_w_pack_q6_k(k, n, n0, n1, src, stride, dst); break;
    case QMM_SVESME_KIND_Q3_K:
    case QMM_SVESME_KIND_Q2_K: qmm_svesme_w_pack_two(kind, 4, k, n, n0, n1, src, stride, dst); break;
    default: qmm_svesme_w_pack_leg(kind, k, n, n0, n1, src, stride, dst);
    }
}
/* The GGUF type of a kind. */
static inline qmm_type qmm_svesme_type(int kind) {
    switch (kind) {
    case QMM_SVESME_KIND_Q8_0: return QMM_TYPE_Q8_0;
    case QMM_SVESME_KIND_Q4_0: return QMM_TYPE_Q4_0;
    case QMM_SVESME_KIND_IQ4_NL: return QMM_TYPE_IQ4_NL;
    case QMM_SVESME_KIND_MXFP4: return QMM_TYPE_MXFP4;
    case QMM_SVESME_KIND_IQ4_XS: return QMM_TYPE_IQ4_XS;
    case QMM_SVESME_KIND_Q4_K: return QMM_TYPE_Q4_K;
    case QMM_SVESME_KIND_Q5_K: return QMM_TYPE_Q5_K;
    case QMM_SVESME_KIND_Q6_K: return QMM_TYPE_Q6_K;
    case QMM_SVESME_KIND_Q4_1: return QMM_TYPE_Q4_1;
    case QMM_SVESME_KIND_Q5_0: return QMM_TYPE_Q5_0;
    case QMM_SVESME_KIND_Q5_1: return QMM_TYPE_Q5_1;
    case QMM_SVESME_KIND_Q3_K: return QMM_TYPE_Q3_K;
    case QMM_SVESME_KIND_Q2_K:
    default: return QMM_TYPE_Q2_K;
    }
}

/* Any GGUF block or super-block of the kinds, for the readers. */
typedef union {
    qmm_block_q8_0 q8_0;
    qmm_block_q4_0 q4_0;
    qmm_block_iq4_xs iq4_xs;
    qmm_svesme_kmin_block kmin;
    qmm_block_q6_k q6_k;
    qmm_svesme_two_block two;
    uint8_t bytes[sizeof(qmm_block_q8_0)]; /* the per-32 kinds' blocks, 17 to 34 bytes, as bytes */
} qmm_svesme_gguf_block;

/* Row r of unit u of a panel as its GGUF block at g (zeroed first): a
 * layout's exact inverse of its pack (every bit of a block survives packing). */
typedef void (*qmm_svesme_unit_get_fn)(int kind, const uint8_t *panel, int64_t u, int r, qmm_svesme_gguf_block *g);

/* w_unpack_row: the row's GGUF bytes, block by block from get. */
static inline void qmm_svesme_row_unpack(qmm_svesme_unit_get_fn get, int kind, const void *packed, int64_t k, int64_t row,
                                         void *dst) {
    const uint8_t *panel = (const uint8_t *)packed + qmm_svesme_w_offset(kind, row, k);
    const int64_t uk = qmm_svesme_unit_k(kind);
    const size_t gb_bytes = qmm_type_block_bytes(qmm_svesme_type(kind));
    for (int64_t u = 0; u < k / uk; u++) {
        qmm_svesme_gguf_block g;
        memset(&g, 0, sizeof g);
        get(kind, panel, u, (int)(row % QMM_SVESME_NP), &g);
        memcpy((uint8_t *)dst + (size_t)u * gb_bytes, &g, gb_bytes);
    }
}

/* The SDOT / SME layout's unit_get. */
static inline void qmm_svesme_unit_get(int kind, const uint8_t *panel, int64_t u, int r, qmm_svesme_gguf_block *g) {
    const uint8_t *unit = panel + (size_t)u * qmm_svesme_unit_bytes(kind);
    switch (kind) {
    case QMM_SVESME_KIND_Q8_0: qmm_svesme_q8_block_get(unit, r, &g->q8_0); break;
    case QMM_SVESME_KIND_Q4_0: qmm_svesme_q4_block_get(unit, r, &g->q4_0); break;
    case QMM_SVESME_KIND_IQ4_NL:
    case QMM_SVESME_KIND_MXFP4: qmm_svesme_table_block_get(kind, unit, r, g->bytes); break;
    case QMM_SVESME_KIND_IQ4_XS: qmm_svesme_iq4_xs_super(unit, r, &g->iq4_xs); break;
    case QMM_SVESME_KIND_Q4_K:
    case QMM_SVESME_KIND_Q5_K: qmm_svesme_kmin_super(kind == QMM_SVESME_KIND_Q5_K, unit, r, &g->kmin); break;
    case QMM_SVESME_KIND_Q6_K: qmm_svesme_q6_super(unit, r, &g->q6_k); break;
    case QMM_SVESME_KIND_Q3_K:
    case QMM_SVESME_KIND_Q2_K: qmm_svesme_two_super(kind, 4, unit, r, &g->two); break;
    default: { /* the legacy kinds */
        uint8_t q[QMM_QK];
        uint16_t d, m;
        qmm_svesme_leg_block_get(kind, unit, r, &d, &m, q);
        qmm_svesme_leg_put(kind, d, m, q, g->bytes);
    }
    }
}
static inline void qmm_svesme_w_unpack_row(int kind, const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_svesme_row_unpack(qmm_svesme_unit_get, kind, packed, k, row, dst);
}

/* SME GEMM activations: groups of 16 rows (zero rows pad the last), per
 * block: 16 fp32 scales d (64 bytes), then 8 groups of [16 rows x 4 int8]
 * (row i's q[4g..4g+3] at 64 + 64 g + 4 i): the SMOPA row operand; the
 * formats with a min per 32 (sums = 1: Q4_K, Q5_K, Q4_1, Q5_1) add the 16
 * rows' block sums as fp32 (exact: |sum| <= 4064) at 576 + 4 i, the FMOPA
 * operand of their min term; Q2_K's per-16 mins (sums = 2) the sums of
 * elements 0..15 there and of 16..31 at 640 + 4 i. The int8 values, d and
 * sums are exactly qmm_act_quantize_block's (it is called here). */
#define QMM_SVESME_MP            16
#define QMM_SVESME_ACT_QBYTES    (QMM_SVESME_MP * 4 + 8 * QMM_SVESME_MP * 4)
#define QMM_SVESME_ACT_BLK(sums) (QMM_SVESME_ACT_QBYTES + (sums)*QMM_SVESME_MP * 4)

static inline size_t qmm_svesme_act_size_any(int sums, int64_t m, int64_t k) {
    return (size_t)((m + QMM_SVESME_MP - 1) / QMM_SVESME_MP) * (size_t)(k / QMM_QK) * QMM_SVESME_ACT_BLK(sums);
}
static inline size_t qmm_svesme_act_offset_any(int sums, int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_SVESME_MP) * (size_t)(k / QMM_QK) * QMM_SVESME_ACT_BLK(sums);
}
static inline void qmm_svesme_act_pack_any(int sums, int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t blk_bytes = QMM_SVESME_ACT_BLK(sums);
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SVESME_MP) {
        uint8_t *grp = (uint8_t *)dst + qmm_svesme_act_offset_any(sums, m0, k);
        memset(grp, 0, (size_t)nb * blk_bytes);
        for (int i = 0; i < QMM_SVESME_MP && m0 + i < m; i++) {
            const float *row = (const float *)((const char *)x + (size_t)(m0 + i) * x_row_stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = grp + (size_t)b * blk_bytes;
                int8_t q[QMM_QK];
                float d;
                int32_t sum;
                qmm_act_quantize_block(row + b * QMM_QK, q, &d, &sum);
                memcpy(blk + 4 * i, &d, 4);
                for (int g = 0; g < 8; g++)
                    memcpy(blk + QMM_SVESME_MP * 4 + g * QMM_SVESME_MP * 4 + 4 * i, q + 4 * g, 4);
                if (sums) {
                    const int32_t half = sums == 2 ? qmm_act_sum_first16(q) : sum;
                    const float fs[2] = {(float)half, (float)(sum - half)};
                    for (int h = 0; h < sums; h++)
                        memcpy(blk + QMM_SVESME_ACT_QBYTES + h * QMM_SVESME_MP * 4 + 4 * i, &fs[h], 4);
                }
            }
        }
    }
}
/* The activation descriptor's functions: without sums, with them, with per-16 sums. */
static inline size_t qmm_svesme_act_size(int64_t m, int64_t k) { return qmm_svesme_act_size_any(0, m, k); }
static inline size_t qmm_svesme_act_offset(int64_t m_idx, int64_t k) { return qmm_svesme_act_offset_any(0, m_idx, k); }
static inline void qmm_svesme_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_svesme_act_pack_any(0, m, k, x, x_row_stride, dst);
}
static inline size_t qmm_svesme_act_size_sums(int64_t m, int64_t k) { return qmm_svesme_act_size_any(1, m, k); }
static inline size_t qmm_svesme_act_offset_sums(int64_t m_idx, int64_t k) { return qmm_svesme_act_offset_any(1, m_idx, k); }
static inline void qmm_svesme_act_pack_sums(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_svesme_act_pack_any(1, m, k, x, x_row_stride, dst);
}
static inline size_t qmm_svesme_act_size_sums2(int64_t m, int64_t k) { return qmm_svesme_act_size_any(2, m, k); }
static inline size_t qmm_svesme_act_offset_sums2(int64_t m_idx, int64_t k) { return qmm_svesme_act_offset_any(2, m_idx, k); }
static inline void qmm_svesme_act_pack_sums2(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    qmm_svesme_act_pack_any(2, m, k, x, x_row_stride, dst);
}

#endif
