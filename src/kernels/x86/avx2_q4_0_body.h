/* Q4_0 x int8 activations, 256-bit integer dot products: the body shared by
 * the AVX2 family (matmul_q4_0_avx2.c) and the AVX-VNNI family
 * (matmul_q4_0_avxvnni.c). The includer defines
 *   QMM_Q4_SYM, QMM_Q4_NAME, QMM_Q4_REQUIRED   the descriptor,
 *   dot_step(acc, w_u8, x_s8)                 adds, per int32 lane, the four
 *                                             u8 x s8 products of that lane
 *                                             (any exact partial form),
 *   dot_finish(acc)                           the int32 lane sums,
 * so everything but the dot instruction is one code, tested through AVX2.
 *
 * Packed panel of 8 weight rows (n_step 8), nb = k / 32 blocks:
 *   [nb x 8 fp16 scales: block b, row j at b * 8 + j]       16 B per block
 *   [nb x 128 B quants : block b at b * 128, byte c * 32 + j * 4 + t is
 *                        source qs[4c + t] of row j (c < 4, t < 4)]
 * 144 B per block: the size of the source, so GEMV reads no extra bytes. A
 * 32-byte vector c holds, per row j, one dword: low nibbles are elements
 * 4c..4c+3, high nibbles 16+4c..16+4c+3. So one dot gives one int32 lane per
 * output row: no horizontal sums, and the block's float step is one vector
 * op for 8 rows: acc = fma((float)isum, fp32(d_w) * d_x, acc), the
 * reference's rounding exactly. fp16 scales stay fp16 (converted with
 * vcvtph2ps, exact) to keep the 144 B: GEMV is bound by memory.
 * Activations: the reference layout, quantized by the AVX2 packer. */
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/x86/avx2_d_panel.h"

#define Q4_NR          QMM_AVX2_D_PANEL_NR
#define Q4_BLOCK_BYTES 144 /* per block of a panel: 16 B scales + 128 B quants */

static inline __m256i q4_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* The driver's hooks (avx2_int8_body.h): chunk c of a block is one vector
 * per panel, low nibbles elements 4c..4c+3, high nibbles 16+4c..16+4c+3. */
typedef struct q4_wv {
    __m256i lo, hi;
} q4_wv;
typedef struct q4_xv {
    __m256i xl, xh;
} q4_xv;
typedef __m256i q4_iacc;
typedef __m256 q4_ws;

#define DRV(x)              q4_##x
#define DRV_PANEL_BYTES(nb) ((size_t)(nb)*Q4_BLOCK_BYTES)
#define DRV_QUANTS(nb, b)   ((size_t)(nb)*16 + (size_t)(b)*128)
#define DRV_PF              1024 /* software prefetch distance per panel stream, bytes (measured) */
#define DRV_PF_LINES        2
#define DRV_CHUNKS          4

static inline __attribute__((always_inline)) void q4_zero(q4_iacc *is) { *is = _mm256_setzero_si256(); }

static inline __attribute__((always_inline)) void q4_unpack(q4_wv *wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(panel + DRV_QUANTS(nb, b) + c * 32));
    wv->lo = _mm256_and_si256(raw, m4);
    wv->hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
}

static inline __attribute__((always_inline)) void q4_xload(q4_xv *xv, const qmm_act_block *xb, int c) {
    xv->xl = q4_bcast4(xb->q + 4 * c);
    xv->xh = q4_bcast4(xb->q + 16 + 4 * c);
}

static inline __attribute__((always_inline)) void q4_dot(q4_iacc *is, const q4_wv *wv, const q4_xv *xv) {
    *is = dot_step(*is, wv->lo, xv->xl);
    *is = dot_step(*is, wv->hi, xv->xh);
    /* keep the chain: gcc would reassociate the exact integer sums into a
     * tree and spill the products it holds */
    __asm__("" : "+x"(*is));
}

static inline __attribute__((always_inline)) void q4_scales(q4_ws *ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    *ws = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + b * 16)));
}

static inline __attribute__((always_inline)) __m256 q4_float(__m256 acc, const q4_iacc *is, const q4_ws *wd,
                                                             const qmm_act_block *xb) {
    /* sum (q - 8) x = sum q x - 8 sum x, exact in int32 */
    const __m256i isum = _mm256_sub_epi32(dot_finish(*is), _mm256_slli_epi32(_mm256_set1_epi32(xb->sum), 3));
    const __m256 scale = _mm256_mul_ps(*wd, _mm256_set1_ps(xb->d));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), scale, acc);
}

#define DRV_SYM       QMM_Q4_SYM
#define DRV_NAME_STR  QMM_Q4_NAME
#define DRV_REQUIRED  QMM_Q4_REQUIRED
#define DRV_WTYPE     QMM_TYPE_Q4_0
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    q4_w_pack
#define DRV_READ_ROW  q4_read_row
#define DRV_W_UNPACK  q4_w_unpack_row
#include "kernels/x86/avx2_int8_old.h"

static void q4_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_avx2_d_panel_pack(k, n0, n1, src, stride, dst, sizeof(qmm_block_q4_0), 4);
}

static void q4_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2_d_panel_unpack_row((const uint8_t *)w + q4_w_offset(row, k), k, (int)(row % Q4_NR), dst, sizeof(qmm_block_q4_0), 4);
}

static void q4_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)w + q4_w_offset(row, k);
    const uint8_t *qs = panel + (size_t)nb * 16;
    const int j = (int)(row % Q4_NR);
    for (int64_t b = 0; b < nb; b++) {
        uint16_t h;
        memcpy(&h, panel + b * 16 + j * 2, 2);
        const float d = qmm_fp16_to_fp32(h);
        for (int c = 0; c < 4; c++)
            for (int t = 0; t < 4; t++) {
                const uint8_t v = qs[b * 128 + c * 32 + j * 4 + t];
                dst[b * QMM_QK + 4 * c + t] = (float)((v & 0x0f) - 8) * d;
                dst[b * QMM_QK + 16 + 4 * c + t] = (float)((v >> 4) - 8) * d;
            }
    }
}
