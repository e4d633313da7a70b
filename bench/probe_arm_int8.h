/* The int8 chain loop shared by the Arm int8 probes: CHAINS independent
 * int32x4 accumulators, each updated by OP(acc, a, b) per iteration (sdot,
 * smmla). Included by translation units compiled with that instruction's
 * target flags; defines `static uint64_t NAME(uint64_t iters)`. */
#ifndef QMM_PROBE_ARM_INT8_H
#define QMM_PROBE_ARM_INT8_H

#include <arm_neon.h>
#include <stdint.h>

#define QMM_PROBE_ARM_CHAINS 12

#define QMM_PROBE_ARM_INT8_LOOP(NAME, OP)                                                                                        \
    static uint64_t NAME(uint64_t iters) {                                                                                       \
        /* a depends on iters so that the compiler cannot fold the chains */                                                     \
        const int8x16_t a = vdupq_n_s8((int8_t)((iters & 7) | 1)), b = vdupq_n_s8(3);                                            \
        int32x4_t acc[QMM_PROBE_ARM_CHAINS];                                                                                     \
        for (int j = 0; j < QMM_PROBE_ARM_CHAINS; j++)                                                                           \
            acc[j] = vdupq_n_s32(j);                                                                                             \
        for (uint64_t i = 0; i < iters; i++)                                                                                     \
            _Pragma("GCC unroll 16") for (int j = 0; j < QMM_PROBE_ARM_CHAINS; j++) acc[j] = OP(acc[j], a, b);                   \
        int32x4_t s = acc[0];                                                                                                    \
        for (int j = 1; j < QMM_PROBE_ARM_CHAINS; j++)                                                                           \
            s = vaddq_s32(s, acc[j]);                                                                                            \
        return (uint64_t)(uint32_t)vaddvq_s32(s);                                                                                \
    }

#endif
