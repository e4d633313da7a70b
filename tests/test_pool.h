/* The caller's side of the bring-your-own-pool entries (qmm_*_compute), as
 * an engine would write it: threads of its own that share one barrier and
 * one counter through a qmm_sync. Also a one-thread qmm_sync for checks that
 * call a *_compute with nth = 1 (no other thread to wait for). Depends on
 * qmatmul.h only, so the fuzzers can use it too. */
#ifndef QMM_TEST_POOL_H
#define QMM_TEST_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "qmatmul.h"

#define QMM_TEST_POOL_MAX_THREADS 8

/* What each pool thread runs: one *_compute call as thread ith of nth. */
typedef qmm_status (*qmm_test_pool_fn)(void *arg, int ith, int nth, const qmm_sync *sync);

typedef struct qmm_test_pool {
    pthread_barrier_t barrier;
    atomic_llong counter;
    qmm_test_pool_fn fn;
    void *arg;
    int nth;
} qmm_test_pool;

typedef struct qmm_test_pool_thread {
    qmm_test_pool *pool;
    int ith;
    qmm_status status;
} qmm_test_pool_thread;

static inline void qmm_test_pool_barrier(void *u) { pthread_barrier_wait(&((qmm_test_pool *)u)->barrier); }
static inline void qmm_test_pool_store(void *u, int64_t v) { atomic_store(&((qmm_test_pool *)u)->counter, v); }
static inline int64_t qmm_test_pool_add(void *u, int64_t d) { return atomic_fetch_add(&((qmm_test_pool *)u)->counter, d); }

static inline void *qmm_test_pool_thread_main(void *v) {
    qmm_test_pool_thread *t = v;
    const qmm_sync sync = {.user = t->pool,
                           .barrier = qmm_test_pool_barrier,
                           .counter_store = qmm_test_pool_store,
                           .counter_fetch_add = qmm_test_pool_add};
    t->status = t->pool->fn(t->pool->arg, t->ith, t->pool->nth, &sync);
    return NULL;
}

/* Runs fn(arg, ith, nth, sync) on nth new threads and waits for them all.
 * Returns QMM_OK if every thread did, else the status of the first thread
 * that did not (*failed_ith, if not NULL, says which). A thread that cannot
 * be started would leave the others at the barrier for ever: exits. */
static inline qmm_status qmm_test_pool_run(int nth, qmm_test_pool_fn fn, void *arg, int *failed_ith) {
    if (nth < 1 || nth > QMM_TEST_POOL_MAX_THREADS) {
        fprintf(stderr, "qmm_test_pool_run: %d threads (1..%d)\n", nth, QMM_TEST_POOL_MAX_THREADS);
        exit(2);
    }
    qmm_test_pool pool = {.fn = fn, .arg = arg, .nth = nth};
    pthread_barrier_init(&pool.barrier, NULL, (unsigned)nth);
    atomic_init(&pool.counter, 0);
    qmm_test_pool_thread threads[QMM_TEST_POOL_MAX_THREADS];
    pthread_t ids[QMM_TEST_POOL_MAX_THREADS];
    for (int t = 0; t < nth; t++) {
        threads[t] = (qmm_test_pool_thread){&pool, t, QMM_OK};
        if (pthread_create(&ids[t], NULL, qmm_test_pool_thread_main, &threads[t]) != 0) {
            fprintf(stderr, "qmm_test_pool_run: cannot start thread %d of %d\n", t, nth);
            exit(2);
        }
    }
    qmm_status first_error = QMM_OK;
    for (int t = 0; t < nth; t++) {
        pthread_join(ids[t], NULL);
        if (threads[t].status != QMM_OK && first_error == QMM_OK) {
            first_error = threads[t].status;
            if (failed_ith)
                *failed_ith = t;
        }
    }
    pthread_barrier_destroy(&pool.barrier);
    return first_error;
}

/* For nth = 1: nothing to wait for, a plain counter at counter_ptr (an
 * int64_t; one thread at a time). An initializer: QMM_TEST_SOLO_SYNC(&n). */
static inline void qmm_test_solo_barrier(void *u) { (void)u; }
static inline void qmm_test_solo_store(void *u, int64_t v) { *(int64_t *)u = v; }
static inline int64_t qmm_test_solo_add(void *u, int64_t d) {
    const int64_t old = *(int64_t *)u;
    *(int64_t *)u = old + d;
    return old;
}
#define QMM_TEST_SOLO_SYNC(counter_ptr)                                                                                          \
    {                                                                                                                            \
        .user = (counter_ptr), .barrier = qmm_test_solo_barrier, .counter_store = qmm_test_solo_store,                           \
        .counter_fetch_add = qmm_test_solo_add                                                                                   \
    }

#endif
