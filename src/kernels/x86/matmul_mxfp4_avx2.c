/* MXFP4 x int8, AVX2 (every x86-64-v3 CPU): the nibbles become int8 levels by
 * vpshufb, then Q8_0's dot: vpmaddubsw on |w| and sign-moved x (pairs into
 * int16, exact: at most 2 * 127 * 127 = 32258), then vpmaddwd into int32 at
 * once. The body is avx2_table_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w_u8, x_s8), _mm256_set1_epi16(1)));
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define TB(x)           avx2_mxfp4_##x
#define TB_KIND         1
#define QMM_TB_SYM      qmm_family_avx2_mxfp4
#define QMM_TB_NAME     "avx2_mxfp4"
#define QMM_TB_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_table_body.h"
