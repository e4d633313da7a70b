/* The probe runner, the portable probe variants, and the run-time choice of
 * variant by CPU features. */
#include "probe.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

double qmm_bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------ portable variants */

/* Eight independent 64-bit sums: what plain C code can stream. */
static uint64_t read_scalar(const void *p, size_t bytes) {
    const uint64_t *v = (const uint64_t *)p;
    uint64_t s[8] = {0};
    for (size_t i = 0; i < bytes / 8; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += v[i + (size_t)j];
    return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

/* A scalar int8 multiply-accumulate into int32 (the reference families'
 * inner step), 8 independent chains; each chain's low byte is its next int8
 * operand, so nothing is loop-invariant. */
static uint64_t int8_scalar(uint64_t iters) {
    volatile int8_t vb = -5;
    const int32_t b = vb;
    int32_t acc[8];
    for (int j = 0; j < 8; j++)
        acc[j] = j;
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < 8; j++)
            acc[j] += (int32_t)(int8_t)acc[j] * b;
    uint64_t s = 0;
    for (int j = 0; j < 8; j++)
        s += (uint32_t)acc[j];
    return s;
}

/* The reference F32 families' step: fmaf, 8 independent chains. */
static uint64_t fma_scalar(uint64_t iters) {
    volatile float va = 0.999999f, vb = 1e-7f;
    const float a = va, b = vb;
    float acc[8];
    for (int j = 0; j < 8; j++)
        acc[j] = (float)j;
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < 8; j++)
            acc[j] = fmaf(acc[j], a, b);
    float s = 0;
    for (int j = 0; j < 8; j++)
        s += acc[j];
    return (uint64_t)s;
}

static const qmm_probe probe_read_scalar = {
    "u64-load",  QMM_PROBE_READ, 0, "streaming read: 64-bit loads into 8 independent sums (portable C)",
    read_scalar, NULL,           0, NULL};
static const qmm_probe probe_int8_scalar = {"scalar-int8",
                                            QMM_PROBE_INT8,
                                            0,
                                            "scalar int8*int8 -> int32 multiply-add, 8 independent chains (portable C), 2 ops "
                                            "per MAC",
                                            NULL,
                                            int8_scalar,
                                            8 * 2,
                                            NULL};
static const qmm_probe probe_fma_scalar = {
    "fmaf", QMM_PROBE_FMA, 0,     "fmaf(), 8 independent chains (portable C, as the reference families), 2 flops each",
    NULL,   fma_scalar,    8 * 2, NULL};

static const qmm_probe *const probe_table[] = {
#if defined(QMM_PROBE_X86)
    &qmm_probe_int8_amx,        &qmm_probe_read_avx512_x4, &qmm_probe_read_avx512_x2, &qmm_probe_read_avx512,
    &qmm_probe_int8_avx512vnni, &qmm_probe_fma_avx512,     &qmm_probe_read_avx2_x4,   &qmm_probe_read_avx2,
    &qmm_probe_read_avx2_pf,    &qmm_probe_int8_avxvnni,   &qmm_probe_int8_avx2,      &qmm_probe_fma_avx2,
    &qmm_probe_fma_tile_avx512, &qmm_probe_fma_tile_avx2,
#endif
#if defined(QMM_PROBE_ARM)
#if defined(QMM_PROBE_SME)
    &qmm_probe_int8_smopa,      &qmm_probe_fma_fmopa,
#endif
    &qmm_probe_read_neon_x4,    &qmm_probe_read_neon,      &qmm_probe_int8_smmla,     &qmm_probe_int8_sdot,
    &qmm_probe_fma_neon,
#endif
    &probe_read_scalar,         &probe_int8_scalar,        &probe_fma_scalar,         NULL,
};

_Static_assert(sizeof probe_table / sizeof probe_table[0] - 1 <= QMM_PROBE_MAX, "more probes than QMM_PROBE_MAX");

const qmm_probe *const *qmm_probes(void) { return probe_table; }

const char *qmm_probe_kind_label(qmm_probe_kind kind) {
    return kind == QMM_PROBE_READ ? "read" : kind == QMM_PROBE_INT8 ? "int8" : kind == QMM_PROBE_FMA ? "fp32" : "tile";
}

const char *qmm_probe_kind_unit(qmm_probe_kind kind) {
    return kind == QMM_PROBE_READ ? "GB/s" : kind == QMM_PROBE_INT8 ? "GOP/s" : "GFLOP/s";
}

const qmm_probe *qmm_probe_best(qmm_probe_kind kind, uint64_t features) {
    for (int i = 0; probe_table[i]; i++)
        if (probe_table[i]->kind == kind && (probe_table[i]->required & ~features) == 0)
            return probe_table[i];
    return NULL;
}

/* ----------------------------------------------------------------- runner */

/* Many short runs (a few ms each) and their median: on a shared machine a
 * short run usually gets its cores whole, as the kernels' calls do, while a
 * long run averages in the time other processes took. */

typedef struct job {
    const qmm_probe *p;
    int n_threads, reps;
    uint8_t *buf;
    size_t chunk;    /* READ: bytes one thread reads per run */
    size_t n_chunks; /* READ: chunks in the buffer */
    size_t first_chunk;
    uint64_t iters; /* compute: iterations per thread per run */
    pthread_barrier_t bar;
    double *times;
    double start[256], end[256]; /* this run, per thread */
} job;

typedef struct targ {
    job *j;
    int ith;
} targ;

static _Atomic uint64_t probe_sink; /* keeps the probe results alive */

static void *worker(void *arg) {
    targ *t = arg;
    job *j = t->j;
    uint64_t s = 0;
    for (int r = 0; r < j->reps; r++) {
        pthread_barrier_wait(&j->bar);
        j->start[t->ith] = qmm_bench_now();
        if (j->p->kind == QMM_PROBE_READ) {
            /* consecutive runs read different chunks of a buffer much larger
             * than the LLC, so every run comes from memory; the timed runs
             * start in the middle, away from what the calibration (the
             * start) and the memset (the end) left in the cache */
            const size_t c = ((size_t)r * (size_t)j->n_threads + (size_t)t->ith + j->first_chunk) % j->n_chunks;
            s += j->p->read(j->buf + c * j->chunk, j->chunk);
        } else {
            s += j->p->compute(j->iters);
        }
        j->end[t->ith] = qmm_bench_now();
        pthread_barrier_wait(&j->bar);
        if (t->ith == 0) { /* the others wait at the next run's barrier */
            double t0 = j->start[0], t1 = j->end[0];
            for (int i = 1; i < j->n_threads; i++) {
                t0 = j->start[i] < t0 ? j->start[i] : t0;
                t1 = j->end[i] > t1 ? j->end[i] : t1;
            }
            j->times[r] = t1 - t0;
        }
    }
    atomic_fetch_add_explicit(&probe_sink, s, memory_order_relaxed);
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_job(job *j) {
    enum { MAX_T = 256 };
    pthread_t th[MAX_T];
    targ args[MAX_T];
    if (j->n_threads > MAX_T)
        j->n_threads = MAX_T;
    pthread_barrier_init(&j->bar, NULL, (unsigned)j->n_threads);
    int started = 1;
    for (int i = 1; i < j->n_threads; i++) {
        args[i] = (targ){j, i};
        if (pthread_create(&th[i], NULL, worker, &args[i]) != 0)
            break;
        started++;
    }
    if (started != j->n_threads) { /* the barrier would never open: give up */
        for (int i = 1; i < started; i++)
            pthread_cancel(th[i]);
        return -1;
    }
    args[0] = (targ){j, 0};
    worker(&args[0]);
    for (int i = 1; i < j->n_threads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&j->bar);
    return 0;
}

#define MAX_REPS 256

int qmm_probe_run(const qmm_probe *p, int n_threads, int reps, double target_s, size_t bytes, qmm_probe_result *out) {
    memset(out, 0, sizeof *out);
    if (n_threads < 1)
        n_threads = 1;
    if (reps < 1)
        reps = 1;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.n_threads = n_threads;
    double times[MAX_REPS];
    j.times = times;
    double units; /* bytes or ops per run, all threads */
    if (p->kind == QMM_PROBE_READ) {
        /* the buffer like packed weights: 2 MiB aligned, huge pages asked */
        const size_t huge = (size_t)2 << 20;
        bytes = (bytes + huge - 1) / huge * huge;
        void *mem = NULL;
        if (posix_memalign(&mem, huge, bytes) != 0)
            return -1;
#ifdef MADV_HUGEPAGE
        madvise(mem, bytes, MADV_HUGEPAGE);
#endif
        j.buf = mem;
        memset(j.buf, 1, bytes); /* real pages */
        /* calibrate: 4 MiB per thread */
        j.chunk = (size_t)4 << 20;
        if (j.chunk * (size_t)n_threads * 2 > bytes)
            j.chunk = bytes / (size_t)n_threads / 2 / 4096 * 4096;
        j.n_chunks = bytes / j.chunk;
        j.reps = 3;
        if (run_job(&j) != 0) {
            free(mem);
            return -1;
        }
        qsort(times, 3, sizeof times[0], cmp_double);
        const double per_byte = times[0] / (double)j.chunk;
        size_t chunk = (size_t)(target_s / (per_byte > 0 ? per_byte : 1e-12)) / 4096 * 4096;
        const size_t lo = (size_t)256 << 10, hi = bytes / (size_t)n_threads / 4 / 4096 * 4096;
        j.chunk = chunk < lo ? lo : chunk > hi ? hi : chunk;
        j.n_chunks = bytes / j.chunk;
        j.first_chunk = j.n_chunks / 2;
        units = (double)j.chunk * (double)n_threads;
        out->bytes = (double)bytes;
    } else {
        /* calibrate on one thread, scale to the target */
        j.reps = 3;
        j.iters = 1024;
        j.n_threads = 1;
        for (;;) {
            if (run_job(&j) != 0)
                return -1;
            qsort(times, 3, sizeof times[0], cmp_double);
            if (times[0] > 0.5e-3 || j.iters > (1ull << 40))
                break;
            j.iters *= 4;
        }
        j.iters = (uint64_t)((double)j.iters * target_s / times[0]);
        if (j.iters < 1)
            j.iters = 1;
        j.n_threads = n_threads;
        const double per_iter = p->ops_per_iter_now ? p->ops_per_iter_now() : p->ops_per_iter;
        units = (double)j.iters * per_iter * (double)n_threads;
    }
    j.reps = reps;
    const int rc = run_job(&j);
    free(j.buf);
    if (rc != 0)
        return -1;
    double rates[MAX_REPS];
    for (int r = 0; r < reps; r++)
        rates[r] = units / times[r] * 1e-9;
    qsort(rates, (size_t)reps, sizeof rates[0], cmp_double);
    out->probe = p;
    out->n_threads = n_threads;
    out->reps = reps;
    out->min = rates[0];
    out->max = rates[reps - 1];
    out->median = reps % 2 ? rates[reps / 2] : 0.5 * (rates[reps / 2 - 1] + rates[reps / 2]);
    return 0;
}
