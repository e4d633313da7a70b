/* The ggml peer: ggml's CPU back end doing MUL_MAT as a ggml user gets it, for
 * side-by-side timings with `qmatmul bench` and for accuracy checks. Our own
 * code against ggml's public headers; built inside the trixie root of
 * scripts/setup-ggml-peer.sh (see scripts/bench-vs-ggml.sh, scripts/test-peer.sh).
 *
 *   ggml_mul_mat info
 *   ggml_mul_mat bench TYPE [--k K] [--n N] [--m M] [--threads T] [--llc BYTES] [--time X] [--no-repack]
 *   ggml_mul_mat accuracy TYPE K N M W.bin X.bin Y.bin [--threads T] [--no-repack]
 *   ggml_mul_mat accuracy-batch LIST [--threads T] [--no-repack]   (LIST: one "TYPE K N M W X Y" a line)
 *   ggml_mul_mat quantize TYPE K N IN.f32 OUT.bin DEQ.f32
 *
 * The CPU back end is started as ggml users get it (bench/peer/ggml_peer.h):
 * weights in ggml's CPU_REPACK buffer where it takes the MUL_MAT, else the plain
 * CPU buffer; --no-repack: always the plain one.
 *
 * bench: y = W x, W n x k of TYPE (values: ggml's own quantization of uniform
 * random floats), the method of `qmatmul bench` (tools/qmatmul/bench_measure.c):
 * decode (m = 1) rotates through copies of W totalling >= 8 x LLC and >= 256 MiB,
 * a warm-up pass, then passes over every copy (8 s x --time in all, 3 to 400/copies
 * passes), each call a sample; prefill (m = --m, 512) a warm-up call then up to 15
 * calls in 3 s x --time (at least 3). One JSON object per phase and line: seconds
 * (median, min, max, n), and the rate: GB/s of weight bytes (decode; ggml_nbytes of W)
 * or GOP/s of 2 m n k (prefill).
 *
 * accuracy: W.bin holds n rows of k in GGUF block layout, X.bin m x k f32, and
 * Y.bin gets ggml's MUL_MAT result, m x n f32 (row i = output of activation row i).
 *
 * quantize: n rows of k floats through ggml's own quantizer (an importance matrix of ones where the type needs
 * one) into OUT.bin, and those blocks through ggml's dequantizer into DEQ.f32: known answers for the library's
 * tests (tests/gen_known_answers.py). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (peer_io.h) */
#define PEER_PROG       "ggml_mul_mat"
#include <math.h>

#include "ggml_peer.h"

/* The buffer type W of (type, k, n) goes in: the extra (repack) one when the
 * device runs MUL_MAT with W in it (llama.cpp's test), else the CPU's own. */
static ggml_backend_buffer_type_t weight_buft(peer *P, enum ggml_type type, int64_t k, int64_t n, int64_t m) {
    struct ggml_init_params ip = {ggml_tensor_overhead() * 4, NULL, true};
    struct ggml_context *c = ggml_init(ip);
    struct ggml_tensor *w = ggml_new_tensor_2d(c, type, k, n);
    struct ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, k, m);
    ggml_backend_buffer_type_t b = peer_weight_buft_for(P, ggml_mul_mat(c, w, x));
    ggml_free(c);
    return b;
}

static void print_row(const peer *P, enum ggml_type type, const char *phase, int64_t m, int64_t n, int64_t k, const char *buft,
                      int copies, double rotation, double wbytes, double *s, int ns) {
    const double med = peer_median(s, ns);
    const int dec = m == 1;
    const double rate = dec ? wbytes / med * 1e-9 : 2.0 * (double)m * (double)n * (double)k / med * 1e-9;
    peer_json_head(P, type);
    printf("\"phase\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"weight_buffer\": \"%s\", \"copies\": %d, "
           "\"rotation_bytes\": %.0f, \"weight_bytes\": %.0f, \"seconds\": {\"median\": %.9f, \"min\": %.9f, \"max\": %.9f, "
           "\"n\": %d}, \"rate\": %.4f, \"rate_unit\": \"%s\"}\n",
           phase, (long long)m, (long long)n, (long long)k, buft, copies, rotation, wbytes, med, s[0], s[ns - 1], ns, rate,
           dec ? "GB/s" : "GOP/s");
    fflush(stdout);
}

static int cmd_bench(peer *P, enum ggml_type type, int64_t k, int64_t n, int64_t m_pre, size_t llc, double tscale) {
    size_t wsize;
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    void *src = peer_make_weights(type, k, n, &rng, &wsize);
    if (!src) {
        fprintf(stderr, "ggml_mul_mat: out of memory\n");
        return 1;
    }
    const double target = fmax(256.0 * 1048576, 8.0 * (double)llc);
    int copies = (int)ceil(target / (double)wsize);
    copies = copies < 1 ? 1 : copies > 256 ? 256 : copies;

    ggml_backend_buffer_type_t buft = weight_buft(P, type, k, n, 1);
    ggml_backend_buffer_type_t buft_pre = weight_buft(P, type, k, n, m_pre);
    /* weights: copies for decode, one more for prefill (in its own buffer type) */
    struct ggml_init_params ipw = {ggml_tensor_overhead() * (size_t)(copies + 1), NULL, true};
    struct ggml_context *cw = ggml_init(ipw), *cw_pre = ggml_init(ipw);
    struct ggml_tensor **W = calloc((size_t)copies, sizeof *W);
    for (int c = 0; c < copies; c++)
        W[c] = ggml_new_tensor_2d(cw, type, k, n);
    struct ggml_tensor *Wp = ggml_new_tensor_2d(cw_pre, type, k, n);
    ggml_backend_buffer_t bw = ggml_backend_alloc_ctx_tensors_from_buft(cw, buft);
    ggml_backend_buffer_t bw_pre = ggml_backend_alloc_ctx_tensors_from_buft(cw_pre, buft_pre);
    if (!bw || !bw_pre) {
        fprintf(stderr, "ggml_mul_mat: cannot allocate %d copies of %zu bytes\n", copies, wsize);
        return 1;
    }
    for (int c = 0; c < copies; c++)
        ggml_backend_tensor_set(W[c], src, 0, wsize);
    ggml_backend_tensor_set(Wp, src, 0, wsize);
    free(src);

    /* activations, outputs and the graphs: one per copy, and the prefill one */
    struct ggml_init_params ipa = {ggml_tensor_overhead() * (size_t)(copies + 4) + ggml_graph_overhead() * (size_t)(copies + 1),
                                   NULL, true};
    struct ggml_context *ca = ggml_init(ipa);
    struct ggml_tensor *x1 = ggml_new_tensor_2d(ca, GGML_TYPE_F32, k, 1);
    struct ggml_tensor *xp = ggml_new_tensor_2d(ca, GGML_TYPE_F32, k, m_pre);
    struct ggml_cgraph **G = calloc((size_t)copies + 1, sizeof *G);
    for (int c = 0; c < copies; c++) {
        G[c] = ggml_new_graph(ca);
        ggml_build_forward_expand(G[c], ggml_mul_mat(ca, W[c], x1));
    }
    G[copies] = ggml_new_graph(ca);
    ggml_build_forward_expand(G[copies], ggml_mul_mat(ca, Wp, xp));
    ggml_backend_buffer_t ba = ggml_backend_alloc_ctx_tensors(ca, P->backend);
    if (!ba) {
        fprintf(stderr, "ggml_mul_mat: cannot allocate the activations\n");
        return 1;
    }
    float *xv = malloc(sizeof(float) * (size_t)(k * m_pre));
    for (int64_t i = 0; i < k * m_pre; i++)
        xv[i] = peer_rngf(&rng);
    ggml_backend_tensor_set(x1, xv, 0, sizeof(float) * (size_t)k);
    ggml_backend_tensor_set(xp, xv, 0, sizeof(float) * (size_t)(k * m_pre));
    free(xv);

    /* decode: a warm-up pass timed to choose the passes, then every call a sample */
    double t0 = peer_now();
    for (int c = 0; c < copies; c++)
        ggml_backend_graph_compute(P->backend, G[c]);
    const double pass = peer_now() - t0;
    int reps = pass > 0 ? (int)(8.0 * tscale / pass) : 10;
    if (reps * copies > 400)
        reps = 400 / copies;
    if (reps < 3)
        reps = 3;
    double *s = malloc(sizeof(double) * (size_t)(reps * copies + 16));
    int ns = 0;
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < copies; c++) {
            t0 = peer_now();
            if (ggml_backend_graph_compute(P->backend, G[c]) != GGML_STATUS_SUCCESS) {
                fprintf(stderr, "ggml_mul_mat: graph compute failed\n");
                return 1;
            }
            s[ns++] = peer_now() - t0;
        }
    const double wbytes = (double)ggml_nbytes(W[0]);
    print_row(P, type, "decode", 1, n, k, ggml_backend_buft_name(buft), copies, wbytes * copies, wbytes, s, ns);

    /* prefill: a warm-up call, then up to 15 calls within the budget */
    t0 = peer_now();
    ggml_backend_graph_compute(P->backend, G[copies]);
    const double call = peer_now() - t0;
    int preps = call > 0 ? (int)(3.0 * tscale / call) : 15;
    preps = preps > 15 ? 15 : preps < 3 ? 3 : preps;
    ns = 0;
    for (int r = 0; r < preps; r++) {
        t0 = peer_now();
        ggml_backend_graph_compute(P->backend, G[copies]);
        s[ns++] = peer_now() - t0;
    }
    print_row(P, type, "prefill", m_pre, n, k, ggml_backend_buft_name(buft_pre), 1, wbytes, wbytes, s, ns);
    free(s);
    free(G);
    free(W);
    ggml_backend_buffer_free(ba);
    ggml_backend_buffer_free(bw);
    ggml_backend_buffer_free(bw_pre);
    ggml_free(ca);
    ggml_free(cw);
    ggml_free(cw_pre);
    return 0;
}

static int cmd_accuracy(peer *P, enum ggml_type type, int64_t k, int64_t n, int64_t m, const char *wpath, const char *xpath,
                        const char *ypath) {
    if (k % ggml_blck_size(type)) {
        fprintf(stderr, "ggml_mul_mat: k = %lld is not a multiple of %s's block of %lld\n", (long long)k, ggml_type_name(type),
                (long long)ggml_blck_size(type));
        return 1;
    }
    const size_t wsize = ggml_row_size(type, k) * (size_t)n;
    void *wv = peer_read_exact(wpath, wsize);
    float *xv = peer_read_exact(xpath, sizeof(float) * (size_t)(k * m));
    if (!wv || !xv)
        return 1;
    ggml_backend_buffer_type_t buft = weight_buft(P, type, k, n, m);
    struct ggml_init_params ip = {ggml_tensor_overhead() * 2, NULL, true};
    struct ggml_context *cw = ggml_init(ip);
    struct ggml_tensor *w = ggml_new_tensor_2d(cw, type, k, n);
    ggml_backend_buffer_t bw = ggml_backend_alloc_ctx_tensors_from_buft(cw, buft);
    struct ggml_init_params ipa = {ggml_tensor_overhead() * 4 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ca = ggml_init(ipa);
    struct ggml_tensor *x = ggml_new_tensor_2d(ca, GGML_TYPE_F32, k, m);
    struct ggml_tensor *y = ggml_mul_mat(ca, w, x);
    struct ggml_cgraph *g = ggml_new_graph(ca);
    ggml_build_forward_expand(g, y);
    ggml_backend_buffer_t ba = ggml_backend_alloc_ctx_tensors(ca, P->backend);
    if (!bw || !ba) {
        fprintf(stderr, "ggml_mul_mat: out of memory\n");
        return 1;
    }
    ggml_backend_tensor_set(w, wv, 0, wsize);
    ggml_backend_tensor_set(x, xv, 0, sizeof(float) * (size_t)(k * m));
    if (ggml_backend_graph_compute(P->backend, g) != GGML_STATUS_SUCCESS) {
        fprintf(stderr, "ggml_mul_mat: graph compute failed\n");
        return 1;
    }
    float *yv = malloc(sizeof(float) * (size_t)(n * m));
    ggml_backend_tensor_get(y, yv, 0, sizeof(float) * (size_t)(n * m));
    const int ok = peer_write_exact(ypath, yv, sizeof(float) * (size_t)(n * m)) == 0;
    if (ok) {
        peer_json_head(P, type);
        printf("\"k\": %lld, \"n\": %lld, \"m\": %lld, \"weight_buffer\": \"%s\"}\n", (long long)k, (long long)n, (long long)m,
               ggml_backend_buft_name(buft));
    }
    free(yv);
    free(wv);
    free(xv);
    ggml_backend_buffer_free(ba);
    ggml_backend_buffer_free(bw);
    ggml_free(ca);
    ggml_free(cw);
    return !ok;
}

/* Every case of a list file: one start of the back end for many cases. */
static int cmd_accuracy_batch(peer *P, const char *list) {
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "ggml_mul_mat: cannot open %s\n", list);
        return 1;
    }
    char line[4096], tname[32], wp[1024], xp[1024], yp[1024];
    long long k, n, m;
    int rc = 0, cases = 0;
    while (rc == 0 && peer_list_next(f, line, sizeof line)) {
        enum ggml_type type;
        if (sscanf(line, "%31s %lld %lld %lld %1023s %1023s %1023s", tname, &k, &n, &m, wp, xp, yp) != 7 ||
            !peer_parse_type(tname, &type) || k < 1 || n < 1 || m < 1) {
            fprintf(stderr, "ggml_mul_mat: %s: bad line: %s", list, line);
            rc = 1;
            break;
        }
        rc = cmd_accuracy(P, type, k, n, m, wp, xp, yp);
        cases++;
    }
    fclose(f);
    if (rc == 0 && cases == 0) {
        fprintf(stderr, "ggml_mul_mat: %s: no cases\n", list);
        rc = 1;
    }
    return rc;
}

static int cmd_quantize(enum ggml_type type, int64_t k, int64_t n, const char *in, const char *out, const char *deq) {
    const size_t rb = ggml_row_size(type, k), nf = (size_t)(k * n);
    float *x = peer_read_exact(in, nf * 4), *imatrix = NULL, *y = malloc(nf * 4);
    uint8_t *q = malloc(rb * (size_t)n);
    int rc = 1;
    if (!x || !y || !q)
        goto done;
    if (ggml_quantize_requires_imatrix(type)) {
        if (!(imatrix = malloc((size_t)k * 4)))
            goto done;
        for (int64_t i = 0; i < k; i++)
            imatrix[i] = 1.0f;
    }
    ggml_quantize_chunk(type, x, q, 0, n, k, imatrix);
    ggml_get_type_traits(type)->to_float(q, y, (int64_t)nf);
    rc = peer_write_exact(out, q, rb * (size_t)n) || peer_write_exact(deq, y, nf * 4);
done:
    free(x), free(imatrix), free(y), free(q);
    return rc;
}

static int usage(void) {
    fprintf(stderr,
            "usage: ggml_mul_mat info\n"
            "       ggml_mul_mat bench TYPE [--k K] [--n N] [--m M] [--threads T] [--llc BYTES] [--time X] [--no-repack]\n"
            "       ggml_mul_mat accuracy TYPE K N M W.bin X.bin Y.bin [--threads T] [--no-repack]\n"
            "       ggml_mul_mat accuracy-batch LIST [--threads T] [--no-repack]\n"
            "       ggml_mul_mat quantize TYPE K N IN.f32 OUT.bin DEQ.f32\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    int64_t k = 4096, n = 4096, m = 512;
    int threads = 2, no_repack = 0;
    size_t llc = 0;
    double tscale = 1.0;
    const char *pos[8];
    int npos = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-repack"))
            no_repack = 1;
        else if (v && !strcmp(a, "--k"))
            k = atoll(v), i++;
        else if (v && !strcmp(a, "--n"))
            n = atoll(v), i++;
        else if (v && !strcmp(a, "--m"))
            m = atoll(v), i++;
        else if (v && !strcmp(a, "--threads"))
            threads = atoi(v), i++;
        else if (v && !strcmp(a, "--llc"))
            llc = (size_t)atoll(v), i++;
        else if (v && !strcmp(a, "--time"))
            tscale = atof(v), i++;
        else if (a[0] == '-' && a[1] == '-')
            return usage();
        else if (npos < 8)
            pos[npos++] = a;
        else
            return usage();
    }
    if (threads < 1 || k < 1 || n < 1 || m < 1 || tscale <= 0)
        return usage();
    peer P;
    if (peer_init(&P, threads, no_repack))
        return 1;
    int rc;
    enum ggml_type type = GGML_TYPE_F32;
    if (!strcmp(cmd, "info")) {
        printf("{\"ggml_version\": \"%s\", \"cpu_variant\": \"%s\", \"loaded_from\": \"%s\", \"device\": \"%s\", "
               "\"extra_buffer\": \"%s\", \"types\": [",
               ggml_version(), peer_variant_name(), peer_loaded_from, ggml_backend_dev_description(P.dev),
               P.extra[0] ? ggml_backend_buft_name(P.extra[0]) : "");
        const char *sep = "";
        for (int i = 0; i < GGML_TYPE_COUNT; i++) {
            const struct ggml_type_traits *tr = ggml_get_type_traits((enum ggml_type)i);
            if (tr && tr->type_name && tr->blck_size > 0) {
                printf("%s\"%s\"", sep, tr->type_name);
                sep = ", ";
            }
        }
        printf("]}\n");
        rc = 0;
    } else if (!strcmp(cmd, "accuracy-batch") && npos == 1) {
        rc = cmd_accuracy_batch(&P, pos[0]);
    } else if (npos >= 1 && !peer_parse_type(pos[0], &type)) {
        fprintf(stderr, "ggml_mul_mat: ggml %s has no type '%s'\n", ggml_version(), pos[0]);
        rc = 1;
    } else if (!strcmp(cmd, "bench") && npos == 1) {
        rc = cmd_bench(&P, type, k, n, m, llc ? llc : peer_detect_llc(), tscale);
    } else if (!strcmp(cmd, "quantize") && npos == 6) {
        rc = cmd_quantize(type, atoll(pos[1]), atoll(pos[2]), pos[3], pos[4], pos[5]);
    } else if (!strcmp(cmd, "accuracy") && npos == 7) {
        rc = cmd_accuracy(&P, type, atoll(pos[1]), atoll(pos[2]), atoll(pos[3]), pos[4], pos[5], pos[6]);
    } else {
        rc = usage();
    }
    peer_free(&P);
    return rc;
}
