/* Probes of this machine's limits, measured by `qmatmul bench`: streaming
 * memory read bandwidth and the peak rate of the instructions the kernels
 * use (int8 dot products, fp32 FMA), each multi-threaded.
 *
 * Each probe variant is ISA-specific code in its own translation unit with
 * its own target flags (probe_x86_avx512.c, probe_x86_amx.c, probe_x86_avx2.c,
 * probe_x86_avxvnni.c, probe_arm.c, probe_arm_dotprod.c,
 * and the portable loops in probe.c); probe.c picks them at run time from
 * the CPU features (qmm_cpu_describe). */
#ifndef QMM_BENCH_PROBE_H
#define QMM_BENCH_PROBE_H

#include <stddef.h>
#include <stdint.h>

typedef enum qmm_probe_kind {
    QMM_PROBE_READ = 0, /* GB/s */
    QMM_PROBE_INT8 = 1, /* int8 multiply-accumulate, counted as 2 ops each: GOP/s */
    QMM_PROBE_FMA = 2,  /* fp32 FMA, 2 flops each: GFLOP/s */
    /* Not a limit: an exact fp32 GEMM's register tile, operands loaded from
     * L1 as the fp families load them: the ceiling of their inner loop, shown
     * beside the FMA limit (GFLOP/s) */
    QMM_PROBE_FMA_TILE = 3,
    QMM_PROBE_KINDS = 4
} qmm_probe_kind;

/* One probe variant. The loop functions are what the threads run. */
typedef struct qmm_probe {
    const char *name; /* "vpdpbusd-zmm" */
    qmm_probe_kind kind;
    uint64_t required;  /* QMM_CPU_* features */
    const char *method; /* one line: what it runs and how it counts */
    /* READ: sums `bytes` (a multiple of 256) at p; returns the sum. */
    uint64_t (*read)(const void *p, size_t bytes);
    /* INT8 / FMA: runs `iters` iterations of independent chains, returns a
     * value that depends on all of them; ops = iters * ops_per_iter. */
    uint64_t (*compute)(uint64_t iters);
    double ops_per_iter;
    /* where the count depends on the vector length (SME): called instead */
    double (*ops_per_iter_now)(void);
} qmm_probe;

typedef struct qmm_probe_result {
    const qmm_probe *probe;
    int n_threads, reps;
    double median, min, max; /* GB/s, GOP/s or GFLOP/s; max: the limit (best run) */
    double bytes;            /* READ: buffer size */
} qmm_probe_result;

/* All variants this build has, in priority order within a kind (widest
 * first), NULL-terminated. */
/* Every probe this build has, NULL-terminated: at most QMM_PROBE_MAX (checked
 * at compile time in probe.c; callers size their tables by it). */
#define QMM_PROBE_MAX 32
const qmm_probe *const *qmm_probes(void);
/* The best variant of a kind that the given features allow (the portable
 * variant if no other). */
const qmm_probe *qmm_probe_best(qmm_probe_kind kind, uint64_t features);

/* A kind's short label ("read", "int8", "fp32", "tile") and unit ("GB/s",
 * "GOP/s", "GFLOP/s"). */
const char *qmm_probe_kind_label(qmm_probe_kind kind);
const char *qmm_probe_kind_unit(qmm_probe_kind kind);

/* Runs a probe on n_threads threads: reps short runs of about target_s
 * seconds each (READ: each thread reads a chunk of a buffer of `bytes`, a
 * different chunk every run), and their median and spread. A run's time is
 * from the first thread's start to the last thread's end, so a thread that
 * starts late cannot shorten it. The limit is the best run (max): a probe
 * can be slowed by other processes, never sped up. Returns 0 on success
 * (-1: out of memory or threads). */
int qmm_probe_run(const qmm_probe *p, int n_threads, int reps, double target_s, size_t bytes, qmm_probe_result *out);

/* Monotonic seconds. */
double qmm_bench_now(void);

/* Variants defined in the ISA files (NULL-valued where not built). */
extern const qmm_probe qmm_probe_read_avx512, qmm_probe_read_avx512_x2, qmm_probe_read_avx512_x4, qmm_probe_int8_avx512vnni,
    qmm_probe_fma_avx512, qmm_probe_int8_amx, qmm_probe_fma_tile_avx512;
extern const qmm_probe qmm_probe_read_avx2, qmm_probe_read_avx2_x4, qmm_probe_read_avx2_pf, qmm_probe_int8_avxvnni,
    qmm_probe_int8_avx2, qmm_probe_fma_avx2, qmm_probe_fma_tile_avx2;
extern const qmm_probe qmm_probe_read_neon, qmm_probe_read_neon_x4, qmm_probe_int8_sdot, qmm_probe_int8_smmla, qmm_probe_fma_neon;
extern const qmm_probe qmm_probe_int8_smopa, qmm_probe_fma_fmopa; /* with QMM_PROBE_SME */

#endif
