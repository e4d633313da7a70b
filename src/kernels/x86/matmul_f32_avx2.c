/* F32 weights x fp32 activations, AVX2 + FMA. The body is avx2_fp_body.h. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/cpu.h"

#define FP_ELEM float

static inline __m256 fp_load8(const float *p) { return _mm256_loadu_ps(p); }

static inline float fp_to_f32(float v) { return v; }

#define FP_SYM      qmm_family_avx2_f32
#define FP_ATT_SYM  qmm_fp_attention_avx2_f32
#define FP_NAME     "avx2_f32"
#define FP_WTYPE    QMM_TYPE_F32
#define FP_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA)
#include "kernels/x86/avx2_fp_body.h"
