/* Arm detection (Linux hwcaps, sysfs SMIDR_EL1; Apple sysctl). */
#ifndef QMM_CPU_ARM_H
#define QMM_CPU_ARM_H
#include "cpu/cpu.h"

/* Fills features, arch, model, sve_vl_bytes, sme_svl_bytes, sme_units (aarch64 only). */
void qmm_cpu_detect_arm(qmm_cpu_info *ci);

/* SME compute units implied by the SMIDR_EL1 values of n CPUs (one each, any order): CPUs with a private unit
 * (SH = 0b10, or SH = 0 with zero affinity) count one each; CPUs sharing units (SH = 0b11, or SH = 0 with a
 * non-zero affinity) count, per distinct affinity value (Affinity2:Affinity), the largest NSMC + 1 seen
 * (NSMC = 0xF is reserved: 1). SH = 0b01 counts nothing. Pure, compiled on every target (unit-tested). */
int qmm_smidr_count_units(const uint64_t *smidr, int n);

/* Parses a sysfs register file's text ("0x...." or hex digits); 0 on success. */
int qmm_parse_hex_u64(const char *s, uint64_t *out);

#endif
