/* What the processor can do, detected once at run time. */
#ifndef QMM_CPU_H
#define QMM_CPU_H

#include <stddef.h>
#include <stdint.h>

/* One bit per feature. Names (qmm_cpu_feature_name) are the usual ones. */
enum {
    /* x86 */
    QMM_CPU_SSE42 = 1ull << 0,
    QMM_CPU_AVX = 1ull << 1,
    QMM_CPU_AVX2 = 1ull << 2,
    QMM_CPU_FMA = 1ull << 3,
    QMM_CPU_F16C = 1ull << 4,
    QMM_CPU_AVX512F = 1ull << 5,
    QMM_CPU_AVX512BW = 1ull << 6,
    QMM_CPU_AVX512VL = 1ull << 7,
    QMM_CPU_AVX512DQ = 1ull << 8,
    QMM_CPU_AVX512VNNI = 1ull << 9,
    QMM_CPU_AVX512BF16 = 1ull << 10,
    QMM_CPU_AVXVNNI = 1ull << 11,
    QMM_CPU_AMX_TILE = 1ull << 12,
    QMM_CPU_AMX_INT8 = 1ull << 13,
    QMM_CPU_AMX_BF16 = 1ull << 14,
    /* Arm */
    QMM_CPU_NEON = 1ull << 32,
    QMM_CPU_DOTPROD = 1ull << 33,
    QMM_CPU_I8MM = 1ull << 34,
    QMM_CPU_FP16 = 1ull << 35,
    QMM_CPU_BF16 = 1ull << 36,
    QMM_CPU_SVE = 1ull << 37,
    QMM_CPU_SVE2 = 1ull << 38,
    QMM_CPU_SVE_I8MM = 1ull << 39,
    QMM_CPU_SME = 1ull << 40,
    QMM_CPU_SME2 = 1ull << 41,
};

typedef struct qmm_cpu_info {
    uint64_t features;
    char arch[16];     /* "x86_64", "aarch64", ... */
    char model[64];    /* brand string where known */
    int n_cores;       /* cores available to this process */
    int sve_vl_bytes;  /* SVE vector length, 0 if no SVE */
    int sme_svl_bytes; /* SME streaming vector length, 0 if no SME */
    int sme_units;     /* SME compute units, 0 = unknown or none */
    int numa_nodes;    /* >1 on NUMA systems */
} qmm_cpu_info;

/* Detects once (thread-safe) and returns the cached result. */
const qmm_cpu_info *qmm_cpu_detect(void);

/* Name of a single feature bit ("avx2", "avx512_vnni", "dotprod", "sme2"), or NULL. */
const char *qmm_cpu_feature_name(uint64_t bit);
/* Parses a single feature name; 0 if unknown. */
uint64_t qmm_cpu_feature_from_name(const char *name);

#endif
