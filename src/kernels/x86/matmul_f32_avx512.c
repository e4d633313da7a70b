/* F32 weights x fp32 activations with AVX-512 FMA, vectorised across 16
 * weight rows (panel layout and tiles in avx512_fp.h). GEMM tile: 12
 * activation rows x 32 weight rows (two panels: 24 accumulators, each
 * broadcast feeds 2 FMAs, each weight vector 12). */
#include "kernels/x86/avx512_fp.h"

#define ESZ 4

/* The per-thread GEMM scratch of the three AVX-512 fp families (avx512_fp.h). */
_Thread_local float qmm_avx512fp_scratch[QMM_AVX512FP_SCRATCH] __attribute__((aligned(64)));

QMM_AVX512FP_FAMILY(ESZ)

static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512FP_NR) {
        uint8_t *panel = (uint8_t *)dst + w_offset(p0, k);
        memset(panel, 0, qmm_avx512fp_panel_bytes(k, ESZ)); /* padding rows and tail */
        float *pf = (float *)(void *)panel;
        for (int r = 0; r < QMM_AVX512FP_NR && p0 + r < n; r++) {
            const float *row = (const float *)((const char *)src + (size_t)(p0 + r) * stride);
            for (int64_t l = 0; l < k; l++)
                pf[l * QMM_AVX512FP_NR + r] = row[l];
        }
    }
}

static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const float *pf = (const float *)(const void *)((const uint8_t *)packed + w_offset(row, k));
    const int r = (int)(row % QMM_AVX512FP_NR);
    for (int64_t l = 0; l < k; l++)
        dst[l] = pf[l * QMM_AVX512FP_NR + r];
}

QMM_AVX512FP_KERNEL(avx512_f32, QMM_TYPE_F32)
