/* End to end: qmm_mul_mat (and the F16 path, GET_ROWS) through contexts of
 * every thread count, chunk multiplier, cap and hybrid split, against the
 * single-threaded reference family, bit for bit. Also the bring-your-own-
 * pool entry point with a pool written here, and a stress run. */
#include <time.h>

#include <unistd.h>

#include "base/error.h"
#include "formats/formats.h"
#include "qmatmul.h"
#include "test_pool.h"
#include "test_util.h"
#include "test_weights.h"

static uint64_t seed = 777;

/* The first four get shape sweeps; the rest one problem each (random valid
 * blocks: they have no quantizer, or need none). */
static const qmm_type types[] = {QMM_TYPE_Q4_0,   QMM_TYPE_Q8_0,   QMM_TYPE_F32,   QMM_TYPE_F16,  QMM_TYPE_Q4_1, QMM_TYPE_Q5_0,
                                 QMM_TYPE_Q5_1,   QMM_TYPE_Q2_K,   QMM_TYPE_Q3_K,  QMM_TYPE_Q4_K, QMM_TYPE_Q5_K, QMM_TYPE_Q6_K,
                                 QMM_TYPE_IQ4_NL, QMM_TYPE_IQ4_XS, QMM_TYPE_MXFP4, QMM_TYPE_BF16};
static const char *ref_names[] = {"ref_q4_0",   "ref_q8_0",   "ref_f32",   "ref_f16",  "ref_q4_1", "ref_q5_0",
                                  "ref_q5_1",   "ref_q2_k",   "ref_q3_k",  "ref_q4_k", "ref_q5_k", "ref_q6_k",
                                  "ref_iq4_nl", "ref_iq4_xs", "ref_mxfp4", "ref_bf16"};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

typedef struct problem {
    qmm_type type;
    int64_t k, n, m, b2, b3;
    void *wsrc;
    size_t wsize;
    float *xbuf;
    qmm_tensor x;
    size_t ybytes;
    float *expect; /* y of the reference, padded layout below */
} problem;

/* y rows padded by 5 floats, batches by 64 bytes: outputs with strides. */
static void y_view(const problem *p, float *buf, qmm_tensor *y) {
    memset(y, 0, sizeof *y);
    y->type = QMM_TYPE_F32;
    y->ne[0] = p->n, y->ne[1] = p->m, y->ne[2] = p->b2, y->ne[3] = p->b3;
    y->nb[0] = 4;
    y->nb[1] = (size_t)(p->n + 5) * 4;
    y->nb[2] = y->nb[1] * (size_t)p->m + 64;
    y->nb[3] = y->nb[2] * (size_t)p->b2;
    y->data = buf;
}

static void make_problem(problem *p, qmm_type t, int64_t k, int64_t n, int64_t m, int64_t b2, int64_t b3) {
    memset(p, 0, sizeof *p);
    p->type = t, p->k = k, p->n = n, p->m = m, p->b2 = b2, p->b3 = b3;
    float *f = malloc((size_t)(k * n) * 4);
    for (int64_t i = 0; i < k * n; i++)
        f[i] = qmm_test_rand_f(&seed) * ((i / k) % 3 == 0 ? 10.0f : 1.0f);
    p->wsize = qmm_row_size(t, k) * (size_t)n;
    p->wsrc = malloc(p->wsize);
    if (t == QMM_TYPE_F32)
        memcpy(p->wsrc, f, p->wsize);
    else if (t == QMM_TYPE_F16 || t == QMM_TYPE_Q4_0 || t == QMM_TYPE_Q8_0)
        qmm_quantize(t, f, p->wsrc, n, k);
    else
        qmm_test_random_blocks(t, k, n, p->wsrc, 1, &seed);
    free(f);
    /* x with padded rows and a permuted batch layout (b3 inner) */
    const int64_t row = k + 3;
    p->xbuf = malloc((size_t)(row * m * b2 * b3 + 8) * 4);
    for (int64_t i = 0; i < row * m * b2 * b3 + 8; i++)
        p->xbuf[i] = qmm_test_rand_f(&seed);
    p->x.type = QMM_TYPE_F32;
    p->x.ne[0] = k, p->x.ne[1] = m, p->x.ne[2] = b2, p->x.ne[3] = b3;
    p->x.nb[0] = 4;
    p->x.nb[1] = (size_t)row * 4;
    p->x.nb[3] = p->x.nb[1] * (size_t)m;
    p->x.nb[2] = p->x.nb[3] * (size_t)b3;
    p->x.data = p->xbuf;
    qmm_tensor y;
    y_view(p, NULL, &y);
    p->ybytes = y.nb[3] * (size_t)b3;
}

static void free_problem(problem *p) {
    free(p->wsrc);
    free(p->xbuf);
    free(p->expect);
}

static int type_index(qmm_type t) {
    for (int i = 0; i < NTYPES; i++)
        if (types[i] == t)
            return i;
    return 0;
}

/* Runs p on ctx; returns a malloc'ed y buffer, sentinel-filled outside y. */
static float *run(qmm_context *ctx, const problem *p, const char **kernel_out) {
    qmm_weights *w = NULL;
    qmm_status st = qmm_weights_pack(ctx, p->type, p->k, p->n, p->wsrc, p->wsize, &w);
    CHECK(st == QMM_OK, "pack: %s", qmm_last_error());
    if (st)
        return NULL;
    float *buf = qmm_test_alloc(p->ybytes);
    memset(buf, 0xff, p->ybytes);
    qmm_tensor y;
    y_view(p, buf, &y);
    st = qmm_mul_mat(ctx, w, &p->x, &y);
    CHECK(st == QMM_OK, "mul_mat: %s", qmm_last_error());
    if (kernel_out)
        *kernel_out = qmm_weights_kernel(w);
    qmm_weights_free(w);
    return buf;
}

static qmm_context *make_ctx(int nth, int mult, int cap, const char *kernel) {
    qmm_options o;
    memset(&o, 0, sizeof o);
    o.n_threads = nth;
    o.chunk_multiplier = mult;
    o.thread_cap = cap;
    o.flags = QMM_IGNORE_ENV | (cap ? QMM_CAP_ALL_PRIMARIES : 0);
    o.kernel = kernel;
    qmm_context *ctx = NULL;
    qmm_status st = qmm_context_create(&o, &ctx);
    CHECK(st == QMM_OK, "context(nth=%d mult=%d cap=%d kernel=%s): %s", nth, mult, cap, kernel ? kernel : "auto",
          qmm_last_error());
    return ctx;
}

static void compute_expected(problem *p) {
    qmm_context *ref = make_ctx(1, 1, 0, ref_names[type_index(p->type)]);
    p->expect = run(ref, p, NULL);
    qmm_context_free(ref);
}

static long compare(const problem *p, const float *got) { return got ? (long)(memcmp(got, p->expect, p->ybytes) != 0) : 1; }

#define NPROB 30
static problem probs[NPROB];
static int nprob;

static void setup(void) {
    /* odd shapes: n and m not multiples of anything, batches */
    static const int64_t shapes[][5] = {
        {64, 17, 1, 1, 1}, {96, 77, 3, 1, 1}, {256, 130, 2, 2, 1}, {32, 3, 17, 1, 2}, {160, 250, 5, 1, 1}, {128, 1, 130, 1, 1},
    };
    for (int t = 0; t < 4; t++)
        for (int s = 0; s < 6; s += 1 + (t % 2)) {
            if (nprob >= NPROB - 16) /* sixteen more below */
                break;
            make_problem(&probs[nprob], types[t], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], shapes[s][4]);
            compute_expected(&probs[nprob]);
            nprob++;
        }
    /* large enough for a hybrid split (m >= 128, >= 2 columns per thread) */
    make_problem(&probs[nprob], QMM_TYPE_Q4_0, 64, 77, 130, 1, 1);
    compute_expected(&probs[nprob++]);
    make_problem(&probs[nprob], QMM_TYPE_F16, 96, 40, 128, 2, 1);
    compute_expected(&probs[nprob++]);
    /* the other types, small: k a multiple of 256 for K-quants and IQ4_XS;
     * gpt-oss's k = 2880 for IQ4_NL, MXFP4 and BF16 */
    static const int64_t more[][5] = {
        {64, 33, 17, 1, 2}, {96, 130, 2, 1, 1}, {160, 19, 3, 1, 1},  {256, 40, 6, 1, 1}, {512, 17, 5, 2, 1},  {256, 77, 3, 1, 1},
        {256, 9, 7, 1, 1},  {512, 31, 4, 1, 1}, {2880, 33, 3, 1, 1}, {512, 21, 5, 1, 1}, {2880, 40, 4, 1, 1}, {2880, 19, 5, 2, 1},
    };
    for (int t = 4; t < NTYPES && nprob < NPROB - 4; t++) {
        const int64_t *sh = more[t - 4];
        make_problem(&probs[nprob], types[t], sh[0], sh[1], sh[2], sh[3], sh[4]);
        compute_expected(&probs[nprob++]);
    }
    /* hybrid splits of a type with a min (activations with sums) and of a K-quant (per-16 sub-scales) */
    make_problem(&probs[nprob], QMM_TYPE_Q5_1, 96, 40, 130, 1, 1);
    compute_expected(&probs[nprob++]);
    make_problem(&probs[nprob], QMM_TYPE_Q6_K, 256, 24, 129, 1, 1);
    compute_expected(&probs[nprob++]);
    /* several row blocks of 128 in each of two batches: the work items of a GEMM are (chunk, batch, row block) */
    make_problem(&probs[nprob], QMM_TYPE_F32, 64, 40, 300, 2, 1);
    compute_expected(&probs[nprob++]);
    make_problem(&probs[nprob], QMM_TYPE_Q8_0, 64, 33, 260, 1, 2);
    compute_expected(&probs[nprob++]);
}

static void sweep_threads(void) {
    long bad = 0, runs = 0;
    /* QMM_TEST_SHAPES=vl (the emulated Arm settings that repeat `max`'s
     * families at other vector lengths): 5 of the 17 thread counts, every
     * multiplier, and not the many-thread runs below: the pool and chunking
     * code is the same at every length, and `max` runs all of it */
    static const int vl_threads[] = {1, 2, 3, 5, 8};
    const int vl = qmm_test_vl_shapes();
    for (int nth = 1; nth <= 17; nth++)
        for (int mult = 1; mult <= 8; mult++) {
            int listed = !vl;
            for (int j = 0; j < 5 && !listed; j++)
                listed = nth == vl_threads[j];
            if (!listed)
                continue;
            qmm_context *ctx = make_ctx(nth, mult, 0, NULL);
            if (!ctx)
                continue;
            for (int i = 0; i < nprob; i++) {
                if ((i + mult + nth) % 3 != 0 && mult != 4)
                    continue; /* every problem at the default multiplier, a third at the others */
                float *y = run(ctx, &probs[i], NULL);
                long b = compare(&probs[i], y);
                if (b)
                    fprintf(stderr, "  differs: nth=%d mult=%d problem %d (%s)\n", nth, mult, i, qmm_type_name(probs[i].type));
                bad += b;
                runs++;
                free(y);
            }
            qmm_context_free(ctx);
        }
    CHECK(bad == 0, "%ld of %ld runs differ from the reference across threads 1..17%s x multipliers 1..8", bad, runs,
          vl ? " (5 of them)" : "");
    /* many threads on small shapes */
    static const int big[] = {64, 200, 512};
    for (int b = 0; b < 3 && !vl; b++) {
        qmm_context *ctx = make_ctx(big[b], 4, 0, NULL);
        for (int i = 0; ctx && i < nprob; i++) {
            float *y = run(ctx, &probs[i], NULL);
            CHECK(compare(&probs[i], y) == 0, "nth=%d problem %d differs", big[b], i);
            free(y);
        }
        qmm_context_free(ctx);
    }
}

/* Caps 1..nth on every chain primary: hybrid runs when a chain has a
 * fallback and the work is large enough (m >= 128), single family else. */
static void sweep_caps(void) {
    long bad = 0, runs = 0, hybrid_chains = 0;
    /* the debug log names both families of a hybrid run: count them */
    char logpath[] = "/tmp/qmm_test_caps_XXXXXX";
    const int logfd = mkstemp(logpath);
    fflush(stderr);
    const int saved = dup(2);
    dup2(logfd, 2);
    const int level = qmm_log_level();
    qmm_log_set_level(QMM_LOG_DEBUG);
    for (int nth = 1; nth <= 6; nth++)
        for (int cap = 0; cap <= nth; cap++) {
            qmm_options o;
            memset(&o, 0, sizeof o);
            o.n_threads = nth;
            o.thread_cap = cap;
            o.pack_threads = nth + 1; /* always write the fallback slot */
            o.flags = QMM_IGNORE_ENV | QMM_CAP_ALL_PRIMARIES;
            qmm_context *ctx = NULL;
            if (qmm_context_create(&o, &ctx) != QMM_OK)
                continue;
            for (int i = 0; i < nprob; i++) {
                qmm_weights *w = NULL;
                if (qmm_weights_pack(ctx, probs[i].type, probs[i].k, probs[i].n, probs[i].wsrc, probs[i].wsize, &w) != QMM_OK)
                    continue;
                hybrid_chains += qmm_weights_slot_count(w) == 2;
                qmm_weights_free(w);
                float *y = run(ctx, &probs[i], NULL);
                bad += compare(&probs[i], y);
                runs++;
                free(y);
            }
            qmm_context_free(ctx);
        }
    qmm_log_set_level(level);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fdopen(logfd, "r");
    rewind(f);
    char line[512];
    long hybrid_runs = 0;
    while (fgets(line, sizeof line, f))
        hybrid_runs += strstr(line, "mul_mat") && strstr(line, "(hybrid)");
    fclose(f);
    unlink(logpath);
    CHECK(bad == 0, "%ld of %ld capped / hybrid runs differ from the reference", bad, runs);
    printf("caps: %ld runs, %ld with a fallback slot, %ld hybrid runs\n", runs, hybrid_chains, hybrid_runs);
#if !defined(QMM_PORTABLE_ONLY)
    CHECK(hybrid_runs > 0, "no run split its threads between a capped primary and its fallback");
#endif
}

/* ------------------------------------------- bring your own thread pool */

typedef struct byo_job {
    qmm_context *ctx;
    const qmm_weights *w; /* MUL_MAT */
    const qmm_tensor *wt; /* the F16 path */
    const qmm_tensor *x, *y;
    void *work;
    size_t wsize;
} byo_job;

static qmm_status byo_mul_mat(void *arg, int ith, int nth, const qmm_sync *sync) {
    const byo_job *j = arg;
    return qmm_mul_mat_compute(j->ctx, j->w, j->x, j->y, ith, nth, j->work, j->wsize, sync);
}

static void byo_pool(void) {
    qmm_context *ctx = make_ctx(1, 4, 0, NULL);
    for (int nth = 1; nth <= 5; nth++)
        for (int i = 0; i < nprob; i++) {
            problem *p = &probs[i];
            qmm_weights *w = NULL;
            CHECK_OK(qmm_weights_pack(ctx, p->type, p->k, p->n, p->wsrc, p->wsize, &w));
            float *buf = qmm_test_alloc(p->ybytes);
            memset(buf, 0xff, p->ybytes);
            qmm_tensor y;
            y_view(p, buf, &y);
            size_t ws = 0;
            CHECK_OK(qmm_mul_mat_work_size(ctx, w, &p->x, &y, nth, &ws));
            void *work = qmm_test_alloc(ws);
            byo_job job = {.ctx = ctx, .w = w, .x = &p->x, .y = &y, .work = work, .wsize = ws};
            int failed = 0;
            const qmm_status st = qmm_test_pool_run(nth, byo_mul_mat, &job, &failed);
            CHECK(st == QMM_OK, "byo nth=%d problem %d thread %d: %s", nth, i, failed, qmm_status_str(st));
            CHECK(memcmp(buf, p->expect, p->ybytes) == 0, "byo pool nth=%d problem %d differs", nth, i);
            /* a work buffer one byte short is refused by every thread */
            if (ws > 64) {
                job.wsize = ws - 1;
                CHECK(qmm_test_pool_run(nth, byo_mul_mat, &job, NULL) == QMM_ERR_INVALID_ARG, "short work buffer accepted");
            }
            free(work);
            free(buf);
            qmm_weights_free(w);
        }
    qmm_context_free(ctx);
}

static void stress(void) {
    qmm_context *ctx = make_ctx(4, 4, 0, NULL);
    problem *p = &probs[0];
    qmm_weights *w = NULL;
    CHECK_OK(qmm_weights_pack(ctx, p->type, p->k, p->n, p->wsrc, p->wsize, &w));
    float *buf = qmm_test_alloc(p->ybytes);
    qmm_tensor y;
    y_view(p, buf, &y);
    long bad = 0;
    for (int it = 0; it < 3000; it++) {
        memset(buf, 0xff, p->ybytes);
        if (qmm_mul_mat(ctx, w, &p->x, &y) != QMM_OK || memcmp(buf, p->expect, p->ybytes) != 0)
            bad++;
    }
    CHECK(bad == 0, "stress: %ld of 3000 calls differ", bad);
    free(buf);
    qmm_weights_free(w);
    qmm_context_free(ctx);
}

/* ------------------------------------------------------------ F16 path */

static void f16_path(void) {
    static const int64_t cases[][7] = {
        /* k, n, m, b2, b3, bw2, bw3 */
        {64, 33, 1, 8, 1, 2, 1},
        {128, 70, 3, 4, 2, 1, 2},
        {32, 5, 7, 1, 1, 1, 1},
    };
    qmm_context *ref = make_ctx(1, 1, 0, "ref_f16");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t k = cases[c][0], n = cases[c][1], m = cases[c][2], b2 = cases[c][3], b3 = cases[c][4], bw2 = cases[c][5],
                      bw3 = cases[c][6];
        /* w with padded rows */
        const int64_t wrow = k + 8;
        uint16_t *wb = malloc((size_t)(wrow * n * bw2 * bw3) * 2);
        for (int64_t i = 0; i < wrow * n * bw2 * bw3; i++)
            wb[i] = qmm_fp32_to_fp16(qmm_test_rand_f(&seed));
        qmm_tensor w = {.type = QMM_TYPE_F16,
                        .ne = {k, n, bw2, bw3},
                        .nb = {2, (size_t)wrow * 2, (size_t)(wrow * n) * 2, (size_t)(wrow * n * bw2) * 2},
                        .data = wb};
        float *xb = malloc((size_t)(k * m * b2 * b3) * 4);
        for (int64_t i = 0; i < k * m * b2 * b3; i++)
            xb[i] = qmm_test_rand_f(&seed);
        qmm_tensor x;
        const int64_t xne[4] = {k, m, b2, b3};
        qmm_tensor_init(&x, QMM_TYPE_F32, 4, xne, xb);
        const int64_t yne[4] = {n, m, b2, b3};
        float *expect = calloc((size_t)(n * m * b2 * b3), 4);
        /* expected: per batch, pack the broadcast weight slice with the reference */
        for (int64_t i3 = 0; i3 < b3; i3++)
            for (int64_t i2 = 0; i2 < b2; i2++) {
                const uint16_t *ws =
                    (const uint16_t *)((char *)wb + (size_t)(i2 / (b2 / bw2)) * w.nb[2] + (size_t)(i3 / (b3 / bw3)) * w.nb[3]);
                uint16_t *dense = malloc((size_t)(k * n) * 2);
                for (int64_t r = 0; r < n; r++)
                    memcpy(dense + r * k, ws + r * wrow, (size_t)k * 2);
                qmm_weights *pw;
                CHECK_OK(qmm_weights_pack(ref, QMM_TYPE_F16, k, n, dense, (size_t)(k * n) * 2, &pw));
                const int64_t xs[2] = {k, m}, ys[2] = {n, m};
                qmm_tensor xv, yv;
                qmm_tensor_init(&xv, QMM_TYPE_F32, 2, xs, xb + (i3 * b2 + i2) * k * m);
                qmm_tensor_init(&yv, QMM_TYPE_F32, 2, ys, expect + (i3 * b2 + i2) * n * m);
                CHECK_OK(qmm_mul_mat(ref, pw, &xv, &yv));
                qmm_weights_free(pw);
                free(dense);
            }
        for (int nth = 1; nth <= 7; nth += 2) {
            qmm_context *ctx = make_ctx(nth, 4, 0, NULL);
            float *yb = malloc((size_t)(n * m * b2 * b3) * 4);
            memset(yb, 0xff, (size_t)(n * m * b2 * b3) * 4);
            qmm_tensor y;
            qmm_tensor_init(&y, QMM_TYPE_F32, 4, yne, yb);
            CHECK_OK(qmm_mul_mat_f16(ctx, &w, &x, &y));
            CHECK(memcmp(yb, expect, (size_t)(n * m * b2 * b3) * 4) == 0, "f16 path case %zu nth=%d differs", c, nth);
            free(yb);
            qmm_context_free(ctx);
        }
        free(expect);
        free(xb);
        free(wb);
    }
    qmm_context_free(ref);
}

static qmm_status byo_mul_mat_f16(void *arg, int ith, int nth, const qmm_sync *sync) {
    const byo_job *j = arg;
    return qmm_mul_mat_f16_compute(j->ctx, j->wt, j->x, j->y, ith, nth, j->work, j->wsize, sync);
}

/* qmm_mul_mat_f16_compute on a pool of this file's (3 threads): the local
 * way (no barrier) and the shared one alike. */
static void f16_byo(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y) {
    enum { NTH = 3 };
    size_t ws = 0;
    CHECK_OK(qmm_mul_mat_f16_work_size(ctx, w, x, y, NTH, &ws));
    byo_job job = {.ctx = ctx, .wt = w, .x = x, .y = y, .work = qmm_test_alloc(ws), .wsize = ws};
    int failed = 0;
    const qmm_status st = qmm_test_pool_run(NTH, byo_mul_mat_f16, &job, &failed);
    CHECK(st == QMM_OK, "f16 byo thread %d: %s", failed, qmm_status_str(st));
    free(job.work);
}

/* GQA grouping: the r2 r3 query heads of a KV head run as one GEMM of
 * m r2 r3 rows (decode: each thread packing its own slices; prefill: shared
 * packing), their rows gathered from strided x views and scattered back to
 * strided y views. Every y row bit for bit as the reference family's
 * qmm_mul_mat of that head alone, for m = 1..17 (groups of 1 to 136 rows:
 * both ways, one and two m blocks), every thread count 1..5 and chunk
 * multipliers 1 and 3, and a caller's pool of 3 threads; y padding
 * untouched. Dense views too (rows read and written in place), and the
 * direct decode kernel's edges: k = 1..5, 17, 31, 300 (rows too long for
 * two blocks at once), 611 and 1030 (rows copied in blocks), n off 16, groups of 1..16 rows. The other runnable
 * F16 families (AVX2 on an AVX-512 host) forced, on 1 and 3 threads. With
 * QMM_TEST_SHAPES=vl (tests/test_util.h) the thread counts are 1 and 3. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(QMM_PORTABLE_ONLY)
#include "kernels/x86/avx2_fp_widen.h"
#define F16_WIDEN_MODES 1
static void f16_force_widen(int mode) { qmm_avx2fp_force_widen_copy(mode); }
#else
#define F16_WIDEN_MODES 0
static void f16_force_widen(int mode) { (void)mode; }
#endif

/* One qmm_mul_mat_f16 call on ctx against the expected bytes; what says
 * which case and which context. */
static void f16_check_call(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, qmm_tensor *y, float *got,
                           const float *expect, size_t ybytes, long *calls, long *bad, const char *what) {
    memset(got, 0x7f, ybytes);
    y->data = got;
    CHECK_OK(qmm_mul_mat_f16(ctx, w, x, y));
    (*calls)++;
    if (memcmp(got, expect, ybytes) != 0 && (*bad)++ < 5)
        CHECK(0, "f16 grouping %s differs", what);
}

static void f16_grouping(void) {
    static const int64_t cases[][8] = {
        /* k, n, bw2, bw3, r2, r3, max m (, min m: 1 when left out) */
        {64, 33, 2, 1, 1, 1, 17},  /* no broadcast */
        {37, 50, 3, 1, 3, 1, 17},  /* SmolLM2's 9 / 3; k and n off the panel */
        {128, 70, 2, 1, 4, 1, 17}, /* Llama-3's 32 / 8 */
        {72, 45, 1, 1, 8, 1, 17},
        {40, 29, 2, 2, 2, 3, 9},       /* r3 > 1 */
        {200, 700, 1, 1, 4, 1, 3},     /* decode slices: several per chunk */
        {24, 160, 2, 1, 4, 1, 36},     /* prefill items of > 128 columns: rows packed per m block (g up to 144) */
        {27, 40, 1, 1, 16, 1, 33, 30}, /* groups of 480-528 rows: from 512 the weights widened once for an F32 sibling (x86) */
        /* the direct decode kernel (groups of at most 16 rows): k = 1..5 and
         * off its 16 l steps, n off its 16 rows, 1..16 rows in passes of 8 */
        {1, 19, 2, 1, 4, 1, 5},
        {2, 17, 1, 1, 3, 1, 6},
        {3, 40, 2, 1, 1, 1, 17},
        {4, 15, 1, 2, 8, 1, 3},
        {5, 33, 1, 1, 2, 2, 5},
        {17, 100, 2, 1, 4, 1, 5},
        {31, 16, 1, 1, 8, 1, 3},
        {48, 1, 2, 1, 4, 1, 4},
        {300, 40, 2, 1, 4, 1, 2}, /* long rows (PV's V^T): one block of 16 at a time, not two */
        {611, 37, 1, 1, 4, 1, 2}, /* rows >= 1 KiB apart: the AVX2 kernel's 32-l block copies, then 8-l steps and a tail */
        {1030, 16, 2, 1, 2, 1, 2},
    };
    static const int mults[] = {1, 3};
    const int vl = qmm_test_vl_shapes();
    qmm_context *ref = make_ctx(1, 1, 0, "ref_f16");
    qmm_context *ctxs[5][2];
    for (int t = 0; t < 5; t++)
        for (int u = 0; u < 2; u++)
            ctxs[t][u] = make_ctx(t + 1, mults[u], 0, NULL);
    /* the other runnable F16 families (the first is the one chosen above),
     * forced, on 1 and 3 threads: each has its own direct decode kernel */
    qmm_context *others[8][2];
    const char *other_names[8];
    int nothers = 0, seen_f16 = 0;
    for (int i = 0; i < qmm_family_count() && nothers < 8; i++) {
        qmm_family_desc d;
        CHECK_OK(qmm_family_info(i, &d));
        if (d.type != QMM_TYPE_F16 || d.is_reference || !d.runnable || seen_f16++ == 0)
            continue;
        other_names[nothers] = d.name;
        others[nothers][0] = make_ctx(1, 1, 0, d.name);
        others[nothers][1] = make_ctx(3, 1, 0, d.name);
        nothers++;
    }
    long bad = 0, calls = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t k = cases[c][0], n = cases[c][1], bw2 = cases[c][2], bw3 = cases[c][3];
        const int64_t b2 = bw2 * cases[c][4], b3 = bw3 * cases[c][5], nwb = bw2 * bw3;
        /* w: padded rows, batches apart; or (odd cases) dense, so that a kernel
         * reading past the last row's end reads past the buffer (sanitizers) */
        const int64_t wrow = c % 2 ? k : k + 5;
        const size_t wbatch = (size_t)(wrow * n) * 2 + (c % 2 ? 0 : 128);
        uint16_t *wb = malloc(wbatch * (size_t)nwb);
        for (size_t i = 0; i < wbatch * (size_t)nwb / 2; i++)
            wb[i] = qmm_fp32_to_fp16(qmm_test_rand_f(&seed));
        qmm_tensor w = {
            .type = QMM_TYPE_F16, .ne = {k, n, bw2, bw3}, .nb = {2, (size_t)wrow * 2, wbatch, wbatch * (size_t)bw2}, .data = wb};
        qmm_weights *pw[8];
        for (int64_t b = 0; b < nwb; b++) {
            uint16_t *dense = malloc((size_t)(k * n) * 2);
            for (int64_t r = 0; r < n; r++)
                memcpy(dense + r * k, (const char *)wb + wbatch * (size_t)b + (size_t)r * w.nb[1], (size_t)k * 2);
            CHECK_OK(qmm_weights_pack(ref, QMM_TYPE_F16, k, n, dense, (size_t)(k * n) * 2, &pw[b]));
            free(dense);
        }
        for (int64_t mi = 2 * (cases[c][7] > 0 ? cases[c][7] : 1); mi <= 2 * cases[c][6] + 1; mi++) {
            /* dense (odd mi; the engine's layout: every group's rows evenly
             * spaced, read and written in place) or x with padded rows, the
             * batch layout permuted (b3 inner) and y with padded rows and uneven
             * batch gaps (gathered, scattered) */
            const int64_t m = mi / 2;
            const int dense = mi & 1;
            const int64_t xrow = dense ? k : k + 3;
            float *xb = malloc((size_t)(xrow * m * b2 * b3) * 4);
            for (int64_t i = 0; i < xrow * m * b2 * b3; i++)
                xb[i] = qmm_test_rand_f(&seed);
            qmm_tensor x = {.type = QMM_TYPE_F32, .ne = {k, m, b2, b3}, .nb = {4, (size_t)xrow * 4, 0, 0}, .data = xb};
            if (dense) {
                x.nb[2] = x.nb[1] * (size_t)m;
                x.nb[3] = x.nb[2] * (size_t)b2;
            } else {
                x.nb[3] = x.nb[1] * (size_t)m;
                x.nb[2] = x.nb[3] * (size_t)b3;
            }
            qmm_tensor y = {
                .type = QMM_TYPE_F32, .ne = {n, m, b2, b3}, .nb = {4, (size_t)(dense ? n : n + 2) * 4, 0, 0}, .data = NULL};
            y.nb[2] = y.nb[1] * (size_t)m + (dense ? 0 : 32);
            y.nb[3] = y.nb[2] * (size_t)b2 + (dense ? 0 : 16);
            const size_t ybytes = y.nb[3] * (size_t)b3;
            float *expect = malloc(ybytes), *got = malloc(ybytes);
            memset(expect, 0x7f, ybytes);
            for (int64_t i3 = 0; i3 < b3; i3++)
                for (int64_t i2 = 0; i2 < b2; i2++) {
                    qmm_tensor xv = {.type = QMM_TYPE_F32,
                                     .ne = {k, m, 1, 1},
                                     .nb = {4, x.nb[1], x.nb[1] * (size_t)m, x.nb[1] * (size_t)m},
                                     .data = NULL};
                    qmm_tensor yv = {.type = QMM_TYPE_F32,
                                     .ne = {n, m, 1, 1},
                                     .nb = {4, y.nb[1], y.nb[1] * (size_t)m, y.nb[1] * (size_t)m},
                                     .data = NULL};
                    xv.data = (char *)xb + (size_t)i2 * x.nb[2] + (size_t)i3 * x.nb[3];
                    yv.data = (char *)expect + (size_t)i2 * y.nb[2] + (size_t)i3 * y.nb[3];
                    CHECK_OK(qmm_mul_mat(ref, pw[i2 / cases[c][4] + (i3 / cases[c][5]) * bw2], &xv, &yv));
                }
            /* the wide case both ways on x86: whether AVX2 takes its F32
             * sibling is the CPU's choice (the family's widen_once) */
            char shape[96], what[160];
            snprintf(shape, sizeof shape, "k=%lld n=%lld r2=%lld r3=%lld m=%lld dense=%d", (long long)k, (long long)n,
                     (long long)cases[c][4], (long long)cases[c][5], (long long)m, dense);
            const int modes = F16_WIDEN_MODES && cases[c][7] > 0 ? 2 : 1;
            for (int mode = 0; mode < modes; mode++) {
                f16_force_widen(modes > 1 ? mode : -1);
                for (int t = 0; t < 5; t++)
                    for (int u = 0; u < 2; u++) {
                        if (vl && t != 0 && t != 2)
                            continue; /* QMM_TEST_SHAPES=vl: 1 and 3 threads */
                        snprintf(what, sizeof what, "%s nth=%d mult=%d widen=%d", shape, t + 1, mults[u], modes > 1 ? mode : -1);
                        f16_check_call(ctxs[t][u], &w, &x, &y, got, expect, ybytes, &calls, &bad, what);
                    }
            }
            f16_force_widen(-1);
            for (int o = 0; o < nothers; o++)
                for (int u = 0; u < 2; u++) {
                    snprintf(what, sizeof what, "(%s) %s nth=%d", other_names[o], shape, u ? 3 : 1);
                    f16_check_call(others[o][u], &w, &x, &y, got, expect, ybytes, &calls, &bad, what);
                }
            if (!dense && (m == 1 || m == cases[c][6])) { /* one local group and one shared (or local) */
                memset(got, 0x7f, ybytes);
                f16_byo(ctxs[0][0], &w, &x, &y);
                calls++;
                if (memcmp(got, expect, ybytes) != 0 && bad++ < 5)
                    CHECK(0, "f16 grouping k=%lld n=%lld m=%lld: the BYO pool differs", (long long)k, (long long)n, (long long)m);
            }
            free(expect);
            free(got);
            free(xb);
        }
        for (int64_t b = 0; b < nwb; b++)
            qmm_weights_free(pw[b]);
        free(wb);
    }
    CHECK(bad == 0, "f16 grouping: %ld of %ld calls differ", bad, calls);
    printf("f16 grouping: %ld calls, %ld differ\n", calls, bad);
    for (int t = 0; t < 5; t++)
        for (int u = 0; u < 2; u++)
            qmm_context_free(ctxs[t][u]);
    for (int o = 0; o < nothers; o++)
        for (int u = 0; u < 2; u++)
            qmm_context_free(others[o][u]);
    qmm_context_free(ref);
}

/* ------------------------------------------------------------ GET_ROWS */

static void get_rows(void) {
    qmm_context *ctx = make_ctx(3, 4, 0, NULL);
    for (int i = 0; i < nprob; i++) {
        problem *p = &probs[i];
        qmm_weights *w;
        CHECK_OK(qmm_weights_pack(ctx, p->type, p->k, p->n, p->wsrc, p->wsize, &w));
        const int64_t r = 5, b1 = 2;
        int32_t ids[10];
        for (int j = 0; j < 10; j++)
            ids[j] = (int32_t)((j * 7919) % p->n);
        const int64_t ine[2] = {r, b1}, one[3] = {p->k, r, b1};
        qmm_tensor it, ot;
        qmm_tensor_init(&it, QMM_TYPE_I32, 2, ine, ids);
        float *out = malloc((size_t)(p->k * r * b1) * 4);
        qmm_tensor_init(&ot, QMM_TYPE_F32, 3, one, out);
        CHECK_OK(qmm_get_rows(ctx, w, &it, &ot));
        float *row = malloc((size_t)p->k * 4);
        for (int j = 0; j < 10; j++) {
            const void *src = (const char *)p->wsrc + (size_t)ids[j] * qmm_row_size(p->type, p->k);
            if (p->type == QMM_TYPE_F32)
                memcpy(row, src, (size_t)p->k * 4);
            else
                qmm_dequantize(p->type, src, row, 1, p->k);
            CHECK(memcmp(row, out + j * p->k, (size_t)p->k * 4) == 0, "get_rows %s row %d differs", qmm_type_name(p->type),
                  ids[j]);
        }
        /* out of range: an error, and nothing written */
        memset(out, 0x5a, (size_t)(p->k * r * b1) * 4);
        ids[3] = (int32_t)p->n;
        CHECK(qmm_get_rows(ctx, w, &it, &ot) == QMM_ERR_INVALID_ARG, "id n accepted");
        ids[3] = -1;
        CHECK(qmm_get_rows(ctx, w, &it, &ot) == QMM_ERR_INVALID_ARG, "id -1 accepted");
        int untouched = 1;
        for (int64_t j = 0; j < p->k * r * b1 * 4; j++)
            untouched &= ((unsigned char *)out)[j] == 0x5a;
        CHECK(untouched, "get_rows wrote output before failing");
        free(row);
        free(out);
        qmm_weights_free(w);
    }
    qmm_context_free(ctx);
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Idle workers sleep after a short spin: a pool of 4 that sits idle for
 * 300 ms must not burn CPU time meanwhile (a spinning pool would use ~900 ms). */
static void idle_pool(void) {
    qmm_context *ctx = make_ctx(4, 4, 0, NULL);
    float *y = run(ctx, &probs[0], NULL);
    free(y);
    const double c0 = cpu_seconds();
    struct timespec d = {0, 300 * 1000 * 1000};
    nanosleep(&d, NULL);
    const double used = cpu_seconds() - c0;
    CHECK(used < 0.15, "an idle pool of 4 threads used %.3f s of CPU in 0.3 s", used);
    printf("idle pool: %.4f s of CPU in 0.3 s idle\n", used);
    qmm_context_free(ctx);
}

/* Runs one part and prints its wall time, so creep under the sanitizers and qemu shows. */
static void timed(const char *name, void (*part)(void)) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    part();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("part %s: %.2f s\n", name, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    fflush(stdout);
}

int main(void) {
    timed("setup", setup);
    timed("idle_pool", idle_pool);
    timed("sweep_threads", sweep_threads);
    timed("sweep_caps", sweep_caps);
    timed("byo_pool", byo_pool);
    timed("stress", stress);
    timed("f16_path", f16_path);
    timed("f16_grouping", f16_grouping);
    timed("get_rows", get_rows);
    for (int i = 0; i < nprob; i++)
        free_problem(&probs[i]);
    return qmm_test_summary();
}
