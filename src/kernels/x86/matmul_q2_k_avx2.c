/* Q2_K x int8, AVX2 (every x86-64-v3 CPU): the dot is vpmaddubsw (u8 2-bit
 * quant x s8 activation, pairs into int16) accumulated in int16, then
 * vpmaddwd into int32 once per block, against the sub-scales as int16 pairs
 * (so no dot_finish: QMM_Q23_I16). Exact: a pair is at most 2 * 3 * 127 =
 * 762 in magnitude, each chain sums 4 of them per lane (below 32767), so
 * nothing saturates. The body is avx2_q23_k_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi16(acc, _mm256_maddubs_epi16(w_u8, x_s8));
}

#define QMM_Q23_Q3       0
#define QMM_Q23_I16      1
#define QMM_Q23_SYM      qmm_family_avx2_q2_k
#define QMM_Q23_NAME     "avx2_q2_k"
#define QMM_Q23_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_q23_k_body.h"
