/* What the operations' entry points share (src/api/ops.c, ops_id.c): the
 * tensor checks, the thread-argument check and the pooled run. */
#ifndef QMM_OPS_INTERNAL_H
#define QMM_OPS_INTERNAL_H

#include "api/internal.h"

#define QMM_MAX_NTH 4096

/* A pooled job: which operation, and its arguments. */
typedef struct op_job {
    int op; /* 0 mul_mat, 1 get_rows, 2 mul_mat_f16, 3 mul_mat_id */
    const qmm_context *ctx;
    const qmm_weights *w;
    const qmm_tensor *a, *b, *c; /* x, y | ids, out | w16, x, y | x, ids, y */
    void *work;
} op_job;

/* A tensor view of that type: positive dims, byte strides aligned to the
 * element, every address it spans representable, rows contiguous. */
qmm_status qmm_check_view(const qmm_tensor *t, const char *what, qmm_type type, size_t elem);
/* An output view whose elements each have their own address. */
qmm_status qmm_check_output(const qmm_tensor *t, const char *what);
/* Whether the memory two (checked) views span intersects. */
int qmm_views_overlap(const qmm_tensor *a, size_t ea, const qmm_tensor *b, size_t eb);
/* The bring-your-own-pool arguments. */
qmm_status qmm_check_threads(int ith, int nth, const void *work, size_t work_size, size_t need, const qmm_sync *sync);
/* Grows the context scratch to need bytes and runs j on the context's pool. */
qmm_status qmm_run_pooled(qmm_context *ctx, op_job *j, size_t need);

#endif
