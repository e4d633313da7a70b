/* Q4_1 x int8, AVX-VNNI (Alder Lake and later, Zen 5): the dot is 256-bit
 * vpdpbusd, u8 quants x s8 activations summed four at a time into int32,
 * exact. Everything else (layouts, packers, loops) is the AVX2 family's code,
 * avx2_legacy_body.h, which the oracle test runs on any AVX2 CPU. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) { return _mm256_dpbusd_avx_epi32(acc, w_u8, x_s8); }

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define LQ(x)       avxvnni_q4_1_##x
#define LQ_SYM      qmm_family_avxvnni_q4_1
#define LQ_NAME     "avxvnni_q4_1"
#define LQ_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C | QMM_CPU_AVXVNNI)
#define LQ_WTYPE    QMM_TYPE_Q4_1
#define LQ_BLOCK    qmm_block_q4_1
#define LQ_HAS_MIN  1
#define LQ_HAS_QH   0
#define LQ_OFFSET   0
#include "kernels/x86/avx2_legacy_body.h"
