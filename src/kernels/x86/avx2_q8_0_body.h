/* Q8_0 x int8 activations, 256-bit integer dot products: the body shared by
 * the AVX2 family (matmul_q8_0_avx2.c) and the AVX-VNNI family
 * (matmul_q8_0_avxvnni.c). The includer defines
 *   QMM_Q8_SYM, QMM_Q8_NAME, QMM_Q8_REQUIRED   the descriptor,
 *   dot_step(acc, w_u8, x_s8)                 adds, per int32 lane, the four
 *                                             u8 x s8 products of that lane,
 *   dot_finish(acc)                           the int32 lane sums.
 *
 * The unsigned x signed dot takes |w| (vpabsb: -128 becomes 128, right as u8)
 * and x with w's sign (vpsignb; |x| <= 127, so negating never wraps); the
 * products are w * x exactly, a pair at most 2 * 128 * 127 = 32512 < 32767.
 *
 * Packed panel of 8 weight rows (n_step 8), nb = k / 32 blocks:
 *   [nb x 8 fp16 scales: block b, row j at b * 8 + j]       16 B per block
 *   [nb x 256 B quants : block b at b * 256, byte g * 32 + j * 4 + t is
 *                        source qs[4g + t] of row j (g < 8, t < 4)]
 * 272 B per block, the size of the source. Vector g holds one dword per row
 * (elements 4g..4g+3), so a dot gives one int32 lane per output row and the
 * float step is the reference's, 8 rows at once. */
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/x86/avx2_d_panel.h"

#define Q8_NR          QMM_AVX2_D_PANEL_NR
#define Q8_BLOCK_BYTES 272 /* per block of a panel: 16 B scales + 256 B quants */

static inline __m256i q8_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* The driver's hooks (avx2_int8_body.h): chunk g of a block is one vector
 * per panel, elements 4g..4g+3 of each row; |w| is taken once for all rows. */
typedef struct q8_wv {
    __m256i wv, aw;
} q8_wv;
typedef __m256i q8_xv;
typedef __m256i q8_iacc;
typedef __m256 q8_ws;

#define DRV(x)              q8_##x
#define DRV_PANEL_BYTES(nb) ((size_t)(nb)*Q8_BLOCK_BYTES)
#define DRV_QUANTS(nb, b)   ((size_t)(nb)*16 + (size_t)(b)*256)
#define DRV_PF              1024 /* software prefetch distance per panel stream, bytes (measured) */
#define DRV_PF_LINES        4
#define DRV_CHUNKS          8
#define DRV_GEMM_EXPAND     0 /* the panel is int8 already: expanding it gained nothing (Zen 3) */

static inline __attribute__((always_inline)) void q8_zero(q8_iacc *is) { *is = _mm256_setzero_si256(); }

static inline __attribute__((always_inline)) void q8_unpack(q8_wv *w, const uint8_t *panel, int64_t nb, int64_t b, int g) {
    w->wv = _mm256_loadu_si256((const __m256i *)(panel + DRV_QUANTS(nb, b) + g * 32));
    w->aw = _mm256_abs_epi8(w->wv);
}

static inline __attribute__((always_inline)) void q8_xload(q8_xv *xv, const qmm_act_block *xb, int g) {
    *xv = q8_bcast4(xb->q + 4 * g);
}

static inline __attribute__((always_inline)) void q8_dot(q8_iacc *is, const q8_wv *w, const q8_xv *xv) {
    *is = dot_step(*is, w->aw, _mm256_sign_epi8(*xv, w->wv));
    /* keep the chain: gcc would reassociate the exact integer sums into a
     * tree and spill the products it holds */
    __asm__("" : "+x"(*is));
}

static inline __attribute__((always_inline)) void q8_scales(q8_ws *ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    *ws = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + b * 16)));
}

static inline __attribute__((always_inline)) __m256 q8_float(__m256 acc, const q8_iacc *is, const q8_ws *wd,
                                                             const qmm_act_block *xb) {
    const __m256 scale = _mm256_mul_ps(*wd, _mm256_set1_ps(xb->d));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_finish(*is)), scale, acc);
}

#define DRV_SYM       QMM_Q8_SYM
#define DRV_NAME_STR  QMM_Q8_NAME
#define DRV_REQUIRED  QMM_Q8_REQUIRED
#define DRV_WTYPE     QMM_TYPE_Q8_0
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    q8_w_pack
#define DRV_READ_ROW  q8_read_row
#define DRV_W_UNPACK  q8_w_unpack_row
#include "kernels/x86/avx2_int8_old.h"

static void q8_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    qmm_avx2_d_panel_pack(k, n0, n1, src, stride, dst, sizeof(qmm_block_q8_0), 8);
}

static void q8_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    qmm_avx2_d_panel_unpack_row((const uint8_t *)w + q8_w_offset(row, k), k, (int)(row % Q8_NR), dst, sizeof(qmm_block_q8_0), 8);
}

static void q8_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)w + q8_w_offset(row, k);
    const int8_t *qs = (const int8_t *)(panel + (size_t)nb * 16);
    const int j = (int)(row % Q8_NR);
    for (int64_t b = 0; b < nb; b++) {
        uint16_t h;
        memcpy(&h, panel + b * 16 + j * 2, 2);
        const float d = qmm_fp16_to_fp32(h);
        for (int g = 0; g < 8; g++)
            for (int t = 0; t < 4; t++)
                dst[b * QMM_QK + 4 * g + t] = (float)qs[b * 256 + g * 32 + j * 4 + t] * d;
    }
}
