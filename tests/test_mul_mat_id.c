/* MUL_MAT_ID (qmm_mul_mat_id) and experts weights (qmm_experts_pack): every
 * output row bit-equal to qmm_mul_mat of that expert's matrix
 * (qmm_weights_expert) on that row of x, for every packable type, routings
 * (uniform, skewed, all to one expert, an unused expert), U = 1..8, T = 1..64,
 * x with 1 or U rows per token, strided views, threads 1..5, chunk
 * multipliers, hybrid runs, a caller's pool; GET_ROWS per expert; blob and
 * cache round trips; and the argument errors.
 * Under emulation (aarch64 builds, or QMM_TEST_QUICK set) the sweep is
 * smaller: a few seconds per CPU under qemu. */
#include <unistd.h>

#include "base/crc32.h"
#include "kernels/family.h"
#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "registry/registry.h"
#include "test_pool.h"
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

/* kernel: a family to force (the type's reference); hide: features to hide
 * (AVX-512: the AVX2 families, whose GEMM layout is the row layout). */
static qmm_context *make_ctx_with(int nth, int mult, int cap, const char *kernel, const char *hide) {
    qmm_options o;
    memset(&o, 0, sizeof o);
    o.n_threads = nth;
    o.chunk_multiplier = mult;
    o.thread_cap = cap;
    o.kernel = kernel;
    o.hide_features = hide;
    o.flags = QMM_IGNORE_ENV | (cap ? QMM_CAP_ALL_PRIMARIES : 0);
    qmm_context *ctx = NULL;
    qmm_status st = qmm_context_create(&o, &ctx);
    CHECK(st == QMM_OK, "context(nth=%d mult=%d cap=%d kernel=%s hide=%s): %s", nth, mult, cap, kernel ? kernel : "auto",
          hide ? hide : "none", qmm_last_error());
    return ctx;
}

static qmm_context *make_ctx(int nth, int mult, int cap) { return make_ctx_with(nth, mult, cap, NULL, NULL); }

/* The reference family's name of a type: "ref_" and the lower-case type. */
static const char *ref_name(qmm_type t, char *buf, size_t size) {
    const char *tn = qmm_type_name(t);
    size_t i = 0;
    i += (size_t)snprintf(buf, size, "ref_");
    for (; *tn && i + 1 < size; tn++)
        buf[i++] = (char)(*tn >= 'A' && *tn <= 'Z' ? *tn - 'A' + 'a' : *tn);
    buf[i] = 0;
    return buf;
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
    memset(y, 0, sizeof *y);
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
            /* the native families at 1..5 threads, then the reference and
             * (x86) the AVX2 families: every kind of activation layout */
            for (int ti = 0; ti < (quick ? 2 : 4) + 2; ti++) {
                const int extra = ti - (quick ? 2 : 4);
                char rn[32];
                const char *kernel = extra == 0 ? ref_name(t, rn, sizeof rn) : NULL;
#if defined(__x86_64__)
                const char *hide = extra == 1 ? "avx512f" : NULL;
#else
                const char *hide = NULL;
#endif
                if (extra == 1 && !hide)
                    continue;
                const int nthr = extra < 0 ? thr[ti] : 2 + extra;
                qmm_context *ctx = make_ctx_with(nthr, mults[(ti + si) % 4], 0, kernel, hide);
                qmm_weights *w = NULL;
                CHECK_OK(qmm_experts_pack(ctx, t, e.k, e.n, e.ne, e.src, e.size, &w));
                if (w) {
                    float *got = run_id(ctx, w, &e, &r);
                    bad += memcmp(got, expect, r.ybytes) != 0;
                    runs++;
                    CHECK(memcmp(got, expect, r.ybytes) == 0, "%s: U=%lld T=%lld shared=%d routing %d threads %d (%s) differs",
                          qmm_type_name(t), (long long)r.nu, (long long)r.nt, shared, kind, nthr, qmm_weights_kernel(w));
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
                /* a fallback slot wherever the chain has one (not on a CPU whose
                 * only family of the type is the reference, e.g. Cortex-A72) */
                const char *primary = NULL, *fallback = NULL;
                const int slots = qmm_context_chain(ctx, e.type, &primary, &fallback) > 1 ? 2 : 1;
                CHECK(qmm_weights_slot_count(w) == slots, "%s: hybrid weights have %d slots, the chain %d", qmm_type_name(e.type),
                      qmm_weights_slot_count(w), slots);
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

typedef struct byo_job {
    qmm_context *ctx;
    const qmm_weights *w;
    const qmm_tensor *x, *ids, *y;
    void *work;
    size_t ws;
} byo_job;

static qmm_status byo_mul_mat_id(void *arg, int ith, int nth, const qmm_sync *sync) {
    const byo_job *j = arg;
    return qmm_mul_mat_id_compute(j->ctx, j->w, j->x, j->ids, j->y, ith, nth, j->work, j->ws, sync);
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
        byo_job job = {ctx, w, &r.x, &r.ids, &y, work, ws};
        int failed = 0;
        const qmm_status st = qmm_test_pool_run(nth, byo_mul_mat_id, &job, &failed);
        CHECK(st == QMM_OK, "byo thread %d of %d: %s", failed, nth, qmm_status_str(st));
        CHECK(memcmp(buf, expect, r.ybytes) == 0, "byo pool nth=%d differs", nth);
        /* a work buffer one byte short is refused by every thread */
        job.ws = ws - 1;
        CHECK(qmm_test_pool_run(nth, byo_mul_mat_id, &job, NULL) == QMM_ERR_INVALID_ARG, "short work buffer accepted");
        free(work);
        free(buf);
        free(expect);
        free_routing(&r);
    }
    qmm_weights_free(w);
    qmm_context_free(ctx);
    free(e.src);
}

/* ---------------------------------------------------- GET_ROWS per expert */

static void get_rows(void) {
    static const qmm_type gt[] = {QMM_TYPE_Q4_0, QMM_TYPE_Q6_K, QMM_TYPE_F16, QMM_TYPE_MXFP4, QMM_TYPE_BF16};
    qmm_context *ctx = make_ctx(3, 2, 0);
    for (size_t i = 0; i < sizeof gt / sizeof gt[0]; i++) {
        experts e;
        make_experts(&e, gt[i], type_k(gt[i], 0), 21, 4);
        qmm_weights *w = NULL;
        CHECK_OK(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, &w));
        if (!w) {
            free(e.src);
            continue;
        }
        CHECK(qmm_weights_n_expert(w) == 4, "n_expert %lld", (long long)qmm_weights_n_expert(w));
        const int64_t r = 5, b2 = 2;
        int32_t ids[5 * 4 * 2];
        for (int j = 0; j < (int)(r * e.ne * b2); j++)
            ids[j] = (int32_t)(qmm_test_rand_u64(&seed) % (uint64_t)e.n);
        ids[0] = 0, ids[1] = (int32_t)e.n - 1;
        qmm_tensor ti, to;
        qmm_tensor_init(&ti, QMM_TYPE_I32, 3, (int64_t[]){r, e.ne, b2}, ids);
        float *out = malloc((size_t)(e.k * r * e.ne * b2) * 4), *row = malloc((size_t)e.k * 4);
        qmm_tensor_init(&to, QMM_TYPE_F32, 4, (int64_t[]){e.k, r, e.ne, b2}, out);
        CHECK_OK(qmm_get_rows(ctx, w, &ti, &to));
        long bad = 0;
        const size_t rb = qmm_row_size(e.type, e.k);
        for (int64_t i2 = 0; i2 < b2; i2++)
            for (int64_t i1 = 0; i1 < e.ne; i1++)
                for (int64_t i0 = 0; i0 < r; i0++) {
                    const int32_t id = ids[(i2 * e.ne + i1) * r + i0];
                    qmm_dequantize(e.type, (const char *)e.src + (size_t)(i1 * e.n + id) * rb, row, 1, e.k);
                    bad += memcmp(row, out + ((i2 * e.ne + i1) * r + i0) * e.k, (size_t)e.k * 4) != 0;
                }
        CHECK(bad == 0, "%s: %ld GET_ROWS rows of experts differ from qmm_dequantize", qmm_type_name(e.type), bad);
        /* ids must say the expert in ne[1] */
        qmm_tensor_init(&ti, QMM_TYPE_I32, 3, (int64_t[]){r * e.ne, 1, b2}, ids);
        qmm_tensor_init(&to, QMM_TYPE_F32, 4, (int64_t[]){e.k, r * e.ne, 1, b2}, out);
        CHECK(qmm_get_rows(ctx, w, &ti, &to) == QMM_ERR_INVALID_ARG && strstr(qmm_last_error(), "expert"),
              "get_rows of experts with ids [r, 1, b2]: %s", qmm_last_error());
        free(out);
        free(row);
        qmm_weights_free(w);
        free(e.src);
    }
    qmm_context_free(ctx);
}

/* ------------------------------------------------ blob and cache round trips */

static void reseal(uint8_t *h) {
    memset(h + 128, 0, 4);
    const uint32_t c = qmm_crc32(0, h, 192);
    memcpy(h + 128, &c, 4); /* little-endian hosts */
}

static void blob_round_trip(void) {
    qmm_context *ctx = make_ctx(2, 2, 0);
    experts e;
    make_experts(&e, QMM_TYPE_Q8_0, 64, 30, 3);
    qmm_weights *w = NULL;
    CHECK_OK(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, &w));
    routing r;
    make_routing(&r, &e, 2, 9, 0, R_UNIFORM);
    size_t size = 0;
    const void *blob = w ? qmm_weights_blob(w, &size) : NULL;
    CHECK(blob && size > 192, "experts blob");
    if (blob) {
        uint8_t *copy = qmm_test_alloc(size);
        memcpy(copy, blob, size);
        qmm_weights *w2 = NULL;
        CHECK_OK(qmm_weights_from_blob(ctx, copy, size, &w2));
        if (w2) {
            CHECK(qmm_weights_n_expert(w2) == 3 && qmm_weights_n(w2) == 30, "blob round trip: %lld experts",
                  (long long)qmm_weights_n_expert(w2));
            float *a = run_id(ctx, w, &e, &r), *b = run_id(ctx, w2, &e, &r);
            CHECK(memcmp(a, b, r.ybytes) == 0, "blob round trip: mul_mat_id differs");
            free(a);
            free(b);
            qmm_weights_free(w2);
        }
        /* a view has no blob of its own */
        qmm_weights *v = NULL;
        CHECK_OK(qmm_weights_expert(w, 2, &v));
        size_t vs = 1;
        CHECK(v && qmm_weights_blob(v, &vs) == NULL && vs == 0, "a view's blob");
        CHECK(v && qmm_weights_n_expert(v) == 1, "a view is one matrix");
        qmm_weights_free(v);
        CHECK(qmm_weights_expert(w, 3, &v) == QMM_ERR_INVALID_ARG && !v, "expert 3 of 3");
        CHECK(qmm_weights_expert(w, -1, &v) == QMM_ERR_INVALID_ARG && !v, "expert -1");
        /* an experts count that disagrees with the slot sizes, resealed */
        static const uint64_t lies[] = {2, 4, 1, 0, (uint64_t)1 << 40};
        for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
            memcpy(copy, blob, size);
            memcpy(copy + 136, &lies[i], 8);
            reseal(copy);
            qmm_weights *bad = NULL;
            const qmm_status st = qmm_weights_from_blob(ctx, copy, size, &bad);
            CHECK(st == QMM_ERR_BAD_BLOB && !bad, "blob claiming %llu experts: %s", (unsigned long long)lies[i],
                  qmm_status_str(st));
        }
        /* version 1 (a matrix) with the experts' slots: sizes disagree */
        memcpy(copy, blob, size);
        copy[4] = 1, copy[5] = 0;
        memset(copy + 136, 0, 8);
        reseal(copy);
        qmm_weights *bad = NULL;
        CHECK(qmm_weights_from_blob(ctx, copy, size, &bad) == QMM_ERR_BAD_BLOB, "experts blob as version 1");
        /* truncated: every length short of the whole refused, none crashes */
        memcpy(copy, blob, size);
        for (size_t cut = 0; cut < size; cut += cut < 256 ? 1 : 97) {
            CHECK(qmm_weights_from_blob(ctx, copy, cut, &bad) == QMM_ERR_BAD_BLOB && !bad, "blob cut to %zu accepted", cut);
        }
        free(copy);
    }
    free_routing(&r);
    qmm_weights_free(w);
    free(e.src);
    qmm_context_free(ctx);
}

/* A GGUF v3 file written here: tensors of one type, 2-D or 3-D. */
typedef struct gtensor {
    const char *name;
    int n_dims;
    int64_t ne[3];
    const void *data;
    size_t size;
} gtensor;

static void put(FILE *f, const void *p, size_t n) { fwrite(p, 1, n, f); }
static void put64(FILE *f, uint64_t v) { put(f, &v, 8); }
static void put32(FILE *f, uint32_t v) { put(f, &v, 4); }

static int write_gguf(const char *path, qmm_type type, const gtensor *ts, int nt) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    put(f, "GGUF", 4);
    put32(f, 3);
    put64(f, (uint64_t)nt);
    put64(f, 0); /* no metadata: alignment 32 */
    uint64_t off = 0;
    for (int i = 0; i < nt; i++) {
        put64(f, strlen(ts[i].name));
        put(f, ts[i].name, strlen(ts[i].name));
        put32(f, (uint32_t)ts[i].n_dims);
        for (int d = 0; d < ts[i].n_dims; d++)
            put64(f, (uint64_t)ts[i].ne[d]);
        put32(f, (uint32_t)type);
        put64(f, off);
        off = (off + ts[i].size + 31) / 32 * 32;
    }
    long pos = ftell(f);
    for (; pos % 32; pos++)
        fputc(0, f);
    for (int i = 0; i < nt; i++) {
        put(f, ts[i].data, ts[i].size);
        for (size_t j = ts[i].size; j % 32; j++)
            fputc(0, f);
    }
    return fclose(f) == 0;
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void set32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

/* A cache whose index gives the experts tensor another count than its blob
 * (both checksums resealed: a consistent file that lies) is refused. */
static void cache_lies(qmm_context *ctx, const char *cpath) {
    FILE *f = fopen(cpath, "rb");
    CHECK(f != NULL, "reopen %s", cpath);
    if (!f)
        return;
    static uint8_t img[1 << 16];
    const size_t len = fread(img, 1, sizeof img, f);
    fclose(f);
    CHECK(len > 256 && len < sizeof img, "cache of %zu bytes", len);
    const uint32_t nfam = get32(img + 64), ntens = get32(img + 68);
    uint8_t *entry = img + 256 + 64 * (size_t)nfam + 64; /* sorted: attn_q, then ffn_up_exps */
    CHECK(ntens == 2 && entry[56] == 5, "experts entry holds %u", entry[56]);
    static const uint8_t lies[] = {4, 6, 1, 0};
    char lpath[600];
    snprintf(lpath, sizeof lpath, "%s.lie", cpath);
    for (size_t i = 0; i < sizeof lies; i++) {
        entry[56] = lies[i];
        const uint64_t names = (uint64_t)get32(img + 72) | (uint64_t)get32(img + 76) << 32;
        set32(img + 92, qmm_crc32(0, img + 256, (size_t)(64 * (nfam + ntens) + names)));
        set32(img + 252, 0);
        set32(img + 252, qmm_crc32(0, img, 256));
        FILE *o = fopen(lpath, "wb");
        fwrite(img, 1, len, o);
        fclose(o);
        qmm_cache *c = NULL;
        qmm_status st = qmm_cache_open(ctx, lpath, NULL, &c);
        qmm_weights *w = NULL;
        if (st == QMM_OK)
            st = qmm_cache_get(c, "blk.0.ffn_up_exps.weight", &w);
        CHECK(st == QMM_ERR_BAD_FILE && !w, "index claiming %u experts (blob: 5): %s (%s)", lies[i], qmm_status_str(st),
              qmm_last_error());
        qmm_weights_free(w);
        qmm_cache_close(c);
    }
    entry[56] = 5;
    unlink(lpath);
}

static void cache_round_trip(void) {
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char gpath[512], cpath[512];
    snprintf(gpath, sizeof gpath, "%s/qmm_moe_%d.gguf", tmp, (int)getpid());
    snprintf(cpath, sizeof cpath, "%s/qmm_moe_%d.qmp", tmp, (int)getpid());
    experts e, m;
    make_experts(&e, QMM_TYPE_Q4_0, 96, 24, 5);
    make_experts(&m, QMM_TYPE_Q4_0, 96, 16, 1);
    const gtensor ts[] = {{"blk.0.ffn_up_exps.weight", 3, {96, 24, 5}, e.src, e.size},
                          {"blk.0.attn_q.weight", 2, {96, 16, 1}, m.src, m.size},
                          {"blk.0.other3d.weight", 3, {96, 8, 2}, e.src, qmm_row_size(e.type, 96) * 16}};
    CHECK(write_gguf(gpath, QMM_TYPE_Q4_0, ts, 3), "writing %s", gpath);
    qmm_context *ctx = make_ctx(2, 2, 0);
    CHECK_OK(qmm_cache_write(ctx, gpath, cpath, NULL));
    qmm_cache *c = NULL;
    qmm_cache_open_options o = {.gguf_path = gpath, .flags = QMM_CACHE_VERIFY};
    CHECK_OK(qmm_cache_open(ctx, cpath, &o, &c));
    CHECK(c && qmm_cache_count(c) == 2, "cache holds %lld tensors (the 3-D tensor without _exps is not cached)",
          (long long)qmm_cache_count(c));
    qmm_weights *w = NULL, *w2 = NULL;
    if (c) {
        CHECK_OK(qmm_cache_get(c, "blk.0.ffn_up_exps.weight", &w));
        CHECK_OK(qmm_cache_get(c, "blk.0.attn_q.weight", &w2));
    }
    CHECK(w && qmm_weights_n_expert(w) == 5 && qmm_weights_n(w) == 24, "cached experts weights");
    CHECK(w2 && qmm_weights_n_expert(w2) == 1, "cached matrix");
    if (w) {
        qmm_weights *fresh = NULL;
        CHECK_OK(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, &fresh));
        size_t s1 = 0, s2 = 0;
        const void *b1 = qmm_weights_blob(w, &s1), *b2 = fresh ? qmm_weights_blob(fresh, &s2) : NULL;
        CHECK(b2 && s1 == s2 && memcmp(b1, b2, s1) == 0, "cached experts blob differs from a fresh pack");
        routing r;
        make_routing(&r, &e, 4, 7, 1, R_SKEWED);
        float *a = run_id(ctx, w, &e, &r), *b = oracle(ctx, w, &e, &r);
        CHECK(memcmp(a, b, r.ybytes) == 0, "mul_mat_id on cached experts differs from the per-expert oracle");
        free(a);
        free(b);
        free_routing(&r);
        qmm_weights_free(fresh);
    }
    qmm_weights_free(w);
    qmm_weights_free(w2);
    qmm_cache_close(c);
    cache_lies(ctx, cpath);
    qmm_context_free(ctx);
    unlink(gpath);
    unlink(cpath);
    free(e.src);
    free(m.src);
}

/* ---------------------------------------------------------------- errors */

/* st must be want, with a last-error text naming what (y untouched). */
#define EXPECT_ERR(expr, want, what)                                                                                             \
    do {                                                                                                                         \
        const qmm_status st_ = (expr);                                                                                           \
        CHECK(st_ == (want) && strstr(qmm_last_error(), (what)) != NULL, "%s -> %s (%s), expected %s with \"%s\"", #expr,        \
              qmm_status_str(st_), qmm_last_error(), qmm_status_str(want), (what));                                              \
    } while (0)

static void errors(void) {
    qmm_context *ctx = make_ctx(2, 1, 0);
    experts e;
    make_experts(&e, QMM_TYPE_Q4_0, 64, 20, 4);
    qmm_weights *w = NULL;
    CHECK_OK(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, &w));
    /* packing */
    qmm_weights *o = NULL;
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, e.k, e.n, 0, e.src, e.size, &o), QMM_ERR_INVALID_ARG, "n_expert");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, e.k, e.n, -3, e.src, e.size, &o), QMM_ERR_INVALID_ARG, "n_expert");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size - 1, &o), QMM_ERR_INVALID_ARG, "smaller");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, 48, e.n, e.ne, e.src, e.size, &o), QMM_ERR_INVALID_ARG, "multiple of 32");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, (int64_t)1 << 20, (int64_t)1 << 20, 1 << 10, e.src, e.size, &o), QMM_ERR_INVALID_ARG,
               "too large");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, 64, (int64_t)1 << 30, (int64_t)1 << 20, e.src, e.size, &o), QMM_ERR_INVALID_ARG,
               "too large");
    EXPECT_ERR(qmm_experts_pack(ctx, QMM_TYPE_I32, e.k, e.n, e.ne, e.src, e.size, &o), QMM_ERR_UNSUPPORTED, "cannot be packed");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, NULL, e.size, &o), QMM_ERR_INVALID_ARG, "NULL");
    EXPECT_ERR(qmm_experts_pack(NULL, e.type, e.k, e.n, e.ne, e.src, e.size, &o), QMM_ERR_INVALID_ARG, "NULL");
    EXPECT_ERR(qmm_experts_pack(ctx, e.type, e.k, e.n, e.ne, e.src, e.size, NULL), QMM_ERR_INVALID_ARG, "out is NULL");
    CHECK(o == NULL, "failed pack left weights");
    CHECK(qmm_weights_n_expert(NULL) == 0, "n_expert of NULL");
    routing r;
    make_routing(&r, &e, 3, 4, 0, R_UNIFORM);
    float *buf = qmm_test_alloc(r.ybytes);
    memset(buf, 0x5a, r.ybytes);
    float *canary = qmm_test_alloc(r.ybytes);
    memcpy(canary, buf, r.ybytes);
    qmm_tensor y;
    y_view(&e, &r, buf, &y);
    /* qmm_mul_mat on experts names the right call */
    qmm_tensor x2 = r.x, y2 = y;
    x2.ne[1] = 1, x2.ne[2] = 1, y2.ne[1] = 1, y2.ne[2] = 1;
    EXPECT_ERR(qmm_mul_mat(ctx, w, &x2, &y2), QMM_ERR_INVALID_ARG, "qmm_mul_mat_id");
    /* ids out of range */
    const int32_t keep = r.idbuf[1];
    r.idbuf[1] = -1;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &r.ids, &y), QMM_ERR_INVALID_ARG, "out of range");
    r.idbuf[1] = (int32_t)e.ne;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &r.ids, &y), QMM_ERR_INVALID_ARG, "out of range");
    r.idbuf[1] = keep;
    /* shapes */
    qmm_tensor t = r.x;
    t.ne[1] = 2; /* neither 1 nor U = 3 */
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &t, &r.ids, &y), QMM_ERR_INVALID_ARG, "rows per token");
    t = r.x;
    t.ne[0] = 32;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &t, &r.ids, &y), QMM_ERR_INVALID_ARG, "k = 64");
    t = r.x;
    t.ne[2] = 3;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &t, &r.ids, &y), QMM_ERR_INVALID_ARG, "tokens");
    t = y;
    t.ne[1] = 2;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &r.ids, &t), QMM_ERR_INVALID_ARG, "[n, U, T]");
    t = y;
    t.ne[0] = 19;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &r.ids, &t), QMM_ERR_INVALID_ARG, "n = 20");
    t = r.ids;
    t.ne[2] = 2;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &t, &y), QMM_ERR_INVALID_ARG, "[U, T]");
    /* types, NULLs, strides */
    t = r.ids;
    t.type = QMM_TYPE_F32;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &t, &y), QMM_ERR_INVALID_ARG, "expected I32");
    t = r.x;
    t.type = QMM_TYPE_F16;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &t, &r.ids, &y), QMM_ERR_INVALID_ARG, "expected F32");
    t = r.x;
    t.nb[0] = 8;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &t, &r.ids, &y), QMM_ERR_INVALID_ARG, "nb[0]");
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, NULL, &r.ids, &y), QMM_ERR_INVALID_ARG, "x is NULL");
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, NULL, &y), QMM_ERR_INVALID_ARG, "ids is NULL");
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &r.ids, NULL), QMM_ERR_INVALID_ARG, "y is NULL");
    EXPECT_ERR(qmm_mul_mat_id(ctx, NULL, &r.x, &r.ids, &y), QMM_ERR_INVALID_ARG, "NULL");
    EXPECT_ERR(qmm_mul_mat_id(NULL, w, &r.x, &r.ids, &y), QMM_ERR_INVALID_ARG, "NULL");
    /* y over ids */
    t = y;
    t.data = r.idbuf;
    EXPECT_ERR(qmm_mul_mat_id(ctx, w, &r.x, &r.ids, &t), QMM_ERR_INVALID_ARG, "overlaps ids");
    /* bring-your-own-pool entries check the same, and their own */
    size_t ws = 0;
    EXPECT_ERR(qmm_mul_mat_id_work_size(ctx, w, &r.x, &r.ids, &y, 0, &ws), QMM_ERR_INVALID_ARG, "thread count");
    EXPECT_ERR(qmm_mul_mat_id_work_size(ctx, w, &r.x, &r.ids, &y, 2, NULL), QMM_ERR_INVALID_ARG, "NULL size");
    r.idbuf[0] = 99;
    EXPECT_ERR(qmm_mul_mat_id_work_size(ctx, w, &r.x, &r.ids, &y, 2, &ws), QMM_ERR_INVALID_ARG, "out of range");
    EXPECT_ERR(qmm_mul_mat_id_compute(ctx, w, &r.x, &r.ids, &y, 0, 1, NULL, 0, NULL), QMM_ERR_INVALID_ARG, "out of range");
    r.idbuf[0] = 0;
    EXPECT_ERR(qmm_mul_mat_id_compute(ctx, w, &r.x, &r.ids, &y, 0, 1, NULL, 0, NULL), QMM_ERR_INVALID_ARG, "sync");
    CHECK(memcmp(buf, canary, r.ybytes) == 0, "a refused call wrote y");
    /* a matrix is one expert: ids all 0 */
    qmm_weights *m = NULL;
    CHECK_OK(qmm_weights_pack(ctx, e.type, e.k, e.n, e.src, e.size, &m));
    CHECK(m && qmm_weights_n_expert(m) == 1, "a matrix has one expert");
    EXPECT_ERR(qmm_mul_mat_id(ctx, m, &r.x, &r.ids, &y), QMM_ERR_INVALID_ARG, "out of range");
    memset(r.idbuf, 0, (size_t)(r.nu + 1) * (size_t)r.nt * 4);
    CHECK_OK(qmm_mul_mat_id(ctx, m, &r.x, &r.ids, &y));
    qmm_weights_free(m);
    free(buf);
    free(canary);
    free_routing(&r);
    qmm_weights_free(w);
    free(e.src);
    qmm_context_free(ctx);
}

/* The work size bounds the GEMM activations of the experts with several rows,
 * whatever the routing, by the packed size of all the pairs plus a row group
 * (and 64 bytes of alignment) per expert (exec.c: plan_mul_mat_id). Checked
 * for every activation layout this CPU runs, on random splits of the pairs. */
static void layout_bounds(void) {
    qmm_cpu_desc cpu;
    CHECK_OK(qmm_cpu_describe(NULL, &cpu));
    long checked = 0, over = 0;
    for (int i = 0; i < qmm_registry_count(); i++) {
        const qmm_family *kf = qmm_registry_at(i);
        if (kf->required & ~cpu.features)
            continue;
        const qmm_act_layout *al = &kf->act;
        const int64_t k = 768; /* a whole number of blocks of every type */
        const size_t group = (al->packed_size(al->m_step, k) + 63) / 64 * 64;
        for (int64_t pairs = 2; pairs <= 70; pairs += 1 + pairs / 8) {
            for (int trial = 0; trial < 8; trial++) {
                int64_t left = pairs, parts = 0;
                size_t sum = 0;
                while (left >= 2) {
                    int64_t c = 2 + (int64_t)(qmm_test_rand_u64(&seed) % (uint64_t)(left - 1));
                    if (left - c == 1)
                        c = left;
                    sum += (al->packed_size(c, k) + 63) / 64 * 64;
                    parts++;
                    left -= c;
                }
                const size_t bound = (al->packed_size(pairs, k) + 63) / 64 * 64 + (size_t)parts * (group + 64);
                over += sum > bound;
                checked++;
            }
        }
    }
    CHECK(over == 0, "%ld of %ld splits need more activation bytes than the work size holds", over, checked);
    printf("layout bounds: %ld splits checked\n", checked);
}

int main(void) {
    quick = getenv("QMM_TEST_QUICK") != NULL;
#ifdef __aarch64__
    quick = 1; /* the Arm matrix runs under qemu */
#endif
    for (int i = 0; i < NTYPES; i++)
        sweep_type(types[i]);
    layout_bounds();
    hybrid();
    byo_pool();
    get_rows();
    blob_round_trip();
    cache_round_trip();
    errors();
    return qmm_test_summary();
}
