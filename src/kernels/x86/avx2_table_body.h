/* IQ4_NL, MXFP4, IQ4_XS x int8 activations, 256-bit integer dot products:
 * the format code shared by the AVX2 and AVX-VNNI families of the 4-bit
 * table types, on the AVX2 int8 driver (avx2_int8_body.h), every function
 * taking the kind (QMM_TYPE_IQ4_NL, QMM_TYPE_MXFP4 or QMM_TYPE_IQ4_XS) as a
 * constant.
 * A nibble indexes the type's 16 int8 levels: vpshufb of the masked nibbles
 * gives the levels. IQ4_NL / IQ4_XS: the dot then is Q8_0's
 * (avx2_q8_0_body.h): |w| (vpabsb) times x with w's sign (vpsignb), a pair at
 * most 2 * 127 * 127 = 32258. MXFP4's levels are small (|kv| <= 12), so the
 * table gives kv + 12 in 0..24, unsigned as vpmaddubsw wants: no vpabsb and
 * no vpsignb, and isum = sum (kv + 12) x - 12 sum x, the activation block's
 * sum (exact; on AVX2 four vpmaddubsw add in int16 before one vpmaddwd: 8
 * products a lane, at most 8 * 24 * 128 = 24576).
 *
 * Packed panel of 8 weight rows (n_step 8), nb = k / 32 blocks:
 *   [header per unit (UE = 32, IQ4_XS 256)]   IQ4_NL: fp16 d, row j at 2j
 *                                             (16 B); MXFP4: the E8M0 byte,
 *                                             row j at j (8 B); IQ4_XS: fp16
 *                                             d (16 B), then int8 ls of
 *                                             32-block s, row j, at 16 + 8s + j
 *   [nb x 128 B quants: block b at b * 128, byte c * 32 + j * 4 + t is the
 *                       GGUF byte qs[4c + t] of the block, row j (Q4_0's)]
 * IQ4_NL 144 B and MXFP4 136 B per block: the source's size; IQ4_XS 1104 B
 * per 1088 B super-block (+1.5%). Per 32-block and output lane, the
 * reference's steps: isum = [ls *] sum kv[q] q_x (exact int32), then
 * acc = fma((float)isum, s * x_d, acc), s the fp16 d (vcvtph2ps, exact) or
 * MXFP4's 2^(e - 128) as bits: max((e - 1) << 23, 0x200000 << min(e, 2)). */
#ifndef QMM_X86_AVX2_TABLE_BODY_H
#define QMM_X86_AVX2_TABLE_BODY_H

#include <stddef.h>

#include "kernels/x86/avx2_int8_types.h"

#define QMM_AVX2_TABLE_MX_BIAS 12 /* MXFP4: the table holds kv + 12 (0..24) */

QMM_AVX2_INLINE int qmm_avx2_table_kind(qmm_type kind) {
    return kind == QMM_TYPE_IQ4_NL || kind == QMM_TYPE_MXFP4 || kind == QMM_TYPE_IQ4_XS;
}

/* The unit of a header (IQ4_XS: the super-block), its header's bytes, and
 * a panel's header bytes. */
QMM_AVX2_INLINE int qmm_avx2_table_ue(qmm_type kind) { return kind == QMM_TYPE_IQ4_XS ? QMM_QK_K : QMM_QK; }
QMM_AVX2_INLINE int qmm_avx2_table_hdr(qmm_type kind) { return kind == QMM_TYPE_MXFP4 ? 8 : kind == QMM_TYPE_IQ4_XS ? 80 : 16; }
QMM_AVX2_INLINE size_t qmm_avx2_table_hdrs(qmm_type kind, int64_t nb) {
    return (size_t)nb / (size_t)(qmm_avx2_table_ue(kind) / QMM_QK) * (size_t)qmm_avx2_table_hdr(kind);
}

QMM_AVX2_INLINE size_t qmm_avx2_table_panel_bytes(qmm_type kind, int64_t nb) {
    return qmm_avx2_table_hdrs(kind, nb) + (size_t)nb * 128;
}

QMM_AVX2_INLINE size_t qmm_avx2_table_quants(qmm_type kind, int64_t nb, int64_t b) {
    return qmm_avx2_table_hdrs(kind, nb) + (size_t)b * 128;
}

/* The int8 levels (MXFP4: kv + 12) in both 128-bit lanes, from the one
 * table the reference uses, so the two cannot drift. */
QMM_AVX2_INLINE __m256i qmm_avx2_table_levels(qmm_type kind) {
    const int8_t *kv = kind == QMM_TYPE_MXFP4 ? qmm_kvalues_mxfp4 : qmm_kvalues_iq4nl;
    const __m256i t = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)kv));
    return kind == QMM_TYPE_MXFP4 ? _mm256_add_epi8(t, _mm256_set1_epi8(QMM_AVX2_TABLE_MX_BIAS)) : t;
}

/* IQ4_NL / IQ4_XS: chunk c's levels of the low and high nibbles (v[0],
 * v[1]) and their magnitudes (v[2], v[3]). MXFP4: step c covers the 32-byte
 * chunks 2c and 2c + 1 (elements 8c .. 8c + 7 and 16 + 8c .. 16 + 8c + 7 of
 * the block), four level vectors. */
QMM_AVX2_INLINE void qmm_avx2_table_unpack(qmm_type kind, qmm_avx2_wv *wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f), table = qmm_avx2_table_levels(kind);
    const uint8_t *q = panel + qmm_avx2_table_quants(kind, nb, b);
    if (kind == QMM_TYPE_MXFP4) {
        for (int h = 0; h < 2; h++) {
            const __m256i raw = _mm256_loadu_si256((const __m256i *)(const void *)(q + (2 * c + h) * 32));
            wv->v[2 * h] = _mm256_shuffle_epi8(table, _mm256_and_si256(raw, m4));
            wv->v[2 * h + 1] = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4));
        }
        return;
    }
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(const void *)(q + c * 32));
    wv->v[0] = _mm256_shuffle_epi8(table, _mm256_and_si256(raw, m4));
    wv->v[1] = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4));
    wv->v[2] = _mm256_abs_epi8(wv->v[0]);
    wv->v[3] = _mm256_abs_epi8(wv->v[1]);
}

/* MXFP4's activation chunk: the four dwords its step c takes. */
QMM_AVX2_INLINE void qmm_avx2_table_mx_xload(qmm_avx2_xv *xv, const qmm_act_block *xb, int c) {
    for (int h = 0; h < 2; h++) {
        xv->v[2 * h] = qmm_avx2_bcast4(xb->q + 4 * (2 * c + h));
        xv->v[2 * h + 1] = qmm_avx2_bcast4(xb->q + 16 + 4 * (2 * c + h));
    }
}

QMM_AVX2_INLINE void qmm_avx2_table_dot(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_iacc *is, const qmm_avx2_wv *wv,
                                        const qmm_avx2_xv *xv) {
    if (kind == QMM_TYPE_MXFP4 && isa == QMM_AVX2_ISA_AVX2) {
        /* four products pairs add in int16 (8 products a lane, at most
         * 8 * 24 * 128 = 24576, exact), then one vpmaddwd into int32 */
        const __m256i p01 = _mm256_add_epi16(_mm256_maddubs_epi16(wv->v[0], xv->v[0]), _mm256_maddubs_epi16(wv->v[1], xv->v[1]));
        const __m256i p23 = _mm256_add_epi16(_mm256_maddubs_epi16(wv->v[2], xv->v[2]), _mm256_maddubs_epi16(wv->v[3], xv->v[3]));
        is->a = _mm256_add_epi32(is->a, _mm256_madd_epi16(_mm256_add_epi16(p01, p23), _mm256_set1_epi16(1)));
    } else if (kind == QMM_TYPE_MXFP4) {
        for (int i = 0; i < 4; i++)
            is->a = dot_step(is->a, wv->v[i], xv->v[i]);
    } else {
        is->a = dot_step(is->a, wv->v[2], _mm256_sign_epi8(xv->v[0], wv->v[0]));
        is->a = dot_step(is->a, wv->v[3], _mm256_sign_epi8(xv->v[1], wv->v[1]));
    }
    /* keep the chain: gcc would reassociate the exact integer sums into a
     * tree and spill the products it holds */
    __asm__("" : "+x"(is->a));
}

/* The scale s (d) and IQ4_XS's sub-scales ls (sa). */
QMM_AVX2_INLINE void qmm_avx2_table_scales(qmm_type kind, qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    const uint8_t *h = panel + (size_t)(b / (qmm_avx2_table_ue(kind) / QMM_QK)) * (size_t)qmm_avx2_table_hdr(kind);
    if (kind == QMM_TYPE_MXFP4) {
        int64_t e8;
        memcpy(&e8, h, 8);
        const __m256i e = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(e8));
        const __m256i normal = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(1)), 23); /* e = 0: negative */
        const __m256i low = _mm256_sllv_epi32(_mm256_set1_epi32(0x00200000), _mm256_min_epu32(e, _mm256_set1_epi32(2)));
        ws->d = _mm256_castsi256_ps(_mm256_max_epi32(normal, low));
    } else {
        ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)h));
    }
    if (kind == QMM_TYPE_IQ4_XS) {
        int64_t l8;
        memcpy(&l8, h + 16 + 8 * (b % 8), 8);
        ws->sa = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(l8));
    } else {
        ws->sa = _mm256_setzero_si256();
    }
}

QMM_AVX2_INLINE __m256 qmm_avx2_table_float(qmm_type kind, __m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws,
                                            const qmm_act_block *xb) {
    __m256i isum = dot_finish(is->a);
    if (kind == QMM_TYPE_MXFP4) /* |sum x| <= 32 * 127: the bias's share is exact */
        isum = _mm256_sub_epi32(isum, _mm256_set1_epi32(QMM_AVX2_TABLE_MX_BIAS * xb->sum));
    if (kind == QMM_TYPE_IQ4_XS)
        isum = _mm256_mullo_epi32(ws->sa, isum); /* |.| <= 32 * 516128 < 2^24 */
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, _mm256_set1_ps(xb->d)), acc);
}

/* GGUF unit u of a row into row j of a panel (header h of the unit, quants q
 * of its first 32-block), and row j back as the unit's GGUF bytes (put's
 * exact inverse, at dst of any alignment; GET_ROWS dequantizes them). */
static inline void qmm_avx2_table_put(qmm_type kind, const void *row, int64_t u, int j, uint8_t *h, uint8_t *q) {
    const uint8_t *qs;
    int nblk = 1;
    if (kind == QMM_TYPE_IQ4_NL) {
        const qmm_block_iq4_nl *blk = (const qmm_block_iq4_nl *)row + u;
        memcpy(h + 2 * j, &blk->d, 2);
        qs = blk->qs;
    } else if (kind == QMM_TYPE_MXFP4) {
        const qmm_block_mxfp4 *blk = (const qmm_block_mxfp4 *)row + u;
        h[j] = blk->e;
        qs = blk->qs;
    } else {
        const qmm_block_iq4_xs *blk = (const qmm_block_iq4_xs *)row + u;
        memcpy(h + 2 * j, &blk->d, 2);
        for (int s = 0; s < 8; s++)
            h[16 + 8 * s + j] = (uint8_t)(int8_t)qmm_iq4_xs_scale(blk, s);
        qs = blk->qs;
        nblk = 8;
    }
    for (int s = 0; s < nblk; s++)
        for (int c = 0; c < 4; c++)
            memcpy(q + 128 * s + 32 * c + 4 * j, qs + 16 * s + 4 * c, 4);
}

static inline void qmm_avx2_table_get(qmm_type kind, const uint8_t *h, const uint8_t *q, int j, void *dst) {
    uint8_t *out = (uint8_t *)dst, *qs;
    int nblk = 1;
    if (kind == QMM_TYPE_IQ4_NL) {
        memcpy(out + offsetof(qmm_block_iq4_nl, d), h + 2 * j, 2);
        qs = out + offsetof(qmm_block_iq4_nl, qs);
    } else if (kind == QMM_TYPE_MXFP4) {
        out[offsetof(qmm_block_mxfp4, e)] = h[j];
        qs = out + offsetof(qmm_block_mxfp4, qs);
    } else {
        qmm_block_iq4_xs blk; /* the header's fields, rebuilt whole */
        qmm_iq4_xs_header_put(&blk, h + 2 * j, h + 16 + j, 8);
        memcpy(out, &blk, offsetof(qmm_block_iq4_xs, qs));
        qs = out + offsetof(qmm_block_iq4_xs, qs);
        nblk = 8;
    }
    for (int s = 0; s < nblk; s++)
        for (int c = 0; c < 4; c++)
            memcpy(qs + 16 * s + 4 * c, q + 128 * s + 32 * c + 4 * j, 4);
}

static inline void qmm_avx2_table_w_pack(qmm_type kind, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride,
                                         void *dst) {
    const int64_t nb = k / QMM_QK;
    const int ue = qmm_avx2_table_ue(kind), hdr = qmm_avx2_table_hdr(kind);
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * qmm_avx2_table_panel_bytes(kind, nb);
        memset(panel, 0, qmm_avx2_table_panel_bytes(kind, nb)); /* padding rows: zero scales and quants */
        for (int j = 0; j < 8 && p * 8 + j < n1; j++)
            for (int64_t u = 0; u < k / ue; u++)
                qmm_avx2_table_put(kind, (const char *)src + (size_t)(p * 8 + j) * stride, u, j, panel + (size_t)u * (size_t)hdr,
                                   panel + qmm_avx2_table_hdrs(kind, nb) + (size_t)u * (size_t)(ue / QMM_QK) * 128);
    }
}

static inline void qmm_avx2_table_w_unpack_row(qmm_type kind, const void *w, int64_t k, int64_t row, void *dst) {
    const int64_t nb = k / QMM_QK;
    const int ue = qmm_avx2_table_ue(kind), hdr = qmm_avx2_table_hdr(kind);
    const uint8_t *panel = (const uint8_t *)w + (size_t)(row / 8) * qmm_avx2_table_panel_bytes(kind, nb);
    for (int64_t u = 0; u < k / ue; u++)
        qmm_avx2_table_get(kind, panel + (size_t)u * (size_t)hdr,
                           panel + qmm_avx2_table_hdrs(kind, nb) + (size_t)u * (size_t)(ue / QMM_QK) * 128, (int)(row % 8),
                           (uint8_t *)dst + (size_t)u * qmm_type_block_bytes(kind));
}

#endif
