/* Arm int8 matrix-multiply probe (compiled with -march=armv8.2-a+dotprod+i8mm):
 * smmla, the instruction of the NEON / SVE i8mm kernel families. */
#include <arm_neon.h>

#include "probe.h"
#include "qmatmul.h"

#define CHAINS 12

/* smmla: a 2x8 by 8x2 s8 product into 2x2 int32, 32 MACs per instruction. */
static uint64_t int8_smmla(uint64_t iters) {
    const int8x16_t a = vdupq_n_s8((int8_t)((iters & 7) | 1)), b = vdupq_n_s8(3);
    int32x4_t acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = vdupq_n_s32(j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = vmmlaq_s32(acc[j], a, b);
    int32x4_t s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = vaddq_s32(s, acc[j]);
    return (uint64_t)(uint32_t)vaddvq_s32(s);
}

const qmm_probe qmm_probe_int8_smmla = {
    "smmla",
    QMM_PROBE_INT8,
    QMM_CPU_NEON | QMM_CPU_I8MM,
    "smmla alone, 12 independent accumulator chains; 2x8 by 8x2 s8: 32 multiplies + 32 adds = 64 ops per instruction",
    NULL,
    int8_smmla,
    CHAINS * 32 * 2,
    NULL};
