/* BF16 weights x fp32 activations, AVX2 + FMA: the panel keeps BF16 (the
 * source's bytes), widened exactly at use by a zero extension and a 16-bit
 * shift (the bf16 bits are the top half of the fp32 ones); the arithmetic is
 * F32's. The body is avx2_fp_body.h. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "formats/formats.h"

#define FP_ELEM uint16_t

static inline __m256 fp_load8(const uint16_t *p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)), 16));
}

static inline float fp_to_f32(uint16_t v) { return qmm_bf16_to_fp32(v); }

#define FP_SYM      qmm_family_avx2_bf16
#define FP_NAME     "avx2_bf16"
#define FP_WTYPE    QMM_TYPE_BF16
#define FP_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA)
#include "kernels/x86/avx2_fp_body.h"
