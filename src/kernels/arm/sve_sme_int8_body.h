/* Kernel bodies shared by the SVE and SME int8 families: always-inline
 * functions taking the weight kind (QMM_SVESME_KIND_*, the panels of
 * sve_sme_layout.h) as a compile-time constant first argument; each family
 * file (matmul_<type>_sve_dotprod.c, _sme.c, _sme2.c) writes out its entry
 * points with its kind and its descriptor (QMM_SVESME_DOT_FAMILY,
 * QMM_SME_MOPA_FAMILY). The file's target decides the rest: built with SME
 * (+sme), every function here runs in streaming mode (SVE instructions only
 * ever run there, so a CPU with SME but no SVE is fine) and the SMOPA GEMM
 * is defined; with SME2 (+sme2) its float step moves 4 ZA slices per MOVA
 * and converts 4 vectors per SCVTF (same numerics).
 *
 * Numerics (src/kernels/family.h): each block's int32 sum is exact (SDOT / SMOPA 4-way
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
#ifndef QMM_SVE_SME_INT8_BODY_H
#define QMM_SVE_SME_INT8_BODY_H

#include <stdint.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/arm/sve_sme_layout.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"

#if defined(__ARM_FEATURE_SME)
#include <arm_sme.h>
#define QMM_SVESME_FN __arm_streaming
#else
#include <arm_sve.h>
#define QMM_SVESME_FN
#endif

#define QMM_SVESME_INLINE static inline __attribute__((always_inline))

/* Where 32-block b of a panel at wp starts (past its super-block's head),
 * where its scales d are (a super-block's), and the bytes of a panel of nb
 * blocks. */
QMM_SVESME_INLINE const uint8_t *svesme_blk(int kind, const uint8_t *wp, int64_t b) QMM_SVESME_FN {
    if (qmm_svesme_unit_k(kind) == QMM_QK)
        return wp + (size_t)b * qmm_svesme_unit_bytes(kind);
    return wp + (size_t)(b >> 3) * qmm_svesme_unit_bytes(kind) + qmm_svesme_head_bytes(kind) +
           (size_t)(b & 7) * qmm_svesme_blk_bytes(kind);
}
QMM_SVESME_INLINE const uint8_t *svesme_dptr(int kind, const uint8_t *wp, int64_t b) QMM_SVESME_FN {
    if (qmm_svesme_unit_k(kind) == QMM_QK)
        return wp + (size_t)b * qmm_svesme_unit_bytes(kind);
    return wp + (size_t)(b >> 3) * qmm_svesme_unit_bytes(kind);
}
QMM_SVESME_INLINE size_t svesme_panel_bytes(int kind, int64_t nb) QMM_SVESME_FN {
    if (qmm_svesme_unit_k(kind) == QMM_QK)
        return (size_t)nb * qmm_svesme_unit_bytes(kind);
    return (size_t)nb / 8 * qmm_svesme_unit_bytes(kind);
}

/* The 4 int8 activations q[0..3] in every 32-bit lane (LD1RW). */
QMM_SVESME_INLINE svint8_t svesme_bcast4(const int8_t *q) QMM_SVESME_FN {
    int32_t v;
    __builtin_memcpy(&v, q, 4);
    return svreinterpret_s8_s32(svdup_n_s32(v));
}

/* The 16 panel scales from lane c0 on, exactly as fp32: the fp16 d widened,
 * or MXFP4's 2^(e - 128) built from its E8M0 byte (QMM_SVE_E8M0_HALF). */
QMM_SVESME_INLINE svfloat32_t svesme_wscale(int kind, svbool_t pw, const uint8_t *blk, int64_t c0) QMM_SVESME_FN {
    if (kind == QMM_SVESME_KIND_MXFP4) {
        const svuint32_t e = svld1ub_u32(pw, blk + c0);
        return QMM_SVE_E8M0_HALF(pw, e);
    }
    return svcvt_f32_f16_x(pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)blk + c0)));
}

/* The table kinds' 16 levels in the low bytes of a vector (TBL's table;
 * indices are nibbles, so the lanes past 16 are never read); 0 for the
 * other kinds (unused). */
QMM_SVESME_INLINE svint8_t svesme_table(int kind) QMM_SVESME_FN {
    if (!qmm_svesme_is_table(kind))
        return svdup_n_s8(0);
    return svld1_s8(svwhilelt_b8_s32(0, 16), kind == QMM_SVESME_KIND_MXFP4 ? qmm_kvalues_mxfp4 : qmm_kvalues_iq4nl);
}

/* A block's per-row factors of panel rows c0.. (lanes pw), as the kind has
 * them (the others stay 0, unused):
 *   lsa: IQ4_XS's sub-scale, Q4_K's / Q5_K's sc_j (times the block sum);
 *        with lsb, Q6_K's and Q3_K's sc_a and sc_b (Q3_K's 6 bits from the
 *        block's low nibbles and the super-block's high-bit words);
 *   nma: Q4_K's / Q5_K's -m_j; with nmb, Q2_K's -m_a and -m_b;
 *   wm:  the min term's scale: dmin, or Q4_1's / Q5_1's m;
 *   sca, scb: Q2_K's scale bytes sc | m << 4 of elements 0..15 and 16..31
 *        (in the type they are loaded in: a reinterpreted one would keep
 *        them in memory). */
QMM_SVESME_INLINE void svesme_factors(int kind, svbool_t pw, const uint8_t *wp, int64_t b, int64_t c0, svint32_t *lsa,
                                      svint32_t *lsb, svint32_t *nma, svint32_t *nmb, svfloat32_t *wm, svuint32_t *sca,
                                      svuint32_t *scb) QMM_SVESME_FN {
    const uint8_t *blk = svesme_blk(kind, wp, b), *dptr = svesme_dptr(kind, wp, b);
    *lsa = *lsb = *nma = *nmb = svdup_n_s32(0);
    *wm = svdup_n_f32(0.0f);
    *sca = *scb = svdup_n_u32(0);
    if (qmm_svesme_has_min(kind)) /* dmin, or m, after the d */
        *wm = svcvt_f32_f16_x(pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)(dptr + QMM_SVESME_SCALES) + c0)));
    if (kind == QMM_SVESME_KIND_IQ4_XS) {
        *lsa = svld1sb_s32(pw, (const int8_t *)blk + c0);
    } else if (qmm_svesme_is_kmin(kind)) {
        *lsa = svreinterpret_s32_u32(svld1ub_u32(pw, blk + c0));
        *nma = svneg_s32_x(pw, svreinterpret_s32_u32(svld1ub_u32(pw, blk + c0 + QMM_SVESME_NP)));
    } else if (kind == QMM_SVESME_KIND_Q6_K) {
        *lsa = svld1sb_s32(pw, (const int8_t *)blk + c0);
        *lsb = svld1sb_s32(pw, (const int8_t *)blk + c0 + QMM_SVESME_NP);
    } else if (kind == QMM_SVESME_KIND_Q3_K) {
        const svuint32_t lo = svld1ub_u32(pw, blk + c0);
        const svuint32_t hs = svlsr_n_u32_x(pw, svld1_u32(pw, (const uint32_t *)(dptr + QMM_SVESME_SCALES) + c0), 4 * (b & 7));
        *lsa = QMM_SVE_Q3_SC(pw, lo, hs, 0);
        *lsb = QMM_SVE_Q3_SC(pw, lo, hs, 1);
    } else if (kind == QMM_SVESME_KIND_Q2_K) {
        const svuint32_t xa = svld1ub_u32(pw, blk + c0), xb = svld1ub_u32(pw, blk + QMM_SVESME_NP + c0);
        *sca = xa;
        *scb = xb;
        *nma = svneg_s32_x(pw, svreinterpret_s32_u32(svlsr_n_u32_x(pw, xa, 4)));
        *nmb = svneg_s32_x(pw, svreinterpret_s32_u32(svlsr_n_u32_x(pw, xb, 4)));
    }
}

/* The block's isum from the sums of k 0..15 (s) and then of 16..31 (t):
 * Q6_K's and Q3_K's two chains each times its sub-scale, else one chain
 * (the sum in t), IQ4_XS's and Q4_K's / Q5_K's times the sub-scale. */
QMM_SVESME_INLINE svint32_t svesme_isum(int kind, svbool_t pw, svint32_t s, svint32_t t, svint32_t lsa,
                                        svint32_t lsb) QMM_SVESME_FN {
    if (qmm_svesme_is_split(kind))
        return svmla_s32_x(pw, svmul_s32_x(pw, s, lsa), t, lsb);
    if (kind == QMM_SVESME_KIND_IQ4_XS || qmm_svesme_is_kmin(kind))
        return svmul_s32_x(pw, t, lsa);
    return t;
}

/* Q5_K, Q5_1, Q5_0: nibble u with bit 4 of vector i from the hi word h
 * (QMM_SVE_Q5_HI), q 0..31 as int8 (Q5_0: q - 16, signed). */
QMM_SVESME_INLINE svint8_t svesme_q5(int kind, svbool_t pt8, svuint8_t u, svuint32_t h, int i) QMM_SVESME_FN {
    svuint8_t q = svorr_u8_x(pt8, u, QMM_SVE_Q5_HI(pt8, h, i));
    if (kind == QMM_SVESME_KIND_Q5_0)
        q = svsub_n_u8_x(pt8, q, 16);
    return svreinterpret_s8_u8(q);
}
/* The 4-bit kinds' weights of a nibble vector u: the table kinds' levels,
 * Q4_K's and Q4_1's unsigned q 0..15 (u already shifted or masked). */
QMM_SVESME_INLINE svint8_t svesme_nib(int kind, svint8_t tab, svuint8_t u) QMM_SVESME_FN {
    if (qmm_svesme_is_table(kind))
        return svtbl_s8(tab, u);
    return svreinterpret_s8_u8(u);
}
/* Q3_K: the signed q from the 2-bit fields and the bit-2 word
 * (QMM_SVE_Q3_W); Q2_K: the unsigned q times the sub-scale of its half
 * (sc_a: vectors 0..3). */
QMM_SVESME_INLINE svint8_t svesme_two_w(int kind, svbool_t pt8, svuint8_t l, int s, svuint8_t hb, int i, svuint8_t sca8,
                                        svuint8_t scb8) QMM_SVESME_FN {
    if (kind == QMM_SVESME_KIND_Q3_K)
        return QMM_SVE_Q3_W(pt8, l, s, hb, i);
    return svreinterpret_s8_u8(svmul_u8_x(pt8, QMM_SVE_PAIR(pt8, l, s), i < 4 ? sca8 : scb8));
}

/* The 8 signed weight vectors w[0..7] (k groups 0..7 of a block) of panel
 * rows c0.. (lanes of 4 bytes); tab: the table kinds' levels, sca and scb
 * Q2_K's scale bytes (svesme_factors). */
QMM_SVESME_INLINE void svesme_load_w(int kind, svbool_t pb, const uint8_t *blk, int64_t c0, svint8_t tab, svbool_t pw,
                                     svuint32_t sca, svuint32_t scb, svint8_t *w0, svint8_t *w1, svint8_t *w2, svint8_t *w3,
                                     svint8_t *w4, svint8_t *w5, svint8_t *w6, svint8_t *w7) QMM_SVESME_FN {
    const svbool_t pt8 = svptrue_b8();
    const uint8_t *wq = blk + qmm_svesme_qoff(kind) + 4 * c0;
    if (qmm_svesme_has_five(kind)) {
        const svuint8_t v0 = svld1_u8(pb, wq), v1 = svld1_u8(pb, wq + QMM_SVESME_GROUP);
        const svuint8_t v2 = svld1_u8(pb, wq + 2 * QMM_SVESME_GROUP), v3 = svld1_u8(pb, wq + 3 * QMM_SVESME_GROUP);
        const svuint32_t h5 = svreinterpret_u32_u8(svld1_u8(pb, wq + 4 * QMM_SVESME_GROUP));
        *w0 = svesme_q5(kind, pt8, svand_n_u8_x(pt8, v0, 0x0f), h5, 0);
        *w1 = svesme_q5(kind, pt8, svand_n_u8_x(pt8, v1, 0x0f), h5, 1);
        *w2 = svesme_q5(kind, pt8, svand_n_u8_x(pt8, v2, 0x0f), h5, 2);
        *w3 = svesme_q5(kind, pt8, svand_n_u8_x(pt8, v3, 0x0f), h5, 3);
        *w4 = svesme_q5(kind, pt8, svlsr_n_u8_x(pt8, v0, 4), h5, 4);
        *w5 = svesme_q5(kind, pt8, svlsr_n_u8_x(pt8, v1, 4), h5, 5);
        *w6 = svesme_q5(kind, pt8, svlsr_n_u8_x(pt8, v2, 4), h5, 6);
        *w7 = svesme_q5(kind, pt8, svlsr_n_u8_x(pt8, v3, 4), h5, 7);
    } else if (qmm_svesme_is_table(kind) || (qmm_svesme_has_min(kind) && !qmm_svesme_is_two(kind))) {
        const svuint8_t v0 = svld1_u8(pb, wq), v1 = svld1_u8(pb, wq + QMM_SVESME_GROUP);
        const svuint8_t v2 = svld1_u8(pb, wq + 2 * QMM_SVESME_GROUP), v3 = svld1_u8(pb, wq + 3 * QMM_SVESME_GROUP);
        *w0 = svesme_nib(kind, tab, svand_n_u8_x(pt8, v0, 0x0f));
        *w1 = svesme_nib(kind, tab, svand_n_u8_x(pt8, v1, 0x0f));
        *w2 = svesme_nib(kind, tab, svand_n_u8_x(pt8, v2, 0x0f));
        *w3 = svesme_nib(kind, tab, svand_n_u8_x(pt8, v3, 0x0f));
        *w4 = svesme_nib(kind, tab, svlsr_n_u8_x(pt8, v0, 4));
        *w5 = svesme_nib(kind, tab, svlsr_n_u8_x(pt8, v1, 4));
        *w6 = svesme_nib(kind, tab, svlsr_n_u8_x(pt8, v2, 4));
        *w7 = svesme_nib(kind, tab, svlsr_n_u8_x(pt8, v3, 4));
    } else if (kind == QMM_SVESME_KIND_Q6_K) { /* the signed q of each weight vector (QMM_SVE_Q6_W) */
        const svuint8_t v0 = svld1_u8(pb, wq), v1 = svld1_u8(pb, wq + QMM_SVESME_GROUP);
        const svuint8_t v2 = svld1_u8(pb, wq + 2 * QMM_SVESME_GROUP), v3 = svld1_u8(pb, wq + 3 * QMM_SVESME_GROUP);
        const svuint32_t ha = svreinterpret_u32_u8(svld1_u8(pb, wq + 4 * QMM_SVESME_GROUP));
        const svuint32_t hb = svreinterpret_u32_u8(svld1_u8(pb, wq + 5 * QMM_SVESME_GROUP));
        *w0 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v0, 0x0f), ha, 0);
        *w1 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v1, 0x0f), ha, 1);
        *w2 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v2, 0x0f), ha, 2);
        *w3 = QMM_SVE_Q6_W(pt8, svand_n_u8_x(pt8, v3, 0x0f), ha, 3);
        *w4 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v0, 4), hb, 0);
        *w5 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v1, 4), hb, 1);
        *w6 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v2, 4), hb, 2);
        *w7 = QMM_SVE_Q6_W(pt8, svlsr_n_u8_x(pt8, v3, 4), hb, 3);
    } else if (qmm_svesme_is_two(kind)) {
        const svuint8_t l0 = svld1_u8(pb, wq), l1 = svld1_u8(pb, wq + QMM_SVESME_GROUP);
        const svuint8_t hb = kind == QMM_SVESME_KIND_Q3_K ? svld1_u8(pb, wq + 2 * QMM_SVESME_GROUP) : svdup_n_u8(0);
        const svuint8_t sca8 = QMM_SVE_SC_BYTES32(pw, sca), scb8 = QMM_SVE_SC_BYTES32(pw, scb);
        *w0 = svesme_two_w(kind, pt8, l0, 0, hb, 0, sca8, scb8);
        *w1 = svesme_two_w(kind, pt8, l0, 1, hb, 1, sca8, scb8);
        *w2 = svesme_two_w(kind, pt8, l0, 2, hb, 2, sca8, scb8);
        *w3 = svesme_two_w(kind, pt8, l0, 3, hb, 3, sca8, scb8);
        *w4 = svesme_two_w(kind, pt8, l1, 0, hb, 4, sca8, scb8);
        *w5 = svesme_two_w(kind, pt8, l1, 1, hb, 5, sca8, scb8);
        *w6 = svesme_two_w(kind, pt8, l1, 2, hb, 6, sca8, scb8);
        *w7 = svesme_two_w(kind, pt8, l1, 3, hb, 7, sca8, scb8);
    } else if (kind == QMM_SVESME_KIND_Q4_0) { /* nibbles s of q ^ 8: two shifts give the signed q - 8 */
        const int8_t *sq = (const int8_t *)wq;
        const svint8_t v0 = svld1_s8(pb, sq), v1 = svld1_s8(pb, sq + QMM_SVESME_GROUP);
        const svint8_t v2 = svld1_s8(pb, sq + 2 * QMM_SVESME_GROUP), v3 = svld1_s8(pb, sq + 3 * QMM_SVESME_GROUP);
        *w0 = svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v0, 4), 4);
        *w1 = svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v1, 4), 4);
        *w2 = svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v2, 4), 4);
        *w3 = svasr_n_s8_x(pt8, svlsl_n_s8_x(pt8, v3, 4), 4);
        *w4 = svasr_n_s8_x(pt8, v0, 4);
        *w5 = svasr_n_s8_x(pt8, v1, 4);
        *w6 = svasr_n_s8_x(pt8, v2, 4);
        *w7 = svasr_n_s8_x(pt8, v3, 4);
    } else { /* Q8_0 */
        const int8_t *sq = (const int8_t *)wq;
        *w0 = svld1_s8(pb, sq);
        *w1 = svld1_s8(pb, sq + QMM_SVESME_GROUP);
        *w2 = svld1_s8(pb, sq + 2 * QMM_SVESME_GROUP);
        *w3 = svld1_s8(pb, sq + 3 * QMM_SVESME_GROUP);
        *w4 = svld1_s8(pb, sq + 4 * QMM_SVESME_GROUP);
        *w5 = svld1_s8(pb, sq + 5 * QMM_SVESME_GROUP);
        *w6 = svld1_s8(pb, sq + 6 * QMM_SVESME_GROUP);
        *w7 = svld1_s8(pb, sq + 7 * QMM_SVESME_GROUP);
    }
}

/* The min term's exact integer of an activation block xb: Q2_K's -(m_a
 * sum_a + m_b sum_b), sum_a of elements 0..15 (SADDV); Q4_K's / Q5_K's -m_j
 * sum; Q4_1's / Q5_1's the block's sum. */
QMM_SVESME_INLINE svint32_t svesme_imin(int kind, svbool_t pw, const qmm_act_block *xb, svint32_t nma,
                                        svint32_t nmb) QMM_SVESME_FN {
    if (kind == QMM_SVESME_KIND_Q2_K) {
        const svbool_t p16 = svwhilelt_b8_s32(0, 16);
        const int32_t sa = (int32_t)svaddv_s8(p16, svld1_s8(p16, xb->q));
        return svmla_n_s32_x(pw, svmul_n_s32_x(pw, nma, sa), nmb, xb->sum - sa);
    }
    if (qmm_svesme_is_kmin(kind))
        return svmul_n_s32_x(pw, nma, xb->sum);
    return svdup_n_s32(xb->sum);
}

/* One activation row's block xb against the loaded weights: the exact
 * block sum per lane, then the per-block float step into acc, then the min
 * term: its exact integer times fl(dmin * x_d). */
QMM_SVESME_INLINE svfloat32_t svesme_row_step(int kind, svbool_t pw, svint8_t w0, svint8_t w1, svint8_t w2, svint8_t w3,
                                              svint8_t w4, svint8_t w5, svint8_t w6, svint8_t w7, svint32_t lsa, svint32_t lsb,
                                              svint32_t nma, svint32_t nmb, svfloat32_t wd, svfloat32_t wm,
                                              const qmm_act_block *xb, svfloat32_t acc) QMM_SVESME_FN {
    svint32_t s = svdot_s32(svdup_n_s32(0), w0, svesme_bcast4(xb->q));
    s = svdot_s32(s, w1, svesme_bcast4(xb->q + 4));
    s = svdot_s32(s, w2, svesme_bcast4(xb->q + 8));
    s = svdot_s32(s, w3, svesme_bcast4(xb->q + 12));
    svint32_t t = s;
    if (qmm_svesme_is_split(kind))
        t = svdup_n_s32(0);
    t = svdot_s32(t, w4, svesme_bcast4(xb->q + 16));
    t = svdot_s32(t, w5, svesme_bcast4(xb->q + 20));
    t = svdot_s32(t, w6, svesme_bcast4(xb->q + 24));
    t = svdot_s32(t, w7, svesme_bcast4(xb->q + 28));
    acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, svesme_isum(kind, pw, s, t, lsa, lsb)), svmul_n_f32_x(pw, wd, xb->d));
    if (qmm_svesme_has_min(kind))
        acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, svesme_imin(kind, pw, xb, nma, nmb)), svmul_n_f32_x(pw, wm, xb->d));
    return acc;
}

/* MR (1 or 4, a constant after inlining) activation rows x[0..MR) in the
 * reference layout against panel rows c0.. (lanes pw), all blocks; stores
 * the first `rows` rows, lanes pst. A 4-row call with fewer rows repeats
 * the last row (rows >= 1) and does not store the copies. */
QMM_SVESME_INLINE void svesme_dot_rows(int kind, const int MR, int64_t rows, int64_t nb, const qmm_act_block *x0,
                                       const uint8_t *wp, int64_t c0, svbool_t pw, svbool_t pb, svbool_t pst, float *y,
                                       size_t ys) QMM_SVESME_FN {
    const svint8_t tab = svesme_table(kind);
    const qmm_act_block *x1 = x0 + (rows > 1 ? nb : 0);
    const qmm_act_block *x2 = x0 + (rows > 2 ? 2 * nb : 0);
    const qmm_act_block *x3 = x0 + (rows > 3 ? 3 * nb : 0);
    svfloat32_t acc0 = svdup_n_f32(0.0f), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (int64_t b = 0; b < nb; b++) {
        const svfloat32_t wd = svesme_wscale(kind, pw, svesme_dptr(kind, wp, b), c0);
        svint32_t lsa, lsb, nma, nmb;
        svfloat32_t wm;
        svuint32_t sca, scb;
        svesme_factors(kind, pw, wp, b, c0, &lsa, &lsb, &nma, &nmb, &wm, &sca, &scb);
        svint8_t w0, w1, w2, w3, w4, w5, w6, w7;
        svesme_load_w(kind, pb, svesme_blk(kind, wp, b), c0, tab, pw, sca, scb, &w0, &w1, &w2, &w3, &w4, &w5, &w6, &w7);
        acc0 = svesme_row_step(kind, pw, w0, w1, w2, w3, w4, w5, w6, w7, lsa, lsb, nma, nmb, wd, wm, x0 + b, acc0);
        if (MR > 1) {
            acc1 = svesme_row_step(kind, pw, w0, w1, w2, w3, w4, w5, w6, w7, lsa, lsb, nma, nmb, wd, wm, x1 + b, acc1);
            acc2 = svesme_row_step(kind, pw, w0, w1, w2, w3, w4, w5, w6, w7, lsa, lsb, nma, nmb, wd, wm, x2 + b, acc2);
            acc3 = svesme_row_step(kind, pw, w0, w1, w2, w3, w4, w5, w6, w7, lsa, lsb, nma, nmb, wd, wm, x3 + b, acc3);
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
QMM_SVESME_INLINE void svesme_dot_gemm(int kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                       size_t ys) QMM_SVESME_FN {
    const int64_t nb = k / QMM_QK;
    const int64_t lanes = (int64_t)svcntw(), cw = lanes < QMM_SVESME_NP ? lanes : QMM_SVESME_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, cw), pb = svwhilelt_b8_s64(0, 4 * cw);
    const qmm_act_block *act = (const qmm_act_block *)a;
    for (int64_t n0 = 0; n0 < n; n0 += QMM_SVESME_NP) {
        const uint8_t *wp = (const uint8_t *)w + (size_t)(n0 / QMM_SVESME_NP) * svesme_panel_bytes(kind, nb);
        for (int64_t c0 = 0; c0 < QMM_SVESME_NP && n0 + c0 < n; c0 += cw) {
            const int64_t cols = n - n0 - c0 < cw ? n - n0 - c0 : cw;
            const svbool_t pst = svwhilelt_b32_s64(0, cols);
            int64_t i = 0;
            for (; i + 4 <= m; i += 4)
                svesme_dot_rows(kind, 4, 4, nb, act + i * nb, wp, c0, pw, pb, pst,
                                (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
            if (m - i > 1)
                svesme_dot_rows(kind, 4, m - i, nb, act + i * nb, wp, c0, pw, pb, pst,
                                (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
            else if (m - i == 1)
                svesme_dot_rows(kind, 1, 1, nb, act + i * nb, wp, c0, pw, pb, pst,
                                (float *)((char *)y + (size_t)i * ys) + n0 + c0, ys);
        }
    }
}

/* The descriptor of an SVE SDOT family: the GEMM on reference-layout
 * activations (4 rows at a time); fallback_hides: masked off for capped
 * (hybrid) runs, whose fallback is then a NEON family. */
#define QMM_SVESME_DOT_FAMILY(name_, wtype_, w_size_, w_offset_, w_pack_, w_unpack_row_, gemm_)                                  \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_, .required = QMM_CPU_SVE, .fallback_hides = QMM_CPU_SVE, .flags = 0, .layout_id = 1,      \
        .mr = 4, .nr = QMM_SVESME_NP, .kr = 4, .sr = 1, .n_step = QMM_SVESME_NP, .w_packed_size = w_size_,                       \
        .w_packed_offset = w_offset_, .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                                          \
        .act = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack}, .act_gemv = {0, NULL, NULL, NULL},          \
        .gemm = gemm_, .gemv = NULL,                                                                                             \
    }

#if defined(__ARM_FEATURE_SME)
/* One row i of a sub-tile: its block sums (ZA0.S slice i; Q6_K's and
 * Q3_K's second sums in ZA1.S), converted, times its scales (ZA2.S slice
 * i), fused into the row's accumulator; then the min term: its exact
 * integer (ZA1.S) times fl(dmin * x_d) (ZA3.S). */
QMM_SVESME_INLINE svfloat32_t sme_fp_row(int kind, svbool_t pw, uint32_t i, svint32_t lsa, svint32_t lsb,
                                         svfloat32_t acc) __arm_streaming __arm_in("za") {
    svint32_t isum;
    if (qmm_svesme_is_split(kind)) {
        const svint32_t s = svread_hor_za32_s32_m(svundef_s32(), pw, 0, i);
        isum = svesme_isum(kind, pw, s, svread_hor_za32_s32_m(svundef_s32(), pw, 1, i), lsa, lsb);
    } else { /* one chain: svesme_isum reads t only */
        const svint32_t t = svread_hor_za32_s32_m(svundef_s32(), pw, 0, i);
        isum = svesme_isum(kind, pw, t, t, lsa, lsb);
    }
    acc = svmla_f32_x(pw, acc, svcvt_f32_s32_x(pw, isum), svread_hor_za32_f32_m(svundef_f32(), pw, 2, i));
    if (qmm_svesme_has_min(kind))
        acc =
            svmla_f32_x(pw, acc, svread_hor_za32_f32_m(svundef_f32(), pw, 1, i), svread_hor_za32_f32_m(svundef_f32(), pw, 3, i));
    return acc;
}

#if defined(__ARM_FEATURE_SME2)
/* SME2: rows 4g..4g+3 at once (4-slice MOVA, 4-vector SCVTF); a group is
 * entered when its first row exists, the rows past `rows` are never stored. */
QMM_SVESME_INLINE void sme2_fp_row4(int kind, svbool_t pw, uint32_t g, svint32_t lsa, svint32_t lsb, svfloat32_t *a0,
                                    svfloat32_t *a1, svfloat32_t *a2, svfloat32_t *a3) __arm_streaming __arm_in("za") {
    svint32x4_t i4, j4; /* the sums of k 0..15 (Q6_K, Q3_K) and of the block or 16..31 */
    if (qmm_svesme_is_split(kind)) {
        i4 = svread_hor_za32_s32_vg4(0, 4 * g);
        j4 = svread_hor_za32_s32_vg4(1, 4 * g);
    } else {
        j4 = svread_hor_za32_s32_vg4(0, 4 * g);
        i4 = j4; /* svesme_isum reads t only */
    }
    const svfloat32x4_t s =
        svcvt_f32_s32_x4(svcreate4_s32(svesme_isum(kind, pw, svget4_s32(i4, 0), svget4_s32(j4, 0), lsa, lsb),
                                       svesme_isum(kind, pw, svget4_s32(i4, 1), svget4_s32(j4, 1), lsa, lsb),
                                       svesme_isum(kind, pw, svget4_s32(i4, 2), svget4_s32(j4, 2), lsa, lsb),
                                       svesme_isum(kind, pw, svget4_s32(i4, 3), svget4_s32(j4, 3), lsa, lsb)));
    const svfloat32x4_t c = svread_hor_za32_f32_vg4(2, 4 * g);
    *a0 = svmla_f32_x(pw, *a0, svget4_f32(s, 0), svget4_f32(c, 0));
    *a1 = svmla_f32_x(pw, *a1, svget4_f32(s, 1), svget4_f32(c, 1));
    *a2 = svmla_f32_x(pw, *a2, svget4_f32(s, 2), svget4_f32(c, 2));
    *a3 = svmla_f32_x(pw, *a3, svget4_f32(s, 3), svget4_f32(c, 3));
    if (qmm_svesme_has_min(kind)) {
        const svfloat32x4_t t = svread_hor_za32_f32_vg4(1, 4 * g), u = svread_hor_za32_f32_vg4(3, 4 * g);
        *a0 = svmla_f32_x(pw, *a0, svget4_f32(t, 0), svget4_f32(u, 0));
        *a1 = svmla_f32_x(pw, *a1, svget4_f32(t, 1), svget4_f32(u, 1));
        *a2 = svmla_f32_x(pw, *a2, svget4_f32(t, 2), svget4_f32(u, 2));
        *a3 = svmla_f32_x(pw, *a3, svget4_f32(t, 3), svget4_f32(u, 3));
    }
}
#endif

/* ZA0.S (sums), with a min term ZA1.S (min terms) and ZA3.S, with two sums
 * ZA1.S (second sums); ZA2.S (scales) always. */
QMM_SVESME_INLINE void sme_zero_tiles(int kind) __arm_streaming __arm_inout("za") {
    if (qmm_svesme_has_min(kind))
        svzero_mask_za(0xff);
    else if (qmm_svesme_is_split(kind))
        svzero_mask_za(0x33 | 0x44);
    else
        svzero_mask_za(0x11 | 0x44);
}

/* ZA1.S = the rows' activation sums at xs (outer) the min factors: -m_j,
 * 1 (Q4_1, Q5_1), or Q2_K's two (sums of 0..15 by -m_a, then of 16..31,
 * 64 bytes on, by -m_b): integers below 2^24, exact in fp32. */
QMM_SVESME_INLINE void sme_min_mopa(int kind, svbool_t pw, const float *xs, svint32_t nma, svint32_t nmb) __arm_streaming
    __arm_inout("za") {
    if (kind == QMM_SVESME_KIND_Q2_K) {
        svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs), svcvt_f32_s32_x(pw, nma));
        svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs + QMM_SVESME_MP), svcvt_f32_s32_x(pw, nmb));
    } else if (qmm_svesme_is_kmin(kind)) {
        svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs), svcvt_f32_s32_x(pw, nma));
    } else {
        svmopa_za32_f32_m(1, pw, pw, svld1_f32(pw, xs), svdup_n_f32(1.0f));
    }
}

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
QMM_SVESME_INLINE void sme_mopa_gemm(int kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                     size_t ys) __arm_streaming __arm_inout("za") {
    const int64_t nb = k / QMM_QK;
    const int64_t lanes = (int64_t)svcntw(), tw = lanes < QMM_SVESME_NP ? lanes : QMM_SVESME_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, tw), pb = svwhilelt_b8_s64(0, 4 * tw);
    const svfloat32_t zf = svdup_n_f32(0.0f);
    const svint8_t tab = svesme_table(kind);
    const int sums = qmm_svesme_act_sums(kind);
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SVESME_MP) {
        const uint8_t *ag = (const uint8_t *)a + qmm_svesme_act_offset_any(sums, m0, k);
        for (int64_t n0 = 0; n0 < n; n0 += QMM_SVESME_NP) {
            const uint8_t *wp = (const uint8_t *)w + (size_t)(n0 / QMM_SVESME_NP) * svesme_panel_bytes(kind, nb);
            for (int64_t r0 = 0; r0 < QMM_SVESME_MP && m0 + r0 < m; r0 += tw) {
                const int64_t rows = m - m0 - r0 < tw ? m - m0 - r0 : tw;
                for (int64_t c0 = 0; c0 < QMM_SVESME_NP && n0 + c0 < n; c0 += tw) {
                    const int64_t cols = n - n0 - c0 < tw ? n - n0 - c0 : tw;
                    svfloat32_t acc0 = zf, acc1 = zf, acc2 = zf, acc3 = zf, acc4 = zf, acc5 = zf, acc6 = zf, acc7 = zf;
                    svfloat32_t acc8 = zf, acc9 = zf, acc10 = zf, acc11 = zf, acc12 = zf, acc13 = zf, acc14 = zf, acc15 = zf;
                    for (int64_t b = 0; b < nb; b++) {
                        const uint8_t *ab = ag + (size_t)b * QMM_SVESME_ACT_BLK(sums);
                        const int8_t *xq = (const int8_t *)ab + QMM_SVESME_MP * 4 + 4 * r0;
                        sme_zero_tiles(kind);
                        const svfloat32_t xd = svld1_f32(pw, (const float *)ab + r0);
                        svmopa_za32_f32_m(2, pw, pw, xd, svesme_wscale(kind, pw, svesme_dptr(kind, wp, b), c0));
                        svint32_t lsa, lsb, nma, nmb;
                        svfloat32_t wm;
                        svuint32_t sca, scb;
                        svesme_factors(kind, pw, wp, b, c0, &lsa, &lsb, &nma, &nmb, &wm, &sca, &scb);
                        if (qmm_svesme_has_min(kind)) { /* ZA1.S = the exact imin; ZA3.S = fl(x_d * dmin) */
                            sme_min_mopa(kind, pw, (const float *)(ab + QMM_SVESME_ACT_QBYTES) + r0, nma, nmb);
                            svmopa_za32_f32_m(3, pw, pw, xd, wm);
                        }
                        svint8_t w0, w1, w2, w3, w4, w5, w6, w7;
                        svesme_load_w(kind, pb, svesme_blk(kind, wp, b), c0, tab, pw, sca, scb, &w0, &w1, &w2, &w3, &w4, &w5, &w6,
                                      &w7);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq), w0);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + QMM_SVESME_MP * 4), w1);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 2 * QMM_SVESME_MP * 4), w2);
                        svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 3 * QMM_SVESME_MP * 4), w3);
                        if (qmm_svesme_is_split(kind)) { /* ZA1.S holds the second sums */
                            svmopa_za32_s8_m(1, pb, pb, svld1_s8(pb, xq + 4 * QMM_SVESME_MP * 4), w4);
                            svmopa_za32_s8_m(1, pb, pb, svld1_s8(pb, xq + 5 * QMM_SVESME_MP * 4), w5);
                            svmopa_za32_s8_m(1, pb, pb, svld1_s8(pb, xq + 6 * QMM_SVESME_MP * 4), w6);
                            svmopa_za32_s8_m(1, pb, pb, svld1_s8(pb, xq + 7 * QMM_SVESME_MP * 4), w7);
                        } else {
                            svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 4 * QMM_SVESME_MP * 4), w4);
                            svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 5 * QMM_SVESME_MP * 4), w5);
                            svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 6 * QMM_SVESME_MP * 4), w6);
                            svmopa_za32_s8_m(0, pb, pb, svld1_s8(pb, xq + 7 * QMM_SVESME_MP * 4), w7);
                        }
#if defined(__ARM_FEATURE_SME2)
                        if (rows > 0)
                            sme2_fp_row4(kind, pw, 0, lsa, lsb, &acc0, &acc1, &acc2, &acc3);
                        if (rows > 4)
                            sme2_fp_row4(kind, pw, 1, lsa, lsb, &acc4, &acc5, &acc6, &acc7);
                        if (rows > 8)
                            sme2_fp_row4(kind, pw, 2, lsa, lsb, &acc8, &acc9, &acc10, &acc11);
                        if (rows > 12)
                            sme2_fp_row4(kind, pw, 3, lsa, lsb, &acc12, &acc13, &acc14, &acc15);
#else
                        if (rows > 0)
                            acc0 = sme_fp_row(kind, pw, 0, lsa, lsb, acc0);
                        if (rows > 1)
                            acc1 = sme_fp_row(kind, pw, 1, lsa, lsb, acc1);
                        if (rows > 2)
                            acc2 = sme_fp_row(kind, pw, 2, lsa, lsb, acc2);
                        if (rows > 3)
                            acc3 = sme_fp_row(kind, pw, 3, lsa, lsb, acc3);
                        if (rows > 4)
                            acc4 = sme_fp_row(kind, pw, 4, lsa, lsb, acc4);
                        if (rows > 5)
                            acc5 = sme_fp_row(kind, pw, 5, lsa, lsb, acc5);
                        if (rows > 6)
                            acc6 = sme_fp_row(kind, pw, 6, lsa, lsb, acc6);
                        if (rows > 7)
                            acc7 = sme_fp_row(kind, pw, 7, lsa, lsb, acc7);
                        if (rows > 8)
                            acc8 = sme_fp_row(kind, pw, 8, lsa, lsb, acc8);
                        if (rows > 9)
                            acc9 = sme_fp_row(kind, pw, 9, lsa, lsb, acc9);
                        if (rows > 10)
                            acc10 = sme_fp_row(kind, pw, 10, lsa, lsb, acc10);
                        if (rows > 11)
                            acc11 = sme_fp_row(kind, pw, 11, lsa, lsb, acc11);
                        if (rows > 12)
                            acc12 = sme_fp_row(kind, pw, 12, lsa, lsb, acc12);
                        if (rows > 13)
                            acc13 = sme_fp_row(kind, pw, 13, lsa, lsb, acc13);
                        if (rows > 14)
                            acc14 = sme_fp_row(kind, pw, 14, lsa, lsb, acc14);
                        if (rows > 15)
                            acc15 = sme_fp_row(kind, pw, 15, lsa, lsb, acc15);
#endif
                    }
                    const svbool_t pst = svwhilelt_b32_s64(0, cols);
                    float *y0 = (float *)((char *)y + (size_t)(m0 + r0) * ys) + n0 + c0;
                    svst1_f32(pst, y0, acc0);
                    if (rows > 1)
                        svst1_f32(pst, (float *)((char *)y0 + 1 * ys), acc1);
                    if (rows > 2)
                        svst1_f32(pst, (float *)((char *)y0 + 2 * ys), acc2);
                    if (rows > 3)
                        svst1_f32(pst, (float *)((char *)y0 + 3 * ys), acc3);
                    if (rows > 4)
                        svst1_f32(pst, (float *)((char *)y0 + 4 * ys), acc4);
                    if (rows > 5)
                        svst1_f32(pst, (float *)((char *)y0 + 5 * ys), acc5);
                    if (rows > 6)
                        svst1_f32(pst, (float *)((char *)y0 + 6 * ys), acc6);
                    if (rows > 7)
                        svst1_f32(pst, (float *)((char *)y0 + 7 * ys), acc7);
                    if (rows > 8)
                        svst1_f32(pst, (float *)((char *)y0 + 8 * ys), acc8);
                    if (rows > 9)
                        svst1_f32(pst, (float *)((char *)y0 + 9 * ys), acc9);
                    if (rows > 10)
                        svst1_f32(pst, (float *)((char *)y0 + 10 * ys), acc10);
                    if (rows > 11)
                        svst1_f32(pst, (float *)((char *)y0 + 11 * ys), acc11);
                    if (rows > 12)
                        svst1_f32(pst, (float *)((char *)y0 + 12 * ys), acc12);
                    if (rows > 13)
                        svst1_f32(pst, (float *)((char *)y0 + 13 * ys), acc13);
                    if (rows > 14)
                        svst1_f32(pst, (float *)((char *)y0 + 14 * ys), acc14);
                    if (rows > 15)
                        svst1_f32(pst, (float *)((char *)y0 + 15 * ys), acc15);
                }
            }
        }
    }
}

/* The descriptor of an SME (or SME2) family: the SMOPA GEMM on the SME
 * activation layout of its kind (act_*: qmm_svesme_act_size, _sums or
 * _sums2 as qmm_svesme_act_sums), and the streaming SDOT GEMV on
 * reference-layout activations, capped. */
#define QMM_SME_MOPA_FAMILY(name_, wtype_, required_, act_size_, act_offset_, act_pack_, w_size_, w_offset_, w_pack_,            \
                            w_unpack_row_, gemm_, gemv_)                                                                         \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_, .required = required_, .fallback_hides = QMM_CPU_SME | QMM_CPU_SME2,                     \
        .flags = QMM_FAMILY_CAPPED, .layout_id = 1, .mr = QMM_SVESME_MP, .nr = QMM_SVESME_NP, .kr = 4, .sr = 1,                  \
        .n_step = QMM_SVESME_NP, .w_packed_size = w_size_, .w_packed_offset = w_offset_, .w_pack = w_pack_,                      \
        .w_unpack_row = w_unpack_row_, .act = {QMM_SVESME_MP, act_size_, act_offset_, act_pack_},                                \
        .act_gemv = {1, qmm_ref_act_q8_size, qmm_ref_act_q8_offset, qmm_ref_act_q8_pack}, .gemm = gemm_, .gemv = gemv_,          \
    }
#endif

#endif
