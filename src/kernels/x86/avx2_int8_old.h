/* The AVX2 / AVX-VNNI int8 driver: the loops every 256-bit int8 family
 * shares (panel x row-group tiling, the tile-height switch, the GEMV
 * multi-panel walk, the column-tail store, the prefetch) and the family
 * descriptor. A body template: the format body that includes it defines
 * first
 *   DRV(x)                  prefixes the driver's names (a format's own prefix)
 *   DRV_PANEL_BYTES(nb)     bytes of one 8-row panel of nb 32-blocks
 *   DRV_QUANTS(nb, b)       byte offset, in a panel, of block b's quants
 *   DRV_PF, DRV_PF_LINES    prefetch distance (bytes) and 64 B lines per block
 *   DRV_CHUNKS              dot steps per block
 *   types DRV(wv) (a panel's unpacked chunk), DRV(xv) (a row's activation
 *   chunk), DRV(iacc) (a (panel, row) integer state), DRV(ws) (a panel's
 *   block scales), and always-inline functions
 *     DRV(zero)(DRV(iacc) *)
 *     DRV(unpack)(DRV(wv) *, const uint8_t *panel, int64_t nb, int64_t b, int c)
 *     DRV(xload)(DRV(xv) *, const qmm_act_block *xb, int c)
 *     DRV(dot)(DRV(iacc) *, const DRV(wv) *, const DRV(xv) *)
 *     DRV(scales)(DRV(ws) *, const uint8_t *panel, int64_t nb, int64_t b)
 *     __m256 DRV(float)(__m256 acc, const DRV(iacc) *, const DRV(ws) *, const qmm_act_block *xb)
 *   and, for the descriptor, DRV_SYM, DRV_NAME_STR, DRV_REQUIRED, DRV_WTYPE,
 *   DRV_LAYOUT_ID, DRV_W_PACK, DRV_READ_ROW, DRV_W_UNPACK (the packer, the
 *   GET_ROWS reader and the packer's inverse, defined after the include: they
 *   may use DRV(w_offset)); optionally
 *   DRV_GEMV_FUSED (default 1: the GEMV unpacks and uses one panel's chunk
 *   at a time; 0: all panels' chunk first, as the GEMM), and
 *   DRV_ACT_PACK, an activation packer of the same layout size (default
 *   qmm_avx2_act_q8_pack) whose blocks the format's DRV(float) reads, and
 *   DRV_GEMM_EXPAND (default 1: at m >= 8 the GEMM unpacks each pair of
 *   panels once per k slice into a stack buffer of DRV(wv) / DRV(ws) that
 *   every row group then reads, BLIS's packed B; 0: each row group unpacks
 *   its own, as the GEMV does: Q8_0, whose panel is int8 already), and
 *   DRV_X_SCALED (the format gives the expanded tile its own block scales,
 *   type DRV(ws_x), filled by DRV(scales_x)(DRV(ws_x) *, panel, nb, b), and
 *   dot and float steps DRV(dot_x)(DRV(iacc) *, wv, xv, const DRV(ws_x) *)
 *   and DRV(float_x)(acc, is, const DRV(ws_x) *, xb): the AVX2 K-quants
 *   multiply by their sub-scales inside vpmaddwd, prepared once per slice),
 *   DRV_X_ACC_QUAL (default empty; volatile: that tile's float accumulators
 *   stay in memory, so its 8 integer states keep their registers), and
 *   DRV_SB_BLOCKS (the blocks of a super-block whose scales the format
 *   decodes at once for the GEMV / small-m tile: type DRV(sbs) filled by
 *   DRV(sb_scales)(DRV(sbs) *, panel, nb, b) at each super-block's first
 *   block, and DRV(scales_sb)(DRV(ws) *, const DRV(sbs) *, int i), block i
 *   of it, instead of DRV(scales)).
 * A panel is 8 weight rows (n_step 8); one int32 lane per row, so the float
 * step is one vector op for 8 outputs, the reference's order exactly.
 * Activations: the reference layout (qmm_act_block rows), by the AVX2
 * packer. */
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/x86/act_q8_avx2.h"

#define DRV_NR 8
#define DRV_MR 4
#ifndef DRV_GEMV_FUSED
#define DRV_GEMV_FUSED 1 /* 0: the GEMV unpacks all panels' chunk first (Q2_K: 3% faster so) */
#endif
#ifndef DRV_GEMM_EXPAND
#define DRV_GEMM_EXPAND 1
#endif
#ifndef DRV_X_ACC_QUAL
#define DRV_X_ACC_QUAL /* volatile: the expanded tile keeps its float accumulators in memory */
#endif
#define DRV_KB 16 /* expanded k slice, in 32-blocks (IQ4_NL: 2 panels x 8 KiB of levels, in L1) */
#ifndef DRV_ACT_PACK
#define DRV_ACT_PACK qmm_avx2_act_q8_pack
#endif

static void DRV_W_PACK(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst);
static void DRV_READ_ROW(const void *w, int64_t k, int64_t n, int64_t row, float *dst);
static void DRV_W_UNPACK(const void *w, int64_t k, int64_t n, int64_t row, void *dst);

static size_t DRV(w_size)(int64_t k, int64_t n) { return (size_t)((n + DRV_NR - 1) / DRV_NR) * DRV_PANEL_BYTES(k / QMM_QK); }

static size_t DRV(w_offset)(int64_t n_idx, int64_t k) { return (size_t)(n_idx / DRV_NR) * DRV_PANEL_BYTES(k / QMM_QK); }

/* The mask of the first ncols of a panel's 8 lanes (a partial last panel
 * reads and writes nothing beyond n). */
static inline __m256i DRV(lanes)(int ncols) {
    static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(lanes + DRV_NR - ncols));
}

/* Stores the first ncols lanes. */
static inline void DRV(store)(float *y, __m256 v, int ncols) {
    if (ncols == DRV_NR)
        _mm256_storeu_ps(y, v);
    else
        _mm256_maskstore_ps(y, DRV(lanes)(ncols), v);
}

/* mr activation rows (a, nb blocks apart) x np consecutive panels (np * mr
 * <= 4 float accumulators): each weight chunk is loaded and unpacked once for
 * all mr rows, each activation chunk made once for all np panels. ncols: the
 * last panel's valid columns. */
static inline __attribute__((always_inline)) void DRV(tile)(const int np, const int mr, int64_t nb, const qmm_act_block *a,
                                                            const uint8_t *panel, float *y, size_t ys, int ncols) {
    const size_t pb = DRV_PANEL_BYTES(nb);
    __m256 acc[4][DRV_MR];
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            acc[p][r] = _mm256_setzero_ps();
#ifdef DRV_SB_BLOCKS
    DRV(sbs) sbs[4]; /* the first super-block's here, the others' at their first block */
    for (int p = 0; p < np; p++)
        DRV(sb_scales)(&sbs[p], panel + p * pb, nb, 0);
#endif
    for (int64_t b = 0; b < nb; b++) {
        DRV(iacc) is[4][DRV_MR];
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++)
                DRV(zero)(&is[p][r]);
#ifdef DRV_SB_BLOCKS
        if (b > 0 && b % DRV_SB_BLOCKS == 0)
            for (int p = 0; p < np; p++)
                DRV(sb_scales)(&sbs[p], panel + p * pb, nb, b);
#endif
        for (int p = 0; p < np; p++) { /* memory bound at small m: run ahead across 4 KiB pages */
            const uint8_t *qw = panel + p * pb + DRV_QUANTS(nb, b);
            for (int l = 0; l < DRV_PF_LINES; l++)
                _mm_prefetch((const char *)(qw + DRV_PF + 64 * l), _MM_HINT_T0);
        }
        if (mr == 1 && DRV_GEMV_FUSED) {
            /* GEMV: each panel's chunk is used as soon as it is unpacked.
             * Unpacking all np panels first (as below) kept 4 x 4 vectors
             * live for the table types and gcc spilled them: MXFP4 and
             * IQ4_NL decode from L2 1.55x and 1.14x slower (Zen 3). */
            for (int c = 0; c < DRV_CHUNKS; c++) {
                DRV(xv) xv;
                DRV(xload)(&xv, a + b, c);
                for (int p = 0; p < np; p++) {
                    DRV(wv) wv;
                    DRV(unpack)(&wv, panel + p * pb, nb, b, c);
                    DRV(dot)(&is[p][0], &wv, &xv);
                }
            }
        } else {
            for (int c = 0; c < DRV_CHUNKS; c++) {
                DRV(wv) wv[4];
                for (int p = 0; p < np; p++)
                    DRV(unpack)(&wv[p], panel + p * pb, nb, b, c);
                for (int r = 0; r < mr; r++) {
                    DRV(xv) xv;
                    DRV(xload)(&xv, &a[r * nb + b], c);
                    for (int p = 0; p < np; p++)
                        DRV(dot)(&is[p][r], &wv[p], &xv);
                }
            }
        }
        for (int p = 0; p < np; p++) {
            DRV(ws) ws;
#ifdef DRV_SB_BLOCKS
            DRV(scales_sb)(&ws, &sbs[p], (int)(b % DRV_SB_BLOCKS));
#else
            DRV(scales)(&ws, panel + p * pb, nb, b);
#endif
            for (int r = 0; r < mr; r++)
                acc[p][r] = DRV(float)(acc[p][r], &is[p][r], &ws, &a[r * nb + b]);
        }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            DRV(store)((float *)((char *)y + (size_t)r * ys) + p * DRV_NR, acc[p][r], p == np - 1 ? ncols : DRV_NR);
}

#if DRV_GEMM_EXPAND
#ifdef DRV_X_SCALED
#define DRV_XWS                  DRV(ws_x)
#define DRV_XSCALES              DRV(scales_x)
#define DRV_XDOT(is, wv, xv, ws) DRV(dot_x)(is, wv, xv, ws)
#define DRV_XFLOAT               DRV(float_x)
#else
#define DRV_XWS                  DRV(ws)
#define DRV_XSCALES              DRV(scales)
#define DRV_XDOT(is, wv, xv, ws) DRV(dot)(is, wv, xv)
#define DRV_XFLOAT               DRV(float)
#endif
static inline __m256 DRV(load)(const float *y, int ncols) {
    if (ncols == DRV_NR)
        return _mm256_loadu_ps(y);
    return _mm256_maskload_ps(y, DRV(lanes)(ncols));
}

/* mr rows x np panels (1 or 2) over blocks b0 .. b1 - 1, the panels'
 * chunks and scales read from the expanded slice (panel p's blocks b0 .. at
 * xw + p * DRV_KB * DRV_CHUNKS, xs + p * DRV_KB). Two panels share each
 * activation broadcast. The float accumulators start at zero (b0 = 0) or
 * from y, where the previous slice left them: the same fma sequence per
 * output as one pass over k. ncols: the last panel's valid columns. */
static inline __attribute__((always_inline)) void DRV(tile_x)(const int np, const int mr, int64_t nb, int64_t b0, int64_t b1,
                                                              const qmm_act_block *a, const DRV(wv) * xw, const DRV_XWS *xs,
                                                              float *y, size_t ys, int ncols) {
    DRV_X_ACC_QUAL __m256 acc[2][DRV_MR];
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            acc[p][r] =
                b0 == 0 ? _mm256_setzero_ps()
                        : DRV(load)((const float *)((const char *)y + (size_t)r * ys) + p * DRV_NR, p == np - 1 ? ncols : DRV_NR);
    for (int64_t b = b0; b < b1; b++) {
        DRV(iacc) is[2][DRV_MR];
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++)
                DRV(zero)(&is[p][r]);
#pragma GCC unroll 8
        for (int c = 0; c < DRV_CHUNKS; c++) {
            DRV(wv) wv[2];
            for (int p = 0; p < np; p++)
                wv[p] = xw[p * DRV_KB * DRV_CHUNKS + (b - b0) * DRV_CHUNKS + c];
            for (int r = 0; r < mr; r++) {
                DRV(xv) xv;
                DRV(xload)(&xv, &a[r * nb + b], c);
                for (int p = 0; p < np; p++)
                    DRV_XDOT(&is[p][r], &wv[p], &xv, &xs[p * DRV_KB + b - b0]);
            }
        }
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++)
                acc[p][r] = DRV_XFLOAT(acc[p][r], &is[p][r], &xs[p * DRV_KB + b - b0], &a[r * nb + b]);
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            DRV(store)((float *)((char *)y + (size_t)r * ys) + p * DRV_NR, acc[p][r], p == np - 1 ? ncols : DRV_NR);
}

/* The GEMM for m >= 2 DRV_MR: per pair of panels and k slice, unpack once
 * (DRV_KB blocks), then every row group of the call runs on the unpacked
 * slice. */
static void DRV(gemm_x)(int64_t m, int64_t n, int64_t nb, const qmm_act_block *act, const void *w, float *y, size_t ys) {
    DRV(wv) xw[2 * DRV_KB * DRV_CHUNKS];
    DRV_XWS xs[2 * DRV_KB];
    /* on the caller's stack (a host's pool threads may have small ones) */
    _Static_assert(sizeof xw + sizeof xs <= 24 * 1024, "the expanded slice outgrew its stack budget");
    for (int64_t j0 = 0; j0 < n; j0 += 2 * DRV_NR) {
        const int np = n - j0 > DRV_NR ? 2 : 1;
        const int64_t jl = j0 + (np - 1) * DRV_NR; /* the last panel's first column */
        const int ncols = (int)(n - jl < DRV_NR ? n - jl : DRV_NR);
        for (int64_t b0 = 0; b0 < nb; b0 += DRV_KB) {
            const int64_t b1 = nb - b0 < DRV_KB ? nb : b0 + DRV_KB;
            for (int p = 0; p < np; p++) {
                const uint8_t *panel = (const uint8_t *)w + DRV(w_offset)(j0 + p * DRV_NR, nb * QMM_QK);
                for (int64_t b = b0; b < b1; b++) {
                    for (int c = 0; c < DRV_CHUNKS; c++)
                        DRV(unpack)(&xw[p * DRV_KB * DRV_CHUNKS + (b - b0) * DRV_CHUNKS + c], panel, nb, b, c);
                    DRV_XSCALES(&xs[p * DRV_KB + b - b0], panel, nb, b);
                }
            }
            int64_t i = 0;
            for (; i + DRV_MR <= m; i += DRV_MR) {
                float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
                if (np == 2)
                    DRV(tile_x)(2, DRV_MR, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols);
                else
                    DRV(tile_x)(1, DRV_MR, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols);
            }
            float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
            /* the row tail: both panels on each activation broadcast too */
#define DRV_TAIL(rows)                                                                                                           \
    (np == 2 ? DRV(tile_x)(2, rows, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols)                                             \
             : DRV(tile_x)(1, rows, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols))
            switch (m - i) {
            case 3: DRV_TAIL(3); break;
            case 2: DRV_TAIL(2); break;
            case 1: DRV_TAIL(1); break;
            default: break;
            }
#undef DRV_TAIL
        }
    }
}
#undef DRV_XWS
#undef DRV_XSCALES
#undef DRV_XDOT
#undef DRV_XFLOAT
#endif

static void DRV(gemm)(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
#if DRV_GEMM_EXPAND
    if (m >= 2 * DRV_MR) {
        DRV(gemm_x)(m, n, nb, act, w, y, ys);
        return;
    }
#endif
    /* Panel outer: one panel stays in L1/L2 while every row group streams
     * past it, so weights come from memory once. */
    for (int64_t j0 = 0; j0 < n; j0 += DRV_NR) {
        const uint8_t *panel = (const uint8_t *)w + DRV(w_offset)(j0, k);
        const int ncols = (int)(n - j0 < DRV_NR ? n - j0 : DRV_NR);
        int64_t i = 0;
        for (; i + DRV_MR <= m; i += DRV_MR)
            DRV(tile)(1, DRV_MR, nb, act + i * nb, panel, (float *)((char *)y + (size_t)i * ys) + j0, ys, ncols);
        float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
        switch (m - i) {
        case 3: DRV(tile)(1, 3, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 2: DRV(tile)(1, 2, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 1: DRV(tile)(1, 1, nb, act + i * nb, panel, yi, ys, ncols); break;
        default: break;
        }
    }
}

/* Four panels at a time: the activation chunks serve 32 rows, and four
 * streams run ahead in memory at once (measured: ~10-20% over two). */
static void DRV(gemv)(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    int64_t j0 = 0;
    for (; j0 + 3 * DRV_NR < n; j0 += 4 * DRV_NR) {
        const int ncols = (int)(n - j0 - 3 * DRV_NR < DRV_NR ? n - j0 - 3 * DRV_NR : DRV_NR);
        DRV(tile)(4, 1, nb, act, (const uint8_t *)w + DRV(w_offset)(j0, k), y + j0, 0, ncols);
    }
    for (; j0 < n; j0 += DRV_NR)
        DRV(tile)(1, 1, nb, act, (const uint8_t *)w + DRV(w_offset)(j0, k), y + j0, 0, (int)(n - j0 < DRV_NR ? n - j0 : DRV_NR));
}

static size_t DRV(act_size)(int64_t m, int64_t k) { return (size_t)m * (size_t)(k / QMM_QK) * sizeof(qmm_act_block); }

static size_t DRV(act_offset)(int64_t m_idx, int64_t k) { return DRV(act_size)(m_idx, k); }

const qmm_family DRV_SYM = {
    .name = DRV_NAME_STR,
    .wtype = DRV_WTYPE,
    .required = DRV_REQUIRED,
    /* masked off to choose the fallback (QMM_CAP hybrid runs): AVX-VNNI falls back to AVX2, AVX2 to the reference */
    .fallback_hides = (DRV_REQUIRED & QMM_CPU_AVXVNNI) ? QMM_CPU_AVXVNNI : DRV_REQUIRED,
    .flags = 0,
    .layout_id = DRV_LAYOUT_ID,
    .mr = DRV_MR,
    .nr = DRV_NR,
    .kr = 4,
    .sr = 1,
    .n_step = DRV_NR,
    .w_packed_size = DRV(w_size),
    .w_packed_offset = DRV(w_offset),
    .w_pack = DRV_W_PACK,
    .w_read_row = DRV_READ_ROW,
    .w_unpack_row = DRV_W_UNPACK,
    .act = {1, DRV(act_size), DRV(act_offset), DRV_ACT_PACK},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = DRV(gemm),
    .gemv = DRV(gemv),
};

#undef DRV
#undef DRV_NR
#undef DRV_MR
#undef DRV_PANEL_BYTES
#undef DRV_QUANTS
#undef DRV_PF
#undef DRV_SB_BLOCKS
#undef DRV_PF_LINES
#undef DRV_GEMV_FUSED
#undef DRV_GEMM_EXPAND
#undef DRV_KB
#undef DRV_X_ACC_QUAL
#undef DRV_X_SCALED
#undef DRV_CHUNKS
#undef DRV_SYM
#undef DRV_NAME_STR
#undef DRV_REQUIRED
#undef DRV_WTYPE
#undef DRV_LAYOUT_ID
#undef DRV_W_PACK
#undef DRV_READ_ROW
#undef DRV_W_UNPACK
#undef DRV_ACT_PACK
