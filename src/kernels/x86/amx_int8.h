/* AMX int8 GEMM on the x-family panels (Q4_0, Q8_0, Q4_1, Q5_0, Q5_1, Q2_K..Q6_K,
 * IQ4_NL, IQ4_XS, MXFP4):
 * included by exactly the translation units compiled with AVX-512 VNNI and
 * AMX-TILE / AMX-INT8 flags (matmul_<type>_amx.c).
 *
 * Why: the VNNI tile spends 8 vpdpbusd per activation row, 32-block and panel
 * on the same two vector ports as the ~8 instructions of the reference's float
 * steps (per 32-block: isum to float, s * x_d, fma; the same for the min).
 * TDPBSSD / TDPBSUD move the integer dot products to the tile unit, exact
 * int32 as vpdpbusd's, and leave the vector ports the float steps.
 *
 * The GEMM walks column panels one at a time and k in chunks of QMM_AMX_KC
 * blocks: each panel's chunk is unpacked once into B tiles
 * (qmm_avx512x_load_w's vector c holds k = 4c..4c+3 of each lane, which is
 * AMX's B-tile row layout; 8 rows x 64 bytes a block), signed where the kind
 * has a zero point (QMM_AMX_ZP), and its per-block weight values computed
 * once, for every 16-row activation group (the act layout with G = 16: a
 * block's q[16][32] is a 16 x 32-byte A tile, row stride 32). Per group and
 * block, the tile unit gives the 16 x 16 dot products (split kinds Q6_K / Q2_K
 * / Q3_K: two, of 16 elements each), stored to a buffer and finished row by
 * row by the reference's float steps (qmm_amx_x_row, qmm_amx_split_row): the
 * same bits. The 16 rows' accumulators stay in registers through a k chunk
 * (one panel: 16 zmm; two panels per A tile, as stop 23 had, kept them in
 * memory and ran 10-16% slower); between k chunks they wait in y. The
 * non-split kinds run a chunk's tile instructions back to back, then its
 * float steps (qmm_amx_x_tile_batch: tile and vector instructions overlap
 * little); the split kinds alternate two C tile sets, block t + 1's dot
 * products issued before block t's float steps (qmm_amx_x_tile_pipe).
 *
 * Tiles: C set 0 = 0 (split: 0, 1 for halves a / b), set 1 = 6 (split: 6, 7);
 * A = 2 (split: 2, 3, 16 x 16 bytes each); B = 4 (8 x 64 bytes; split: 4, 5,
 * the halves, 4 x 64 bytes). */
#ifndef QMM_X86_AMX_INT8_H
#define QMM_X86_AMX_INT8_H

#include <immintrin.h>

#include "kernels/x86/avx512_gemm.h"

#define QMM_AMX_G 16 /* activation rows per group: the A tile's rows */

/* Groups with fewer real rows than this run the VNNI tile (AMX computes all
 * 16 rows of a group, padding included): half a group, chosen, not tuned. */
#define QMM_AMX_MIN_ROWS 9

/* 32-blocks per k chunk: a panel's chunk is unpacked to B tiles once (8 KB)
 * for every row group, and stays in L1 with a group's chunk (10 KB). The
 * GEMM's stack holds the panel's B tiles (8 KiB), its block values (4 KiB)
 * and the C buffers (4 KiB). 8 ran 9% slower (Q4_K, 1 thread). */
#define QMM_AMX_KC 16

typedef struct {
    uint8_t palette_id;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} qmm_amx_tilecfg;

static inline void qmm_amx_set(qmm_amx_tilecfg *cfg, int t, int rows, int colsb) {
    cfg->rows[t] = (uint8_t)rows;
    cfg->colsb[t] = (uint16_t)colsb;
}

/* Loads this thread's tile configuration for kind (released by the caller
 * with _tile_release when its tiles are done). */
static inline void qmm_amx_configure(qmm_avx512x_kind kind) {
    qmm_amx_tilecfg cfg __attribute__((aligned(64)));
    memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    if (QMM_AVX512X_SPLIT(kind)) {
        for (int t = 0; t < 2; t++) {
            qmm_amx_set(&cfg, t, 16, 64);     /* C, set 0, half a / b */
            qmm_amx_set(&cfg, 6 + t, 16, 64); /* C, set 1 */
            qmm_amx_set(&cfg, 2 + t, 16, 16); /* A, elements 0..15 / 16..31 */
            qmm_amx_set(&cfg, 4 + t, 4, 64);  /* B, the same halves */
        }
    } else {
        qmm_amx_set(&cfg, 0, 16, 64); /* C, set 0 */
        qmm_amx_set(&cfg, 6, 16, 64); /* C, set 1 */
        qmm_amx_set(&cfg, 2, 16, 32); /* A */
        qmm_amx_set(&cfg, 4, 8, 64);  /* B */
    }
    /* GCC 12's _tile_loadconfig tells the compiler it reads 8 bytes of cfg,
     * so the stores to the rest may be dropped (a #GP at -O3 in a smaller
     * function, bench/tile_budget_amx.c): this says all 64 are read. */
    __asm__ volatile("" : : "m"(cfg) : "memory");
    _tile_loadconfig(&cfg);
}

/* The zero point the B tiles take off the panel's unsigned weight bytes, so
 * that TDPBSSD (signed x signed) gives the exact isum directly: the x kinds'
 * zero points, Q6_K's 32 and Q3_K's 4 (u = q + 4); 0 (TDPBSUD on the unsigned
 * bytes) for the kinds with a min. Why: the VNNI tile needs unsigned weight
 * bytes and adds -zp sum qx per row and block (a vector instruction per 16
 * outputs); the tile unit has every sign combination, so the zero point moves
 * to the unpacking, once per panel and block for all row groups. */
#define QMM_AMX_ZP(kind) ((kind) == QMM_AVX512X_Q6_K ? 32 : (kind) == QMM_AVX512X_Q3_K ? 4 : QMM_AVX512X_ZP(kind))

/* Blocks b0 .. b0 + nk - 1 of a panel as B tiles: 512 bytes each, row c =
 * weight vector c less QMM_AMX_ZP (split kinds: the two 256-byte halves are
 * the B tiles of elements 0..15 and 16..31). */
QMM_AVX512_INLINE void qmm_amx_x_unpack(qmm_avx512x_kind kind, const uint8_t *panel, int64_t b0, int nk, uint8_t *wb) {
    const int per = QMM_AVX512X_UE(kind) / QMM_QK, hdr = QMM_AVX512X_HDR(kind), qbytes = QMM_AVX512X_QB(kind);
    const int chunk = QMM_AVX512X_CHUNK(kind);
    const __m512i table = qmm_avx512x_table(kind);
    for (int t = 0; t < nk; t++) {
        const int64_t b = b0 + t;
        const uint8_t *qb = panel + (size_t)(b / per) * (size_t)chunk + hdr + (int)(b % per) * qbytes;
        __m512i w[8];
        qmm_avx512x_load_w(kind, qb, w, table);
        for (int v = 0; v < 8; v++)
            _mm512_store_si512((void *)(wb + 512 * (size_t)t + 64 * (size_t)v),
                               QMM_AMX_ZP(kind) ? _mm512_sub_epi8(w[v], _mm512_set1_epi8((char)QMM_AMX_ZP(kind))) : w[v]);
    }
}

/* Per panel and 32-block, what the float steps take from the weights, the
 * same for every row group: computed once per k chunk, each field only for
 * the kinds that read it (Q2_K's whole scales to bs instead). */
typedef struct {
    __m512 s, t;       /* the fp16 scales (and the min's), widened */
    __m512 scf;        /* Q4_K / Q5_K / IQ4_XS: the sub-scale as a float (exact) */
    __m512 mnf;        /* Q4_K / Q5_K: -m as a float (exact) */
    __m512 scaf, scbf; /* Q6_K / Q3_K: the halves' sub-scales as floats (exact) */
} qmm_amx_bvals;

QMM_AVX512_INLINE void qmm_amx_x_block_vals(qmm_avx512x_kind kind, const uint8_t *panel, int64_t b0, int nk, qmm_amx_bvals *bv,
                                            qmm_avx512x_bscales *bs) {
    const int per = QMM_AVX512X_UE(kind) / QMM_QK, chunk = QMM_AVX512X_CHUNK(kind);
    const int split = QMM_AVX512X_SPLIT(kind);
    for (int t = 0; t < nk; t++) {
        const int64_t b = b0 + t;
        const qmm_avx512x_bscales v = qmm_avx512x_block_scales(kind, panel + (size_t)(b / per) * (size_t)chunk, (int)(b % per));
        bv[t].s = v.s;
        bv[t].t = v.t;
        if (QMM_AVX512X_IS_K(kind) && !split)
            bv[t].scf = _mm512_cvtepi32_ps(v.sc);
        if (QMM_AVX512X_IS_K(kind) && !split && QMM_AVX512X_HAS_MIN(kind)) /* the low int16 of (-m, -m) */
            bv[t].mnf = _mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v.mpair, 16), 16));
        if (split && QMM_AMX_ZP(kind)) {
            bv[t].scaf = _mm512_cvtepi32_ps(v.sca);
            bv[t].scbf = _mm512_cvtepi32_ps(v.scb);
        }
        if (split && !QMM_AMX_ZP(kind)) /* Q2_K: qmm_avx512x_row_block takes them whole */
            bs[t] = v;
    }
}

/* The raw dot products of one 32-block of a group (ab) and its B tiles (wb),
 * stored to dst (split kinds: halves a / b to dst and dst + 256), computed in
 * C tile set `set` (0 / 1; the tiles alternate them between blocks). */
QMM_AVX512_INLINE void qmm_amx_x_dots(qmm_avx512x_kind kind, int set, const uint8_t *ab, const uint8_t *wb, int32_t *dst) {
    const uint8_t *aq = ab + 8 * QMM_AMX_G;
    const int split = QMM_AVX512X_SPLIT(kind);
    _tile_loadd(4, wb, 64);
    _tile_loadd(2, aq, 32);
    if (split) { /* C0 += A2 B4 (elements 0..15), C1 += A3 B5 (16..31) */
        _tile_loadd(5, wb + 256, 64);
        _tile_loadd(3, aq + 16, 32);
    }
    /* tile numbers are immediates: one branch per C set and signedness */
    if (set == 0 && QMM_AMX_ZP(kind)) {
        _tile_zero(0);
        _tile_dpbssd(0, 2, 4);
        if (split) {
            _tile_zero(1);
            _tile_dpbssd(1, 3, 5);
        }
        _tile_stored(0, dst, 64);
        if (split)
            _tile_stored(1, dst + 256, 64);
    } else if (QMM_AMX_ZP(kind)) {
        _tile_zero(6);
        _tile_dpbssd(6, 2, 4);
        if (split) {
            _tile_zero(7);
            _tile_dpbssd(7, 3, 5);
        }
        _tile_stored(6, dst, 64);
        if (split)
            _tile_stored(7, dst + 256, 64);
    } else if (set == 0) {
        _tile_zero(0);
        _tile_dpbsud(0, 2, 4);
        if (split) {
            _tile_zero(1);
            _tile_dpbsud(1, 3, 5);
        }
        _tile_stored(0, dst, 64);
        if (split)
            _tile_stored(1, dst + 256, 64);
    } else {
        _tile_zero(6);
        _tile_dpbsud(6, 2, 4);
        if (split) {
            _tile_zero(7);
            _tile_dpbsud(7, 3, 5);
        }
        _tile_stored(6, dst, 64);
        if (split)
            _tile_stored(7, dst + 256, 64);
    }
}

/* The float steps of one row's 32-block from its dot da, for the non-split
 * kinds, with per-block values hoisted out of the row loop; the same integers
 * and float steps as qmm_avx512x_row_block, fewer vector instructions: da is
 * isum already for the zero point kinds (signed B tiles, QMM_AMX_ZP), and an
 * integer product sc * da or -m * sum qx (below 2^24, see kernels/family.h)
 * is exactly the product of the two exact floats, so vpmulld + vcvtdq2ps
 * become vcvtdq2ps + vmulps; the row's block sum (the min kinds) arrives as a
 * float (fsum). */
QMM_AVX512_INLINE __m512 qmm_amx_x_row(qmm_avx512x_kind kind, __m512 acc, __m512i da, float fsum, float xd,
                                       const qmm_amx_bvals *v) {
    const __m512 vxd = _mm512_set1_ps(xd);
    __m512 fi = _mm512_cvtepi32_ps(da);
    if (QMM_AVX512X_IS_K(kind)) /* Q4_K, Q5_K, IQ4_XS: times the sub-scale */
        fi = _mm512_mul_ps(fi, v->scf);
    acc = _mm512_fmadd_ps(fi, _mm512_mul_ps(v->s, vxd), acc);
    if (QMM_AVX512X_HAS_MIN(kind)) {
        const __m512 fmin = QMM_AVX512X_IS_K(kind) ? _mm512_mul_ps(v->mnf, _mm512_set1_ps(fsum)) : _mm512_set1_ps(fsum);
        acc = _mm512_fmadd_ps(fmin, _mm512_mul_ps(v->t, vxd), acc);
    }
    return acc;
}

/* The float steps of one block for the group's 16 rows (non-split kinds):
 * ab is the group's block in the act layout, dots its dot products (row i at
 * dots + 16 i), v the block's weight values. */
QMM_AVX512_INLINE void qmm_amx_x_rows(qmm_avx512x_kind kind, __m512 *acc, const uint8_t *ab, const int32_t *dots,
                                      const qmm_amx_bvals *v) {
    /* the min kinds: the 16 rows' block sums (int16 pairs) as floats */
    float fsum[QMM_AMX_G] __attribute__((aligned(64)));
    if (QMM_AVX512X_HAS_MIN(kind)) {
        const __m512i sum16 = _mm512_madd_epi16(_mm512_loadu_si512((const void *)(ab + 4 * QMM_AMX_G)), _mm512_set1_epi16(1));
        _mm512_store_ps(fsum, _mm512_cvtepi32_ps(sum16));
        /* the rows read their sums back from memory: a broadcast load takes
         * no vector port, a lane broadcast from the register (vpermd) one */
        __asm__ volatile("" : : "m"(fsum) : "memory");
    }
#pragma GCC unroll 16
    for (int i = 0; i < QMM_AMX_G; i++) {
        float xd;
        memcpy(&xd, ab + 4 * i, 4);
        const __m512i da = _mm512_load_si512((const void *)(dots + 16 * i));
        acc[i] = qmm_amx_x_row(kind, acc[i], da, QMM_AVX512X_HAS_MIN(kind) ? fsum[i] : 0.0f, xd, v);
    }
}

/* The float steps of one block for one row of a split kind (Q6_K, Q2_K,
 * Q3_K) from its half dots da / db: qmm_avx512x_row_block's for Q2_K; for the
 * signed B tiles (Q6_K, Q3_K) isum = sc_a da + sc_b db in float, exactly: each
 * product and their sum are integers below 2^24 (docs/formats.md's bounds),
 * so vcvtdq2ps x 2, vmulps and one fma replace vpmulld x 2 (4 uops here) +
 * vpaddd + vcvtdq2ps. */
QMM_AVX512_INLINE __m512 qmm_amx_split_row(qmm_avx512x_kind kind, __m512 acc, __m512i da, __m512i db, __m512i sums, float xd,
                                           const qmm_amx_bvals *v, const qmm_avx512x_bscales *bs) {
    if (!QMM_AMX_ZP(kind))
        return qmm_avx512x_row_block(kind, acc, da, db, sums, xd, bs);
    const __m512 isum = _mm512_fmadd_ps(_mm512_cvtepi32_ps(da), v->scaf, _mm512_mul_ps(_mm512_cvtepi32_ps(db), v->scbf));
    return _mm512_fmadd_ps(isum, _mm512_mul_ps(v->s, _mm512_set1_ps(xd)), acc);
}

QMM_AVX512_INLINE void qmm_amx_acc_load(__m512 *acc, int64_t b0, const float *y, size_t ys, int mr, __mmask16 cols) {
#pragma GCC unroll 16
    for (int i = 0; i < QMM_AMX_G; i++)
        acc[i] = (b0 > 0 && i < mr) ? _mm512_maskz_loadu_ps(cols, (const float *)((const char *)y + (size_t)i * ys))
                                    : _mm512_setzero_ps();
}

QMM_AVX512_INLINE void qmm_amx_acc_store(const __m512 *acc, float *y, size_t ys, int mr, __mmask16 cols) {
#pragma GCC unroll 16
    for (int i = 0; i < QMM_AMX_G; i++)
        if (i < mr)
            _mm512_mask_storeu_ps((float *)((char *)y + (size_t)i * ys), cols, acc[i]);
}

/* The tiles (qmm_amx_x_tile_pipe, qmm_amx_x_tile_batch): rows i < mr (>= 1)
 * of one 16-row activation group (act: its block 0) x one panel (its B tiles
 * wb, block values bv), blocks b0 .. b0 + nk - 1, into y (rows ys bytes
 * apart), columns < ncols: y starts the accumulators unless b0 == 0 (a float
 * store and load are exact, so chunking k keeps the reference's fma chain).
 * The tile configuration of kind must be loaded.
 *
 * The tile of the split kinds: two C tile sets alternate between blocks,
 * block t + 1's dot products issued before block t's float steps. */
QMM_AVX512_INLINE void qmm_amx_x_tile_pipe(qmm_avx512x_kind kind, int64_t b0, int nk, const uint8_t *act, const uint8_t *wb,
                                           const qmm_amx_bvals *bv, const qmm_avx512x_bscales *bs, float *y, size_t ys, int mr,
                                           int ncols) {
    const size_t ablk = (size_t)QMM_AMX_G * QMM_AVX512_ACT_BLK;
    const __mmask16 cols = (__mmask16)((1u << ncols) - 1u);
    int32_t c[2][2][256] __attribute__((aligned(64)));
    __m512 acc[QMM_AMX_G]; /* unrolled loops below: one register each */
    qmm_amx_acc_load(acc, b0, y, ys, mr, cols);
    const uint8_t *a0 = act + (size_t)b0 * ablk;
    qmm_amx_x_dots(kind, 0, a0, wb, c[0][0]);
    for (int t = 0; t < nk; t++) {
        const uint8_t *ab = a0 + (size_t)t * ablk;
        const int set = t & 1;
        if (t + 1 < nk) /* the next block's dots, into the other C set */
            qmm_amx_x_dots(kind, set ^ 1, ab + ablk, wb + 512 * (size_t)(t + 1), c[set ^ 1][0]);
        if (QMM_AVX512X_SPLIT(kind)) {
#pragma GCC unroll 16
            for (int i = 0; i < QMM_AMX_G; i++) {
                const __m512i da = _mm512_load_si512((const void *)(c[set][0] + 16 * i));
                const __m512i db = _mm512_load_si512((const void *)(c[set][1] + 16 * i));
                const __m512i sums = _mm512_set1_epi32(qmm_avx512_ld32(ab + 4 * (QMM_AMX_G + i)));
                float xd;
                memcpy(&xd, ab + 4 * i, 4);
                acc[i] = qmm_amx_split_row(kind, acc[i], da, db, sums, xd, &bv[t], &bs[t]);
            }
            continue;
        }
        qmm_amx_x_rows(kind, acc, ab, c[set][0], &bv[t]);
    }
    qmm_amx_acc_store(acc, y, ys, mr, cols);
}

/* The tile of the non-split kinds, with the per-block values bv: all the
 * blocks' tile instructions back to back (the dot products to c, 16 KiB, in
 * L1 beside the B tiles), then all their float steps. Why: here (Sapphire
 * Rapids class) tile instructions overlap little with the vector
 * instructions around them: TDPBSSD beside 32 independent register FMAs
 * takes 38 cycles, the two alone 19 and 17 (bench/tile_budget_amx.c, which
 * also has Q4_0's whole step in L1: 113 cycles a block interleaved with
 * unsigned B tiles as before, 79 batched with signed ones). The whole GEMM,
 * one thread, hot (bench/gemv_hot.c, 4096 x 2048, m = 512, median GOP/s,
 * three alternations, signed B tiles both): Q4_0 470-473 interleaved, 470-520
 * batched. Q4_K and Q5_K were batched first (stop 26: 99.0 -> 86.9 TSC cycles
 * a block); the split kinds run 15-18% slower batched (Q6_K 287 -> 237: their
 * 32 KiB of dot products crowd L1), so they stay interleaved. Storing each
 * block's products a TDPBSSD later (in L1: 44 cycles a block with the tile
 * loads, 49 right behind) made no difference in the whole GEMM. */
#define QMM_AMX_BATCHED(kind) (!QMM_AVX512X_SPLIT(kind))

QMM_AVX512_INLINE void qmm_amx_x_tile_batch(qmm_avx512x_kind kind, int64_t b0, int nk, const uint8_t *act, const uint8_t *wb,
                                            const qmm_amx_bvals *bv, float *y, size_t ys, int mr, int ncols) {
    const size_t ablk = (size_t)QMM_AMX_G * QMM_AVX512_ACT_BLK;
    const __mmask16 cols = (__mmask16)((1u << ncols) - 1u);
    int32_t c[QMM_AMX_KC][256] __attribute__((aligned(64)));
    __m512 acc[QMM_AMX_G]; /* unrolled loops below: one register each */
    qmm_amx_acc_load(acc, b0, y, ys, mr, cols);
    const uint8_t *a0 = act + (size_t)b0 * ablk;
#pragma GCC unroll 1
    for (int t = 0; t < nk; t++)
        qmm_amx_x_dots(kind, t & 1, a0 + (size_t)t * ablk, wb + 512 * (size_t)t, c[t]);
    for (int t = 0; t < nk; t++)
        qmm_amx_x_rows(kind, acc, a0 + (size_t)t * ablk, c[t], &bv[t]);
    qmm_amx_acc_store(acc, y, ys, mr, cols);
}

/* The AMX families' GEMM activation layout: groups of QMM_AMX_G rows (the
 * A tile's); their GEMV layout is the x families' (QMM_AVX512X_ACT1). */
static inline size_t qmm_amx_act_size(int64_t m, int64_t k) { return qmm_avx512_act_size(m, k, QMM_AMX_G); }
static inline size_t qmm_amx_act_offset(int64_t m_idx, int64_t k) { return qmm_avx512_act_offset(m_idx, k, QMM_AMX_G); }
static inline void qmm_amx_act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_avx512x_act_pack(m, k, x, xs, dst, QMM_AMX_G);
}
#define QMM_AMX_ACT                                                                                                              \
    { QMM_AMX_G, qmm_amx_act_size, qmm_amx_act_offset, qmm_amx_act_pack }

/* The descriptor fields every AMX family shares: the AVX-512 VNNI x family
 * of its type is its fallback (AMX hidden). */
#define QMM_AMX_GEOMETRY                                                                                                         \
    .required = QMM_AVX512_VNNI_REQUIRED | QMM_CPU_AMX_TILE | QMM_CPU_AMX_INT8,                                                  \
    .fallback_hides = QMM_CPU_AMX_TILE | QMM_CPU_AMX_INT8, .mr = QMM_AMX_G, .nr = QMM_AVX512_NR, .kr = 4, .sr = 1,               \
    .n_step = QMM_AVX512_NR

/* An AMX family's gemm: the x panels of `kind` in 16-row groups on the tile
 * unit; a last group of fewer than QMM_AMX_MIN_ROWS rows on the VNNI tile. */
QMM_AVX512_INLINE void qmm_amx_x_gemm(qmm_avx512x_kind kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                      float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const size_t pb = qmm_avx512x_panel_bytes(k, QMM_AVX512X_CHUNK(kind), QMM_AVX512X_UE(kind));
    const size_t gb = (size_t)nb * QMM_AMX_G * QMM_AVX512_ACT_BLK;
    /* rows in AMX groups: the full ones, and the last if it has QMM_AMX_MIN_ROWS */
    const int64_t m_amx = m / QMM_AMX_G * QMM_AMX_G + (m % QMM_AMX_G >= QMM_AMX_MIN_ROWS ? m % QMM_AMX_G : 0);
    uint8_t wb[QMM_AMX_KC * 512] __attribute__((aligned(64)));
    qmm_amx_bvals bv[QMM_AMX_KC];
    qmm_avx512x_bscales bs[QMM_AMX_KC]; /* Q2_K's, for qmm_avx512x_row_block */
    if (m_amx > 0)
        qmm_amx_configure(kind);
    for (int64_t n0 = 0; n0 < n; n0 += QMM_AVX512_NR) {
        const uint8_t *p = (const uint8_t *)w + (size_t)(n0 / QMM_AVX512_NR) * pb;
        const int nc = (int)(n - n0 < QMM_AVX512_NR ? n - n0 : QMM_AVX512_NR);
        for (int64_t b0 = 0; b0 < nb && m_amx > 0; b0 += QMM_AMX_KC) {
            const int nk = (int)(nb - b0 < QMM_AMX_KC ? nb - b0 : QMM_AMX_KC);
            qmm_amx_x_unpack(kind, p, b0, nk, wb);
            qmm_amx_x_block_vals(kind, p, b0, nk, bv, bs);
            for (int64_t m0 = 0; m0 < m_amx; m0 += QMM_AMX_G) {
                const int mr = (int)(m_amx - m0 < QMM_AMX_G ? m_amx - m0 : QMM_AMX_G);
                const uint8_t *ag = (const uint8_t *)a + (size_t)(m0 / QMM_AMX_G) * gb;
                float *yg = (float *)((char *)y + (size_t)m0 * ys) + n0;
                if (QMM_AMX_BATCHED(kind))
                    qmm_amx_x_tile_batch(kind, b0, nk, ag, wb, bv, yg, ys, mr, nc);
                else
                    qmm_amx_x_tile_pipe(kind, b0, nk, ag, wb, bv, bs, yg, ys, mr, nc);
            }
        }
        if (m_amx < m)
            qmm_avx512_tile_rows(QMM_AVX512_PANELS_X, kind, 0, QMM_AMX_G, (int)(m - m_amx), nb,
                                 (const uint8_t *)a + (size_t)(m_amx / QMM_AMX_G) * gb, p, 0,
                                 (float *)((char *)y + (size_t)m_amx * ys) + n0, ys, nc);
    }
    if (m_amx > 0)
        _tile_release();
}

#endif
