/* The thread pool. Between jobs, a worker spins for a short while (a burst
 * of calls, as in token generation, then costs no wake-up), then sleeps on a
 * condition variable, so an idle pool does not burn a core. Within a job the
 * barrier spins, then yields. */
#include "exec/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile("yield")
#else
#define cpu_relax() ((void)0)
#endif

#define SPIN_BEFORE_SLEEP 20000 /* pause iterations, roughly 50-200 us */
#define SPIN_BEFORE_YIELD 2000

struct qmm_pool {
    int n_threads;
    pthread_t *threads;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    atomic_uint job_gen; /* bumped (under mutex) to publish a job */
    atomic_int done;     /* workers finished with the current job */
    atomic_int stop;
    /* the current job (written before job_gen is bumped) */
    qmm_job_fn fn;
    void *arg;
    int nth;
    /* barrier and chunk counter of the current job */
    atomic_int bar_count;
    atomic_uint bar_gen;
    _Alignas(64) atomic_llong counter;
    qmm_sync sync;
};

static void spin_wait_gen(atomic_uint *gen, unsigned seen) {
    int spins = 0;
    while (atomic_load_explicit(gen, memory_order_acquire) == seen) {
        if (++spins < SPIN_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

static void pool_barrier(void *user) {
    qmm_pool *p = user;
    const int nth = p->nth;
    if (nth <= 1)
        return;
    const unsigned gen = atomic_load_explicit(&p->bar_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&p->bar_count, 1, memory_order_acq_rel) == nth - 1) {
        atomic_store_explicit(&p->bar_count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&p->bar_gen, 1, memory_order_acq_rel);
    } else {
        spin_wait_gen(&p->bar_gen, gen);
    }
}

static void pool_counter_store(void *user, int64_t v) {
    qmm_pool *p = user;
    atomic_store(&p->counter, (long long)v);
}

static int64_t pool_counter_fetch_add(void *user, int64_t d) {
    qmm_pool *p = user;
    return (int64_t)atomic_fetch_add(&p->counter, (long long)d);
}

struct worker_arg {
    qmm_pool *pool;
    int ith;
};

static void *worker_main(void *v) {
    struct worker_arg *wa = v;
    qmm_pool *p = wa->pool;
    const int ith = wa->ith;
    free(wa);
    unsigned seen = 0;
    for (;;) {
        /* wait for a new job: spin, then sleep */
        int spins = 0;
        unsigned gen;
        while ((gen = atomic_load_explicit(&p->job_gen, memory_order_acquire)) == seen && spins < SPIN_BEFORE_SLEEP) {
            if (atomic_load_explicit(&p->stop, memory_order_acquire))
                return NULL;
            cpu_relax();
            spins++;
        }
        if (gen == seen) {
            pthread_mutex_lock(&p->mutex);
            while ((gen = atomic_load_explicit(&p->job_gen, memory_order_acquire)) == seen &&
                   !atomic_load_explicit(&p->stop, memory_order_acquire))
                pthread_cond_wait(&p->cond, &p->mutex);
            pthread_mutex_unlock(&p->mutex);
        }
        if (atomic_load_explicit(&p->stop, memory_order_acquire))
            return NULL;
        seen = gen;
        if (ith < p->nth)
            p->fn(p->arg, ith, p->nth, &p->sync);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_acq_rel);
    }
}

qmm_status qmm_pool_create(int n_threads, qmm_pool **out) {
    *out = NULL;
    /* the struct's counter is 64-byte aligned (its own cache line): calloc
     * promises 16 bytes only */
    const size_t size = (sizeof(qmm_pool) + 63) / 64 * 64;
    qmm_pool *p = aligned_alloc(_Alignof(qmm_pool) > 64 ? _Alignof(qmm_pool) : 64, size);
    if (!p)
        return QMM_ERR_NO_MEMORY;
    memset(p, 0, size);
    p->n_threads = n_threads < 1 ? 1 : n_threads;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->sync.user = p;
    p->sync.barrier = pool_barrier;
    p->sync.counter_store = pool_counter_store;
    p->sync.counter_fetch_add = pool_counter_fetch_add;
    if (p->n_threads > 1) {
        p->threads = calloc((size_t)p->n_threads, sizeof(pthread_t));
        if (!p->threads) {
            qmm_pool_free(p);
            return QMM_ERR_NO_MEMORY;
        }
        for (int i = 1; i < p->n_threads; i++) {
            struct worker_arg *wa = malloc(sizeof *wa);
            if (!wa || pthread_create(&p->threads[i], NULL, worker_main, wa ? (wa->pool = p, wa->ith = i, wa) : NULL) != 0) {
                free(wa);
                p->n_threads = i; /* the ones started so far */
                qmm_pool_free(p);
                return QMM_ERR_NO_MEMORY;
            }
        }
    }
    *out = p;
    return QMM_OK;
}

void qmm_pool_free(qmm_pool *p) {
    if (!p)
        return;
    if (p->threads) {
        pthread_mutex_lock(&p->mutex);
        atomic_store(&p->stop, 1);
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->mutex);
        for (int i = 1; i < p->n_threads; i++)
            pthread_join(p->threads[i], NULL);
        free(p->threads);
    }
    pthread_mutex_destroy(&p->mutex);
    pthread_cond_destroy(&p->cond);
    free(p);
}

int qmm_pool_threads(const qmm_pool *p) { return p->n_threads; }

void qmm_pool_run(qmm_pool *p, int nth, qmm_job_fn fn, void *arg) {
    if (nth > p->n_threads)
        nth = p->n_threads;
    if (nth < 1)
        nth = 1;
    p->fn = fn;
    p->arg = arg;
    p->nth = nth;
    atomic_store(&p->bar_count, 0);
    if (p->n_threads == 1) {
        fn(arg, 0, 1, &p->sync);
        return;
    }
    atomic_store(&p->done, 0);
    pthread_mutex_lock(&p->mutex);
    atomic_fetch_add_explicit(&p->job_gen, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mutex);
    fn(arg, 0, nth, &p->sync);
    /* every worker acknowledges the job (those beyond nth return at once) */
    int spins = 0;
    while (atomic_load_explicit(&p->done, memory_order_acquire) < p->n_threads - 1) {
        if (++spins < SPIN_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}
