/* Shared pieces of the AVX-512 VNNI int8 families (Q4_0, Q8_0, and the
 * 32-block table types IQ4_NL, MXFP4 on the same panels): the activation
 * quantize-and-pack, and the register tile. Included by exactly
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
#include "kernels/x86/avx512_gemv_streams.h"

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
 *    monotone) and keeps inf out of cvtps2dq (which would give INT_MIN);
 *  - half_sums: the sums of q[0..15] and q[16..31] (the x kinds keep both). */
static inline void qmm_avx512_quant_block(const float *x, int8_t *q, float *d_out, int32_t half_sums[2]) {
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
    /* both halves' sums in one tree: hadd pairs lanes of the two halves */
    const __m256i h0 = _mm256_add_epi32(_mm512_castsi512_si256(i0), _mm512_extracti64x4_epi64(i0, 1));
    const __m256i h1 = _mm256_add_epi32(_mm512_castsi512_si256(i1), _mm512_extracti64x4_epi64(i1, 1));
    const __m256i h = _mm256_hadd_epi32(h0, h1); /* per 128: h0 pairs 0-1, 2-3, h1 pairs 0-1, 2-3 */
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
    half_sums[0] = _mm_cvtsi128_si32(s4);
    half_sums[1] = _mm_extract_epi32(s4, 2);
}

/* Row i of a group of g past the last real row: d = 0, sums = 0, q = 0. */
static inline void qmm_avx512_act_pad_row(uint8_t *grp, int64_t nb, int g, int i) {
    for (int64_t b = 0; b < nb; b++) {
        uint8_t *blk = grp + (size_t)b * (size_t)g * QMM_AVX512_ACT_BLK;
        memset(blk + 4 * i, 0, 4);
        memset(blk + 4 * (g + i), 0, 4);
        memset(blk + 8 * g + QMM_QK * i, 0, QMM_QK);
    }
}

/* Packs m rows (m <= g at a group start, or many groups) in groups of g.
 * A row's int32 slot per block: the bias -zp * sum q of the block panels'
 * zero point, or (half_sums, the x panels) the block's two 16-element sums
 * as int16 halves. */
static inline void qmm_avx512_act_pack_rows(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst, int g,
                                            int32_t zp, int half_sums) {
    const int64_t nb = k / QMM_QK;
    const size_t ablk = (size_t)g * QMM_AVX512_ACT_BLK;
    uint8_t *out = (uint8_t *)dst;
    for (int64_t r0 = 0; r0 < m; r0 += g) {
        uint8_t *grp = out + (size_t)(r0 / g) * (size_t)nb * ablk;
        for (int i = 0; i < g; i++) {
            const int64_t r = r0 + i;
            if (r >= m) {
                qmm_avx512_act_pad_row(grp, nb, g, i);
                continue;
            }
            const float *row = (const float *)((const char *)x + (size_t)r * x_row_stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = grp + (size_t)b * ablk;
                float d;
                int32_t hs[2];
                qmm_avx512_quant_block(row + b * QMM_QK, (int8_t *)(blk + 8 * g + QMM_QK * i), &d, hs);
                const uint32_t slot = half_sums ? (uint32_t)(uint16_t)(int16_t)hs[0] | (uint32_t)(uint16_t)(int16_t)hs[1] << 16
                                                : (uint32_t)(-zp * (hs[0] + hs[1]));
                memcpy(blk + 4 * i, &d, 4);
                memcpy(blk + 4 * (g + i), &slot, 4);
            }
        }
    }
}

static inline void qmm_avx512_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst, int g, int32_t zp) {
    qmm_avx512_act_pack_rows(m, k, x, x_row_stride, dst, g, zp, 0);
}

/* ------------------------------------------------------------ weight panels
 *
 * A panel is 16 weight rows (n_step = 16; a partial last panel is padded with
 * zero rows), its k blocks in groups of 8 (the last group may hold fewer), one
 * linear stream (a decode reads it from DRAM: two streams per panel, scales
 * and quants, restart two prefetch streams every panel), 64-byte aligned:
 *     uint16_t scale[gn][16]     the group's fp16 block scales, padded to 64 bytes
 *     uint8_t  quants[gn][QB]    per block: for each group c of 4 k-values
 *                                covered by one vpdpbusd, 16 rows x 4 bytes
 * The scales stay fp16 (converted exactly by vcvtph2ps once per block and
 * panel) so the panel streams exactly the GGUF bytes: a bandwidth-bound GEMV
 * reads 18 (Q4_0, IQ4_NL) / 34 (Q8_0) bytes per 32 weights, not 20 / 36.
 * MXFP4 keeps its E8M0 bytes (sb = 16 scale bytes per block, uint8_t
 * scale[gn][16]; 17 bytes per 32 weights, the GGUF size); the others have
 * sb = 32. A full group's scales are 8 sb bytes, a multiple of 64. */

#define QMM_AVX512_GRP 8 /* k blocks per group */

static inline size_t qmm_avx512_scale_bytes(int64_t nb, int sb) { return ((size_t)nb * (size_t)sb + 63) & ~(size_t)63; }

static inline size_t qmm_avx512_panel_bytes(int64_t k, int sb, int qb) {
    const int64_t nb = k / QMM_QK;
    return qmm_avx512_scale_bytes(nb, sb) + (size_t)nb * (size_t)qb;
}

/* The group starting at block g0: its offset in the panel, its block count. */
static inline size_t qmm_avx512_grp_offset(int64_t g0, int sb, int qb) { return (size_t)g0 * ((size_t)sb + (size_t)qb); }
static inline int qmm_avx512_grp_blocks(int64_t nb, int64_t g0) {
    return (int)(nb - g0 < QMM_AVX512_GRP ? nb - g0 : QMM_AVX512_GRP);
}

/* Offsets of block b's scales and quants in a panel (packing, GET_ROWS). */
static inline size_t qmm_avx512_blk_scales(int64_t b, int sb, int qb) {
    const int64_t g0 = b / QMM_AVX512_GRP * QMM_AVX512_GRP;
    return qmm_avx512_grp_offset(g0, sb, qb) + (size_t)(b - g0) * (size_t)sb;
}
static inline size_t qmm_avx512_blk_quants(int64_t nb, int64_t b, int sb, int qb) {
    const int64_t g0 = b / QMM_AVX512_GRP * QMM_AVX512_GRP;
    return qmm_avx512_grp_offset(g0, sb, qb) + qmm_avx512_scale_bytes(qmm_avx512_grp_blocks(nb, g0), sb) +
           (size_t)(b - g0) * (size_t)qb;
}

/* ------------------------------------------------------------------ tiles */

/* Loads the block's unsigned weight bytes: 8 zmm, vector c covering k-values
 * kidx[c]..kidx[c]+3 of every row (see the family files for the layouts).
 * The table kinds (IQ4_NL with fp16 d, MXFP4 with an E8M0 byte) store Q4_0's
 * nibbles; one vpshufb per vector turns a nibble into its int8 level + 128
 * as an unsigned byte (the table in every 128-bit lane), so vpdpbusd runs
 * from the bias -128 * sum(q_x) as Q8_0's and the int32 sum is exactly
 * sum kv[q] * q_x. */
typedef enum { QMM_AVX512_W_Q4 = 0, QMM_AVX512_W_Q8 = 1, QMM_AVX512_W_IQ4_NL = 2, QMM_AVX512_W_MXFP4 = 3 } qmm_avx512_wkind;

#define QMM_AVX512_INLINE static inline __attribute__((always_inline))

#define QMM_AVX512_IS_TABLE(kind) ((kind) == QMM_AVX512_W_IQ4_NL || (kind) == QMM_AVX512_W_MXFP4)
/* scale bytes per block and panel */
#define QMM_AVX512_SB(kind) ((kind) == QMM_AVX512_W_MXFP4 ? 16 : 32)

/* The table of level + 128 of kv (16 int8 levels), as unsigned bytes, in every 128-bit lane. */
QMM_AVX512_INLINE __m512i qmm_avx512_table(const int8_t *kv) {
    uint8_t t[16];
    for (int i = 0; i < 16; i++)
        t[i] = (uint8_t)(kv[i] + 128);
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)t));
}

QMM_AVX512_INLINE __m512i qmm_avx512_kind_table(qmm_avx512_wkind kind) {
    return kind == QMM_AVX512_W_MXFP4    ? qmm_avx512_table(qmm_kvalues_mxfp4)
           : kind == QMM_AVX512_W_IQ4_NL ? qmm_avx512_table(qmm_kvalues_iq4nl)
                                         : _mm512_setzero_si512();
}

/* MXFP4's 16 scales 2^(e - 128) from 16 E8M0 bytes, bit for bit qmm_e8m0_half_to_fp32:
 * max((e - 1) << 23, 0x200000 << min(e, 2)) as int32 (e >= 2: the normal
 * 2^(e - 128); e = 1, 0: the subnormals 2^-127, 2^-128). */
QMM_AVX512_INLINE __m512 qmm_avx512_e8m0(const uint8_t *e16) {
    /* u8 -> u32 in two steps (vpmovzxbw, vpmovzxwd): what SIMDe's emulation provides */
    const __m512i e = _mm512_cvtepu16_epi32(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)e16)));
    const __m512i normal = _mm512_slli_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(1)), 23); /* e = 0: negative */
    const __m512i low = _mm512_sllv_epi32(_mm512_set1_epi32(0x00200000), _mm512_min_epu32(e, _mm512_set1_epi32(2)));
    return _mm512_castsi512_ps(_mm512_max_epi32(normal, low));
}

/* The 16 weight scales of a block from its scale bytes. */
QMM_AVX512_INLINE __m512 qmm_avx512_wscale(qmm_avx512_wkind kind, const uint8_t *sb) {
    return kind == QMM_AVX512_W_MXFP4 ? qmm_avx512_e8m0(sb)
                                      : _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)sb));
}

/* The descriptor fields every AVX-512 VNNI int8 family shares (a family
 * file's `const qmm_family` lists them beside its name, type, layout and
 * entry points): 16-row panels, k interleaved by 4, GEMM activation groups
 * of QMM_AVX512_MR rows. */
#define QMM_AVX512_VNNI_REQUIRED                                                                                                 \
    (QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI | QMM_CPU_F16C)
#define QMM_AVX512_VNNI_GEOMETRY                                                                                                 \
    .required = QMM_AVX512_VNNI_REQUIRED, .fallback_hides = QMM_AVX512_VNNI_REQUIRED & ~(uint64_t)QMM_CPU_F16C,                  \
    .mr = QMM_AVX512_MR, .nr = QMM_AVX512_NR, .kr = 4, .sr = 1, .n_step = QMM_AVX512_NR

QMM_AVX512_INLINE void qmm_avx512_load_w(qmm_avx512_wkind kind, const uint8_t *qb, __m512i w[8], __m512i table) {
    if (kind != QMM_AVX512_W_Q8) {
        /* 4 zmm of packed nibbles: byte t of row r in vector j is GGUF qs[4j+t],
         * whose low nibble is element 4j+t and high nibble element 16+4j+t. */
        const __m512i m4 = _mm512_set1_epi8(0x0f);
        for (int j = 0; j < 4; j++) {
            const __m512i p = _mm512_loadu_si512((const void *)(qb + 64 * j));
            w[j] = _mm512_and_si512(p, m4);
            w[j + 4] = _mm512_and_si512(_mm512_srli_epi16(p, 4), m4);
        }
        if (QMM_AVX512_IS_TABLE(kind))
            for (int c = 0; c < 8; c++)
                w[c] = _mm512_shuffle_epi8(table, w[c]);
    } else {
        for (int c = 0; c < 8; c++)
            w[c] = _mm512_loadu_si512((const void *)(qb + 64 * c));
    }
}

QMM_AVX512_INLINE int32_t qmm_avx512_ld32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* start + the 16 lanes' exact int32 dot products of a 32-block: weight vector
 * c (k-values 4c..4c+3 of every row, in every layout here) against the
 * activation bytes aq[4c..4c+3], in two dependency chains (even and odd c).
 * One chain of 8 left the rows of a GEMM tile waiting on vpdpbusd's latency
 * (Zen 4, one thread, m = 512: Q4_K 236 against 251 GOP/s, IQ4_XS 288 against
 * 314, Q4_0 / Q8_0 +1-2%); integer sums, so the same bits. */
QMM_AVX512_INLINE __m512i qmm_avx512_block_dot(const __m512i w[8], const uint8_t *aq, __m512i start) {
    __m512i s0 = start, s1 = _mm512_setzero_si512();
    for (int c = 0; c < 8; c += 2) {
        s0 = _mm512_dpbusd_epi32(s0, w[c], _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * c)));
        s1 = _mm512_dpbusd_epi32(s1, w[c + 1], _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * c + 4)));
    }
    return _mm512_add_epi32(s0, s1);
}

/* MR activation rows (of a group of G) x one 16-row panel, all k blocks:
 * y[i][j] for i < MR, j < ncols. Per block and row: the exact int32 block dot
 * product per lane (vpdpbusd from the bias), then
 *     acc = fma((float)isum, wscale * xscale, acc)
 * which is the reference order, lane by lane. */
QMM_AVX512_INLINE void qmm_avx512_tile(qmm_avx512_wkind kind, int MR, int G, int64_t nb, const uint8_t *act, const uint8_t *panel,
                                       int qbytes, float *y, size_t ys, int ncols) {
    const size_t ablk = (size_t)G * QMM_AVX512_ACT_BLK;
    const int sbytes = QMM_AVX512_SB(kind);
    const __m512i table = qmm_avx512_kind_table(kind);
    __m512 acc[QMM_AVX512_MR];
    for (int i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const int64_t g0 = b / QMM_AVX512_GRP * QMM_AVX512_GRP;
        const uint8_t *grp = panel + qmm_avx512_grp_offset(g0, sbytes, qbytes);
        const uint8_t *sb = grp + (b - g0) * sbytes;
        const uint8_t *qb =
            grp + qmm_avx512_scale_bytes(qmm_avx512_grp_blocks(nb, g0), sbytes) + (size_t)(b - g0) * (size_t)qbytes;
        const uint8_t *ab = act + (size_t)b * ablk;
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
        const __m512 wsc = qmm_avx512_wscale(kind, sb);
        __m512i w[8];
        qmm_avx512_load_w(kind, qb, w, table);
        for (int i = 0; i < MR; i++) {
            const uint8_t *aq = ab + 8 * G + QMM_QK * i;
            const __m512i s0 = qmm_avx512_block_dot(w, aq, _mm512_set1_epi32(qmm_avx512_ld32(ab + 4 * (G + i))));
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

/* Bytes ahead of each weight stream that the GEMV prefetches into L1 (< 0:
 * none), with two streams (on AMD the plain layouts run without it:
 * qmm_avx512_gemv_single_stream). On the Sapphire Rapids class VM, with two
 * streams per core (QMM_AVX512_GEMV_NP), 256 to
 * 1024 read Q4_1 2-3% faster than 2048 and the K-quants alike, 4096 3-5%
 * slower (the history of docs/performance.md (git log -p), stop 24). -DQMM_AVX512_GEMV_PF=N to measure. */
#ifndef QMM_AVX512_GEMV_PF
#define QMM_AVX512_GEMV_PF 1024
#endif

/* Bytes of a panel up to which the x families' GEMV, reading one stream
 * (qmm_avx512_gemv_single_stream: AMD), also prefetches into L2 the panel it
 * reads next (the bytes matching those it reads now). On a Zen 4 guest short
 * panels (small k: MoE experts) restart their streams every few KiB and the
 * hardware prefetcher followed them late (Qwen3's Q4_K experts, k = 768: 29
 * against 20-23 GB/s cold); longer panels stream well without it (k = 4096:
 * alike, within that host's noise). Not with two streams: on the Sapphire
 * Rapids class the L2 prefetches of the next two panels made short panels
 * 7-15% slower (bench/decode_ab.c, both builds in one process: Q4_K k = 2048
 * 13-15%, k = 768 8-10%, Q6_K k = 2048 11%, Q4_0 k = 2048 7%;
 * docs/performance.md). */
#ifndef QMM_AVX512_GEMV_FAR_MAX
#define QMM_AVX512_GEMV_FAR_MAX (64 * 1024)
#endif

/* Prefetches bytes [0, n) at p into L2. */
QMM_AVX512_INLINE void qmm_avx512_prefetch_l2(const uint8_t *p, size_t n) {
    for (size_t l = 0; l < n; l += 64)
        _mm_prefetch((const char *)(p + l), _MM_HINT_T1);
}

/* Panels the GEMV streams at once, interleaved by block (x families: by
 * unit), one accumulator chain each: two streams per core read memory 5-10%
 * faster than one on a Sapphire Rapids class core, four measured as two
 * (the history of docs/performance.md (git log -p), stop 24); on AMD one
 * (qmm_avx512_gemv_single_stream). */
#ifndef QMM_AVX512_GEMV_NP
#define QMM_AVX512_GEMV_NP 2
#endif

/* One panel at a time, and the plain layouts' GEMV leaving prefetching to
 * the hardware (qmm_avx512_gemv_streams: dispatch chooses it on AMD; a Zen 4
 * guest, both builds alternated in one process on the same weight copies:
 * Q4_0 4-19% and Q8_0 10-40% faster, Q4_K 0-20%, Q6_K -5 to +19%,
 * docs/performance.md). */
static inline int qmm_avx512_gemv_single_stream(void) { return QMM_AVX512_GEMV_NP == 1 || qmm_avx512_gemv_streams() == 1; }

/* acc + the 16 lanes' dot products of a 32-block of nibble quants (qb: 4 x
 * 64 bytes, the low nibbles elements 0..15, the high ones 16..31) with the
 * activation bytes aq, for the GEMVs: the high nibbles are masked in place
 * (16 x their value) and summed in their own vpdpbusd chain, which one exact
 * arithmetic shift brings back (16 * 16 * 15 * 127 is far from overflow). */
QMM_AVX512_INLINE __m512i qmm_avx512_nib_dot(const uint8_t *qb, const uint8_t *aq, __m512i acc) {
    const __m512i m4 = _mm512_set1_epi8(0x0f), m4h = _mm512_set1_epi8((char)0xf0);
    __m512i hi = _mm512_setzero_si512();
    for (int j = 0; j < 4; j++) {
        const __m512i p = _mm512_loadu_si512((const void *)(qb + 64 * j));
        acc = _mm512_dpbusd_epi32(acc, _mm512_and_si512(p, m4), _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * j)));
        hi = _mm512_dpbusd_epi32(hi, _mm512_and_si512(p, m4h), _mm512_set1_epi32(qmm_avx512_ld32(aq + 16 + 4 * j)));
    }
    return _mm512_add_epi32(acc, _mm512_srai_epi32(hi, 4));
}

/* One block of qmm_avx512_gemv_panels: ab the activation block, sb its 16
 * fp16 scales, qb its quants; pf: prefetch QMM_AVX512_GEMV_PF ahead. */
QMM_AVX512_INLINE __m512 qmm_avx512_gemv_block(qmm_avx512_wkind kind, int pf, const uint8_t *ab, const uint8_t *sb,
                                               const uint8_t *qb, int qbytes, __m512i table, __m512 acc) {
    const uint8_t *aq = ab + 8;
    for (int l = 0; pf && QMM_AVX512_GEMV_PF >= 0 && l < qbytes; l += 64)
        _mm_prefetch((const char *)(qb + QMM_AVX512_GEMV_PF + l), _MM_HINT_T0);
    const __m512 wsc = qmm_avx512_wscale(kind, sb);
    __m512i s0 = _mm512_set1_epi32(qmm_avx512_ld32(ab + 4)), s1 = _mm512_setzero_si512();
    if (QMM_AVX512_IS_TABLE(kind)) {
        /* the levels are not a mask away from the stored bytes: both nibbles looked up */
        const __m512i m4 = _mm512_set1_epi8(0x0f);
        for (int j = 0; j < 4; j++) {
            const __m512i p = _mm512_loadu_si512((const void *)(qb + 64 * j));
            const __m512i lo = _mm512_shuffle_epi8(table, _mm512_and_si512(p, m4));
            const __m512i hi = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(p, 4), m4));
            s0 = _mm512_dpbusd_epi32(s0, lo, _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * j)));
            s1 = _mm512_dpbusd_epi32(s1, hi, _mm512_set1_epi32(qmm_avx512_ld32(aq + 16 + 4 * j)));
        }
        s0 = _mm512_add_epi32(s0, s1);
    } else if (kind == QMM_AVX512_W_Q4) {
        s0 = qmm_avx512_nib_dot(qb, aq, s0);
    } else {
        for (int c = 0; c < 8; c += 2) {
            s0 = _mm512_dpbusd_epi32(s0, _mm512_loadu_si512((const void *)(qb + 64 * c)),
                                     _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * c)));
            s1 = _mm512_dpbusd_epi32(s1, _mm512_loadu_si512((const void *)(qb + 64 * c + 64)),
                                     _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * c + 4)));
        }
        s0 = _mm512_add_epi32(s0, s1);
    }
    float xd;
    memcpy(&xd, ab, 4);
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0), _mm512_mul_ps(wsc, _mm512_set1_ps(xd)), acc);
}

/* m = 1 (decode): one activation row x NP 16-row panels pb bytes apart (the
 * last with ncols valid columns), all k blocks, interleaved by block. Q4_0's
 * nibbles go through qmm_avx512_nib_dot (no shifts, unlike the GEMM tile at
 * MR = 1). The int32 block sum and the float step are the tile's, bit for bit. */
QMM_AVX512_INLINE void qmm_avx512_gemv_panels(qmm_avx512_wkind kind, int NP, int pf, int64_t nb, const uint8_t *act,
                                              const uint8_t *panel, size_t pb, int qbytes, float *y, int ncols) {
    const int sbytes = QMM_AVX512_SB(kind);
    const __m512i table = qmm_avx512_kind_table(kind);
    __m512 acc[QMM_AVX512_GEMV_NP];
    for (int pi = 0; pi < NP; pi++)
        acc[pi] = _mm512_setzero_ps();
    for (int64_t g0 = 0; g0 < nb; g0 += QMM_AVX512_GRP) {
        const size_t go = qmm_avx512_grp_offset(g0, sbytes, qbytes);
        const int gn = qmm_avx512_grp_blocks(nb, g0);
        const size_t qo = go + qmm_avx512_scale_bytes(gn, sbytes);
        for (int r = 0; r < gn; r++)
            for (int pi = 0; pi < NP; pi++) {
                const uint8_t *pp = panel + (size_t)pi * pb;
                acc[pi] = qmm_avx512_gemv_block(kind, pf, act + (size_t)(g0 + r) * QMM_AVX512_ACT_BLK, pp + go + sbytes * r,
                                                pp + qo + (size_t)r * (size_t)qbytes, qbytes, table, acc[pi]);
            }
    }
    for (int pi = 0; pi < NP - 1; pi++)
        _mm512_storeu_ps(y + pi * QMM_AVX512_NR, acc[pi]);
    _mm512_mask_storeu_ps(y + (NP - 1) * QMM_AVX512_NR, (__mmask16)((1u << ncols) - 1u), acc[NP - 1]);
}

/* A family's gemv: the 16-row panels by QMM_AVX512_GEMV_NP with software
 * prefetch, or one at a time without (qmm_avx512_gemv_single_stream); the
 * rest one at a time (the last one's columns masked). */
QMM_AVX512_INLINE void qmm_avx512_gemv(qmm_avx512_wkind kind, int qbytes, int64_t n, int64_t k, const void *a, const void *w,
                                       float *y) {
    enum { NP = QMM_AVX512_GEMV_NP, NR = QMM_AVX512_NR };
    const int64_t nb = k / QMM_QK;
    const size_t pb = qmm_avx512_panel_bytes(k, QMM_AVX512_SB(kind), qbytes);
    const uint8_t *x = (const uint8_t *)a, *p = (const uint8_t *)w;
    int64_t n0 = 0;
    if (qmm_avx512_gemv_single_stream()) {
        for (; n0 < n; n0 += NR)
            qmm_avx512_gemv_panels(kind, 1, 0, nb, x, p + (size_t)(n0 / NR) * pb, pb, qbytes, y + n0,
                                   (int)(n - n0 < NR ? n - n0 : NR));
        return;
    }
    for (; n - n0 >= NP * NR; n0 += NP * NR)
        qmm_avx512_gemv_panels(kind, NP, 1, nb, x, p + (size_t)(n0 / NR) * pb, pb, qbytes, y + n0, NR);
    for (; n0 < n; n0 += NR)
        qmm_avx512_gemv_panels(kind, 1, 1, nb, x, p + (size_t)(n0 / NR) * pb, pb, qbytes, y + n0,
                               (int)(n - n0 < NR ? n - n0 : NR));
}

/* ------------------------------------------------------------ the family
 *
 * The panel walkers: a family supplies, for its weight type, how one source
 * block b of row r goes into (put) the block's scale bytes (16 fp16, row r at
 * 2r; MXFP4: 16 E8M0 bytes, row r at r) and its quant bytes (qbytes, 16 rows
 * per 4-k group), and how lane r of them comes back (get: the GGUF block's
 * bytes, put's exact inverse, at dst of any alignment). GET_ROWS dequantizes
 * what get rebuilds (ggml's values exactly); unpacking writes it out.
 * Packing is not on the hot path, so plain function pointers do. */
typedef void (*qmm_avx512_put_block)(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants);
typedef void (*qmm_avx512_get_block)(const uint8_t *scales, const uint8_t *quants, int r, void *dst);

/* Room for one GGUF unit (block or super-block) of any type the x86 int8
 * panels hold, aligned for its fields: what get rebuilds for GET_ROWS. */
typedef union {
    qmm_block_q4_0 q4_0;
    qmm_block_q8_0 q8_0;
    qmm_block_q4_1 q4_1;
    qmm_block_q5_0 q5_0;
    qmm_block_q5_1 q5_1;
    qmm_block_q2_k q2_k;
    qmm_block_q3_k q3_k;
    qmm_block_q4_k q4_k;
    qmm_block_q5_k q5_k;
    qmm_block_q6_k q6_k;
    qmm_block_iq4_nl iq4_nl;
    qmm_block_iq4_xs iq4_xs;
    qmm_block_mxfp4 mxfp4;
} qmm_x86_unit;

static inline void qmm_avx512_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst,
                                     int sbytes, int qbytes, qmm_avx512_put_block put) {
    const int64_t nb = k / QMM_QK;
    const size_t pb = qmm_avx512_panel_bytes(k, sbytes, qbytes);
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512_NR) {
        uint8_t *panel = (uint8_t *)dst + (size_t)(p0 / QMM_AVX512_NR) * pb;
        memset(panel, 0, pb); /* padding rows and the scale tail */
        for (int r = 0; r < QMM_AVX512_NR && p0 + r < n; r++) {
            const void *row = (const char *)src + (size_t)(p0 + r) * stride;
            for (int64_t b = 0; b < nb; b++)
                put(row, b, r, panel + qmm_avx512_blk_scales(b, sbytes, qbytes),
                    panel + qmm_avx512_blk_quants(nb, b, sbytes, qbytes));
        }
    }
}

/* Row `row` back as the GGUF bytes packed for it (w_unpack_row). */
static inline void qmm_avx512_w_unpack_row(const void *packed, int64_t k, int64_t row, void *dst, int sbytes, int qbytes,
                                           qmm_type wtype, qmm_avx512_get_block get) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + (size_t)(row / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, sbytes, qbytes);
    for (int64_t b = 0; b < nb; b++)
        get(panel + qmm_avx512_blk_scales(b, sbytes, qbytes), panel + qmm_avx512_blk_quants(nb, b, sbytes, qbytes),
            (int)(row % QMM_AVX512_NR), (uint8_t *)dst + (size_t)b * qmm_type_block_bytes(wtype));
}

/* The weight panels' size and offsets (w_packed_size, w_packed_offset):
 * 16-row panels of sbytes scale bytes and qbytes quant bytes per block.
 * Layout 2 of Q4_0, Q8_0, IQ4_NL and MXFP4: the one-stream groups (layout 1
 * of IQ4_NL and MXFP4 was two streams per panel, avx512_table.h's). */
static inline size_t qmm_avx512_w_size(int sbytes, int qbytes, int64_t k, int64_t n) {
    return (size_t)((n + QMM_AVX512_NR - 1) / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, sbytes, qbytes);
}

static inline size_t qmm_avx512_w_offset(int sbytes, int qbytes, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_AVX512_NR) * qmm_avx512_panel_bytes(k, sbytes, qbytes);
}

/* The activation layouts of these families: groups of QMM_AVX512_MR rows
 * (GEMM) or of one row (GEMV), each row's blocks summed for the bias of the
 * zero point zp: 8 for Q4_0's nibbles, 128 for Q8_0's q + 128 and the table
 * kinds' level + 128. */
static inline size_t qmm_avx512_act8_size(int64_t m, int64_t k) { return qmm_avx512_act_size(m, k, QMM_AVX512_MR); }
static inline size_t qmm_avx512_act8_offset(int64_t m_idx, int64_t k) { return qmm_avx512_act_offset(m_idx, k, QMM_AVX512_MR); }
static inline size_t qmm_avx512_act1_size(int64_t m, int64_t k) { return qmm_avx512_act_size(m, k, 1); }
static inline size_t qmm_avx512_act1_offset(int64_t m_idx, int64_t k) { return qmm_avx512_act_offset(m_idx, k, 1); }
static inline void qmm_avx512_act8_pack_zp8(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512_act_pack(m, k, x, xs, dst, QMM_AVX512_MR, 8);
}
static inline void qmm_avx512_act1_pack_zp8(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512_act_pack(m, k, x, xs, dst, 1, 8);
}
static inline void qmm_avx512_act8_pack_zp128(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512_act_pack(m, k, x, xs, dst, QMM_AVX512_MR, 128);
}
static inline void qmm_avx512_act1_pack_zp128(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512_act_pack(m, k, x, xs, dst, 1, 128);
}
#define QMM_AVX512_ACT8_ZP8                                                                                                      \
    { QMM_AVX512_MR, qmm_avx512_act8_size, qmm_avx512_act8_offset, qmm_avx512_act8_pack_zp8 }
#define QMM_AVX512_ACT1_ZP8                                                                                                      \
    { 1, qmm_avx512_act1_size, qmm_avx512_act1_offset, qmm_avx512_act1_pack_zp8 }
#define QMM_AVX512_ACT8_ZP128                                                                                                    \
    { QMM_AVX512_MR, qmm_avx512_act8_size, qmm_avx512_act8_offset, qmm_avx512_act8_pack_zp128 }
#define QMM_AVX512_ACT1_ZP128                                                                                                    \
    { 1, qmm_avx512_act1_size, qmm_avx512_act1_offset, qmm_avx512_act1_pack_zp128 }

/* ================================================ the other GGUF types
 *
 * Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K (the "x" families), and the
 * x panels of Q4_0, Q8_0 and the table types IQ4_NL, MXFP4, IQ4_XS that only
 * the AMX families read (their VNNI families keep the layouts above and of
 * avx512_table.h, tuned for them). Same tile
 * shape (8 activation rows x a 16-row panel, one zmm lane per weight row),
 * same activation geometry (40 bytes per row and 32-block), but the int32
 * slot holds the two 16-element sums of the block as int16 (low: elements
 * 0..15, high: 16..31; |sum16| <= 2032) instead of a bias, so every per-16
 * and per-32 correction is one vpmaddwd against a per-lane int16 pair:
 *     float   d[G]         the block scale of each row
 *     int32_t sums[G]      (int16 sum of q[0..15]) | (int16 sum of q[16..31]) << 16
 *     int8_t  q[G][32]     the quantized values, row after row
 *
 * Weights: per panel, k / UE units (UE = 32, or 256 for the K-quants) of
 * CHUNK bytes each: a header (fp16 scales, integer sub-scales) then, per
 * 32-block, the quant bytes. Every weight vector w[c] (c = 0..7) holds for
 * lane r the unsigned q of elements 4c..4c+3 of the block as 4 bytes, so one
 * vpdpbusd per c against the broadcast activation bytes 4c..4c+3; c < 4 are
 * elements 0..15, c >= 4 are 16..31 (the per-16 sub-blocks). Quant bytes of a
 * 32-block (qb), lane r at 4r of every 64-byte vector:
 *   nibbles (256 B): vector v < 4, byte t: element 4v+t | element 16+4v+t << 4
 *                    (Q4_0's form; the table kinds' indices, looked up on load);
 *   whole bytes (512 B: Q8_0's u = q + 128): vector c, byte t = element 4c+t;
 *   bit 4 (64 B, after the nibbles: Q5_*): byte t, bit c = bit 4 of element 4c+t;
 *   2-bit planes (128 B: after the nibbles for Q6_K's bits 4-5, alone for Q2_K's
 *                    and Q3_K's bits 0-1): plane c / 4, byte t, bits 2 (c % 4) = the
 *                    two bits of element 4c+t;
 *   bit 2 (64 B, after the 2-bit planes: Q3_K's u = q + 4, GGUF's hmask bit):
 *                    byte t, bit c = bit 2 of element 4c+t.
 * Unpacking is a shift and a mask (a ternary-logic or) per vector.
 *
 * Per output lane and 32-block, in the reference's order (src/kernels/family.h):
 *   isum = [sc *] sum q qx  (+ the zero point's -off * sum qx, or per 16 for
 *          Q6_K: sc_a sum_a (q - 32) qx + sc_b sum_b (q - 32) qx, Q3_K the same
 *          with 4), exact int32
 *          (every partial product is an exact integer and the total fits);
 *   acc = fma((float)isum, s * x_d, acc)
 *   acc = fma((float)imin, t * x_d, acc)   (types with a min; imin by vpmaddwd)
 * with s, t the fp16 scales widened exactly by vcvtph2ps. */

typedef enum {
    QMM_AVX512X_Q4_0,
    QMM_AVX512X_Q8_0,
    QMM_AVX512X_Q4_1,
    QMM_AVX512X_Q5_0,
    QMM_AVX512X_Q5_1,
    QMM_AVX512X_IQ4_NL,
    QMM_AVX512X_MXFP4,
    QMM_AVX512X_Q2_K,
    QMM_AVX512X_Q4_K,
    QMM_AVX512X_Q5_K,
    QMM_AVX512X_Q6_K,
    QMM_AVX512X_Q3_K,
    QMM_AVX512X_IQ4_XS,
} qmm_avx512x_kind;

#define QMM_AVX512X_IS_K(kind) ((kind) >= QMM_AVX512X_Q2_K)
/* the table kinds: their nibbles index 16 int8 levels (qmm_kvalues_iq4nl,
 * MXFP4's qmm_kvalues_mxfp4), looked up (vpshufb) into the level + 128 as the
 * weight byte */
#define QMM_AVX512X_TABLE(kind) ((kind) == QMM_AVX512X_IQ4_NL || (kind) == QMM_AVX512X_IQ4_XS || (kind) == QMM_AVX512X_MXFP4)
/* the zero point of the kinds whose weight byte is unsigned with no min: isum
 * starts at -zp sum qx (Q4_0: q - 8, Q5_0: q - 16, Q8_0: (q + 128) - 128, the
 * table kinds: (kv[q] + 128) - 128) */
#define QMM_AVX512X_ZP(kind)                                                                                                     \
    ((kind) == QMM_AVX512X_Q4_0                              ? 8                                                                 \
     : (kind) == QMM_AVX512X_Q5_0                            ? 16                                                                \
     : (kind) == QMM_AVX512X_Q8_0 || QMM_AVX512X_TABLE(kind) ? 128                                                               \
                                                             : 0)
/* kinds whose weight bytes are 4-bit fields (a mask or shift away), against
 * Q8_0's whole bytes and Q2_K / Q3_K's 2-bit fields */
#define QMM_AVX512X_NIB(kind) ((kind) != QMM_AVX512X_Q8_0 && (kind) != QMM_AVX512X_Q2_K && (kind) != QMM_AVX512X_Q3_K)
/* elements per unit (a GGUF block or super-block) */
#define QMM_AVX512X_UE(kind) (QMM_AVX512X_IS_K(kind) ? QMM_QK_K : QMM_QK)
/* header bytes per unit and panel:
 *   Q4_1, Q5_1: fp16 d[16], fp16 m[16]; Q4_0, Q5_0, Q8_0, IQ4_NL: fp16 d[16];
 *   IQ4_XS: fp16 d[16], int8 ls[8][16] (the signed sub-scale, -32..31);
 *   MXFP4: u8 e[16] (GGUF's E8M0 bytes; the scale 2^(e - 128), exact);
 *   Q4_K, Q5_K: fp16 d[16], fp16 dmin[16], u8 sc[8][16], u8 m[8][16];
 *   Q6_K: fp16 d[16], 32 zero bytes, int8 sc[8][16][2] (per 16: a, b);
 *   Q2_K: fp16 d[16], fp16 dmin[16], u8 (sc | m << 4)[8][16][2] (GGUF's bytes);
 *   Q3_K: fp16 d[16], the stored (+32) 6-bit scales kept 6-bit: u8 [8][16]
 *         (32-block j, row r: low 4 bits of scale 2j | of 2j+1 << 4), u8 [4][16]
 *         (row r at 16 (j / 2) + r, nibble j % 2: top 2 bits of scale 2j | of
 *         2j+1 << 2), 32 zero bytes (as bytes the scales would be +3.6%). */
#define QMM_AVX512X_HDR(kind)                                                                                                    \
    ((kind) == QMM_AVX512X_Q3_K                                                               ? 256                              \
     : (kind) == QMM_AVX512X_IQ4_XS                                                           ? 160                              \
     : (kind) == QMM_AVX512X_Q4_0 || (kind) == QMM_AVX512X_Q5_0 || (kind) == QMM_AVX512X_Q8_0 ? 32                               \
     : (kind) == QMM_AVX512X_IQ4_NL                                                           ? 32                               \
     : (kind) == QMM_AVX512X_MXFP4                                                            ? 16                               \
     : (kind) == QMM_AVX512X_Q4_1 || (kind) == QMM_AVX512X_Q5_1                               ? 64                               \
                                                                                              : 320)
/* quant bytes per 32-block and panel */
#define QMM_AVX512X_QB(kind)                                                                                                     \
    ((kind) == QMM_AVX512X_Q3_K                                                               ? 192                              \
     : (kind) == QMM_AVX512X_Q8_0                                                             ? 512                              \
     : (kind) == QMM_AVX512X_Q2_K                                                             ? 128                              \
     : (kind) == QMM_AVX512X_Q6_K                                                             ? 384                              \
     : (kind) == QMM_AVX512X_Q4_0 || (kind) == QMM_AVX512X_Q4_1 || (kind) == QMM_AVX512X_Q4_K ? 256                              \
     : QMM_AVX512X_TABLE(kind)                                                                ? 256                              \
                                                                                              : 320)
#define QMM_AVX512X_CHUNK(kind) (QMM_AVX512X_HDR(kind) + (QMM_AVX512X_UE(kind) / QMM_QK) * QMM_AVX512X_QB(kind))

static inline size_t qmm_avx512x_panel_bytes(int64_t k, int chunk, int ue) { return (size_t)(k / ue) * (size_t)chunk; }

/* 16 int8 to 16 int32 in two steps (vpmovsxbw, vpmovsxwd): the same value,
 * and what SIMDe's emulation (scripts/test-avx512-emu.sh) provides. */
QMM_AVX512_INLINE __m512i qmm_avx512x_i8_to_i32(__m128i v) { return _mm512_cvtepi16_epi32(_mm256_cvtepi8_epi16(v)); }

/* Activations: qmm_avx512_act_size / _offset geometry, the sums slot as above. */
static inline void qmm_avx512x_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst, int g) {
    qmm_avx512_act_pack_rows(m, k, x, x_row_stride, dst, g, 0, 1);
}

/* Unsigned q of 32 elements of a block into lane r of its quant bytes (as
 * described above), and back. q < 16 (nibbles only), < 256 (Q8_0), < 32 (Q5_*), < 64
 * (Q6_K), < 4 (Q2_K), < 8 (Q3_K). The quant bytes must start zeroed. */
static inline void qmm_avx512x_put_q(qmm_avx512x_kind kind, uint8_t *qb, int r, const uint8_t q[QMM_QK]) {
    const int nib = QMM_AVX512X_NIB(kind);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < 4; t++) {
            const int e = 4 * c + t;
            if (kind == QMM_AVX512X_Q8_0)
                qb[64 * c + 4 * r + t] = q[e];
            if (nib)
                qb[64 * (c % 4) + 4 * r + t] |= (uint8_t)((q[e] & 0x0f) << (c < 4 ? 0 : 4));
            if (kind == QMM_AVX512X_Q5_0 || kind == QMM_AVX512X_Q5_1 || kind == QMM_AVX512X_Q5_K)
                qb[256 + 4 * r + t] |= (uint8_t)(((q[e] >> 4) & 1) << c);
            if (kind == QMM_AVX512X_Q6_K || kind == QMM_AVX512X_Q2_K || kind == QMM_AVX512X_Q3_K) {
                const int two = kind == QMM_AVX512X_Q6_K ? (q[e] >> 4) & 3 : q[e] & 3;
                qb[(nib ? 256 : 0) + 64 * (c / 4) + 4 * r + t] |= (uint8_t)(two << (2 * (c % 4)));
            }
            if (kind == QMM_AVX512X_Q3_K)
                qb[128 + 4 * r + t] |= (uint8_t)(((q[e] >> 2) & 1) << c);
        }
}

static inline void qmm_avx512x_get_q(qmm_avx512x_kind kind, const uint8_t *qb, int r, uint8_t q[QMM_QK]) {
    const int nib = QMM_AVX512X_NIB(kind);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < 4; t++) {
            const int e = 4 * c + t;
            int v = nib ? (qb[64 * (c % 4) + 4 * r + t] >> (c < 4 ? 0 : 4)) & 0x0f : 0;
            if (kind == QMM_AVX512X_Q8_0)
                v = qb[64 * c + 4 * r + t];
            if (kind == QMM_AVX512X_Q5_0 || kind == QMM_AVX512X_Q5_1 || kind == QMM_AVX512X_Q5_K)
                v |= ((qb[256 + 4 * r + t] >> c) & 1) << 4;
            if (kind == QMM_AVX512X_Q6_K || kind == QMM_AVX512X_Q2_K || kind == QMM_AVX512X_Q3_K) {
                const int two = (qb[(nib ? 256 : 0) + 64 * (c / 4) + 4 * r + t] >> (2 * (c % 4))) & 3;
                v |= kind == QMM_AVX512X_Q6_K ? two << 4 : two;
            }
            if (kind == QMM_AVX512X_Q3_K)
                v |= ((qb[128 + 4 * r + t] >> c) & 1) << 2;
            q[e] = (uint8_t)v;
        }
}

/* The header of a Q4_K or Q5_K unit, row r (the layout above): the GGUF
 * super-block's fp16 d and dmin, and each 32-block's 6-bit sc and m as a
 * byte; and back (into zeroed scales). */
static inline void qmm_avx512x_put_k_header(uint8_t *unit, int r, uint16_t d, uint16_t dmin, const uint8_t scales[12]) {
    memcpy(unit + 2 * r, &d, 2);
    memcpy(unit + 32 + 2 * r, &dmin, 2);
    for (int j = 0; j < 8; j++) {
        int sc, m;
        qmm_k_scale_min(scales, j, &sc, &m);
        unit[64 + 16 * j + r] = (uint8_t)sc;
        unit[192 + 16 * j + r] = (uint8_t)m;
    }
}

static inline void qmm_avx512x_get_k_header(const uint8_t *unit, int r, uint16_t *d, uint16_t *dmin, uint8_t scales[12]) {
    memcpy(d, unit + 2 * r, 2);
    memcpy(dmin, unit + 32 + 2 * r, 2);
    for (int j = 0; j < 8; j++)
        qmm_k_scale_min_put(scales, j, unit[64 + 16 * j + r], unit[192 + 16 * j + r]);
}

/* The lookup table of a kind (qmm_avx512x_load_w's last operand): the
 * table kinds' level + 128 in every 128-bit lane, zero for the others. Built
 * once per tile or GEMV call, outside the block loops. */
QMM_AVX512_INLINE __m512i qmm_avx512x_table(qmm_avx512x_kind kind) {
    return kind == QMM_AVX512X_MXFP4 ? qmm_avx512_table(qmm_kvalues_mxfp4)
           : QMM_AVX512X_TABLE(kind) ? qmm_avx512_table(qmm_kvalues_iq4nl)
                                     : _mm512_setzero_si512();
}

/* A unit's 16 lane scales s: the fp16 d widened (vcvtph2ps), MXFP4's E8M0
 * bytes as 2^(e - 128); both exact. */
QMM_AVX512_INLINE __m512 qmm_avx512x_scale(qmm_avx512x_kind kind, const uint8_t *unit) {
    return kind == QMM_AVX512X_MXFP4 ? qmm_avx512_e8m0(unit)
                                     : _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)unit));
}

/* IQ4_XS: the 16 lanes' signed sub-scales (-32..31) of 32-block j of a unit. */
QMM_AVX512_INLINE __m512i qmm_avx512x_iq4_xs_ls(const uint8_t *unit, int j) {
    return qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 32 + 16 * j)));
}

/* The 8 weight vectors of a 32-block (unsigned q of elements 4c..4c+3; the
 * table kinds: kv[q] + 128, one vpshufb per vector). */
QMM_AVX512_INLINE void qmm_avx512x_load_w(qmm_avx512x_kind kind, const uint8_t *qb, __m512i w[8], __m512i table) {
    if (kind == QMM_AVX512X_Q8_0)
        for (int c = 0; c < 8; c++)
            w[c] = _mm512_loadu_si512((const void *)(qb + 64 * c));
    if (QMM_AVX512X_NIB(kind))
        qmm_avx512_load_w(QMM_AVX512X_TABLE(kind) ? QMM_AVX512_W_IQ4_NL : QMM_AVX512_W_Q4, qb, w, table);
    if (kind == QMM_AVX512X_Q5_0 || kind == QMM_AVX512X_Q5_1 || kind == QMM_AVX512X_Q5_K) {
        const __m512i h = _mm512_loadu_si512((const void *)(qb + 256));
        const __m512i b4 = _mm512_set1_epi8(0x10);
        /* bit c of each byte to bit 4: 16-bit shifts move no wanted bit across bytes */
        w[0] = _mm512_ternarylogic_epi32(w[0], _mm512_slli_epi16(h, 4), b4, 0xf8); /* a | (b & c) */
        w[1] = _mm512_ternarylogic_epi32(w[1], _mm512_slli_epi16(h, 3), b4, 0xf8);
        w[2] = _mm512_ternarylogic_epi32(w[2], _mm512_slli_epi16(h, 2), b4, 0xf8);
        w[3] = _mm512_ternarylogic_epi32(w[3], _mm512_slli_epi16(h, 1), b4, 0xf8);
        w[4] = _mm512_ternarylogic_epi32(w[4], h, b4, 0xf8);
        w[5] = _mm512_ternarylogic_epi32(w[5], _mm512_srli_epi16(h, 1), b4, 0xf8);
        w[6] = _mm512_ternarylogic_epi32(w[6], _mm512_srli_epi16(h, 2), b4, 0xf8);
        w[7] = _mm512_ternarylogic_epi32(w[7], _mm512_srli_epi16(h, 3), b4, 0xf8);
    } else if (kind == QMM_AVX512X_Q6_K) {
        const __m512i b45 = _mm512_set1_epi8(0x30);
        for (int p = 0; p < 2; p++) {
            const __m512i h = _mm512_loadu_si512((const void *)(qb + 256 + 64 * p));
            w[4 * p + 0] = _mm512_ternarylogic_epi32(w[4 * p + 0], _mm512_slli_epi16(h, 4), b45, 0xf8);
            w[4 * p + 1] = _mm512_ternarylogic_epi32(w[4 * p + 1], _mm512_slli_epi16(h, 2), b45, 0xf8);
            w[4 * p + 2] = _mm512_ternarylogic_epi32(w[4 * p + 2], h, b45, 0xf8);
            w[4 * p + 3] = _mm512_ternarylogic_epi32(w[4 * p + 3], _mm512_srli_epi16(h, 2), b45, 0xf8);
        }
    } else if (kind == QMM_AVX512X_Q2_K || kind == QMM_AVX512X_Q3_K) {
        const __m512i b01 = _mm512_set1_epi8(0x03);
        for (int p = 0; p < 2; p++) {
            const __m512i h = _mm512_loadu_si512((const void *)(qb + 64 * p));
            w[4 * p + 0] = _mm512_and_si512(h, b01);
            w[4 * p + 1] = _mm512_and_si512(_mm512_srli_epi16(h, 2), b01);
            w[4 * p + 2] = _mm512_and_si512(_mm512_srli_epi16(h, 4), b01);
            w[4 * p + 3] = _mm512_and_si512(_mm512_srli_epi16(h, 6), b01);
        }
        if (kind == QMM_AVX512X_Q3_K) { /* bit c of each byte to bit 2 (as Q5_*'s bit 4) */
            const __m512i h = _mm512_loadu_si512((const void *)(qb + 128));
            const __m512i b2 = _mm512_set1_epi8(0x04);
            w[0] = _mm512_ternarylogic_epi32(w[0], _mm512_slli_epi16(h, 2), b2, 0xf8);
            w[1] = _mm512_ternarylogic_epi32(w[1], _mm512_slli_epi16(h, 1), b2, 0xf8);
            w[2] = _mm512_ternarylogic_epi32(w[2], h, b2, 0xf8);
            w[3] = _mm512_ternarylogic_epi32(w[3], _mm512_srli_epi16(h, 1), b2, 0xf8);
            w[4] = _mm512_ternarylogic_epi32(w[4], _mm512_srli_epi16(h, 2), b2, 0xf8);
            w[5] = _mm512_ternarylogic_epi32(w[5], _mm512_srli_epi16(h, 3), b2, 0xf8);
            w[6] = _mm512_ternarylogic_epi32(w[6], _mm512_srli_epi16(h, 4), b2, 0xf8);
            w[7] = _mm512_ternarylogic_epi32(w[7], _mm512_srli_epi16(h, 5), b2, 0xf8);
        }
    }
}

/* The per-lane values of 32-block j of a unit that turn its raw int32 dot
 * products into the reference's float steps (shared by the VNNI tile and the
 * AMX tile of amx_int8.h): the fp16 scales s (and t, the min's), the integer
 * sub-scales and the int16 pairs that vpmaddwd multiplies the block sums by. */
typedef struct {
    __m512 s, t;
    __m512i sc, sca, scb, zpair, mpair;
} qmm_avx512x_bscales;

#define QMM_AVX512X_SPLIT(kind)   ((kind) == QMM_AVX512X_Q6_K || (kind) == QMM_AVX512X_Q2_K || (kind) == QMM_AVX512X_Q3_K)
#define QMM_AVX512X_HAS_MIN(kind) (!QMM_AVX512X_ZP(kind) && (kind) != QMM_AVX512X_Q6_K && (kind) != QMM_AVX512X_Q3_K)

QMM_AVX512_INLINE qmm_avx512x_bscales qmm_avx512x_block_scales(qmm_avx512x_kind kind, const uint8_t *unit, int j) {
    qmm_avx512x_bscales bs;
    bs.sc = bs.sca = bs.scb = bs.zpair = bs.mpair = _mm512_setzero_si512();
    bs.s = qmm_avx512x_scale(kind, unit);
    bs.t = QMM_AVX512X_HAS_MIN(kind) ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(unit + 32))) : bs.s;
    if (kind == QMM_AVX512X_Q4_1 || kind == QMM_AVX512X_Q5_1) {
        bs.mpair = _mm512_set1_epi16(1); /* imin = sum qx */
    } else if (QMM_AVX512X_ZP(kind)) {
        bs.zpair = _mm512_set1_epi16((short)-QMM_AVX512X_ZP(kind)); /* isum gets -zp sum qx */
        /* IQ4_XS: the signed sub-scale, times the sum after the zero point */
        if (kind == QMM_AVX512X_IQ4_XS)
            bs.sc = qmm_avx512x_iq4_xs_ls(unit, j);
    } else if (kind == QMM_AVX512X_Q4_K || kind == QMM_AVX512X_Q5_K) {
        /* 6-bit values: the sign extension is a zero extension */
        bs.sc = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 64 + 16 * j)));
        const __m512i m = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 192 + 16 * j)));
        bs.mpair = _mm512_sub_epi16(_mm512_setzero_si512(), _mm512_or_si512(m, _mm512_slli_epi32(m, 16))); /* (-m, -m) */
    } else if (kind == QMM_AVX512X_Q6_K) {
        const __m512i pair = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(unit + 64 + 32 * j)));
        bs.sca = _mm512_srai_epi32(_mm512_slli_epi32(pair, 16), 16);
        bs.scb = _mm512_srai_epi32(pair, 16);
        bs.zpair = _mm512_mullo_epi16(pair, _mm512_set1_epi16(-32)); /* (-32 sc_a, -32 sc_b), |.| <= 4096 */
    } else if (kind == QMM_AVX512X_Q2_K) {
        /* sign-extended bytes: every field is masked below */
        const __m512i pair = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(unit + 64 + 32 * j)));
        bs.sca = _mm512_and_si512(pair, _mm512_set1_epi32(0x0f));
        bs.scb = _mm512_and_si512(_mm512_srli_epi32(pair, 16), _mm512_set1_epi32(0x0f));
        bs.mpair = _mm512_sub_epi16(_mm512_setzero_si512(),
                                    _mm512_and_si512(_mm512_srli_epi16(pair, 4), _mm512_set1_epi16(0x0f))); /* (-m_a, -m_b) */
    } else if (kind == QMM_AVX512X_Q3_K) {
        /* sign-extended bytes: every field is masked below */
        const __m512i lo = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 32 + 16 * j)));
        __m512i hi = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 160 + 16 * (j / 2))));
        if (j & 1)
            hi = _mm512_srli_epi32(hi, 4);
        const __m512i m4 = _mm512_set1_epi32(0x0f), m2 = _mm512_set1_epi32(3), off = _mm512_set1_epi32(32);
        bs.sca = _mm512_sub_epi32(_mm512_or_si512(_mm512_and_si512(lo, m4), _mm512_slli_epi32(_mm512_and_si512(hi, m2), 4)), off);
        bs.scb = _mm512_sub_epi32(_mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(lo, 4), m4),
                                                  _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(hi, 2), m2), 4)),
                                  off);
        /* (-4 sc_a, -4 sc_b) as int16 pairs: the zero point 4 of u = q + 4, |.| <= 128 */
        const __m512i za = _mm512_mullo_epi32(bs.sca, _mm512_set1_epi32(-4)),
                      zb = _mm512_mullo_epi32(bs.scb, _mm512_set1_epi32(-4));
        bs.zpair = _mm512_or_si512(_mm512_and_si512(za, _mm512_set1_epi32(0xffff)), _mm512_slli_epi32(zb, 16));
    }
    return bs;
}

/* One activation row's 32-block into acc, from the raw exact dot products:
 * da = sum q qx over the block (split kinds: elements 0..15, db: 16..31),
 * sums the row's int16 sum pair broadcast, xd its block scale. The integer
 * isum / imin are the reference's, then its float steps in its order. */
QMM_AVX512_INLINE __m512 qmm_avx512x_row_block(qmm_avx512x_kind kind, __m512 acc, __m512i da, __m512i db, __m512i sums, float xd,
                                               const qmm_avx512x_bscales *bs) {
    __m512i isum;
    if (QMM_AVX512X_SPLIT(kind)) {
        isum = _mm512_add_epi32(_mm512_mullo_epi32(bs->sca, da), _mm512_mullo_epi32(bs->scb, db));
        if (kind == QMM_AVX512X_Q6_K || kind == QMM_AVX512X_Q3_K)
            isum = _mm512_add_epi32(isum, _mm512_madd_epi16(sums, bs->zpair));
    } else if (QMM_AVX512X_ZP(kind)) {
        isum = _mm512_add_epi32(da, _mm512_madd_epi16(sums, bs->zpair));
        if (QMM_AVX512X_IS_K(kind)) /* IQ4_XS: ls (sum (kv[q] + 128) qx - 128 sum qx) */
            isum = _mm512_mullo_epi32(bs->sc, isum);
    } else {
        isum = QMM_AVX512X_IS_K(kind) ? _mm512_mullo_epi32(bs->sc, da) : da;
    }
    const __m512 vxd = _mm512_set1_ps(xd);
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(bs->s, vxd), acc);
    if (QMM_AVX512X_HAS_MIN(kind))
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_madd_epi16(sums, bs->mpair)), _mm512_mul_ps(bs->t, vxd), acc);
    return acc;
}

/* The first MR activation rows of a group of G x one 16-row panel, all k. */
QMM_AVX512_INLINE void qmm_avx512x_tile(qmm_avx512x_kind kind, int MR, int G, int64_t nb, const uint8_t *act,
                                        const uint8_t *panel, float *y, size_t ys, int ncols) {
    const int per = QMM_AVX512X_UE(kind) / QMM_QK, hdr = QMM_AVX512X_HDR(kind), qbytes = QMM_AVX512X_QB(kind);
    const int chunk = QMM_AVX512X_CHUNK(kind);
    const size_t ablk = (size_t)G * QMM_AVX512_ACT_BLK;
    const __m512i table = qmm_avx512x_table(kind);
    __m512 acc[QMM_AVX512_MR];
    for (int i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *ab = act + (size_t)b * ablk;
        const uint8_t *unit = panel + (size_t)(b / per) * (size_t)chunk;
        const int j = (int)(b % per);
        const uint8_t *qb = unit + hdr + j * qbytes;
        for (int l = 0; l < qbytes; l += 64)
            _mm_prefetch((const char *)(qb + 8 * (size_t)chunk / (size_t)per + (size_t)l), _MM_HINT_T0);
        const qmm_avx512x_bscales bs = qmm_avx512x_block_scales(kind, unit, j);
        __m512i w[8];
        qmm_avx512x_load_w(kind, qb, w, table);
        for (int i = 0; i < MR; i++) {
            const uint8_t *aq = ab + 8 * G + QMM_QK * i;
            const __m512i sums = _mm512_set1_epi32(qmm_avx512_ld32(ab + 4 * (G + i)));
            __m512i da = _mm512_setzero_si512(), db = _mm512_setzero_si512();
            if (QMM_AVX512X_SPLIT(kind)) {
                for (int c = 0; c < 4; c++) {
                    da = _mm512_dpbusd_epi32(da, w[c], _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * c)));
                    db = _mm512_dpbusd_epi32(db, w[c + 4], _mm512_set1_epi32(qmm_avx512_ld32(aq + 16 + 4 * c)));
                }
            } else {
                da = qmm_avx512_block_dot(w, aq, _mm512_setzero_si512()); /* the whole block, from 0 */
            }
            float xd;
            memcpy(&xd, ab + 4 * i, 4);
            acc[i] = qmm_avx512x_row_block(kind, acc[i], da, db, sums, xd, &bs);
        }
    }
    const __mmask16 mask = (__mmask16)((1u << ncols) - 1u);
    for (int i = 0; i < MR; i++)
        _mm512_mask_storeu_ps((float *)((char *)y + (size_t)i * ys), mask, acc[i]);
}

/* m = 1 (decode): one unit of one 16-row panel against its activation
 * blocks (act), added to acc. What the GEMM tile at MR = 1 does per 32-block
 * that a single row does not need:
 *  - the unit's fp16 scales are widened once per unit, not per 32-block;
 *  - the block sums are scalars: the zero points start the int32 chains
 *    (Q4_0 / Q5_0: -8 / -16 sum qx; Q6_K: -32 sum_a qx and -32 sum_b qx, so isum =
 *    sc_a da + sc_b db with no vpmaddwd), and imin is sum qx (Q4_1, Q5_1) or
 *    m_j times -sum qx by one vpmulld (Q4_K, Q5_K);
 *  - nibble-only kinds (Q4_0, Q4_1, Q4_K) mask the high nibbles in place, in their
 *    own vpdpbusd chain (16 times its sum, brought back by an exact shift), as
 *    qmm_avx512_gemv_panels.
 * Every isum and imin is the same exact integer as the tile's, and the float
 * steps are the tile's: the same bits. Q2_K and Q3_K run the tile. */
QMM_AVX512_INLINE __m512 qmm_avx512x_gemv_unit(qmm_avx512x_kind kind, const uint8_t *unit, const uint8_t *act, __m512 acc,
                                               __m512i table) {
    const int per = QMM_AVX512X_UE(kind) / QMM_QK, hdr = QMM_AVX512X_HDR(kind), qbytes = QMM_AVX512X_QB(kind);
    const int step = QMM_AVX512X_CHUNK(kind) / (QMM_AVX512X_UE(kind) / QMM_QK);
    const int has_min = QMM_AVX512X_HAS_MIN(kind); /* Q2_K / Q3_K never come here */
    const int nib_only = kind == QMM_AVX512X_Q4_0 || kind == QMM_AVX512X_Q4_1 || kind == QMM_AVX512X_Q4_K;
    const __m512 s = qmm_avx512x_scale(kind, unit);
    const __m512 t = has_min ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(unit + 32))) : s;
    for (int j = 0; j < per; j++) {
        const uint8_t *ab = act + (size_t)j * QMM_AVX512_ACT_BLK;
        const uint8_t *aq = ab + 8;
        const uint8_t *qb = unit + hdr + j * qbytes;
        for (int l = 0; QMM_AVX512_GEMV_PF >= 0 && l < step; l += 64)
            _mm_prefetch((const char *)(unit + j * step + QMM_AVX512_GEMV_PF + l), _MM_HINT_T0);
        const int32_t sums = qmm_avx512_ld32(ab + 4);
        const int32_t sum_a = (int16_t)(uint16_t)((uint32_t)sums & 0xffffu);
        const int32_t sum_b = (int16_t)(uint16_t)((uint32_t)sums >> 16);
        __m512i isum;
        if (nib_only) {
            isum = qmm_avx512_nib_dot(qb, aq, _mm512_set1_epi32(-QMM_AVX512X_ZP(kind) * (sum_a + sum_b)));
        } else {
            __m512i w[8];
            qmm_avx512x_load_w(kind, qb, w, table);
            /* chain a: elements 0..15, chain b: 16..31 */
            __m512i da = _mm512_setzero_si512(), db = da;
            if (kind == QMM_AVX512X_Q6_K) {
                da = _mm512_set1_epi32(-32 * sum_a);
                db = _mm512_set1_epi32(-32 * sum_b);
            } else if (QMM_AVX512X_ZP(kind)) {
                da = _mm512_set1_epi32(-QMM_AVX512X_ZP(kind) * (sum_a + sum_b));
            }
            for (int c = 0; c < 4; c++) {
                da = _mm512_dpbusd_epi32(da, w[c], _mm512_set1_epi32(qmm_avx512_ld32(aq + 4 * c)));
                db = _mm512_dpbusd_epi32(db, w[c + 4], _mm512_set1_epi32(qmm_avx512_ld32(aq + 16 + 4 * c)));
            }
            if (kind == QMM_AVX512X_Q6_K) {
                const __m512i pair =
                    _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(unit + 64 + 32 * j)));
                const __m512i sca = _mm512_srai_epi32(_mm512_slli_epi32(pair, 16), 16), scb = _mm512_srai_epi32(pair, 16);
                isum = _mm512_add_epi32(_mm512_mullo_epi32(sca, da), _mm512_mullo_epi32(scb, db));
            } else {
                isum = _mm512_add_epi32(da, db);
            }
        }
        __m512 fmin = _mm512_setzero_ps();
        if (kind == QMM_AVX512X_IQ4_XS) {
            isum = _mm512_mullo_epi32(qmm_avx512x_iq4_xs_ls(unit, j), isum);
        } else if (kind == QMM_AVX512X_Q4_K || kind == QMM_AVX512X_Q5_K) {
            /* 6-bit values: the sign extension is a zero extension */
            const __m512i sc = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 64 + 16 * j)));
            const __m512i m = qmm_avx512x_i8_to_i32(_mm_loadu_si128((const __m128i *)(const void *)(unit + 192 + 16 * j)));
            isum = _mm512_mullo_epi32(sc, isum);
            fmin = _mm512_cvtepi32_ps(_mm512_mullo_epi32(m, _mm512_set1_epi32(-(sum_a + sum_b))));
        } else if (has_min) {
            fmin = _mm512_set1_ps((float)(sum_a + sum_b)); /* exact: |sum| <= 4064 */
        }
        float xd;
        memcpy(&xd, ab, 4);
        const __m512 vxd = _mm512_set1_ps(xd);
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(s, vxd), acc);
        if (has_min)
            acc = _mm512_fmadd_ps(fmin, _mm512_mul_ps(t, vxd), acc);
    }
    return acc;
}

/* NP (1..QMM_AVX512_GEMV_NP) panels pb bytes apart, all k; ncols valid
 * columns in the last one (the others are whole); far: the next NP panels
 * prefetched into L2 as these are read. */
QMM_AVX512_INLINE void qmm_avx512x_gemv_panels(qmm_avx512x_kind kind, int NP, int far, int64_t nb, const uint8_t *act,
                                               const uint8_t *panel, size_t pb, float *y, int ncols) {
    enum { NR = QMM_AVX512_NR };
    if (kind == QMM_AVX512X_Q2_K || kind == QMM_AVX512X_Q3_K) {
        for (int pi = 0; pi < NP; pi++)
            qmm_avx512x_tile(kind, 1, 1, nb, act, panel + (size_t)pi * pb, y + pi * NR, 0, pi == NP - 1 ? ncols : NR);
        return;
    }
    const int per = QMM_AVX512X_UE(kind) / QMM_QK, chunk = QMM_AVX512X_CHUNK(kind);
    const __m512i table = qmm_avx512x_table(kind);
    __m512 acc[QMM_AVX512_GEMV_NP];
    for (int pi = 0; pi < NP; pi++)
        acc[pi] = _mm512_setzero_ps();
    for (int64_t u = 0; u < nb / per; u++)
        for (int pi = 0; pi < NP; pi++) {
            const uint8_t *unit = panel + (size_t)pi * pb + (size_t)u * (size_t)chunk;
            if (far)
                qmm_avx512_prefetch_l2(unit + (size_t)NP * pb, (size_t)chunk);
            acc[pi] = qmm_avx512x_gemv_unit(kind, unit, act + (size_t)(u * per) * QMM_AVX512_ACT_BLK, acc[pi], table);
        }
    for (int pi = 0; pi < NP - 1; pi++)
        _mm512_storeu_ps(y + pi * NR, acc[pi]);
    _mm512_mask_storeu_ps(y + (NP - 1) * NR, (__mmask16)((1u << ncols) - 1u), acc[NP - 1]);
}

/* Unit u of a GGUF row into lane r of a zeroed chunk (put), and lane r of a
 * chunk back as the unit's GGUF bytes, put's exact inverse, at dst of any
 * alignment (get). */
typedef void (*qmm_avx512x_put_unit)(const void *src_row, int64_t u, int r, uint8_t *chunk);
typedef void (*qmm_avx512x_get_unit)(const uint8_t *chunk, int r, void *dst);

/* The GGUF type of an x kind. */
static inline qmm_type qmm_avx512x_wtype(qmm_avx512x_kind kind) {
    switch (kind) {
    case QMM_AVX512X_Q4_0: return QMM_TYPE_Q4_0;
    case QMM_AVX512X_Q8_0: return QMM_TYPE_Q8_0;
    case QMM_AVX512X_Q4_1: return QMM_TYPE_Q4_1;
    case QMM_AVX512X_Q5_0: return QMM_TYPE_Q5_0;
    case QMM_AVX512X_Q5_1: return QMM_TYPE_Q5_1;
    case QMM_AVX512X_IQ4_NL: return QMM_TYPE_IQ4_NL;
    case QMM_AVX512X_MXFP4: return QMM_TYPE_MXFP4;
    case QMM_AVX512X_Q2_K: return QMM_TYPE_Q2_K;
    case QMM_AVX512X_Q4_K: return QMM_TYPE_Q4_K;
    case QMM_AVX512X_Q5_K: return QMM_TYPE_Q5_K;
    case QMM_AVX512X_Q6_K: return QMM_TYPE_Q6_K;
    case QMM_AVX512X_Q3_K: return QMM_TYPE_Q3_K;
    case QMM_AVX512X_IQ4_XS: return QMM_TYPE_IQ4_XS;
    }
    return QMM_TYPE_IQ4_XS; /* not reached: every kind has its case */
}

static inline void qmm_avx512x_w_pack(qmm_avx512x_kind kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                      size_t stride, void *dst, qmm_avx512x_put_unit put) {
    const int chunk = QMM_AVX512X_CHUNK(kind), ue = QMM_AVX512X_UE(kind);
    const int64_t nu = k / ue;
    const size_t pb = qmm_avx512x_panel_bytes(k, chunk, ue);
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512_NR) {
        uint8_t *panel = (uint8_t *)dst + (size_t)(p0 / QMM_AVX512_NR) * pb;
        memset(panel, 0, pb); /* padding rows and pad bytes */
        for (int r = 0; r < QMM_AVX512_NR && p0 + r < n; r++) {
            const void *row = (const char *)src + (size_t)(p0 + r) * stride;
            for (int64_t u = 0; u < nu; u++)
                put(row, u, r, panel + (size_t)u * (size_t)chunk);
        }
    }
}

static inline void qmm_avx512x_w_unpack_row(qmm_avx512x_kind kind, const void *packed, int64_t k, int64_t row, void *dst,
                                            qmm_avx512x_get_unit get) {
    const int chunk = QMM_AVX512X_CHUNK(kind), ue = QMM_AVX512X_UE(kind);
    const uint8_t *panel = (const uint8_t *)packed + (size_t)(row / QMM_AVX512_NR) * qmm_avx512x_panel_bytes(k, chunk, ue);
    for (int64_t u = 0; u < k / ue; u++)
        get(panel + (size_t)u * (size_t)chunk, (int)(row % QMM_AVX512_NR),
            (uint8_t *)dst + (size_t)u * qmm_type_block_bytes(qmm_avx512x_wtype(kind)));
}

/* The x panels' size and offsets (w_packed_size, w_packed_offset), shared
 * by the AVX-512 VNNI and AMX families. */
QMM_AVX512_INLINE size_t qmm_avx512x_w_size(qmm_avx512x_kind kind, int64_t k, int64_t n) {
    return (size_t)((n + QMM_AVX512_NR - 1) / QMM_AVX512_NR) *
           qmm_avx512x_panel_bytes(k, QMM_AVX512X_CHUNK(kind), QMM_AVX512X_UE(kind));
}

QMM_AVX512_INLINE size_t qmm_avx512x_w_offset(qmm_avx512x_kind kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_AVX512_NR) * qmm_avx512x_panel_bytes(k, QMM_AVX512X_CHUNK(kind), QMM_AVX512X_UE(kind));
}

/* The x activation layouts: groups of QMM_AVX512_MR rows (GEMM) or one row
 * (GEMV), the block sums as int16 halves (amx_int8.h adds its groups). */
static inline void qmm_avx512x_act8_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512x_act_pack(m, k, x, xs, dst, QMM_AVX512_MR);
}
static inline void qmm_avx512x_act1_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512x_act_pack(m, k, x, xs, dst, 1);
}
#define QMM_AVX512X_ACT8                                                                                                         \
    { QMM_AVX512_MR, qmm_avx512_act8_size, qmm_avx512_act8_offset, qmm_avx512x_act8_pack }
#define QMM_AVX512X_ACT1                                                                                                         \
    { 1, qmm_avx512_act1_size, qmm_avx512_act1_offset, qmm_avx512x_act1_pack }

/* An x family's gemv (the AMX ones' too), as qmm_avx512_gemv, but its
 * software prefetch stays with one stream (Q6_K, Zen 4: 6-15% slower
 * without it, in runs whose builds read weights of their own). */
QMM_AVX512_INLINE void qmm_avx512x_gemv(qmm_avx512x_kind kind, int64_t n, int64_t k, const void *a, const void *w, float *y) {
    enum { NP = QMM_AVX512_GEMV_NP, NR = QMM_AVX512_NR };
    const int64_t nb = k / QMM_QK;
    const size_t pb = qmm_avx512x_panel_bytes(k, QMM_AVX512X_CHUNK(kind), QMM_AVX512X_UE(kind));
    const int single = qmm_avx512_gemv_single_stream();
    const int np = single ? 1 : NP, far = single && pb <= QMM_AVX512_GEMV_FAR_MAX;
    int64_t n0 = 0;
    for (; np == NP && n - n0 >= NP * NR; n0 += NP * NR)
        qmm_avx512x_gemv_panels(kind, NP, far, nb, (const uint8_t *)a, (const uint8_t *)w + (size_t)(n0 / NR) * pb, pb, y + n0,
                                NR);
    for (; n0 < n; n0 += NR)
        qmm_avx512x_gemv_panels(kind, 1, far, nb, (const uint8_t *)a, (const uint8_t *)w + (size_t)(n0 / NR) * pb, pb, y + n0,
                                (int)(n - n0 < NR ? n - n0 : NR));
}

#endif
