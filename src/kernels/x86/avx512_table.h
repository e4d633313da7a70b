/* The AVX-512 VNNI family of IQ4_XS (per 256). A nibble indexes 16 int8
 * levels; one vpshufb per weight vector turns the nibbles into the level +
 * 128 as unsigned bytes (the table broadcast to every 128-bit lane), then
 * vpdpbusd runs from the activation's bias -128 * sum(q_x) exactly as Q8_0's
 * (avx512_int8.h), so the int32 sum is exactly sum kv[q] * q_x. The 32-block
 * table types IQ4_NL and MXFP4 run the same lookup on avx512_int8.h's
 * one-stream group panels (layout 2, matmul_{iq4_nl,mxfp4}_avx512vnni.c).
 *
 * Panel of 16 weight rows (n_step 16; a partial last panel padded with zero
 * rows), two streams, the second 64-byte aligned:
 *     header[k / 256][160]  per super-block, lane r: fp16 d at 2r, then int8
 *                           ls_j (-32..31) at 32 + 16j + r;
 *                           padded to 64 bytes at the end of the stream
 *     quants[k / 32][256]   per 32-block, vector v < 4, lane r (bytes 4r..):
 *                           the GGUF bytes qs[4v..4v+3] of the block (low
 *                           nibbles: elements 4v.., high: 16+4v..; Q4_0's form)
 * Packed size: 2208 B per 2176 of GGUF (+1.5%).
 *
 * Per output lane and 32-block, the reference's order (family.h):
 *   isum = ls_j * sum kv[q] q_x                  (exact int32)
 *   acc  = fma((float)isum, d * x_d, acc)
 * with d the fp16 d widened by vcvtph2ps.
 * Included by the translation units compiled with AVX-512 VNNI flags. */
#ifndef QMM_X86_AVX512_TABLE_H
#define QMM_X86_AVX512_TABLE_H

#include "kernels/x86/avx512_int8.h"

typedef enum { QMM_AVX512T_IQ4_XS } qmm_avx512t_kind; /* the one kind left on these panels */

#define QMM_AVX512T_UE(kind)  ((kind) == QMM_AVX512T_IQ4_XS ? QMM_QK_K : QMM_QK)
#define QMM_AVX512T_HDR(kind) ((kind) == QMM_AVX512T_IQ4_XS ? 160 : 0)

static inline size_t qmm_avx512t_hdr_bytes(int64_t k, qmm_avx512t_kind kind) {
    return ((size_t)(k / QMM_AVX512T_UE(kind)) * (size_t)QMM_AVX512T_HDR(kind) + 63) & ~(size_t)63;
}

static inline size_t qmm_avx512t_panel_bytes(int64_t k, qmm_avx512t_kind kind) {
    return qmm_avx512t_hdr_bytes(k, kind) + (size_t)(k / QMM_QK) * 256;
}

QMM_AVX512_INLINE void qmm_avx512t_tile(qmm_avx512t_kind kind, int MR, int G, int64_t nb, const uint8_t *act,
                                        const uint8_t *panel, size_t hdr_bytes, float *y, size_t ys, int ncols) {
    const int per = QMM_AVX512T_UE(kind) / QMM_QK, hdr = QMM_AVX512T_HDR(kind);
    const uint8_t *qw = panel + hdr_bytes;
    const size_t ablk = (size_t)G * QMM_AVX512_ACT_BLK;
    const __m512i table = qmm_avx512_table(qmm_kvalues_iq4nl);
    __m512 acc[QMM_AVX512_MR];
    for (int i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *ab = act + (size_t)b * ablk;
        const uint8_t *h = panel + (size_t)(b / per) * (size_t)hdr;
        const int j = (int)(b % per);
        const uint8_t *qb = qw + (size_t)b * 256;
        for (int l = 0; l < 256; l += 64)
            _mm_prefetch((const char *)(qb + 8 * 256 + l), _MM_HINT_T0);
        const __m512 s = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)h));
        const __m512i ls = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(h + 32 + 16 * j)));
        __m512i w[8];
        qmm_avx512_load_w(QMM_AVX512_W_IQ4_NL, qb, w, table);
        for (int i = 0; i < MR; i++) {
            const uint8_t *aq = ab + 8 * G + QMM_QK * i;
            __m512i s0 = qmm_avx512_block_dot(w, aq, _mm512_set1_epi32(qmm_avx512_ld32(ab + 4 * (G + i))));
            s0 = _mm512_mullo_epi32(ls, s0); /* |.| <= 32 * 516128 < 2^24 */
            float xd;
            memcpy(&xd, ab + 4 * i, 4);
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0), _mm512_mul_ps(s, _mm512_set1_ps(xd)), acc[i]);
        }
    }
    const __mmask16 mask = (__mmask16)((1u << ncols) - 1u);
    for (int i = 0; i < MR; i++)
        _mm512_mask_storeu_ps((float *)((char *)y + (size_t)i * ys), mask, acc[i]);
}

/* Packing: GGUF unit u of a row into lane r (header h of the unit, quants q of
 * its first 32-block), and lane r back as the unit's GGUF bytes (put's exact
 * inverse; GET_ROWS dequantizes them). Not on the hot path. */
static inline void qmm_avx512t_put(qmm_avx512t_kind kind, const void *row, int64_t u, int r, uint8_t *h, uint8_t *q) {
    (void)kind;
    const qmm_block_iq4_xs *blk = (const qmm_block_iq4_xs *)row + u;
    memcpy(h + 2 * r, &blk->d, 2);
    for (int j = 0; j < 8; j++)
        h[32 + 16 * j + r] = (uint8_t)(int8_t)qmm_iq4_xs_scale(blk, j);
    for (int j = 0; j < 8; j++)
        for (int v = 0; v < 4; v++)
            memcpy(q + 256 * j + 64 * v + 4 * r, blk->qs + 16 * j + 4 * v, 4);
}

static inline void qmm_avx512t_get(qmm_avx512t_kind kind, const uint8_t *h, const uint8_t *q, int r, void *dst) {
    (void)kind;
    qmm_block_iq4_xs blk;
    qmm_iq4_xs_header_put(&blk, h + 2 * r, h + 32 + r, 16);
    for (int j = 0; j < 8; j++)
        for (int v = 0; v < 4; v++)
            memcpy(blk.qs + 16 * j + 4 * v, q + 256 * j + 64 * v + 4 * r, 4);
    memcpy(dst, &blk, sizeof blk);
}

/* The panel walker: the GGUF bytes packed for row `row` (w_unpack_row). */
static inline void qmm_avx512t_w_unpack_row(qmm_avx512t_kind kind, qmm_type wtype, const void *packed, int64_t k, int64_t row,
                                            void *dst) {
    const uint8_t *panel = (const uint8_t *)packed + (size_t)(row / QMM_AVX512_NR) * qmm_avx512t_panel_bytes(k, kind);
    const size_t hb = qmm_avx512t_hdr_bytes(k, kind);
    for (int64_t u = 0; u < k / QMM_AVX512T_UE(kind); u++)
        qmm_avx512t_get(kind, panel + (size_t)u * QMM_AVX512T_HDR(kind),
                        panel + hb + (size_t)u * (QMM_AVX512T_UE(kind) / QMM_QK) * 256, (int)(row % QMM_AVX512_NR),
                        (uint8_t *)dst + (size_t)u * qmm_type_block_bytes(wtype));
}

/* The family's weight entry points (size, offsets, packing). */
static inline size_t qmm_avx512t_w_size(qmm_avx512t_kind kind, int64_t k, int64_t n) {
    return (size_t)((n + QMM_AVX512_NR - 1) / QMM_AVX512_NR) * qmm_avx512t_panel_bytes(k, kind);
}

static inline size_t qmm_avx512t_w_offset(qmm_avx512t_kind kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_AVX512_NR) * qmm_avx512t_panel_bytes(k, kind);
}

static inline void qmm_avx512t_w_pack(qmm_avx512t_kind kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                      size_t stride, void *dst) {
    const int ue = QMM_AVX512T_UE(kind), hdr = QMM_AVX512T_HDR(kind);
    const size_t pb = qmm_avx512t_panel_bytes(k, kind), hb = qmm_avx512t_hdr_bytes(k, kind);
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512_NR) {
        uint8_t *panel = (uint8_t *)dst + (size_t)(p0 / QMM_AVX512_NR) * pb;
        memset(panel, 0, pb); /* padding rows and the header tail */
        for (int r = 0; r < QMM_AVX512_NR && p0 + r < n; r++)
            for (int64_t u = 0; u < k / ue; u++)
                qmm_avx512t_put(kind, (const char *)src + (size_t)(p0 + r) * stride, u, r, panel + (size_t)u * hdr,
                                panel + hb + (size_t)u * (ue / QMM_QK) * 256);
    }
}

/* The family's gemv: one row against each panel. */
QMM_AVX512_INLINE void qmm_avx512t_gemv(qmm_avx512t_kind kind, int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const int64_t nb = k / QMM_QK;
    const size_t pb = qmm_avx512t_panel_bytes(k, kind), hb = qmm_avx512t_hdr_bytes(k, kind);
    for (int64_t n0 = 0; n0 < n; n0 += QMM_AVX512_NR) {
        const int nc = (int)(n - n0 < QMM_AVX512_NR ? n - n0 : QMM_AVX512_NR);
        qmm_avx512t_tile(kind, 1, 1, nb, (const uint8_t *)a, (const uint8_t *)w + (size_t)(n0 / QMM_AVX512_NR) * pb, hb, y + n0,
                         0, nc);
    }
}

#endif
