/* What the processor can do, detected once at run time. */
#ifndef QMM_CPU_H
#define QMM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "qmatmul.h"

/* The QMM_CPU_* feature bits and qmm_cpu_feature_name / _from_name are
 * public (qmatmul.h). */

typedef struct qmm_cpu_info {
    uint64_t features;
    char arch[16];     /* "x86_64", "aarch64", ... */
    char model[64];    /* brand string where known */
    char vendor[16];   /* x86: cpuid leaf 0's vendor ("GenuineIntel", "AuthenticAMD"), else "" */
    int n_cores;       /* cores available to this process */
    int sve_vl_bytes;  /* SVE vector length, 0 if no SVE */
    int sme_svl_bytes; /* SME streaming vector length, 0 if no SME */
    int sme_units;     /* SME compute units, 0 = unknown or none */
    int numa_nodes;    /* >1 on NUMA systems */
} qmm_cpu_info;

/* Detects once (thread-safe) and returns the cached result. */
const qmm_cpu_info *qmm_cpu_detect(void);

#endif
