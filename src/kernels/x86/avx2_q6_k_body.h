/* Q6_K x int8 activations, 256-bit integer dot products: the format code
 * shared by the AVX2 family (matmul_q6_k_avx2.c) and the AVX-VNNI family
 * (matmul_q6_k_avxvnni.c), on the AVX2 int8 driver (avx2_int8_body.h). The
 * dot steps are exact per step in int32 (6-bit u8 x s8 pairs reach
 * 2 * 63 * 127 = 16002: two of them would not fit int16).
 *
 * Packed panel of 8 weight rows, per super-block of 256 (1680 B, the GGUF
 * size exactly):
 *   [8 fp16 d]                                           16 B
 *   [16 x 8 int8 sc: 16-sub-block s, row j at 8 s + j]   128 B
 *   [8 x 192 B: 32-block i at 192 i: 128 B low nibbles in Q4_0's chunk layout
 *    (byte c * 32 + j * 4 + t: element 4c+t low, 16+4c+t high), then 32 B
 *    H_lo and 32 B H_hi: byte j * 4 + t, bits 2c..2c+1, hold the top two bits
 *    of element 4c+t (H_lo) / 16+4c+t (H_hi)]
 * The stored u = q + 32 is 0..63 (u8): the low-nibble chunks are sub-block a
 * (elements 0..15, state a), the high ones sub-block b (state b), each summed
 * exactly in int32, and isum = sc_a (dot_a - 32 sum_a x) + sc_b (dot_b - 32
 * sum_b x), exact; then acc = fma((float)isum, d * x_d, acc), the
 * reference's. */
#ifndef QMM_X86_AVX2_Q6_K_BODY_H
#define QMM_X86_AVX2_Q6_K_BODY_H

#include "kernels/x86/avx2_int8_types.h"
#include "kernels/x86/avx2_pair16.h"

#define QMM_AVX2_Q6_K_SB_BYTES 1680
#define QMM_AVX2_Q6_K_QS_OFF   144

QMM_AVX2_INLINE size_t qmm_avx2_q6_k_panel_bytes(int64_t nb) { return (size_t)nb / 8 * QMM_AVX2_Q6_K_SB_BYTES; }

QMM_AVX2_INLINE size_t qmm_avx2_q6_k_quants(int64_t b) {
    return (size_t)b / 8 * QMM_AVX2_Q6_K_SB_BYTES + QMM_AVX2_Q6_K_QS_OFF + (size_t)(b % 8) * 192;
}

QMM_AVX2_INLINE void qmm_avx2_q6_k_unpack(qmm_avx2_wv *wv, const uint8_t *panel, int64_t b, int c) {
    const uint8_t *q = panel + qmm_avx2_q6_k_quants(b);
    const __m256i m4 = _mm256_set1_epi8(0x0f), m2 = _mm256_set1_epi8(0x30);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(q + c * 32));
    const __m256i hl = _mm256_loadu_si256((const __m256i *)(q + 128)), hh = _mm256_loadu_si256((const __m256i *)(q + 160));
    /* bits 2c..2c+1 to bits 4..5 (16-bit shifts: the mask drops what crosses bytes) */
    const __m256i tl = _mm256_slli_epi16(_mm256_srli_epi16(hl, 2 * c), 4),
                  th = _mm256_slli_epi16(_mm256_srli_epi16(hh, 2 * c), 4);
    wv->v[0] = _mm256_or_si256(_mm256_and_si256(raw, m4), _mm256_and_si256(tl, m2));
    wv->v[1] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(raw, 4), m4), _mm256_and_si256(th, m2));
}

/* d, and the sub-scales sc_a, sc_b as int32 (sa, sb). */
QMM_AVX2_INLINE void qmm_avx2_q6_k_scales(qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    const uint8_t *sb = panel + (size_t)(b / 8) * QMM_AVX2_Q6_K_SB_BYTES;
    const int i = (int)(b % 8);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    ws->sa = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 16 + 16 * i)));
    ws->sb = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 16 + 16 * i + 8)));
}

QMM_AVX2_INLINE __m256 qmm_avx2_q6_k_float(__m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    const int32_t sa = (int16_t)(uint16_t)((uint32_t)xb->sum & 0xffffu); /* the packer's 16-element sums */
    const int32_t sb = (int16_t)(uint16_t)((uint32_t)xb->sum >> 16);
    const __m256i da = _mm256_sub_epi32(dot_finish(is->a), _mm256_set1_epi32(32 * sa));
    const __m256i db = _mm256_sub_epi32(dot_finish(is->b), _mm256_set1_epi32(32 * sb));
    const __m256i isum = _mm256_add_epi32(_mm256_mullo_epi32(ws->sa, da), _mm256_mullo_epi32(ws->sb, db));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, _mm256_set1_ps(xb->d)), acc);
}

/* The AVX2 expanded GEMM's steps: each step's vpmaddwd multiplies the int16
 * pair sums by the row's sub-scale (sc as an int16 pair per lane, instead
 * of ones), so one int32 state holds sc_a dot_a + sc_b dot_b (a lane at most
 * 8 x 2 x 16002 x 128 < 2^25), and the float step takes
 * 32 (sc_a sum_a x + sc_b sum_b x) off with one more vpmaddwd ((32 sc_a,
 * 32 sc_b) against (sum_a, sum_b), each within int16): the same integer
 * isum, without the two vpmulld and the second state per output. The slice
 * keeps d and lane j's (sc_a, sc_a), (sc_b, sc_b), (32 sc_a, 32 sc_b) of row
 * j, int16 (sa16, sb16, sp). */
QMM_AVX2_INLINE void qmm_avx2_q6_k_scales_x(qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    qmm_avx2_q6_k_scales(ws, panel, b);
    ws->sa16 = qmm_avx2_pair16(ws->sa);
    ws->sb16 = qmm_avx2_pair16(ws->sb);
    ws->sp = qmm_avx2_pack16x2(_mm256_slli_epi32(ws->sa, 5), _mm256_slli_epi32(ws->sb, 5)); /* |32 sc| <= 4096 */
}

QMM_AVX2_INLINE void qmm_avx2_q6_k_dot_x(qmm_avx2_iacc *is, const qmm_avx2_wv *wv, const qmm_avx2_xv *xv, const qmm_avx2_ws *ws) {
    is->a = _mm256_add_epi32(is->a, _mm256_madd_epi16(_mm256_maddubs_epi16(wv->v[0], xv->v[0]), ws->sa16));
    is->a = _mm256_add_epi32(is->a, _mm256_madd_epi16(_mm256_maddubs_epi16(wv->v[1], xv->v[1]), ws->sb16));
    __asm__("" : "+x"(is->a)); /* keep the chain (as the table types) */
}

QMM_AVX2_INLINE __m256 qmm_avx2_q6_k_float_x(__m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws,
                                             const qmm_act_block *xb) {
    const __m256i pair = _mm256_set1_epi32(xb->sum); /* (sum_a, sum_b) as int16, from the packer */
    const __m256i isum = _mm256_sub_epi32(is->a, _mm256_madd_epi16(ws->sp, pair));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, _mm256_set1_ps(xb->d)), acc);
}

static inline void qmm_avx2_q6_k_w_pack(int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * qmm_avx2_q6_k_panel_bytes(k / QMM_QK);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const qmm_block_q6_k *blk = (const qmm_block_q6_k *)((const uint8_t *)src + (size_t)row * stride);
            for (int64_t s = 0; s < nsb; s++) {
                uint8_t *sb = panel + (size_t)s * QMM_AVX2_Q6_K_SB_BYTES;
                const qmm_block_q6_k *wb = blk + s;
                const int pad = row >= n1; /* padding rows: zero scales, zero quants */
                if (pad)
                    memset(sb + 2 * j, 0, 2);
                else
                    memcpy(sb + 2 * j, &wb->d, 2);
                for (int u = 0; u < 16; u++)
                    sb[16 + 8 * u + j] = pad ? 0 : (uint8_t)wb->scales[u];
                for (int i = 0; i < 8; i++) {
                    uint8_t *q = sb + QMM_AVX2_Q6_K_QS_OFF + 192 * i;
                    for (int t = 0; t < 4; t++) {
                        uint8_t hl = 0, hh = 0;
                        for (int c = 0; c < 4; c++) {
                            const int ul = pad ? 0 : qmm_q6_k_q(wb, 32 * i + 4 * c + t) + 32;
                            const int uh = pad ? 0 : qmm_q6_k_q(wb, 32 * i + 16 + 4 * c + t) + 32;
                            q[32 * c + 4 * j + t] = (uint8_t)((ul & 0x0f) | ((uh & 0x0f) << 4));
                            hl = (uint8_t)(hl | ((ul >> 4) << (2 * c)));
                            hh = (uint8_t)(hh | ((uh >> 4) << (2 * c)));
                        }
                        q[128 + 4 * j + t] = hl;
                        q[160 + 4 * j + t] = hh;
                    }
                }
            }
        }
    }
}

/* qmm_avx2_q6_k_w_pack's inverse: the stored u = q + 32 of element e of the
 * super-block back into GGUF's nibble of ql and bit pair of qh (e = 128h + r:
 * ql[64h + r % 64] nibble r / 64, qh[32h + r % 32] bits 2 (r / 32)). */
static inline void qmm_avx2_q6_k_w_unpack_row(const void *w, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)w + (size_t)(row / 8) * qmm_avx2_q6_k_panel_bytes(k / QMM_QK);
    const int j = (int)(row % 8);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * QMM_AVX2_Q6_K_SB_BYTES;
        qmm_block_q6_k wb;
        memset(&wb, 0, sizeof wb); /* the quants are ORed in */
        memcpy(&wb.d, sb + 2 * j, 2);
        for (int u = 0; u < 16; u++)
            wb.scales[u] = (int8_t)sb[16 + 8 * u + j];
        for (int i = 0; i < 8; i++) {
            const uint8_t *q = sb + QMM_AVX2_Q6_K_QS_OFF + 192 * i;
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++)
                    for (int half = 0; half < 2; half++) {
                        const uint8_t v = q[32 * c + 4 * j + t];
                        const int u = (half ? v >> 4 : v & 0x0f) | ((q[128 + 32 * half + 4 * j + t] >> (2 * c)) & 3) << 4;
                        const int e = 32 * i + 16 * half + 4 * c + t, h = e / 128, r = e % 128;
                        wb.ql[64 * h + r % 64] |= (uint8_t)((u & 0x0f) << (4 * (r / 64)));
                        wb.qh[32 * h + r % 32] |= (uint8_t)((u >> 4) << (2 * (r / 32)));
                    }
        }
        memcpy((uint8_t *)dst + (size_t)s * sizeof wb, &wb, sizeof wb);
    }
}

#endif
