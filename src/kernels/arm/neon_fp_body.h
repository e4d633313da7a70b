/* What the NEON F32, F16 and BF16 families (matmul_f32_neon.c, matmul_f16_neon.c, matmul_bf16_neon.c) share;
 * they differ only in the panel element and its widening to fp32, by the weight type `kind` every function
 * takes as a constant first argument. Panels hold 16 weight rows interleaved by k (element l of rows 0..15 side
 * by side), so each output lane is one (row, column) pair and accumulates acc = fma(w[l], x[l], acc) over
 * ascending l exactly as the reference: the vectorisation is across outputs, never along k. The weight vectors
 * of one l serve every activation row of the tile (16 weight rows x up to 4 activation rows). F16 widens by
 * fcvtl, BF16 by ushll #16 (its bits are the top half of the fp32 ones): both exact, NaN payloads kept; all
 * arithmetic is fp32. */
#ifndef QMM_NEON_FP_KERNELS_H
#define QMM_NEON_FP_KERNELS_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_NEONFP_INLINE static inline __attribute__((always_inline))

#define NR 16 /* weight rows per panel */
#define MR 4  /* activation rows per tile */

/* Bytes per packed weight. */
QMM_NEONFP_INLINE size_t qmm_neonfp_esz(qmm_type kind) { return kind == QMM_TYPE_F32 ? 4 : 2; }

/* Packed element idx as fp32 (the reference's conversions). */
QMM_NEONFP_INLINE float qmm_neonfp_widen(qmm_type kind, const void *panel, size_t idx) {
    if (kind == QMM_TYPE_F32)
        return ((const float *)panel)[idx];
    const uint16_t e = ((const uint16_t *)panel)[idx];
    return kind == QMM_TYPE_BF16 ? qmm_bf16_to_fp32(e) : qmm_fp16_to_fp32(e);
}

/* The 16 weights of one element l of the panel (at p), as fp32. */
QMM_NEONFP_INLINE void qmm_neonfp_load_w(qmm_type kind, const void *p, float32x4_t w[4]) {
    if (kind == QMM_TYPE_F32) {
        for (int v = 0; v < 4; v++)
            w[v] = vld1q_f32((const float *)p + 4 * v);
    } else if (kind == QMM_TYPE_F16) {
        const float16x8_t h0 = vreinterpretq_f16_u16(vld1q_u16((const uint16_t *)p));
        const float16x8_t h1 = vreinterpretq_f16_u16(vld1q_u16((const uint16_t *)p + 8));
        w[0] = vcvt_f32_f16(vget_low_f16(h0));
        w[1] = vcvt_high_f32_f16(h0);
        w[2] = vcvt_f32_f16(vget_low_f16(h1));
        w[3] = vcvt_high_f32_f16(h1);
    } else {
        const uint16x8_t h0 = vld1q_u16((const uint16_t *)p), h1 = vld1q_u16((const uint16_t *)p + 8);
        w[0] = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h0), 16));
        w[1] = vreinterpretq_f32_u32(vshll_high_n_u16(h0, 16));
        w[2] = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h1), 16));
        w[3] = vreinterpretq_f32_u32(vshll_high_n_u16(h1, 16));
    }
}

QMM_NEONFP_INLINE size_t qmm_neonfp_w_size(qmm_type kind, int64_t k, int64_t n) {
    return (size_t)((n + NR - 1) / NR) * NR * (size_t)k * qmm_neonfp_esz(kind);
}
QMM_NEONFP_INLINE size_t qmm_neonfp_w_offset(qmm_type kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / NR) * NR * (size_t)k * qmm_neonfp_esz(kind);
}

static inline void qmm_neonfp_w_pack(qmm_type kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                     void *dst) {
    const size_t esz = qmm_neonfp_esz(kind);
    for (int64_t p0 = n0; p0 < n1; p0 += NR) {
        char *panel = (char *)dst + qmm_neonfp_w_offset(kind, p0, k);
        for (int r = 0; r < NR; r++) {
            const char *row = p0 + r < n ? (const char *)src + (size_t)(p0 + r) * stride : NULL;
            for (int64_t l = 0; l < k; l++) {
                char *e = panel + (size_t)(l * NR + r) * esz;
                if (row)
                    memcpy(e, row + (size_t)l * esz, esz);
                else
                    memset(e, 0, esz);
            }
        }
    }
}

/* The row's elements back, bits as they are (dst need not be aligned). */
static inline void qmm_neonfp_w_unpack_row(qmm_type kind, const void *packed, int64_t k, int64_t row, void *dst) {
    const size_t esz = qmm_neonfp_esz(kind);
    const char *panel = (const char *)packed + qmm_neonfp_w_offset(kind, row, k);
    for (int64_t l = 0; l < k; l++)
        memcpy((char *)dst + (size_t)l * esz, panel + (size_t)(l * NR + row % NR) * esz, esz);
}

QMM_NEONFP_INLINE void qmm_neonfp_tile(qmm_type kind, const int mc, int64_t k, const float *x, const char *panel,
                                       float32x4_t out[MR][4]) {
    const size_t esz = qmm_neonfp_esz(kind);
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
        /* the four l of xv's lanes (the lane an immediate) */
        qmm_neonfp_load_w(kind, panel + (size_t)((l + 0) * NR) * esz, w);
        for (int i = 0; i < mc; i++)
            for (int v = 0; v < 4; v++)
                acc[i][v] = vfmaq_laneq_f32(acc[i][v], w[v], xv[i], 0);
        qmm_neonfp_load_w(kind, panel + (size_t)((l + 1) * NR) * esz, w);
        for (int i = 0; i < mc; i++)
            for (int v = 0; v < 4; v++)
                acc[i][v] = vfmaq_laneq_f32(acc[i][v], w[v], xv[i], 1);
        qmm_neonfp_load_w(kind, panel + (size_t)((l + 2) * NR) * esz, w);
        for (int i = 0; i < mc; i++)
            for (int v = 0; v < 4; v++)
                acc[i][v] = vfmaq_laneq_f32(acc[i][v], w[v], xv[i], 2);
        qmm_neonfp_load_w(kind, panel + (size_t)((l + 3) * NR) * esz, w);
        for (int i = 0; i < mc; i++)
            for (int v = 0; v < 4; v++)
                acc[i][v] = vfmaq_laneq_f32(acc[i][v], w[v], xv[i], 3);
    }
    for (; l < k; l++) {
        float32x4_t w[4];
        qmm_neonfp_load_w(kind, panel + (size_t)(l * NR) * esz, w);
        for (int i = 0; i < mc; i++)
            for (int v = 0; v < 4; v++)
                acc[i][v] = vfmaq_n_f32(acc[i][v], w[v], x[(size_t)i * (size_t)k + l]);
    }
    for (int i = 0; i < mc; i++)
        for (int v = 0; v < 4; v++)
            out[i][v] = acc[i][v];
}

QMM_NEONFP_INLINE void qmm_neonfp_gemm(qmm_type kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                       size_t ys) {
    for (int64_t j0 = 0; j0 < n; j0 += NR) {
        const char *panel = (const char *)w + qmm_neonfp_w_offset(kind, j0, k);
        const int64_t nc = n - j0 < NR ? n - j0 : NR;
        for (int64_t i0 = 0; i0 < m; i0 += MR) {
            const float *x = (const float *)a + (size_t)i0 * (size_t)k;
            const int64_t mc = m - i0 < MR ? m - i0 : MR;
            float32x4_t out[MR][4];
            switch (mc) {
            case 1: qmm_neonfp_tile(kind, 1, k, x, panel, out); break;
            case 2: qmm_neonfp_tile(kind, 2, k, x, panel, out); break;
            case 3: qmm_neonfp_tile(kind, 3, k, x, panel, out); break;
            default: qmm_neonfp_tile(kind, 4, k, x, panel, out); break;
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

/* The descriptor of a NEON fp family from its entry points (GEMV: the GEMM). */
#define QMM_NEONFP_DESCRIPTOR(name_, wtype_, w_size_, w_offset_, w_pack_, w_unpack_row_, gemm_)                                  \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_, .required = QMM_CPU_NEON,                                                                \
        .fallback_hides = QMM_CPU_NEON, /* fallback for QMM_CAP hybrid runs: the reference */                                    \
            .flags = 0, .layout_id = 1, .mr = MR, .nr = NR, .kr = 1, .sr = 1, .n_step = NR, .w_packed_size = w_size_,            \
        .w_packed_offset = w_offset_, .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                                          \
        .act = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack}, .act_gemv = {0, NULL, NULL, NULL},       \
        .gemm = gemm_, .gemv = NULL,                                                                                             \
    }

#endif
