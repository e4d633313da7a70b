/* Arm detection (Linux hwcaps, sysfs SMIDR_EL1; Apple sysctl). */
#ifndef QMM_CPU_ARM_H
#define QMM_CPU_ARM_H
#include "cpu/cpu.h"
void qmm_cpu_detect_arm(qmm_cpu_info *ci);
#endif
