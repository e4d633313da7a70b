/* Q5_0 / Q4_1 / Q5_1 x int8 activations, 256-bit integer dot products: the
 * body shared by their AVX2 families (matmul_q5_0_avx2.c ...) and AVX-VNNI
 * families (matmul_q5_0_avxvnni.c ...), on the AVX2 int8 driver
 * (avx2_int8_body.h). The includer defines
 *   LQ(x)                             a per-format name prefix (several
 *                                     bodies share the emulation test's unit)
 *   LQ_SYM, LQ_NAME, LQ_REQUIRED      the descriptor,
 *   LQ_WTYPE, LQ_BLOCK                the GGUF type and its block struct,
 *   LQ_HAS_MIN                        1 for Q4_1 / Q5_1 (value d * q + m),
 *   LQ_HAS_QH                         1 for Q5_* (a fifth bit per element),
 *   LQ_OFFSET                         16 for Q5_0 (value (q - 16) * d), else 0,
 *   dot_step(acc, w_u8, x_s8), dot_finish(acc)   as for avx2_q4_0_body.h.
 *
 * Packed panel of 8 weight rows, per 32-block b at b * LQ_BB:
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
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"

#define LQ_M_OFF  16
#define LQ_QH_OFF (16 + 16 * LQ_HAS_MIN)
#define LQ_QS_OFF (LQ_QH_OFF + 32 * LQ_HAS_QH)
#define LQ_BB     (LQ_QS_OFF + 128)

typedef struct {
    __m256i lo, hi;
} LQ(wv);
typedef struct {
    __m256i xl, xh;
} LQ(xv);
typedef __m256i LQ(iacc);
typedef struct {
    __m256 d, m;
} LQ(ws);

#define DRV(x)              LQ(x)
#define DRV_PANEL_BYTES(nb) ((size_t)(nb)*LQ_BB)
#define DRV_QUANTS(nb, b)   ((size_t)(b)*LQ_BB + LQ_QS_OFF)
#define DRV_PF              1024
#define DRV_PF_LINES        3
#define DRV_CHUNKS          4

static inline __m256i LQ(bcast4)(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

static inline __attribute__((always_inline)) void LQ(zero)(LQ(iacc) * is) { *is = _mm256_setzero_si256(); }

static inline __attribute__((always_inline)) void LQ(unpack)(LQ(wv) * wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    (void)nb;
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const uint8_t *blk = panel + (size_t)b * LQ_BB;
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(blk + LQ_QS_OFF + c * 32));
    wv->lo = _mm256_and_si256(raw, m4);
    wv->hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
#if LQ_HAS_QH
    /* bits 4c.. of each row's qh to bit 0.. of its dword, then byte 0 (low
     * elements) or byte 2 (high elements) to all four bytes, bit t of byte t */
    const __m256i qh = _mm256_srl_epi32(_mm256_loadu_si256((const __m256i *)(blk + LQ_QH_OFF)), _mm_cvtsi32_si128(4 * c));
    const __m256i to_lo =
        _mm256_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
    const __m256i to_hi = _mm256_add_epi8(to_lo, _mm256_set1_epi8(2));
    const __m256i sel = _mm256_set1_epi32(0x08040201), b4 = _mm256_set1_epi8(0x10);
    const __m256i bl = _mm256_shuffle_epi8(qh, to_lo), bh = _mm256_shuffle_epi8(qh, to_hi);
    wv->lo = _mm256_or_si256(wv->lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(bl, sel), sel), b4));
    wv->hi = _mm256_or_si256(wv->hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(bh, sel), sel), b4));
#endif
}

static inline __attribute__((always_inline)) void LQ(xload)(LQ(xv) * xv, const qmm_act_block *xb, int c) {
    xv->xl = LQ(bcast4)(xb->q + 4 * c);
    xv->xh = LQ(bcast4)(xb->q + 16 + 4 * c);
}

static inline __attribute__((always_inline)) void LQ(dot)(LQ(iacc) * is, const LQ(wv) * wv, const LQ(xv) * xv) {
    *is = dot_step(*is, wv->lo, xv->xl);
    *is = dot_step(*is, wv->hi, xv->xh);
    __asm__("" : "+x"(*is)); /* keep the chain (see avx2_q4_0_body.h) */
}

static inline __attribute__((always_inline)) void LQ(scales)(LQ(ws) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    const uint8_t *blk = panel + (size_t)b * LQ_BB;
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
#if LQ_HAS_MIN
    ws->m = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(blk + LQ_M_OFF)));
#else
    ws->m = _mm256_setzero_ps();
#endif
}

static inline __attribute__((always_inline)) __m256 LQ(float)(__m256 acc, const LQ(iacc) * is, const LQ(ws) * ws,
                                                              const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    /* sum (q - off) x = sum q x - off sum x, exact in int32 */
    const __m256i isum = _mm256_sub_epi32(dot_finish(*is), _mm256_set1_epi32(LQ_OFFSET * xb->sum));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
#if LQ_HAS_MIN
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_set1_epi32(xb->sum)), _mm256_mul_ps(ws->m, xd), acc);
#endif
    return acc;
}

#define DRV_SYM       LQ_SYM
#define DRV_NAME_STR  LQ_NAME
#define DRV_REQUIRED  LQ_REQUIRED
#define DRV_WTYPE     LQ_WTYPE
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    LQ(w_pack)
#define DRV_READ_ROW  LQ(read_row)
#define DRV_W_UNPACK  LQ(w_unpack_row)
#include "kernels/x86/avx2_int8_body.h"

static void LQ(w_pack)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + LQ(w_offset)(p * 8, k);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const LQ_BLOCK *wb = (const LQ_BLOCK *)((const uint8_t *)src + (size_t)row * stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * LQ_BB;
                if (row >= n1) { /* padding rows: zero scales, zero quants */
                    memset(blk + 2 * j, 0, 2);
                    if (LQ_HAS_MIN)
                        memset(blk + LQ_M_OFF + 2 * j, 0, 2);
                    if (LQ_HAS_QH)
                        memset(blk + LQ_QH_OFF + 4 * j, 0, 4);
                    for (int c = 0; c < 4; c++)
                        memset(blk + LQ_QS_OFF + 32 * c + 4 * j, 0, 4);
                    continue;
                }
                memcpy(blk + 2 * j, &wb[b].d, 2);
#if LQ_HAS_MIN
                memcpy(blk + LQ_M_OFF + 2 * j, &wb[b].m, 2);
#endif
#if LQ_HAS_QH
                memcpy(blk + LQ_QH_OFF + 4 * j, wb[b].qh, 4);
#endif
                for (int c = 0; c < 4; c++)
                    memcpy(blk + LQ_QS_OFF + 32 * c + 4 * j, wb[b].qs + 4 * c, 4);
            }
        }
    }
}

/* The GGUF blocks LQ(w_pack) copied, copied back. */
static void LQ(w_unpack_row)(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + LQ(w_offset)(row, k);
    const int j = (int)(row % 8);
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const uint8_t *blk = panel + (size_t)b * LQ_BB;
        LQ_BLOCK wb;
        memcpy(&wb.d, blk + 2 * j, 2);
#if LQ_HAS_MIN
        memcpy(&wb.m, blk + LQ_M_OFF + 2 * j, 2);
#endif
#if LQ_HAS_QH
        memcpy(wb.qh, blk + LQ_QH_OFF + 4 * j, 4);
#endif
        for (int c = 0; c < 4; c++)
            memcpy(wb.qs + 4 * c, blk + LQ_QS_OFF + 32 * c + 4 * j, 4);
        memcpy((uint8_t *)dst + (size_t)b * sizeof wb, &wb, sizeof wb);
    }
}

/* The reference's dequantization: d * (q - 16), or d * q + m. */
static void LQ(read_row)(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + LQ(w_offset)(row, k);
    const int j = (int)(row % 8);
    for (int64_t b = 0; b < k / QMM_QK; b++) {
        const uint8_t *blk = panel + (size_t)b * LQ_BB;
        uint16_t h;
        memcpy(&h, blk + 2 * j, 2);
        const float d = qmm_fp16_to_fp32(h);
        float m = 0.0f;
        uint32_t qh = 0;
#if LQ_HAS_MIN
        memcpy(&h, blk + LQ_M_OFF + 2 * j, 2);
        m = qmm_fp16_to_fp32(h);
#endif
#if LQ_HAS_QH
        const uint8_t *q4 = blk + LQ_QH_OFF + 4 * j; /* little-endian, as GGUF */
        qh = (uint32_t)q4[0] | (uint32_t)q4[1] << 8 | (uint32_t)q4[2] << 16 | (uint32_t)q4[3] << 24;
#endif
        for (int c = 0; c < 4; c++)
            for (int t = 0; t < 4; t++) {
                const uint8_t v = blk[LQ_QS_OFF + 32 * c + 4 * j + t];
                const int l = 4 * c + t;
                const int ql = (v & 0x0f) | (int)((qh >> l) & 1) << 4, qhi = (v >> 4) | (int)((qh >> (l + 16)) & 1) << 4;
                float *y = dst + b * QMM_QK;
                if (LQ_HAS_MIN) {
                    y[l] = d * (float)ql + m;
                    y[16 + l] = d * (float)qhi + m;
                } else {
                    y[l] = d * (float)(ql - LQ_OFFSET);
                    y[16 + l] = d * (float)(qhi - LQ_OFFSET);
                }
            }
    }
}

#undef LQ_M_OFF
#undef LQ_QH_OFF
#undef LQ_QS_OFF
#undef LQ_BB
#undef LQ
#undef LQ_SYM
#undef LQ_NAME
#undef LQ_REQUIRED
#undef LQ_WTYPE
#undef LQ_BLOCK
#undef LQ_HAS_MIN
#undef LQ_HAS_QH
#undef LQ_OFFSET
