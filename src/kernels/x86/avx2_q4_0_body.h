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
#include "kernels/family.h"
#include "kernels/x86/act_q8_avx2.h"

#define Q4_NR          8
#define Q4_PF          1024 /* software prefetch distance per panel stream, bytes (measured) */
#define Q4_MR          4
#define Q4_BLOCK_BYTES 144 /* per block of a panel: 16 B scales + 128 B quants */

static size_t q4_panel_bytes(int64_t k) { return (size_t)(k / QMM_QK) * Q4_BLOCK_BYTES; }

static size_t q4_w_size(int64_t k, int64_t n) { return (size_t)((n + Q4_NR - 1) / Q4_NR) * q4_panel_bytes(k); }

static size_t q4_w_offset(int64_t n_idx, int64_t k) { return (size_t)(n_idx / Q4_NR) * q4_panel_bytes(k); }

static void q4_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / Q4_NR; p * Q4_NR < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * q4_panel_bytes(k);
        uint8_t *qs = panel + (size_t)nb * 16;
        for (int j = 0; j < Q4_NR; j++) {
            const int64_t row = p * Q4_NR + j;
            const uint8_t *blk = (const uint8_t *)src + (size_t)row * stride;
            for (int64_t b = 0; b < nb; b++, blk += sizeof(qmm_block_q4_0)) {
                if (row < n1) {
                    memcpy(panel + b * 16 + j * 2, blk, 2); /* fp16 d */
                    for (int c = 0; c < 4; c++)
                        memcpy(qs + b * 128 + c * 32 + j * 4, blk + 2 + 4 * c, 4);
                } else { /* padding rows: zero scale, zero quants */
                    memset(panel + b * 16 + j * 2, 0, 2);
                    for (int c = 0; c < 4; c++)
                        memset(qs + b * 128 + c * 32 + j * 4, 0, 4);
                }
            }
        }
    }
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

static inline __m256i q4_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* Stores the first ncols lanes (a partial last panel writes nothing beyond n). */
static inline void q4_store(float *y, __m256 v, int ncols) {
    static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    if (ncols == Q4_NR)
        _mm256_storeu_ps(y, v);
    else
        _mm256_maskstore_ps(y, _mm256_loadu_si256((const __m256i *)(lanes + Q4_NR - ncols)), v);
}

/* mr activation rows (a, nb blocks apart) x np consecutive panels (np * mr
 * <= 4 float accumulators): each weight vector is loaded and unpacked once for all
 * mr rows, each activation broadcast made once for all np panels. ncols: the
 * last panel's valid columns. */
static inline __attribute__((always_inline)) void q4_tile(const int np, const int mr, int64_t nb, const qmm_act_block *a,
                                                          const uint8_t *panel, float *y, size_t ys, int ncols) {
    const size_t pb = (size_t)nb * Q4_BLOCK_BYTES;
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    __m256 acc[4][Q4_MR];
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            acc[p][r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m256i is[4][Q4_MR];
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++)
                is[p][r] = _mm256_setzero_si256();
        for (int p = 0; p < np; p++) { /* memory bound at small m: run ahead across 4 KiB pages */
            const uint8_t *qw = panel + p * pb + (size_t)nb * 16 + b * 128;
            _mm_prefetch((const char *)(qw + Q4_PF), _MM_HINT_T0);
            _mm_prefetch((const char *)(qw + Q4_PF + 64), _MM_HINT_T0);
        }
        for (int c = 0; c < 4; c++) {
            __m256i lo[4], hi[4];
            for (int p = 0; p < np; p++) {
                const uint8_t *qw = panel + p * pb + (size_t)nb * 16 + b * 128;
                const __m256i raw = _mm256_loadu_si256((const __m256i *)(qw + c * 32));
                lo[p] = _mm256_and_si256(raw, m4);
                hi[p] = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
            }
            for (int r = 0; r < mr; r++) {
                const int8_t *xq = a[r * nb + b].q;
                const __m256i xl = q4_bcast4(xq + 4 * c), xh = q4_bcast4(xq + 16 + 4 * c);
                for (int p = 0; p < np; p++) {
                    is[p][r] = dot_step(is[p][r], lo[p], xl);
                    is[p][r] = dot_step(is[p][r], hi[p], xh);
                    /* keep the chain: gcc would reassociate the exact integer
                     * sums into a tree and spill the products it holds */
                    __asm__("" : "+x"(is[p][r]));
                }
            }
        }
        for (int p = 0; p < np; p++) {
            const __m256 wd = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + p * pb + b * 16)));
            for (int r = 0; r < mr; r++) {
                const qmm_act_block *xb = &a[r * nb + b];
                /* sum (q - 8) x = sum q x - 8 sum x, exact in int32 */
                const __m256i isum = _mm256_sub_epi32(dot_finish(is[p][r]), _mm256_slli_epi32(_mm256_set1_epi32(xb->sum), 3));
                const __m256 scale = _mm256_mul_ps(wd, _mm256_set1_ps(xb->d));
                acc[p][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), scale, acc[p][r]);
            }
        }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            q4_store((float *)((char *)y + (size_t)r * ys) + p * Q4_NR, acc[p][r], p == np - 1 ? ncols : Q4_NR);
}

static void q4_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    /* Panel outer: one panel (144 B x nb) stays in L1 while every row group
     * streams past it, so weights come from memory once. */
    for (int64_t j0 = 0; j0 < n; j0 += Q4_NR) {
        const uint8_t *panel = (const uint8_t *)w + q4_w_offset(j0, k);
        const int ncols = (int)(n - j0 < Q4_NR ? n - j0 : Q4_NR);
        int64_t i = 0;
        for (; i + Q4_MR <= m; i += Q4_MR)
            q4_tile(1, Q4_MR, nb, act + i * nb, panel, (float *)((char *)y + (size_t)i * ys) + j0, ys, ncols);
        float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
        switch (m - i) {
        case 3: q4_tile(1, 3, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 2: q4_tile(1, 2, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 1: q4_tile(1, 1, nb, act + i * nb, panel, yi, ys, ncols); break;
        default: break;
        }
    }
}

/* Four panels at a time: the activation broadcasts serve 32 rows, and four
 * streams run ahead in memory at once (measured: ~10-20% over two). */
static void q4_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    int64_t j0 = 0;
    for (; j0 + 3 * Q4_NR < n; j0 += 4 * Q4_NR) {
        const int ncols = (int)(n - j0 - 3 * Q4_NR < Q4_NR ? n - j0 - 3 * Q4_NR : Q4_NR);
        q4_tile(4, 1, nb, act, (const uint8_t *)w + q4_w_offset(j0, k), y + j0, 0, ncols);
    }
    for (; j0 < n; j0 += Q4_NR)
        q4_tile(1, 1, nb, act, (const uint8_t *)w + q4_w_offset(j0, k), y + j0, 0, (int)(n - j0 < Q4_NR ? n - j0 : Q4_NR));
}

static size_t q4_act_size(int64_t m, int64_t k) { return (size_t)m * (size_t)(k / QMM_QK) * sizeof(qmm_act_block); }

static size_t q4_act_offset(int64_t m_idx, int64_t k) { return q4_act_size(m_idx, k); }

const qmm_family QMM_Q4_SYM = {
    .name = QMM_Q4_NAME,
    .wtype = QMM_TYPE_Q4_0,
    .required = QMM_Q4_REQUIRED,
    /* masked off to choose the fallback (QMM_CAP hybrid runs): AVX-VNNI falls back to AVX2, AVX2 to the reference */
    .fallback_hides = (QMM_Q4_REQUIRED & QMM_CPU_AVXVNNI) ? QMM_CPU_AVXVNNI : QMM_Q4_REQUIRED,
    .flags = 0,
    .layout_id = 1,
    .mr = Q4_MR,
    .nr = Q4_NR,
    .kr = 4,
    .sr = 1,
    .n_step = Q4_NR,
    .w_packed_size = q4_w_size,
    .w_packed_offset = q4_w_offset,
    .w_pack = q4_w_pack,
    .w_read_row = q4_read_row,
    .act = {1, q4_act_size, q4_act_offset, qmm_avx2_act_q8_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = q4_gemm,
    .gemv = q4_gemv,
};
