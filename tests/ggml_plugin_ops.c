/* The QMM device inside ggml (llama-cpp-python's ggml 0.25.3, built against
 * the headers and libraries that package installs), op by op, for every
 * type qmatmul packs:
 *  - weights written into a QMM buffer marked for weights read back as the
 *    very bytes written (get_tensor unpacks), whole and in odd slices;
 *  - MUL_MAT, MUL_MAT_ID and GET_ROWS computed by the QMM back end give
 *    qmatmul's own qmm_mul_mat / qmm_mul_mat_id / qmm_get_rows bit for bit
 *    (the plugin adds no arithmetic), at 1 and 2 threads;
 *  - MUL_MAT agrees with ggml's CPU back end on the same graph within a
 *    normalised squared error of 1e-4 (both quantize the activations to 8
 *    bits: two roundings of the same data, not bit equality).
 * usage: ggml_plugin_ops PLUGIN.so */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "qmatmul.h"

static int failures;
#define EXPECT(cond, ...)                                                                                                        \
    do {                                                                                                                         \
        if (!(cond)) {                                                                                                           \
            failures++;                                                                                                          \
            fprintf(stderr, "ggml_plugin_ops: " __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                                                 \
        }                                                                                                                        \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static float rand_f(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

static void fill_rand(float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        x[i] = rand_f();
}

static void to_qmm(const struct ggml_tensor *t, qmm_tensor *q) {
    memset(q, 0, sizeof *q);
    q->type = (qmm_type)t->type;
    for (int d = 0; d < 4; d++) {
        q->ne[d] = t->ne[d];
        q->nb[d] = t->nb[d];
    }
    q->data = t->data;
}

static double nse(const float *a, const float *b, int64_t n) {
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        den += (double)b[i] * b[i];
    }
    return den > 0 ? num / den : num;
}

typedef void (*set_threads_fn)(ggml_backend_t, int);

struct setup {
    ggml_backend_dev_t dev;
    ggml_backend_t qmm, cpu;
    set_threads_fn set_threads;
    qmm_context *ctx;
};

/* One type: weights W [k, n] and experts E [k, n, n_exp] in QMM buffers
 * marked for weights, activations and outputs in CPU memory. */
static void check_type(struct setup *s, enum ggml_type type) {
    const int64_t k = 256, n = 40, m = 3, n_exp = 4, n_used = 2, n_tok = 3, n_ids = 5;
    const char *tname = ggml_type_name(type);
    struct ggml_init_params ip = {64 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true};
    struct ggml_context *cw = ggml_init(ip), *cx = ggml_init(ip);
    struct ggml_tensor *w = ggml_new_tensor_2d(cw, type, k, n);
    struct ggml_tensor *e = ggml_new_tensor_3d(cw, type, k, n, n_exp);
    ggml_set_name(w, "w");
    ggml_set_name(e, "experts");
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(cw, ggml_backend_dev_buffer_type(s->dev));
    ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);

    /* the GGUF bytes, made by ggml's own quantizers */
    const size_t wbytes = ggml_nbytes(w), ebytes = ggml_nbytes(e);
    float *f = malloc(sizeof(float) * (size_t)(k * n * n_exp));
    fill_rand(f, k * n * n_exp);
    uint8_t *wsrc = malloc(wbytes), *esrc = malloc(ebytes), *back = malloc(ebytes);
    float imatrix[256]; /* the IQ1 / IQ2 quantizers need an importance matrix: uniform */
    for (int i = 0; i < 256; i++)
        imatrix[i] = 1.0f;
    const float *im = ggml_quantize_requires_imatrix(type) ? imatrix : NULL;
    ggml_quantize_chunk(type, f, wsrc, 0, n, k, im);
    ggml_quantize_chunk(type, f, esrc, 0, n * n_exp, k, im);
    ggml_backend_tensor_set(w, wsrc, 0, wbytes);
    ggml_backend_tensor_set(e, esrc, 0, ebytes);

    /* lossless: whole, and a slice that starts and ends inside rows */
    ggml_backend_tensor_get(w, back, 0, wbytes);
    EXPECT(memcmp(back, wsrc, wbytes) == 0, "%s: get_tensor of a packed weight differs from what was set", tname);
    const size_t off = ebytes / 3 + 5, len = ebytes / 3;
    ggml_backend_tensor_get(e, back, off, len);
    EXPECT(memcmp(back, esrc + off, len) == 0, "%s: a slice of packed experts differs from what was set", tname);

    /* the graph: MUL_MAT, MUL_MAT_ID, GET_ROWS */
    struct ggml_tensor *x = ggml_new_tensor_2d(cx, GGML_TYPE_F32, k, m);
    struct ggml_tensor *xe = ggml_new_tensor_3d(cx, GGML_TYPE_F32, k, n_used, n_tok);
    struct ggml_tensor *ids = ggml_new_tensor_2d(cx, GGML_TYPE_I32, n_used, n_tok);
    struct ggml_tensor *rows = ggml_new_tensor_1d(cx, GGML_TYPE_I32, n_ids);
    struct ggml_tensor *y = ggml_mul_mat(cx, w, x);
    struct ggml_tensor *ye = ggml_mul_mat_id(cx, e, xe, ids);
    struct ggml_tensor *g = ggml_get_rows(cx, w, rows);
    struct ggml_cgraph *gr = ggml_new_graph(cx);
    ggml_build_forward_expand(gr, y);
    ggml_build_forward_expand(gr, ye);
    ggml_build_forward_expand(gr, g);
    ggml_backend_buffer_t xbuf = ggml_backend_alloc_ctx_tensors_from_buft(cx, ggml_backend_cpu_buffer_type());
    float *xv = malloc(sizeof(float) * (size_t)(k * n_used * n_tok));
    fill_rand(xv, k * m);
    ggml_backend_tensor_set(x, xv, 0, ggml_nbytes(x));
    fill_rand(xv, k * n_used * n_tok);
    ggml_backend_tensor_set(xe, xv, 0, ggml_nbytes(xe));
    const int32_t idv[6] = {3, 0, 1, 1, 2, 3}, rowv[5] = {0, 39, 7, 7, 20};
    ggml_backend_tensor_set(ids, idv, 0, sizeof idv);
    ggml_backend_tensor_set(rows, rowv, 0, sizeof rowv);
    EXPECT(ggml_backend_supports_op(s->qmm, y) && ggml_backend_supports_op(s->qmm, ye) && ggml_backend_supports_op(s->qmm, g),
           "%s: QMM does not claim MUL_MAT, MUL_MAT_ID and GET_ROWS", tname);

    /* what qmatmul itself gives on the same bytes */
    qmm_weights *qw = NULL, *qe = NULL;
    if (qmm_weights_pack(s->ctx, (qmm_type)type, k, n, wsrc, wbytes, &qw) != QMM_OK ||
        qmm_experts_pack(s->ctx, (qmm_type)type, k, n, n_exp, esrc, ebytes, &qe) != QMM_OK) {
        EXPECT(0, "%s: qmatmul cannot pack: %s", tname, qmm_last_error());
        goto done;
    }
    float *want_y = calloc((size_t)(n * m), 4), *want_ye = calloc((size_t)(n * n_used * n_tok), 4);
    float *want_g = calloc((size_t)(k * n_ids), 4), *cpu_y = calloc((size_t)(n * m), 4);
    qmm_tensor qx, qxe, qids, qrows, qy, qye, qg;
    to_qmm(x, &qx);
    to_qmm(xe, &qxe);
    to_qmm(ids, &qids);
    to_qmm(rows, &qrows);
    to_qmm(y, &qy);
    to_qmm(ye, &qye);
    to_qmm(g, &qg);
    qy.data = want_y;
    qye.data = want_ye;
    qg.data = want_g;
    EXPECT(qmm_mul_mat(s->ctx, qw, &qx, &qy) == QMM_OK && qmm_mul_mat_id(s->ctx, qe, &qxe, &qids, &qye) == QMM_OK &&
               qmm_get_rows(s->ctx, qw, &qrows, &qg) == QMM_OK,
           "%s: qmatmul: %s", tname, qmm_last_error());
    for (int nth = 1; nth <= 2; nth++) {
        s->set_threads(s->qmm, nth);
        memset(y->data, 0xff, ggml_nbytes(y));
        memset(ye->data, 0xff, ggml_nbytes(ye));
        memset(g->data, 0xff, ggml_nbytes(g));
        EXPECT(ggml_backend_graph_compute(s->qmm, gr) == GGML_STATUS_SUCCESS, "%s: QMM's graph_compute failed", tname);
        EXPECT(memcmp(y->data, want_y, ggml_nbytes(y)) == 0, "%s: MUL_MAT differs from qmm_mul_mat (%d threads)", tname, nth);
        EXPECT(memcmp(ye->data, want_ye, ggml_nbytes(ye)) == 0, "%s: MUL_MAT_ID differs from qmm_mul_mat_id (%d threads)", tname,
               nth);
        EXPECT(memcmp(g->data, want_g, ggml_nbytes(g)) == 0, "%s: GET_ROWS differs from qmm_get_rows (%d threads)", tname, nth);
    }

    /* ggml's CPU back end on the same graph, its weights in a CPU buffer */
    {
        struct ggml_context *cc = ggml_init(ip);
        struct ggml_tensor *wc = ggml_new_tensor_2d(cc, type, k, n);
        struct ggml_tensor *xc = ggml_new_tensor_2d(cc, GGML_TYPE_F32, k, m);
        struct ggml_tensor *yc = ggml_mul_mat(cc, wc, xc);
        struct ggml_cgraph *gc = ggml_new_graph(cc);
        ggml_build_forward_expand(gc, yc);
        ggml_backend_buffer_t cbuf = ggml_backend_alloc_ctx_tensors_from_buft(cc, ggml_backend_cpu_buffer_type());
        ggml_backend_tensor_set(wc, wsrc, 0, wbytes);
        memcpy(xc->data, x->data, ggml_nbytes(x));
        ggml_backend_graph_compute(s->cpu, gc);
        memcpy(cpu_y, yc->data, ggml_nbytes(yc));
        const double d = nse(want_y, cpu_y, n * m);
        EXPECT(d <= 1e-4, "%s: MUL_MAT against ggml's CPU back end: NSE %.2e > 1e-4", tname, d);
        printf("ggml_plugin_ops: %-7s checked (NSE %.1e against ggml's CPU)\n", tname, d);
        ggml_backend_buffer_free(cbuf);
        ggml_free(cc);
    }
    free(want_y);
    free(want_ye);
    free(want_g);
    free(cpu_y);
done:
    qmm_weights_free(qw);
    qmm_weights_free(qe);
    ggml_backend_buffer_free(xbuf);
    ggml_backend_buffer_free(wbuf);
    ggml_free(cx);
    ggml_free(cw);
    free(f);
    free(wsrc);
    free(esrc);
    free(back);
    free(xv);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
        return 2;
    }
    struct setup s = {0};
    ggml_backend_reg_t reg = ggml_backend_load(argv[1]);
    if (!reg) {
        fprintf(stderr, "ggml_plugin_ops: ggml_backend_load(%s) failed\n", argv[1]);
        return 1;
    }
    s.dev = ggml_backend_dev_by_name("QMM");
    s.set_threads = (set_threads_fn)ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    s.qmm = s.dev ? ggml_backend_dev_init(s.dev, NULL) : NULL;
    s.cpu = ggml_backend_cpu_init();
    if (!s.dev || !s.qmm || !s.set_threads || !s.cpu || qmm_context_create(NULL, &s.ctx) != QMM_OK) {
        fprintf(stderr, "ggml_plugin_ops: no QMM device, back end or thread setter\n");
        return 1;
    }
    EXPECT(ggml_backend_dev_type(s.dev) == GGML_BACKEND_DEVICE_TYPE_ACCEL, "QMM is not an ACCEL device");
    EXPECT(!ggml_backend_buft_is_host(ggml_backend_dev_buffer_type(s.dev)), "QMM's buffers claim to be host memory");
    static const enum ggml_type types[] = {
        GGML_TYPE_F32,   GGML_TYPE_F16,     GGML_TYPE_BF16,  GGML_TYPE_Q4_0,    GGML_TYPE_Q4_1,
        GGML_TYPE_Q5_0,  GGML_TYPE_Q5_1,    GGML_TYPE_Q8_0,  GGML_TYPE_Q2_K,    GGML_TYPE_Q3_K,
        GGML_TYPE_Q4_K,  GGML_TYPE_Q5_K,    GGML_TYPE_Q6_K,  GGML_TYPE_IQ4_NL,  GGML_TYPE_IQ4_XS,
        GGML_TYPE_MXFP4, GGML_TYPE_IQ1_S,   GGML_TYPE_IQ1_M, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS,
        GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S, GGML_TYPE_TQ1_0,   GGML_TYPE_TQ2_0};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        check_type(&s, types[i]);
    ggml_backend_free(s.qmm);
    ggml_backend_free(s.cpu);
    qmm_context_free(s.ctx);
    printf("ggml_plugin_ops: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
