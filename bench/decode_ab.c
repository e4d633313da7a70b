/* decode_ab: decode (m = 1) of two or more builds of libqmatmul.so side by
 * side in one process, each call against a read paired with it. Not a test:
 * a measuring tool for kernel changes that only a memory-bound GEMV shows, on
 * a host whose bandwidth moves by 2x within minutes.
 *
 *   a CMake target (x86): build/decode_ab
 *   decode_ab TYPE K N COPIES ROUNDS THREADS A/libqmatmul.so B/libqmatmul.so ...
 *
 * TYPE: Q4_0, Q8_0, Q4_K or Q6_K. One random K x N matrix is packed by the
 * first build into COPIES buffers (2 MiB aligned, huge pages asked) that every
 * build adopts (qmm_weights_from_blob): all builds read the same memory, so
 * where the host placed it cannot favour one. Each round runs every build's
 * call once (the order rotating), each on the next copy, and right after it
 * THREADS threads read as many bytes of the copy half a rotation away with
 * four interleaved 32-byte streams each. Per build: the median over rounds of
 * the call's rate over its paired read's ("share"), and the medians of both
 * rates (GB/s of packed bytes). The builds must pack the same layout. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "qmatmul.h"

#define MAX_BUILDS  8
#define MAX_THREADS 64

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Four interleaved streams over [p, p + bytes) (bytes a multiple of 256). */
__attribute__((target("avx2"))) static uint64_t read_streams(const uint8_t *p, size_t bytes) {
    const size_t part = bytes / 4 / 32;
    const __m256i *v = (const __m256i *)p;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < part; i += 2) {
        s0 = _mm256_add_epi64(s0, _mm256_add_epi64(_mm256_load_si256(v + i), _mm256_load_si256(v + i + 1)));
        s1 = _mm256_add_epi64(s1, _mm256_add_epi64(_mm256_load_si256(v + part + i), _mm256_load_si256(v + part + i + 1)));
        s2 = _mm256_add_epi64(s2, _mm256_add_epi64(_mm256_load_si256(v + 2 * part + i), _mm256_load_si256(v + 2 * part + i + 1)));
        s3 = _mm256_add_epi64(s3, _mm256_add_epi64(_mm256_load_si256(v + 3 * part + i), _mm256_load_si256(v + 3 * part + i + 1)));
    }
    const __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
    return (uint64_t)_mm256_extract_epi64(s, 0) + (uint64_t)_mm256_extract_epi64(s, 3);
}

/* The paired read's team: thread 0 is the caller. */
typedef struct reader {
    pthread_barrier_t start, done;
    const uint8_t *base;
    size_t part;
    int n;
    uint64_t sink[MAX_THREADS];
} reader;

typedef struct reader_arg {
    reader *r;
    int ith;
} reader_arg;

static void *reader_main(void *arg) {
    reader_arg *a = arg;
    for (;;) {
        pthread_barrier_wait(&a->r->start);
        a->r->sink[a->ith] += read_streams(a->r->base + (size_t)a->ith * a->r->part, a->r->part);
        pthread_barrier_wait(&a->r->done);
    }
    return NULL;
}

/* Seconds to read `bytes` at p on the team. */
static double paired_read(reader *r, const uint8_t *p, size_t bytes) {
    r->base = p;
    r->part = bytes / (size_t)r->n / 256 * 256;
    const double t0 = now_s();
    pthread_barrier_wait(&r->start);
    r->sink[0] += read_streams(p, r->part);
    pthread_barrier_wait(&r->done);
    return now_s() - t0;
}

/* The entries of one build. */
typedef struct build {
    const char *path;
    qmm_status (*context_create)(const qmm_options *, qmm_context **);
    qmm_status (*weights_pack)(qmm_context *, qmm_type, int64_t, int64_t, const void *, size_t, qmm_weights **);
    const void *(*weights_blob)(const qmm_weights *, size_t *);
    qmm_status (*weights_from_blob)(qmm_context *, const void *, size_t, qmm_weights **);
    qmm_status (*tensor_init)(qmm_tensor *, qmm_type, int, const int64_t *, void *);
    qmm_status (*mul_mat)(qmm_context *, const qmm_weights *, const qmm_tensor *, qmm_tensor *);
    qmm_context *ctx;
    qmm_weights **w;
} build;

static void *entry(void *h, const char *name) {
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "decode_ab: no %s\n", name);
        exit(1);
    }
    return p;
}

static int open_build(build *b, const char *path, int threads) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "decode_ab: %s\n", dlerror());
        return -1;
    }
    b->path = path;
    *(void **)&b->context_create = entry(h, "qmm_context_create");
    *(void **)&b->weights_pack = entry(h, "qmm_weights_pack");
    *(void **)&b->weights_blob = entry(h, "qmm_weights_blob");
    *(void **)&b->weights_from_blob = entry(h, "qmm_weights_from_blob");
    *(void **)&b->tensor_init = entry(h, "qmm_tensor_init");
    *(void **)&b->mul_mat = entry(h, "qmm_mul_mat");
    qmm_options opt = {0};
    opt.n_threads = threads;
    return b->context_create(&opt, &b->ctx) == QMM_OK ? 0 : -1;
}

/* Random GGUF blocks of type t under fp16 scales of 0.001. */
static uint8_t *make_source(qmm_type t, int64_t k, int64_t n, size_t *size) {
    size_t bb, blk, d0 = 0, d1 = 0;
    int two = 0;
    if (t == QMM_TYPE_Q4_0)
        bb = 18, blk = 32;
    else if (t == QMM_TYPE_Q8_0)
        bb = 34, blk = 32;
    else if (t == QMM_TYPE_Q4_K)
        bb = 144, blk = 256, d1 = 2, two = 1;
    else
        bb = 210, blk = 256, d0 = 208;
    *size = (size_t)(k / (int64_t)blk) * bb * (size_t)n;
    uint8_t *q = malloc(*size);
    if (!q)
        return NULL;
    uint64_t s = 1;
    for (size_t i = 0; i < *size; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        q[i] = (uint8_t)(s >> 56);
    }
    const uint16_t h = 0x1419; /* 0.001 */
    for (size_t b = 0; b < *size / bb; b++) {
        memcpy(q + b * bb + d0, &h, 2);
        if (two)
            memcpy(q + b * bb + d1, &h, 2);
    }
    return q;
}

int main(int argc, char **argv) {
    if (argc < 8 || argc - 7 > MAX_BUILDS) {
        fprintf(stderr, "usage: decode_ab TYPE K N COPIES ROUNDS THREADS LIB.so... (2..%d builds)\n", MAX_BUILDS);
        return 2;
    }
    qmm_type t;
    if (!strcmp(argv[1], "Q4_0"))
        t = QMM_TYPE_Q4_0;
    else if (!strcmp(argv[1], "Q8_0"))
        t = QMM_TYPE_Q8_0;
    else if (!strcmp(argv[1], "Q4_K"))
        t = QMM_TYPE_Q4_K;
    else if (!strcmp(argv[1], "Q6_K"))
        t = QMM_TYPE_Q6_K;
    else {
        fprintf(stderr, "decode_ab: TYPE is Q4_0, Q8_0, Q4_K or Q6_K\n");
        return 2;
    }
    const int64_t k = atoll(argv[2]), n = atoll(argv[3]);
    const int copies = atoi(argv[4]), rounds = atoi(argv[5]), threads = atoi(argv[6]), nb = argc - 7;
    if (k <= 0 || k % 256 || n <= 0 || copies < 2 || rounds < 1 || threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "decode_ab: bad arguments (K a multiple of 256, COPIES >= 2)\n");
        return 2;
    }
    size_t qsize, size = 0;
    uint8_t *q = make_source(t, k, n, &qsize);
    float *x = malloc(sizeof(float) * (size_t)k), *y = malloc(sizeof(float) * (size_t)n);
    uint8_t **copy = malloc(sizeof *copy * (size_t)copies);
    if (!q || !x || !y || !copy)
        return 1;
    for (int64_t i = 0; i < k; i++)
        x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    build b[MAX_BUILDS];
    for (int i = 0; i < nb; i++) {
        if (open_build(&b[i], argv[7 + i], threads) != 0)
            return 1;
        if (i == 0) { /* the first build packs; every build adopts the same copies */
            qmm_weights *w0;
            if (b[0].weights_pack(b[0].ctx, t, k, n, q, qsize, &w0) != QMM_OK)
                return 1;
            const void *blob = b[0].weights_blob(w0, &size);
            const size_t huge = (size_t)2 << 20, span = (size + huge - 1) / huge * huge;
            for (int c = 0; c < copies; c++) {
                copy[c] = aligned_alloc(huge, span);
                if (!copy[c])
                    return 1;
                madvise(copy[c], span, MADV_HUGEPAGE);
                memcpy(copy[c], blob, size);
            }
        }
        b[i].w = malloc(sizeof *b[i].w * (size_t)copies);
        for (int c = 0; c < copies; c++)
            if (!b[i].w || b[i].weights_from_blob(b[i].ctx, copy[c], size, &b[i].w[c]) != QMM_OK) {
                fprintf(stderr, "decode_ab: %s does not adopt the first build's blob\n", b[i].path);
                return 1;
            }
    }
    reader r = {.n = threads};
    pthread_barrier_init(&r.start, NULL, (unsigned)threads);
    pthread_barrier_init(&r.done, NULL, (unsigned)threads);
    reader_arg args[MAX_THREADS];
    for (int i = 1; i < threads; i++) {
        pthread_t th;
        args[i] = (reader_arg){&r, i};
        pthread_create(&th, NULL, reader_main, &args[i]);
    }
    double *share = malloc(sizeof(double) * (size_t)(rounds * nb)), *call = malloc(sizeof(double) * (size_t)(rounds * nb)),
           *read = malloc(sizeof(double) * (size_t)(rounds * nb));
    if (!share || !call || !read)
        return 1;
    qmm_tensor xt, yt;
    for (int i = 0; i < nb; i++) /* warm-up: page faults, the pools */
        for (int c = 0; c < copies; c++) {
            b[i].tensor_init(&xt, QMM_TYPE_F32, 2, (int64_t[]){k, 1}, x);
            b[i].tensor_init(&yt, QMM_TYPE_F32, 2, (int64_t[]){n, 1}, y);
            b[i].mul_mat(b[i].ctx, b[i].w[c], &xt, &yt);
        }
    const double gb = (double)size * 1e-9;
    for (int rd = 0; rd < rounds; rd++)
        for (int j = 0; j < nb; j++) {
            const int i = (j + rd) % nb, c = (rd * nb + j) % copies;
            b[i].tensor_init(&xt, QMM_TYPE_F32, 2, (int64_t[]){k, 1}, x);
            b[i].tensor_init(&yt, QMM_TYPE_F32, 2, (int64_t[]){n, 1}, y);
            const double t0 = now_s();
            if (b[i].mul_mat(b[i].ctx, b[i].w[c], &xt, &yt) != QMM_OK)
                return 1;
            const double tc = now_s() - t0, tr = paired_read(&r, copy[(c + copies / 2) % copies], size);
            share[i * rounds + rd] = tr / tc * (double)size / (double)(r.part * (size_t)threads);
            call[i * rounds + rd] = gb / tc;
            read[i * rounds + rd] = (double)(r.part * (size_t)threads) * 1e-9 / tr;
        }
    printf("%s k=%lld n=%lld: %zu packed bytes, %d copies, %d rounds, %d threads\n", argv[1], (long long)k, (long long)n, size,
           copies, rounds, threads);
    for (int i = 0; i < nb; i++)
        printf("  %-40s share %.3f  call %.1f GB/s  paired read %.1f GB/s\n", b[i].path, median(share + i * rounds, rounds),
               median(call + i * rounds, rounds), median(read + i * rounds, rounds));
    return 0;
}
