/* Q5_0 / Q4_1 / Q5_1 x int8 activations, 256-bit integer dot products: the
 * format code shared by their AVX2 families (matmul_q5_0_avx2.c ...) and
 * AVX-VNNI families (matmul_q5_0_avxvnni.c ...), on the AVX2 int8 driver
 * (avx2_int8_body.h), every function taking the weight kind (QMM_TYPE_Q4_1,
 * QMM_TYPE_Q5_0 or QMM_TYPE_Q5_1) as a constant.
 *
 * Packed panel of 8 weight rows, per 32-block b at b * block bytes:
 *   [8 fp16 d, row j at 2 j]                           16 B
 *   [8 fp16 m, row j at 2 j]           (Q4_1, Q5_1)    16 B
 *   [8 x 4 B qh, row j at 4 j: GGUF's bit plane]       (Q5_*) 32 B
 *   [128 B quants: byte c * 32 + j * 4 + t holds element 4c+t (low nibble)
 *    and 16+4c+t (high nibble) of row j]
 * exactly the GGUF bytes (160 / 176 / 192 B per 8 rows). The fifth bit is
 * expanded in the kernel: chunk c needs bits 4c..4c+3 and 16+4c..16+4c+3 of
 * each row's qh as bit 4 of the bytes t = 0..3 of that row's dword. The dot
 * is over the unsigned q (0..15 or 0..31); the float step, the reference's
 * exactly: Q5_0 isum = sum q x - 16 sum x (exact int32),
 * acc = fma((float)isum, d * x_d, acc); Q4_1 / Q5_1 isum = sum q x, then
 * acc = fma((float)sum x, m * x_d, acc). */
#ifndef QMM_X86_AVX2_LEGACY_BODY_H
#define QMM_X86_AVX2_LEGACY_BODY_H

#include <stddef.h>

#include "kernels/x86/avx2_int8_types.h"

QMM_AVX2_INLINE int qmm_avx2_legacy_kind(qmm_type kind) {
    return kind == QMM_TYPE_Q4_1 || kind == QMM_TYPE_Q5_0 || kind == QMM_TYPE_Q5_1;
}

/* value d * q + m (Q4_1, Q5_1), else (q - 16) * d */
QMM_AVX2_INLINE int qmm_avx2_legacy_has_min(qmm_type kind) { return kind != QMM_TYPE_Q5_0; }
/* a fifth bit per element (Q5_*) */
QMM_AVX2_INLINE int qmm_avx2_legacy_has_qh(qmm_type kind) { return kind != QMM_TYPE_Q4_1; }
QMM_AVX2_INLINE int qmm_avx2_legacy_offset(qmm_type kind) { return kind == QMM_TYPE_Q5_0 ? 16 : 0; }

/* A panel block's parts: d at 0, m at 16, then qh, then the quants. */
#define QMM_AVX2_LEGACY_M_OFF 16
QMM_AVX2_INLINE int qmm_avx2_legacy_qh_off(qmm_type kind) { return 16 + 16 * qmm_avx2_legacy_has_min(kind); }
QMM_AVX2_INLINE int qmm_avx2_legacy_qs_off(qmm_type kind) {
    return qmm_avx2_legacy_qh_off(kind) + 32 * qmm_avx2_legacy_has_qh(kind);
}
QMM_AVX2_INLINE int qmm_avx2_legacy_block_bytes(qmm_type kind) { return qmm_avx2_legacy_qs_off(kind) + 128; }

/* The GGUF block: its size and where its qh and qs are (d and m: 0, 2). */
QMM_AVX2_INLINE size_t qmm_avx2_legacy_src_bytes(qmm_type kind) {
    return kind == QMM_TYPE_Q4_1   ? sizeof(qmm_block_q4_1)
           : kind == QMM_TYPE_Q5_0 ? sizeof(qmm_block_q5_0)
                                   : sizeof(qmm_block_q5_1);
}
QMM_AVX2_INLINE size_t qmm_avx2_legacy_src_qh(qmm_type kind) {
    return kind == QMM_TYPE_Q5_0 ? offsetof(qmm_block_q5_0, qh) : offsetof(qmm_block_q5_1, qh);
}
QMM_AVX2_INLINE size_t qmm_avx2_legacy_src_qs(qmm_type kind) {
    return kind == QMM_TYPE_Q4_1   ? offsetof(qmm_block_q4_1, qs)
           : kind == QMM_TYPE_Q5_0 ? offsetof(qmm_block_q5_0, qs)
                                   : offsetof(qmm_block_q5_1, qs);
}

QMM_AVX2_INLINE size_t qmm_avx2_legacy_panel_bytes(qmm_type kind, int64_t nb) {
    return (size_t)nb * (size_t)qmm_avx2_legacy_block_bytes(kind);
}

QMM_AVX2_INLINE size_t qmm_avx2_legacy_quants(qmm_type kind, int64_t b) {
    return (size_t)b * (size_t)qmm_avx2_legacy_block_bytes(kind) + (size_t)qmm_avx2_legacy_qs_off(kind);
}

QMM_AVX2_INLINE void qmm_avx2_legacy_unpack(qmm_type kind, qmm_avx2_wv *wv, const uint8_t *panel, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const uint8_t *blk = panel + (size_t)b * (size_t)qmm_avx2_legacy_block_bytes(kind);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(blk + qmm_avx2_legacy_qs_off(kind) + c * 32));
    wv->v[0] = _mm256_and_si256(raw, m4);
    wv->v[1] = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
    if (qmm_avx2_legacy_has_qh(kind)) {
        /* bits 4c.. of each row's qh to bit 0.. of its dword, then byte 0 (low
         * elements) or byte 2 (high elements) to all four bytes, bit t of byte t */
        const __m256i qh =
            _mm256_srl_epi32(_mm256_loadu_si256((const __m256i *)(blk + qmm_avx2_legacy_qh_off(kind))), _mm_cvtsi32_si128(4 * c));
        const __m256i to_lo = _mm256_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8,
                                               8, 8, 12, 12, 12, 12);
        const __m256i to_hi = _mm256_add_epi8(to_lo, _mm256_set1_epi8(2));
        const __m256i sel = _mm256_set1_epi32(0x08040201), b4 = _mm256_set1_epi8(0x10);
        const __m256i bl = _mm256_shuffle_epi8(qh, to_lo), bh = _mm256_shuffle_epi8(qh, to_hi);
        wv->v[0] = _mm256_or_si256(wv->v[0], _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(bl, sel), sel), b4));
        wv->v[1] = _mm256_or_si256(wv->v[1], _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(bh, sel), sel), b4));
    }
}

QMM_AVX2_INLINE void qmm_avx2_legacy_scales(qmm_type kind, qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    const uint8_t *blk = panel + (size_t)b * (size_t)qmm_avx2_legacy_block_bytes(kind);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
    if (qmm_avx2_legacy_has_min(kind))
        ws->m = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(blk + QMM_AVX2_LEGACY_M_OFF)));
    else
        ws->m = _mm256_setzero_ps();
}

QMM_AVX2_INLINE __m256 qmm_avx2_legacy_float(qmm_type kind, __m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws,
                                             const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    /* sum (q - off) x = sum q x - off sum x, exact in int32 */
    const __m256i isum = _mm256_sub_epi32(dot_finish(is->a), _mm256_set1_epi32(qmm_avx2_legacy_offset(kind) * xb->sum));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    if (qmm_avx2_legacy_has_min(kind))
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_set1_epi32(xb->sum)), _mm256_mul_ps(ws->m, xd), acc);
    return acc;
}

static inline void qmm_avx2_legacy_w_pack(qmm_type kind, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride,
                                          void *dst) {
    const int64_t nb = k / QMM_QK;
    const int bb = qmm_avx2_legacy_block_bytes(kind), qh_off = qmm_avx2_legacy_qh_off(kind),
              qs_off = qmm_avx2_legacy_qs_off(kind);
    const size_t src_bytes = qmm_avx2_legacy_src_bytes(kind);
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * qmm_avx2_legacy_panel_bytes(kind, nb);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const uint8_t *wrow = (const uint8_t *)src + (size_t)row * stride;
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * (size_t)bb;
                const uint8_t *wb = wrow + (size_t)b * src_bytes;
                if (row >= n1) { /* padding rows: zero scales, zero quants */
                    memset(blk + 2 * j, 0, 2);
                    if (qmm_avx2_legacy_has_min(kind))
                        memset(blk + QMM_AVX2_LEGACY_M_OFF + 2 * j, 0, 2);
                    if (qmm_avx2_legacy_has_qh(kind))
                        memset(blk + qh_off + 4 * j, 0, 4);
                    for (int c = 0; c < 4; c++)
                        memset(blk + qs_off + 32 * c + 4 * j, 0, 4);
                    continue;
                }
                memcpy(blk + 2 * j, wb, 2);
                if (qmm_avx2_legacy_has_min(kind))
                    memcpy(blk + QMM_AVX2_LEGACY_M_OFF + 2 * j, wb + 2, 2);
                if (qmm_avx2_legacy_has_qh(kind))
                    memcpy(blk + qh_off + 4 * j, wb + qmm_avx2_legacy_src_qh(kind), 4);
                for (int c = 0; c < 4; c++)
                    memcpy(blk + qs_off + 32 * c + 4 * j, wb + qmm_avx2_legacy_src_qs(kind) + 4 * c, 4);
            }
        }
    }
}

/* The GGUF blocks qmm_avx2_legacy_w_pack copied, copied back. */
static inline void qmm_avx2_legacy_w_unpack_row(qmm_type kind, const void *w, int64_t k, int64_t row, void *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)w + (size_t)(row / 8) * qmm_avx2_legacy_panel_bytes(kind, nb);
    const int j = (int)(row % 8);
    const size_t src_bytes = qmm_avx2_legacy_src_bytes(kind);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = panel + (size_t)b * (size_t)qmm_avx2_legacy_block_bytes(kind);
        uint8_t *wb = (uint8_t *)dst + (size_t)b * src_bytes;
        memcpy(wb, blk + 2 * j, 2);
        if (qmm_avx2_legacy_has_min(kind))
            memcpy(wb + 2, blk + QMM_AVX2_LEGACY_M_OFF + 2 * j, 2);
        if (qmm_avx2_legacy_has_qh(kind))
            memcpy(wb + qmm_avx2_legacy_src_qh(kind), blk + qmm_avx2_legacy_qh_off(kind) + 4 * j, 4);
        for (int c = 0; c < 4; c++)
            memcpy(wb + qmm_avx2_legacy_src_qs(kind) + 4 * c, blk + qmm_avx2_legacy_qs_off(kind) + 32 * c + 4 * j, 4);
    }
}

#endif
