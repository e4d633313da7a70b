/* BF16 weights x fp32 activations, AVX2 + FMA: the panel keeps BF16 (the
 * source's values, paired by rows), widened exactly at use into the top half
 * of each fp32 lane (the bf16 bits are the top half of the fp32 ones); the
 * arithmetic is F32's. The body is avx2_fp_body.h. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "formats/formats.h"

#define FP_ELEM uint16_t

static inline float fp_to_f32(uint16_t v) { return qmm_bf16_to_fp32(v); }

/* The panel's k step holds rows (j, j + 8) as one 32-bit pair, so a step
 * widens by one load, a shift (rows 0-7) and a mask (rows 8-15): two vector
 * ops for 16 weights, not four (zero extension + shift per 8). */
static inline void bf16_load16(const uint16_t *p, __m256 *w0, __m256 *w1) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
    *w0 = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
    *w1 = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)));
}
#define FP_LOAD16(p, w0, w1) bf16_load16(p, w0, w1)
#define FP_COL_POS(j)        ((j) < 8 ? 2 * (j) : 2 * ((j)-8) + 1)
#define FP_PACK16_INTERLEAVE 1
#define FP_LAYOUT_ID         2 /* 1: each k step's rows 0-15 in order */

#define FP_SYM      qmm_family_avx2_bf16
#define FP_ATT_SYM  qmm_fp_attention_avx2_bf16
#define FP_NAME     "avx2_bf16"
#define FP_WTYPE    QMM_TYPE_BF16
#define FP_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA)
#include "kernels/x86/avx2_fp_body.h"
