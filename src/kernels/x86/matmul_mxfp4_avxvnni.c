/* MXFP4 x int8, AVX-VNNI (Alder Lake and later, Zen 5): the dot is 256-bit
 * vpdpbusd on the unsigned levels kv + 12 and x as they are, four products
 * at a time into int32, exact; the float step takes 12 x the activation
 * block's sum off. Everything else is the AVX2 family's code,
 * avx2_table_body.h, which the oracle test runs on any AVX2 CPU. */
#include <immintrin.h>

#include "cpu/cpu.h"

static inline __m256i dot_step4(__m256i acc, const __m256i w_u8[4], const __m256i x_s8[4]) {
    for (int i = 0; i < 4; i++)
        acc = _mm256_dpbusd_avx_epi32(acc, w_u8[i], x_s8[i]);
    return acc;
}

static inline __m256i dot_finish(__m256i acc) { return acc; }

#define TB(x)           avxvnni_mxfp4_##x
#define TB_KIND         1
#define QMM_TB_SYM      qmm_family_avxvnni_mxfp4
#define QMM_TB_NAME     "avxvnni_mxfp4"
#define QMM_TB_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C | QMM_CPU_AVXVNNI)
#include "kernels/x86/avx2_table_body.h"
