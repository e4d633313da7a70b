/* Arm dot-product probe (compiled with -march=armv8.2-a+dotprod): sdot, the
 * instruction of the NEON dotprod kernel families. */
#include <arm_neon.h>

#include "probe.h"
#include "qmatmul.h"

#define CHAINS 12

/* sdot: 16 s8*s8 MACs per instruction (4 per 32-bit lane). */
static uint64_t int8_sdot(uint64_t iters) {
    const int8x16_t a = vdupq_n_s8((int8_t)((iters & 7) | 1)), b = vdupq_n_s8(3);
    int32x4_t acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = vdupq_n_s32(j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = vdotq_s32(acc[j], a, b);
    int32x4_t s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = vaddq_s32(s, acc[j]);
    return (uint64_t)(uint32_t)vaddvq_s32(s);
}

const qmm_probe qmm_probe_int8_sdot = {
    "sdot",
    QMM_PROBE_INT8,
    QMM_CPU_NEON | QMM_CPU_DOTPROD,
    "sdot (by vector) alone, 12 independent accumulator chains; 16 s8*s8 multiplies + 16 adds = 32 ops per instruction",
    NULL,
    int8_sdot,
    CHAINS * 16 * 2,
    NULL};
