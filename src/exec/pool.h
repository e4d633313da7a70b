/* A persistent thread pool: workers spin briefly, then sleep, between jobs;
 * a job runs fn(arg, ith, nth, sync) on nth threads, the caller as ith 0. */
#ifndef QMM_POOL_H
#define QMM_POOL_H

#include "qmatmul.h"

typedef struct qmm_pool qmm_pool;
typedef void (*qmm_job_fn)(void *arg, int ith, int nth, const qmm_sync *sync);

qmm_status qmm_pool_create(int n_threads, qmm_pool **out);
void qmm_pool_free(qmm_pool *pool);
int qmm_pool_threads(const qmm_pool *pool);
/* Runs the job on min(nth, pool threads) threads and returns when all are done. */
void qmm_pool_run(qmm_pool *pool, int nth, qmm_job_fn fn, void *arg);

#endif
