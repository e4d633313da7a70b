/* The context and weights objects, shared by the layers above the kernels. */
#ifndef QMM_INTERNAL_H
#define QMM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "cpu/cpu.h"
#include "exec/pool.h"
#include "qmatmul.h"
#include "registry/registry.h"

#define QMM_MAX_SLOTS 2
#define QMM_N_WTYPES  4 /* F32, F16, Q4_0, Q8_0: the packable weight types */

struct qmm_context {
    qmm_cpu_info cpu;  /* detected, less hidden features */
    uint64_t features; /* what selection sees */
    int n_threads;
    int chunk_multiplier;
    int pack_threads; /* thread-count hint at pack time */
    int sme_cap;      /* thread cap of QMM_KF_CAPPED families; 0: SME disabled */
    int all_cap;      /* >0: cap on every chain primary (hybrid testing) */
    qmm_chain chains[QMM_N_WTYPES];
    qmm_pool *pool;
    pthread_mutex_t lock; /* one pooled operation at a time */
    void *scratch;
    size_t scratch_size;
};

struct qmm_weights {
    qmm_type type;
    int64_t k, n;
    const uint8_t *blob;
    size_t size;
    void *owned; /* freed with the weights, or NULL if adopted */
    size_t owned_size;
    int nslots;
    const qmm_kernel *kf[QMM_MAX_SLOTS];
    const uint8_t *data[QMM_MAX_SLOTS];
    /* Called by qmm_weights_free when the blob belongs to another object
     * (a cache file mapping): drops the reference the weights hold. */
    void (*release)(void *owner);
    void *owner;
};

/* Index of a packable weight type in ctx->chains, or -1. */
int qmm_wtype_index(qmm_type t);
/* Thread cap of family kf in this context, 0 = uncapped. */
int qmm_context_cap(const qmm_context *ctx, const qmm_kernel *kf);

#endif
