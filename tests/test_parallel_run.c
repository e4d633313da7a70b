/* qmm_parallel_run: every task in [0, n_tasks) runs exactly once (a task
 * skipped or run twice shows in its count), on the threads the header names
 * (ith below min(n_tasks, threads)), at every thread count 1..5 and task
 * counts around them; the tasks run in round-to-nearest whatever the
 * caller's rounding mode, which stays the caller's; the pool still serves a
 * product afterwards; bad arguments are QMM_ERR_INVALID_ARG with a message. */
#include <fenv.h>
#include <stdatomic.h>

#include "qmatmul.h"
#include "test_util.h"

#define MAX_TASKS 5000

typedef struct counts {
    atomic_int runs[MAX_TASKS];
    atomic_int bad_ith, bad_task, not_nearest;
    int max_ith; /* exclusive */
    volatile float tiny;
} counts;

static void count_task(void *user, int64_t task, int ith) {
    counts *c = user;
    if (task < 0 || task >= MAX_TASKS) {
        atomic_fetch_add(&c->bad_task, 1);
        return;
    }
    if (ith < 0 || ith >= c->max_ith)
        atomic_fetch_add(&c->bad_ith, 1);
    /* 1 + 2^-24 is a tie: to nearest (even) gives 1, upward gives 1 + 2^-23. */
    const float one = 1.0f + c->tiny;
    if (one != 1.0f)
        atomic_fetch_add(&c->not_nearest, 1);
    atomic_fetch_add(&c->runs[task], 1);
}

static counts c;

static void run_once(qmm_context *ctx, int threads, int64_t n_tasks) {
    for (int i = 0; i < MAX_TASKS; i++)
        atomic_store(&c.runs[i], 0);
    atomic_store(&c.bad_ith, 0);
    atomic_store(&c.bad_task, 0);
    atomic_store(&c.not_nearest, 0);
    c.max_ith = n_tasks < threads ? (int)n_tasks : threads;
    CHECK_OK(qmm_parallel_run(ctx, n_tasks, count_task, &c));
    int wrong = 0, first = -1;
    for (int64_t i = 0; i < MAX_TASKS; i++)
        if (atomic_load(&c.runs[i]) != (i < n_tasks)) {
            if (first < 0)
                first = (int)i;
            wrong++;
        }
    CHECK(wrong == 0, "%d threads, %lld tasks: %d tasks ran a wrong number of times (task %d: %d)", threads, (long long)n_tasks,
          wrong, first, first >= 0 ? atomic_load(&c.runs[first]) : 0);
    CHECK(atomic_load(&c.bad_ith) == 0 && atomic_load(&c.bad_task) == 0,
          "%d threads, %lld tasks: %d calls with ith outside [0, %d), %d with a task out of range", threads, (long long)n_tasks,
          atomic_load(&c.bad_ith), c.max_ith, atomic_load(&c.bad_task));
    CHECK(atomic_load(&c.not_nearest) == 0, "%d threads, %lld tasks: %d tasks ran in another rounding mode", threads,
          (long long)n_tasks, atomic_load(&c.not_nearest));
}

/* A product through the same pool, after the tasks: y = W x of a 32 x 2 F32
 * matrix of ones and x of ones gives 32 in both rows. */
static void check_product(qmm_context *ctx, int threads) {
    float wdata[64], x[32], y[2] = {0, 0};
    for (int i = 0; i < 64; i++)
        wdata[i] = 1.0f;
    for (int i = 0; i < 32; i++)
        x[i] = 1.0f;
    qmm_weights *w = NULL;
    CHECK_OK(qmm_weights_pack(ctx, QMM_TYPE_F32, 32, 2, wdata, sizeof wdata, &w));
    qmm_tensor tx, ty;
    qmm_tensor_init(&tx, QMM_TYPE_F32, 1, (int64_t[]){32}, x);
    qmm_tensor_init(&ty, QMM_TYPE_F32, 1, (int64_t[]){2}, y);
    CHECK_OK(qmm_mul_mat(ctx, w, &tx, &ty));
    CHECK(y[0] == 32.0f && y[1] == 32.0f, "%d threads: product after the tasks gave %g %g", threads, y[0], y[1]);
    qmm_weights_free(w);
}

static int never_called;
static void must_not_run(void *user, int64_t task, int ith) {
    (void)user;
    (void)task;
    (void)ith;
    never_called++;
}

int main(void) {
    c.tiny = 0x1p-24f;
    static const int64_t task_counts[] = {0, 1, 2, 3, 4, 5, 6, 7, 17, 128, 1000, MAX_TASKS};
    for (int threads = 1; threads <= 5; threads++) {
        qmm_options o = {.n_threads = threads, .flags = QMM_IGNORE_ENV};
        qmm_context *ctx = NULL;
        CHECK_OK(qmm_context_create(&o, &ctx));
        if (!ctx)
            continue;
        for (size_t i = 0; i < sizeof task_counts / sizeof task_counts[0]; i++)
            for (int rep = 0; rep < 3; rep++)
                run_once(ctx, threads, task_counts[i]);
        /* The caller rounding upward: the tasks still round to nearest, and
         * the caller's mode is given back. */
        if (fesetround(FE_UPWARD) == 0) {
            run_once(ctx, threads, 1);
            run_once(ctx, threads, 64);
            CHECK(fegetround() == FE_UPWARD, "%d threads: the caller's rounding mode changed", threads);
            const float up = 1.0f + c.tiny;
            CHECK(up != 1.0f, "%d threads: the caller's thread no longer rounds upward", threads);
            fesetround(FE_TONEAREST);
        }
        check_product(ctx, threads);
        /* Bad arguments: an error with a message, fn never called. */
        CHECK(qmm_parallel_run(ctx, -1, must_not_run, NULL) == QMM_ERR_INVALID_ARG, "negative n_tasks accepted");
        CHECK(strstr(qmm_last_error(), "negative") != NULL, "message '%s'", qmm_last_error());
        CHECK(qmm_parallel_run(ctx, INT64_MIN, must_not_run, NULL) == QMM_ERR_INVALID_ARG, "INT64_MIN n_tasks accepted");
        CHECK(qmm_parallel_run(ctx, 4, NULL, NULL) == QMM_ERR_INVALID_ARG, "NULL fn accepted");
        CHECK(strstr(qmm_last_error(), "fn is NULL") != NULL, "message '%s'", qmm_last_error());
        CHECK(qmm_parallel_run(NULL, 4, must_not_run, NULL) == QMM_ERR_INVALID_ARG, "NULL context accepted");
        CHECK(strstr(qmm_last_error(), "context is NULL") != NULL, "message '%s'", qmm_last_error());
        CHECK_OK(qmm_parallel_run(ctx, 0, must_not_run, NULL));
        qmm_context_free(ctx);
    }
    CHECK(never_called == 0, "fn ran %d times on refused or empty calls", never_called);
    return qmm_test_summary();
}
