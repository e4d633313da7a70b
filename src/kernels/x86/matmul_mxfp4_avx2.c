/* MXFP4 x int8, AVX2 (every x86-64-v3 CPU): the nibbles become kv + 12
 * (0..24) by vpshufb, so vpmaddubsw takes them as they are (no vpabsb /
 * vpsignb); four products pairs add in int16 (8 products a lane, at most
 * 8 * 24 * 128 = 24576, exact), then one vpmaddwd into int32; the float step
 * takes 12 x the activation block's sum off. The body is avx2_table_body.h. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step4(__m256i acc, const __m256i w_u8[4], const __m256i x_s8[4]) {
    const __m256i p01 = _mm256_add_epi16(_mm256_maddubs_epi16(w_u8[0], x_s8[0]), _mm256_maddubs_epi16(w_u8[1], x_s8[1]));
    const __m256i p23 = _mm256_add_epi16(_mm256_maddubs_epi16(w_u8[2], x_s8[2]), _mm256_maddubs_epi16(w_u8[3], x_s8[3]));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_add_epi16(p01, p23), _mm256_set1_epi16(1)));
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define TB(x)           avx2_mxfp4_##x
#define TB_KIND         1
#define QMM_TB_SYM      qmm_family_avx2_mxfp4
#define QMM_TB_NAME     "avx2_mxfp4"
#define QMM_TB_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_table_body.h"
