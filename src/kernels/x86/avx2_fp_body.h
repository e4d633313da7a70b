/* F32 / F16 weights x fp32 activations with AVX2 FMA: the body shared by
 * matmul_f32_avx2.c and matmul_f16_avx2.c. The includer defines
 *   FP_SYM, FP_NAME, FP_WTYPE, FP_REQUIRED, FP_ELEM (float or uint16_t),
 *   fp_load8(const FP_ELEM *p)   8 weights as fp32 (F16: vcvtph2ps, exact;
 *                                not needed with FP_LOAD16),
 *   fp_to_f32(FP_ELEM v)         one weight as fp32 (the reference's value).
 *
 * Packed panel of 16 weight rows (n_step 16): element l of row j at
 * l * 16 + j, i.e. the panel transposed, k steps of 16 weights (64 B F32,
 * 32 B F16, the source's size; F16 stays F16). One k step is two vectors of
 * 8 output rows, multiplied by a broadcast activation: the reference's
 * acc = fma(w, x, acc) in ascending k for each output, 16 at once. Tile 6 x 16
 * for GEMM: 12 independent accumulators cover the FMA latency x throughput
 * (4 x 2) with room, using 12 + 2 + 1 of the 16 ymm registers. Activations:
 * the reference fp32 layout (plain rows).
 *
 * Optional, for a 16-bit element whose widening is cheaper 16 at a time
 * (BF16): FP_LOAD16(p, &w0, &w1) widens a k step's 16 weights (default: two
 * fp_load8), FP_COL_POS(j) is where row j's element sits in the step (default
 * j), FP_PACK16_INTERLEAVE packs each step in that order, and
 * FP_LAYOUT_ID names the layout (default 1). */
#include <immintrin.h>
#include <string.h>

#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/fp_attention.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/x86/avx2_fp_widen.h"
#include "kernels/x86/avx2_store16.h"
#include "kernels/x86/fp_pack16.h"

#ifndef FP_LOAD16
#define FP_LOAD16(p, w0, w1) (*(w0) = fp_load8(p), *(w1) = fp_load8((p) + 8))
#endif
#ifndef FP_COL_POS
#define FP_COL_POS(j) (j)
#endif
#ifndef FP_PACK16_INTERLEAVE
#define FP_PACK16_INTERLEAVE 0
#endif
#ifndef FP_LAYOUT_ID
#define FP_LAYOUT_ID 1
#endif

#define FP_NR 16
#define FP_MR 6
#define FP_PF 512 /* software prefetch distance per panel stream, bytes (measured) */

/* 16-bit weights (F16, BF16) may widen each panel once per GEMM (rows of at
 * least two tiles) into the thread's fp32 copy that every row group then
 * reads (k <= QMM_AVX2FP_WIDE_MAX_K), or widen in the tiles at each use: the
 * faster of the two depends on the micro-architecture
 * (qmm_avx2fp_widen_copy, avx2_fp_widen.h). One copy for both families,
 * defined by matmul_f16_avx2.c (a thread runs one GEMM at a time);
 * thread-local: 256 KiB is too much for a host thread's stack. */
#define FP_WIDEN              (sizeof(FP_ELEM) == 2)
#define QMM_AVX2FP_WIDE_MAX_K 4096
#ifdef FP_DEFINE_WIDE
_Thread_local float qmm_avx2fp_wide[QMM_AVX2FP_WIDE_MAX_K * 16] __attribute__((aligned(32)));
#else
extern _Thread_local float qmm_avx2fp_wide[QMM_AVX2FP_WIDE_MAX_K * 16];
#endif

static size_t fp_panel_bytes(int64_t k) { return (size_t)k * FP_NR * sizeof(FP_ELEM); }

static size_t fp_w_size(int64_t k, int64_t n) { return (size_t)((n + FP_NR - 1) / FP_NR) * fp_panel_bytes(k); }

static size_t fp_w_offset(int64_t n_idx, int64_t k) { return (size_t)(n_idx / FP_NR) * fp_panel_bytes(k); }

static void fp_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    if (sizeof(FP_ELEM) == 2) {
        /* with FP_PACK16_INTERLEAVE each step's rows 0-7 and 8-15 as (j, j + 8) pairs */
        qmm_x86fp_pack16(k, n, n0, n1, src, stride, dst, fp_panel_bytes(k), FP_PACK16_INTERLEAVE);
        return;
    }
    enum { KC = 64 }; /* k steps per slice: the slice of the panel (4 KiB F32) stays in L1 while 16 rows fill it */
    for (int64_t p = n0 / FP_NR; p * FP_NR < n1; p++) {
        FP_ELEM *panel = (FP_ELEM *)((char *)dst + (size_t)p * fp_panel_bytes(k));
        for (int64_t l0 = 0; l0 < k; l0 += KC) {
            const int64_t l1 = l0 + KC < k ? l0 + KC : k;
            for (int j = 0; j < FP_NR; j++) {
                const int64_t row = p * FP_NR + j;
                /* padding rows have no source row: no pointer to one either
                 * (a caller's stride may be huge when the tensor has one row) */
                const char *s = row < n1 ? (const char *)src + (size_t)row * stride : NULL;
                for (int64_t l = l0; l < l1; l++) {
                    FP_ELEM v;
                    if (s)
                        memcpy(&v, s + l * (int64_t)sizeof(FP_ELEM), sizeof v);
                    else
                        memset(&v, 0, sizeof v); /* padding rows */
                    panel[l * FP_NR + j] = v;
                }
            }
        }
    }
}

static void fp_read_row(const void *w, int64_t k, int64_t n, int64_t row, float *dst) {
    (void)n;
    const FP_ELEM *panel = (const FP_ELEM *)((const char *)w + fp_w_offset(row, k));
    const int j = (int)(row % FP_NR);
    for (int64_t l = 0; l < k; l++)
        dst[l] = fp_to_f32(panel[l * FP_NR + FP_COL_POS(j)]);
}

/* Row `row` back as its source row: both packers move the bits as they are
 * (FP_COL_POS: where the 16-bit ones put the row in a k step). */
static void fp_w_unpack_row(const void *w, int64_t k, int64_t n, int64_t row, void *dst) {
    (void)n;
    const FP_ELEM *panel = (const FP_ELEM *)((const char *)w + fp_w_offset(row, k));
    const int j = (int)(row % FP_NR);
    for (int64_t l = 0; l < k; l++)
        memcpy((char *)dst + l * (int64_t)sizeof(FP_ELEM), &panel[l * FP_NR + FP_COL_POS(j)], sizeof(FP_ELEM));
}

/* Steps of l between two prefetches of the next panel (fp_tile_of). */
#define FP_NEXT_STEP 16
/* Calls of fewer columns or panels shorter than these do not prefetch the
 * next panel: attention's weights (K, V^T: QK^T's k and PV's n are the head
 * dim) were packed right before the call and are in cache, where the shares'
 * arithmetic and the stepped loop cost up to 5-13% (`qmatmul bench --attn`,
 * 9 / 3 heads, 64 rows); the weight matrices' calls have at least 256
 * columns (exec's fp chunks) of panels from L3 or memory. */
#define FP_NEXT_MIN_K 256
#define FP_NEXT_MIN_N 256

/* One l of a tile: the np panels' weights at l (fp32 from the widened copy,
 * else widened from the panel, with the stream prefetch), mr broadcasts,
 * 2 np mr FMAs. */
static inline __attribute__((always_inline)) void fp_tile_l(const int wide, const int np, const int mr, int64_t l, int64_t pe,
                                                            const float *x, size_t xr, const FP_ELEM *panel, const float *wpanel,
                                                            __m256 acc[4][FP_MR][2]) {
    __m256 w0[4], w1[4];
    for (int p = 0; p < np; p++) {
        if (wide) {
            const float *wl = wpanel + p * pe + l * FP_NR;
            w0[p] = _mm256_loadu_ps(wl);
            w1[p] = _mm256_loadu_ps(wl + 8);
            continue;
        }
        const FP_ELEM *wl = panel + p * pe + l * FP_NR;
        /* memory bound at small m: run ahead across 4 KiB pages */
        _mm_prefetch((const char *)wl + FP_PF, _MM_HINT_T0);
        FP_LOAD16(wl, &w0[p], &w1[p]);
    }
    for (int r = 0; r < mr; r++) {
        const __m256 xb = _mm256_broadcast_ss(x + (size_t)r * xr + l);
        for (int p = 0; p < np; p++) {
            acc[p][r][0] = _mm256_fmadd_ps(w0[p], xb, acc[p][r][0]);
            acc[p][r][1] = _mm256_fmadd_ps(w1[p], xb, acc[p][r][1]);
        }
    }
}

/* mr activation rows (xr floats apart) x np consecutive panels of 16 rows
 * (np * mr <= 6: 2 * np * mr accumulators). ncols: the last panel's valid
 * columns. nx / nx_lines: this tile's share of the next panel, nx_per lines
 * every FP_NEXT_STEP l, fetched into L2 while this panel computes: the next
 * panel's first row group then finds its weights there rather than waiting on
 * L3 for each line (the other row groups find them in L2 anyway). F32
 * prefill, 2 threads: gate / up +7-14%, q / o up to +11%, k / v / down
 * within noise. Not for the widened tiles (wide: their loop in steps
 * measured 3-4% slower, the next panel's prefetch for their widening slower
 * still). */
static inline __attribute__((always_inline)) void fp_tile_of(const int wide, const int np, const int mr, int64_t k,
                                                             const float *x, size_t xr, const void *panel_, float *y, size_t ys,
                                                             int ncols, const char *nx, int64_t nx_lines, int nx_per) {
    const FP_ELEM *panel = (const FP_ELEM *)panel_;
    const float *wpanel = (const float *)panel_; /* wide: the panel widened to fp32 */
    const int64_t pe = k * FP_NR;                /* elements per panel */
    /* the y lines this tile stores (first and last float of each panel's 16):
     * where y is cold (attention's QK^T, k = 64) their page walks and misses
     * then overlap the FMAs instead of stalling the stores */
    for (int r = 0; r < mr; r++)
        for (int p = 0; p < np; p++) {
            const float *yr = (const float *)(const void *)((const char *)y + (size_t)r * ys) + p * FP_NR;
            _mm_prefetch((const char *)yr, _MM_HINT_T0);
            _mm_prefetch((const char *)(yr + FP_NR - 1), _MM_HINT_T0);
        }
    __m256 acc[4][FP_MR][2];
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            acc[p][r][0] = acc[p][r][1] = _mm256_setzero_ps();
    if (wide) {
        for (int64_t l = 0; l < k; l++)
            fp_tile_l(wide, np, mr, l, pe, x, xr, panel, wpanel, acc);
    } else {
        const int64_t step = nx_lines > 0 ? FP_NEXT_STEP : (k > 0 ? k : 1); /* no share: one piece */
        for (int64_t lc = 0; lc < k; lc += step) {
            for (int q = 0; q < nx_per && nx_lines > 0; q++, nx_lines--, nx += 64)
                _mm_prefetch(nx, _MM_HINT_T1);
            const int64_t le = k - lc < step ? k : lc + step;
            for (int64_t l = lc; l < le; l++)
                fp_tile_l(wide, np, mr, l, pe, x, xr, panel, wpanel, acc);
        }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            qmm_avx2_store16((float *)((char *)y + (size_t)r * ys) + p * FP_NR, acc[p][r][0], acc[p][r][1],
                             p == np - 1 ? ncols : FP_NR);
}

#define fp_tile(...) fp_tile_of(0, __VA_ARGS__)

/* r < FP_MR rows x one panel. */
static void fp_tile_rows(int r, int64_t k, const float *x, size_t xr, const FP_ELEM *panel, float *y, size_t ys, int ncols) {
    switch (r) {
    case 5: fp_tile(1, 5, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 4: fp_tile(1, 4, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 3: fp_tile(1, 3, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 2: fp_tile(1, 2, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 1: fp_tile(1, 1, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    default: break;
    }
}

/* Rows of x xr floats apart: the packed layout (xr = k) or rows in place. */
static void fp_gemm_x(int64_t m, int64_t n, int64_t k, const float *x, size_t xr, const void *w, float *y, size_t ys) {
    const int64_t mfull = m - m % FP_MR;
    const int r = (int)(m % FP_MR);
    /* The last r rows take gp panels at once so that they too have 8 FMA
     * chains (one row: 4 panels, two rows: 2); a panel group is done for all
     * rows before the next, so weights come from memory once. */
    const int gp = r == 1 ? 4 : r == 2 ? 2 : 1;
    const int widen = FP_WIDEN && mfull >= 2 * FP_MR && k <= QMM_AVX2FP_WIDE_MAX_K && qmm_avx2fp_widen_copy();
    for (int64_t j0 = 0; j0 < n; j0 += gp * FP_NR) {
        const int64_t jend = j0 + gp * FP_NR < n ? j0 + gp * FP_NR : n;
        for (int64_t jp = j0; jp < jend; jp += FP_NR) {
            const FP_ELEM *panel = (const FP_ELEM *)((const char *)w + fp_w_offset(jp, k));
            const int ncols = (int)(n - jp < FP_NR ? n - jp : FP_NR);
            /* the next panel of this call, cut in one share per row group */
            const char *next = !widen && k >= FP_NEXT_MIN_K && n >= FP_NEXT_MIN_N && jp + FP_NR < n
                                   ? (const char *)w + fp_w_offset(jp + FP_NR, k)
                                   : NULL;
            const int64_t tiles = mfull / FP_MR, lines = (int64_t)((fp_panel_bytes(k) + 63) / 64);
            const int64_t per = next && tiles ? (lines + tiles - 1) / tiles : 0, slots = (k + FP_NEXT_STEP - 1) / FP_NEXT_STEP;
            const int nx_per = (int)(next && slots ? (per + slots - 1) / slots : 0);
            if (widen) {
                float *wide = qmm_avx2fp_wide;
                for (int64_t l = 0; l < k * FP_NR; l += FP_NR) {
                    __m256 a, b;
                    FP_LOAD16(panel + l, &a, &b);
                    _mm256_store_ps(wide + l, a);
                    _mm256_store_ps(wide + l + 8, b);
                }
            }
            for (int64_t i = 0, a = 0; i < mfull; i += FP_MR, a += per) { /* a: this share's first line */
                const char *nx = next && a < lines ? next + a * 64 : NULL;
                const int64_t nx_lines = nx ? (lines - a < per ? lines - a : per) : 0;
                float *yi = (float *)((char *)y + (size_t)i * ys) + jp;
                if (widen)
                    fp_tile_of(1, 1, FP_MR, k, x + (size_t)i * xr, xr, qmm_avx2fp_wide, yi, ys, ncols, NULL, 0, 0);
                else
                    fp_tile(1, FP_MR, k, x + (size_t)i * xr, xr, panel, yi, ys, ncols, nx, nx_lines, nx_per);
            }
        }
        if (r == 0)
            continue;
        const FP_ELEM *panel = (const FP_ELEM *)((const char *)w + fp_w_offset(j0, k));
        float *yr = (float *)((char *)y + (size_t)mfull * ys) + j0;
        const int64_t npan = (jend - j0 + FP_NR - 1) / FP_NR;
        const int nlast = (int)(jend - j0 - (npan - 1) * FP_NR);
        if (gp == 4 && npan == 4)
            fp_tile(4, 1, k, x + (size_t)mfull * xr, xr, panel, yr, ys, nlast, NULL, 0, 0);
        else if (gp == 2 && npan == 2)
            fp_tile(2, 2, k, x + (size_t)mfull * xr, xr, panel, yr, ys, nlast, NULL, 0, 0);
        else
            for (int64_t q = 0; q < npan; q++)
                fp_tile_rows(r, k, x + (size_t)mfull * xr, xr, panel + q * k * FP_NR, yr + q * FP_NR, ys,
                             q == npan - 1 ? nlast : FP_NR);
    }
}

static void fp_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    fp_gemm_x(m, n, k, (const float *)a, (size_t)k, w, y, ys);
}

static void fp_gemm_rows(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t ys) {
    fp_gemm_x(m, n, k, x, xs / sizeof(float), w, y, ys);
}

/* Four panels at a time: 8 independent FMA chains cover the FMA latency,
 * which two chains (one panel) would not. */
static void fp_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const float *x = (const float *)a;
    int64_t j0 = 0;
    for (; j0 + 3 * FP_NR < n; j0 += 4 * FP_NR) {
        const int ncols = (int)(n - j0 - 3 * FP_NR < FP_NR ? n - j0 - 3 * FP_NR : FP_NR);
        fp_tile(4, 1, k, x, 0, (const FP_ELEM *)((const char *)w + fp_w_offset(j0, k)), y + j0, 0, ncols, NULL, 0, 0);
    }
    for (; j0 < n; j0 += FP_NR) {
        const int ncols = (int)(n - j0 < FP_NR ? n - j0 : FP_NR);
        fp_tile(1, 1, k, x, 0, (const FP_ELEM *)((const char *)w + fp_w_offset(j0, k)), y + j0, 0, ncols, NULL, 0, 0);
    }
}

/* The family's `direct` entry (family.h); a translation unit that has one
 * defines FP_DIRECT before including this body. */
#ifndef FP_DIRECT
#define FP_DIRECT NULL
#endif
/* The family's `widen_once` (family.h): the 16-bit families' choice. */
#define FP_WIDEN_ONCE (FP_WIDEN ? qmm_avx2fp_widen_copy : NULL)
/* The family's `wide` / `w_pack_wide` entries (family.h): F16 defines them. */
#ifndef FP_WIDE
#define FP_WIDE      NULL
#define FP_PACK_WIDE NULL
#endif

const qmm_family FP_SYM = {
    .name = FP_NAME,
    .wtype = FP_WTYPE,
    .required = FP_REQUIRED,
    .fallback_hides = FP_REQUIRED, /* masked off to choose the fallback (QMM_CAP hybrid runs): the reference */
    .flags = 0,
    .layout_id = FP_LAYOUT_ID,
    .mr = FP_MR,
    .nr = FP_NR,
    .kr = 1,
    .sr = 1,
    .n_step = FP_NR,
    .w_packed_size = fp_w_size,
    .w_packed_offset = fp_w_offset,
    .w_pack = fp_w_pack,
    .w_read_row = fp_read_row,
    .w_unpack_row = fp_w_unpack_row,
    .act = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = fp_gemm,
    .gemv = fp_gemv,
};

const qmm_fp_attention FP_ATT_SYM = {
    .family = &FP_SYM,
    .gemm_rows = fp_gemm_rows,
    .direct = FP_DIRECT,
    .wide = FP_WIDE,
    .w_pack_wide = FP_PACK_WIDE,
    .widen_once = FP_WIDEN_ONCE,
};
