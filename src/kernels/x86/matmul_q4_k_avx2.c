/* Q4_K x int8, AVX2 (every x86-64-v3 CPU): the dot is vpmaddubsw (u8 nibble
 * x s8 activation, pairs into int16) accumulated in int16, then vpmaddwd
 * into int32 once per block. Exact: a pair is at most 2 * 15 * 127 = 3810 in
 * magnitude, the 8 pairs of a block lane at most 30480 < 32767, so nothing
 * saturates. The body is avx2_q4_k_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi16(acc, _mm256_maddubs_epi16(w_u8, x_s8));
}

static inline __m256i dot_finish(__m256i acc) { return _mm256_madd_epi16(acc, _mm256_set1_epi16(1)); }

#define QMM_Q4K_X        1
#define QMM_Q4K_SYM      qmm_family_avx2_q4_k
#define QMM_Q4K_NAME     "avx2_q4_k"
#define QMM_Q4K_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_q4_k_body.h"
