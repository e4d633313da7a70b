/* qmatmul's side of the MUL_MAT_ID comparison with the ggml peer
 * (bench/peer/ggml_mul_mat_id.c): the same files (bench/peer/moe_data.py),
 * the same calls and timing (bench/peer/peer_moe.h states the formats and the
 * method). A client of the public API only (include/qmatmul.h): experts packed
 * by qmm_experts_pack, multiplied by qmm_mul_mat_id on the kernels this CPU
 * selects, on the context's own thread pool.
 *
 *   qmm_mul_mat_id accuracy-batch LIST [--threads T]
 *       LIST: one "TYPE K N NE U T XR W X IDS Y" a line; Y gets y F32 [n, u, t]
 *   qmm_mul_mat_id bench SPEC [--threads T] [--time X] [--llc BYTES]
 *       SPEC: one "PHASE TYPE K N NE U T XR W X IDS" a line; one JSON line per
 *       row on stdout */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (peer_io.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmatmul.h"

#define PEER_PROG "qmm_mul_mat_id"
#include "peer_io.h"
#include "peer_moe.h"
#include "qmm_peer.h"

/* One call's state: the packed copies and the inputs. */
typedef struct run {
    qmm_context *ctx;
    const peer_moe_case *c;
    qmm_weights **w; /* copies */
    const float *x;
    const int32_t *ids;
    float *y; /* n x u x (the most tokens of a call) */
} run;

static qmm_status mul_mat_id(run *r, int copy, long long token, long long ntok) {
    const peer_moe_case *c = r->c;
    qmm_tensor x, ids, y;
    qmm_status st = qmm_tensor_init(&x, QMM_TYPE_F32, 3, (int64_t[]){c->k, c->xr, ntok}, (void *)(r->x + token * c->k * c->xr));
    if (st == QMM_OK)
        st = qmm_tensor_init(&ids, QMM_TYPE_I32, 2, (int64_t[]){c->u, ntok}, (void *)(r->ids + token * c->u));
    if (st == QMM_OK)
        st = qmm_tensor_init(&y, QMM_TYPE_F32, 3, (int64_t[]){c->n, c->u, ntok}, r->y);
    if (st == QMM_OK)
        st = qmm_mul_mat_id(r->ctx, r->w[copy], &x, &ids, &y);
    return st;
}

static int timed_call(void *user, int copy, long long token, long long ntok) {
    run *r = user;
    const qmm_status st = mul_mat_id(r, copy, token, ntok);
    if (st != QMM_OK)
        fprintf(stderr, PEER_PROG ": qmm_mul_mat_id: %s: %s\n", qmm_status_str(st), qmm_last_error());
    return st != QMM_OK;
}

/* Loads c and packs `copies` copies of its experts into r; 0 on success. */
static int setup(qmm_context *ctx, const peer_moe_case *c, int copies, run *r, void **wsrc, size_t *wbytes) {
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->c = c;
    qmm_type type;
    if (!peer_parse_type(c->type, &type)) {
        fprintf(stderr, PEER_PROG ": unknown type %s\n", c->type);
        return 1;
    }
    const size_t rb = qmm_row_size(type, c->k);
    if (rb == 0) {
        fprintf(stderr, PEER_PROG ": k = %lld does not fit %s's blocks\n", c->k, c->type);
        return 1;
    }
    float *x;
    int32_t *ids;
    if (peer_moe_load(c, rb, wsrc, &x, &ids))
        return 1;
    r->x = x;
    r->ids = ids;
    *wbytes = rb * (size_t)(c->n * c->ne);
    r->y = malloc(sizeof(float) * (size_t)(c->n * c->u * c->t));
    r->w = calloc((size_t)copies, sizeof *r->w);
    if (!r->y || !r->w) {
        fprintf(stderr, PEER_PROG ": out of memory\n");
        return 1;
    }
    for (int i = 0; i < copies; i++) {
        const qmm_status st = qmm_experts_pack(ctx, type, c->k, c->n, c->ne, *wsrc, *wbytes, &r->w[i]);
        if (st != QMM_OK) {
            fprintf(stderr, PEER_PROG ": qmm_experts_pack %s k=%lld n=%lld n_expert=%lld: %s: %s\n", c->type, c->k, c->n, c->ne,
                    qmm_status_str(st), qmm_last_error());
            return 1;
        }
    }
    return 0;
}

static void teardown(run *r, int copies, void *wsrc) {
    for (int i = 0; r->w && i < copies; i++)
        qmm_weights_free(r->w[i]);
    free(r->w);
    free(r->y);
    free((void *)r->x);
    free((void *)r->ids);
    free(wsrc);
}

static int accuracy_case(qmm_context *ctx, const peer_moe_case *c) {
    run r;
    void *wsrc = NULL;
    size_t wbytes = 0;
    int rc = setup(ctx, c, 1, &r, &wsrc, &wbytes);
    if (!rc)
        rc = timed_call(&r, 0, 0, c->t);
    if (!rc)
        rc = peer_write_exact(c->y, r.y, sizeof(float) * (size_t)(c->n * c->u * c->t));
    if (!rc)
        printf("{\"peer\": \"qmatmul\", \"op\": \"mul_mat_id\", \"type\": \"%s\", \"k\": %lld, \"n\": %lld, \"n_expert\": %lld, "
               "\"n_used\": %lld, \"tokens\": %lld, \"x_rows\": %lld, \"kernel\": \"%s\"}\n",
               c->type, c->k, c->n, c->ne, c->u, c->t, c->xr, qmm_weights_kernel(r.w[0]));
    teardown(&r, 1, wsrc);
    return rc;
}

static int bench_case(qmm_context *ctx, const peer_moe_case *c, size_t llc, double tscale) {
    qmm_type type;
    if (!peer_parse_type(c->type, &type) || qmm_row_size(type, c->k) == 0) {
        fprintf(stderr, PEER_PROG ": type %s with k = %lld cannot run\n", c->type, c->k);
        return 1;
    }
    const double wbytes_gguf = (double)qmm_row_size(type, c->k) * (double)(c->n * c->ne);
    const int dec = !strcmp(c->phase, "decode");
    const int copies = dec ? peer_moe_copies(wbytes_gguf, llc) : 1;
    run r;
    void *wsrc = NULL;
    size_t wbytes = 0;
    int rc = setup(ctx, c, copies, &r, &wsrc, &wbytes);
    double *s = NULL, pre[15];
    int ns = 0;
    if (!rc)
        rc = dec ? peer_moe_time_decode(c, copies, tscale, timed_call, &r, &s, &ns)
                 : peer_moe_time_prefill(c, tscale, timed_call, &r, pre, &ns);
    if (!rc) {
        printf("{\"peer\": \"qmatmul\", \"type\": \"%s\", \"threads\": %d, \"kernel\": \"%s\", ", c->type,
               qmm_context_threads(ctx), qmm_weights_kernel(r.w[0]));
        peer_moe_json_row(c, copies, wbytes_gguf / (double)c->ne, peer_moe_distinct(c, r.ids), dec ? s : pre, ns);
    }
    free(s);
    teardown(&r, copies, wsrc);
    return rc;
}

static int usage(void) {
    fprintf(stderr, "usage: qmm_mul_mat_id accuracy-batch LIST [--threads T]\n"
                    "       qmm_mul_mat_id bench SPEC [--threads T] [--time X] [--llc BYTES]\n");
    return 2;
}

static int run_case(void *ctx, const peer_moe_case *c, const peer_moe_args *a) {
    return a->is_bench ? bench_case(ctx, c, a->llc ? a->llc : peer_detect_llc(), a->tscale) : accuracy_case(ctx, c);
}

int main(int argc, char **argv) {
    peer_moe_args a;
    if (!peer_moe_args_parse(argc, argv, NULL, &a))
        return usage();
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    opts.n_threads = a.threads;
    qmm_context *ctx = NULL;
    if (qmm_context_create(&opts, &ctx) != QMM_OK) {
        fprintf(stderr, PEER_PROG ": %s\n", qmm_last_error());
        return 1;
    }
    const int rc = peer_moe_run_list(&a, run_case, ctx);
    qmm_context_free(ctx);
    return rc;
}
