/* Q4_K and Q5_K x int8 activations, 256-bit integer dot products: the body
 * shared by the AVX2 families (matmul_q4_k_avx2.c, matmul_q5_k_avx2.c) and the
 * AVX-VNNI families (matmul_q4_k_avxvnni.c, matmul_q5_k_avxvnni.c), on the
 * AVX2 int8 driver (avx2_int8_body.h). The includer defines QMM_Q4K_SYM,
 * QMM_Q4K_NAME, QMM_Q4K_REQUIRED, dot_step and dot_finish (as for
 * avx2_q4_0_body.h), and QMM_Q4K_QH 1 for Q5_K (Q4_K plus a fifth bit per
 * element; default 0). Q4_K's nibbles are 0..15, so AVX2 may sum its 8
 * vpmaddubsw pairs in int16 (at most 8 * 2 * 15 * 127 = 30480); Q5_K's 5-bit
 * pairs (up to 7874) must be widened every step.
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
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/x86/avx2_pair16.h"

#ifndef QMM_Q4K_X
#define QMM_Q4K_X 0 /* the expanded GEMM's scaled vpmaddwd: 1 at the chain's end, 2 at every step (AVX2) */
#endif
#ifndef QMM_Q4K_QH
#define QMM_Q4K_QH 0
#endif

#if QMM_Q4K_QH
#define K4(x)    q5k_##x
#define K4_WTYPE QMM_TYPE_Q5_K
#define K4_BLOCK qmm_block_q5_k
#define K4_Q     qmm_q5_k_q
#define K4_QB    160
#else
#define K4(x)    q4k_##x
#define K4_WTYPE QMM_TYPE_Q4_K
#define K4_BLOCK qmm_block_q4_k
#define K4_Q     qmm_q4_k_q
#define K4_QB    128
#endif
#define K4_QS_OFF   160
#define K4_SB_BYTES (K4_QS_OFF + 8 * K4_QB)

static inline __m256i K4(bcast4)(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

typedef struct {
    __m256i lo, hi;
} K4(wv);
typedef struct {
    __m256i xl, xh;
} K4(xv);
typedef __m256i K4(iacc);
typedef struct {
    __m256 d, dmin;
    __m256i sc, m;
} K4(ws);

#define DRV(x)              K4(x)
#define DRV_PANEL_BYTES(nb) ((size_t)(nb) / 8 * K4_SB_BYTES)
#define DRV_QUANTS(nb, b)   ((size_t)(b) / 8 * K4_SB_BYTES + K4_QS_OFF + (size_t)((b) % 8) * K4_QB)
#define DRV_PF              1024
#define DRV_PF_LINES        (2 + QMM_Q4K_QH)
#define DRV_CHUNKS          4

static inline __attribute__((always_inline)) void K4(zero)(K4(iacc) * is) { *is = _mm256_setzero_si256(); }

static inline __attribute__((always_inline)) void K4(unpack)(K4(wv) * wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const uint8_t *q = panel + DRV_QUANTS(nb, b);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(q + c * 32));
    wv->lo = _mm256_and_si256(raw, m4);
    wv->hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
#if QMM_Q4K_QH
    /* bit c to bit 4 (low elements), bit 4+c to bit 4 (high ones); 16-bit
     * shifts: what crosses a byte lands outside the mask */
    const __m256i h = _mm256_loadu_si256((const __m256i *)(q + 128)), b4 = _mm256_set1_epi8(0x10);
    wv->lo = _mm256_or_si256(wv->lo, _mm256_and_si256(_mm256_slli_epi16(h, 4 - c), b4));
    wv->hi = _mm256_or_si256(wv->hi, _mm256_and_si256(_mm256_srli_epi16(h, c), b4));
#endif
}

static inline __attribute__((always_inline)) void K4(xload)(K4(xv) * xv, const qmm_act_block *xb, int c) {
    xv->xl = K4(bcast4)(xb->q + 4 * c);
    xv->xh = K4(bcast4)(xb->q + 16 + 4 * c);
}

static inline __attribute__((always_inline)) void K4(dot)(K4(iacc) * is, const K4(wv) * wv, const K4(xv) * xv) {
    *is = dot_step(*is, wv->lo, xv->xl);
    *is = dot_step(*is, wv->hi, xv->xh);
    __asm__("" : "+x"(*is)); /* keep the chain (see avx2_q4_0_body.h) */
}

static inline __attribute__((always_inline)) void K4(scales)(K4(ws) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    const uint8_t *sb = panel + (size_t)(b / 8) * K4_SB_BYTES;
    const int i = (int)(b % 8);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    ws->dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sb + 16)));
    ws->sc = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 8 * i)));
    ws->m = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 96 + 8 * i)));
}

static inline __attribute__((always_inline)) __m256 K4(float)(__m256 acc, const K4(iacc) * is, const K4(ws) * ws,
                                                              const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    const __m256i isum = _mm256_mullo_epi32(dot_finish(*is), ws->sc);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_mullo_epi32(ws->m, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->dmin, xd), acc);
}

#if QMM_Q4K_X
/* The expanded GEMM's steps (AVX2): the 32-block scale as an int16 pair per
 * lane is vpmaddwd's multiplier, so no vpmulld for it; QMM_Q4K_X 1 (Q4_K):
 * where the int16 chain is widened, 2 (Q5_K): at every step, instead of
 * ones. The same integers (|sc| <= 63: a lane stays below 2^23). */
typedef struct {
    K4(ws) w;
    __m256i sc16; /* lane j: (sc, sc) of row j, int16 */
} K4(ws_x);

static inline __attribute__((always_inline)) void K4(scales_x)(K4(ws_x) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    K4(scales)(&ws->w, panel, nb, b);
    ws->sc16 = qmm_avx2_pair16(ws->w.sc);
}

static inline __attribute__((always_inline)) void K4(dot_x)(K4(iacc) * is, const K4(wv) * wv, const K4(xv) * xv,
                                                            const K4(ws_x) * ws) {
#if QMM_Q4K_X == 1
    (void)ws;
    K4(dot)(is, wv, xv);
#else
    *is = _mm256_add_epi32(*is, _mm256_madd_epi16(_mm256_maddubs_epi16(wv->lo, xv->xl), ws->sc16));
    *is = _mm256_add_epi32(*is, _mm256_madd_epi16(_mm256_maddubs_epi16(wv->hi, xv->xh), ws->sc16));
    __asm__("" : "+x"(*is));
#endif
}

static inline __attribute__((always_inline)) __m256 K4(float_x)(__m256 acc, const K4(iacc) * is, const K4(ws_x) * ws,
                                                                const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    const __m256i isum = QMM_Q4K_X == 1 ? _mm256_madd_epi16(*is, ws->sc16) : *is;
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->w.d, xd), acc);
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_mullo_epi32(ws->w.m, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->w.dmin, xd), acc);
}
#define DRV_X_SCALED 1
#endif

#define DRV_SYM       QMM_Q4K_SYM
#define DRV_NAME_STR  QMM_Q4K_NAME
#define DRV_REQUIRED  QMM_Q4K_REQUIRED
#define DRV_WTYPE     K4_WTYPE
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    K4(w_pack)
#define DRV_READ_ROW  K4(read_row)
#define DRV_W_UNPACK  K4(w_unpack_row)
#include "kernels/x86/avx2_int8_old.h"

static void K4(w_pack)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + K4(w_offset)(p * 8, k);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const K4_BLOCK *blk = (const K4_BLOCK *)((const uint8_t *)src + (size_t)row * stride);
            for (int64_t s = 0; s < nsb; s++) {
                uint8_t *sb = panel + (size_t)s * K4_SB_BYTES;
                if (row >= n1) { /* padding rows: zero scales, zero quants */
                    memset(sb + 2 * j, 0, 2), memset(sb + 16 + 2 * j, 0, 2);
                    for (int i = 0; i < 8; i++) {
                        sb[32 + 8 * i + j] = 0, sb[96 + 8 * i + j] = 0;
                        for (int c = 0; c < 4 + QMM_Q4K_QH; c++)
                            memset(sb + K4_QS_OFF + K4_QB * i + 32 * c + 4 * j, 0, 4);
                    }
                    continue;
                }
                const K4_BLOCK *wb = blk + s;
                memcpy(sb + 2 * j, &wb->d, 2), memcpy(sb + 16 + 2 * j, &wb->dmin, 2);
                for (int i = 0; i < 8; i++) {
                    int sc, m;
                    qmm_k_scale_min(wb->scales, i, &sc, &m);
                    sb[32 + 8 * i + j] = (uint8_t)sc, sb[96 + 8 * i + j] = (uint8_t)m;
                    uint8_t *q = sb + K4_QS_OFF + K4_QB * i;
                    for (int t = 0; t < 4; t++) {
                        uint8_t h = 0;
                        for (int c = 0; c < 4; c++) {
                            const int ql = K4_Q(wb, 32 * i + 4 * c + t), qh = K4_Q(wb, 32 * i + 16 + 4 * c + t);
                            q[32 * c + 4 * j + t] = (uint8_t)((ql & 0x0f) | (qh & 0x0f) << 4);
                            h = (uint8_t)(h | ((ql >> 4) & 1) << c | ((qh >> 4) & 1) << (4 + c));
                        }
                        if (QMM_Q4K_QH)
                            q[128 + 4 * j + t] = h;
                    }
                }
            }
        }
    }
}

/* K4(w_pack)'s inverse: the 6-bit sc and m back into GGUF's 12 scale bytes,
 * element 32i + l of the super-block into nibble i % 2 of qs[32 (i / 2) + l]
 * (Q5_K: its bit 4 into bit i of qh[l]). */
static void K4(w_unpack_row)(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + K4(w_offset)(row, k);
    const int j = (int)(row % 8);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * K4_SB_BYTES;
        K4_BLOCK wb;
        memset(&wb, 0, sizeof wb); /* the scales and quants are ORed in */
        memcpy(&wb.d, sb + 2 * j, 2), memcpy(&wb.dmin, sb + 16 + 2 * j, 2);
        for (int i = 0; i < 8; i++) {
            qmm_k_scale_min_put(wb.scales, i, sb[32 + 8 * i + j], sb[96 + 8 * i + j]);
            const uint8_t *q = sb + K4_QS_OFF + K4_QB * i;
            uint8_t *qs = wb.qs + 32 * (i / 2);
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++) {
                    const uint8_t v = q[32 * c + 4 * j + t];
                    qs[4 * c + t] |= (uint8_t)((v & 0x0f) << (4 * (i % 2)));
                    qs[16 + 4 * c + t] |= (uint8_t)((v >> 4) << (4 * (i % 2)));
#if QMM_Q4K_QH
                    const uint8_t hv = q[128 + 4 * j + t];
                    wb.qh[4 * c + t] |= (uint8_t)(((hv >> c) & 1) << i);
                    wb.qh[16 + 4 * c + t] |= (uint8_t)(((hv >> (4 + c)) & 1) << i);
#endif
                }
        }
        memcpy((uint8_t *)dst + (size_t)s * sizeof wb, &wb, sizeof wb);
    }
}

/* ggml's dequantization: (d * sc) * q - dmin * m, in that order. */
static void K4(read_row)(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + K4(w_offset)(row, k);
    const int j = (int)(row % 8);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * K4_SB_BYTES;
        uint16_t h;
        memcpy(&h, sb + 2 * j, 2);
        const float d = qmm_fp16_to_fp32(h);
        memcpy(&h, sb + 16 + 2 * j, 2);
        const float dmin = qmm_fp16_to_fp32(h);
        for (int i = 0; i < 8; i++) {
            const float dl = d * (float)sb[32 + 8 * i + j], ml = dmin * (float)sb[96 + 8 * i + j];
            const uint8_t *q = sb + K4_QS_OFF + K4_QB * i;
            float *y = dst + s * QMM_QK_K + 32 * i;
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++) {
                    const uint8_t v = q[32 * c + 4 * j + t];
                    const int hv = QMM_Q4K_QH ? q[128 + 4 * j + t] : 0;
                    y[4 * c + t] = dl * (float)((v & 0x0f) | ((hv >> c) & 1) << 4) - ml;
                    y[16 + 4 * c + t] = dl * (float)((v >> 4) | ((hv >> (4 + c)) & 1) << 4) - ml;
                }
        }
    }
}

#undef K4
#undef K4_WTYPE
#undef K4_BLOCK
#undef K4_Q
#undef K4_QB
#undef K4_QS_OFF
#undef K4_SB_BYTES
#undef QMM_Q4K_QH
#undef QMM_Q4K_SYM
#undef QMM_Q4K_NAME
#undef QMM_Q4K_REQUIRED
