/* AVX-VNNI probe (compiled with -mavx2 -mavxvnni): vpdpbusd on ymm, the
 * instruction of the AVX-VNNI kernel families. */
#include <immintrin.h>

#include "probe.h"
#include "qmatmul.h"

#define CHAINS 12

static uint64_t hsum32(__m256i s) {
    int32_t t[8];
    _mm256_storeu_si256((__m256i *)t, s);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++)
        r += (uint32_t)t[i];
    return r;
}

/* AVX-VNNI: vpdpbusd ymm, 32 u8*s8 MACs per instruction. */
static uint64_t int8_avxvnni(uint64_t iters) {
    const __m256i a = _mm256_set1_epi32((int)(iters | 0x01010101u)), b = _mm256_set1_epi8(3);
    __m256i acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = _mm256_set1_epi32(j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = _mm256_dpbusd_avx_epi32(acc[j], a, b);
    __m256i s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = _mm256_add_epi32(s, acc[j]);
    return hsum32(s);
}

const qmm_probe qmm_probe_int8_avxvnni = {
    "vpdpbusd-ymm",
    QMM_PROBE_INT8,
    QMM_CPU_AVX2 | QMM_CPU_AVXVNNI,
    "AVX-VNNI vpdpbusd ymm alone, 12 independent chains; 32 u8*s8 multiplies + 32 adds = 64 ops per instruction",
    NULL,
    int8_avxvnni,
    CHAINS * 32 * 2,
    NULL};
