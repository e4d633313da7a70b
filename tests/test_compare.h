/* The family-against-reference check that test_kernel_edges and
 * test_kquant_extremes share: pack GGUF rows src (n x k) and activations x
 * (m x k) for both families, multiply (kf's gemv at m = 1, as the library
 * does), compare the outputs and every GET_ROWS row bit for bit. */
#ifndef QMM_TEST_COMPARE_H
#define QMM_TEST_COMPARE_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "kernels/family.h"
#include "test_util.h"

enum {
    QMM_TEST_NAN_ANY = 1u << 0,    /* a NaN matches any NaN (payloads are not promised) */
    QMM_TEST_POISON_PACK = 1u << 1 /* fill kf's packed buffer with 0xcd first: the packer must not rely on zeroes */
};

static inline int qmm_test_same_float(float a, float b, unsigned flags) {
    if ((flags & QMM_TEST_NAN_ANY) && a != a && b != b)
        return 1;
    return memcmp(&a, &b, sizeof a) == 0;
}

/* what names the case in messages; *n_special (if not NULL) counts the
 * reference's outputs that are NaN, inf or subnormal. */
static inline void qmm_test_compare_family(const qmm_family *kf, const qmm_family *ref, int64_t m, int64_t n, int64_t k,
                                           const void *src, const float *x, const char *what, unsigned flags, long *n_special) {
    const size_t rb = qmm_row_size(kf->wtype, k);
    void *wp = qmm_test_alloc(kf->w_packed_size(k, n)), *wr = qmm_test_alloc(ref->w_packed_size(k, n));
    if (flags & QMM_TEST_POISON_PACK)
        memset(wp, 0xcd, kf->w_packed_size(k, n));
    kf->w_pack(k, n, 0, n, src, rb, wp);
    ref->w_pack(k, n, 0, n, src, rb, wr);
    const int gemv = m == 1;
    const qmm_act_layout *al = qmm_family_act_layout(kf, gemv), *rl = qmm_family_act_layout(ref, gemv);
    void *a = qmm_test_alloc(al->packed_size(m, k)), *ar = qmm_test_alloc(rl->packed_size(m, k));
    al->pack(m, k, x, (size_t)k * sizeof(float), a);
    rl->pack(m, k, x, (size_t)k * sizeof(float), ar);
    float *y = qmm_test_alloc((size_t)(m * n) * sizeof(float)), *yr = qmm_test_alloc((size_t)(m * n) * sizeof(float));
    ref->gemm(m, n, k, ar, wr, yr, (size_t)n * sizeof(float));
    if (gemv && kf->gemv)
        kf->gemv(n, k, a, wp, y);
    else
        kf->gemm(m, n, k, a, wp, y, (size_t)n * sizeof(float));
    long bad = 0;
    for (int64_t i = 0; i < m * n; i++) {
        const int c = fpclassify(yr[i]);
        if (n_special)
            *n_special += c == FP_NAN || c == FP_INFINITE || c == FP_SUBNORMAL;
        if (!qmm_test_same_float(y[i], yr[i], flags) && bad++ < 3)
            fprintf(stderr, "  %s m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " y[%" PRId64 "][%" PRId64 "] = %a, ref %a\n", kf->name,
                    m, n, k, i / n, i % n, y[i], yr[i]);
    }
    CHECK(bad == 0, "%s: %ld outputs differ (m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " %s)", kf->name, bad, m, n, k, what);
    float *r1 = malloc((size_t)k * sizeof(float)), *r2 = malloc((size_t)k * sizeof(float));
    for (int64_t j = 0; j < n; j++) {
        int ok = qmm_exec_read_row(kf, wp, k, n, j, r1) == 0 && qmm_exec_read_row(ref, wr, k, n, j, r2) == 0;
        for (int64_t l = 0; l < k; l++)
            ok &= qmm_test_same_float(r1[l], r2[l], flags);
        CHECK(ok, "%s: row %" PRId64 " read (GET_ROWS) differs (k=%" PRId64 " %s)", kf->name, j, k, what);
    }
    free(r1);
    free(r2);
    free(wp);
    free(wr);
    free(a);
    free(ar);
    free(y);
    free(yr);
}

#endif
