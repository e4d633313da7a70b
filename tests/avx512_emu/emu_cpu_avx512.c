/* Test-only: the detected CPU plus the AVX-512 features the emulated
 * families require (scripts/test-avx512-emu.sh renames every caller's
 * qmm_cpu_detect to this). */
#include "cpu/cpu.h"

const qmm_cpu_info *qmm_emu_cpu_detect(void) {
    static qmm_cpu_info ci;
    ci = *qmm_cpu_detect();
    ci.features |= QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI;
    return &ci;
}
