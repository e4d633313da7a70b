/* The ggml peer: ggml's CPU back end doing MUL_MAT as a ggml user gets it, for
 * side-by-side timings with `qmatmul bench` and for accuracy checks. Our own
 * code against ggml's public headers; built inside the trixie root of
 * scripts/setup-ggml-peer.sh (see scripts/bench-vs-ggml.sh, scripts/test-peer.sh).
 *
 *   ggml_mul_mat info
 *   ggml_mul_mat bench TYPE [--k K] [--n N] [--m M] [--threads T] [--llc BYTES] [--time X] [--no-repack]
 *   ggml_mul_mat accuracy TYPE K N M W.bin X.bin Y.bin [--threads T] [--no-repack]
 *   ggml_mul_mat accuracy-batch LIST [--threads T] [--no-repack]   (LIST: one "TYPE K N M W X Y" a line)
 *
 * The CPU back end is loaded as llama.cpp loads it: ggml_backend_load_all()
 * (Debian builds ggml with GGML_BACKEND_DL: it picks the best libggml-cpu-*.so
 * variant for this CPU), a persistent thread pool, and weights in the CPU's
 * extra buffer type (the repacked layouts, "CPU_REPACK") when it supports the
 * MUL_MAT, else in the plain CPU buffer; --no-repack: always the plain one.
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
 * Y.bin gets ggml's MUL_MAT result, m x n f32 (row i = output of activation row i). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

typedef struct peer {
    ggml_backend_dev_t dev;
    ggml_backend_t backend;
    ggml_threadpool_t pool;
    void (*pool_free)(ggml_threadpool_t);
    ggml_backend_buffer_type_t repack; /* the first extra buffer type, NULL if none */
    int threads, no_repack;
} peer;

static char loaded_from[512] = "";
static int verbose = 0;

/* ggml logs through here: keep the path of the CPU variant it loaded, show
 * warnings and errors (and everything with PEER_VERBOSE=1). */
static void on_log(enum ggml_log_level level, const char *text, void *user) {
    (void)user;
    const char *p = strstr(text, "loaded CPU backend from ");
    if (p) {
        snprintf(loaded_from, sizeof loaded_from, "%s", p + strlen("loaded CPU backend from "));
        loaded_from[strcspn(loaded_from, "\n")] = 0;
    }
    if (verbose || level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR)
        fputs(text, stderr);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_type(const char *s, enum ggml_type *t) {
    for (int i = 0; i < GGML_TYPE_COUNT; i++) {
        const struct ggml_type_traits *tr = ggml_get_type_traits((enum ggml_type)i);
        if (tr && tr->type_name && tr->blck_size > 0 && strcasecmp(s, tr->type_name) == 0) {
            *t = (enum ggml_type)i;
            return 1;
        }
    }
    return 0;
}

static const char *variant_name(void) {
    const char *base = strrchr(loaded_from, '/');
    return base ? base + 1 : loaded_from[0] ? loaded_from : "unknown";
}

static int peer_init(peer *P, int threads, int no_repack) {
    memset(P, 0, sizeof *P);
    P->threads = threads;
    P->no_repack = no_repack;
    ggml_log_set(on_log, NULL);
    ggml_backend_load_all();
    P->dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!P->dev) {
        fprintf(stderr, "ggml_mul_mat: ggml has no CPU device (no libggml-cpu variant loaded)\n");
        return 1;
    }
    P->backend = ggml_backend_dev_init(P->dev, NULL);
    if (!P->backend) {
        fprintf(stderr, "ggml_mul_mat: cannot start the CPU back end\n");
        return 1;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(P->dev);
    /* the entry points of the loaded variant, as a GGML_BACKEND_DL user reaches them */
    ggml_threadpool_t (*pool_new)(struct ggml_threadpool_params *) =
        (ggml_threadpool_t(*)(struct ggml_threadpool_params *))ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_new");
    void (*set_pool)(ggml_backend_t, ggml_threadpool_t) =
        (void (*)(ggml_backend_t, ggml_threadpool_t))ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_set_threadpool");
    ggml_backend_set_n_threads_t set_n =
        (ggml_backend_set_n_threads_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    P->pool_free = (void (*)(ggml_threadpool_t))ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_free");
    if (set_n)
        set_n(P->backend, threads);
    if (pool_new && set_pool) {
        struct ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
        P->pool = pool_new(&tp);
        if (P->pool)
            set_pool(P->backend, P->pool);
    }
    ggml_backend_dev_get_extra_bufts_t extra =
        (ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts");
    if (extra && !no_repack) {
        ggml_backend_buffer_type_t *b = extra(P->dev);
        if (b && b[0])
            P->repack = b[0];
    }
    return 0;
}

static void peer_free(peer *P) {
    if (P->backend)
        ggml_backend_free(P->backend);
    if (P->pool && P->pool_free)
        P->pool_free(P->pool);
}

/* The buffer type W of (type, k, n) goes in: the extra (repack) one when the
 * device runs MUL_MAT with W in it (llama.cpp's test), else the CPU's own. */
static ggml_backend_buffer_type_t weight_buft(peer *P, enum ggml_type type, int64_t k, int64_t n, int64_t m) {
    ggml_backend_buffer_type_t plain = ggml_backend_dev_buffer_type(P->dev);
    if (!P->repack)
        return plain;
    struct ggml_init_params ip = {ggml_tensor_overhead() * 4, NULL, true};
    struct ggml_context *c = ggml_init(ip);
    struct ggml_tensor *w = ggml_new_tensor_2d(c, type, k, n);
    struct ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, k, m);
    struct ggml_tensor *op = ggml_mul_mat(c, w, x);
    ggml_backend_buffer_t dummy = ggml_backend_buft_alloc_buffer(P->repack, 0);
    w->buffer = dummy;
    const int ok = dummy && ggml_backend_dev_supports_op(P->dev, op);
    if (dummy)
        ggml_backend_buffer_free(dummy);
    ggml_free(c);
    return ok ? P->repack : plain;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_row(const peer *P, enum ggml_type type, const char *phase, int64_t m, int64_t n, int64_t k, const char *buft,
                      int copies, double rotation, double wbytes, double *s, int ns) {
    qsort(s, (size_t)ns, sizeof *s, cmp_double);
    const double med = ns % 2 ? s[ns / 2] : 0.5 * (s[ns / 2 - 1] + s[ns / 2]);
    const int dec = m == 1;
    const double rate = dec ? wbytes / med * 1e-9 : 2.0 * (double)m * (double)n * (double)k / med * 1e-9;
    printf("{\"peer\": \"ggml\", \"ggml_version\": \"%s\", \"cpu_variant\": \"%s\", \"type\": \"%s\", \"phase\": \"%s\", "
           "\"m\": %lld, \"n\": %lld, \"k\": %lld, \"threads\": %d, \"weight_buffer\": \"%s\", \"copies\": %d, "
           "\"rotation_bytes\": %.0f, \"weight_bytes\": %.0f, \"seconds\": {\"median\": %.9f, \"min\": %.9f, \"max\": %.9f, "
           "\"n\": %d}, \"rate\": %.4f, \"rate_unit\": \"%s\"}\n",
           ggml_version(), variant_name(), ggml_type_name(type), phase, (long long)m, (long long)n, (long long)k, P->threads,
           buft, copies, rotation, wbytes, med, s[0], s[ns - 1], ns, rate, dec ? "GB/s" : "GOP/s");
    fflush(stdout);
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static float rngf(void) { /* uniform in [-1, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 40) * 0x1p-24 * 2.0 - 1.0);
}

/* W's bytes: ggml's quantization of random floats for the first rows, tiled
 * over all n rows (the kernels' time does not depend on the values). */
static void *make_weights(enum ggml_type type, int64_t k, int64_t n, size_t *size) {
    const size_t rb = ggml_row_size(type, k);
    const int64_t rows = n < 64 ? n : 64;
    float *f = malloc(sizeof(float) * (size_t)(k * rows));
    uint8_t *q = malloc(rb * (size_t)n);
    if (!f || !q) {
        free(f);
        free(q);
        return NULL;
    }
    for (int64_t i = 0; i < k * rows; i++)
        f[i] = rngf();
    ggml_quantize_chunk(type, f, q, 0, rows, k, NULL);
    for (int64_t r = rows; r < n; r++)
        memcpy(q + rb * (size_t)r, q + rb * (size_t)(r % rows), rb);
    free(f);
    *size = rb * (size_t)n;
    return q;
}

static size_t detect_llc(void) {
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        if (fgets(buf, sizeof buf, fp)) {
            char *end;
            size_t v = strtoull(buf, &end, 10);
            if (*end == 'K')
                v <<= 10;
            else if (*end == 'M')
                v <<= 20;
            if (v > best)
                best = v;
        }
        fclose(fp);
    }
    return best ? best : (size_t)32 << 20;
}

static int cmd_bench(peer *P, enum ggml_type type, int64_t k, int64_t n, int64_t m_pre, size_t llc, double tscale) {
    size_t wsize;
    void *src = make_weights(type, k, n, &wsize);
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
        xv[i] = rngf();
    ggml_backend_tensor_set(x1, xv, 0, sizeof(float) * (size_t)k);
    ggml_backend_tensor_set(xp, xv, 0, sizeof(float) * (size_t)(k * m_pre));
    free(xv);

    /* decode: a warm-up pass timed to choose the passes, then every call a sample */
    double t0 = now();
    for (int c = 0; c < copies; c++)
        ggml_backend_graph_compute(P->backend, G[c]);
    const double pass = now() - t0;
    int reps = pass > 0 ? (int)(8.0 * tscale / pass) : 10;
    if (reps * copies > 400)
        reps = 400 / copies;
    if (reps < 3)
        reps = 3;
    double *s = malloc(sizeof(double) * (size_t)(reps * copies + 16));
    int ns = 0;
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < copies; c++) {
            t0 = now();
            if (ggml_backend_graph_compute(P->backend, G[c]) != GGML_STATUS_SUCCESS) {
                fprintf(stderr, "ggml_mul_mat: graph compute failed\n");
                return 1;
            }
            s[ns++] = now() - t0;
        }
    const double wbytes = (double)ggml_nbytes(W[0]);
    print_row(P, type, "decode", 1, n, k, ggml_backend_buft_name(buft), copies, wbytes * copies, wbytes, s, ns);

    /* prefill: a warm-up call, then up to 15 calls within the budget */
    t0 = now();
    ggml_backend_graph_compute(P->backend, G[copies]);
    const double call = now() - t0;
    int preps = call > 0 ? (int)(3.0 * tscale / call) : 15;
    preps = preps > 15 ? 15 : preps < 3 ? 3 : preps;
    ns = 0;
    for (int r = 0; r < preps; r++) {
        t0 = now();
        ggml_backend_graph_compute(P->backend, G[copies]);
        s[ns++] = now() - t0;
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

static void *read_file(const char *path, size_t want) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ggml_mul_mat: cannot open %s\n", path);
        return NULL;
    }
    void *p = malloc(want ? want : 1);
    const size_t got = p ? fread(p, 1, want, f) : 0;
    const int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != want || extra) {
        fprintf(stderr, "ggml_mul_mat: %s: expected exactly %zu bytes\n", path, want);
        free(p);
        return NULL;
    }
    return p;
}

static int cmd_accuracy(peer *P, enum ggml_type type, int64_t k, int64_t n, int64_t m, const char *wpath, const char *xpath,
                        const char *ypath) {
    if (k % ggml_blck_size(type)) {
        fprintf(stderr, "ggml_mul_mat: k = %lld is not a multiple of %s's block of %lld\n", (long long)k, ggml_type_name(type),
                (long long)ggml_blck_size(type));
        return 1;
    }
    const size_t wsize = ggml_row_size(type, k) * (size_t)n;
    void *wv = read_file(wpath, wsize);
    float *xv = read_file(xpath, sizeof(float) * (size_t)(k * m));
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
    FILE *f = fopen(ypath, "wb");
    const int ok = f && fwrite(yv, sizeof(float), (size_t)(n * m), f) == (size_t)(n * m);
    if (f)
        fclose(f);
    if (!ok)
        fprintf(stderr, "ggml_mul_mat: cannot write %s\n", ypath);
    else
        printf(
            "{\"peer\": \"ggml\", \"ggml_version\": \"%s\", \"cpu_variant\": \"%s\", \"type\": \"%s\", \"k\": %lld, \"n\": %lld, "
            "\"m\": %lld, \"threads\": %d, \"weight_buffer\": \"%s\"}\n",
            ggml_version(), variant_name(), ggml_type_name(type), (long long)k, (long long)n, (long long)m, P->threads,
            ggml_backend_buft_name(buft));
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
    while (rc == 0 && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
            continue;
        enum ggml_type type;
        if (sscanf(line, "%31s %lld %lld %lld %1023s %1023s %1023s", tname, &k, &n, &m, wp, xp, yp) != 7 ||
            !parse_type(tname, &type) || k < 1 || n < 1 || m < 1) {
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

static int usage(void) {
    fprintf(stderr,
            "usage: ggml_mul_mat info\n"
            "       ggml_mul_mat bench TYPE [--k K] [--n N] [--m M] [--threads T] [--llc BYTES] [--time X] [--no-repack]\n"
            "       ggml_mul_mat accuracy TYPE K N M W.bin X.bin Y.bin [--threads T] [--no-repack]\n"
            "       ggml_mul_mat accuracy-batch LIST [--threads T] [--no-repack]\n");
    return 2;
}

int main(int argc, char **argv) {
    verbose = getenv("PEER_VERBOSE") && atoi(getenv("PEER_VERBOSE"));
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
               ggml_version(), variant_name(), loaded_from, ggml_backend_dev_description(P.dev),
               P.repack ? ggml_backend_buft_name(P.repack) : "");
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
    } else if (npos >= 1 && !parse_type(pos[0], &type)) {
        fprintf(stderr, "ggml_mul_mat: ggml %s has no type '%s'\n", ggml_version(), pos[0]);
        rc = 1;
    } else if (!strcmp(cmd, "bench") && npos == 1) {
        rc = cmd_bench(&P, type, k, n, m, llc ? llc : detect_llc(), tscale);
    } else if (!strcmp(cmd, "accuracy") && npos == 7) {
        rc = cmd_accuracy(&P, type, atoll(pos[1]), atoll(pos[2]), atoll(pos[3]), pos[4], pos[5], pos[6]);
    } else {
        rc = usage();
    }
    peer_free(&P);
    return rc;
}
