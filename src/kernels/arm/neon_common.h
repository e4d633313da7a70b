/* Shared pieces of the NEON int8 families (dotprod, i8mm): the activation quantizer, the 4-row activation and
 * weight-panel layouts, their packers, and the sdot / smmla block steps of every tile. Static inline, so each
 * family's translation unit compiles them with its own target flags.
 *
 * Weight panel (n_step = 4 rows), per 32-block: float scale[4] (the blocks' fp16 d converted once, exactly),
 * then the quants of the 4 rows in the family's arrangement: Q8_0 128 bytes, Q4_0 64 bytes. The arrangement maps
 * (row r of the panel, element t of the block) to a byte:
 *   ROWS4 (sdot):  chunks of 4 elements, the 4 rows side by side: byte (t / 4) * 16 + r * 4 + t % 4, so one 16-byte
 *                  load is 4 elements of each row, the operand of a by-lane sdot.
 *   PAIRS (smmla): chunks of 8 elements, two rows side by side: byte (t / 8) * 32 + (r / 2) * 16 + (r % 2) * 8 + t % 8,
 *                  so one 16-byte load is an 8x2 smmla operand (rows r, r+1).
 * Q4_0 uses the same map for t < 16 in a 64-byte area: the low nibble holds element t and the high nibble element
 * t + 16 (GGUF's own pairing), each stored as q ^ 8, so that (byte << 4) and (byte & 0xf0), read as int8, are
 * exactly 16 * (q - 8): an int8 dot product then gives 16 * the block sum, and >> 4 recovers it exactly.
 *
 * Activations: groups of 4 rows (m_step = 4; a short group is padded with zero rows), per 32-block: float d[4],
 * then 128 bytes of int8 quants in the same kind of arrangement (ROWS4: row r's 32 bytes at r * 32; PAIRS: the
 * 8-element piece g of row r at g * 32 + (r / 2) * 16 + (r % 2) * 8). */
#ifndef QMM_NEON_COMMON_H
#define QMM_NEON_COMMON_H

#include <arm_neon.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"

#define QMM_NEON_NR      4   /* weight rows per panel */
#define QMM_NEON_MR      4   /* activation rows per group */
#define QMM_NEON_ACT_BLK 144 /* bytes per block of an activation group: 16 + 128 */
#define QMM_NEON_Q8_BLK  144 /* bytes per block of a Q8_0 panel: 16 + 128 */
#define QMM_NEON_Q4_BLK  80  /* bytes per block of a Q4_0 panel: 16 + 64 */

enum { QMM_NEON_ROWS4 = 0, QMM_NEON_PAIRS = 1 };

/* Activation quants: byte of element t of row r of a group. */
static inline size_t qmm_neon_act_pos(int arrangement, int r, int t) {
    return arrangement == QMM_NEON_PAIRS ? (size_t)((t / 8) * 32 + (r / 2) * 16 + (r % 2) * 8 + t % 8) : (size_t)(r * 32 + t);
}

/* Weight quants: byte of element t of row r of a panel. */
static inline size_t qmm_neon_pos(int arrangement, int r, int t) {
    return arrangement == QMM_NEON_PAIRS ? (size_t)((t / 8) * 32 + (r / 2) * 16 + (r % 2) * 8 + t % 8)
                                         : (size_t)((t / 4) * 16 + r * 4 + t % 4);
}

/* qmm_act_quantize_block, bit for bit, without the sum: amax by compare-select (a NaN never wins); d, pre and id
 * from qmm_act_block_scale (a tiny block's values are multiplied by pre = 2^64 first, exactly); fcvtns rounds half
 * to even and turns NaN into 0; |x * id| <= 127.5 for finite x, and inf * 0 is NaN, so it never saturates. */
static inline float qmm_neon_quantize_block(const float *x, int8_t *q) {
    float32x4_t v[8];
    float32x4_t amax = vdupq_n_f32(0.0f);
    for (int j = 0; j < 8; j++) {
        v[j] = vld1q_f32(x + 4 * j);
        const float32x4_t a = vabsq_f32(v[j]);
        amax = vbslq_f32(vcgtq_f32(a, amax), a, amax);
    }
    const qmm_act_scale sc = qmm_act_block_scale(vmaxvq_f32(amax));
    if (sc.pre != 1.0f)
        for (int j = 0; j < 8; j++)
            v[j] = vmulq_n_f32(v[j], sc.pre);
    const float id = sc.id;
    const int32x4_t lo = vdupq_n_s32(-127), hi = vdupq_n_s32(127);
    for (int j = 0; j < 8; j += 4) {
        int32x4_t r[4];
        for (int u = 0; u < 4; u++)
            r[u] = vminq_s32(vmaxq_s32(vcvtnq_s32_f32(vmulq_n_f32(v[j + u], id)), lo), hi);
        const int16x8_t h0 = vcombine_s16(vmovn_s32(r[0]), vmovn_s32(r[1]));
        const int16x8_t h1 = vcombine_s16(vmovn_s32(r[2]), vmovn_s32(r[3]));
        vst1q_s8(q + 4 * j, vcombine_s8(vmovn_s16(h0), vmovn_s16(h1)));
    }
    return sc.d;
}

/* The two activation layouts of the NEON int8 families, one packer (with_sums constant after inlining):
 *   with_sums = 0 (QMM_NEON_ACT_BLK = 144 bytes per block): float d[4], then the 128 quants at 16;
 *   with_sums = 1 (160 bytes, neon_act_sums.h): float d[4], int16 sum16[8] (row r's halves at 16 + 4 r), quants at 32.
 * The sums are exact (|.| <= 16 * 127) and made here once per activation row and block, not per weight panel. */
static inline size_t qmm_neon_act_blk_bytes(int with_sums) { return with_sums ? 160 : QMM_NEON_ACT_BLK; }

static inline size_t qmm_neon_act_layout_size(int with_sums, int64_t m, int64_t k) {
    return (size_t)((m + QMM_NEON_MR - 1) / QMM_NEON_MR) * (size_t)(k / QMM_QK) * qmm_neon_act_blk_bytes(with_sums);
}

static inline size_t qmm_neon_act_layout_offset(int with_sums, int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_NEON_MR) * (size_t)(k / QMM_QK) * qmm_neon_act_blk_bytes(with_sums);
}

static inline void qmm_neon_act_layout_pack(int with_sums, int arrangement, int64_t m, int64_t k, const float *x,
                                            size_t x_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    const size_t blk_bytes = qmm_neon_act_blk_bytes(with_sums), q_off = with_sums ? 32 : 16;
    uint8_t *out = (uint8_t *)dst;
    for (int64_t i0 = 0; i0 < m; i0 += QMM_NEON_MR, out += (size_t)nb * blk_bytes) {
        for (int r = 0; r < QMM_NEON_MR; r++) {
            const int64_t i = i0 + r;
            const float *row = i < m ? (const float *)((const char *)x + (size_t)i * x_row_stride) : NULL;
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = out + (size_t)b * blk_bytes;
                int8_t q[QMM_QK];
                float d = 0.0f;
                if (row)
                    d = qmm_neon_quantize_block(row + b * QMM_QK, q);
                else
                    memset(q, 0, sizeof q);
                memcpy(blk + 4 * r, &d, 4);
                if (with_sums) {
                    const int16_t sums[2] = {vaddlvq_s8(vld1q_s8(q)), vaddlvq_s8(vld1q_s8(q + 16))};
                    memcpy(blk + 16 + 4 * r, sums, 4);
                }
                for (int g = 0; g < 4; g++)
                    memcpy(blk + q_off + qmm_neon_act_pos(arrangement, r, 8 * g), q + 8 * g, 8);
            }
        }
    }
}

/* Weight panels. */
static inline size_t qmm_neon_w_size(size_t blk, int64_t k, int64_t n) {
    return (size_t)((n + QMM_NEON_NR - 1) / QMM_NEON_NR) * (size_t)(k / QMM_QK) * blk;
}

static inline size_t qmm_neon_w_offset(size_t blk, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_NEON_NR) * (size_t)(k / QMM_QK) * blk;
}

static inline void qmm_neon_pack_q8_0(int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                      size_t src_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(QMM_NEON_Q8_BLK, p0, k);
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *blk = panel + (size_t)b * QMM_NEON_Q8_BLK;
            for (int r = 0; r < QMM_NEON_NR; r++) {
                float d = 0.0f;
                int8_t qs[QMM_QK] = {0};
                if (p0 + r < n) {
                    const qmm_block_q8_0 *sb =
                        (const qmm_block_q8_0 *)((const char *)src + (size_t)(p0 + r) * src_row_stride) + b;
                    d = qmm_fp16_to_fp32(sb->d);
                    memcpy(qs, sb->qs, QMM_QK);
                }
                memcpy(blk + 4 * r, &d, 4);
                for (int t = 0; t < QMM_QK; t++)
                    blk[16 + qmm_neon_pos(arrangement, r, t)] = (uint8_t)qs[t];
            }
        }
    }
}

static inline void qmm_neon_pack_q4_0(int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                      size_t src_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(QMM_NEON_Q4_BLK, p0, k);
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *blk = panel + (size_t)b * QMM_NEON_Q4_BLK;
            for (int r = 0; r < QMM_NEON_NR; r++) {
                float d = 0.0f;
                uint8_t qs[QMM_QK / 2];
                memset(qs, 0x88, sizeof qs); /* padding rows: q = 8, i.e. zero */
                if (p0 + r < n) {
                    const qmm_block_q4_0 *sb =
                        (const qmm_block_q4_0 *)((const char *)src + (size_t)(p0 + r) * src_row_stride) + b;
                    d = qmm_fp16_to_fp32(sb->d);
                    memcpy(qs, sb->qs, sizeof qs);
                }
                memcpy(blk + 4 * r, &d, 4);
                for (int t = 0; t < QMM_QK / 2; t++)
                    blk[16 + qmm_neon_pos(arrangement, r, t)] = (uint8_t)(qs[t] ^ 0x88u);
            }
        }
    }
}

/* w_unpack_row: the row's GGUF blocks back. The panel's fp32 d is a widened fp16, so rounding it back to fp16 is
 * exact (finite d; the contract's). Q4_0 nibbles were stored as q ^ 8. */
static inline void qmm_neon_unpack_q8_0(int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(QMM_NEON_Q8_BLK, row, k);
    const int r = (int)(row % QMM_NEON_NR);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = panel + (size_t)b * QMM_NEON_Q8_BLK;
        qmm_block_q8_0 g;
        float d;
        memcpy(&d, blk + 4 * r, 4);
        g.d = qmm_fp32_to_fp16(d);
        for (int t = 0; t < QMM_QK; t++)
            g.qs[t] = (int8_t)blk[16 + qmm_neon_pos(arrangement, r, t)];
        memcpy((uint8_t *)dst + (size_t)b * sizeof g, &g, sizeof g);
    }
}

static inline void qmm_neon_unpack_q4_0(int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(QMM_NEON_Q4_BLK, row, k);
    const int r = (int)(row % QMM_NEON_NR);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = panel + (size_t)b * QMM_NEON_Q4_BLK;
        qmm_block_q4_0 g;
        float d;
        memcpy(&d, blk + 4 * r, 4);
        g.d = qmm_fp32_to_fp16(d);
        for (int t = 0; t < QMM_QK / 2; t++)
            g.qs[t] = (uint8_t)(blk[16 + qmm_neon_pos(arrangement, r, t)] ^ 0x88u);
        memcpy((uint8_t *)dst + (size_t)b * sizeof g, &g, sizeof g);
    }
}

/* The 4 weight rows' fp16 scales at p, widened. */
static inline __attribute__((always_inline)) float32x4_t qmm_neon_fp16x4(const uint8_t *p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)p)));
}

/* The dot steps every NEON int8 tile shares. wq[8] is one panel block of the 4 weight rows unpacked to int8:
 * ROWS4 (sdot), wq[c] elements 4c..4c+3 and wq[4 + c] elements 16+4c..16+4c+3 of the 4 rows; PAIRS (smmla),
 * wq[2 g + h] group g (8 elements) of weight rows 2h, 2h+1. x points at an activation row's (sdot) or an activation
 * pair's (smmla) quants of the block in the layout above. */

/* sdot by lane: the int32 dot of one activation row with the 4 weight rows, in two chains (s0, s1). */
static inline __attribute__((always_inline)) int32x4_t qmm_neon_sdot_block(const int8x16_t wq[8], const int8_t *x) {
    const int8x16_t x0 = vld1q_s8(x), x1 = vld1q_s8(x + 16);
    int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
    s0 = vdotq_laneq_s32(s0, wq[0], x0, 0);
    s1 = vdotq_laneq_s32(s1, wq[1], x0, 1);
    s0 = vdotq_laneq_s32(s0, wq[2], x0, 2);
    s1 = vdotq_laneq_s32(s1, wq[3], x0, 3);
    s0 = vdotq_laneq_s32(s0, wq[4], x1, 0);
    s1 = vdotq_laneq_s32(s1, wq[5], x1, 1);
    s0 = vdotq_laneq_s32(s0, wq[6], x1, 2);
    s1 = vdotq_laneq_s32(s1, wq[7], x1, 3);
    return vaddq_s32(s0, s1);
}

/* The same with the two 16-element halves kept apart: *sa elements 0..15, *sb 16..31 (per-16 scales). */
static inline __attribute__((always_inline)) void qmm_neon_sdot_halves(const int8x16_t wq[8], const int8_t *x, int32x4_t *sa,
                                                                       int32x4_t *sb) {
    const int8x16_t x0 = vld1q_s8(x), x1 = vld1q_s8(x + 16);
    int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0);
    a = vdotq_laneq_s32(a, wq[0], x0, 0);
    b = vdotq_laneq_s32(b, wq[4], x1, 0);
    a = vdotq_laneq_s32(a, wq[1], x0, 1);
    b = vdotq_laneq_s32(b, wq[5], x1, 1);
    a = vdotq_laneq_s32(a, wq[2], x0, 2);
    b = vdotq_laneq_s32(b, wq[6], x1, 2);
    a = vdotq_laneq_s32(a, wq[3], x0, 3);
    b = vdotq_laneq_s32(b, wq[7], x1, 3);
    *sa = a;
    *sb = b;
}

/* smmla where the translation unit has i8mm. The tiles are shared by the dotprod families, which pass ROWS4 and so
 * never reach it (the branch folds away; test_kernels runs every family): there it returns acc, so that the
 * library holds no trap. */
static inline __attribute__((always_inline)) int32x4_t qmm_neon_mmla(int32x4_t acc, int8x16_t x, int8x16_t w) {
#if defined(__ARM_FEATURE_MATMUL_INT8)
    return vmmlaq_s32(acc, x, w);
#else
    (void)x, (void)w;
    return acc;
#endif
}

/* c0 = [y(2p,0) y(2p,1) y(2p+1,0) y(2p+1,1)] and c1 likewise for weight rows 2, 3, zipped into one int32x4 per
 * activation row of the pair: *r0 row 2p, *r1 row 2p + 1. */
static inline __attribute__((always_inline)) void qmm_neon_smmla_rows(int32x4_t c0, int32x4_t c1, int32x4_t *r0, int32x4_t *r1) {
    const int64x2_t c0l = vreinterpretq_s64_s32(c0), c1l = vreinterpretq_s64_s32(c1);
    *r0 = vreinterpretq_s32_s64(vzip1q_s64(c0l, c1l));
    *r1 = vreinterpretq_s32_s64(vzip2q_s64(c0l, c1l));
}

/* smmla multiplies a 2x8 int8 matrix (two activation rows, 8 elements) by an 8x2 one (two weight rows, the same 8
 * elements) into a 2x2 int32 tile; over the 4 groups of the block, the tiles (activation pair x weight pair)
 * accumulate every (row, column) block sum exactly, returned as rows. */
static inline __attribute__((always_inline)) void qmm_neon_smmla_block(const int8x16_t wq[8], const int8_t *x, int32x4_t *r0,
                                                                       int32x4_t *r1) {
    int32x4_t c0 = vdupq_n_s32(0), c1 = vdupq_n_s32(0); /* weight pairs (0,1) and (2,3) */
    for (int g = 0; g < 4; g++) {
        const int8x16_t xg = vld1q_s8(x + 32 * g);
        c0 = qmm_neon_mmla(c0, xg, wq[2 * g]);
        c1 = qmm_neon_mmla(c1, xg, wq[2 * g + 1]);
    }
    qmm_neon_smmla_rows(c0, c1, r0, r1);
}

/* The same with the halves apart (groups 0, 1: elements 0..15; 2, 3: 16..31): ra[h], rb[h] for row 2p + h. */
static inline __attribute__((always_inline)) void qmm_neon_smmla_halves(const int8x16_t wq[8], const int8_t *x, int32x4_t ra[2],
                                                                        int32x4_t rb[2]) {
    int32x4_t c0a = vdupq_n_s32(0), c1a = vdupq_n_s32(0), c0b = vdupq_n_s32(0), c1b = vdupq_n_s32(0);
    int8x16_t xg[4];
    for (int g = 0; g < 4; g++)
        xg[g] = vld1q_s8(x + 32 * g);
    c0a = qmm_neon_mmla(c0a, xg[0], wq[0]);
    c1a = qmm_neon_mmla(c1a, xg[0], wq[1]);
    c0a = qmm_neon_mmla(c0a, xg[1], wq[2]);
    c1a = qmm_neon_mmla(c1a, xg[1], wq[3]);
    c0b = qmm_neon_mmla(c0b, xg[2], wq[4]);
    c1b = qmm_neon_mmla(c1b, xg[2], wq[5]);
    c0b = qmm_neon_mmla(c0b, xg[3], wq[6]);
    c1b = qmm_neon_mmla(c1b, xg[3], wq[7]);
    qmm_neon_smmla_rows(c0a, c1a, &ra[0], &ra[1]);
    qmm_neon_smmla_rows(c0b, c1b, &rb[0], &rb[1]);
}

/* Stores the first nc lanes of v (a row of a 4-column tile). */
static inline void qmm_neon_store_cols(float *y, float32x4_t v, int64_t nc) {
    if (nc >= 4) {
        vst1q_f32(y, v);
    } else {
        float t[4];
        vst1q_f32(t, v);
        for (int64_t j = 0; j < nc; j++)
            y[j] = t[j];
    }
}

#endif
