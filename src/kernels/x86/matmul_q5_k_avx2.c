/* Q5_K x int8, AVX2 (every x86-64-v3 CPU): the dot is vpmaddubsw (u8 5-bit
 * quant x s8 activation, pairs into int16: at most 2 * 31 * 127 = 7874, no
 * saturation) then vpmaddwd into int32 at every step, since the 8 pairs of
 * a block lane could exceed int16 (62992). The body is avx2_q4_k_body.h
 * (Q4_K's, with the fifth bit). */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w_u8, x_s8), _mm256_set1_epi16(1)));
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define QMM_Q4K_QH       1
#define QMM_Q4K_X        2
#define QMM_Q4K_SYM      qmm_family_avx2_q5_k
#define QMM_Q4K_NAME     "avx2_q5_k"
#define QMM_Q4K_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_q4_k_body.h"
