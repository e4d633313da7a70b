/* F32 / F16 / BF16 weights x fp32 activations with AVX2 FMA: what
 * matmul_f32_avx2.c, matmul_f16_avx2.c and matmul_bf16_avx2.c share. Every
 * function takes the weight type `kind` (QMM_TYPE_F32, _F16 or _BF16) as a
 * constant first argument; the families' entry points pass theirs.
 *
 * Packed panel of 16 weight rows (n_step 16): element l of row j at
 * l * 16 + j, i.e. the panel transposed, k steps of 16 weights (64 B F32,
 * 32 B F16 / BF16, the source's size; 16-bit values stay 16-bit). One k step
 * is two vectors of 8 output rows, multiplied by a broadcast activation: the
 * reference's acc = fma(w, x, acc) in ascending k for each output, 16 at
 * once. Tile 6 x 16 for GEMM: 12 independent accumulators cover the FMA
 * latency x throughput (4 x 2) with room, using 12 + 2 + 1 of the 16 ymm
 * registers. Activations: the reference fp32 layout (plain rows).
 *
 * BF16 widens more cheaply 16 at a time: its k step holds rows (j, j + 8) as
 * one 32-bit pair (layout 2), so a step widens by one load, a shift (rows
 * 0-7) and a mask (rows 8-15): two vector ops for 16 weights, not four (zero
 * extension + shift per 8). F16 widens by vcvtph2ps (exact), which needs
 * F16C: only the F16 unit is compiled with it. */
#ifndef QMM_X86_AVX2_FP_BODY_H
#define QMM_X86_AVX2_FP_BODY_H

#include <immintrin.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/x86/avx2_fp_widen.h"
#include "kernels/x86/avx2_store16.h"
#include "kernels/x86/fp_pack16.h"

#define QMM_AVX2FP_INLINE static inline __attribute__((always_inline))

#define FP_NR 16
#define FP_MR 6
#define FP_PF 512 /* software prefetch distance per panel stream, bytes (measured) */

/* ------------------------------------------------------------ the kinds */

/* Bytes per packed weight. */
QMM_AVX2FP_INLINE size_t qmm_avx2fp_esz(qmm_type kind) { return kind == QMM_TYPE_F32 ? 4 : 2; }

/* Where row j's element sits in a k step: BF16 pairs rows (j, j + 8). */
QMM_AVX2FP_INLINE int qmm_avx2fp_col_pos(qmm_type kind, int j) {
    return kind == QMM_TYPE_BF16 ? (j < 8 ? 2 * j : 2 * (j - 8) + 1) : j;
}

/* The 16 weights of a k step as fp32, rows 0-7 and 8-15. */
QMM_AVX2FP_INLINE void qmm_avx2fp_load16(qmm_type kind, const void *p, __m256 *w0, __m256 *w1) {
    if (kind == QMM_TYPE_F32) {
        *w0 = _mm256_loadu_ps((const float *)p);
        *w1 = _mm256_loadu_ps((const float *)p + 8);
    } else if (kind == QMM_TYPE_BF16) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)p);
        *w0 = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
        *w1 = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)));
    } else {
#ifdef __F16C__
        *w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
        *w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p + 1));
#else
        *w0 = *w1 = _mm256_setzero_ps(); /* F16 runs only in the F16C unit */
#endif
    }
}

/* Packed element idx as fp32: the reference's conversions, so that GET_ROWS
 * keeps even NaN payloads. */
QMM_AVX2FP_INLINE float qmm_avx2fp_to_f32(qmm_type kind, const void *panel, size_t idx) {
    if (kind == QMM_TYPE_F32)
        return ((const float *)panel)[idx];
    const uint16_t v = ((const uint16_t *)panel)[idx];
    return kind == QMM_TYPE_BF16 ? qmm_bf16_to_fp32(v) : qmm_fp16_to_fp32(v);
}

/* 16-bit weights (F16, BF16) may widen each panel once per GEMM (rows of at
 * least two tiles) into the thread's fp32 copy that every row group then
 * reads (k <= QMM_AVX2FP_WIDE_MAX_K), or widen in the tiles at each use: the
 * faster of the two depends on the micro-architecture
 * (qmm_avx2fp_widen_copy, avx2_fp_widen.h). One copy for both families,
 * defined by matmul_f16_avx2.c (a thread runs one GEMM at a time);
 * thread-local: 256 KiB is too much for a host thread's stack. */
#define QMM_AVX2FP_WIDE_MAX_K 4096
extern _Thread_local float qmm_avx2fp_wide[QMM_AVX2FP_WIDE_MAX_K * 16];

/* ---------------------------------------------------------------- weights */

QMM_AVX2FP_INLINE size_t qmm_avx2fp_panel_bytes(qmm_type kind, int64_t k) { return (size_t)k * FP_NR * qmm_avx2fp_esz(kind); }

QMM_AVX2FP_INLINE size_t qmm_avx2fp_w_size(qmm_type kind, int64_t k, int64_t n) {
    return (size_t)((n + FP_NR - 1) / FP_NR) * qmm_avx2fp_panel_bytes(kind, k);
}

QMM_AVX2FP_INLINE size_t qmm_avx2fp_w_offset(qmm_type kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / FP_NR) * qmm_avx2fp_panel_bytes(kind, k);
}

static inline void qmm_avx2fp_w_pack(qmm_type kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                     void *dst) {
    if (kind != QMM_TYPE_F32) {
        /* BF16: each step's rows 0-7 and 8-15 as (j, j + 8) pairs */
        qmm_x86fp_pack16(k, n, n0, n1, src, stride, dst, qmm_avx2fp_panel_bytes(kind, k), kind == QMM_TYPE_BF16);
        return;
    }
    enum { KC = 64 }; /* k steps per slice: the slice of the panel (4 KiB F32) stays in L1 while 16 rows fill it */
    for (int64_t p = n0 / FP_NR; p * FP_NR < n1; p++) {
        float *panel = (float *)(void *)((char *)dst + (size_t)p * qmm_avx2fp_panel_bytes(kind, k));
        for (int64_t l0 = 0; l0 < k; l0 += KC) {
            const int64_t l1 = l0 + KC < k ? l0 + KC : k;
            for (int j = 0; j < FP_NR; j++) {
                const int64_t row = p * FP_NR + j;
                /* padding rows have no source row: no pointer to one either
                 * (a caller's stride may be huge when the tensor has one row) */
                const char *s = row < n1 ? (const char *)src + (size_t)row * stride : NULL;
                for (int64_t l = l0; l < l1; l++) {
                    float v;
                    if (s)
                        memcpy(&v, s + l * (int64_t)sizeof(float), sizeof v);
                    else
                        memset(&v, 0, sizeof v); /* padding rows */
                    panel[l * FP_NR + j] = v;
                }
            }
        }
    }
}

/* Row `row` back as its source row: both packers move the bits as they are
 * (qmm_avx2fp_col_pos: where the 16-bit ones put the row in a k step). */
static inline void qmm_avx2fp_w_unpack_row(qmm_type kind, const void *w, int64_t k, int64_t row, void *dst) {
    const size_t esz = qmm_avx2fp_esz(kind);
    const char *panel = (const char *)w + qmm_avx2fp_w_offset(kind, row, k);
    const int j = qmm_avx2fp_col_pos(kind, (int)(row % FP_NR));
    for (int64_t l = 0; l < k; l++)
        memcpy((char *)dst + (size_t)l * esz, panel + (size_t)(l * FP_NR + j) * esz, esz);
}

/* ------------------------------------------------------------------ tiles */

/* Steps of l between two prefetches of the next panel (qmm_avx2fp_tile). */
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
QMM_AVX2FP_INLINE void qmm_avx2fp_tile_l(qmm_type kind, const int wide, const int np, const int mr, int64_t l, int64_t pe,
                                         const float *x, size_t xr, const char *panel, const float *wpanel,
                                         __m256 acc[4][FP_MR][2]) {
    __m256 w0[4], w1[4];
    for (int p = 0; p < np; p++) {
        if (wide) {
            const float *wl = wpanel + p * pe + l * FP_NR;
            w0[p] = _mm256_loadu_ps(wl);
            w1[p] = _mm256_loadu_ps(wl + 8);
            continue;
        }
        const char *wl = panel + (size_t)(p * pe + l * FP_NR) * qmm_avx2fp_esz(kind);
        /* memory bound at small m: run ahead across 4 KiB pages */
        _mm_prefetch(wl + FP_PF, _MM_HINT_T0);
        qmm_avx2fp_load16(kind, wl, &w0[p], &w1[p]);
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
QMM_AVX2FP_INLINE void qmm_avx2fp_tile(qmm_type kind, const int wide, const int np, const int mr, int64_t k, const float *x,
                                       size_t xr, const void *panel_, float *y, size_t ys, int ncols, const char *nx,
                                       int64_t nx_lines, int nx_per) {
    const char *panel = (const char *)panel_;
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
            qmm_avx2fp_tile_l(kind, wide, np, mr, l, pe, x, xr, panel, wpanel, acc);
    } else {
        const int64_t step = nx_lines > 0 ? FP_NEXT_STEP : (k > 0 ? k : 1); /* no share: one piece */
        for (int64_t lc = 0; lc < k; lc += step) {
            for (int q = 0; q < nx_per && nx_lines > 0; q++, nx_lines--, nx += 64)
                _mm_prefetch(nx, _MM_HINT_T1);
            const int64_t le = k - lc < step ? k : lc + step;
            for (int64_t l = lc; l < le; l++)
                qmm_avx2fp_tile_l(kind, wide, np, mr, l, pe, x, xr, panel, wpanel, acc);
        }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            qmm_avx2_store16((float *)((char *)y + (size_t)r * ys) + p * FP_NR, acc[p][r][0], acc[p][r][1],
                             p == np - 1 ? ncols : FP_NR);
}

/* r < FP_MR rows x one panel. */
QMM_AVX2FP_INLINE void qmm_avx2fp_tile_rows(qmm_type kind, int r, int64_t k, const float *x, size_t xr, const void *panel,
                                            float *y, size_t ys, int ncols) {
    switch (r) {
    case 5: qmm_avx2fp_tile(kind, 0, 1, 5, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 4: qmm_avx2fp_tile(kind, 0, 1, 4, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 3: qmm_avx2fp_tile(kind, 0, 1, 3, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 2: qmm_avx2fp_tile(kind, 0, 1, 2, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    case 1: qmm_avx2fp_tile(kind, 0, 1, 1, k, x, xr, panel, y, ys, ncols, NULL, 0, 0); break;
    default: break;
    }
}

/* ------------------------------------------------------- GEMM and GEMV */

/* Rows of x xr floats apart: the packed layout (xr = k) or rows in place. */
QMM_AVX2FP_INLINE void qmm_avx2fp_gemm_x(qmm_type kind, int64_t m, int64_t n, int64_t k, const float *x, size_t xr, const void *w,
                                         float *y, size_t ys) {
    const int64_t mfull = m - m % FP_MR;
    const int r = (int)(m % FP_MR);
    /* The last r rows take gp panels at once so that they too have 8 FMA
     * chains (one row: 4 panels, two rows: 2); a panel group is done for all
     * rows before the next, so weights come from memory once. */
    const int gp = r == 1 ? 4 : r == 2 ? 2 : 1;
    const int widen = kind != QMM_TYPE_F32 && mfull >= 2 * FP_MR && k <= QMM_AVX2FP_WIDE_MAX_K && qmm_avx2fp_widen_copy();
    const size_t esz = qmm_avx2fp_esz(kind);
    for (int64_t j0 = 0; j0 < n; j0 += gp * FP_NR) {
        const int64_t jend = j0 + gp * FP_NR < n ? j0 + gp * FP_NR : n;
        for (int64_t jp = j0; jp < jend; jp += FP_NR) {
            const char *panel = (const char *)w + qmm_avx2fp_w_offset(kind, jp, k);
            const int ncols = (int)(n - jp < FP_NR ? n - jp : FP_NR);
            /* the next panel of this call, cut in one share per row group */
            const char *next = !widen && k >= FP_NEXT_MIN_K && n >= FP_NEXT_MIN_N && jp + FP_NR < n
                                   ? (const char *)w + qmm_avx2fp_w_offset(kind, jp + FP_NR, k)
                                   : NULL;
            const int64_t tiles = mfull / FP_MR, lines = (int64_t)((qmm_avx2fp_panel_bytes(kind, k) + 63) / 64);
            const int64_t per = next && tiles ? (lines + tiles - 1) / tiles : 0, slots = (k + FP_NEXT_STEP - 1) / FP_NEXT_STEP;
            const int nx_per = (int)(next && slots ? (per + slots - 1) / slots : 0);
            if (widen) {
                float *wide = qmm_avx2fp_wide;
                for (int64_t l = 0; l < k * FP_NR; l += FP_NR) {
                    __m256 a, b;
                    qmm_avx2fp_load16(kind, panel + (size_t)l * esz, &a, &b);
                    _mm256_store_ps(wide + l, a);
                    _mm256_store_ps(wide + l + 8, b);
                }
            }
            for (int64_t i = 0, a = 0; i < mfull; i += FP_MR, a += per) { /* a: this share's first line */
                const char *nx = next && a < lines ? next + a * 64 : NULL;
                const int64_t nx_lines = nx ? (lines - a < per ? lines - a : per) : 0;
                float *yi = (float *)((char *)y + (size_t)i * ys) + jp;
                if (widen)
                    qmm_avx2fp_tile(kind, 1, 1, FP_MR, k, x + (size_t)i * xr, xr, qmm_avx2fp_wide, yi, ys, ncols, NULL, 0, 0);
                else
                    qmm_avx2fp_tile(kind, 0, 1, FP_MR, k, x + (size_t)i * xr, xr, panel, yi, ys, ncols, nx, nx_lines, nx_per);
            }
        }
        if (r == 0)
            continue;
        const char *panel = (const char *)w + qmm_avx2fp_w_offset(kind, j0, k);
        float *yr = (float *)((char *)y + (size_t)mfull * ys) + j0;
        const int64_t npan = (jend - j0 + FP_NR - 1) / FP_NR;
        const int nlast = (int)(jend - j0 - (npan - 1) * FP_NR);
        if (gp == 4 && npan == 4)
            qmm_avx2fp_tile(kind, 0, 4, 1, k, x + (size_t)mfull * xr, xr, panel, yr, ys, nlast, NULL, 0, 0);
        else if (gp == 2 && npan == 2)
            qmm_avx2fp_tile(kind, 0, 2, 2, k, x + (size_t)mfull * xr, xr, panel, yr, ys, nlast, NULL, 0, 0);
        else
            for (int64_t q = 0; q < npan; q++)
                qmm_avx2fp_tile_rows(kind, r, k, x + (size_t)mfull * xr, xr, panel + (size_t)(q * k * FP_NR) * esz,
                                     yr + q * FP_NR, ys, q == npan - 1 ? nlast : FP_NR);
    }
}

/* Four panels at a time: 8 independent FMA chains cover the FMA latency,
 * which two chains (one panel) would not. */
QMM_AVX2FP_INLINE void qmm_avx2fp_gemv(qmm_type kind, int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const float *x = (const float *)a;
    int64_t j0 = 0;
    for (; j0 + 3 * FP_NR < n; j0 += 4 * FP_NR) {
        const int ncols = (int)(n - j0 - 3 * FP_NR < FP_NR ? n - j0 - 3 * FP_NR : FP_NR);
        qmm_avx2fp_tile(kind, 0, 4, 1, k, x, 0, (const char *)w + qmm_avx2fp_w_offset(kind, j0, k), y + j0, 0, ncols, NULL, 0, 0);
    }
    for (; j0 < n; j0 += FP_NR) {
        const int ncols = (int)(n - j0 < FP_NR ? n - j0 : FP_NR);
        qmm_avx2fp_tile(kind, 0, 1, 1, k, x, 0, (const char *)w + qmm_avx2fp_w_offset(kind, j0, k), y + j0, 0, ncols, NULL, 0, 0);
    }
}

/* The descriptor of an AVX2 fp family from its entry points. */
#define QMM_AVX2FP_DESCRIPTOR(name_, kind_, required_, w_size_, w_offset_, w_pack_, w_unpack_row_, gemm_, gemv_)                 \
    {                                                                                                                            \
        .name = name_, .wtype = kind_, .required = required_,                                                                    \
        .fallback_hides = required_, /* masked off to choose the fallback (QMM_CAP hybrid runs): the reference */                \
            .flags = 0,                                                                                                          \
        .layout_id = (kind_) == QMM_TYPE_BF16 ? 2 : 1, /* 1: each k step's rows 0-15 in order; BF16: the pairs */                \
            .mr = FP_MR, .nr = FP_NR, .kr = 1, .sr = 1, .n_step = FP_NR, .w_packed_size = w_size_, .w_packed_offset = w_offset_, \
        .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                                                                        \
        .act = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack}, .act_gemv = {0, NULL, NULL, NULL},       \
        .gemm = gemm_, .gemv = gemv_,                                                                                            \
    }

#endif
