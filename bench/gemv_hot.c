/* gemv_hot: decode (m = 1) GB/s of packed weight bytes, hot and cold.
 * Not a test: a measuring tool for the question "is our GEMV compute-bound?"
 * (a kernel that cannot stream well above the DRAM roof from L2/L3 cannot reach
 * it from DRAM either). Built by scripts/bench-gemv-hot.sh.
 *
 *   gemv_hot TYPE K N COPIES THREADS CALLS [M]
 *
 * Packs one random K x N matrix (random codes, fp16 scales 0.001), then runs
 * CALLS decode calls rotating over COPIES copies of its blob (1: the same
 * weights every call, hot in L2/L3; enough copies for >= 256 MiB: cold, from
 * DRAM), and prints the best and median call time and the GB/s of the packed
 * bytes. CALLS small (e.g. 20) and THREADS 1 for callgrind. M > 1 (default
 * 1): M activation rows, a prefill call, and GOP/s (2 M N K / time) too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qmatmul.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static qmm_type type_of(const char *s) {
    static const struct {
        const char *name;
        qmm_type t;
    } types[] = {{"Q4_0", QMM_TYPE_Q4_0},     {"Q8_0", QMM_TYPE_Q8_0},   {"Q4_K", QMM_TYPE_Q4_K},
                 {"Q6_K", QMM_TYPE_Q6_K},     {"Q5_K", QMM_TYPE_Q5_K},   {"Q4_1", QMM_TYPE_Q4_1},
                 {"Q5_0", QMM_TYPE_Q5_0},     {"Q2_K", QMM_TYPE_Q2_K},   {"Q3_K", QMM_TYPE_Q3_K},
                 {"IQ4_NL", QMM_TYPE_IQ4_NL}, {"MXFP4", QMM_TYPE_MXFP4}, {"IQ4_XS", QMM_TYPE_IQ4_XS},
                 {"IQ1_S", QMM_TYPE_IQ1_S},   {"IQ1_M", QMM_TYPE_IQ1_M}, {"IQ2_XXS", QMM_TYPE_IQ2_XXS},
                 {"IQ2_XS", QMM_TYPE_IQ2_XS}, {"IQ2_S", QMM_TYPE_IQ2_S}, {"IQ3_XXS", QMM_TYPE_IQ3_XXS},
                 {"IQ3_S", QMM_TYPE_IQ3_S},   {"TQ1_0", QMM_TYPE_TQ1_0}, {"TQ2_0", QMM_TYPE_TQ2_0}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(s, types[i].name))
            return types[i].t;
    return QMM_TYPE_COUNT;
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: gemv_hot TYPE K N COPIES THREADS CALLS [M]\n");
        return 2;
    }
    const qmm_type t = type_of(argv[1]);
    const int64_t k = atoll(argv[2]), n = atoll(argv[3]);
    const int copies = atoi(argv[4]), threads = atoi(argv[5]), calls = atoi(argv[6]);
    const int64_t m = argc == 8 ? atoll(argv[7]) : 1;
    if (t == QMM_TYPE_COUNT || k <= 0 || n <= 0 || copies < 1 || calls < 1 || m < 1) {
        fprintf(stderr, "gemv_hot: bad arguments\n");
        return 2;
    }
    qmm_options opt = {0};
    opt.n_threads = threads;
    qmm_context *ctx;
    if (qmm_context_create(&opt, &ctx) != QMM_OK) {
        fprintf(stderr, "gemv_hot: %s\n", qmm_last_error());
        return 1;
    }
    const size_t qbytes = qmm_row_size(t, k) * (size_t)n;
    uint8_t *q = malloc(qbytes);
    float *x = malloc((size_t)(k * m) * sizeof(float)), *y = malloc((size_t)(n * m) * sizeof(float));
    if (!q || !x || !y)
        return 1;
    uint64_t s = 12345;
    for (size_t i = 0; i < qbytes; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        q[i] = (uint8_t)(s >> 56);
    }
    for (int64_t i = 0; i < k * m; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)((double)(s >> 40) * 0x1p-24 - 0.5);
    }
    /* random codes under plausible fp16 scales (the offsets of d, and of dmin where there is one) */
    const size_t bb = qmm_type_block_bytes(t);
    int f0 = 0, f1 = -1;
    if (t == QMM_TYPE_Q4_1 || t == QMM_TYPE_Q4_K || t == QMM_TYPE_Q5_K)
        f1 = 2;
    else if (t == QMM_TYPE_Q2_K)
        f0 = 80, f1 = 82;
    else if (t == QMM_TYPE_Q3_K)
        f0 = 108;
    else if (t == QMM_TYPE_Q6_K)
        f0 = 208;
    else if (t == QMM_TYPE_TQ1_0 || t == QMM_TYPE_TQ2_0)
        f0 = (int)bb - 2;
    const uint16_t h = qmm_fp32_to_fp16(0.001f);
    for (size_t b = 0; b < qbytes / bb; b++) {
        if (t == QMM_TYPE_IQ1_M) { /* d in the top nibbles of the 4 scale words at 48 */
            for (int j = 0; j < 4; j++)
                q[b * bb + 49 + 2 * j] = (uint8_t)((q[b * bb + 49 + 2 * j] & 0x0f) | ((h >> (4 * j)) & 15) << 4);
            continue;
        }
        memcpy(q + b * bb + f0, &h, 2);
        if (f1 >= 0)
            memcpy(q + b * bb + f1, &h, 2);
        if (t == QMM_TYPE_Q8_0)
            for (size_t j = 2; j < bb; j++)
                if (q[b * bb + j] == 0x80)
                    q[b * bb + j] = 0x81;
    }
    qmm_weights *w0;
    if (qmm_weights_pack(ctx, t, k, n, q, qbytes, &w0) != QMM_OK) {
        fprintf(stderr, "gemv_hot: %s\n", qmm_last_error());
        return 1;
    }
    size_t blob_size;
    const void *blob = qmm_weights_blob(w0, &blob_size);
    qmm_weights **w = malloc((size_t)copies * sizeof *w);
    w[0] = w0;
    for (int c = 1; c < copies; c++) {
        void *b = aligned_alloc(64, (blob_size + 63) & ~(size_t)63);
        memcpy(b, blob, blob_size);
        if (qmm_weights_from_blob(ctx, b, blob_size, &w[c]) != QMM_OK) {
            fprintf(stderr, "gemv_hot: %s\n", qmm_last_error());
            return 1;
        }
    }
    qmm_tensor xt, yt;
    qmm_tensor_init(&xt, QMM_TYPE_F32, 2, (int64_t[]){k, m}, x);
    qmm_tensor_init(&yt, QMM_TYPE_F32, 2, (int64_t[]){n, m}, y);
    double *ts = malloc((size_t)calls * sizeof *ts);
    for (int c = 0; c < copies; c++) /* warm-up: page faults, the pool */
        qmm_mul_mat(ctx, w[c], &xt, &yt);
    for (int i = 0; i < calls; i++) {
        const double t0 = now_s();
        if (qmm_mul_mat(ctx, w[i % copies], &xt, &yt) != QMM_OK) {
            fprintf(stderr, "gemv_hot: %s\n", qmm_last_error());
            return 1;
        }
        ts[i] = now_s() - t0;
    }
    qsort(ts, (size_t)calls, sizeof *ts, cmp_double);
    const double gb = (double)blob_size * 1e-9;
    printf("%s %s k=%lld n=%lld copies=%d (%.0f MiB) threads=%d: packed %zu B (GGUF %zu), best %.1f us (%.1f GB/s), median %.1f "
           "us (%.1f GB/s)\n",
           argv[1], qmm_weights_kernel(w0), (long long)k, (long long)n, copies, (double)blob_size * copies / 1048576.0, threads,
           blob_size, qbytes, ts[0] * 1e6, gb / ts[0], ts[calls / 2] * 1e6, gb / ts[calls / 2]);
    if (m > 1)
        printf("  m=%lld: best %.1f GOP/s, median %.1f GOP/s\n", (long long)m, 2e-9 * (double)(m * n * k) / ts[0],
               2e-9 * (double)(m * n * k) / ts[calls / 2]);
    return 0;
}
