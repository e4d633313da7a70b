/* fp_gemm_bench: F32 / F16 GEMM throughput against the FMA limit measured in
 * the same run. Not a test (ctest does not run it): a tool to measure the
 * F32 / F16 / BF16 families at the `qmatmul bench` preset shapes (one transformer
 * layer's matmuls) and qmm_mul_mat_f16 at attention shapes.
 *
 *   fp_gemm_bench [--preset NAME|all] [--type f32|f16|bf16|both|all] [--m N[,N..]] [--threads N]
 *                 [--reps N] [--kernel NAME] [--attn] [--rows N[,N..]] [--cpu-time]
 *
 * The peak: vfmadd231ps on 12 independent accumulator chains (ymm and zmm,
 * each where the CPU has it), on --threads threads, best of several runs;
 * interleaved with the GEMM timings, so a noisy shared machine slows both.
 * Each GEMM row is the best of --reps calls after a warm-up call. The % is of
 * the peak of the family's vector width (avx512_*: zmm, else ymm). */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qmatmul.h"

/* --cpu-time: the process's CPU time divided by the thread count instead of
 * wall time, for the GEMMs and the peak alike: on a machine shared with other
 * jobs, time this process was not running is not counted, so an A/B
 * comparison under load is not drowned by the scheduler (caches are still
 * shared: read the figures as indicative). Threads waiting in the pool's
 * spin count as running, so imbalance still shows. */
static int cpu_time;
static int cpu_time_div = 1;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(cpu_time ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return ((double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec) / (cpu_time ? cpu_time_div : 1);
}

/* ------------------------------------------------------------- FMA peak */

#define PEAK_CHAINS 12

/* 12 named accumulators (an array would live on the stack), one asm step per
 * iteration: vfmadd231ps acc, a, b on each, 12 independent chains. */
#define PEAK_BODY(T, a, b)                                                                                                       \
    for (uint64_t i = 0; i < iters; i++)                                                                                         \
    __asm__ volatile("vfmadd231ps %[a], %[b], %[c0]\n\tvfmadd231ps %[a], %[b], %[c1]\n\t"                                        \
                     "vfmadd231ps %[a], %[b], %[c2]\n\tvfmadd231ps %[a], %[b], %[c3]\n\t"                                        \
                     "vfmadd231ps %[a], %[b], %[c4]\n\tvfmadd231ps %[a], %[b], %[c5]\n\t"                                        \
                     "vfmadd231ps %[a], %[b], %[c6]\n\tvfmadd231ps %[a], %[b], %[c7]\n\t"                                        \
                     "vfmadd231ps %[a], %[b], %[c8]\n\tvfmadd231ps %[a], %[b], %[c9]\n\t"                                        \
                     "vfmadd231ps %[a], %[b], %[c10]\n\tvfmadd231ps %[a], %[b], %[c11]"                                          \
                     : [c0] "+v"(c0), [c1] "+v"(c1), [c2] "+v"(c2), [c3] "+v"(c3), [c4] "+v"(c4), [c5] "+v"(c5), [c6] "+v"(c6),  \
                       [c7] "+v"(c7), [c8] "+v"(c8), [c9] "+v"(c9), [c10] "+v"(c10), [c11] "+v"(c11)                             \
                     : [a] "v"(a), [b] "v"(b))

__attribute__((target("avx2,fma"))) static float fma_ymm(uint64_t iters) {
    const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(1e-3f);
    __m256 c0 = a, c1 = a, c2 = a, c3 = a, c4 = a, c5 = a, c6 = a, c7 = a, c8 = a, c9 = a, c10 = a, c11 = a;
    PEAK_BODY(__m256, a, b);
    const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                   _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)),
                                                 _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11))));
    return _mm256_cvtss_f32(s);
}

__attribute__((target("avx512f"))) static float fma_zmm(uint64_t iters) {
    const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-3f);
    __m512 c0 = a, c1 = a, c2 = a, c3 = a, c4 = a, c5 = a, c6 = a, c7 = a, c8 = a, c9 = a, c10 = a, c11 = a;
    PEAK_BODY(__m512, a, b);
    const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                                   _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)),
                                                 _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11))));
    return _mm512_reduce_add_ps(s);
}

typedef struct peak_job {
    int zmm;
    uint64_t iters;
    float sink;
} peak_job;

static void *peak_thread(void *arg) {
    peak_job *j = arg;
    j->sink = j->zmm ? fma_zmm(j->iters) : fma_ymm(j->iters);
    return NULL;
}

/* GFLOP/s of nth threads, best of 5 runs of ~50 ms. */
static double fma_peak(int zmm, int nth) {
    const uint64_t iters = 4000000; /* 48 M FMAs per thread */
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        pthread_t th[64];
        peak_job jobs[64];
        const double t0 = now_s();
        for (int i = 0; i < nth; i++) {
            jobs[i] = (peak_job){zmm, iters, 0};
            pthread_create(&th[i], NULL, peak_thread, &jobs[i]);
        }
        for (int i = 0; i < nth; i++)
            pthread_join(th[i], NULL);
        const double t = now_s() - t0;
        const double gf = (double)nth * (double)iters * PEAK_CHAINS * (zmm ? 16 : 8) * 2 / t * 1e-9;
        if (gf > best)
            best = gf;
    }
    return best;
}

/* --------------------------------------------------------------- shapes */

typedef struct preset {
    const char *name;
    int64_t hidden, ffn, heads, kv_heads, head_dim;
} preset;

/* the presets of tools/qmatmul/cmd_bench.c */
static const preset presets[] = {
    {"llama-3.2-1b", 2048, 8192, 32, 8, 64},
    {"llama-3-8b", 4096, 14336, 32, 8, 128},
    {"qwen2.5-7b", 3584, 18944, 28, 4, 128},
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static void *xmalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64)) {
        fprintf(stderr, "fp_gemm_bench: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static int parse_list(const char *s, int64_t *out, int max) {
    int n = 0;
    while (*s && n < max) {
        char *end;
        out[n++] = strtoll(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            break;
    }
    return n;
}

typedef struct run {
    qmm_context *ctx;
    int nth, reps;
    double peak_ymm, peak_zmm;
} run;

static void refresh_peak(run *r) {
    const double y = fma_peak(0, r->nth);
    if (y > r->peak_ymm)
        r->peak_ymm = y;
    if (__builtin_cpu_supports("avx512f")) {
        const double z = fma_peak(1, r->nth);
        if (z > r->peak_zmm)
            r->peak_zmm = z;
    }
}

static double pct(const run *r, const char *kname, double gf) {
    const double peak = !strncmp(kname, "avx512", 6) ? r->peak_zmm : r->peak_ymm;
    return peak > 0 ? 100.0 * gf / peak : 0;
}

/* One weight matrix n x k of `type`, m activation rows. */
static void bench_gemm(run *r, const char *label, qmm_type type, int64_t k, int64_t n, int64_t m) {
    const size_t esz = type == QMM_TYPE_F32 ? 4 : 2;
    void *src = xmalloc((size_t)n * (size_t)k * esz);
    for (size_t i = 0; i < (size_t)n * (size_t)k; i++) {
        const float v = frand();
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        if (type == QMM_TYPE_F32)
            ((float *)src)[i] = v;
        else if (type == QMM_TYPE_BF16)
            ((uint16_t *)src)[i] = (uint16_t)(bits >> 16); /* truncated: any bf16 will do */
        else
            ((uint16_t *)src)[i] = qmm_fp32_to_fp16(v);
    }
    qmm_weights *w = NULL;
    if (qmm_weights_pack(r->ctx, type, k, n, src, (size_t)n * (size_t)k * esz, &w) != QMM_OK) {
        fprintf(stderr, "fp_gemm_bench: pack: %s\n", qmm_last_error());
        exit(1);
    }
    free(src);
    float *x = xmalloc((size_t)m * (size_t)k * 4), *y = xmalloc((size_t)m * (size_t)n * 4);
    for (size_t i = 0; i < (size_t)m * (size_t)k; i++)
        x[i] = frand();
    qmm_tensor tx, ty;
    qmm_tensor_init(&tx, QMM_TYPE_F32, 2, (int64_t[]){k, m}, x);
    qmm_tensor_init(&ty, QMM_TYPE_F32, 2, (int64_t[]){n, m}, y);
    qmm_mul_mat(r->ctx, w, &tx, &ty); /* warm-up: pages, pool */
    double best = 1e30;
    for (int i = 0; i < r->reps; i++) {
        const double t0 = now_s();
        qmm_mul_mat(r->ctx, w, &tx, &ty);
        const double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    const double gf = 2.0 * (double)m * (double)n * (double)k / best * 1e-9;
    const char *kname = qmm_weights_kernel(w);
    printf("%-12s %-4s %-14s %6lld %6lld %5lld %9.3f %8.1f %6.1f%%\n", label, qmm_type_name(type), kname, (long long)n,
           (long long)k, (long long)m, best * 1e3, gf, pct(r, kname, gf));
    fflush(stdout);
    qmm_weights_free(w);
    free(x);
    free(y);
}

/* qmm_mul_mat_f16 at attention shapes: heads query heads over kv_heads
 * (GQA broadcast), `rows` query rows and `rows` keys (4096 keys for one row). QK: w = K [hd, rows,
 * kv_heads], x = Q [hd, rows, heads]; PV: w = V^T [rows, hd, kv_heads],
 * x = P [rows, rows, heads]. */
static void bench_attn(run *r, const char *label, int64_t heads, int64_t kvh, int64_t hd, int64_t rows, int pv) {
    const int64_t kv = rows == 1 ? 4096 : rows; /* m = 1: decode over a 4096-token cache, as qmatmul bench --attn */
    const int64_t k = pv ? kv : hd, n = pv ? hd : kv, m = rows;
    uint16_t *w = xmalloc((size_t)(k * n * kvh) * 2);
    float *x = xmalloc((size_t)(k * m * heads) * 4), *y = xmalloc((size_t)(n * m * heads) * 4);
    for (size_t i = 0; i < (size_t)(k * n * kvh); i++)
        w[i] = qmm_fp32_to_fp16(frand());
    for (size_t i = 0; i < (size_t)(k * m * heads); i++)
        x[i] = frand();
    qmm_tensor tw, tx, ty;
    qmm_tensor_init(&tw, QMM_TYPE_F16, 3, (int64_t[]){k, n, kvh}, w);
    qmm_tensor_init(&tx, QMM_TYPE_F32, 3, (int64_t[]){k, m, heads}, x);
    qmm_tensor_init(&ty, QMM_TYPE_F32, 3, (int64_t[]){n, m, heads}, y);
    if (qmm_mul_mat_f16(r->ctx, &tw, &tx, &ty) != QMM_OK) {
        fprintf(stderr, "fp_gemm_bench: mul_mat_f16: %s\n", qmm_last_error());
        exit(1);
    }
    double best = 1e30;
    for (int i = 0; i < r->reps; i++) {
        const double t0 = now_s();
        qmm_mul_mat_f16(r->ctx, &tw, &tx, &ty);
        const double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    const double gf = 2.0 * (double)m * (double)n * (double)k * (double)heads / best * 1e-9;
    const char *chain = NULL;
    qmm_context_chain(r->ctx, QMM_TYPE_F16, &chain, NULL);
    char lab[64];
    snprintf(lab, sizeof lab, "%s %s", label, pv ? "PV" : "QK");
    printf("%-12s %-4s %-14s %6lld %6lld %5lld %9.3f %8.1f %6.1f%%\n", lab, "f16", chain ? chain : "?", (long long)n,
           (long long)k, (long long)m, best * 1e3, gf, pct(r, chain ? chain : "", gf));
    fflush(stdout);
    free(w);
    free(x);
    free(y);
}

int main(int argc, char **argv) {
    const char *preset_name = "llama-3.2-1b", *kernel = NULL;
    int types = 7, attn = 0; /* bits: 1 F32, 2 F16, 4 BF16 */
    int64_t ms[16] = {64, 512}, rows[16] = {1, 64, 512, 2048};
    int nm = 2, nrows = 4;
    run r = {0};
    r.nth = 1;
    r.reps = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--attn")) {
            attn = 1;
            continue;
        }
        if (!strcmp(a, "--cpu-time")) {
            cpu_time = 1;
            continue;
        }
        if (!v || a[0] != '-' || a[1] != '-') {
            fprintf(
                stderr,
                "usage: fp_gemm_bench [--preset NAME|all] [--type f32|f16|bf16|both|all] [--m N,..] [--threads N] [--reps N]\n"
                "                     [--kernel NAME] [--attn] [--rows N,..] [--cpu-time]\n");
            return 2;
        }
        i++;
        if (!strcmp(a, "--preset"))
            preset_name = v;
        else if (!strcmp(a, "--type"))
            types = !strcmp(v, "f32") ? 1 : !strcmp(v, "f16") ? 2 : !strcmp(v, "bf16") ? 4 : !strcmp(v, "both") ? 3 : 7;
        else if (!strcmp(a, "--m"))
            nm = parse_list(v, ms, 16);
        else if (!strcmp(a, "--rows"))
            nrows = parse_list(v, rows, 16);
        else if (!strcmp(a, "--threads"))
            r.nth = atoi(v);
        else if (!strcmp(a, "--reps"))
            r.reps = atoi(v);
        else if (!strcmp(a, "--kernel"))
            kernel = v;
        else {
            fprintf(stderr, "fp_gemm_bench: unknown option %s\n", a);
            return 2;
        }
    }
    if (r.nth < 1 || r.nth > 64 || r.reps < 1) {
        fprintf(stderr, "fp_gemm_bench: --threads 1..64, --reps >= 1\n");
        return 2;
    }
    cpu_time_div = r.nth;
    qmm_options opts = {0};
    opts.n_threads = r.nth;
    opts.kernel = kernel;
    if (qmm_context_create(&opts, &r.ctx) != QMM_OK) {
        fprintf(stderr, "fp_gemm_bench: context: %s\n", qmm_last_error());
        return 1;
    }
    refresh_peak(&r);
    printf("%s; threads %d; FMA peak (vfmadd231ps, %d chains, best of runs): ymm %.1f GFLOP/s, zmm %.1f GFLOP/s\n",
           cpu_time ? "CPU time / threads" : "wall time", r.nth, PEAK_CHAINS, r.peak_ymm, r.peak_zmm);
    printf("%-12s %-4s %-14s %6s %6s %5s %9s %8s %7s\n", "matrix", "type", "family", "n", "k", "m", "best ms", "GFLOP/s",
           "% peak");
    for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++) {
        const preset *pr = &presets[p];
        if (strcmp(preset_name, "all") && strcmp(preset_name, pr->name))
            continue;
        if (attn) {
            for (int i = 0; i < nrows; i++)
                for (int pv = 0; pv < 2; pv++) {
                    refresh_peak(&r);
                    bench_attn(&r, pr->name, pr->heads, pr->kv_heads, pr->head_dim, rows[i], pv);
                }
            continue;
        }
        const struct {
            const char *name;
            int64_t k, n;
        } mats[] = {
            {"attn_q/o", pr->hidden, pr->hidden},
            {"attn_k/v", pr->hidden, pr->kv_heads * pr->head_dim},
            {"ffn_gate/up", pr->hidden, pr->ffn},
            {"ffn_down", pr->ffn, pr->hidden},
        };
        static const qmm_type tt[3] = {QMM_TYPE_F32, QMM_TYPE_F16, QMM_TYPE_BF16};
        for (int t = 0; t < 3; t++) {
            if (!(types & (1 << t)))
                continue;
            for (int i = 0; i < nm; i++)
                for (size_t j = 0; j < sizeof mats / sizeof mats[0]; j++) {
                    refresh_peak(&r);
                    bench_gemm(&r, mats[j].name, tt[t], mats[j].k, mats[j].n, ms[i]);
                }
        }
    }
    printf("peak at the end: ymm %.1f, zmm %.1f GFLOP/s\n", r.peak_ymm, r.peak_zmm);
    qmm_context_free(r.ctx);
    return 0;
}
