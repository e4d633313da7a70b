/* The tile of the NEON K-quant kinds Q2_K, Q3_K, Q4_K, Q5_K (dotprod: sdot on ROWS4 panels; i8mm: smmla on PAIRS
 * panels), qmm_neon_kq_tile, with the kind (a qmm_type) a constant argument: 4 weight rows (panel format:
 * neon_k_quant.h) x up to 4 activation rows.
 *
 * Per 32-block j of a super-block, the unit is expanded to the 8-vector int8 image of the 4 rows' q (Q3_K: u - 4,
 * signed), which the activation quants multiply as Q8_0's tiles do, keeping the two 16-sub-blocks' sums sa, sb
 * apart (vectors 0..3 and 4..7). Integer terms as the reference (docs/formats.md), exact in int32:
 *   isum = sc_a sa + sc_b sb   (Q4_K/Q5_K: sc_j (sa + sb); Q3_K: the 6-bit scales decoded, -32..31)
 *   imin = -(m_a Sa + m_b Sb)  (Sa, Sb: the activation row's sums over the two halves; Q4_K/Q5_K: -m_j (Sa + Sb))
 * The kinds with a min take the activation layout with per-16 sums (neon_act_sums.h: Sa, Sb made once per
 * activation row and block when the activations are packed, not again for every weight panel), Q3_K the plain
 * one (neon_common.h). Then acc = fma((float)isum, d * x_d, acc) and, with a min, acc = fma((float)imin, dmin * x_d, acc), lane
 * by lane as the reference's fmaf. */
#ifndef QMM_NEON_K_QUANT_BODY_H
#define QMM_NEON_K_QUANT_BODY_H

#include "kernels/arm/neon_act_sums.h"
#include "kernels/arm/neon_k_quant.h"

static inline int qmm_neon_kq_has_min(qmm_type kind) { return kind != QMM_TYPE_Q3_K; }
static inline int qmm_neon_kq_per16(qmm_type kind) { return kind == QMM_TYPE_Q2_K || kind == QMM_TYPE_Q3_K; }

/* The 8 int8 vectors of a unit (q of the 4 rows of one 32-block). */
static inline __attribute__((always_inline)) void qmm_neon_kq_expand(qmm_type kind, const uint8_t *unit, int8x16_t wq[8]) {
    const int bits = qmm_neon_kq_bits(kind);
    uint8x16_t u[8];
    if (bits == 4) {
        const uint8x16_t low4 = vdupq_n_u8(0x0f);
        for (int c = 0; c < 4; c++) {
            const uint8x16_t v = vld1q_u8(unit + 16 * c);
            u[c] = vandq_u8(v, low4);
            u[c + 4] = vshrq_n_u8(v, 4);
        }
    } else {
        const uint8x16_t low2 = vdupq_n_u8(0x03);
        const uint8x16_t v0 = vld1q_u8(unit), v1 = vld1q_u8(unit + 16);
        u[0] = vandq_u8(v0, low2);
        u[1] = vandq_u8(v1, low2);
        u[2] = vandq_u8(vshrq_n_u8(v0, 2), low2);
        u[3] = vandq_u8(vshrq_n_u8(v1, 2), low2);
        u[4] = vandq_u8(vshrq_n_u8(v0, 4), low2);
        u[5] = vandq_u8(vshrq_n_u8(v1, 4), low2);
        u[6] = vshrq_n_u8(v0, 6);
        u[7] = vshrq_n_u8(v1, 6);
    }
    if (qmm_neon_kq_plane(kind)) {
        /* bit c of plane byte b is bit B of vector c's byte b: moved there by one shift (left or right) */
        const uint8x16_t plane = vld1q_u8(unit + 16 * bits), top = vdupq_n_u8((uint8_t)(1u << bits));
        for (int c = 0; c < 8; c++)
            u[c] = vorrq_u8(u[c], vandq_u8(vshlq_u8(plane, vdupq_n_s8((int8_t)(bits - c))), top));
    }
    for (int c = 0; c < 8; c++)
        wq[c] = kind == QMM_TYPE_Q3_K ? vsubq_s8(vreinterpretq_s8_u8(u[c]), vdupq_n_s8(4)) : vreinterpretq_s8_u8(u[c]);
}

/* Sub-scales of 32-block j of the super-block at sb, per weight row: sc_a, sc_b (Q4_K/Q5_K: both sc_j), m_a, m_b. */
static inline __attribute__((always_inline)) void qmm_neon_kq_scales(qmm_type kind, const uint8_t *sb, const int8_t *q3sc, int j,
                                                                     int32x4_t *sca, int32x4_t *scb, int32x4_t *ma,
                                                                     int32x4_t *mb) {
    if (kind == QMM_TYPE_Q3_K) {
        const int16x8_t s = vmovl_s8(vld1_s8(q3sc + 8 * j));
        *sca = vmovl_s16(vget_low_s16(s));
        *scb = vmovl_s16(vget_high_s16(s));
        *ma = *mb = vdupq_n_s32(0);
    } else if (kind == QMM_TYPE_Q2_K) {
        const uint8x8_t v = vld1_u8(sb + 16 + 8 * j);
        const uint16x8_t sc = vmovl_u8(vand_u8(v, vdup_n_u8(0x0f))), m = vmovl_u8(vshr_n_u8(v, 4));
        *sca = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(sc)));
        *scb = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(sc)));
        *ma = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(m)));
        *mb = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(m)));
    } else {
        const uint16x8_t v = vmovl_u8(vld1_u8(sb + 16 + 8 * j));
        *sca = *scb = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(v)));
        *ma = *mb = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(v)));
    }
}

/* Q3_K: the 16 6-bit scales of the 4 rows (qmm_q3_k_scale), minus 32, into q3sc[4 i + r]: the low 4 bits of scale
 * i are nibble i / 8 of byte i % 8, the high 2 bits bits 2 (i / 4) of byte 8 + i % 4; bytes 0..3, 4..7, 8..11 are
 * one vector each ([byte][row]), so scales 4v..4v+3 of the 4 rows come out as one vector v. */
static inline __attribute__((always_inline)) void qmm_neon_kq_q3_scales(const uint8_t *sb, int8_t q3sc[64]) {
    const uint8x16_t l0 = vld1q_u8(sb + 8), l1 = vld1q_u8(sb + 24), h = vld1q_u8(sb + 40);
    const uint8x16_t low4 = vdupq_n_u8(0x0f), hi2 = vdupq_n_u8(0x30);
    const uint8x16_t v0 = vorrq_u8(vandq_u8(l0, low4), vandq_u8(vshlq_n_u8(h, 4), hi2));
    const uint8x16_t v1 = vorrq_u8(vandq_u8(l1, low4), vandq_u8(vshlq_n_u8(h, 2), hi2));
    const uint8x16_t v2 = vorrq_u8(vshrq_n_u8(l0, 4), vandq_u8(h, hi2));
    const uint8x16_t v3 = vorrq_u8(vshrq_n_u8(l1, 4), vandq_u8(vshrq_n_u8(h, 2), hi2));
    const int8x16_t off = vdupq_n_s8(32);
    vst1q_s8(q3sc, vsubq_s8(vreinterpretq_s8_u8(v0), off));
    vst1q_s8(q3sc + 16, vsubq_s8(vreinterpretq_s8_u8(v1), off));
    vst1q_s8(q3sc + 32, vsubq_s8(vreinterpretq_s8_u8(v2), off));
    vst1q_s8(q3sc + 48, vsubq_s8(vreinterpretq_s8_u8(v3), off));
}

/* The sub-scales and mins of one 32-block for the 4 weight rows, and their super-block's d, dmin. */
typedef struct {
    int32x4_t sca, scb, ma, mb;
    float32x4_t d, dmin;
} qmm_neon_kq_scale;

/* Activation row i's float steps for 32-block a (block dots sa, sb of the two halves): isum, imin per weight row
 * from the integer parts; the row's per-16 activation sums as packed (neon_act_sums.h), for the kinds with a min. */
static inline __attribute__((always_inline)) float32x4_t qmm_neon_kq_step(qmm_type kind, float32x4_t acc, int32x4_t sa,
                                                                          int32x4_t sb, const qmm_neon_kq_scale *sc,
                                                                          const uint8_t *a, int i) {
    const float xd = ((const float *)a)[i];
    const int32x4_t isum =
        qmm_neon_kq_per16(kind) ? vmlaq_s32(vmulq_s32(sc->sca, sa), sc->scb, sb) : vmulq_s32(sc->sca, vaddq_s32(sa, sb));
    acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(sc->d, xd));
    if (qmm_neon_kq_has_min(kind)) {
        const int16_t *s16 = (const int16_t *)(const void *)(a + 16);
        const int32_t xa = s16[2 * i], xb = s16[2 * i + 1];
        const int32x4_t imin = qmm_neon_kq_per16(kind) ? vnegq_s32(vmlaq_n_s32(vmulq_n_s32(sc->ma, xa), sc->mb, xb))
                                                       : vmulq_n_s32(sc->ma, -(xa + xb));
        acc = vfmaq_f32(acc, vcvtq_f32_s32(imin), vmulq_n_f32(sc->dmin, xd));
    }
    return acc;
}

/* mc (constant after inlining) activation rows of group a x the 4 rows of panel w, all nb 32-blocks. */
static inline __attribute__((always_inline)) void qmm_neon_kq_tile(qmm_type kind, int arrangement, const int mc, int64_t nb,
                                                                   const uint8_t *a, const uint8_t *w,
                                                                   float32x4_t out[QMM_NEON_MR]) {
    const int has_min = qmm_neon_kq_has_min(kind);
    const size_t q_off = has_min ? QMM_NEON_ACT_SUMS_Q : 16;
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t s = 0; s < nb / 8; s++, w += qmm_neon_kq_sb(kind)) {
        qmm_neon_kq_scale sc;
        sc.d = qmm_neon_fp16x4(w);
        sc.dmin = has_min ? qmm_neon_fp16x4(w + 8) : vdupq_n_f32(0.0f);
        int8_t q3sc[64];
        if (kind == QMM_TYPE_Q3_K)
            qmm_neon_kq_q3_scales(w, q3sc);
        const uint8_t *unit = w + qmm_neon_kq_hdr(kind);
        for (int j = 0; j < 8; j++, a += qmm_neon_act_blk_bytes(has_min), unit += qmm_neon_kq_unit(kind)) {
            qmm_neon_kq_scales(kind, w, q3sc, j, &sc.sca, &sc.scb, &sc.ma, &sc.mb);
            int8x16_t wq[8];
            qmm_neon_kq_expand(kind, unit, wq);
            if (arrangement == QMM_NEON_PAIRS) {
                for (int p = 0; p < (mc + 1) / 2; p++) {
                    int32x4_t ra[2], rb[2];
                    qmm_neon_smmla_halves(wq, (const int8_t *)a + q_off + 16 * p, ra, rb);
                    for (int h = 0; h < 2 && 2 * p + h < mc; h++)
                        acc[2 * p + h] = qmm_neon_kq_step(kind, acc[2 * p + h], ra[h], rb[h], &sc, a, 2 * p + h);
                }
            } else {
                for (int i = 0; i < mc; i++) {
                    int32x4_t sa, sb;
                    qmm_neon_sdot_halves(wq, (const int8_t *)a + q_off + 32 * i, &sa, &sb);
                    acc[i] = qmm_neon_kq_step(kind, acc[i], sa, sb, &sc, a, i);
                }
            }
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}

#endif
