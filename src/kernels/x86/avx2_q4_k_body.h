/* Q4_K x int8 activations, 256-bit integer dot products: the body shared by
 * the AVX2 family (matmul_q4_k_avx2.c) and the AVX-VNNI family
 * (matmul_q4_k_avxvnni.c), on the AVX2 int8 driver (avx2_int8_body.h). The
 * includer defines QMM_Q4K_SYM, QMM_Q4K_NAME, QMM_Q4K_REQUIRED, dot_step and
 * dot_finish (as for avx2_q4_0_body.h: nibbles 0..15, so AVX2 may sum 8
 * vpmaddubsw pairs in int16, at most 8 * 2 * 15 * 127 = 30480).
 *
 * Packed panel of 8 weight rows, per super-block of 256 (1184 B, GGUF 1152 B:
 * +2.8%):
 *   [8 fp16 d][8 fp16 dmin]                       32 B, row j at 2 j
 *   [8 x 8 u8 sc: 32-block i, row j at 8 i + j]   64 B
 *   [8 x 8 u8 m ]                                 64 B
 *   [8 x 128 B quants: 32-block i at 128 i, byte c * 32 + j * 4 + t holds
 *    element 4c+t (low nibble) and 16+4c+t (high nibble) of row j]
 * so a 32-block is Q4_0's chunk layout and its dot is Q4_0's. Float step,
 * the reference's exactly: isum = sc * dot (vpmulld, exact: |isum| < 2^24),
 * acc = fma((float)isum, d * x_d, acc), then imin = -(m * sum x) and
 * acc = fma((float)imin, dmin * x_d, acc). */
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"

#define Q4K_SB_BYTES 1184
#define Q4K_QS_OFF   160

static inline __m256i q4k_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

typedef struct q4k_wv {
    __m256i lo, hi;
} q4k_wv;
typedef struct q4k_xv {
    __m256i xl, xh;
} q4k_xv;
typedef __m256i q4k_iacc;
typedef struct q4k_ws {
    __m256 d, dmin;
    __m256i sc, m;
} q4k_ws;

#define DRV(x)              q4k_##x
#define DRV_PANEL_BYTES(nb) ((size_t)(nb) / 8 * Q4K_SB_BYTES)
#define DRV_QUANTS(nb, b)   ((size_t)(b) / 8 * Q4K_SB_BYTES + Q4K_QS_OFF + (size_t)((b) % 8) * 128)
#define DRV_PF              1024
#define DRV_PF_LINES        2
#define DRV_CHUNKS          4

static inline __attribute__((always_inline)) void q4k_zero(q4k_iacc *is) { *is = _mm256_setzero_si256(); }

static inline __attribute__((always_inline)) void q4k_unpack(q4k_wv *wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(panel + DRV_QUANTS(nb, b) + c * 32));
    wv->lo = _mm256_and_si256(raw, m4);
    wv->hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
}

static inline __attribute__((always_inline)) void q4k_xload(q4k_xv *xv, const qmm_act_block *xb, int c) {
    xv->xl = q4k_bcast4(xb->q + 4 * c);
    xv->xh = q4k_bcast4(xb->q + 16 + 4 * c);
}

static inline __attribute__((always_inline)) void q4k_dot(q4k_iacc *is, const q4k_wv *wv, const q4k_xv *xv) {
    *is = dot_step(*is, wv->lo, xv->xl);
    *is = dot_step(*is, wv->hi, xv->xh);
    __asm__("" : "+x"(*is)); /* keep the chain (see avx2_q4_0_body.h) */
}

static inline __attribute__((always_inline)) void q4k_scales(q4k_ws *ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    const uint8_t *sb = panel + (size_t)(b / 8) * Q4K_SB_BYTES;
    const int i = (int)(b % 8);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    ws->dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sb + 16)));
    ws->sc = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 8 * i)));
    ws->m = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 96 + 8 * i)));
}

static inline __attribute__((always_inline)) __m256 q4k_float(__m256 acc, const q4k_iacc *is, const q4k_ws *ws,
                                                              const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    const __m256i isum = _mm256_mullo_epi32(dot_finish(*is), ws->sc);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_mullo_epi32(ws->m, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->dmin, xd), acc);
}

#define DRV_SYM       QMM_Q4K_SYM
#define DRV_NAME_STR  QMM_Q4K_NAME
#define DRV_REQUIRED  QMM_Q4K_REQUIRED
#define DRV_WTYPE     QMM_TYPE_Q4_K
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    q4k_w_pack
#define DRV_READ_ROW  q4k_read_row
#include "kernels/x86/avx2_int8_body.h"

static void q4k_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + q4k_w_offset(p * 8, k);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const qmm_block_q4_k *blk = (const qmm_block_q4_k *)((const uint8_t *)src + (size_t)row * stride);
            for (int64_t s = 0; s < nsb; s++) {
                uint8_t *sb = panel + (size_t)s * Q4K_SB_BYTES;
                if (row >= n1) { /* padding rows: zero scales, zero quants */
                    memset(sb + 2 * j, 0, 2), memset(sb + 16 + 2 * j, 0, 2);
                    for (int i = 0; i < 8; i++) {
                        sb[32 + 8 * i + j] = 0, sb[96 + 8 * i + j] = 0;
                        for (int c = 0; c < 4; c++)
                            memset(sb + Q4K_QS_OFF + 128 * i + 32 * c + 4 * j, 0, 4);
                    }
                    continue;
                }
                const qmm_block_q4_k *wb = blk + s;
                memcpy(sb + 2 * j, &wb->d, 2), memcpy(sb + 16 + 2 * j, &wb->dmin, 2);
                for (int i = 0; i < 8; i++) {
                    int sc, m;
                    qmm_k_scale_min(wb->scales, i, &sc, &m);
                    sb[32 + 8 * i + j] = (uint8_t)sc, sb[96 + 8 * i + j] = (uint8_t)m;
                    for (int c = 0; c < 4; c++)
                        for (int t = 0; t < 4; t++)
                            sb[Q4K_QS_OFF + 128 * i + 32 * c + 4 * j + t] =
                                (uint8_t)(qmm_q4_k_q(wb, 32 * i + 4 * c + t) | (qmm_q4_k_q(wb, 32 * i + 16 + 4 * c + t) << 4));
                }
            }
        }
    }
}

/* ggml's dequantization: (d * sc) * q - dmin * m, in that order. */
static void q4k_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + q4k_w_offset(row, k);
    const int j = (int)(row % 8);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * Q4K_SB_BYTES;
        uint16_t h;
        memcpy(&h, sb + 2 * j, 2);
        const float d = qmm_fp16_to_fp32(h);
        memcpy(&h, sb + 16 + 2 * j, 2);
        const float dmin = qmm_fp16_to_fp32(h);
        for (int i = 0; i < 8; i++) {
            const float dl = d * (float)sb[32 + 8 * i + j], ml = dmin * (float)sb[96 + 8 * i + j];
            float *y = dst + s * QMM_QK_K + 32 * i;
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++) {
                    const uint8_t v = sb[Q4K_QS_OFF + 128 * i + 32 * c + 4 * j + t];
                    y[4 * c + t] = dl * (float)(v & 0x0f) - ml;
                    y[16 + 4 * c + t] = dl * (float)(v >> 4) - ml;
                }
        }
    }
}
