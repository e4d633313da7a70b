/* IQ4_NL, MXFP4, IQ4_XS x int8 activations, 256-bit integer dot products:
 * the body shared by the AVX2 and AVX-VNNI families of the 4-bit table
 * types. The includer defines
 *   TB(x)                            prefixes the body's names (one per family)
 *   TB_KIND                          0 IQ4_NL, 1 MXFP4, 2 IQ4_XS
 *   QMM_TB_SYM, QMM_TB_NAME, QMM_TB_REQUIRED   the descriptor,
 *   dot_step(acc, w_u8, x_s8)        IQ4_NL, IQ4_XS: adds, per int32 lane, the
 *                                    four u8 x s8 products of that lane (exactly),
 *   dot_step4(acc, w_u8[4], x_s8[4]) MXFP4: the same for four pairs of vectors
 *                                    (16 products a lane),
 *   dot_finish(acc)                  the int32 lane sums.
 * A nibble indexes the type's 16 int8 levels: vpshufb of the masked nibbles
 * gives the levels. IQ4_NL / IQ4_XS: the dot then is Q8_0's
 * (avx2_q8_0_body.h): |w| (vpabsb) times x with w's sign (vpsignb), a pair at
 * most 2 * 127 * 127 = 32258. MXFP4's levels are small (|kv| <= 12), so the
 * table gives kv + 12 in 0..24, unsigned as vpmaddubsw wants: no vpabsb and
 * no vpsignb, and isum = sum (kv + 12) x - 12 sum x, the activation block's
 * sum (exact; on AVX2 four vpmaddubsw add in int16 before one vpmaddwd: 8
 * products a lane, at most 8 * 24 * 128 = 24576).
 *
 * Packed panel of 8 weight rows (n_step 8), nb = k / 32 blocks:
 *   [header per unit (UE = 32, IQ4_XS 256)]   IQ4_NL: fp16 d, row j at 2j
 *                                             (16 B); MXFP4: the E8M0 byte,
 *                                             row j at j (8 B); IQ4_XS: fp16
 *                                             d (16 B), then int8 ls of
 *                                             32-block s, row j, at 16 + 8s + j
 *   [nb x 128 B quants: block b at b * 128, byte c * 32 + j * 4 + t is the
 *                       GGUF byte qs[4c + t] of the block, row j (Q4_0's)]
 * IQ4_NL 144 B and MXFP4 136 B per block: the source's size; IQ4_XS 1104 B
 * per 1088 B super-block (+1.5%). Per 32-block and output lane, the
 * reference's steps: isum = [ls *] sum kv[q] q_x (exact int32), then
 * acc = fma((float)isum, s * x_d, acc), s the fp16 d (vcvtph2ps, exact) or
 * MXFP4's 2^(e - 128) as bits: max((e - 1) << 23, 0x200000 << min(e, 2)). */
#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#include "formats/formats.h"

#define TB_NR       8
#define TB_WTYPE    (TB_KIND == 0 ? QMM_TYPE_IQ4_NL : TB_KIND == 1 ? QMM_TYPE_MXFP4 : QMM_TYPE_IQ4_XS)
#define TB_UE       (TB_KIND == 2 ? QMM_QK_K : QMM_QK)
#define TB_HDR      (TB_KIND == 1 ? 8 : TB_KIND == 2 ? 80 : 16)
#define TB_HDRS(nb) ((size_t)(nb) / (TB_UE / QMM_QK) * TB_HDR) /* header bytes of a panel */

static inline __m256i TB(bcast4)(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

#define TB_MX_BIAS 12 /* MXFP4: the table holds kv + 12 (0..24) */

/* The int8 levels (MXFP4: kv + 12) in both 128-bit lanes, from the one
 * table the reference uses, so the two cannot drift. */
static inline __attribute__((always_inline)) __m256i TB(table)(void) {
    const int8_t *kv = TB_KIND == 1 ? qmm_kvalues_mxfp4 : qmm_kvalues_iq4nl;
    const __m256i t = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)kv));
    return TB_KIND == 1 ? _mm256_add_epi8(t, _mm256_set1_epi8(TB_MX_BIAS)) : t;
}

#if TB_KIND == 1
/* MXFP4: two 32-byte chunks a step (low and high nibbles of each). */
typedef struct TB(wv) {
    __m256i w[4];
} TB(wv);
typedef struct TB(xv) {
    __m256i x[4];
} TB(xv);
#else
typedef struct TB(wv) {
    __m256i wl, wh, al, ah; /* levels of the low / high nibbles and their magnitudes */
} TB(wv);
typedef struct TB(xv) {
    __m256i xl, xh;
} TB(xv);
#endif
typedef __m256i TB(iacc);
typedef struct TB(ws) {
    __m256 s;
    __m256i ls;
} TB(ws);

#define DRV(x)              TB(x)
#define DRV_PANEL_BYTES(nb) (TB_HDRS(nb) + (size_t)(nb)*128)
#define DRV_QUANTS(nb, b)   (TB_HDRS(nb) + (size_t)(b)*128)
#define DRV_PF              1024 /* software prefetch distance per panel stream, bytes (as Q4_0) */
#define DRV_PF_LINES        2
#define DRV_CHUNKS          (TB_KIND == 1 ? 2 : 4)
#if TB_KIND != 1
/* the expanded GEMM's float accumulators in memory: gcc spilled the integer
 * states instead (IQ4_NL m = 512, 2 threads: 2-3% faster; MXFP4's four-pair
 * dot 9% slower so) */
#define DRV_X_ACC_QUAL volatile
#endif

static inline __attribute__((always_inline)) void TB(zero)(TB(iacc) * is) { *is = _mm256_setzero_si256(); }

#if TB_KIND == 1
/* Step c covers the 32-byte chunks 2c and 2c + 1 (elements 8c .. 8c + 7 and
 * 16 + 8c .. 16 + 8c + 7 of the block). */
static inline __attribute__((always_inline)) void TB(unpack)(TB(wv) * wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f), table = TB(table)();
    for (int h = 0; h < 2; h++) {
        const __m256i raw = _mm256_loadu_si256((const __m256i *)(const void *)(panel + DRV_QUANTS(nb, b) + (2 * c + h) * 32));
        wv->w[2 * h] = _mm256_shuffle_epi8(table, _mm256_and_si256(raw, m4));
        wv->w[2 * h + 1] = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4));
    }
}

static inline __attribute__((always_inline)) void TB(xload)(TB(xv) * xv, const qmm_act_block *xb, int c) {
    for (int h = 0; h < 2; h++) {
        xv->x[2 * h] = TB(bcast4)(xb->q + 4 * (2 * c + h));
        xv->x[2 * h + 1] = TB(bcast4)(xb->q + 16 + 4 * (2 * c + h));
    }
}

static inline __attribute__((always_inline)) void TB(dot)(TB(iacc) * is, const TB(wv) * wv, const TB(xv) * xv) {
    *is = dot_step4(*is, wv->w, xv->x);
    __asm__("" : "+x"(*is)); /* keep the chain (as below) */
}
#else
static inline __attribute__((always_inline)) void TB(unpack)(TB(wv) * wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const __m256i m4 = _mm256_set1_epi8(0x0f), table = TB(table)();
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(const void *)(panel + DRV_QUANTS(nb, b) + c * 32));
    wv->wl = _mm256_shuffle_epi8(table, _mm256_and_si256(raw, m4));
    wv->wh = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4));
    wv->al = _mm256_abs_epi8(wv->wl);
    wv->ah = _mm256_abs_epi8(wv->wh);
}

static inline __attribute__((always_inline)) void TB(xload)(TB(xv) * xv, const qmm_act_block *xb, int c) {
    xv->xl = TB(bcast4)(xb->q + 4 * c);
    xv->xh = TB(bcast4)(xb->q + 16 + 4 * c);
}

static inline __attribute__((always_inline)) void TB(dot)(TB(iacc) * is, const TB(wv) * wv, const TB(xv) * xv) {
    *is = dot_step(*is, wv->al, _mm256_sign_epi8(xv->xl, wv->wl));
    *is = dot_step(*is, wv->ah, _mm256_sign_epi8(xv->xh, wv->wh));
    /* keep the chain: gcc would reassociate the exact integer sums into a
     * tree and spill the products it holds */
    __asm__("" : "+x"(*is));
}
#endif

static inline __attribute__((always_inline)) void TB(scales)(TB(ws) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    const uint8_t *h = panel + (size_t)(b / (TB_UE / QMM_QK)) * TB_HDR;
    if (TB_KIND == 1) {
        int64_t e8;
        memcpy(&e8, h, 8);
        const __m256i e = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(e8));
        const __m256i normal = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(1)), 23); /* e = 0: negative */
        const __m256i low = _mm256_sllv_epi32(_mm256_set1_epi32(0x00200000), _mm256_min_epu32(e, _mm256_set1_epi32(2)));
        ws->s = _mm256_castsi256_ps(_mm256_max_epi32(normal, low));
    } else {
        ws->s = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)h));
    }
    if (TB_KIND == 2) {
        int64_t l8;
        memcpy(&l8, h + 16 + 8 * (b % 8), 8);
        ws->ls = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(l8));
    } else {
        ws->ls = _mm256_setzero_si256();
    }
}

static inline __attribute__((always_inline)) __m256 TB(float)(__m256 acc, const TB(iacc) * is, const TB(ws) * ws,
                                                              const qmm_act_block *xb) {
    __m256i isum = dot_finish(*is);
    if (TB_KIND == 1) /* |sum x| <= 32 * 127: the bias's share is exact */
        isum = _mm256_sub_epi32(isum, _mm256_set1_epi32(TB_MX_BIAS * xb->sum));
    if (TB_KIND == 2)
        isum = _mm256_mullo_epi32(ws->ls, isum); /* |.| <= 32 * 516128 < 2^24 */
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->s, _mm256_set1_ps(xb->d)), acc);
}

#define DRV_SYM       QMM_TB_SYM
#define DRV_NAME_STR  QMM_TB_NAME
#define DRV_REQUIRED  QMM_TB_REQUIRED
#define DRV_WTYPE     TB_WTYPE
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    TB(w_pack)
#define DRV_READ_ROW  TB(read_row)
#define DRV_W_UNPACK  TB(w_unpack_row)
#include "kernels/x86/avx2_int8_old.h"

/* GGUF unit u of a row into row j of a panel (header h of the unit, quants q
 * of its first 32-block), and row j back as the unit's GGUF bytes (put's
 * exact inverse, at dst of any alignment; GET_ROWS dequantizes them). */
static void TB(put)(const void *row, int64_t u, int j, uint8_t *h, uint8_t *q) {
    const uint8_t *qs;
    int nblk = 1;
    if (TB_KIND == 0) {
        const qmm_block_iq4_nl *blk = (const qmm_block_iq4_nl *)row + u;
        memcpy(h + 2 * j, &blk->d, 2);
        qs = blk->qs;
    } else if (TB_KIND == 1) {
        const qmm_block_mxfp4 *blk = (const qmm_block_mxfp4 *)row + u;
        h[j] = blk->e;
        qs = blk->qs;
    } else {
        const qmm_block_iq4_xs *blk = (const qmm_block_iq4_xs *)row + u;
        memcpy(h + 2 * j, &blk->d, 2);
        for (int s = 0; s < 8; s++)
            h[16 + 8 * s + j] = (uint8_t)(int8_t)qmm_iq4_xs_scale(blk, s);
        qs = blk->qs;
        nblk = 8;
    }
    for (int s = 0; s < nblk; s++)
        for (int c = 0; c < 4; c++)
            memcpy(q + 128 * s + 32 * c + 4 * j, qs + 16 * s + 4 * c, 4);
}

static void TB(get)(const uint8_t *h, const uint8_t *q, int j, void *dst) {
    uint8_t *out = (uint8_t *)dst, *qs;
    int nblk = 1;
    if (TB_KIND == 0) {
        memcpy(out + offsetof(qmm_block_iq4_nl, d), h + 2 * j, 2);
        qs = out + offsetof(qmm_block_iq4_nl, qs);
    } else if (TB_KIND == 1) {
        out[offsetof(qmm_block_mxfp4, e)] = h[j];
        qs = out + offsetof(qmm_block_mxfp4, qs);
    } else {
        qmm_block_iq4_xs blk; /* the header's fields, rebuilt whole */
        qmm_iq4_xs_header_put(&blk, h + 2 * j, h + 16 + j, 8);
        memcpy(out, &blk, offsetof(qmm_block_iq4_xs, qs));
        qs = out + offsetof(qmm_block_iq4_xs, qs);
        nblk = 8;
    }
    for (int s = 0; s < nblk; s++)
        for (int c = 0; c < 4; c++)
            memcpy(qs + 16 * s + 4 * c, q + 128 * s + 32 * c + 4 * j, 4);
}

static void TB(w_pack)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / TB_NR; p * TB_NR < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + TB(w_offset)(p * TB_NR, k);
        memset(panel, 0, TB_HDRS(nb) + (size_t)nb * 128); /* padding rows: zero scales and quants */
        for (int j = 0; j < TB_NR && p * TB_NR + j < n1; j++)
            for (int64_t u = 0; u < k / TB_UE; u++)
                TB(put)
        ((const char *)src + (size_t)(p * TB_NR + j) * stride, u, j, panel + (size_t)u * TB_HDR,
         panel + TB_HDRS(nb) + (size_t)u * (TB_UE / QMM_QK) * 128);
    }
}

static void TB(read_row)(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)w + TB(w_offset)(row, k);
    for (int64_t u = 0; u < k / TB_UE; u++) {
        union {
            qmm_block_iq4_nl nl;
            qmm_block_mxfp4 mx;
            qmm_block_iq4_xs xs;
        } blk; /* the GGUF unit rebuilt: ggml's values exactly */
        TB(get)
        (panel + (size_t)u * TB_HDR, panel + TB_HDRS(nb) + (size_t)u * (TB_UE / QMM_QK) * 128, (int)(row % TB_NR), &blk);
        qmm_dequantize_row(TB_WTYPE, &blk, dst + u * TB_UE, TB_UE);
    }
}

static void TB(w_unpack_row)(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)w + TB(w_offset)(row, k);
    for (int64_t u = 0; u < k / TB_UE; u++)
        TB(get)
    (panel + (size_t)u * TB_HDR, panel + TB_HDRS(nb) + (size_t)u * (TB_UE / QMM_QK) * 128, (int)(row % TB_NR),
     (uint8_t *)dst + (size_t)u * qmm_type_block_bytes(TB_WTYPE));
}

/* The body's parameters and names, so that a unit may include it again. */
#undef TB
#undef TB_KIND
#undef TB_NR
#undef TB_WTYPE
#undef TB_UE
#undef TB_HDR
#undef TB_HDRS
#undef TB_MX_BIAS
#undef QMM_TB_SYM
#undef QMM_TB_NAME
#undef QMM_TB_REQUIRED
