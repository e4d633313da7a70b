/* Results do not depend on the caller's floating-point environment: with the
 * calling thread rounding upward, or flushing subnormals (x86 FTZ + DAZ, Arm
 * FZ), every operation gives the bits of the default environment, at 1 and 2
 * threads, through the context's pool and through a caller's own pool, and the
 * caller's environment is the same after the call. The inputs span magnitudes
 * down to subnormals, so flushing would change bits (checked). */
#include <fenv.h>
#include <math.h>

#include "qmatmul.h"
#include "test_pool.h"
#include "test_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FLUSH_BITS 0x8040u /* MXCSR FTZ (15) + DAZ (6) */
static unsigned long long read_ctl(void) { return _mm_getcsr() & ~0x3fu; /* less the exception flags */ }
static void set_flush(int on) { _mm_setcsr(on ? (_mm_getcsr() | FLUSH_BITS) : (_mm_getcsr() & ~FLUSH_BITS)); }
#define HAVE_FLUSH 1
#elif defined(__aarch64__)
#define FLUSH_BITS (1ull << 24) /* FPCR FZ */
static unsigned long long read_ctl(void) {
    unsigned long long v;
    __asm__ volatile("mrs %0, fpcr" : "=r"(v));
    return v;
}
static void set_flush(int on) {
    unsigned long long v = read_ctl();
    v = on ? (v | FLUSH_BITS) : (v & ~FLUSH_BITS);
    __asm__ volatile("msr fpcr, %0" : : "r"(v) : "memory");
}
#define HAVE_FLUSH 1
#else
static unsigned long long read_ctl(void) { return (unsigned long long)fegetround(); }
static void set_flush(int on) { (void)on; }
#define HAVE_FLUSH 0
#endif

typedef struct mode {
    const char *name;
    int round, flush;
} mode;

static const mode modes[] = {
    {"FE_UPWARD", FE_UPWARD, 0},
    {"FE_DOWNWARD", FE_DOWNWARD, 0},
#if HAVE_FLUSH
    {"flush subnormals", FE_TONEAREST, 1},
    {"FE_TOWARDZERO + flush", FE_TOWARDZERO, 1},
#endif
};

static void enter_mode(const mode *md) {
    fesetround(md->round);
    set_flush(md->flush);
}
static void leave_mode(void) {
    fesetround(FE_TONEAREST);
    set_flush(0);
}

static uint64_t seed = 4242;

/* Rows of k values of one magnitude each: tiny != 0 cycles the rows through
 * magnitudes from 2^-126 (products with the weights are subnormal) down to
 * subnormal inputs, with one row of ordinary values. */
static void fill_spread(float *v, int64_t count, int64_t k, int tiny) {
    static const int exps[] = {130, 0, 126, 140, 146, 120, 135};
    /* for the quantizers: a block's scale amax / 127 must have a finite
     * inverse (ggml's reference quantizers overflow below that) */
    static const int q_exps[] = {110, 0, 64, 100, 30};
    for (int64_t i = 0; i < count; i++) {
        const int e = tiny == 1 ? exps[(i / k) % 7] : tiny == 2 ? q_exps[(i / k) % 5] : (int)(qmm_test_rand_u64(&seed) % 12);
        v[i] = ldexpf(qmm_test_rand_f(&seed), -e);
    }
}

#define K  64
#define N  48
#define M  5
#define B2 2

/* ------------------------------------------------ one run of every op */

typedef struct outputs {
    float mm[4][N * M * B2];  /* mul_mat per weight type, m = M */
    float mv[4][N];           /* m = 1 */
    float rows[4][K * 6];     /* get_rows */
    float f16[N * M * B2];    /* mul_mat_f16 */
    float byo[4][N * M * B2]; /* mul_mat_compute on the caller's own threads */
    float byo16[N * M * B2];  /* mul_mat_f16_compute on them */
    uint8_t q8[K * 4 / 32 * 34];
    float dq[K * 4];
    uint8_t blob_hash[4][8];
} outputs;

static const qmm_type wtypes[4] = {QMM_TYPE_F32, QMM_TYPE_F16, QMM_TYPE_Q4_0, QMM_TYPE_Q8_0};

static float wf[N * K], xf[K * M * B2], xv[K], xq[K * M * B2], xqv[K], qsrc[K * 4];
static uint8_t wsrc[4][N * K * 4];
static size_t wsize[4];
static uint16_t w16[N * K * B2];

/* The caller's own pool: threads that each enter the mode before calling. */
typedef struct byo_job {
    qmm_context *ctx;
    const qmm_weights *w; /* NULL: the F16 path with wt */
    const qmm_tensor *wt, *x, *y;
    void *work;
    size_t wsize;
    const mode *md;
    int env_kept[2]; /* per thread */
} byo_job;

static qmm_status byo_thread(void *arg, int ith, int nth, const qmm_sync *sync) {
    byo_job *j = arg;
    if (j->md)
        enter_mode(j->md);
    const unsigned long long before = read_ctl();
    const int round = fegetround();
    const qmm_status st = j->w ? qmm_mul_mat_compute(j->ctx, j->w, j->x, j->y, ith, nth, j->work, j->wsize, sync)
                               : qmm_mul_mat_f16_compute(j->ctx, j->wt, j->x, j->y, ith, nth, j->work, j->wsize, sync);
    j->env_kept[ith] = read_ctl() == before && fegetround() == round;
    leave_mode();
    return st;
}

/* Runs the job on nth (1 or 2) threads of our own, each in mode md (NULL: default). */
static int run_byo(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *wt, const qmm_tensor *x, const qmm_tensor *y,
                   int nth, const mode *md) {
    size_t ws = 0;
    if (w)
        CHECK_OK(qmm_mul_mat_work_size(ctx, w, x, y, nth, &ws));
    else
        CHECK_OK(qmm_mul_mat_f16_work_size(ctx, wt, x, y, nth, &ws));
    byo_job job = {ctx, w, wt, x, y, qmm_test_alloc(ws), ws, md, {0, 0}};
    int failed = 0;
    const qmm_status st = qmm_test_pool_run(nth, byo_thread, &job, &failed);
    CHECK(st == QMM_OK, "byo thread %d: %s", failed, qmm_status_str(st));
    for (int t = 0; t < nth; t++)
        CHECK(job.env_kept[t], "%s: byo thread %d's environment changed by the call", md ? md->name : "default", t);
    free(job.work);
    return st == QMM_OK;
}

static void fnv(const void *p, size_t n, uint8_t out[8]) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    memcpy(out, &h, 8);
}

/* Every op on ctx, the calling thread in mode md (NULL: default); byo
 * threads in md as well. Checks that each call leaves the environment as it
 * found it. */
static void run_all(qmm_context *ctx, int byo_nth, const mode *md, outputs *o) {
    memset(o, 0, sizeof *o);
    if (md)
        enter_mode(md);
    const unsigned long long ctl = read_ctl();
    const int round = fegetround();
#define KEPT(what)                                                                                                               \
    CHECK(read_ctl() == ctl && fegetround() == round, "%s: %s changed the environment", md ? md->name : "default", what)
    qmm_tensor x, xm, y, ym, it, ot, wt;
    int32_t ids[6] = {0, 7, 47, 3, 3, 20};
    qmm_tensor_init(&it, QMM_TYPE_I32, 1, (int64_t[]){6}, ids);
    for (int t = 0; t < 4; t++) {
        /* F32/F16 weights: activations down to subnormals; Q4_0/Q8_0 (quantized activations): see fill_spread */
        const int quant = wtypes[t] == QMM_TYPE_Q4_0 || wtypes[t] == QMM_TYPE_Q8_0;
        qmm_tensor_init(&x, QMM_TYPE_F32, 3, (int64_t[]){K, M, B2}, quant ? xq : xf);
        qmm_tensor_init(&xm, QMM_TYPE_F32, 1, (int64_t[]){K}, quant ? xqv : xv);
        qmm_weights *w = NULL;
        CHECK_OK(qmm_weights_pack(ctx, wtypes[t], K, N, wsrc[t], wsize[t], &w));
        KEPT("qmm_weights_pack");
        if (!w)
            continue;
        size_t bs = 0;
        const void *blob = qmm_weights_blob(w, &bs);
        fnv(blob, bs, o->blob_hash[t]);
        qmm_tensor_init(&y, QMM_TYPE_F32, 3, (int64_t[]){N, M, B2}, o->mm[t]);
        CHECK_OK(qmm_mul_mat(ctx, w, &x, &y));
        KEPT("qmm_mul_mat");
        qmm_tensor_init(&ym, QMM_TYPE_F32, 1, (int64_t[]){N}, o->mv[t]);
        CHECK_OK(qmm_mul_mat(ctx, w, &xm, &ym));
        KEPT("qmm_mul_mat (m = 1)");
        qmm_tensor_init(&ot, QMM_TYPE_F32, 2, (int64_t[]){K, 6}, o->rows[t]);
        CHECK_OK(qmm_get_rows(ctx, w, &it, &ot));
        KEPT("qmm_get_rows");
        qmm_tensor_init(&y, QMM_TYPE_F32, 3, (int64_t[]){N, M, B2}, o->byo[t]);
        run_byo(ctx, w, NULL, &x, &y, byo_nth, md);
        qmm_weights_free(w);
    }
    qmm_tensor_init(&x, QMM_TYPE_F32, 3, (int64_t[]){K, M, B2}, xf);
    qmm_tensor_init(&wt, QMM_TYPE_F16, 3, (int64_t[]){K, N, B2}, w16);
    qmm_tensor_init(&y, QMM_TYPE_F32, 3, (int64_t[]){N, M, B2}, o->f16);
    CHECK_OK(qmm_mul_mat_f16(ctx, &wt, &x, &y));
    KEPT("qmm_mul_mat_f16");
    qmm_tensor_init(&y, QMM_TYPE_F32, 3, (int64_t[]){N, M, B2}, o->byo16);
    run_byo(ctx, NULL, &wt, &x, &y, byo_nth, md);
    CHECK_OK(qmm_quantize(QMM_TYPE_Q8_0, qsrc, o->q8, 4, K));
    KEPT("qmm_quantize");
    CHECK_OK(qmm_dequantize(QMM_TYPE_Q8_0, o->q8, o->dq, 4, K));
    KEPT("qmm_dequantize");
#undef KEPT
    leave_mode();
}

/* Results against want; packed blobs against blobs, from a context of the same
 * thread count (that count decides whether a fallback slot is written). */
static void compare(const outputs *want, const outputs *blobs, const outputs *got, const char *what) {
    for (int t = 0; t < 4; t++) {
        const char *tn = qmm_type_name(wtypes[t]);
        CHECK(memcmp(want->mm[t], got->mm[t], sizeof want->mm[t]) == 0, "%s: %s mul_mat differs", what, tn);
        CHECK(memcmp(want->mv[t], got->mv[t], sizeof want->mv[t]) == 0, "%s: %s mul_mat m = 1 differs", what, tn);
        CHECK(memcmp(want->rows[t], got->rows[t], sizeof want->rows[t]) == 0, "%s: %s get_rows differs", what, tn);
        CHECK(memcmp(want->byo[t], got->byo[t], sizeof want->byo[t]) == 0, "%s: %s mul_mat_compute differs", what, tn);
        CHECK(memcmp(blobs->blob_hash[t], got->blob_hash[t], 8) == 0, "%s: %s packed blob differs", what, tn);
    }
    CHECK(memcmp(want->f16, got->f16, sizeof want->f16) == 0, "%s: mul_mat_f16 differs", what);
    CHECK(memcmp(want->byo16, got->byo16, sizeof want->byo16) == 0, "%s: mul_mat_f16_compute differs", what);
    CHECK(memcmp(want->q8, got->q8, sizeof want->q8) == 0, "%s: quantize differs", what);
    CHECK(memcmp(want->dq, got->dq, sizeof want->dq) == 0, "%s: dequantize differs", what);
}

/* The mode really changes arithmetic on this thread (else the test would
 * prove nothing), and our inputs are ones it changes. */
static void check_mode_effective(const mode *md) {
    volatile float one = 1.0f, eps = 0x1p-30f, half = 0.5f, small = 0x1p-126f;
    volatile float dot_default = 0, dot_mode = 0;
    for (int i = 0; i < K; i++)
        dot_default = fmaf(wf[i], xf[i], dot_default);
    enter_mode(md);
    volatile float sum = one + eps, sub = small * half; /* volatile: computed before leave_mode */
    for (int i = 0; i < K; i++)
        dot_mode = fmaf(wf[i], xf[i], dot_mode);
    leave_mode();
    if (md->round == FE_UPWARD)
        CHECK(sum > 1.0f, "%s does not round upward here", md->name);
    if (md->flush)
        CHECK(sub == 0.0f, "%s does not flush here", md->name);
    CHECK(memcmp((const void *)&dot_default, (const void *)&dot_mode, 4) != 0,
          "%s: the test inputs give the same dot product in both environments", md->name);
}

int main(void) {
    fill_spread(wf, N * K, K, 0);
    fill_spread(xf, K * M * B2, K, 1);
    fill_spread(xv, K, K, 1);
    fill_spread(xq, K * M * B2, K, 2);
    fill_spread(xqv, K, K, 2);
    fill_spread(qsrc, K * 4, K, 2);
    for (int t = 0; t < 4; t++) {
        wsize[t] = qmm_row_size(wtypes[t], K) * N;
        if (wtypes[t] == QMM_TYPE_F32)
            memcpy(wsrc[t], wf, wsize[t]);
        else
            CHECK_OK(qmm_quantize(wtypes[t], wf, wsrc[t], N, K));
    }
    float w16f[N * K * B2];
    fill_spread(w16f, N * K * B2, K, 0);
    for (int i = 0; i < N * K * B2; i++)
        w16f[i] = ldexpf(w16f[i], -(i % 5) * 4); /* F16 subnormals too */
    CHECK_OK(qmm_quantize(QMM_TYPE_F16, w16f, w16, B2 * N, K));

    qmm_options o;
    memset(&o, 0, sizeof o);
    o.flags = QMM_IGNORE_ENV;
    qmm_context *ctx[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        o.n_threads = i + 1;
        CHECK_OK(qmm_context_create(&o, &ctx[i]));
    }
    if (!ctx[0] || !ctx[1])
        return qmm_test_summary();
    static outputs want, want2, got;
    run_all(ctx[0], 1, NULL, &want);
    run_all(ctx[1], 2, NULL, &want2);
    compare(&want, &want2, &want2, "default environment, 2 threads");
    const outputs *blobs[2] = {&want, &want2};

    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        const mode *md = &modes[mi];
        check_mode_effective(md);
        char what[128];
        for (int i = 0; i < 2; i++) {
            run_all(ctx[i], i + 1, md, &got);
            snprintf(what, sizeof what, "%s, %d thread%s", md->name, i + 1, i ? "s" : "");
            compare(&want, blobs[i], &got, what);
        }
        /* a context created in the mode: its workers start in it */
        qmm_context *c2 = NULL;
        o.n_threads = 2;
        enter_mode(md);
        CHECK_OK(qmm_context_create(&o, &c2));
        leave_mode();
        if (c2) {
            run_all(c2, 2, md, &got);
            snprintf(what, sizeof what, "%s, 2 threads started in it", md->name);
            compare(&want, &want2, &got, what);
            qmm_context_free(c2);
        }
    }
    qmm_context_free(ctx[0]);
    qmm_context_free(ctx[1]);
    return qmm_test_summary();
}
