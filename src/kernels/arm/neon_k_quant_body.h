/* The tile of the NEON K-quant families (Q2_K, Q3_K, Q4_K, Q5_K x dotprod, i8mm), for the NEON int8 driver
 * (neon_driver.h): 4 weight rows (panel format: neon_k_quant.h) x up to 4 activation rows. The includer defines
 *   KQ_KIND  QMM_NEON_KQ_Q2_K, _Q3_K, _Q4_K or _Q5_K
 *   KQ_I8MM  0: sdot by lane on ROWS4 panels (Armv8.2 dotprod); 1: smmla on PAIRS panels (i8mm)
 * then invokes KQ_FAMILY (QMM_NEON_INT8_FAMILY_ACT with the activation layout of the kind appended) with `tile`.
 *
 * Per 32-block j of a super-block, the unit is expanded to the 8-vector int8 image of the 4 rows' q (Q3_K: u - 4,
 * signed), which the activation quants multiply as Q8_0's tiles do, keeping the two 16-sub-blocks' sums sa, sb
 * apart (vectors 0..3 and 4..7). Integer terms as the reference (docs/formats.md), exact in int32:
 *   isum = sc_a sa + sc_b sb   (Q4_K/Q5_K: sc_j (sa + sb); Q3_K: the 6-bit scales decoded, -32..31)
 *   imin = -(m_a Sa + m_b Sb)  (Sa, Sb: the activation row's sums over the two halves; Q4_K/Q5_K: -m_j (Sa + Sb))
 * The types with a min take the activation layout with per-16 sums (neon_act_sums.h: Sa, Sb made once per
 * activation row and block when the activations are packed, not again for every weight panel), Q3_K the plain
 * one (neon_common.h). Then acc = fma((float)isum, d * x_d, acc) and, with a min, acc = fma((float)imin, dmin * x_d, acc), lane
 * by lane as the reference's fmaf. */
#include "kernels/arm/neon_act_sums.h"
#include "kernels/arm/neon_driver.h"
#include "kernels/arm/neon_k_quant.h"

#if !defined(KQ_KIND) || !defined(KQ_I8MM)
#error "define KQ_KIND and KQ_I8MM before including neon_k_quant_body.h"
#endif

#define KQ_HAS_MIN (KQ_KIND != QMM_NEON_KQ_Q3_K)
#define KQ_PER16   (KQ_KIND == QMM_NEON_KQ_Q2_K || KQ_KIND == QMM_NEON_KQ_Q3_K)

#if KQ_HAS_MIN
#define KQ_ACT_BLK QMM_NEON_ACT_SUMS_BLK
#define KQ_ACT_Q   QMM_NEON_ACT_SUMS_Q
#define KQ_ACTFMT  act_sums
#else
#define KQ_ACT_BLK QMM_NEON_ACT_BLK
#define KQ_ACT_Q   16
#define KQ_ACTFMT  act
#endif

/* The family macro with the kind's activation layout (one expansion step, so that KQ_ACTFMT is replaced before
 * QMM_NEON_INT8_FAMILY_ACT pastes it). */
#define KQ_FAMILY_(...) QMM_NEON_INT8_FAMILY_ACT(__VA_ARGS__)
#define KQ_FAMILY(...)  KQ_FAMILY_(__VA_ARGS__, KQ_ACTFMT, KQ_ACT_BLK)

/* The 8 int8 vectors of a unit (q of the 4 rows of one 32-block). */
static inline __attribute__((always_inline)) void kq_unpack(const uint8_t *unit, int8x16_t wq[8]) {
    uint8x16_t u[8];
#if QMM_NEON_KQ_BITS(KQ_KIND) == 4
    const uint8x16_t low4 = vdupq_n_u8(0x0f);
    for (int c = 0; c < 4; c++) {
        const uint8x16_t v = vld1q_u8(unit + 16 * c);
        u[c] = vandq_u8(v, low4);
        u[c + 4] = vshrq_n_u8(v, 4);
    }
#else
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
#endif
#if QMM_NEON_KQ_PLANE(KQ_KIND)
    {
        /* bit c of plane byte b is bit B of vector c's byte b: moved there by one shift (left or right) */
        const int bits = QMM_NEON_KQ_BITS(KQ_KIND);
        const uint8x16_t plane = vld1q_u8(unit + 16 * bits), top = vdupq_n_u8((uint8_t)(1u << bits));
        for (int c = 0; c < 8; c++)
            u[c] = vorrq_u8(u[c], vandq_u8(vshlq_u8(plane, vdupq_n_s8((int8_t)(bits - c))), top));
    }
#endif
    for (int c = 0; c < 8; c++) {
#if KQ_KIND == QMM_NEON_KQ_Q3_K
        wq[c] = vsubq_s8(vreinterpretq_s8_u8(u[c]), vdupq_n_s8(4));
#else
        wq[c] = vreinterpretq_s8_u8(u[c]);
#endif
    }
}

/* Sub-scales of 32-block j of the super-block at sb, per weight row: sc_a, sc_b (Q4_K/Q5_K: both sc_j), m_a, m_b. */
static inline __attribute__((always_inline)) void kq_scales(const uint8_t *sb, const int8_t *q3sc, int j, int32x4_t *sca,
                                                            int32x4_t *scb, int32x4_t *ma, int32x4_t *mb) {
#if KQ_KIND == QMM_NEON_KQ_Q3_K
    const int16x8_t s = vmovl_s8(vld1_s8(q3sc + 8 * j));
    *sca = vmovl_s16(vget_low_s16(s));
    *scb = vmovl_s16(vget_high_s16(s));
    *ma = *mb = vdupq_n_s32(0);
    (void)sb;
#elif KQ_KIND == QMM_NEON_KQ_Q2_K
    const uint8x8_t v = vld1_u8(sb + 16 + 8 * j);
    const uint16x8_t sc = vmovl_u8(vand_u8(v, vdup_n_u8(0x0f))), m = vmovl_u8(vshr_n_u8(v, 4));
    *sca = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(sc)));
    *scb = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(sc)));
    *ma = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(m)));
    *mb = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(m)));
    (void)q3sc;
#else
    const uint16x8_t v = vmovl_u8(vld1_u8(sb + 16 + 8 * j));
    *sca = *scb = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(v)));
    *ma = *mb = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(v)));
    (void)q3sc;
#endif
}

#if KQ_KIND == QMM_NEON_KQ_Q3_K
/* The 16 6-bit scales of the 4 rows (qmm_q3_k_scale), minus 32, into q3sc[4 i + r]: the low 4 bits of scale i are
 * nibble i / 8 of byte i % 8, the high 2 bits bits 2 (i / 4) of byte 8 + i % 4; bytes 0..3, 4..7, 8..11 are one
 * vector each ([byte][row]), so scales 4v..4v+3 of the 4 rows come out as one vector v. */
static inline __attribute__((always_inline)) void kq_q3_scales(const uint8_t *sb, int8_t q3sc[64]) {
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
#endif

/* One output row's float steps for 32-block j: isum, imin (per weight row) from the integer parts. */
static inline __attribute__((always_inline)) float32x4_t kq_step(float32x4_t acc, int32x4_t sa, int32x4_t sb, int32_t xa,
                                                                 int32_t xb, int32x4_t sca, int32x4_t scb, int32x4_t ma,
                                                                 int32x4_t mb, float32x4_t d, float32x4_t dmin, float xd) {
#if KQ_PER16
    const int32x4_t isum = vmlaq_s32(vmulq_s32(sca, sa), scb, sb);
#else
    const int32x4_t isum = vmulq_s32(sca, vaddq_s32(sa, sb));
    (void)scb;
#endif
    acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(d, xd));
#if KQ_HAS_MIN
#if KQ_PER16
    const int32x4_t imin = vnegq_s32(vmlaq_n_s32(vmulq_n_s32(ma, xa), mb, xb));
#else
    const int32x4_t imin = vmulq_n_s32(ma, -(xa + xb));
    (void)mb;
#endif
    acc = vfmaq_f32(acc, vcvtq_f32_s32(imin), vmulq_n_f32(dmin, xd));
#else
    (void)xa, (void)xb, (void)ma, (void)mb, (void)dmin;
#endif
    return acc;
}

/* The activation sum of half h (elements 16 h .. 16 h + 15) of row i of block a, as packed (neon_act_sums.h); 0
 * for the kind without a min (unused there). */
static inline __attribute__((always_inline)) int32_t kq_act_sum(const uint8_t *a, int i, int h) {
#if KQ_HAS_MIN
    return ((const int16_t *)(const void *)(a + 16))[2 * i + h];
#else
    (void)a, (void)i, (void)h;
    return 0;
#endif
}

/* mc (constant after inlining) activation rows of group a x the 4 rows of panel w, all nb 32-blocks. */
static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    float32x4_t acc[QMM_NEON_MR];
    for (int i = 0; i < QMM_NEON_MR; i++)
        acc[i] = vdupq_n_f32(0.0f);
    for (int64_t s = 0; s < nb / 8; s++, w += QMM_NEON_KQ_SB(KQ_KIND)) {
        const float32x4_t d = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)w)));
#if KQ_HAS_MIN
        const float32x4_t dmin = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)(w + 8))));
#else
        const float32x4_t dmin = vdupq_n_f32(0.0f);
#endif
        int8_t q3sc[64];
#if KQ_KIND == QMM_NEON_KQ_Q3_K
        kq_q3_scales(w, q3sc);
#endif
        const uint8_t *unit = w + QMM_NEON_KQ_HDR(KQ_KIND);
        for (int j = 0; j < 8; j++, a += KQ_ACT_BLK, unit += QMM_NEON_KQ_UNIT(KQ_KIND)) {
            int32x4_t sca, scb, ma, mb;
            kq_scales(w, q3sc, j, &sca, &scb, &ma, &mb);
            int8x16_t wq[8];
            kq_unpack(unit, wq);
#if KQ_I8MM
            for (int p = 0; p < (mc + 1) / 2; p++) {
                int32x4_t c0a = vdupq_n_s32(0), c1a = vdupq_n_s32(0), c0b = vdupq_n_s32(0), c1b = vdupq_n_s32(0);
                int8x16_t x[4];
                for (int g = 0; g < 4; g++)
                    x[g] = vld1q_s8((const int8_t *)a + KQ_ACT_Q + 32 * g + 16 * p);
                c0a = vmmlaq_s32(c0a, x[0], wq[0]);
                c1a = vmmlaq_s32(c1a, x[0], wq[1]);
                c0a = vmmlaq_s32(c0a, x[1], wq[2]);
                c1a = vmmlaq_s32(c1a, x[1], wq[3]);
                c0b = vmmlaq_s32(c0b, x[2], wq[4]);
                c1b = vmmlaq_s32(c1b, x[2], wq[5]);
                c0b = vmmlaq_s32(c0b, x[3], wq[6]);
                c1b = vmmlaq_s32(c1b, x[3], wq[7]);
                /* c0 = [y(2p,0) y(2p,1) y(2p+1,0) y(2p+1,1)], c1 likewise for weight rows 2, 3 */
                const int64x2_t c0al = vreinterpretq_s64_s32(c0a), c1al = vreinterpretq_s64_s32(c1a);
                const int64x2_t c0bl = vreinterpretq_s64_s32(c0b), c1bl = vreinterpretq_s64_s32(c1b);
                const int32x4_t r0a = vreinterpretq_s32_s64(vzip1q_s64(c0al, c1al));
                const int32x4_t r1a = vreinterpretq_s32_s64(vzip2q_s64(c0al, c1al));
                const int32x4_t r0b = vreinterpretq_s32_s64(vzip1q_s64(c0bl, c1bl));
                const int32x4_t r1b = vreinterpretq_s32_s64(vzip2q_s64(c0bl, c1bl));
                const float xd0 = ((const float *)a)[2 * p], xd1 = ((const float *)a)[2 * p + 1];
                acc[2 * p] = kq_step(acc[2 * p], r0a, r0b, kq_act_sum(a, 2 * p, 0), kq_act_sum(a, 2 * p, 1), sca, scb, ma, mb, d,
                                     dmin, xd0);
                if (2 * p + 1 < mc)
                    acc[2 * p + 1] = kq_step(acc[2 * p + 1], r1a, r1b, kq_act_sum(a, 2 * p + 1, 0), kq_act_sum(a, 2 * p + 1, 1),
                                             sca, scb, ma, mb, d, dmin, xd1);
            }
#else
            for (int i = 0; i < mc; i++) {
                const int8x16_t x0 = vld1q_s8((const int8_t *)a + KQ_ACT_Q + 32 * i);
                const int8x16_t x1 = vld1q_s8((const int8_t *)a + KQ_ACT_Q + 32 * i + 16);
                int32x4_t sa = vdupq_n_s32(0), sb = vdupq_n_s32(0);
                sa = vdotq_laneq_s32(sa, wq[0], x0, 0);
                sb = vdotq_laneq_s32(sb, wq[4], x1, 0);
                sa = vdotq_laneq_s32(sa, wq[1], x0, 1);
                sb = vdotq_laneq_s32(sb, wq[5], x1, 1);
                sa = vdotq_laneq_s32(sa, wq[2], x0, 2);
                sb = vdotq_laneq_s32(sb, wq[6], x1, 2);
                sa = vdotq_laneq_s32(sa, wq[3], x0, 3);
                sb = vdotq_laneq_s32(sb, wq[7], x1, 3);
                acc[i] = kq_step(acc[i], sa, sb, kq_act_sum(a, i, 0), kq_act_sum(a, i, 1), sca, scb, ma, mb, d, dmin,
                                 ((const float *)a)[i]);
            }
#endif
        }
    }
    for (int i = 0; i < mc; i++)
        out[i] = acc[i];
}
