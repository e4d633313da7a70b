/* A minimal test harness: CHECK records failures and goes on; main returns
 * qmm_test_summary(), which prints "N passed, N failed". */
#ifndef QMM_TEST_UTIL_H
#define QMM_TEST_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmatmul.h"

static long qmm_test_pass_count, qmm_test_fail_count;

#define CHECK(cond, ...)                                                                                                         \
    do {                                                                                                                         \
        if (cond) {                                                                                                              \
            qmm_test_pass_count++;                                                                                               \
        } else {                                                                                                                 \
            qmm_test_fail_count++;                                                                                               \
            if (qmm_test_fail_count <= 50) {                                                                                     \
                fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                                         \
                fprintf(stderr, __VA_ARGS__);                                                                                    \
                fputc('\n', stderr);                                                                                             \
            }                                                                                                                    \
        }                                                                                                                        \
    } while (0)

#define CHECK_OK(expr)                                                                                                           \
    do {                                                                                                                         \
        qmm_status s_ = (expr);                                                                                                  \
        CHECK(s_ == QMM_OK, "%s -> %s (%s)", #expr, qmm_status_str(s_), qmm_last_error());                                       \
    } while (0)

static inline int qmm_test_summary(void) {
    printf("%ld passed, %ld failed\n", qmm_test_pass_count, qmm_test_fail_count);
    return qmm_test_fail_count ? 1 : 0;
}

/* Deterministic random numbers (splitmix64). */
static inline uint64_t qmm_test_rand_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static inline float qmm_test_rand_f(uint64_t *s) { return (float)((double)(qmm_test_rand_u64(s) >> 11) * 0x1p-52 - 1.0); }

static inline void *qmm_test_alloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* QMM_TEST_KERNELS: a comma-separated list of family-name prefixes (e.g.
 * "sve_,sme"); the oracle tests (test_kernels, test_kernel_edges) then visit
 * only the families whose names start with one of them. scripts/test-arm-vl.sh
 * runs the vector-length-dependent families so at every length. Unset: all. */
static inline int qmm_test_family_wanted(const char *name) {
    const char *spec = getenv("QMM_TEST_KERNELS");
    if (!spec || !*spec)
        return 1;
    for (const char *p = spec;;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && strncmp(name, p, len) == 0)
            return 1;
        if (!e)
            return 0;
        p = e + 1;
    }
}

/* QMM_TEST_SHAPES=vl: tests/test_kernels.c (the oracle test) keeps the shapes whose outcome a
 * vector length can change (every m and n, k up to 256 and one longer k for
 * the multi-group rows) and leaves out the long-k sweeps, which walk the same
 * block loop more times; tests/test_mul_mat.c's thread sweep takes 5 of its
 * 17 thread counts and leaves out the many-thread runs, its F16 grouping
 * check 1 and 3 threads of 1..5 (its capped / hybrid sweep, whose fallbacks
 * depend on the CPU setting, stays whole). scripts/test-arm-vl.sh (the SVE / SME families at
 * five vector lengths under emulation) and scripts/test-arm.sh's CPU settings
 * other than `max` set it: `max`, where every Arm family runs, gets the full
 * sweep; so does scripts/run-sanitizers.sh's ThreadSanitizer run of
 * test_mul_mat (the ASan / UBSan run and the x86 builds run everything). */
static inline int qmm_test_vl_shapes(void) {
    const char *s = getenv("QMM_TEST_SHAPES");
    return s && strcmp(s, "vl") == 0;
}

/* A context of n_threads that ignores the QMM_* environment (exits with 2,
 * naming the error, if it cannot be made). */
static inline qmm_context *qmm_test_context(int n_threads) {
    qmm_options o;
    memset(&o, 0, sizeof o);
    o.n_threads = n_threads;
    o.flags = QMM_IGNORE_ENV;
    qmm_context *ctx = NULL;
    if (qmm_context_create(&o, &ctx) != QMM_OK) {
        fprintf(stderr, "context: %s\n", qmm_last_error());
        exit(2);
    }
    return ctx;
}

#endif
