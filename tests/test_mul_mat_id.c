/* MUL_MAT_ID (qmm_mul_mat_id) and experts weights (qmm_experts_pack): every
 * output row bit-equal to qmm_mul_mat of that expert's matrix
 * (qmm_weights_expert) on that row of x, for every packable type, routings
 * (uniform, skewed, all to one expert, an unused expert), U = 1..8, T = 1..64,
 * x with 1 or U rows per token, strided views, threads 1..5, chunk
 * multipliers, hybrid runs, a caller's pool; GET_ROWS per expert; blob and
 * cache round trips; and the argument errors.
 * Under emulation (aarch64 builds, or QMM_TEST_QUICK set) the sweep is
 * smaller: a few seconds per CPU under qemu. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "qmatmul.h"
#include "test_util.h"
#include "test_weights.h"

static uint64_t seed = 4242;
static int quick;

static const qmm_type types[] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0,   QMM_TYPE_F16,    QMM_TYPE_F32,  QMM_TYPE_Q4_1, QMM_TYPE_Q5_0,
                                 QMM_TYPE_Q5_1, QMM_TYPE_Q2_K,   QMM_TYPE_Q3_K,   QMM_TYPE_Q4_K, QMM_TYPE_Q5_K, QMM_TYPE_Q6_K,
                                 QMM_TYPE_BF16, QMM_TYPE_IQ4_NL, QMM_TYPE_IQ4_XS, QMM_TYPE_MXFP4};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* One experts tensor in GGUF layout: E matrices of n rows of k. */
typedef struct experts {
    qmm_type type;
    int64_t k, n, ne;
    void *src;
    size_t size;
} experts;

static int64_t type_k(qmm_type t, int big) {
    if (t == QMM_TYPE_MXFP4)
        return 2880; /* gpt-oss */
    const int64_t blk = qmm_type_block_elems(t);
    if (blk == 1)
        return big ? 131 : 67; /* any k */
    if (blk == 256)
        return big ? 512 : 256;
    return big ? 160 : 96;
}

static void make_experts(experts *x, qmm_type t, int64_t k, int64_t n, int64_t ne) {
    x->type = t, x->k = k, x->n = n, x->ne = ne;
    x->size = qmm_row_size(t, k) * (size_t)(n * ne);
    x->src = malloc(x->size);
    if (t == QMM_TYPE_F32 || t == QMM_TYPE_F16 || t == QMM_TYPE_Q4_0 || t == QMM_TYPE_Q8_0) {
        float *f = malloc((size_t)(k * n * ne) * 4);
        for (int64_t i = 0; i < k * n * ne; i++)
            f[i] = qmm_test_rand_f(&seed) * ((i / k) % 3 == 0 ? 10.0f : 1.0f);
        if (t == QMM_TYPE_F32)
            memcpy(x->src, f, x->size);
        else
            qmm_quantize(t, f, x->src, n * ne, k);
        free(f);
    } else {
        qmm_test_random_blocks(t, k, n * ne, x->src, 1, &seed);
    }
}

static qmm_context *make_ctx(int nth, int mult, int cap) {
    qmm_options o;
    memset(&o, 0, sizeof o);
    o.n_threads = nth;
    o.chunk_multiplier = mult;
    o.thread_cap = cap;
    o.flags = QMM_IGNORE_ENV | (cap ? QMM_CAP_ALL_PRIMARIES : 0);
    qmm_context *ctx = NULL;
    qmm_status st = qmm_context_create(&o, &ctx);
    CHECK(st == QMM_OK, "context(nth=%d mult=%d cap=%d): %s", nth, mult, cap, qmm_last_error());
    return ctx;
}

/* A routing problem: ids [U, T], x [k, xr, T], y [n, U, T], all strided. */
typedef struct routing {
    int64_t nu, nt, xr;
    int32_t *idbuf;
    qmm_tensor ids, x;
    float *xbuf;
    size_t ybytes;
} routing;

enum { R_UNIFORM, R_SKEWED, R_ONE, R_UNUSED, R_KINDS };

static void make_routing(routing *r, const experts *e, int64_t nu, int64_t nt, int shared, int kind) {
    memset(r, 0, sizeof *r);
    r->nu = nu, r->nt = nt, r->xr = shared ? 1 : nu;
    const int64_t ids_row = nu + 1; /* padded: a non-contiguous view */
    r->idbuf = malloc((size_t)(ids_row * nt) * 4);
    for (int64_t t = 0; t < nt; t++)
        for (int64_t u = 0; u < nu; u++) {
            int64_t id = (int64_t)(qmm_test_rand_u64(&seed) % (uint64_t)e->ne);
            if (kind == R_SKEWED && qmm_test_rand_u64(&seed) % 5 != 0)
                id = 1 % e->ne;
            else if (kind == R_ONE)
                id = e->ne - 1;
            else if (kind == R_UNUSED && e->ne > 1)
                id = (int64_t)(qmm_test_rand_u64(&seed) % (uint64_t)(e->ne - 1)); /* the last expert never */
            r->idbuf[t * ids_row + u] = (int32_t)id;
        }
    r->ids.type = QMM_TYPE_I32;
    r->ids.ne[0] = nu, r->ids.ne[1] = nt, r->ids.ne[2] = 1, r->ids.ne[3] = 1;
    r->ids.nb[0] = 4, r->ids.nb[1] = (size_t)ids_row * 4;
    r->ids.nb[2] = r->ids.nb[3] = r->ids.nb[1] * (size_t)nt;
    r->ids.data = r->idbuf;
    const int64_t row = e->k + 3;
    const size_t nb2 = (size_t)(row * r->xr) * 4 + 16;
    r->xbuf = malloc(nb2 * (size_t)nt);
    for (size_t i = 0; i < nb2 * (size_t)nt / 4; i++)
        r->xbuf[i] = qmm_test_rand_f(&seed);
    r->x.type = QMM_TYPE_F32;
    r->x.ne[0] = e->k, r->x.ne[1] = r->xr, r->x.ne[2] = nt, r->x.ne[3] = 1;
    r->x.nb[0] = 4, r->x.nb[1] = (size_t)row * 4, r->x.nb[2] = nb2, r->x.nb[3] = nb2 * (size_t)nt;
    r->x.data = r->xbuf;
    r->ybytes = ((size_t)(e->n + 5) * 4 * (size_t)nu + 64) * (size_t)nt;
}

static void free_routing(routing *r) {
    free(r->idbuf);
    free(r->xbuf);
}

static void y_view(const experts *e, const routing *r, float *buf, qmm_tensor *y) {
    y->type = QMM_TYPE_F32;
    y->ne[0] = e->n, y->ne[1] = r->nu, y->ne[2] = r->nt, y->ne[3] = 1;
    y->nb[0] = 4;
    y->nb[1] = (size_t)(e->n + 5) * 4;
    y->nb[2] = y->nb[1] * (size_t)r->nu + 64;
    y->nb[3] = y->nb[2] * (size_t)r->nt;
    y->data = buf;
}

static int32_t id_at(const routing *r, int64_t u, int64_t t) {
    return *(const int32_t *)((const char *)r->ids.data + (size_t)u * r->ids.nb[0] + (size_t)t * r->ids.nb[1]);
}

/* The oracle: per (u, t), qmm_mul_mat of the expert's view on that x row,
 * written where mul_mat_id writes it (the padding keeps its sentinel). */
static float *oracle(qmm_context *ctx, const qmm_weights *w, const experts *e, const routing *r) {
    float *buf = qmm_test_alloc(r->ybytes);
    memset(buf, 0xff, r->ybytes);
    qmm_tensor y;
    y_view(e, r, buf, &y);
    qmm_weights *views[64];
    for (int64_t i = 0; i < e->ne; i++)
        CHECK_OK(qmm_weights_expert(w, i, &views[i]));
    for (int64_t t = 0; t < r->nt; t++)
        for (int64_t u = 0; u < r->nu; u++) {
            qmm_tensor xr = r->x, yr = y;
            xr.ne[1] = xr.ne[2] = 1;
            xr.data = (char *)r->x.data + (size_t)t * r->x.nb[2] + (size_t)(r->xr == 1 ? 0 : u) * r->x.nb[1];
            yr.ne[1] = yr.ne[2] = 1;
            yr.data = (char *)y.data + (size_t)t * y.nb[2] + (size_t)u * y.nb[1];
            CHECK_OK(qmm_mul_mat(ctx, views[id_at(r, u, t)], &xr, &yr));
        }
    for (int64_t i = 0; i < e->ne; i++)
        qmm_weights_free(views[i]);
    return buf;
}

static float *run_id(qmm_context *ctx, const qmm_weights *w, const experts *e, const routing *r) {
    float *buf = qmm_test_alloc(r->ybytes);
    memset(buf, 0xff, r->ybytes);
    qmm_tensor y;
    y_view(e, r, buf, &y);
    qmm_status st = qmm_mul_mat_id(ctx, w, &r->x, &r->ids, &y);
    CHECK(st == QMM_OK, "mul_mat_id: %s", qmm_last_error());
    return buf;
}

/* ------------------------------------------------------------ the sweep */

static void sweep_type(qmm_type t) {
    const int64_t ne = 6;
    experts e;
    const int64_t n = quick ? 40 : 72;
    make_experts(&e, t, type_k(t, 0), n, ne);
    static const int64_t shapes[][2] = {{1, 1}, {4, 1}, {2, 3}, {8, 5}, {3, 17}, {4, 64}, {1, 64}, {8, 33}};
    const int nshapes = quick ? 4 : (int)(sizeof shapes / sizeof shapes[0]);
    static const int thr[] = {1, 2, 3, 5};
    static const int mults[] = {1, 4, 3, 2};
    long bad = 0, runs = 0;
    qmm_context *base = make_ctx(1, 1, 0);
    qmm_weights *w0 = NULL;
    CHECK_OK(qmm_experts_pack(base, t, e.k, e.n, e.ne, e.src, e.size, &w0));
    for (int si = 0; si < nshapes && w0; si++) {
        for (int shared = 0; shared < 2; shared++) {
            const int kind = (si + shared) % R_KINDS;
            routing r;
            make_routing(&r, &e, shapes[si][0], shapes[si][1], shared, kind);
            float *expect = oracle(base, w0, &e, &r);
            for (int ti = 0; ti < (quick ? 2 : 4); ti++) {
                qmm_context *ctx = make_ctx(thr[ti], mults[(ti + si) % 4], 0);
                qmm_weights *w = NULL;
                CHECK_OK(qmm_experts_pack(ctx, t, e.k, e.n, e.ne, e.src, e.size, &w));
                if (w) {
                    float *got = run_id(ctx, w, &e, &r);
                    bad += memcmp(got, expect, r.ybytes) != 0;
                    runs++;
                    CHECK(memcmp(got, expect, r.ybytes) == 0, "%s: U=%lld T=%lld shared=%d routing %d threads %d differs",
                          qmm_type_name(t), (long long)r.nu, (long long)r.nt, shared, kind, thr[ti]);
                    free(got);
                }
                qmm_weights_free(w);
                qmm_context_free(ctx);
            }
            free(expect);
            free_routing(&r);
        }
    }
    qmm_weights_free(w0);
    qmm_context_free(base);
    free(e.src);
    printf("%-7s %ld runs, %ld differ\n", qmm_type_name(t), runs, bad);
}

/* Hybrid runs (every primary capped at 1 thread, a fallback slot) and many
 * pairs: primary and fallback share the items; the same bits. */
static void hybrid(void) {
    static const qmm_type ht[] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_F16, QMM_TYPE_Q4_K, QMM_TYPE_MXFP4};
    for (size_t i = 0; i < sizeof ht / sizeof ht[0]; i++) {
        if (quick && i > 1)
            break;
        experts e;
        make_experts(&e, ht[i], type_k(ht[i], 1), 96, 5);
        routing r;
        make_routing(&r, &e, 4, quick ? 40 : 64, i % 2, R_SKEWED);
        qmm_context *base = make_ctx(1, 1, 0);
        qmm_weights *w0 = NULL;
        CHECK_OK(qmm_experts_pack(base, e.type, e.k, e.n, e.ne, e.src, e.size, &w0));
        float *expect = w0 ? oracle(base, w0, &e, &r) : NULL;
        for (int nth = 2; nth <= (quick ? 3 : 5) && expect; nth++) {
            qmm_context *ctx = make_ctx(nth, 2, 1);
            qmm_weights *w = NULL;
            CHECK_OK(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, &w));
            if (w) {
                CHECK(qmm_weights_slot_count(w) == 2, "%s: hybrid weights have %d slots", qmm_type_name(e.type),
                      qmm_weights_slot_count(w));
                float *got = run_id(ctx, w, &e, &r);
                CHECK(memcmp(got, expect, r.ybytes) == 0, "hybrid %s nth=%d differs", qmm_type_name(e.type), nth);
                free(got);
                /* the oracle on the same hybrid weights, too */
                float *again = oracle(ctx, w, &e, &r);
                CHECK(memcmp(again, expect, r.ybytes) == 0, "hybrid %s nth=%d: per-expert mul_mat differs", qmm_type_name(e.type),
                      nth);
                free(again);
            }
            qmm_weights_free(w);
            qmm_context_free(ctx);
        }
        free(expect);
        qmm_weights_free(w0);
        qmm_context_free(base);
        free_routing(&r);
        free(e.src);
    }
}

/* --------------------------------------------- bring your own thread pool */

typedef struct my_pool {
    pthread_barrier_t bar;
    atomic_llong counter;
} my_pool;

static void my_barrier(void *u) { pthread_barrier_wait(&((my_pool *)u)->bar); }
static void my_store(void *u, int64_t v) { atomic_store(&((my_pool *)u)->counter, v); }
static int64_t my_add(void *u, int64_t d) { return atomic_fetch_add(&((my_pool *)u)->counter, d); }

typedef struct my_thread {
    qmm_context *ctx;
    const qmm_weights *w;
    const qmm_tensor *x, *ids, *y;
    int ith, nth;
    void *work;
    size_t ws;
    qmm_sync sync;
    qmm_status st;
} my_thread;

static void *my_thread_main(void *v) {
    my_thread *t = v;
    t->st = qmm_mul_mat_id_compute(t->ctx, t->w, t->x, t->ids, t->y, t->ith, t->nth, t->work, t->ws, &t->sync);
    return NULL;
}

static void byo_pool(void) {
    experts e;
    make_experts(&e, QMM_TYPE_Q4_0, 128, 80, 7);
    qmm_context *ctx = make_ctx(1, 1, 0);
    qmm_weights *w = NULL;
    CHECK_OK(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, &w));
    for (int nth = 1; nth <= 5 && w; nth++) {
        routing r;
        make_routing(&r, &e, 3, 20, nth % 2, nth % R_KINDS);
        float *expect = oracle(ctx, w, &e, &r);
        float *buf = qmm_test_alloc(r.ybytes);
        memset(buf, 0xff, r.ybytes);
        qmm_tensor y;
        y_view(&e, &r, buf, &y);
        size_t ws = 0;
        CHECK_OK(qmm_mul_mat_id_work_size(ctx, w, &r.x, &r.ids, &y, nth, &ws));
        void *work = qmm_test_alloc(ws);
        my_pool pool;
        pthread_barrier_init(&pool.bar, NULL, (unsigned)nth);
        atomic_init(&pool.counter, 0);
        my_thread th[5];
        pthread_t tid[5];
        for (int t = 0; t < nth; t++) {
            th[t] = (my_thread){ctx, w, &r.x, &r.ids, &y, t, nth, work, ws, {&pool, my_barrier, my_store, my_add}, QMM_OK};
            pthread_create(&tid[t], NULL, my_thread_main, &th[t]);
        }
        for (int t = 0; t < nth; t++) {
            pthread_join(tid[t], NULL);
            CHECK(th[t].st == QMM_OK, "byo thread %d of %d: %s", t, nth, qmm_status_str(th[t].st));
        }
        CHECK(memcmp(buf, expect, r.ybytes) == 0, "byo pool nth=%d differs", nth);
        /* a work buffer one byte short is refused by every thread */
        qmm_sync sync = {&pool, my_barrier, my_store, my_add};
        CHECK(qmm_mul_mat_id_compute(ctx, w, &r.x, &r.ids, &y, 0, nth, work, ws - 1, &sync) == QMM_ERR_INVALID_ARG,
              "short work buffer accepted");
        pthread_barrier_destroy(&pool.bar);
        free(work);
        free(buf);
        free(expect);
        free_routing(&r);
    }
    qmm_weights_free(w);
    qmm_context_free(ctx);
    free(e.src);
}

int main(void) {
    quick = getenv("QMM_TEST_QUICK") != NULL;
#ifdef __aarch64__
    quick = 1; /* the Arm matrix runs under qemu */
#endif
    for (int i = 0; i < NTYPES; i++)
        sweep_type(types[i]);
    hybrid();
    byo_pool();
    return qmm_test_summary();
}
