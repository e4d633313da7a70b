/* BF16 weights x fp32 activations with AVX-512 FMA: the F16 family's panel
 * (the 16-bit values as they are) and blocking, widened exactly by a zero
 * extension and a 16-bit shift instead of vcvtph2ps; the arithmetic is
 * F32's (acc = fma(w, x, acc) in ascending k). Layout and tiles in
 * avx512_fp.h. */
#include "kernels/x86/avx512_fp.h"

#define ESZ QMM_AVX512FP_BF16

QMM_AVX512FP_FAMILY(ESZ)

static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512fp_pack16(k, n, n0, n1, src, stride, dst, ESZ);
}

static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const uint16_t *ph = (const uint16_t *)(const void *)((const uint8_t *)packed + w_offset(row, k));
    const int r = (int)(row % QMM_AVX512FP_NR);
    for (int64_t l = 0; l < k; l++)
        dst[l] = qmm_bf16_to_fp32(ph[l * QMM_AVX512FP_NR + r]);
}

QMM_AVX512FP_KERNEL(avx512_bf16, QMM_TYPE_BF16)
