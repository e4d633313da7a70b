/* Q4_K and Q5_K x int8 activations, 256-bit integer dot products: the format
 * code shared by the AVX2 families (matmul_q4_k_avx2.c, matmul_q5_k_avx2.c)
 * and the AVX-VNNI families (matmul_q4_k_avxvnni.c, matmul_q5_k_avxvnni.c),
 * on the AVX2 int8 driver (avx2_int8_body.h), every function taking the kind
 * (QMM_TYPE_Q4_K, or QMM_TYPE_Q5_K: Q4_K plus a fifth bit per element) as a
 * constant. Q4_K's nibbles are 0..15, so AVX2 may sum its 8 vpmaddubsw pairs
 * in int16 (at most 8 * 2 * 15 * 127 = 30480); Q5_K's 5-bit pairs (up to
 * 7874) must be widened every step.
 *
 * Packed panel of 8 weight rows, per super-block of 256 (Q4_K 1184 B, GGUF
 * 1152 B: +2.8%; Q5_K 1440 B, GGUF 1408 B: +2.3%):
 *   [8 fp16 d][8 fp16 dmin]                       32 B, row j at 2 j
 *   [8 x 8 u8 sc: 32-block i, row j at 8 i + j]   64 B
 *   [8 x 8 u8 m ]                                 64 B
 *   [8 x QB: 32-block i at QB i: 128 B, byte c * 32 + j * 4 + t holds
 *    element 4c+t (low nibble) and 16+4c+t (high nibble) of row j; Q5_K: then
 *    32 B bit 4, byte j * 4 + t: bit c of element 4c+t, bit 4+c of 16+4c+t]
 * so a 32-block is Q4_0's chunk layout and its dot is Q4_0's. Float step,
 * the reference's exactly: isum = sc * dot (vpmulld, exact: |isum| < 2^24),
 * acc = fma((float)isum, d * x_d, acc), then imin = -(m * sum x) and
 * acc = fma((float)imin, dmin * x_d, acc). */
#ifndef QMM_X86_AVX2_Q4_K_BODY_H
#define QMM_X86_AVX2_Q4_K_BODY_H

#include "kernels/x86/avx2_int8_types.h"
#include "kernels/x86/avx2_pair16.h"

#define QMM_AVX2_Q4_K_QS_OFF 160

QMM_AVX2_INLINE int qmm_avx2_q4_k_kind(qmm_type kind) { return kind == QMM_TYPE_Q4_K || kind == QMM_TYPE_Q5_K; }

QMM_AVX2_INLINE int qmm_avx2_q4_k_has_qh(qmm_type kind) { return kind == QMM_TYPE_Q5_K; }

/* A 32-block's quant bytes in the panel, and a super-block's. */
QMM_AVX2_INLINE int qmm_avx2_q4_k_qb(qmm_type kind) { return qmm_avx2_q4_k_has_qh(kind) ? 160 : 128; }
QMM_AVX2_INLINE int qmm_avx2_q4_k_sb_bytes(qmm_type kind) { return QMM_AVX2_Q4_K_QS_OFF + 8 * qmm_avx2_q4_k_qb(kind); }

QMM_AVX2_INLINE size_t qmm_avx2_q4_k_panel_bytes(qmm_type kind, int64_t nb) {
    return (size_t)nb / 8 * (size_t)qmm_avx2_q4_k_sb_bytes(kind);
}

QMM_AVX2_INLINE size_t qmm_avx2_q4_k_quants(qmm_type kind, int64_t b) {
    return (size_t)b / 8 * (size_t)qmm_avx2_q4_k_sb_bytes(kind) + QMM_AVX2_Q4_K_QS_OFF +
           (size_t)(b % 8) * (size_t)qmm_avx2_q4_k_qb(kind);
}

/* The AVX2 expanded GEMM's scaled vpmaddwd (the 32-block scale as an int16
 * pair per lane is its multiplier, so no vpmulld for it): 1 (Q4_K) where
 * the int16 chain is widened, 2 (Q5_K) at every step, instead of ones; 0:
 * none (AVX-VNNI). The same integers (|sc| <= 63: a lane stays below 2^23). */
QMM_AVX2_INLINE int qmm_avx2_q4_k_x_mode(qmm_type kind, qmm_avx2_isa isa) {
    return isa != QMM_AVX2_ISA_AVX2 ? 0 : qmm_avx2_q4_k_has_qh(kind) ? 2 : 1;
}

QMM_AVX2_INLINE void qmm_avx2_q4_k_unpack(qmm_type kind, qmm_avx2_wv *wv, const uint8_t *panel, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const uint8_t *q = panel + qmm_avx2_q4_k_quants(kind, b);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(q + c * 32));
    wv->v[0] = _mm256_and_si256(raw, m4);
    wv->v[1] = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
    if (qmm_avx2_q4_k_has_qh(kind)) {
        /* bit c to bit 4 (low elements), bit 4+c to bit 4 (high ones); 16-bit
         * shifts: what crosses a byte lands outside the mask */
        const __m256i h = _mm256_loadu_si256((const __m256i *)(q + 128)), b4 = _mm256_set1_epi8(0x10);
        wv->v[0] = _mm256_or_si256(wv->v[0], _mm256_and_si256(_mm256_slli_epi16(h, 4 - c), b4));
        wv->v[1] = _mm256_or_si256(wv->v[1], _mm256_and_si256(_mm256_srli_epi16(h, c), b4));
    }
}

/* d, dmin (m), and the 32-block's sc (sa) and m (ma) as int32. */
QMM_AVX2_INLINE void qmm_avx2_q4_k_scales(qmm_type kind, qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    const uint8_t *sb = panel + (size_t)(b / 8) * (size_t)qmm_avx2_q4_k_sb_bytes(kind);
    const int i = (int)(b % 8);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    ws->m = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sb + 16)));
    ws->sa = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 8 * i)));
    ws->ma = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 96 + 8 * i)));
}

/* The float step from the integer dot (isum, scaled already) on. */
QMM_AVX2_INLINE __m256 qmm_avx2_q4_k_float_of(__m256 acc, __m256i isum, const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_mullo_epi32(ws->ma, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->m, xd), acc);
}

QMM_AVX2_INLINE __m256 qmm_avx2_q4_k_float(__m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    return qmm_avx2_q4_k_float_of(acc, _mm256_mullo_epi32(dot_finish(is->a), ws->sa), ws, xb);
}

/* The expanded GEMM's (qmm_avx2_q4_k_x_mode > 0): the scales and sc as an
 * int16 pair per lane (sa16). */
QMM_AVX2_INLINE void qmm_avx2_q4_k_scales_x(qmm_type kind, qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    qmm_avx2_q4_k_scales(kind, ws, panel, b);
    ws->sa16 = qmm_avx2_pair16(ws->sa);
}

/* Mode 2's dot step (mode 1's is the plain one). */
QMM_AVX2_INLINE void qmm_avx2_q4_k_dot_x(qmm_avx2_iacc *is, const qmm_avx2_wv *wv, const qmm_avx2_xv *xv, const qmm_avx2_ws *ws) {
    is->a = _mm256_add_epi32(is->a, _mm256_madd_epi16(_mm256_maddubs_epi16(wv->v[0], xv->v[0]), ws->sa16));
    is->a = _mm256_add_epi32(is->a, _mm256_madd_epi16(_mm256_maddubs_epi16(wv->v[1], xv->v[1]), ws->sa16));
    __asm__("" : "+x"(is->a));
}

QMM_AVX2_INLINE __m256 qmm_avx2_q4_k_float_x(qmm_type kind, qmm_avx2_isa isa, __m256 acc, const qmm_avx2_iacc *is,
                                             const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    const __m256i isum = qmm_avx2_q4_k_x_mode(kind, isa) == 1 ? _mm256_madd_epi16(is->a, ws->sa16) : is->a;
    return qmm_avx2_q4_k_float_of(acc, isum, ws, xb);
}

/* The GGUF super-block: its size, where its qs are, and quant l of it (d,
 * dmin, scales at 0, 2, 4 in both). */
QMM_AVX2_INLINE size_t qmm_avx2_q4_k_src_bytes(qmm_type kind) {
    return qmm_avx2_q4_k_has_qh(kind) ? sizeof(qmm_block_q5_k) : sizeof(qmm_block_q4_k);
}

static inline int qmm_avx2_q4_k_src_q(qmm_type kind, const uint8_t *blk, int l) {
    return qmm_avx2_q4_k_has_qh(kind) ? qmm_q5_k_q((const qmm_block_q5_k *)(const void *)blk, l)
                                      : qmm_q4_k_q((const qmm_block_q4_k *)(const void *)blk, l);
}

static inline void qmm_avx2_q4_k_w_pack(qmm_type kind, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride,
                                        void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    const int sbb = qmm_avx2_q4_k_sb_bytes(kind), qb = qmm_avx2_q4_k_qb(kind), has_qh = qmm_avx2_q4_k_has_qh(kind);
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * qmm_avx2_q4_k_panel_bytes(kind, k / QMM_QK);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const uint8_t *blk = (const uint8_t *)src + (size_t)row * stride;
            for (int64_t s = 0; s < nsb; s++) {
                uint8_t *sb = panel + (size_t)s * (size_t)sbb;
                if (row >= n1) { /* padding rows: zero scales, zero quants */
                    memset(sb + 2 * j, 0, 2), memset(sb + 16 + 2 * j, 0, 2);
                    for (int i = 0; i < 8; i++) {
                        sb[32 + 8 * i + j] = 0, sb[96 + 8 * i + j] = 0;
                        for (int c = 0; c < 4 + has_qh; c++)
                            memset(sb + QMM_AVX2_Q4_K_QS_OFF + qb * i + 32 * c + 4 * j, 0, 4);
                    }
                    continue;
                }
                const uint8_t *wb = blk + (size_t)s * qmm_avx2_q4_k_src_bytes(kind);
                memcpy(sb + 2 * j, wb, 2), memcpy(sb + 16 + 2 * j, wb + 2, 2);
                for (int i = 0; i < 8; i++) {
                    int sc, m;
                    qmm_k_scale_min(wb + 4, i, &sc, &m);
                    sb[32 + 8 * i + j] = (uint8_t)sc, sb[96 + 8 * i + j] = (uint8_t)m;
                    uint8_t *q = sb + QMM_AVX2_Q4_K_QS_OFF + qb * i;
                    for (int t = 0; t < 4; t++) {
                        uint8_t h = 0;
                        for (int c = 0; c < 4; c++) {
                            const int ql = qmm_avx2_q4_k_src_q(kind, wb, 32 * i + 4 * c + t),
                                      qh = qmm_avx2_q4_k_src_q(kind, wb, 32 * i + 16 + 4 * c + t);
                            q[32 * c + 4 * j + t] = (uint8_t)((ql & 0x0f) | (qh & 0x0f) << 4);
                            h = (uint8_t)(h | ((ql >> 4) & 1) << c | ((qh >> 4) & 1) << (4 + c));
                        }
                        if (has_qh)
                            q[128 + 4 * j + t] = h;
                    }
                }
            }
        }
    }
}

/* qmm_avx2_q4_k_w_pack's inverse: the 6-bit sc and m back into GGUF's 12
 * scale bytes, element 32i + l of the super-block into nibble i % 2 of
 * qs[32 (i / 2) + l] (Q5_K: its bit 4 into bit i of qh[l]). */
static inline void qmm_avx2_q4_k_w_unpack_row(qmm_type kind, const void *w, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)w + (size_t)(row / 8) * qmm_avx2_q4_k_panel_bytes(kind, k / QMM_QK);
    const int j = (int)(row % 8), has_qh = qmm_avx2_q4_k_has_qh(kind);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * (size_t)qmm_avx2_q4_k_sb_bytes(kind);
        union {
            qmm_block_q4_k q4;
            qmm_block_q5_k q5;
        } wb;
        memset(&wb, 0, sizeof wb); /* the scales and quants are ORed in */
        uint8_t *qs_all = has_qh ? wb.q5.qs : wb.q4.qs;
        memcpy(&wb.q4.d, sb + 2 * j, 2), memcpy(&wb.q4.dmin, sb + 16 + 2 * j, 2);
        for (int i = 0; i < 8; i++) {
            qmm_k_scale_min_put(wb.q4.scales, i, sb[32 + 8 * i + j], sb[96 + 8 * i + j]);
            const uint8_t *q = sb + QMM_AVX2_Q4_K_QS_OFF + qmm_avx2_q4_k_qb(kind) * i;
            uint8_t *qs = qs_all + 32 * (i / 2);
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++) {
                    const uint8_t v = q[32 * c + 4 * j + t];
                    qs[4 * c + t] |= (uint8_t)((v & 0x0f) << (4 * (i % 2)));
                    qs[16 + 4 * c + t] |= (uint8_t)((v >> 4) << (4 * (i % 2)));
                    if (has_qh) {
                        const uint8_t hv = q[128 + 4 * j + t];
                        wb.q5.qh[4 * c + t] |= (uint8_t)(((hv >> c) & 1) << i);
                        wb.q5.qh[16 + 4 * c + t] |= (uint8_t)(((hv >> (4 + c)) & 1) << i);
                    }
                }
        }
        const size_t bytes = qmm_avx2_q4_k_src_bytes(kind);
        memcpy((uint8_t *)dst + (size_t)s * bytes, &wb, bytes);
    }
}

#endif
