/* Q4_1 / Q5_0 / Q5_1 x int8 activations on NEON, sdot (dotprod) or smmla (i8mm): the body shared by their six
 * families (matmul_q4_1_neon_dotprod.c ...), on the NEON int8 driver (neon_driver.h). The includer defines
 *   NL_ID                    the family id (qmm_family_<id>, name "<id>"),
 *   NL_WTYPE, NL_BLOCK       the GGUF type and its block struct, NL_DEQUANT its qmm_dequantize_row_<type>,
 *   NL_HAS_MIN               1 for Q4_1 / Q5_1 (value d * q + m),
 *   NL_HAS_QH                1 for Q5_* (a fifth bit per element),
 *   NL_I8MM                  1 for the smmla tile (PAIRS arrangement), 0 for the sdot tile (ROWS4).
 *
 * Packed panel of 4 weight rows, per 32-block (NL_BLK bytes: 80 / 88 / 96, the GGUF bytes of 4 rows exactly):
 *   fp16 d[4]                                  row r at 2 r
 *   fp16 m[4]            (Q4_1, Q5_1)          row r at 8 + 2 r
 *   16 bytes H           (Q5_*)                see below
 *   64 bytes of nibbles: GGUF's byte t (element t low, t + 16 high) of row r at qmm_neon_pos(arrangement, r, t)
 * fp16 is widened in the kernel (fcvtl, exact). Byte B of the nibble area is position p = B % 16 of the 16-byte
 * chunk c = B / 16; the fifth bits of the two elements of that byte, inverted, are bits c (low nibble's element)
 * and 4 + c (high nibble's) of H[p]. Then, per chunk, (nibble << 3) with the stored bit inserted as bit 7 (sli, sri)
 * is the int8 8 * (q - 16) exactly (the 5-bit two's complement of q - 16, scaled): a dot product of those gives
 * 8 * sum (q - 16) q_x exactly (|.| <= 520192), and >> 3 recovers it. Q4_1 uses the nibbles as they are (0..15).
 *
 * Numerics, the reference's exactly: Q5_0 isum = sum (q - 16) q_x; Q4_1 isum = sum q q_x, Q5_1 isum = sum (q - 16)
 * q_x + 16 sum q_x (exact int32); acc = fma((float)isum, d * x_d, acc), and with a min then
 * acc = fma((float)sum q_x, m * x_d, acc). The types with a min take the activation layout with sums
 * (neon_act_sums.h), Q5_0 the plain one (neon_common.h). */
#include "kernels/arm/neon_act_sums.h"
#include "kernels/arm/neon_driver.h"

#define NL_M_OFF  8
#define NL_QH_OFF (8 + 8 * NL_HAS_MIN)
#define NL_QS_OFF (NL_QH_OFF + 16 * NL_HAS_QH)
#define NL_BLK    (NL_QS_OFF + 64)

#if NL_HAS_MIN
#define NL_ACT_BLK QMM_NEON_ACT_SUMS_BLK
#define NL_ACT_Q   QMM_NEON_ACT_SUMS_Q
#define NL_ACTFMT  act_sums
#else
#define NL_ACT_BLK QMM_NEON_ACT_BLK
#define NL_ACT_Q   16
#define NL_ACTFMT  act
#endif

/* The 4 weight rows' fp16 scales at p, widened. */
static inline __attribute__((always_inline)) float32x4_t nl_fp16x4(const uint8_t *p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)p)));
}

/* The quants of one panel block as int8: lo[c] from the low nibbles of chunk c, hi[c] from the high ones; Q5_*:
 * 8 * (q - 16), Q4_1: q. */
static inline __attribute__((always_inline)) void nl_unpack(const uint8_t *w, int8x16_t lo[4], int8x16_t hi[4]) {
    const uint8x16_t v0 = vld1q_u8(w + NL_QS_OFF), v1 = vld1q_u8(w + NL_QS_OFF + 16);
    const uint8x16_t v2 = vld1q_u8(w + NL_QS_OFF + 32), v3 = vld1q_u8(w + NL_QS_OFF + 48);
#if NL_HAS_QH
    const uint8x16_t h = vld1q_u8(w + NL_QH_OFF), f0 = vdupq_n_u8(0xf0);
    /* low: (v << 3) keeps bits 3..6 = nibble; sli #7 puts bit c of H at bit 7 */
    lo[0] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v0, 3), h, 7));
    lo[1] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v1, 3), vshrq_n_u8(h, 1), 7));
    lo[2] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v2, 3), vshrq_n_u8(h, 2), 7));
    lo[3] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(v3, 3), vshrq_n_u8(h, 3), 7));
    /* high: (v & 0xf0) >> 1 is the nibble at bits 3..6; sri #1 keeps bit 7 of H << (3 - c), i.e. bit 4 + c of H */
    hi[0] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(h, 3), vandq_u8(v0, f0), 1));
    hi[1] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(h, 2), vandq_u8(v1, f0), 1));
    hi[2] = vreinterpretq_s8_u8(vsriq_n_u8(vshlq_n_u8(h, 1), vandq_u8(v2, f0), 1));
    hi[3] = vreinterpretq_s8_u8(vsriq_n_u8(h, vandq_u8(v3, f0), 1));
#else
    const uint8x16_t m4 = vdupq_n_u8(0x0f);
    lo[0] = vreinterpretq_s8_u8(vandq_u8(v0, m4));
    lo[1] = vreinterpretq_s8_u8(vandq_u8(v1, m4));
    lo[2] = vreinterpretq_s8_u8(vandq_u8(v2, m4));
    lo[3] = vreinterpretq_s8_u8(vandq_u8(v3, m4));
    hi[0] = vreinterpretq_s8_u8(vshrq_n_u8(v0, 4));
    hi[1] = vreinterpretq_s8_u8(vshrq_n_u8(v1, 4));
    hi[2] = vreinterpretq_s8_u8(vshrq_n_u8(v2, 4));
    hi[3] = vreinterpretq_s8_u8(vshrq_n_u8(v3, 4));
#endif
}

/* The float step of activation row i of block a for the 4 weight rows: dot is the int32 dot product of the
 * unpacked quants. */
static inline __attribute__((always_inline)) float32x4_t nl_step(float32x4_t acc, int32x4_t dot, float32x4_t wd, float32x4_t wm,
                                                                 const uint8_t *a, int i) {
    (void)wm;
    const float xd = ((const float *)a)[i];
#if NL_HAS_QH
    int32x4_t isum = vshrq_n_s32(dot, 3);
#else
    int32x4_t isum = dot;
#endif
#if NL_HAS_MIN
    const int16_t *s16 = (const int16_t *)(a + 16);
    const int32_t xs = s16[2 * i] + s16[2 * i + 1];
#if NL_HAS_QH
    isum = vaddq_s32(isum, vdupq_n_s32(16 * xs));
#endif
#endif
    acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(wd, xd));
#if NL_HAS_MIN
    acc = vfmaq_n_f32(acc, vmulq_n_f32(wm, xd), (float)xs);
#endif
    return acc;
}

#if NL_I8MM
/* smmla: per activation pair p and weight pair, the 2x2 int32 block sums over the 4 groups of 8 elements (see
 * matmul_q8_0_neon_i8mm.c), zipped into one int32x4 per activation row. */
static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    const int pairs = (mc + 1) / 2;
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; b++, a += NL_ACT_BLK, w += NL_BLK) {
        const float32x4_t wd = nl_fp16x4(w);
        const float32x4_t wm = NL_HAS_MIN ? nl_fp16x4(w + NL_M_OFF) : vdupq_n_f32(0.0f);
        int8x16_t wq[8]; /* [g * 2 + weight pair]: groups 0, 1 in the low nibbles, 2, 3 in the high ones */
        nl_unpack(w, wq, wq + 4);
        for (int p = 0; p < pairs; p++) {
            int32x4_t c0 = vdupq_n_s32(0), c1 = vdupq_n_s32(0); /* weight pairs (0,1) and (2,3) */
            for (int g = 0; g < 4; g++) {
                const int8x16_t x = vld1q_s8((const int8_t *)a + NL_ACT_Q + 32 * g + 16 * p);
                c0 = vmmlaq_s32(c0, x, wq[2 * g]);
                c1 = vmmlaq_s32(c1, x, wq[2 * g + 1]);
            }
            const int64x2_t c0l = vreinterpretq_s64_s32(c0), c1l = vreinterpretq_s64_s32(c1);
            acc[2 * p] = nl_step(acc[2 * p], vreinterpretq_s32_s64(vzip1q_s64(c0l, c1l)), wd, wm, a, 2 * p);
            if (2 * p + 1 < mc)
                acc[2 * p + 1] = nl_step(acc[2 * p + 1], vreinterpretq_s32_s64(vzip2q_s64(c0l, c1l)), wd, wm, a, 2 * p + 1);
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}
#else
/* sdot by lane: lo[c] holds elements 4c..4c+3 of the 4 rows, hi[c] elements 16+4c.., against 4 elements of one
 * activation row (see matmul_q4_0_neon_dotprod.c). */
static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; b++, a += NL_ACT_BLK, w += NL_BLK) {
        const float32x4_t wd = nl_fp16x4(w);
        const float32x4_t wm = NL_HAS_MIN ? nl_fp16x4(w + NL_M_OFF) : vdupq_n_f32(0.0f);
        int8x16_t lo[4], hi[4];
        nl_unpack(w, lo, hi);
        for (int i = 0; i < mc; i++) {
            const int8x16_t x0 = vld1q_s8((const int8_t *)a + NL_ACT_Q + 32 * i);
            const int8x16_t x1 = vld1q_s8((const int8_t *)a + NL_ACT_Q + 32 * i + 16);
            int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
            s0 = vdotq_laneq_s32(s0, lo[0], x0, 0);
            s1 = vdotq_laneq_s32(s1, lo[1], x0, 1);
            s0 = vdotq_laneq_s32(s0, lo[2], x0, 2);
            s1 = vdotq_laneq_s32(s1, lo[3], x0, 3);
            s0 = vdotq_laneq_s32(s0, hi[0], x1, 0);
            s1 = vdotq_laneq_s32(s1, hi[1], x1, 1);
            s0 = vdotq_laneq_s32(s0, hi[2], x1, 2);
            s1 = vdotq_laneq_s32(s1, hi[3], x1, 3);
            acc[i] = nl_step(acc[i], vaddq_s32(s0, s1), wd, wm, a, i);
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}
#endif

/* GGUF rows [n0, n1) (whole panels; rows from n on are padding: zero scales, zero quants) into panels. */
static inline void qmm_neon_pack_legacy(int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                        size_t src_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(NL_BLK, p0, k);
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *blk = panel + (size_t)b * NL_BLK;
            memset(blk, 0, NL_BLK);
            for (int r = 0; r < QMM_NEON_NR && p0 + r < n; r++) {
                const NL_BLOCK *wb = (const NL_BLOCK *)((const char *)src + (size_t)(p0 + r) * src_row_stride) + b;
                memcpy(blk + 2 * r, &wb->d, 2);
#if NL_HAS_MIN
                memcpy(blk + NL_M_OFF + 2 * r, &wb->m, 2);
#endif
#if NL_HAS_QH
                const uint32_t qh =
                    (uint32_t)wb->qh[0] | (uint32_t)wb->qh[1] << 8 | (uint32_t)wb->qh[2] << 16 | (uint32_t)wb->qh[3] << 24;
#endif
                for (int t = 0; t < QMM_QK / 2; t++) {
                    const size_t pos = qmm_neon_pos(arrangement, r, t);
                    blk[NL_QS_OFF + pos] = wb->qs[t];
#if NL_HAS_QH
                    const int c = (int)(pos / 16);
                    const unsigned inv_lo = ~(qh >> t) & 1u, inv_hi = ~(qh >> (t + 16)) & 1u;
                    blk[NL_QH_OFF + pos % 16] |= (uint8_t)(inv_lo << c | inv_hi << (4 + c));
#endif
                }
            }
        }
    }
}

/* Row r's GGUF block rebuilt from panel block blk (the packer's inverse: every field is kept, H's bits inverted). */
static inline void qmm_neon_legacy_block(int arrangement, const uint8_t *blk, int r, NL_BLOCK *wb) {
    memset(wb, 0, sizeof *wb);
    memcpy(&wb->d, blk + 2 * r, 2);
#if NL_HAS_MIN
    memcpy(&wb->m, blk + NL_M_OFF + 2 * r, 2);
#endif
    uint32_t qh = 0;
    for (int t = 0; t < QMM_QK / 2; t++) {
        const size_t pos = qmm_neon_pos(arrangement, r, t);
        wb->qs[t] = blk[NL_QS_OFF + pos];
#if NL_HAS_QH
        const unsigned h = blk[NL_QH_OFF + pos % 16] >> (pos / 16);
        qh |= (~h & 1u) << t | (~(h >> 4) & 1u) << (t + 16);
#endif
    }
#if NL_HAS_QH
    for (int i = 0; i < 4; i++)
        wb->qh[i] = (uint8_t)(qh >> (8 * i));
#else
    (void)qh;
#endif
}

/* GET_ROWS: the row's GGUF blocks rebuilt from the panel, dequantized by the reference's own function. */
static inline void qmm_neon_read_legacy(int arrangement, const void *packed, int64_t k, int64_t row, float *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(NL_BLK, row, k);
    for (int64_t b = 0; b < nb; b++) {
        NL_BLOCK wb;
        qmm_neon_legacy_block(arrangement, panel + (size_t)b * NL_BLK, (int)(row % QMM_NEON_NR), &wb);
        NL_DEQUANT(&wb, dst + b * QMM_QK, QMM_QK);
    }
}

/* w_unpack_row: the same blocks, as bytes (dst need not be aligned for NL_BLOCK). */
static inline void qmm_neon_unpack_legacy(int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(NL_BLK, row, k);
    for (int64_t b = 0; b < nb; b++) {
        NL_BLOCK wb;
        qmm_neon_legacy_block(arrangement, panel + (size_t)b * NL_BLK, (int)(row % QMM_NEON_NR), &wb);
        memcpy((uint8_t *)dst + (size_t)b * sizeof wb, &wb, sizeof wb);
    }
}

/* one expansion step, so that the configuration macros are replaced before the family macro pastes them */
#define NL_FAMILY(...) QMM_NEON_INT8_FAMILY_ACT(__VA_ARGS__)
#if NL_I8MM
/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the dotprod family */
NL_FAMILY(NL_ID, NL_WTYPE, legacy, NL_BLK, QMM_NEON_PAIRS, 8, QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM, QMM_CPU_I8MM, tile,
          NL_ACTFMT, NL_ACT_BLK)
#else
/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the reference */
NL_FAMILY(NL_ID, NL_WTYPE, legacy, NL_BLK, QMM_NEON_ROWS4, 4, QMM_CPU_NEON | QMM_CPU_DOTPROD, QMM_CPU_DOTPROD, tile, NL_ACTFMT,
          NL_ACT_BLK)
#endif
