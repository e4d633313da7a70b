/* The context object: what the API layer (and io, above it) keeps per context. */
#ifndef QMM_INTERNAL_H
#define QMM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "cpu/cpu.h"
#include "exec/exec.h"
#include "exec/pool.h"
#include "packed/packed.h"
#include "qmatmul.h"
#include "registry/dispatch.h"

struct qmm_context {
    qmm_cpu_info cpu;      /* detected, less hidden features */
    qmm_dispatch dispatch; /* features, chains and caps: what the layers below see */
    qmm_exec_config exec;  /* its dispatch points at the one above */
    int n_threads;
    int chunk_multiplier; /* as set; exec.chunk_multiplier is the one in force */
    int pack_threads;     /* thread-count hint at pack time */
    qmm_pool *pool;
    pthread_mutex_t lock; /* one pooled operation at a time */
    void *scratch;
    size_t scratch_size;
};

/* Packs a planned blob (qmm_blob_plan_make*) into dst on ctx's pool (the
 * cache writer's packer); src holds n x n_expert rows of GGUF blocks. */
qmm_status qmm_pack_plan_into(qmm_context *ctx, const qmm_blob_plan *plan, const void *src, size_t src_size, void *dst);

#endif
