/* The body of the NEON F32 and F16 families (matmul_f32_neon.c, matmul_f16_neon.c), which differ only in the
 * panel element type and its widening to fp32. Panels hold 16 weight rows interleaved by k (element l of rows
 * 0..15 side by side), so each output lane is one (row, column) pair and accumulates acc = fma(w[l], x[l], acc)
 * over ascending l exactly as the reference: the vectorisation is across outputs, never along k. The weight
 * vectors of one l serve every activation row of the tile (16 weight rows x up to 4 activation rows).
 *
 * The including file defines: wtype_t (the panel element), NEON_FP_WIDEN(e) (one element to fp32, exactly),
 * load_w(p, w) (the 16 elements at p as four fp32 vectors), NEON_FP_SYM, NEON_FP_NAME, NEON_FP_TYPE. */
#ifndef QMM_NEON_FP_KERNELS_H
#define QMM_NEON_FP_KERNELS_H

#include <arm_neon.h>
#include <string.h>

#include "cpu/cpu.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"

#define NR 16 /* weight rows per panel */
#define MR 4  /* activation rows per tile */

static size_t w_size(int64_t k, int64_t n) { return (size_t)((n + NR - 1) / NR) * NR * (size_t)k * sizeof(wtype_t); }
static size_t w_offset(int64_t n_idx, int64_t k) { return (size_t)(n_idx / NR) * NR * (size_t)k * sizeof(wtype_t); }

static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    for (int64_t p0 = n0; p0 < n1; p0 += NR) {
        wtype_t *panel = (wtype_t *)((char *)dst + w_offset(p0, k));
        for (int r = 0; r < NR; r++) {
            const wtype_t *row = p0 + r < n ? (const wtype_t *)((const char *)src + (size_t)(p0 + r) * stride) : NULL;
            for (int64_t l = 0; l < k; l++)
                panel[l * NR + r] = row ? row[l] : 0;
        }
    }
}

static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const wtype_t *panel = (const wtype_t *)((const char *)packed + w_offset(row, k));
    for (int64_t l = 0; l < k; l++)
        dst[l] = NEON_FP_WIDEN(panel[l * NR + row % NR]);
}

/* w_unpack_row: the row's elements back, bits as they are (dst need not be aligned). */
static void w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    const wtype_t *panel = (const wtype_t *)((const char *)packed + w_offset(row, k));
    for (int64_t l = 0; l < k; l++)
        memcpy((char *)dst + (size_t)l * sizeof(wtype_t), &panel[l * NR + row % NR], sizeof(wtype_t));
}

static inline __attribute__((always_inline)) void tile(const int mc, int64_t k, const float *x, const wtype_t *panel,
                                                       float32x4_t out[MR][4]) {
    float32x4_t acc[MR][4];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < 4; v++)
            acc[i][v] = vdupq_n_f32(0.0f);
    int64_t l = 0;
    for (; l + 4 <= k; l += 4) {
        float32x4_t xv[MR];
        for (int i = 0; i < mc; i++)
            xv[i] = vld1q_f32(x + (size_t)i * (size_t)k + l);
        float32x4_t w[4];
#define QMM_STEP(lane)                                                                                                           \
    load_w(panel + (l + lane) * NR, w);                                                                                          \
    for (int i = 0; i < mc; i++)                                                                                                 \
        for (int v = 0; v < 4; v++)                                                                                              \
            acc[i][v] = vfmaq_laneq_f32(acc[i][v], w[v], xv[i], lane);
        QMM_STEP(0)
        QMM_STEP(1)
        QMM_STEP(2)
        QMM_STEP(3)
#undef QMM_STEP
    }
    for (; l < k; l++) {
        float32x4_t w[4];
        load_w(panel + l * NR, w);
        for (int i = 0; i < mc; i++)
            for (int v = 0; v < 4; v++)
                acc[i][v] = vfmaq_n_f32(acc[i][v], w[v], x[(size_t)i * (size_t)k + l]);
    }
    for (int i = 0; i < mc; i++)
        for (int v = 0; v < 4; v++)
            out[i][v] = acc[i][v];
}

static void gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    for (int64_t j0 = 0; j0 < n; j0 += NR) {
        const wtype_t *panel = (const wtype_t *)((const char *)w + w_offset(j0, k));
        const int64_t nc = n - j0 < NR ? n - j0 : NR;
        for (int64_t i0 = 0; i0 < m; i0 += MR) {
            const float *x = (const float *)a + (size_t)i0 * (size_t)k;
            const int64_t mc = m - i0 < MR ? m - i0 : MR;
            float32x4_t out[MR][4];
            switch (mc) {
            case 1: tile(1, k, x, panel, out); break;
            case 2: tile(2, k, x, panel, out); break;
            case 3: tile(3, k, x, panel, out); break;
            default: tile(4, k, x, panel, out); break;
            }
            for (int64_t i = 0; i < mc; i++) {
                float *yr = (float *)((char *)y + (size_t)(i0 + i) * ys) + j0;
                if (nc == NR) {
                    for (int v = 0; v < 4; v++)
                        vst1q_f32(yr + 4 * v, out[i][v]);
                } else {
                    float t[NR];
                    for (int v = 0; v < 4; v++)
                        vst1q_f32(t + 4 * v, out[i][v]);
                    memcpy(yr, t, (size_t)nc * sizeof(float));
                }
            }
        }
    }
}

const qmm_family NEON_FP_SYM = {
    .name = NEON_FP_NAME,
    .wtype = NEON_FP_TYPE,
    .required = QMM_CPU_NEON,
    .fallback_hides = QMM_CPU_NEON, /* fallback for QMM_CAP hybrid runs: the reference */
    .flags = 0,
    .layout_id = 1,
    .mr = MR,
    .nr = NR,
    .kr = 1,
    .sr = 1,
    .n_step = NR,
    .w_packed_size = w_size,
    .w_packed_offset = w_offset,
    .w_pack = w_pack,
    .w_read_row = w_read_row,
    .w_unpack_row = w_unpack_row,
    .act = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack},
    .act_gemv = {0, NULL, NULL, NULL},
    .gemm = gemm,
    .gemv = NULL,
};

#endif
