/* F16 weights x fp32 activations with AVX-512 FMA. The panel keeps the fp16
 * bits (half the bytes of F32 to stream); vcvtph2ps widens 16 of them
 * exactly. GEMM: the first row step of a block widens in its tiles and keeps
 * the block as fp32, the others run the F32 tiles on it; GEMV widens per l.
 * Layout and tiles in avx512_fp.h. */
#include "kernels/family.h"
#include "kernels/x86/avx512_f16_direct.h"
#define QMM_AVX512FP_DIRECT qmm_f16d_direct /* decode reads K / V^T in place */
/* prefill of qmm_mul_mat_f16: the weights widened once into avx512_f32's panels */
extern const qmm_family qmm_family_avx512_f32;
static void w_pack_wide(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst);
#define QMM_AVX512FP_WIDE      (&qmm_family_avx512_f32)
#define QMM_AVX512FP_PACK_WIDE w_pack_wide
#include "kernels/x86/avx512_fp.h"

#define ESZ 2

QMM_AVX512FP_FAMILY(ESZ)

static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512fp_pack16(k, n, n0, n1, src, stride, dst, ESZ);
}

static void w_pack_wide(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_x86fp_pack16_wide(k, n, n0, n1, src, stride, dst);
}

static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const uint16_t *ph = (const uint16_t *)(const void *)((const uint8_t *)packed + w_offset(row, k));
    const int r = (int)(row % QMM_AVX512FP_NR);
    for (int64_t l = 0; l < k; l++)
        dst[l] = qmm_fp16_to_fp32(ph[l * QMM_AVX512FP_NR + r]);
}

QMM_AVX512FP_KERNEL(avx512_f16, QMM_TYPE_F16)
