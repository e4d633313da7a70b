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
#include "kernels/family.h"
#include "kernels/x86/act_q8_avx2.h"

#define Q8_NR          8
#define Q8_PF          1024 /* software prefetch distance per panel stream, bytes (measured) */
#define Q8_MR          4
#define Q8_BLOCK_BYTES 272 /* per block of a panel: 16 B scales + 256 B quants */

static size_t q8_panel_bytes(int64_t k) { return (size_t)(k / QMM_QK) * Q8_BLOCK_BYTES; }

static size_t q8_w_size(int64_t k, int64_t n) { return (size_t)((n + Q8_NR - 1) / Q8_NR) * q8_panel_bytes(k); }

static size_t q8_w_offset(int64_t n_idx, int64_t k) { return (size_t)(n_idx / Q8_NR) * q8_panel_bytes(k); }

static void q8_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / Q8_NR; p * Q8_NR < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * q8_panel_bytes(k);
        uint8_t *qs = panel + (size_t)nb * 16;
        for (int j = 0; j < Q8_NR; j++) {
            const int64_t row = p * Q8_NR + j;
            const uint8_t *blk = (const uint8_t *)src + (size_t)row * stride;
            for (int64_t b = 0; b < nb; b++, blk += sizeof(qmm_block_q8_0)) {
                if (row < n1) {
                    memcpy(panel + b * 16 + j * 2, blk, 2); /* fp16 d */
                    for (int g = 0; g < 8; g++)
                        memcpy(qs + b * 256 + g * 32 + j * 4, blk + 2 + 4 * g, 4);
                } else { /* padding rows: zero scale, zero quants */
                    memset(panel + b * 16 + j * 2, 0, 2);
                    for (int g = 0; g < 8; g++)
                        memset(qs + b * 256 + g * 32 + j * 4, 0, 4);
                }
            }
        }
    }
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

static inline __m256i q8_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

static inline void q8_store(float *y, __m256 v, int ncols) {
    static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    if (ncols == Q8_NR)
        _mm256_storeu_ps(y, v);
    else
        _mm256_maskstore_ps(y, _mm256_loadu_si256((const __m256i *)(lanes + Q8_NR - ncols)), v);
}

/* mr activation rows (a, nb blocks apart) x np consecutive panels (np * mr
 * <= 4 float accumulators): |w| is taken once per weight vector for all mr rows,
 * each activation broadcast made once for all np panels. ncols: the last
 * panel's valid columns. */
static inline __attribute__((always_inline)) void q8_tile(const int np, const int mr, int64_t nb, const qmm_act_block *a,
                                                          const uint8_t *panel, float *y, size_t ys, int ncols) {
    const size_t pb = (size_t)nb * Q8_BLOCK_BYTES;
    __m256 acc[4][Q8_MR];
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            acc[p][r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m256i is[4][Q8_MR];
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++)
                is[p][r] = _mm256_setzero_si256();
        for (int p = 0; p < np; p++) { /* memory bound at small m: run ahead across 4 KiB pages */
            const uint8_t *qw = panel + p * pb + (size_t)nb * 16 + b * 256;
            for (int i = 0; i < 4; i++)
                _mm_prefetch((const char *)(qw + Q8_PF + 64 * i), _MM_HINT_T0);
        }
        for (int g = 0; g < 8; g++) {
            __m256i wv[4], aw[4];
            for (int p = 0; p < np; p++) {
                const uint8_t *qw = panel + p * pb + (size_t)nb * 16 + b * 256;
                wv[p] = _mm256_loadu_si256((const __m256i *)(qw + g * 32));
                aw[p] = _mm256_abs_epi8(wv[p]);
            }
            for (int r = 0; r < mr; r++) {
                const __m256i xb = q8_bcast4(a[r * nb + b].q + 4 * g);
                for (int p = 0; p < np; p++) {
                    is[p][r] = dot_step(is[p][r], aw[p], _mm256_sign_epi8(xb, wv[p]));
                    /* keep the chain: gcc would reassociate the exact integer
                     * sums into a tree and spill the products it holds */
                    __asm__("" : "+x"(is[p][r]));
                }
            }
        }
        for (int p = 0; p < np; p++) {
            const __m256 wd = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + p * pb + b * 16)));
            for (int r = 0; r < mr; r++) {
                const __m256 scale = _mm256_mul_ps(wd, _mm256_set1_ps(a[r * nb + b].d));
                acc[p][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_finish(is[p][r])), scale, acc[p][r]);
            }
        }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            q8_store((float *)((char *)y + (size_t)r * ys) + p * Q8_NR, acc[p][r], p == np - 1 ? ncols : Q8_NR);
}

static void q8_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    /* Panel outer: the panel stays in L1/L2 while the row groups stream past. */
    for (int64_t j0 = 0; j0 < n; j0 += Q8_NR) {
        const uint8_t *panel = (const uint8_t *)w + q8_w_offset(j0, k);
        const int ncols = (int)(n - j0 < Q8_NR ? n - j0 : Q8_NR);
        int64_t i = 0;
        for (; i + Q8_MR <= m; i += Q8_MR)
            q8_tile(1, Q8_MR, nb, act + i * nb, panel, (float *)((char *)y + (size_t)i * ys) + j0, ys, ncols);
        float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
        switch (m - i) {
        case 3: q8_tile(1, 3, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 2: q8_tile(1, 2, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 1: q8_tile(1, 1, nb, act + i * nb, panel, yi, ys, ncols); break;
        default: break;
        }
    }
}

/* Four panels at a time: the activation broadcasts serve 32 rows, and four
 * streams run ahead in memory at once (measured: ~10-20% over two). */
static void q8_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    int64_t j0 = 0;
    for (; j0 + 3 * Q8_NR < n; j0 += 4 * Q8_NR) {
        const int ncols = (int)(n - j0 - 3 * Q8_NR < Q8_NR ? n - j0 - 3 * Q8_NR : Q8_NR);
        q8_tile(4, 1, nb, act, (const uint8_t *)w + q8_w_offset(j0, k), y + j0, 0, ncols);
    }
    for (; j0 < n; j0 += Q8_NR)
        q8_tile(1, 1, nb, act, (const uint8_t *)w + q8_w_offset(j0, k), y + j0, 0, (int)(n - j0 < Q8_NR ? n - j0 : Q8_NR));
}

static size_t q8_act_size(int64_t m, int64_t k) { return (size_t)m * (size_t)(k / QMM_QK) * sizeof(qmm_act_block); }

static size_t q8_act_offset(int64_t m_idx, int64_t k) { return q8_act_size(m_idx, k); }

const qmm_family QMM_Q8_SYM = {
    .name = QMM_Q8_NAME,
    .wtype = QMM_TYPE_Q8_0,
    .required = QMM_Q8_REQUIRED,
    /* masked off to choose the fallback (QMM_CAP hybrid runs): AVX-VNNI falls back to AVX2, AVX2 to the reference */
    .fallback_hides = (QMM_Q8_REQUIRED & QMM_CPU_AVXVNNI) ? QMM_CPU_AVXVNNI : QMM_Q8_REQUIRED,
    .flags = 0,
    .layout_id = 1,
    .mr = Q8_MR,
    .nr = Q8_NR,
    .kr = 4,
    .sr = 1,
    .n_step = Q8_NR,
    .w_packed_size = q8_w_size,
    .w_packed_offset = q8_w_offset,
    .w_pack = q8_w_pack,
    .w_read_row = q8_read_row,
    .act = {1, q8_act_size, q8_act_offset, qmm_avx2_act_q8_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = q8_gemm,
    .gemv = q8_gemv,
};
