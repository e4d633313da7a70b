/* IQ4_XS x int8, AVX-VNNI (Alder Lake and later, Zen 5): the dot is 256-bit
 * vpdpbusd on |w| and sign-moved x, four products at a time into int32,
 * exact. Everything else is the AVX2 family's code, avx2_table_body.h,
 * which the oracle test runs on any AVX2 CPU. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step(__m256i acc, __m256i w_u8, __m256i x_s8) { return _mm256_dpbusd_avx_epi32(acc, w_u8, x_s8); }

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define TB(x)           avxvnni_iq4_xs_##x
#define TB_KIND         2
#define QMM_TB_SYM      qmm_family_avxvnni_iq4_xs
#define QMM_TB_NAME     "avxvnni_iq4_xs"
#define QMM_TB_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C | QMM_CPU_AVXVNNI)
#include "kernels/x86/avx2_table_body.h"
