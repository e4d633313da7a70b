/* Q6_K x int8, AVX2 (every x86-64-v3 CPU): the dot is vpmaddubsw (u8 6-bit
 * quant x s8 activation, pairs into int16: at most 2 * 63 * 127 = 16002, no
 * saturation) then vpmaddwd into int32 at every step, since two pairs could
 * exceed int16. The body is avx2_q6_k_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w_u8, x_s8), _mm256_set1_epi16(1)));
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define Q6K_SCALED_X     1 /* the expanded GEMM folds the sub-scales into vpmaddwd */
#define QMM_Q6K_SYM      qmm_family_avx2_q6_k
#define QMM_Q6K_NAME     "avx2_q6_k"
#define QMM_Q6K_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_q6_k_body.h"
