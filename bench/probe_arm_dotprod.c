/* Arm dot-product probe (compiled with -march=armv8.2-a+dotprod): sdot, the
 * instruction of the NEON dotprod kernel families. */
#include "probe.h"
#include "probe_arm_int8.h"
#include "qmatmul.h"

/* sdot: 16 s8*s8 MACs per instruction (4 per 32-bit lane). */
QMM_PROBE_ARM_INT8_LOOP(int8_sdot, vdotq_s32)

const qmm_probe qmm_probe_int8_sdot = {
    "sdot",
    QMM_PROBE_INT8,
    QMM_CPU_NEON | QMM_CPU_DOTPROD,
    "sdot (by vector) alone, 12 independent accumulator chains; 16 s8*s8 multiplies + 16 adds = 32 ops per instruction",
    NULL,
    int8_sdot,
    QMM_PROBE_ARM_CHAINS * 16 * 2,
    NULL};
