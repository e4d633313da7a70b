/* Kernel bodies shared by the SVE and SME int8 families, instantiated once
 * per translation unit (each with its own target flags). Before including:
 *   QMM_SVESME_KIND the weight format, QMM_SVESME_KIND_Q8_0, _Q4_0, _IQ4_NL,
 *               _MXFP4, _IQ4_XS, _Q4_K, _Q5_K, _Q6_K, _Q4_1, _Q5_0, _Q5_1,
 *               _Q3_K or _Q2_K (sve_sme_layout.h panels);
 *   QMM_SVESME_FN   the functions' mode: empty (SVE, non-streaming) or
 *               __arm_streaming (SME: SVE instructions only ever run in
 *               streaming mode, so a CPU with SME but no SVE is fine);
 *   QMM_SVESME_SME  1 to also define the SMOPA GEMM (needs <arm_sme.h>);
 *   QMM_SVESME_SME2 1 for its SME2 form: the float step moves 4 ZA slices per
 *               MOVA and converts 4 vectors per SCVTF (same numerics).
 * then invoke QMM_SVESME_FAMILY(id, wtype, required, fallback_hides) once: the
 * descriptor `qmm_family_<id>` (SVE: the SDOT GEMM on reference-layout
 * activations; SME: the SMOPA GEMM and the streaming SDOT GEMV, capped).
 *
 * Numerics (kernel.h): each block's int32 sum is exact (SDOT / SMOPA 4-way
 * int8 dot products; the table kinds' levels, TBL of the nibbles, are int8:
 * IQ4_NL -127..113, MXFP4's doubled E2M1 -12..12; IQ4_XS multiplies the sum
 * by its sub-scale, |ls * sum| <= 32 * 516128 < 2^24: exact in int32 and as
 * a float; Q4_K / Q5_K by its sc_j, <= 7.94e6; Q6_K's and Q3_K's is sc_a
 * times the sum of elements 0..15 plus sc_b times that of 16..31, <=
 * 16646144, as their reference; Q2_K's the same integer as one sum, its q
 * multiplied by their sub-scale first, sc q <= 45 in int8), then per
 * output, blocks in ascending order:
 *   acc = fma((float)isum, fl(w_d * x_d), acc)
 * with w_d the exactly widened fp16 d (IQ4_XS, the K-quants: the super-block's) or
 * MXFP4's 2^(e - 128), as SCVTF, FMUL, FMLA (fused, one rounding) on lanes =
 * outputs; Q4_K and Q5_K then add their min term the same way:
 *   acc = fma((float)(-m_j * sum qx), fl(dmin * x_d), acc)
 * (|m_j sum qx| <= 63 * 4064: exact in int32 and as a float), Q4_1 and Q5_1
 * theirs as fma((float)sum qx, fl(m * x_d), acc) (the same code with -m_j
 * replaced by 1 and dmin by the block's m), Q2_K its
 * fma((float)(-(m_a sum_a qx + m_b sum_b qx)), fl(dmin * x_d), acc) from the
 * sums of elements 0..15 and 16..31 (<= 2 * 15 * 2032). Nothing is ever
 * summed across k in floating point. */
#include <stdint.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/arm/sve_sme_layout.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"

#ifndef QMM_SVESME_SME2
#define QMM_SVESME_SME2 0
#endif

#define QMM_SVESME_TABLE                                                                                                         \
    (QMM_SVESME_KIND == QMM_SVESME_KIND_IQ4_NL || QMM_SVESME_KIND == QMM_SVESME_KIND_MXFP4 ||                                    \
     QMM_SVESME_KIND == QMM_SVESME_KIND_IQ4_XS)
/* The K-quants with a min term per block (Q4_K, Q5_K: activation sums for it). */
#define QMM_SVESME_KMIN (QMM_SVESME_KIND == QMM_SVESME_KIND_Q4_K || QMM_SVESME_KIND == QMM_SVESME_KIND_Q5_K)
/* Q3_K, Q2_K: 2-bit q (Q3_K with a bit-2 word) */
#define QMM_SVESME_TWO (QMM_SVESME_KIND == QMM_SVESME_KIND_Q3_K || QMM_SVESME_KIND == QMM_SVESME_KIND_Q2_K)
/* the legacy kinds: per 32-block panels, Q4_1 / Q5_1 with a min m */
#define QMM_SVESME_LEG                                                                                                           \
    (QMM_SVESME_KIND == QMM_SVESME_KIND_Q4_1 || QMM_SVESME_KIND == QMM_SVESME_KIND_Q5_0 ||                                       \
     QMM_SVESME_KIND == QMM_SVESME_KIND_Q5_1)
#define QMM_SVESME_MIN (QMM_SVESME_KMIN || QMM_SVESME_LEG_MIN(QMM_SVESME_KIND) || QMM_SVESME_KIND == QMM_SVESME_KIND_Q2_K)
/* the activation sums of the SME layout: per 32, or per 16 for Q2_K */
#define QMM_SVESME_ACT_SUMS (QMM_SVESME_KIND == QMM_SVESME_KIND_Q2_K ? 2 : QMM_SVESME_MIN)
/* Q5_K, Q5_0, Q5_1: a bit-4 group after the nibbles */
#define QMM_SVESME_FIVE (QMM_SVESME_KIND == QMM_SVESME_KIND_Q5_K || QMM_SVESME_LEG_FIVE(QMM_SVESME_KIND))
/* Q6_K, Q3_K: two block sums per output, of elements 0..15 and 16..31 */
#define QMM_SVESME_SPLIT (QMM_SVESME_KIND == QMM_SVESME_KIND_Q6_K || QMM_SVESME_KIND == QMM_SVESME_KIND_Q3_K)
#if QMM_SVESME_LEG
#define QMM_SVESME_QOFF (QMM_SVESME_SCALES * (1 + QMM_SVESME_LEG_MIN(QMM_SVESME_KIND))) /* after d (and m) */
#elif QMM_SVESME_TWO
#define QMM_SVESME_QOFF QMM_SVESME_TWO_QOFF(QMM_SVESME_KIND)
#elif QMM_SVESME_KMIN || QMM_SVESME_KIND == QMM_SVESME_KIND_Q6_K
#define QMM_SVESME_QOFF (2 * QMM_SVESME_NP) /* after the 32-block's sc and m, or sc_a and sc_b */
#elif QMM_SVESME_KIND == QMM_SVESME_KIND_IQ4_XS
#define QMM_SVESME_QOFF   QMM_SVESME_NP /* after the 32-block's sub-scales */
#define QMM_SVESME_LEVELS qmm_kvalues_iq4nl
#elif QMM_SVESME_TABLE
#define QMM_SVESME_BLK    QMM_SVESME_TABLE_BLK(QMM_SVESME_KIND)
#define QMM_SVESME_QOFF   (QMM_SVESME_NP * QMM_SVESME_SB(QMM_SVESME_KIND)) /* the nibbles' offset in a block */
#define QMM_SVESME_LEVELS (QMM_SVESME_KIND == QMM_SVESME_KIND_MXFP4 ? qmm_kvalues_mxfp4 : qmm_kvalues_iq4nl)
#elif QMM_SVESME_KIND == QMM_SVESME_KIND_Q4_0
#define QMM_SVESME_BLK  QMM_SVESME_Q4_BLK
#define QMM_SVESME_QOFF QMM_SVESME_SCALES
#else
#define QMM_SVESME_BLK  QMM_SVESME_Q8_BLK
#define QMM_SVESME_QOFF QMM_SVESME_SCALES
#endif

#define QMM_SVESME_INLINE static inline __attribute__((always_inline))

/* Where block b of a panel at wp starts (IQ4_XS: its sub-scales), where its
 * scales d are, and the bytes of a panel of nb blocks. */
#if QMM_SVESME_KIND == QMM_SVESME_KIND_IQ4_XS
#define SS_BLK(wp, b)        ((wp) + (size_t)((b) >> 3) * QMM_SVESME_XS_SUPER + QMM_SVESME_SCALES + (size_t)((b)&7) * QMM_SVESME_XS_BLK)
#define SS_DPTR(wp, b)       ((wp) + (size_t)((b) >> 3) * QMM_SVESME_XS_SUPER)
#define QMM_SVESME_PANEL(nb) ((size_t)(nb) / 8 * QMM_SVESME_XS_SUPER)
/* IQ4_XS: the panel rows' sub-scales of a block, and a block sum times them */
#define SS_LS_DECL(wp, b, c0) const svint32_t ls = svld1sb_s32(pw, (const int8_t *)SS_BLK(wp, b) + (c0))
#define SS_LS(s)              svmul_s32_x(pw, s, ls)
#elif QMM_SVESME_LEG
#define SS_BLK(wp, b)        ((wp) + (size_t)(b)*QMM_SVESME_LEG_BLK(QMM_SVESME_KIND))
#define SS_DPTR(wp, b)       SS_BLK(wp, b)
#define QMM_SVESME_PANEL(nb) ((size_t)(nb)*QMM_SVESME_LEG_BLK(QMM_SVESME_KIND))
#if QMM_SVESME_MIN /* Q4_1 / Q5_1: the block's m of rows c0.. */
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    const svfloat32_t wm = svcvt_f32_f16_x(                                                                                      \
        pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)(SS_DPTR(wp, b) + QMM_SVESME_SCALES) + (c0))))
#else
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    do {                                                                                                                         \
    } while (0)
#endif
#define SS_LS(s) (s)
#elif QMM_SVESME_KMIN
#define SS_KSUP QMM_SVESME_K_SUPER(QMM_SVESME_FIVE)
#define SS_BLK(wp, b)                                                                                                            \
    ((wp) + (size_t)((b) >> 3) * SS_KSUP + QMM_SVESME_K_HEAD + (size_t)((b)&7) * QMM_SVESME_K_BLK(QMM_SVESME_FIVE))
#define SS_DPTR(wp, b)       ((wp) + (size_t)((b) >> 3) * SS_KSUP)
#define QMM_SVESME_PANEL(nb) ((size_t)(nb) / 8 * SS_KSUP)
/* Q4_K / Q5_K: the panel rows' sc_j (times a block sum), -m_j and dmin of a block */
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    const uint8_t *scm_ = SS_BLK(wp, b) + (c0);                                                                                  \
    const svint32_t ls = svreinterpret_s32_u32(svld1ub_u32(pw, scm_));                                                           \
    const svint32_t nm = svneg_s32_x(pw, svreinterpret_s32_u32(svld1ub_u32(pw, scm_ + QMM_SVESME_NP)));                          \
    const svfloat32_t wm = svcvt_f32_f16_x(                                                                                      \
        pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)(SS_DPTR(wp, b) + QMM_SVESME_SCALES) + (c0))))
#define SS_LS(s) svmul_s32_x(pw, s, ls)
#elif QMM_SVESME_KIND == QMM_SVESME_KIND_Q6_K
#define SS_BLK(wp, b)        ((wp) + (size_t)((b) >> 3) * QMM_SVESME_Q6_SUPER + QMM_SVESME_SCALES + (size_t)((b)&7) * QMM_SVESME_Q6_BLK)
#define SS_DPTR(wp, b)       ((wp) + (size_t)((b) >> 3) * QMM_SVESME_Q6_SUPER)
#define QMM_SVESME_PANEL(nb) ((size_t)(nb) / 8 * QMM_SVESME_Q6_SUPER)
/* Q6_K: the panel rows' sc_a and sc_b */
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    const int8_t *sab_ = (const int8_t *)SS_BLK(wp, b) + (c0);                                                                   \
    const svint32_t lsa = svld1sb_s32(pw, sab_), lsb = svld1sb_s32(pw, sab_ + QMM_SVESME_NP)
#elif QMM_SVESME_TWO
#define SS_TSUP QMM_SVESME_TWO_SUPER(QMM_SVESME_KIND)
#define SS_BLK(wp, b)                                                                                                            \
    ((wp) + (size_t)((b) >> 3) * SS_TSUP + QMM_SVESME_TWO_HEAD(QMM_SVESME_KIND) +                                                \
     (size_t)((b)&7) * QMM_SVESME_TWO_BLK(QMM_SVESME_KIND))
#define SS_DPTR(wp, b)       ((wp) + (size_t)((b) >> 3) * SS_TSUP)
#define QMM_SVESME_PANEL(nb) ((size_t)(nb) / 8 * SS_TSUP)
#if QMM_SVESME_KIND == QMM_SVESME_KIND_Q3_K
/* Q3_K: the panel rows' sc_a and sc_b (6 bits: the block's low nibbles and
 * the super-block's high-bit words) */
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    const svuint32_t lo_ = svld1ub_u32(pw, SS_BLK(wp, b) + (c0));                                                                \
    const svuint32_t hs_ =                                                                                                       \
        svlsr_n_u32_x(pw, svld1_u32(pw, (const uint32_t *)(SS_DPTR(wp, b) + QMM_SVESME_SCALES) + (c0)), 4 * ((b)&7));            \
    const svint32_t lsa = QMM_SVE_Q3_SC(pw, lo_, hs_, 0), lsb = QMM_SVE_Q3_SC(pw, lo_, hs_, 1)
#else
/* Q2_K: the panel rows' sc_a and sc_b in every byte of their lanes (the q's
 * factors), -m_a, -m_b and dmin */
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    const svuint32_t xa_ = svld1ub_u32(pw, SS_BLK(wp, b) + (c0)), xb_ = svld1ub_u32(pw, SS_BLK(wp, b) + QMM_SVESME_NP + (c0));   \
    const svuint8_t sca8_ = QMM_SVE_SC_BYTES32(pw, xa_), scb8_ = QMM_SVE_SC_BYTES32(pw, xb_);                                    \
    const svint32_t nma = svneg_s32_x(pw, svreinterpret_s32_u32(svlsr_n_u32_x(pw, xa_, 4)));                                     \
    const svint32_t nmb = svneg_s32_x(pw, svreinterpret_s32_u32(svlsr_n_u32_x(pw, xb_, 4)));                                     \
    const svfloat32_t wm = svcvt_f32_f16_x(                                                                                      \
        pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)(SS_DPTR(wp, b) + QMM_SVESME_SCALES) + (c0))))
#define SS_LS(s) (s)
#endif
#else
#define SS_BLK(wp, b)        ((wp) + (size_t)(b)*QMM_SVESME_BLK)
#define SS_DPTR(wp, b)       SS_BLK(wp, b)
#define QMM_SVESME_PANEL(nb) ((size_t)(nb)*QMM_SVESME_BLK)
#define SS_LS_DECL(wp, b, c0)                                                                                                    \
    do {                                                                                                                         \
    } while (0)
#define SS_LS(s) (s)
#endif
#if QMM_SVESME_SPLIT /* Q6_K, Q3_K: the block's isum from its two sums */
#define SS_LS2(sa, sb) svmla_s32_x(pw, svmul_s32_x(pw, sa, lsa), sb, lsb)
#endif

/* The 4 int8 activations q[0..3] in every 32-bit lane (LD1RW). */
QMM_SVESME_INLINE svint8_t svesme_bcast4(const int8_t *q) QMM_SVESME_FN {
    int32_t v;
    __builtin_memcpy(&v, q, 4);
    return svreinterpret_s8_s32(svdup_n_s32(v));
}

/* The 16 panel scales from lane c0 on, exactly as fp32: the fp16 d widened,
 * or MXFP4's 2^(e - 128) built from its E8M0 byte (QMM_SVE_E8M0_HALF). */
QMM_SVESME_INLINE svfloat32_t svesme_wscale(svbool_t pw, const uint8_t *blk, int64_t c0) QMM_SVESME_FN {
#if QMM_SVESME_KIND == QMM_SVESME_KIND_MXFP4
    const svuint32_t e = svld1ub_u32(pw, blk + c0);
    return QMM_SVE_E8M0_HALF(pw, e);
#else
    return svcvt_f32_f16_x(pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)blk + c0)));
#endif
}

/* The table kinds' 16 levels in the low bytes of a vector (TBL's table;
 * indices are nibbles, so the lanes past 16 are never read). */
#if QMM_SVESME_TABLE
#define SS_TABLE_DECL const svint8_t tab = svld1_s8(svwhilelt_b8_s32(0, 16), QMM_SVESME_LEVELS)
#else
#define SS_TABLE_DECL                                                                                                            \
    do {                                                                                                                         \
    } while (0)
#endif

/* The 8 signed weight vectors w0..w7 (k groups 0..7 of a block) of panel
 * rows c0.. (lanes of 4 bytes). */
#if QMM_SVESME_FIVE
/* Q5_K, Q5_1, Q5_0: q 0..31 as int8 (Q5_0: q - 16), bit 4 of vector i from the hi word (QMM_SVE_Q5_HI) */
#if QMM_SVESME_KIND == QMM_SVESME_KIND_Q5_0 /* Q5_0: then q - 16, signed */
#define SS_Q5(u) svsub_n_u8_x(pt8, u, 16)
#else
#define SS_Q5(u) (u)
#endif
#define SS_LO(v, i) svreinterpret_s8_u8(SS_Q5(svorr_u8_x(pt8, svand_n_u8_x(pt8, v, 0x0f), QMM_SVE_Q5_HI(pt8, h5_, i))))
#define SS_HI(v, i) svreinterpret_s8_u8(SS_Q5(svorr_u8_x(pt8, svlsr_n_u8_x(pt8, v, 4), QMM_SVE_Q5_HI(pt8, h5_, i))))
#define SS_LOAD_W(blk, c0)                                                                                                       \
    const uint8_t *wq_ = (const uint8_t *)(blk) + QMM_SVESME_QOFF + 4 * (c0);                                                    \
    const svuint8_t v0_ = svld1_u8(pb, wq_), v1_ = svld1_u8(pb, wq_ + QMM_SVESME_GROUP);                                         \
    const svuint8_t v2_ = svld1_u8(pb, wq_ + 2 * QMM_SVESME_GROUP), v3_ = svld1_u8(pb, wq_ + 3 * QMM_SVESME_GROUP);              \
    const svuint32_t h5_ = svreinterpret_u32_u8(svld1_u8(pb, wq_ + 4 * QMM_SVESME_GROUP));                                       \
    const svint8_t w0 = SS_LO(v0_, 0), w1 = SS_LO(v1_, 1), w2 = SS_LO(v2_, 2), w3 = SS_LO(v3_, 3);                               \
    const svint8_t w4 = SS_HI(v0_, 4), w5 = SS_HI(v1_, 5), w6 = SS_HI(v2_, 6), w7 = SS_HI(v3_, 7)
#elif QMM_SVESME_TABLE || (QMM_SVESME_MIN && !QMM_SVESME_TWO)
#if QMM_SVESME_TABLE
#define SS_LO(v) svtbl_s8(tab, svand_n_u8_x(pt8, v, 0x0f))
#define SS_HI(v) svtbl_s8(tab, svlsr_n_u8_x(pt8, v, 4))
#else /* Q4_K, Q4_1: the unsigned q 0..15 as int8 */
#define SS_LO(v) svreinterpret_s8_u8(svand_n_u8_x(pt8, v, 0x0f))
#define SS_HI(v) svreinterpret_s8_u8(svlsr_n_u8_x(pt8, v, 4))
#endif
#define SS_LOAD_W(blk, c0)                                                                                                       \
    const uint8_t *wq_ = (const uint8_t *)(blk) + QMM_SVESME_QOFF + 4 * (c0);                                                    \
    const svuint8_t v0_ = svld1_u8(pb, wq_), v1_ = svld1_u8(pb, wq_ + QMM_SVESME_GROUP);                                         \
    const svuint8_t v2_ = svld1_u8(pb, wq_ + 2 * QMM_SVESME_GROUP), v3_ = svld1_u8(pb, wq_ + 3 * QMM_SVESME_GROUP);              \
    const svint8_t w0 = SS_LO(v0_), w1 = SS_LO(v1_), w2 = SS_LO(v2_), w3 = SS_LO(v3_);                                           \
    const svint8_t w4 = SS_HI(v0_), w5 = SS_HI(v1_), w6 = SS_HI(v2_), w7 = SS_HI(v3_)
#elif QMM_SVESME_KIND == QMM_SVESME_KIND_Q6_K
/* Q6_K: the signed q of each weight vector (QMM_SVE_Q6_W, sve_sme_layout.h). */
#define SS_LOAD_W(blk, c0)                                                                                                       \
    const uint8_t *wq_ = (const uint8_t *)(blk) + QMM_SVESME_QOFF + 4 * (c0);                                                    \
    const svuint8_t v0_ = svld1_u8(pb, wq_), v1_ = svld1_u8(pb, wq_ + QMM_SVESME_GROUP);                                         \
    const svuint8_t v2_ = svld1_u8(pb, wq_ + 2 * QMM_SVESME_GROUP), v3_ = svld1_u8(pb, wq_ + 3 * QMM_SVESME_GROUP);              \
    const svuint32_t ha_ = svreinterpret_u32_u8(svld1_u8(pb, wq_ + 4 * QMM_SVESME_GROUP));                                       \
    const svuint32_t hb_ = svreinterpret_u32_u8(svld1_u8(pb, wq_ + 5 * QMM_SVESME_GROUP));                                       \
    const svint8_t w0 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v0_, 0x0f), ha_, 0);                                                 \
    const svint8_t w1 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v1_, 0x0f), ha_, 1);                                                 \
    const svint8_t w2 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v2_, 0x0f), ha_, 2);                                                 \
    const svint8_t w3 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v3_, 0x0f), ha_, 3);                                                 \
    const svint8_t w4 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v0_, 4), hb_, 0);                                                    \
    const svint8_t w5 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v1_, 4), hb_, 1);                                                    \
    const svint8_t w6 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v2_, 4), hb_, 2);                                                    \
    const svint8_t w7 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v3_, 4), hb_, 3)
#elif QMM_SVESME_TWO
/* Q3_K: the signed q from the 2-bit fields and the bit-2 word (QMM_SVE_Q3_W);
 * Q2_K: the unsigned q times the sub-scale of its half (sc_a: vectors 0..3) */
#if QMM_SVESME_KIND == QMM_SVESME_KIND_Q3_K
#define SS_TWO_HB_DECL(p) const svuint8_t hb_ = svld1_u8(pb, p)
#define SS_TWO_W(l, s, i) QMM_SVE_Q3_W(pt8, l, s, hb_, i)
#else
#define SS_TWO_HB_DECL(p)                                                                                                        \
    do {                                                                                                                         \
    } while (0)
#define SS_TWO_W(l, s, i) svreinterpret_s8_u8(svmul_u8_x(pt8, QMM_SVE_PAIR(pt8, l, s), (i) < 4 ? sca8_ : scb8_))
#endif
#define SS_LOAD_W(blk, c0)                                                                                                       \
    const uint8_t *wq_ = (const uint8_t *)(blk) + QMM_SVESME_QOFF + 4 * (c0);                                                    \
    const svuint8_t l0_ = svld1_u8(pb, wq_), l1_ = svld1_u8(pb, wq_ + QMM_SVESME_GROUP);                                         \
    SS_TWO_HB_DECL(wq_ + 2 * QMM_SVESME_GROUP);                                                                                  \
    const svint8_t w0 = SS_TWO_W(l0_, 0, 0), w1 = SS_TWO_W(l0_, 1, 1), w2 = SS_TWO_W(l0_, 2, 2), w3 = SS_TWO_W(l0_, 3, 3);       \
    const svint8_t w4 = SS_TWO_W(l1_, 0, 4), w5 = SS_TWO_W(l1_, 1, 5), w6 = SS_TWO_W(l1_, 2, 6), w7 = SS_TWO_W(l1_, 3, 7)
#elif QMM_SVESME_KIND == QMM_SVESME_KIND_Q4_0
#define SS_LO(v) svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v, 4), 4)
#define SS_HI(v) svasr_n_s8_x(pt8, v, 4)
#define SS_LOAD_W(blk, c0)                                                                                                       \
    const int8_t *wq_ = (const int8_t *)(blk) + QMM_SVESME_SCALES + 4 * (c0);                                                    \
    const svint8_t v0_ = svld1_s8(pb, wq_), v1_ = svld1_s8(pb, wq_ + QMM_SVESME_GROUP);                                          \
    const svint8_t v2_ = svld1_s8(pb, wq_ + 2 * QMM_SVESME_GROUP), v3_ = svld1_s8(pb, wq_ + 3 * QMM_SVESME_GROUP);               \
    const svint8_t w0 = SS_LO(v0_), w1 = SS_LO(v1_), w2 = SS_LO(v2_), w3 = SS_LO(v3_);                                           \
    const svint8_t w4 = SS_HI(v0_), w5 = SS_HI(v1_), w6 = SS_HI(v2_), w7 = SS_HI(v3_)
#else
#define SS_LOAD_W(blk, c0)                                                                                                       \
    const int8_t *wq_ = (const int8_t *)(blk) + QMM_SVESME_SCALES + 4 * (c0);                                                    \
    const svint8_t w0 = svld1_s8(pb, wq_), w1 = svld1_s8(pb, wq_ + QMM_SVESME_GROUP);                                            \
    const svint8_t w2 = svld1_s8(pb, wq_ + 2 * QMM_SVESME_GROUP), w3 = svld1_s8(pb, wq_ + 3 * QMM_SVESME_GROUP);                 \
    const svint8_t w4 = svld1_s8(pb, wq_ + 4 * QMM_SVESME_GROUP), w5 = svld1_s8(pb, wq_ + 5 * QMM_SVESME_GROUP);                 \
    const svint8_t w6 = svld1_s8(pb, wq_ + 6 * QMM_SVESME_GROUP), w7 = svld1_s8(pb, wq_ + 7 * QMM_SVESME_GROUP)
#endif

/* One activation row's block against the loaded weights: the exact block sum
 * per lane, then the per-block float step into acc. */
#define SS_ROW_STEP(xb, acc)                                                                                                     \
    do {                                                                                                                         \
        svint32_t s_ = svdot_s32(svdup_n_s32(0), w0, svesme_bcast4((xb)->q));                                                    \
        s_ = svdot_s32(s_, w1, svesme_bcast4((xb)->q + 4));                                                                      \
        s_ = svdot_s32(s_, w2, svesme_bcast4((xb)->q + 8));                                                                      \
        s_ = svdot_s32(s_, w3, svesme_bcast4((xb)->q + 12));                                                                     \
        svint32_t t_ = SS_SECOND(s_);                                                                                            \
        t_ = svdot_s32(t_, w4, svesme_bcast4((xb)->q + 16));                                                                     \
        t_ = svdot_s32(t_, w5, svesme_bcast4((xb)->q + 20));                                                                     \
        t_ = svdot_s32(t_, w6, svesme_bcast4((xb)->q + 24));                                                                     \
        t_ = svdot_s32(t_, w7, svesme_bcast4((xb)->q + 28));                                                                     \
        acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, SS_ISUM(s_, t_)), svmul_n_f32_x(pw, wd, (xb)->d));                        \
        SS_MIN_STEP(xb, acc);                                                                                                    \
    } while (0)
/* The block's isum from the sums of k 0..15 (s) and then of 16..31 (t): one
 * chain and its sub-scale, or Q6_K's and Q3_K's two chains and theirs. */
#if QMM_SVESME_SPLIT
#define SS_SECOND(s)   svdup_n_s32(0)
#define SS_ISUM(s, t)  SS_LS2(s, t)
#define SS_TILE_B      1    /* ZA1.S holds the second sums */
#define SS_ZA_INT_MASK 0x33 /* ZA0.S, ZA1.S */
#define SS_I4_DECL(G)  const svint32x4_t i_ = svread_hor_za32_s32_vg4(0, 4 * G), j_ = svread_hor_za32_s32_vg4(1, 4 * G)
#else
#define SS_SECOND(s)   (s)
#define SS_ISUM(s, t)  SS_LS(t)
#define SS_TILE_B      0
#define SS_ZA_INT_MASK 0x11                                                     /* ZA0.S */
#define SS_I4_DECL(G)  const svint32x4_t j_ = svread_hor_za32_s32_vg4(0, 4 * G) /* SS_ISUM reads t only */
#endif
#if QMM_SVESME_MIN /* then the min term: its exact integer imin times fl(dmin * x_d) */
#define SS_MIN_STEP(xb, acc)                                                                                                     \
    do {                                                                                                                         \
        SS_MIN_INT_DECL(xb);                                                                                                     \
        acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, im_), svmul_n_f32_x(pw, wm, (xb)->d));                                    \
    } while (0)
#if QMM_SVESME_KIND == QMM_SVESME_KIND_Q2_K /* -(m_a sum_a + m_b sum_b), sum_a: elements 0..15 (SADDV) */
#define SS_MIN_INT_DECL(xb)                                                                                                      \
    const svbool_t p16_ = svwhilelt_b8_s32(0, 16);                                                                               \
    const int32_t sa_ = (int32_t)svaddv_s8(p16_, svld1_s8(p16_, (xb)->q));                                                       \
    const svint32_t im_ = svmla_n_s32_x(pw, svmul_n_s32_x(pw, nma, sa_), nmb, (xb)->sum - sa_)
#elif QMM_SVESME_KMIN /* -m_j sum */
#define SS_MIN_INT_DECL(xb) const svint32_t im_ = svmul_n_s32_x(pw, nm, (xb)->sum)
#else /* Q4_1 / Q5_1: the block's sum */
#define SS_MIN_INT_DECL(xb) const svint32_t im_ = svdup_n_s32((xb)->sum)
#endif
#else
#define SS_MIN_STEP(xb, acc)                                                                                                     \
    do {                                                                                                                         \
    } while (0)
#endif

/* MR (1 or 4, a constant after inlining) activation rows x[0..MR) in the
 * reference layout against panel rows c0.. (lanes pw), all blocks; stores
 * the first `rows` rows, lanes pst. A 4-row call with fewer rows repeats
 * the last row (rows >= 1) and does not store the copies. */
QMM_SVESME_INLINE void svesme_dot_rows(const int MR, int64_t rows, int64_t nb, const qmm_act_block *x0, const uint8_t *wp,
                                       int64_t c0, svbool_t pw, svbool_t pb, svbool_t pst, float *y, size_t ys) QMM_SVESME_FN {
    const svbool_t pt8 = svptrue_b8();
    (void)pt8;
    SS_TABLE_DECL;
    const qmm_act_block *x1 = x0 + (rows > 1 ? nb : 0);
    const qmm_act_block *x2 = x0 + (rows > 2 ? 2 * nb : 0);
    const qmm_act_block *x3 = x0 + (rows > 3 ? 3 * nb : 0);
    svfloat32_t acc0 = svdup_n_f32(0.0f), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = SS_BLK(wp, b);
        const svfloat32_t wd = svesme_wscale(pw, SS_DPTR(wp, b), c0);
        SS_LS_DECL(wp, b, c0);
        SS_LOAD_W(blk, c0);
        SS_ROW_STEP(x0 + b, acc0);
        if (MR > 1) {
            SS_ROW_STEP(x1 + b, acc1);
            SS_ROW_STEP(x2 + b, acc2);
            SS_ROW_STEP(x3 + b, acc3);
        }
    }
    svst1_f32(pst, y, acc0);
    if (MR > 1) {
        if (rows > 1)
            svst1_f32(pst, (float *)((char *)y + ys), acc1);
        if (rows > 2)
            svst1_f32(pst, (float *)((char *)y + 2 * ys), acc2);
        if (rows > 3)
            svst1_f32(pst, (float *)((char *)y + 3 * ys), acc3);
    }
}

/* GEMM / GEMV with SDOT across weight rows: activations in the reference
 * layout (qmm_act_block rows), weights in 16-row panels walked in chunks of
 * min(VL lanes, 16) rows. */
static void svesme_dot_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) QMM_SVESME_FN {
    const int64_t nb = k / QMM_QK;
    const int64_t lanes = (int64_t)svcntw(), cw = lanes < QMM_SVESME_NP ? lanes : QMM_SVESME_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, cw), pb = svwhilelt_b8_s64(0, 4 * cw);
    const qmm_act_block *act = (const qmm_act_block *)a;
    for (int64_t n0 = 0; n0 < n; n0 += QMM_SVESME_NP) {
        const uint8_t *wp = (const uint8_t *)w + (size_t)(n0 / QMM_SVESME_NP) * QMM_SVESME_PANEL(nb);
        for (int64_t c0 = 0; c0 < QMM_SVESME_NP && n0 + c0 < n; c0 += cw) {
            const int64_t cols = n - n0 - c0 < cw ? n - n0 - c0 : cw;
            const svbool_t pst = svwhilelt_b32_s64(0, cols);
            int64_t i = 0;
            for (; i + 4 <= m; i += 4)
                svesme_dot_rows(4, 4, nb, act + i * nb, wp, c0, pw, pb, pst, (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
            if (m - i > 1)
                svesme_dot_rows(4, m - i, nb, act + i * nb, wp, c0, pw, pb, pst, (float *)((char *)y + (size_t)i * ys) + n0 + c0,
                                ys);
            else if (m - i == 1)
                svesme_dot_rows(1, 1, nb, act + i * nb, wp, c0, pw, pb, pst, (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
        }
    }
}

#if QMM_SVESME_SME
/* One row i of a sub-tile: its block sums (ZA0.S slice i), converted, times
 * its scales (ZA2.S slice i), fused into the row's accumulator. */
#define SS_FP_ROW(I)                                                                                                             \
    if (rows > I) {                                                                                                              \
        acc##I = svmla_f32_x(pw, acc##I,                                                                                         \
                             svcvt_f32_s32_x(pw, SS_ISUM(svread_hor_za32_s32_m(svundef_s32(), pw, 0, I),                         \
                                                         svread_hor_za32_s32_m(svundef_s32(), pw, SS_TILE_B, I))),               \
                             svread_hor_za32_f32_m(svundef_f32(), pw, 2, I));                                                    \
        SS_FP_MIN_ROW(I);                                                                                                        \
    }
/* The min term (Q4_K / Q5_K; Q4_1 / Q5_1 with 1 for -m_j and m for dmin):
 * -m_j sum qx (ZA1.S, exact) times fl(dmin * x_d) (ZA3.S). */
#if QMM_SVESME_MIN
#define SS_FP_MIN_ROW(I)                                                                                                         \
    acc##I =                                                                                                                     \
        svmla_f32_x(pw, acc##I, svread_hor_za32_f32_m(svundef_f32(), pw, 1, I), svread_hor_za32_f32_m(svundef_f32(), pw, 3, I))
#define SS_FP_MIN_ROW4(G, A0, A1, A2, A3)                                                                                        \
    do {                                                                                                                         \
        const svfloat32x4_t t_ = svread_hor_za32_f32_vg4(1, 4 * G), u_ = svread_hor_za32_f32_vg4(3, 4 * G);                      \
        A0 = svmla_f32_x(pw, A0, svget4_f32(t_, 0), svget4_f32(u_, 0));                                                          \
        A1 = svmla_f32_x(pw, A1, svget4_f32(t_, 1), svget4_f32(u_, 1));                                                          \
        A2 = svmla_f32_x(pw, A2, svget4_f32(t_, 2), svget4_f32(u_, 2));                                                          \
        A3 = svmla_f32_x(pw, A3, svget4_f32(t_, 3), svget4_f32(u_, 3));                                                          \
    } while (0)
#define SS_ZA_MASK 0xff /* ZA0.S (sums), ZA1.S (min terms), ZA2.S, ZA3.S (scales) */
/* ZA1.S = the rows' activation sums at xs (outer) the min factors: -m_j,
 * 1 (Q4_1, Q5_1), or Q2_K's two (sums of 0..15 by -m_a, then of 16..31,
 * 64 bytes on, by -m_b): integers below 2^24, exact in fp32 */
#if QMM_SVESME_KIND == QMM_SVESME_KIND_Q2_K
#define SS_MIN_MOPA(xs)                                                                                                          \
    do {                                                                                                                         \
        svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs), svcvt_f32_s32_x(pw, nma));                                               \
        svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, (xs) + QMM_SVESME_MP), svcvt_f32_s32_x(pw, nmb));                             \
    } while (0)
#elif QMM_SVESME_KMIN
#define SS_MIN_MOPA(xs) svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs), svcvt_f32_s32_x(pw, nm))
#else
#define SS_MIN_MOPA(xs) svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs), svdup_n_f32(1.0f))
#endif
#else
#define SS_FP_MIN_ROW(I)                                                                                                         \
    do {                                                                                                                         \
    } while (0)
#define SS_FP_MIN_ROW4(G, A0, A1, A2, A3)                                                                                        \
    do {                                                                                                                         \
    } while (0)
#define SS_ZA_MASK (SS_ZA_INT_MASK | 0x44) /* the sums' tiles and ZA2.S (scales) */
#endif
/* SME2: rows 4G..4G+3 at once (4-slice MOVA, 4-vector SCVTF); a group is
 * entered when its first row exists, the rows past `rows` are never stored. */
#define SS_FP_ROW4(G, A0, A1, A2, A3)                                                                                            \
    if (rows > 4 * G) {                                                                                                          \
        SS_I4_DECL(G);                                                                                                           \
        const svfloat32x4_t s_ = svcvt_f32_s32_x4(                                                                               \
            svcreate4_s32(SS_ISUM(svget4_s32(i_, 0), svget4_s32(j_, 0)), SS_ISUM(svget4_s32(i_, 1), svget4_s32(j_, 1)),          \
                          SS_ISUM(svget4_s32(i_, 2), svget4_s32(j_, 2)), SS_ISUM(svget4_s32(i_, 3), svget4_s32(j_, 3))));        \
        const svfloat32x4_t c_ = svread_hor_za32_f32_vg4(2, 4 * G);                                                              \
        A0 = svmla_f32_x(pw, A0, svget4_f32(s_, 0), svget4_f32(c_, 0));                                                          \
        A1 = svmla_f32_x(pw, A1, svget4_f32(s_, 1), svget4_f32(c_, 1));                                                          \
        A2 = svmla_f32_x(pw, A2, svget4_f32(s_, 2), svget4_f32(c_, 2));                                                          \
        A3 = svmla_f32_x(pw, A3, svget4_f32(s_, 3), svget4_f32(c_, 3));                                                          \
        SS_FP_MIN_ROW4(G, A0, A1, A2, A3);                                                                                       \
    }
#define SS_STORE_ROW(I)                                                                                                          \
    if (rows > I)                                                                                                                \
    svst1_f32(pst, (float *)((char *)y0 + (size_t)I * ys), acc##I)

/* GEMM with SMOPA: activations in the SME layout (16-row groups). For each
 * sub-tile of tw = min(SVL/32, 16) activation rows x tw panel rows, per
 * block:
 *   ZA0.S = 8 SMOPA (4-way int8 outer products) = the exact block sums;
 *   ZA2.S = 0 + x_d (outer) w_d by one FMOPA = fl(x_d * w_d) per output (the
 *           fused add of +0 changes nothing: a -0 product becomes +0, and an
 *           accumulator never is -0, so fma(isum, +-0, acc) agree);
 *   then per row: acc_i = fma(scvtf(ZA0 slice i), ZA2 slice i, acc_i), the
 *   accumulators held in 16 Z registers (rows past tw are never touched).
 * The formats with a min term also fill ZA1.S = sum qx (outer) -m_j (fp32
 * integers: exact; Q4_1 / Q5_1: times 1; Q2_K: sum_a qx (outer) -m_a plus
 * sum_b qx (outer) -m_b, per-16 sums) and ZA3.S = fl(x_d * dmin) (or m) by
 * more FMOPA, then acc_i = fma(ZA1 slice i, ZA3 slice i, acc_i) after the
 * first step: their activations carry the block sums
 * (qmm_svesme_act_pack_sums, _sums2). Q6_K and Q3_K sum elements 16..31
 * into ZA1.S. */
static void svesme_mopa_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) __arm_streaming
    __arm_inout("za") {
    const int64_t nb = k / QMM_QK;
    const int64_t lanes = (int64_t)svcntw(), tw = lanes < QMM_SVESME_NP ? lanes : QMM_SVESME_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, tw), pb = svwhilelt_b8_s64(0, 4 * tw), pt8 = svptrue_b8();
    const svfloat32_t zf = svdup_n_f32(0.0f);
    (void)pt8;
    SS_TABLE_DECL;
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SVESME_MP) {
        const uint8_t *ag = (const uint8_t *)a + qmm_svesme_act_offset_any(QMM_SVESME_ACT_SUMS, m0, k);
        for (int64_t n0 = 0; n0 < n; n0 += QMM_SVESME_NP) {
            const uint8_t *wp = (const uint8_t *)w + (size_t)(n0 / QMM_SVESME_NP) * QMM_SVESME_PANEL(nb);
            for (int64_t r0 = 0; r0 < QMM_SVESME_MP && m0 + r0 < m; r0 += tw) {
                const int64_t rows = m - m0 - r0 < tw ? m - m0 - r0 : tw;
                for (int64_t c0 = 0; c0 < QMM_SVESME_NP && n0 + c0 < n; c0 += tw) {
                    const int64_t cols = n - n0 - c0 < tw ? n - n0 - c0 : tw;
                    svfloat32_t acc0 = zf, acc1 = zf, acc2 = zf, acc3 = zf, acc4 = zf, acc5 = zf, acc6 = zf, acc7 = zf;
                    svfloat32_t acc8 = zf, acc9 = zf, acc10 = zf, acc11 = zf, acc12 = zf, acc13 = zf, acc14 = zf, acc15 = zf;
                    for (int64_t b = 0; b < nb; b++) {
                        const uint8_t *ab = ag + (size_t)b * QMM_SVESME_ACT_BLK(QMM_SVESME_ACT_SUMS);
                        const uint8_t *blk = SS_BLK(wp, b);
                        const int8_t *xq = (const int8_t *)ab + QMM_SVESME_MP * 4 + 4 * r0;
                        svzero_mask_za(SS_ZA_MASK);
                        const svfloat32_t xd = svld1_f32(pw, (const float *)ab + r0);
                        svmopa_za32_f32_m(2, pw, pw, xd, svesme_wscale(pw, SS_DPTR(wp, b), c0));
                        SS_LS_DECL(wp, b, c0);
#if QMM_SVESME_MIN /* ZA1.S = the exact imin (SS_MIN_MOPA); ZA3.S = fl(x_d * dmin) */
                        SS_MIN_MOPA((const float *)(ab + QMM_SVESME_ACT_QBYTES) + r0);
                        svmopa_za32_f32_m(3, pw, pw, xd, wm);
#endif
                        SS_LOAD_W(blk, c0);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq), w0);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + QMM_SVESME_MP * 4), w1);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 2 * QMM_SVESME_MP * 4), w2);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 3 * QMM_SVESME_MP * 4), w3);
                        svmopa_za32_s8_m(SS_TILE_B, pb, pb, svld1_s8(pb, xq + 4 * QMM_SVESME_MP * 4), w4);
                        svmopa_za32_s8_m(SS_TILE_B, pb, pb, svld1_s8(pb, xq + 5 * QMM_SVESME_MP * 4), w5);
                        svmopa_za32_s8_m(SS_TILE_B, pb, pb, svld1_s8(pb, xq + 6 * QMM_SVESME_MP * 4), w6);
                        svmopa_za32_s8_m(SS_TILE_B, pb, pb, svld1_s8(pb, xq + 7 * QMM_SVESME_MP * 4), w7);
#if QMM_SVESME_SME2
                        SS_FP_ROW4(0, acc0, acc1, acc2, acc3)
                        SS_FP_ROW4(1, acc4, acc5, acc6, acc7)
                        SS_FP_ROW4(2, acc8, acc9, acc10, acc11)
                        SS_FP_ROW4(3, acc12, acc13, acc14, acc15)
#else
                        SS_FP_ROW(0);
                        SS_FP_ROW(1);
                        SS_FP_ROW(2);
                        SS_FP_ROW(3);
                        SS_FP_ROW(4);
                        SS_FP_ROW(5);
                        SS_FP_ROW(6);
                        SS_FP_ROW(7);
                        SS_FP_ROW(8);
                        SS_FP_ROW(9);
                        SS_FP_ROW(10);
                        SS_FP_ROW(11);
                        SS_FP_ROW(12);
                        SS_FP_ROW(13);
                        SS_FP_ROW(14);
                        SS_FP_ROW(15);
#endif
                    }
                    const svbool_t pst = svwhilelt_b32_s64(0, cols);
                    float *y0 = (float *)((char *)y + (size_t)(m0 + r0) * ys) + n0 + c0;
                    SS_STORE_ROW(0);
                    SS_STORE_ROW(1);
                    SS_STORE_ROW(2);
                    SS_STORE_ROW(3);
                    SS_STORE_ROW(4);
                    SS_STORE_ROW(5);
                    SS_STORE_ROW(6);
                    SS_STORE_ROW(7);
                    SS_STORE_ROW(8);
                    SS_STORE_ROW(9);
                    SS_STORE_ROW(10);
                    SS_STORE_ROW(11);
                    SS_STORE_ROW(12);
                    SS_STORE_ROW(13);
                    SS_STORE_ROW(14);
                    SS_STORE_ROW(15);
                }
            }
        }
    }
}

/* The entry points: ZA is live only inside the GEMM; both run streaming. */
__arm_locally_streaming __arm_new("za") static void sme_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                             float *y, size_t ys) {
    svesme_mopa_gemm(m, n, k, a, w, y, ys);
}

__arm_locally_streaming static void sme_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    svesme_dot_gemm(1, n, k, a, w, y, 0);
}

#define QMM_SVESME_MR    QMM_SVESME_MP
#define QMM_SVESME_FLAGS QMM_FAMILY_CAPPED
#if QMM_SVESME_ACT_SUMS == 2
#define QMM_SVESME_ACT                                                                                                           \
    { QMM_SVESME_MP, qmm_svesme_act_size_sums2, qmm_svesme_act_offset_sums2, qmm_svesme_act_pack_sums2 }
#elif QMM_SVESME_MIN
#define QMM_SVESME_ACT                                                                                                           \
    { QMM_SVESME_MP, qmm_svesme_act_size_sums, qmm_svesme_act_offset_sums, qmm_svesme_act_pack_sums }
#else
#define QMM_SVESME_ACT                                                                                                           \
    { QMM_SVESME_MP, qmm_svesme_act_size, qmm_svesme_act_offset, qmm_svesme_act_pack }
#endif
#define QMM_SVESME_ACT_GEMV                                                                                                      \
    { 1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack }
#define QMM_SVESME_GEMM sme_gemm
#define QMM_SVESME_GEMV sme_gemv
#else
#define QMM_SVESME_MR    4
#define QMM_SVESME_FLAGS 0
#define QMM_SVESME_ACT                                                                                                           \
    { 1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack }
#define QMM_SVESME_ACT_GEMV                                                                                                      \
    { 0, NULL, NULL, NULL }
#define QMM_SVESME_GEMM svesme_dot_gemm
#define QMM_SVESME_GEMV NULL
#endif

/* The panel functions of the weight format (sve_sme_layout.h). */
static size_t svesme_w_size(int64_t k, int64_t n) { return qmm_svesme_w_size(QMM_SVESME_KIND, k, n); }
static size_t svesme_w_offset(int64_t n_idx, int64_t k) { return qmm_svesme_w_offset(QMM_SVESME_KIND, n_idx, k); }
static void svesme_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_svesme_w_pack(QMM_SVESME_KIND, k, n, n0, n1, src, stride, dst);
}
static void svesme_w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    qmm_svesme_w_read_row(QMM_SVESME_KIND, packed, k, n, row, dst);
}
static void svesme_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_svesme_w_unpack_row(QMM_SVESME_KIND, packed, k, n, row, dst);
}

#define QMM_SVESME_FAMILY(id, wtype_, required_, fallback_hides_)                                                                \
    const qmm_family qmm_family_##id = {                                                                                         \
        .name = #id,                                                                                                             \
        .wtype = wtype_,                                                                                                         \
        .required = required_,                                                                                                   \
        .fallback_hides = fallback_hides_,                                                                                       \
        .flags = QMM_SVESME_FLAGS,                                                                                               \
        .layout_id = 1,                                                                                                          \
        .mr = QMM_SVESME_MR,                                                                                                     \
        .nr = QMM_SVESME_NP,                                                                                                     \
        .kr = 4,                                                                                                                 \
        .sr = 1,                                                                                                                 \
        .n_step = QMM_SVESME_NP,                                                                                                 \
        .w_packed_size = svesme_w_size,                                                                                          \
        .w_packed_offset = svesme_w_offset,                                                                                      \
        .w_pack = svesme_w_pack,                                                                                                 \
        .w_read_row = svesme_w_read_row,                                                                                         \
        .w_unpack_row = svesme_w_unpack_row,                                                                                     \
        .act = QMM_SVESME_ACT,                                                                                                   \
        .act_gemv = QMM_SVESME_ACT_GEMV,                                                                                         \
        .gemm = QMM_SVESME_GEMM,                                                                                                 \
        .gemv = QMM_SVESME_GEMV,                                                                                                 \
    };
