/* Shared pieces of the AVX-512 VNNI int8 families (Q4_0, Q8_0): the
 * activation quantize-and-pack, and the register tile. Included by exactly
 * the translation units that are compiled with AVX-512 VNNI flags.
 *
 * Activation layout (ours, not the reference one): rows in groups of G (8
 * for GEMM, 1 for GEMV). A group holds its k/32 blocks in ascending k; one
 * block of a group is G * 40 bytes:
 *     float   d[G]         the block scale of each row
 *     int32_t bias[G]      -(weight zero point) * (block sum of q) per row
 *     int8_t  q[G][32]     the quantized values, row after row
 * The bias is the exact integer correction vpdpbusd needs: it multiplies
 * unsigned weight bytes (Q4_0: q in 0..15, zero point 8; Q8_0: q + 128, zero
 * point 128) by signed activations, so starting the int32 accumulator at
 * -zp * sum(q_x) leaves exactly sum (q_w - zp) * q_x. A partial last group is
 * padded with zero rows. */
#ifndef QMM_X86_AVX512_INT8_H
#define QMM_X86_AVX512_INT8_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"

#define QMM_AVX512_ACT_BLK 40 /* bytes per row per block in the activation layout */
#define QMM_AVX512_NR      16 /* weight rows per panel: one zmm lane each */
#define QMM_AVX512_MR      8  /* activation rows per GEMM tile (the act group) */

/* ------------------------------------------------------------ activations */

static inline size_t qmm_avx512_act_size(int64_t m, int64_t k, int g) {
    const int64_t groups = (m + g - 1) / g;
    return (size_t)groups * (size_t)(k / QMM_QK) * (size_t)g * QMM_AVX512_ACT_BLK;
}

static inline size_t qmm_avx512_act_offset(int64_t m_idx, int64_t k, int g) {
    return (size_t)(m_idx / g) * (size_t)(k / QMM_QK) * (size_t)g * QMM_AVX512_ACT_BLK;
}

/* qmm_act_quantize_block, bit for bit, on two zmm of 16 floats:
 *  - amax: max_ps returns its second operand when either is NaN, so the
 *    possibly-NaN |x| goes first and NaN never wins (as in the reference);
 *  - d, pre and id are qmm_act_block_scale's (scalar); a tiny block's values
 *    are multiplied by pre (2^64, exact) first;
 *  - q = round-half-even(x * id) clamped to [-127, 127] and NaN -> 0. Clamping
 *    before rounding is the same (the bounds are integers, rounding is
 *    monotone) and keeps inf out of cvtps2dq (which would give INT_MIN). */
static inline void qmm_avx512_quant_block(const float *x, int8_t *q, float *d_out, int32_t *sum_out) {
    __m512 v0 = _mm512_loadu_ps(x);
    __m512 v1 = _mm512_loadu_ps(x + 16);
    const __m512 a0 = _mm512_abs_ps(v0);
    const __m512 a1 = _mm512_abs_ps(v1);
    const __m512 mx = _mm512_max_ps(a1, _mm512_max_ps(a0, _mm512_setzero_ps()));
    const float amax = _mm512_reduce_max_ps(mx);
    const qmm_act_scale sc = qmm_act_block_scale(amax);
    if (sc.pre != 1.0f) {
        v0 = _mm512_mul_ps(v0, _mm512_set1_ps(sc.pre));
        v1 = _mm512_mul_ps(v1, _mm512_set1_ps(sc.pre));
    }
    const __m512 vid = _mm512_set1_ps(sc.id);
    const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
    const __m512 p0 = _mm512_mul_ps(v0, vid);
    const __m512 p1 = _mm512_mul_ps(v1, vid);
    const __mmask16 ok0 = _mm512_cmp_ps_mask(p0, p0, _CMP_ORD_Q);
    const __mmask16 ok1 = _mm512_cmp_ps_mask(p1, p1, _CMP_ORD_Q);
    const __m512 c0 = _mm512_maskz_mov_ps(ok0, _mm512_min_ps(_mm512_max_ps(p0, lo), hi));
    const __m512 c1 = _mm512_maskz_mov_ps(ok1, _mm512_min_ps(_mm512_max_ps(p1, lo), hi));
    const __m512i i0 = _mm512_cvtps_epi32(c0); /* current rounding mode, like nearbyintf */
    const __m512i i1 = _mm512_cvtps_epi32(c1);
    _mm_storeu_si128((__m128i *)q, _mm512_cvtsepi32_epi8(i0));
    _mm_storeu_si128((__m128i *)(q + 16), _mm512_cvtsepi32_epi8(i1));
    *d_out = sc.d;
    const __m512i s16 = _mm512_add_epi32(i0, i1);
    __m256i s8 = _mm256_add_epi32(_mm512_castsi512_si256(s16), _mm512_extracti64x4_epi64(s16, 1));
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
    *sum_out = _mm_cvtsi128_si32(s4);
}

/* Packs m rows (m <= g at a group start, or many groups) in groups of g. */
static inline void qmm_avx512_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst, int g, int32_t zp) {
    const int64_t nb = k / QMM_QK;
    uint8_t *out = (uint8_t *)dst;
    for (int64_t r0 = 0; r0 < m; r0 += g) {
        uint8_t *grp = out + (size_t)(r0 / g) * (size_t)nb * (size_t)g * QMM_AVX512_ACT_BLK;
        for (int i = 0; i < g; i++) {
            const int64_t r = r0 + i;
            if (r >= m) {
                for (int64_t b = 0; b < nb; b++) {
                    uint8_t *blk = grp + (size_t)b * (size_t)g * QMM_AVX512_ACT_BLK;
                    memset(blk + 4 * i, 0, 4);
                    memset(blk + 4 * (g + i), 0, 4);
                    memset(blk + 8 * g + QMM_QK * i, 0, QMM_QK);
                }
                continue;
            }
            const float *row = (const float *)((const char *)x + (size_t)r * x_row_stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = grp + (size_t)b * (size_t)g * QMM_AVX512_ACT_BLK;
                float d;
                int32_t sum;
                qmm_avx512_quant_block(row + b * QMM_QK, (int8_t *)(blk + 8 * g + QMM_QK * i), &d, &sum);
                const int32_t bias = -zp * sum;
                memcpy(blk + 4 * i, &d, 4);
                memcpy(blk + 4 * (g + i), &bias, 4);
            }
        }
    }
}

/* ------------------------------------------------------------ weight panels
 *
 * A panel is 16 weight rows (n_step = 16; a partial last panel is padded with
 * zero rows). Two linear streams, both 64-byte aligned:
 *     uint16_t scale[nb][16]     the fp16 block scales, padded to 64 bytes
 *     uint8_t  quants[nb][QB]    per block: for each group c of 4 k-values
 *                                covered by one vpdpbusd, 16 rows x 4 bytes
 * The scales stay fp16 (converted exactly by vcvtph2ps once per block and
 * panel) so the panel streams exactly the GGUF bytes: a bandwidth-bound GEMV
 * reads 18 (Q4_0) / 34 (Q8_0) bytes per 32 weights, not 20 / 36. */

static inline size_t qmm_avx512_scale_bytes(int64_t nb) { return ((size_t)nb * 32 + 63) & ~(size_t)63; }

static inline size_t qmm_avx512_panel_bytes(int64_t k, int qb) {
    const int64_t nb = k / QMM_QK;
    return qmm_avx512_scale_bytes(nb) + (size_t)nb * (size_t)qb;
}

/* ------------------------------------------------------------------ tiles */

/* Loads the block's unsigned weight bytes: 8 zmm, vector c covering k-values
 * kidx[c]..kidx[c]+3 of every row (see the family files for the layouts). */
typedef enum { QMM_AVX512_W_Q4 = 0, QMM_AVX512_W_Q8 = 1 } qmm_avx512_wkind;

#define QMM_AVX512_INLINE static inline __attribute__((always_inline))

QMM_AVX512_INLINE void qmm_avx512_load_w(qmm_avx512_wkind kind, const uint8_t *qb, __m512i w[8]) {
    if (kind == QMM_AVX512_W_Q4) {
        /* 4 zmm of packed nibbles: byte t of row r in vector j is GGUF qs[4j+t],
         * whose low nibble is element 4j+t and high nibble element 16+4j+t. */
        const __m512i m4 = _mm512_set1_epi8(0x0f);
        for (int j = 0; j < 4; j++) {
            const __m512i p = _mm512_loadu_si512((const void *)(qb + 64 * j));
            w[j] = _mm512_and_si512(p, m4);
            w[j + 4] = _mm512_and_si512(_mm512_srli_epi16(p, 4), m4);
        }
    } else {
        for (int c = 0; c < 8; c++)
            w[c] = _mm512_loadu_si512((const void *)(qb + 64 * c));
    }
}

/* k offset within the block of weight vector c (matches qmm_avx512_load_w). */
QMM_AVX512_INLINE int qmm_avx512_kofs(qmm_avx512_wkind kind, int c) {
    return kind == QMM_AVX512_W_Q4 ? (c < 4 ? 4 * c : 16 + 4 * (c - 4)) : 4 * c;
}

QMM_AVX512_INLINE int32_t qmm_avx512_ld32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* MR activation rows (of a group of G) x one 16-row panel, all k blocks:
 * y[i][j] for i < MR, j < ncols. Per block and row: the exact int32 block dot
 * product per lane (vpdpbusd from the bias), then
 *     acc = fma((float)isum, wscale * xscale, acc)
 * which is the reference order, lane by lane. */
QMM_AVX512_INLINE void qmm_avx512_tile(qmm_avx512_wkind kind, int MR, int G, int64_t nb, const uint8_t *act, const uint8_t *panel,
                                       int qbytes, float *y, size_t ys, int ncols) {
    const uint8_t *sc = panel;
    const uint8_t *qw = panel + qmm_avx512_scale_bytes(nb);
    const size_t ablk = (size_t)G * QMM_AVX512_ACT_BLK;
    __m512 acc[QMM_AVX512_MR];
    for (int i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *ab = act + (size_t)b * ablk;
        const uint8_t *qb = qw + (size_t)b * (size_t)qbytes;
        _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes), _MM_HINT_T0);
        _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 64), _MM_HINT_T0);
        _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 128), _MM_HINT_T0);
        _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 192), _MM_HINT_T0);
        if (kind == QMM_AVX512_W_Q8) {
            _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 256), _MM_HINT_T0);
            _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 320), _MM_HINT_T0);
            _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 384), _MM_HINT_T0);
            _mm_prefetch((const char *)(qb + 8 * (size_t)qbytes + 448), _MM_HINT_T0);
        }
        const __m512 wsc = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(sc + (size_t)b * 32)));
        __m512i w[8];
        qmm_avx512_load_w(kind, qb, w);
        for (int i = 0; i < MR; i++) {
            const uint8_t *aq = ab + 8 * G + QMM_QK * i;
            __m512i s0 = _mm512_set1_epi32(qmm_avx512_ld32(ab + 4 * (G + i)));
            if (MR <= 2) {
                /* few rows: two dependency chains per block instead of one */
                __m512i s1 = _mm512_setzero_si512();
                for (int c = 0; c < 8; c += 2) {
                    s0 = _mm512_dpbusd_epi32(s0, w[c], _mm512_set1_epi32(qmm_avx512_ld32(aq + qmm_avx512_kofs(kind, c))));
                    s1 = _mm512_dpbusd_epi32(s1, w[c + 1], _mm512_set1_epi32(qmm_avx512_ld32(aq + qmm_avx512_kofs(kind, c + 1))));
                }
                s0 = _mm512_add_epi32(s0, s1);
            } else {
                for (int c = 0; c < 8; c++)
                    s0 = _mm512_dpbusd_epi32(s0, w[c], _mm512_set1_epi32(qmm_avx512_ld32(aq + qmm_avx512_kofs(kind, c))));
            }
            float xd;
            memcpy(&xd, ab + 4 * i, 4);
            const __m512 scale = _mm512_mul_ps(wsc, _mm512_set1_ps(xd));
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0), scale, acc[i]);
        }
    }
    const __mmask16 mask = (__mmask16)((1u << ncols) - 1u);
    for (int i = 0; i < MR; i++)
        _mm512_mask_storeu_ps((float *)((char *)y + (size_t)i * ys), mask, acc[i]);
}

/* Instantiations with constant MR (the compiler keeps acc[] in registers). */
#define QMM_AVX512_TILES(kind, qbytes)                                                                                           \
    static void tile_g1(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 1, 1, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m1(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 1, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m2(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 2, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m3(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 3, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m4(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 4, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m5(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 5, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m6(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 6, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m7(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 7, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    static void tile_m8(int64_t nb, const uint8_t *a, const uint8_t *p, float *y, size_t ys, int nc) {                           \
        qmm_avx512_tile(kind, 8, 8, nb, a, p, qbytes, y, ys, nc);                                                                \
    }                                                                                                                            \
    typedef void (*tile_fn)(int64_t, const uint8_t *, const uint8_t *, float *, size_t, int);                                    \
    static const tile_fn tiles_by_mr[9] = {NULL, tile_m1, tile_m2, tile_m3, tile_m4, tile_m5, tile_m6, tile_m7, tile_m8};        \
    /* Panel-outer: one panel (k/32 * (32 + qbytes) bytes) stays in L1/L2 while                                                  \
     * the activation groups stream past it; the weights are read once. */                                                       \
    static void gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {                       \
        const int64_t nb = k / QMM_QK;                                                                                           \
        const size_t pb = qmm_avx512_panel_bytes(k, qbytes);                                                                     \
        const size_t gb = (size_t)nb * QMM_AVX512_MR * QMM_AVX512_ACT_BLK;                                                       \
        for (int64_t n0 = 0; n0 < n; n0 += QMM_AVX512_NR) {                                                                      \
            const uint8_t *p = (const uint8_t *)w + (size_t)(n0 / QMM_AVX512_NR) * pb;                                           \
            const int nc = (int)(n - n0 < QMM_AVX512_NR ? n - n0 : QMM_AVX512_NR);                                               \
            for (int64_t m0 = 0; m0 < m; m0 += QMM_AVX512_MR) {                                                                  \
                const int mr = (int)(m - m0 < QMM_AVX512_MR ? m - m0 : QMM_AVX512_MR);                                           \
                const uint8_t *ag = (const uint8_t *)a + (size_t)(m0 / QMM_AVX512_MR) * gb;                                      \
                tiles_by_mr[mr](nb, ag, p, (float *)((char *)y + (size_t)m0 * ys) + n0, ys, nc);                                 \
            }                                                                                                                    \
        }                                                                                                                        \
    }                                                                                                                            \
    static void gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {                                             \
        const int64_t nb = k / QMM_QK;                                                                                           \
        const size_t pb = qmm_avx512_panel_bytes(k, qbytes);                                                                     \
        for (int64_t n0 = 0; n0 < n; n0 += QMM_AVX512_NR) {                                                                      \
            const int nc = (int)(n - n0 < QMM_AVX512_NR ? n - n0 : QMM_AVX512_NR);                                               \
            tile_g1(nb, (const uint8_t *)a, (const uint8_t *)w + (size_t)(n0 / QMM_AVX512_NR) * pb, y + n0, 0, nc);              \
        }                                                                                                                        \
    }

/* ------------------------------------------------------------ the family
 *
 * The panel walkers: a family supplies, for its weight type, how one source
 * block b of row r goes into (put) and comes back from (get: ggml's values
 * exactly) the block's scale bytes (16 fp16, row r at 2r) and its quant
 * bytes (qbytes, 16 rows per 4-k group). Packing is not on the hot path, so
 * plain function pointers do. */
typedef void (*qmm_avx512_put_block)(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants);
typedef void (*qmm_avx512_get_block)(const uint8_t *scales, const uint8_t *quants, int r, float *dst);

static inline void qmm_avx512_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst,
                                     int qbytes, qmm_avx512_put_block put) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512_NR) {
        uint8_t *panel = (uint8_t *)dst + (size_t)(p0 / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, qbytes);
        uint8_t *qw = panel + qmm_avx512_scale_bytes(nb);
        memset(panel, 0, qmm_avx512_panel_bytes(k, qbytes)); /* padding rows and the scale tail */
        for (int r = 0; r < QMM_AVX512_NR && p0 + r < n; r++) {
            const void *row = (const char *)src + (size_t)(p0 + r) * stride;
            for (int64_t b = 0; b < nb; b++)
                put(row, b, r, panel + (size_t)b * 32, qw + (size_t)b * (size_t)qbytes);
        }
    }
}

static inline void qmm_avx512_w_read_row(const void *packed, int64_t k, int64_t row, float *dst, int qbytes,
                                         qmm_avx512_get_block get) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + (size_t)(row / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, qbytes);
    const uint8_t *qw = panel + qmm_avx512_scale_bytes(nb);
    for (int64_t b = 0; b < nb; b++)
        get(panel + (size_t)b * 32, qw + (size_t)b * (size_t)qbytes, (int)(row % QMM_AVX512_NR), dst + b * QMM_QK);
}

/* Defines `const qmm_family qmm_family_<id>` (name "<id>"): weights of type
 * wtype in panels of qbytes quant bytes per block, loaded as `kind`
 * (qmm_avx512_load_w), packed by put / read by get; activations biased by the
 * zero point zp (8 for Q4_0's nibbles, 128 for Q8_0's q + 128). */
#define QMM_AVX512_INT8_FAMILY(id, wtype_, kind, qbytes, zp, put, get)                                                           \
    static size_t w_size(int64_t k, int64_t n) {                                                                                 \
        return (size_t)((n + QMM_AVX512_NR - 1) / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, qbytes);                            \
    }                                                                                                                            \
    static size_t w_offset(int64_t n_idx, int64_t k) {                                                                           \
        return (size_t)(n_idx / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, qbytes);                                              \
    }                                                                                                                            \
    static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {                \
        qmm_avx512_w_pack(k, n, n0, n1, src, stride, dst, qbytes, put);                                                          \
    }                                                                                                                            \
    static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {                                  \
        qmm_avx512_w_read_row(packed, k, row, dst, qbytes, get);                                                                 \
    }                                                                                                                            \
    static size_t act_size(int64_t m, int64_t k) { return qmm_avx512_act_size(m, k, QMM_AVX512_MR); }                            \
    static size_t act_offset(int64_t m_idx, int64_t k) { return qmm_avx512_act_offset(m_idx, k, QMM_AVX512_MR); }                \
    static void act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {                                           \
        qmm_avx512_act_pack(m, k, x, xs, dst, QMM_AVX512_MR, zp);                                                                \
    }                                                                                                                            \
    static size_t act1_size(int64_t m, int64_t k) { return qmm_avx512_act_size(m, k, 1); }                                       \
    static size_t act1_offset(int64_t m_idx, int64_t k) { return qmm_avx512_act_offset(m_idx, k, 1); }                           \
    static void act1_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {                                          \
        qmm_avx512_act_pack(m, k, x, xs, dst, 1, zp);                                                                            \
    }                                                                                                                            \
    QMM_AVX512_TILES(kind, qbytes)                                                                                               \
    const qmm_family qmm_family_##id = {                                                                                         \
        .name = #id,                                                                                                             \
        .wtype = wtype_,                                                                                                         \
        .required =                                                                                                              \
            QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI | QMM_CPU_F16C,        \
        .fallback_hides = QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI,         \
        .flags = 0,                                                                                                              \
        .layout_id = 1,                                                                                                          \
        .mr = QMM_AVX512_MR,                                                                                                     \
        .nr = QMM_AVX512_NR,                                                                                                     \
        .kr = 4,                                                                                                                 \
        .sr = 1,                                                                                                                 \
        .n_step = QMM_AVX512_NR,                                                                                                 \
        .w_packed_size = w_size,                                                                                                 \
        .w_packed_offset = w_offset,                                                                                             \
        .w_pack = w_pack,                                                                                                        \
        .w_read_row = w_read_row,                                                                                                \
        .act = {QMM_AVX512_MR, act_size, act_offset, act_pack},                                                                  \
        .act_gemv = {1, act1_size, act1_offset, act1_pack},                                                                      \
        .gemm = gemm,                                                                                                            \
        .gemv = gemv,                                                                                                            \
    };

#endif
