/* Arm int8 matrix-multiply probe (compiled with -march=armv8.2-a+dotprod+i8mm):
 * smmla, the instruction of the NEON / SVE i8mm kernel families. */
#include "probe.h"
#include "probe_arm_int8.h"
#include "qmatmul.h"

/* smmla: a 2x8 by 8x2 s8 product into 2x2 int32, 32 MACs per instruction. */
QMM_PROBE_ARM_INT8_LOOP(int8_smmla, vmmlaq_s32)

const qmm_probe qmm_probe_int8_smmla = {
    "smmla",
    QMM_PROBE_INT8,
    QMM_CPU_NEON | QMM_CPU_I8MM,
    "smmla alone, 12 independent accumulator chains; 2x8 by 8x2 s8: 32 multiplies + 32 adds = 64 ops per instruction",
    NULL,
    int8_smmla,
    QMM_PROBE_ARM_CHAINS * 32 * 2,
    NULL};
