/* Q2_K and Q3_K x int8 activations, 256-bit integer dot products: the body
 * shared by the AVX2 families (matmul_q2_k_avx2.c, matmul_q3_k_avx2.c) and the
 * AVX-VNNI families (matmul_q2_k_avxvnni.c, matmul_q3_k_avxvnni.c), on the
 * AVX2 int8 driver (avx2_int8_body.h). The includer defines QMM_Q23_SYM,
 * QMM_Q23_NAME, QMM_Q23_REQUIRED, dot_step and dot_finish (as for
 * avx2_q4_0_body.h; Q2_K with QMM_Q23_I16: dot_step only, every float step
 * multiplies its int16 pairs by vpmaddwd), QMM_Q23_Q3 1 for Q3_K (default 0:
 * Q2_K), and
 * QMM_Q23_I16 1 when dot_step's states are int16 pair sums (AVX2; the
 * expanded GEMM's float step then widens them by vpmaddwd against the
 * scales, not dot_finish and vpmulld). Both have
 * 2-bit low quants and a scale per 16 elements; Q3_K adds a third bit and
 * signed 6-bit scales, Q2_K has 4-bit scales and 4-bit mins.
 *
 * The dot runs over the unsigned u (Q2_K: q, 0..3; Q3_K: q + 4, 0..7), one
 * int32 lane per row and two chains per block (elements 0..15 and 16..31,
 * each 4 steps: AVX2's int16 pair sums stay below 4 * 2 * 7 * 127 = 7112).
 *
 * Packed panel of 8 weight rows, per super-block of 256, the GGUF size exactly
 * (Q2_K 672 B, Q3_K 880 B):
 *   Q2_K: [8 fp16 d][8 fp16 dmin]                                       32 B
 *         [16 x 8 u8 GGUF scale bytes (sc | m << 4): sub-block s, row j
 *          at 8 s + j]                                                   128 B
 *   Q3_K: [8 fp16 d]                                                     16 B
 *         [8 x 8 u8: 32-block i, row j at 8 i + j: low 4 bits of stored
 *          scale 2i | those of 2i+1 << 4]                                64 B
 *         [4 x 8 u8: row j at 8 (i / 2) + j, nibble i % 2: top 2 bits of
 *          stored scale 2i | those of 2i+1 << 2]                         32 B
 *   (the scales stay 6-bit packed: as bytes they would be +3.6% over GGUF);
 *   then per 32-block i, [L 32 B][H 32 B], byte j * 4 + t bits 2c..2c+1: the
 *   low two bits of element 4c+t (L) / 16+4c+t (H) of row j, and for Q3_K
 *   [T 32 B]: byte j * 4 + t, bit c: bit 2 of u (GGUF's hmask bit) of element
 *   4c+t, bit 4+c of element 16+4c+t.
 * Float step, the reference's exactly, with sa / sb the activation's sums of
 * elements 0..15 / 16..31 and da / db the two dots:
 *   Q2_K: isum = sc_a da + sc_b db, acc = fma((float)isum, d * x_d, acc),
 *         imin = -(m_a sa + m_b sb), acc = fma((float)imin, dmin * x_d, acc);
 *   Q3_K: isum = sc_a (da - 4 sa) + sc_b (db - 4 sb) (sc = stored - 32),
 *         acc = fma((float)isum, d * x_d, acc);
 * every integer exact in int32 (|isum| <= 520192). */
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/x86/act_q8_avx2.h"
#include "kernels/x86/avx2_pair16.h"

#ifndef QMM_Q23_Q3
#define QMM_Q23_Q3 0
#endif
#ifndef QMM_Q23_I16
#define QMM_Q23_I16 0 /* 1: dot_step leaves int16 pair sums (AVX2) */
#endif
/* Q2_K on AVX2: every float step multiplies the int16 pair sums by the
 * scales as int16 pairs (vpmaddwd), so its block scales are only those */
#define K23_PAIR_FLOAT (!QMM_Q23_Q3 && QMM_Q23_I16)

#if QMM_Q23_Q3
#define K23(x)     q3k_##x
#define K23_WTYPE  QMM_TYPE_Q3_K
#define K23_QS_OFF 112
#define K23_QB     96
#else
#define K23(x)     q2k_##x
#define K23_WTYPE  QMM_TYPE_Q2_K
#define K23_QS_OFF 160
#define K23_QB     64
#endif
#define K23_SB_BYTES (K23_QS_OFF + 8 * K23_QB)

static inline __m256i K23(bcast4)(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

typedef struct {
    __m256i lo, hi;
} K23(wv);
typedef struct {
    __m256i xl, xh;
} K23(xv);
typedef struct {
    __m256i a, b;
} K23(iacc);
typedef struct {
    __m256 d, dmin;
#if K23_PAIR_FLOAT
    __m256i sa16, sb16, sp; /* lane j, int16: (sc_a, sc_a), (sc_b, sc_b), (m_a, m_b) */
#else
    __m256i sca, scb, ma, mb;
#endif
} K23(ws);

#define DRV(x)              K23(x)
#define DRV_PANEL_BYTES(nb) ((size_t)(nb) / 8 * K23_SB_BYTES)
#define DRV_QUANTS(nb, b)   ((size_t)(b) / 8 * K23_SB_BYTES + K23_QS_OFF + (size_t)((b) % 8) * K23_QB)
#define DRV_PF              1024
#define DRV_PF_LINES        (1 + QMM_Q23_Q3)
#define DRV_CHUNKS          4
#define DRV_GEMV_FUSED      QMM_Q23_Q3 /* Q2_K's GEMV 3% faster unpacking all panels first (Zen 3) */

static inline __attribute__((always_inline)) void K23(zero)(K23(iacc) * is) { is->a = is->b = _mm256_setzero_si256(); }

static inline __attribute__((always_inline)) void K23(unpack)(K23(wv) * wv, const uint8_t *panel, int64_t nb, int64_t b, int c) {
    const uint8_t *q = panel + DRV_QUANTS(nb, b);
    const __m256i m2 = _mm256_set1_epi8(0x03);
    /* 16-bit shifts: what crosses a byte lands outside the masks */
    wv->lo = _mm256_and_si256(_mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)q), 2 * c), m2);
    wv->hi = _mm256_and_si256(_mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(q + 32)), 2 * c), m2);
#if QMM_Q23_Q3
    /* bit c to bit 2 (low elements), bit 4+c to bit 2 (high ones) */
    const __m256i t = _mm256_loadu_si256((const __m256i *)(q + 64)), b2 = _mm256_set1_epi8(0x04);
    const __m256i tl = c <= 2 ? _mm256_slli_epi16(t, 2 - c) : _mm256_srli_epi16(t, c - 2);
    wv->lo = _mm256_or_si256(wv->lo, _mm256_and_si256(tl, b2));
    wv->hi = _mm256_or_si256(wv->hi, _mm256_and_si256(_mm256_srli_epi16(t, 2 + c), b2));
#endif
}

static inline __attribute__((always_inline)) void K23(xload)(K23(xv) * xv, const qmm_act_block *xb, int c) {
    xv->xl = K23(bcast4)(xb->q + 4 * c);
    xv->xh = K23(bcast4)(xb->q + 16 + 4 * c);
}

static inline __attribute__((always_inline)) void K23(dot)(K23(iacc) * is, const K23(wv) * wv, const K23(xv) * xv) {
    is->a = dot_step(is->a, wv->lo, xv->xl);
    is->b = dot_step(is->b, wv->hi, xv->xh);
}

#if !K23_PAIR_FLOAT
static inline __attribute__((always_inline)) void K23(scales)(K23(ws) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    const uint8_t *sb = panel + (size_t)(b / 8) * K23_SB_BYTES;
    const int i = (int)(b % 8);
    const __m256i m4 = _mm256_set1_epi32(0x0f);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
#if QMM_Q23_Q3
    ws->dmin = ws->d;
    const __m256i lo = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 16 + 8 * i)));
    const __m256i hi =
        _mm256_srli_epi32(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 80 + 8 * (i / 2)))), 4 * (i % 2));
    const __m256i m2 = _mm256_set1_epi32(3), off = _mm256_set1_epi32(32);
    ws->sca = _mm256_sub_epi32(_mm256_or_si256(_mm256_and_si256(lo, m4), _mm256_slli_epi32(_mm256_and_si256(hi, m2), 4)), off);
    ws->scb = _mm256_sub_epi32(
        _mm256_or_si256(_mm256_srli_epi32(lo, 4), _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(hi, 2), m2), 4)), off);
    ws->ma = ws->mb = _mm256_setzero_si256();
#else
    ws->dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sb + 16)));
    const __m256i pa = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 16 * i)));
    const __m256i pb = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 16 * i + 8)));
    ws->sca = _mm256_and_si256(pa, m4), ws->ma = _mm256_srli_epi32(pa, 4);
    ws->scb = _mm256_and_si256(pb, m4), ws->mb = _mm256_srli_epi32(pb, 4);
#endif
}
#endif

#if QMM_Q23_Q3
/* The GEMV's scales (the driver's DRV_SB_BLOCKS): the 16 sub-block scales of
 * a super-block's 8 rows decoded at once, 32 bytes a vector, into signed
 * bytes (block i, row j: a[off(i) + j] for 2i, b[off(i) + j] for 2i + 1),
 * where per 32-block they took 12 vector ops for 16 scales. */
typedef struct {
    __m256 d;
    int8_t a[64], b[64]; /* block i, row j at 8 i + j */
} K23(sbs);

static inline __attribute__((always_inline)) void K23(sb_scales)(K23(sbs) * s, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    const uint8_t *sb = panel + (size_t)(b / 8) * K23_SB_BYTES;
    s->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    const __m256i l0 = _mm256_loadu_si256((const __m256i *)(sb + 16)), l1 = _mm256_loadu_si256((const __m256i *)(sb + 48));
    const __m256i h = _mm256_loadu_si256((const __m256i *)(sb + 80)); /* 8 B per pair of blocks: nibble i % 2 */
    const __m256i m4 = _mm256_set1_epi8(0x0f), m2 = _mm256_set1_epi8(0x03), off = _mm256_set1_epi8(32);
    const __m256i hn0 = _mm256_and_si256(h, m4), hn1 = _mm256_and_si256(_mm256_srli_epi16(h, 4), m4);
    /* blocks (0, 1 | 4, 5) and (2, 3 | 6, 7), the low and high bits alike */
    const __m256i lo[2] = {_mm256_permute2x128_si256(l0, l1, 0x20), _mm256_permute2x128_si256(l0, l1, 0x31)};
    const __m256i hi[2] = {_mm256_unpacklo_epi64(hn0, hn1), _mm256_unpackhi_epi64(hn0, hn1)};
    __m256i sa[2], sb2[2];
    for (int t = 0; t < 2; t++) {
        /* 16-bit shifts: the masks keep each byte's own bits */
        sa[t] =
            _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(lo[t], m4), _mm256_slli_epi16(_mm256_and_si256(hi[t], m2), 4)), off);
        sb2[t] = _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(lo[t], 4), m4),
                                                 _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hi[t], 2), m2), 4)),
                                 off);
    }
    /* (0, 1 | 4, 5), (2, 3 | 6, 7) -> (0, 1, 2, 3), (4, 5, 6, 7) */
    _mm256_storeu_si256((__m256i *)(void *)s->a, _mm256_permute2x128_si256(sa[0], sa[1], 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(s->a + 32), _mm256_permute2x128_si256(sa[0], sa[1], 0x31));
    _mm256_storeu_si256((__m256i *)(void *)s->b, _mm256_permute2x128_si256(sb2[0], sb2[1], 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(s->b + 32), _mm256_permute2x128_si256(sb2[0], sb2[1], 0x31));
}

static inline __attribute__((always_inline)) void K23(scales_sb)(K23(ws) * ws, const K23(sbs) * s, int i) {
    ws->d = ws->dmin = s->d;
    ws->sca = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(s->a + 8 * i)));
    ws->scb = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(s->b + 8 * i)));
    ws->ma = ws->mb = _mm256_setzero_si256();
}
#define DRV_SB_BLOCKS 8
#elif K23_PAIR_FLOAT
/* Q2_K on AVX2, every tile's scales: d and dmin once a super-block (the
 * GEMV's and the small-m tile's; the expanded GEMM's K23(scales) below runs
 * both steps once a slice); per 32-block its 16 scale bytes (sc | m << 4, row j of the
 * two sub-blocks at j and 8 + j) in both lanes, whose nibbles vpshufb puts
 * into lane j as the int16 pairs vpmaddwd multiplies the dot's int16 pair
 * sums by (and the mins by the activation's (sum_a, sum_b)): no vpmulld. */
typedef struct {
    __m256 d, dmin;
    const uint8_t *sb;
} K23(sbs);

static inline __attribute__((always_inline)) void K23(sb_scales)(K23(sbs) * s, const uint8_t *panel, int64_t nb, int64_t b) {
    (void)nb;
    s->sb = panel + (size_t)(b / 8) * K23_SB_BYTES;
    s->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)s->sb));
    s->dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s->sb + 16)));
}

static inline __attribute__((always_inline)) void K23(scales_sb)(K23(ws) * ws, const K23(sbs) * s, int i) {
    const __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(s->sb + 32 + 16 * i)));
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i sc = _mm256_and_si256(v, m4), mn = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
    /* lane j (j < 4 in the low half, 4..7 in the high one, each half holding
     * all 16 bytes): byte j (sub-block a) or 8 + j (b), zero-extended */
#define K23_Z -128
    const __m256i pa = _mm256_setr_epi8(0, K23_Z, 0, K23_Z, 1, K23_Z, 1, K23_Z, 2, K23_Z, 2, K23_Z, 3, K23_Z, 3, K23_Z, 4, K23_Z,
                                        4, K23_Z, 5, K23_Z, 5, K23_Z, 6, K23_Z, 6, K23_Z, 7, K23_Z, 7, K23_Z);
    const __m256i pm = _mm256_setr_epi8(0, K23_Z, 8, K23_Z, 1, K23_Z, 9, K23_Z, 2, K23_Z, 10, K23_Z, 3, K23_Z, 11, K23_Z, 4,
                                        K23_Z, 12, K23_Z, 5, K23_Z, 13, K23_Z, 6, K23_Z, 14, K23_Z, 7, K23_Z, 15, K23_Z);
#undef K23_Z
    ws->d = s->d;
    ws->dmin = s->dmin;
    ws->sa16 = _mm256_shuffle_epi8(sc, pa);
    ws->sb16 = _mm256_shuffle_epi8(sc, _mm256_add_epi8(pa, _mm256_set1_epi8(8))); /* -128 + 8 keeps bit 7: still a zero */
    ws->sp = _mm256_shuffle_epi8(mn, pm);
}
static inline __attribute__((always_inline)) void K23(scales)(K23(ws) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    K23(sbs) s;
    K23(sb_scales)(&s, panel, nb, b);
    K23(scales_sb)(ws, &s, (int)(b % 8));
}
#define DRV_SB_BLOCKS 8
#endif

static inline __attribute__((always_inline)) __m256 K23(float)(__m256 acc, const K23(iacc) * is, const K23(ws) * ws,
                                                               const qmm_act_block *xb) {
    const int32_t sa = (int16_t)(uint16_t)((uint32_t)xb->sum & 0xffffu);
    const int32_t sb = (int16_t)(uint16_t)((uint32_t)xb->sum >> 16);
    const __m256 xd = _mm256_set1_ps(xb->d);
#if QMM_Q23_Q3
    const __m256i da = _mm256_sub_epi32(dot_finish(is->a), _mm256_set1_epi32(4 * sa));
    const __m256i db = _mm256_sub_epi32(dot_finish(is->b), _mm256_set1_epi32(4 * sb));
    const __m256i isum = _mm256_add_epi32(_mm256_mullo_epi32(ws->sca, da), _mm256_mullo_epi32(ws->scb, db));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
#elif K23_PAIR_FLOAT
    /* the int16 pair sums times (sc, sc): sc_a da + sc_b db; the mins (m_a, m_b) times (sum_a, sum_b) */
    (void)sa, (void)sb;
    const __m256i isum = _mm256_add_epi32(_mm256_madd_epi16(is->a, ws->sa16), _mm256_madd_epi16(is->b, ws->sb16));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_madd_epi16(ws->sp, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->dmin, xd), acc);
#else
    const __m256i isum =
        _mm256_add_epi32(_mm256_mullo_epi32(ws->sca, dot_finish(is->a)), _mm256_mullo_epi32(ws->scb, dot_finish(is->b)));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    const __m256i mins =
        _mm256_add_epi32(_mm256_mullo_epi32(ws->ma, _mm256_set1_epi32(sa)), _mm256_mullo_epi32(ws->mb, _mm256_set1_epi32(sb)));
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), mins);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->dmin, xd), acc);
#endif
}

#if QMM_Q23_I16 && QMM_Q23_Q3
/* Q3_K's expanded GEMM's block scales and float step (AVX2): the int16
 * chains are widened by vpmaddwd against the scales as int16 pairs (no
 * vpmulld), and the sums' share is one more vpmaddwd against the packer's
 * (sa, sb) pair: the same integers. Prepared once per slice, so only there:
 * in the GEMV the extra preparation per block cost more than it saved (Q3_K
 * from L2 8.8 -> 10.0 us). (Q2_K's K23(ws) is in this form everywhere.) */
typedef struct {
    K23(ws) w;
    __m256i sa16, sb16, sp; /* lane j, int16 pairs: (sc_a, sc_a), (sc_b, sc_b), (4 sc_a, 4 sc_b) */
} K23(ws_x);

static inline __attribute__((always_inline)) void K23(scales_x)(K23(ws_x) * ws, const uint8_t *panel, int64_t nb, int64_t b) {
    K23(scales)(&ws->w, panel, nb, b);
    ws->sa16 = qmm_avx2_pair16(ws->w.sca);
    ws->sb16 = qmm_avx2_pair16(ws->w.scb);
    ws->sp = qmm_avx2_pack16x2(_mm256_slli_epi32(ws->w.sca, 2), _mm256_slli_epi32(ws->w.scb, 2));
}

static inline __attribute__((always_inline)) void K23(dot_x)(K23(iacc) * is, const K23(wv) * wv, const K23(xv) * xv,
                                                             const K23(ws_x) * ws) {
    (void)ws;
    K23(dot)(is, wv, xv);
}

static inline __attribute__((always_inline)) __m256 K23(float_x)(__m256 acc, const K23(iacc) * is, const K23(ws_x) * ws,
                                                                 const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    const __m256i dots = _mm256_add_epi32(_mm256_madd_epi16(is->a, ws->sa16), _mm256_madd_epi16(is->b, ws->sb16));
    const __m256i isum = _mm256_sub_epi32(dots, _mm256_madd_epi16(ws->sp, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->w.d, xd), acc);
}
#define DRV_X_SCALED 1
#endif

#define DRV_SYM       QMM_Q23_SYM
#define DRV_NAME_STR  QMM_Q23_NAME
#define DRV_REQUIRED  QMM_Q23_REQUIRED
#define DRV_WTYPE     K23_WTYPE
#define DRV_LAYOUT_ID 1
#define DRV_W_PACK    K23(w_pack)
#define DRV_READ_ROW  K23(read_row)
#define DRV_W_UNPACK  K23(w_unpack_row)
#define DRV_ACT_PACK  qmm_avx2_act_q8_pack_sum16 /* sum: the two 16-element sums as int16 */
#include "kernels/x86/avx2_int8_old.h"

/* Unsigned u of element l of a super-block, and the stored (unsigned) scale
 * byte of 16-block s: Q2_K's GGUF byte, Q3_K's 6-bit value (signed + 32). */
#if QMM_Q23_Q3
static int K23(u)(const void *blk, int l) { return qmm_q3_k_q((const qmm_block_q3_k *)blk, l) + 4; }
#define K23_BLOCK qmm_block_q3_k
#else
static int K23(u)(const void *blk, int l) { return qmm_q2_k_q((const qmm_block_q2_k *)blk, l); }
#define K23_BLOCK qmm_block_q2_k
#endif

static void K23(w_pack)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    (void)n;
    const int64_t nsb = k / QMM_QK_K;
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + K23(w_offset)(p * 8, k);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const K23_BLOCK *blk = (const K23_BLOCK *)((const uint8_t *)src + (size_t)row * stride);
            for (int64_t s = 0; s < nsb; s++) {
                uint8_t *sb = panel + (size_t)s * K23_SB_BYTES;
                const K23_BLOCK *wb = blk + s;
                const int pad = row >= n1; /* padding rows: zero scales, zero quants */
                if (pad)
                    memset(sb + 2 * j, 0, 2);
                else
                    memcpy(sb + 2 * j, &wb->d, 2);
#if QMM_Q23_Q3
                for (int i = 0; i < 8; i++) {
                    /* padding rows: stored 32, a zero scale */
                    const int sa = (pad ? 0 : qmm_q3_k_scale(wb->scales, 2 * i)) + 32;
                    const int sbb = (pad ? 0 : qmm_q3_k_scale(wb->scales, 2 * i + 1)) + 32;
                    sb[16 + 8 * i + j] = (uint8_t)((sa & 0x0f) | (sbb & 0x0f) << 4);
                    uint8_t *hi = sb + 80 + 8 * (i / 2) + j;
                    *hi = (uint8_t)((*hi & (0xf0 >> 4 * (i % 2))) | ((sa >> 4) | (sbb >> 4) << 2) << 4 * (i % 2));
                }
#else
                if (pad)
                    memset(sb + 16 + 2 * j, 0, 2);
                else
                    memcpy(sb + 16 + 2 * j, &wb->dmin, 2);
                for (int u = 0; u < 16; u++)
                    sb[32 + 8 * u + j] = pad ? 0 : wb->scales[u];
#endif
                for (int i = 0; i < 8; i++) {
                    uint8_t *q = sb + K23_QS_OFF + K23_QB * i;
                    for (int t = 0; t < 4; t++) {
                        uint8_t l2 = 0, h2 = 0, top = 0;
                        for (int c = 0; c < 4; c++) {
                            const int ul = pad ? 0 : K23(u)(wb, 32 * i + 4 * c + t);
                            const int uh = pad ? 0 : K23(u)(wb, 32 * i + 16 + 4 * c + t);
                            l2 = (uint8_t)(l2 | (ul & 3) << (2 * c));
                            h2 = (uint8_t)(h2 | (uh & 3) << (2 * c));
                            top = (uint8_t)(top | (ul >> 2) << c | (uh >> 2) << (4 + c));
                        }
                        q[4 * j + t] = l2;
                        q[32 + 4 * j + t] = h2;
                        if (QMM_Q23_Q3)
                            q[64 + 4 * j + t] = top;
                    }
                }
            }
        }
    }
}

/* K23(w_pack)'s inverse: Q3_K's stored 6-bit scales back into GGUF's bit
 * places (qmm_q3_k_scale's), element e's two low bits of u into bits
 * 2 ((e / 32) % 4) of qs[32 (e / 128) + e % 32] and Q3_K's bit 2 (hmask) into
 * bit e / 32 of hmask[e % 32]. */
static void K23(w_unpack_row)(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + K23(w_offset)(row, k);
    const int j = (int)(row % 8);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * K23_SB_BYTES;
        K23_BLOCK wb;
        memset(&wb, 0, sizeof wb); /* the scales and quants are ORed in */
        memcpy(&wb.d, sb + 2 * j, 2);
#if QMM_Q23_Q3
        for (int i = 0; i < 16; i++) { /* 16-block i: nibble i % 2 of the low byte, bit pair i % 4 of the high */
            const int lo = (sb[16 + 8 * (i / 2) + j] >> (4 * (i % 2))) & 0x0f,
                      hi = (sb[80 + 8 * (i / 4) + j] >> (2 * (i % 4))) & 3;
            wb.scales[i % 8] |= (uint8_t)(lo << (4 * (i / 8)));
            wb.scales[8 + i % 4] |= (uint8_t)(hi << (2 * (i / 4)));
        }
#else
        memcpy(&wb.dmin, sb + 16 + 2 * j, 2);
        for (int u = 0; u < 16; u++)
            wb.scales[u] = sb[32 + 8 * u + j];
#endif
        for (int i = 0; i < 8; i++) {
            const uint8_t *q = sb + K23_QS_OFF + K23_QB * i;
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++)
                    for (int half = 0; half < 2; half++) {
                        const int two = (q[32 * half + 4 * j + t] >> (2 * c)) & 3, e = 32 * i + 16 * half + 4 * c + t;
                        wb.qs[32 * (e / 128) + e % 32] |= (uint8_t)(two << (2 * ((e / 32) % 4)));
#if QMM_Q23_Q3
                        wb.hmask[e % 32] |= (uint8_t)(((q[64 + 4 * j + t] >> (4 * half + c)) & 1) << (e / 32));
#endif
                    }
        }
        memcpy((uint8_t *)dst + (size_t)s * sizeof wb, &wb, sizeof wb);
    }
}

/* ggml's dequantization: Q2_K (d * sc) * q - dmin * m; Q3_K (d * sc) * q. */
static void K23(read_row)(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const uint8_t *panel = (const uint8_t *)w + K23(w_offset)(row, k);
    const int j = (int)(row % 8);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * K23_SB_BYTES;
        uint16_t h;
        memcpy(&h, sb + 2 * j, 2);
        const float d = qmm_fp16_to_fp32(h);
#if !QMM_Q23_Q3
        memcpy(&h, sb + 16 + 2 * j, 2);
        const float dmin = qmm_fp16_to_fp32(h);
#endif
        for (int i = 0; i < 8; i++) {
            const uint8_t *q = sb + K23_QS_OFF + K23_QB * i;
            float dl[2], ml[2] = {0.0f, 0.0f};
            for (int half = 0; half < 2; half++) {
#if QMM_Q23_Q3
                const int lo = (sb[16 + 8 * i + j] >> (4 * half)) & 0x0f;
                const int hi = (sb[80 + 8 * (i / 2) + j] >> (4 * (i % 2) + 2 * half)) & 3;
                dl[half] = d * (float)((lo | hi << 4) - 32);
#else
                const uint8_t sc = sb[32 + 8 * (2 * i + half) + j];
                dl[half] = d * (float)(sc & 0x0f), ml[half] = dmin * (float)(sc >> 4);
#endif
            }
            float *y = dst + s * QMM_QK_K + 32 * i;
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++) {
                    const int top = QMM_Q23_Q3 ? q[64 + 4 * j + t] : 0;
                    const int ul = ((q[4 * j + t] >> (2 * c)) & 3) | ((top >> c) & 1) << 2;
                    const int uh = ((q[32 + 4 * j + t] >> (2 * c)) & 3) | ((top >> (4 + c)) & 1) << 2;
                    if (QMM_Q23_Q3) {
                        y[4 * c + t] = dl[0] * (float)(ul - 4);
                        y[16 + 4 * c + t] = dl[1] * (float)(uh - 4);
                    } else {
                        y[4 * c + t] = dl[0] * (float)ul - ml[0];
                        y[16 + 4 * c + t] = dl[1] * (float)uh - ml[1];
                    }
                }
        }
    }
}

#undef K23
#undef K23_WTYPE
#undef K23_BLOCK
#undef K23_QS_OFF
#undef K23_QB
#undef K23_SB_BYTES
#undef K23_PAIR_FLOAT
#undef QMM_Q23_Q3
#undef QMM_Q23_SYM
#undef QMM_Q23_NAME
#undef QMM_Q23_REQUIRED
