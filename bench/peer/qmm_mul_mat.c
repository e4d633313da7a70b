/* qmatmul's side of the accuracy comparison with the ggml peer
 * (scripts/test-peer.sh): the same list file as `ggml_mul_mat accuracy-batch`,
 * one "TYPE K N M W.bin X.bin Y.bin" a line (W: n rows of k in GGUF block
 * layout, X: m x k f32; Y gets qmm_mul_mat's result, m x n f32). A client of
 * the public API only (include/qmatmul.h), on the kernels this CPU selects.
 *
 *   qmm_mul_mat LIST [THREADS]   (THREADS default 2) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (peer_io.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmatmul.h"

#define PEER_PROG "qmm_mul_mat"
#include "peer_io.h"
#include "qmm_peer.h"

static int run_case(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t m, const char *wp, const char *xp,
                    const char *yp) {
    const size_t rb = qmm_row_size(type, k);
    if (rb == 0) {
        fprintf(stderr, "qmm_mul_mat: k = %lld does not fit %s's blocks\n", (long long)k, qmm_type_name(type));
        return 1;
    }
    void *wv = peer_read_exact(wp, rb * (size_t)n);
    float *xv = peer_read_exact(xp, sizeof(float) * (size_t)(k * m));
    float *yv = malloc(sizeof(float) * (size_t)(n * m));
    qmm_weights *w = NULL;
    qmm_tensor x, y;
    qmm_status st = wv && xv && yv ? QMM_OK : QMM_ERR_NO_MEMORY;
    if (st == QMM_OK)
        st = qmm_weights_pack(ctx, type, k, n, wv, rb * (size_t)n, &w);
    if (st == QMM_OK)
        st = qmm_tensor_init(&x, QMM_TYPE_F32, 2, (int64_t[]){k, m}, xv);
    if (st == QMM_OK)
        st = qmm_tensor_init(&y, QMM_TYPE_F32, 2, (int64_t[]){n, m}, yv);
    if (st == QMM_OK)
        st = qmm_mul_mat(ctx, w, &x, &y);
    int rc = 0;
    if (st != QMM_OK) {
        if (wv && xv)
            fprintf(stderr, "qmm_mul_mat: %s k=%lld n=%lld m=%lld: %s: %s\n", qmm_type_name(type), (long long)k, (long long)n,
                    (long long)m, qmm_status_str(st), qmm_last_error());
        rc = 1;
    } else {
        rc = peer_write_exact(yp, yv, sizeof(float) * (size_t)(n * m));
        if (!rc)
            printf("{\"type\": \"%s\", \"k\": %lld, \"n\": %lld, \"m\": %lld, \"kernel\": \"%s\"}\n", qmm_type_name(type),
                   (long long)k, (long long)n, (long long)m, qmm_weights_kernel(w));
    }
    qmm_weights_free(w);
    free(wv);
    free(xv);
    free(yv);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: qmm_mul_mat LIST [THREADS]\n");
        return 2;
    }
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    opts.n_threads = argc > 2 ? atoi(argv[2]) : 2;
    qmm_context *ctx = NULL;
    if (qmm_context_create(&opts, &ctx) != QMM_OK) {
        fprintf(stderr, "qmm_mul_mat: %s\n", qmm_last_error());
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "qmm_mul_mat: cannot open %s\n", argv[1]);
        qmm_context_free(ctx);
        return 1;
    }
    char line[4096], tname[32], wp[1024], xp[1024], yp[1024];
    long long k, n, m;
    int rc = 0, cases = 0;
    while (rc == 0 && peer_list_next(f, line, sizeof line)) {
        qmm_type type;
        if (sscanf(line, "%31s %lld %lld %lld %1023s %1023s %1023s", tname, &k, &n, &m, wp, xp, yp) != 7 ||
            !peer_parse_type(tname, &type) || k < 1 || n < 1 || m < 1) {
            fprintf(stderr, "qmm_mul_mat: %s: bad line: %s", argv[1], line);
            rc = 1;
            break;
        }
        rc = run_case(ctx, type, k, n, m, wp, xp, yp);
        cases++;
    }
    fclose(f);
    qmm_context_free(ctx);
    if (rc == 0 && cases == 0) {
        fprintf(stderr, "qmm_mul_mat: %s: no cases\n", argv[1]);
        rc = 1;
    }
    return rc;
}
