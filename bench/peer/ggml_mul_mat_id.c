/* The ggml MUL_MAT_ID peer: ggml's CPU back end doing ggml_mul_mat_id (the
 * expert-routed matmul of mixture-of-experts models) as a ggml user gets it
 * (bench/peer/ggml_peer.h: the variant ggml_backend_load_all() picks, a
 * persistent thread pool, weights in the CPU_REPACK buffer where ggml takes the
 * MUL_MAT_ID, else the plain CPU buffer; --no-repack: always the plain one), on
 * the files bench/peer/moe_data.py writes, with the calls and timing of
 * qmm_mul_mat_id.c (bench/peer/peer_moe.h states the formats and the method).
 * Our own code against ggml's public headers; built inside the trixie root of
 * scripts/setup-ggml-peer.sh by bench/peer/build.sh.
 *
 *   ggml_mul_mat_id accuracy-batch LIST [--threads T] [--no-repack]
 *       LIST: one "TYPE K N NE U T XR W X IDS Y" a line; Y gets y F32 [n, u, t]
 *   ggml_mul_mat_id bench SPEC [--threads T] [--time X] [--llc BYTES] [--no-repack]
 *       SPEC: one "PHASE TYPE K N NE U T XR W X IDS" a line; one JSON line per row
 *
 * Every call is its own graph (one per copy and token at decode), over views
 * of the x and ids tensors: nothing is copied in or out while timing. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (peer_io.h) */

#define PEER_PROG "ggml_mul_mat_id"
#include "ggml_peer.h"
#include "peer_moe.h"

/* The buffer type experts of (type, k, n, ne) go in, by llama.cpp's test for
 * *_exps weights: a MUL_MAT_ID of 512 tokens with u experts each. */
static ggml_backend_buffer_type_t experts_buft(peer *P, enum ggml_type type, const peer_moe_case *c) {
    struct ggml_init_params ip = {ggml_tensor_overhead() * 8, NULL, true};
    struct ggml_context *g = ggml_init(ip);
    struct ggml_tensor *w = ggml_new_tensor_3d(g, type, c->k, c->n, c->ne);
    struct ggml_tensor *x = ggml_new_tensor_3d(g, GGML_TYPE_F32, c->k, c->u, 512);
    struct ggml_tensor *ids = ggml_new_tensor_2d(g, GGML_TYPE_I32, c->u, 512);
    ggml_backend_buffer_type_t b = peer_weight_buft_for(P, ggml_mul_mat_id(g, w, x, ids));
    ggml_free(g);
    return b;
}

#define GRAPH_NODES 16 /* a graph holds one MUL_MAT_ID and its views */

typedef struct run {
    peer *P;
    const peer_moe_case *c;
    int copies, graphs_per_copy;
    struct ggml_context *cw, *ca;
    ggml_backend_buffer_t bw, ba;
    ggml_backend_buffer_type_t buft;
    struct ggml_tensor **W, *x, *ids, **y;
    struct ggml_cgraph **G; /* [copy * graphs_per_copy + token], or one graph of every token */
    int32_t *idv;
} run;

/* The graph of tokens [t0, t0 + nt) on copy cp: views of x and ids. */
static struct ggml_cgraph *build_graph(run *r, int cp, long long t0, long long nt, struct ggml_tensor **yout) {
    const peer_moe_case *c = r->c;
    struct ggml_tensor *xv = ggml_view_3d(r->ca, r->x, c->k, c->xr, nt, r->x->nb[1], r->x->nb[2], (size_t)t0 * r->x->nb[2]);
    struct ggml_tensor *iv = ggml_view_2d(r->ca, r->ids, c->u, nt, r->ids->nb[1], (size_t)t0 * r->ids->nb[1]);
    struct ggml_tensor *y = ggml_mul_mat_id(r->ca, r->W[cp], xv, iv);
    struct ggml_cgraph *g = ggml_new_graph_custom(r->ca, GRAPH_NODES, false);
    ggml_build_forward_expand(g, y);
    *yout = y;
    return g;
}

/* Loads c, puts `copies` copies of its experts into ggml's buffer and builds
 * the graphs (decode: one per copy and token; else one of all tokens). */
static int setup(peer *P, const peer_moe_case *c, int copies, int per_token, run *r) {
    memset(r, 0, sizeof *r);
    r->P = P;
    r->c = c;
    r->copies = copies;
    enum ggml_type type;
    if (!peer_parse_type(c->type, &type)) {
        fprintf(stderr, PEER_PROG ": ggml %s has no type '%s'\n", ggml_version(), c->type);
        return 1;
    }
    if (c->k % ggml_blck_size(type)) {
        fprintf(stderr, PEER_PROG ": k = %lld is not a multiple of %s's block of %lld\n", c->k, c->type,
                (long long)ggml_blck_size(type));
        return 1;
    }
    void *wv;
    float *xv;
    if (peer_moe_load(c, ggml_row_size(type, c->k), &wv, &xv, &r->idv))
        return 1;
    r->buft = experts_buft(P, type, c);
    struct ggml_init_params ipw = {ggml_tensor_overhead() * (size_t)(copies + 1), NULL, true};
    r->cw = ggml_init(ipw);
    r->W = calloc((size_t)copies, sizeof *r->W);
    for (int i = 0; i < copies; i++)
        r->W[i] = ggml_new_tensor_3d(r->cw, type, c->k, c->n, c->ne);
    r->bw = ggml_backend_alloc_ctx_tensors_from_buft(r->cw, r->buft);
    r->graphs_per_copy = per_token ? (int)c->t : 1;
    const size_t ng = (size_t)copies * (size_t)r->graphs_per_copy;
    struct ggml_init_params ipa = {ggml_tensor_overhead() * (4 * ng + 4) + ggml_graph_overhead_custom(GRAPH_NODES, false) * ng,
                                   NULL, true};
    r->ca = ggml_init(ipa);
    r->x = ggml_new_tensor_3d(r->ca, GGML_TYPE_F32, c->k, c->xr, c->t);
    r->ids = ggml_new_tensor_2d(r->ca, GGML_TYPE_I32, c->u, c->t);
    r->G = calloc(ng, sizeof *r->G);
    r->y = calloc(ng, sizeof *r->y);
    int rc = !r->bw || !r->W || !r->G || !r->y;
    for (int cp = 0; !rc && cp < copies; cp++)
        for (int j = 0; j < r->graphs_per_copy; j++)
            r->G[cp * r->graphs_per_copy + j] =
                build_graph(r, cp, per_token ? j : 0, per_token ? 1 : c->t, &r->y[cp * r->graphs_per_copy + j]);
    if (!rc)
        r->ba = ggml_backend_alloc_ctx_tensors(r->ca, P->backend);
    if (rc || !r->ba) {
        fprintf(stderr, PEER_PROG ": cannot allocate %d copies of the experts and the graphs\n", copies);
        rc = 1;
    } else {
        const size_t wsize = ggml_row_size(type, c->k) * (size_t)(c->n * c->ne);
        for (int i = 0; i < copies; i++)
            ggml_backend_tensor_set(r->W[i], wv, 0, wsize);
        ggml_backend_tensor_set(r->x, xv, 0, sizeof(float) * (size_t)(c->k * c->xr * c->t));
        ggml_backend_tensor_set(r->ids, r->idv, 0, sizeof(int32_t) * (size_t)(c->u * c->t));
    }
    free(wv);
    free(xv);
    return rc;
}

static void teardown(run *r) {
    if (r->ba)
        ggml_backend_buffer_free(r->ba);
    if (r->bw)
        ggml_backend_buffer_free(r->bw);
    if (r->ca)
        ggml_free(r->ca);
    if (r->cw)
        ggml_free(r->cw);
    free(r->W);
    free(r->G);
    free(r->y);
    free(r->idv);
}

static int timed_call(void *user, int copy, long long token, long long ntok) {
    run *r = user;
    (void)ntok; /* the graph holds it */
    struct ggml_cgraph *g = r->G[copy * r->graphs_per_copy + (r->graphs_per_copy > 1 ? token : 0)];
    if (ggml_backend_graph_compute(r->P->backend, g) != GGML_STATUS_SUCCESS) {
        fprintf(stderr, PEER_PROG ": graph compute failed\n");
        return 1;
    }
    return 0;
}

static void json_head(run *r) {
    peer_json_head(r->P, r->W[0]->type);
    printf("\"weight_buffer\": \"%s\", ", ggml_backend_buft_name(r->buft));
}

static int accuracy_case(peer *P, const peer_moe_case *c) {
    run r;
    int rc = setup(P, c, 1, 0, &r);
    if (!rc)
        rc = timed_call(&r, 0, 0, c->t);
    if (!rc) {
        const size_t ysize = sizeof(float) * (size_t)(c->n * c->u * c->t);
        float *yv = malloc(ysize);
        rc = !yv;
        if (yv) {
            ggml_backend_tensor_get(r.y[0], yv, 0, ysize);
            rc = peer_write_exact(c->y, yv, ysize);
        }
        free(yv);
    }
    if (!rc) {
        json_head(&r);
        printf("\"op\": \"mul_mat_id\", \"k\": %lld, \"n\": %lld, \"n_expert\": %lld, \"n_used\": %lld, \"tokens\": %lld, "
               "\"x_rows\": %lld}\n",
               c->k, c->n, c->ne, c->u, c->t, c->xr);
    }
    teardown(&r);
    return rc;
}

static int bench_case(peer *P, const peer_moe_case *c, size_t llc, double tscale) {
    enum ggml_type type;
    if (!peer_parse_type(c->type, &type)) {
        fprintf(stderr, PEER_PROG ": ggml %s has no type '%s'\n", ggml_version(), c->type);
        return 1;
    }
    const double wbytes = (double)ggml_row_size(type, c->k) * (double)(c->n * c->ne);
    const int dec = !strcmp(c->phase, "decode");
    const int copies = dec ? peer_moe_copies(wbytes, llc) : 1;
    run r;
    int rc = setup(P, c, copies, dec, &r);
    double *s = NULL, pre[15];
    int ns = 0;
    if (!rc)
        rc = dec ? peer_moe_time_decode(c, copies, tscale, timed_call, &r, &s, &ns)
                 : peer_moe_time_prefill(c, tscale, timed_call, &r, pre, &ns);
    if (!rc) {
        json_head(&r);
        peer_moe_json_row(c, copies, wbytes / (double)c->ne, peer_moe_distinct(c, r.idv), dec ? s : pre, ns);
    }
    free(s);
    teardown(&r);
    return rc;
}

static int usage(void) {
    fprintf(stderr, "usage: ggml_mul_mat_id accuracy-batch LIST [--threads T] [--no-repack]\n"
                    "       ggml_mul_mat_id bench SPEC [--threads T] [--time X] [--llc BYTES] [--no-repack]\n");
    return 2;
}

static int run_case(void *P, const peer_moe_case *c, const peer_moe_args *a) {
    return a->is_bench ? bench_case(P, c, a->llc ? a->llc : peer_detect_llc(), a->tscale) : accuracy_case(P, c);
}

int main(int argc, char **argv) {
    peer_moe_args a;
    if (!peer_moe_args_parse(argc, argv, "--no-repack", &a))
        return usage();
    peer P;
    if (peer_init(&P, a.threads, a.flag))
        return 1;
    const int rc = peer_moe_run_list(&a, run_case, &P);
    peer_free(&P);
    return rc;
}
