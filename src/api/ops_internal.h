/* What the operations' entry points share (src/api/ops.c, ops_id.c): the
 * tensor checks, and one job type each entry fills in for its work size,
 * its bring-your-own-pool threads and its pooled run. */
#ifndef QMM_OPS_INTERNAL_H
#define QMM_OPS_INTERNAL_H

#include "api/internal.h"

#define QMM_MAX_NTH 4096

typedef enum op_kind { OP_MUL_MAT, OP_GET_ROWS, OP_MUL_MAT_F16, OP_MUL_MAT_ID } op_kind;

/* One operation's call, its arguments checked: run by the pool or by each
 * thread of the caller's. */
typedef struct op_job {
    op_kind op;
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
/* QMM_ERR_INVALID_ARG naming both if out's memory intersects in's. */
qmm_status qmm_check_apart(const char *op, const qmm_tensor *out, const char *out_name, const qmm_tensor *in, size_t in_elem,
                           const char *in_name);
/* The work size of j on n_threads threads (*_work_size). */
qmm_status qmm_op_work_size(const op_job *j, int n_threads, size_t *size);
/* Thread ith of the caller's nth runs j (*_compute): the thread arguments
 * checked, then the exec layer in the library's floating-point environment. */
qmm_status qmm_op_compute(op_job *j, int ith, int nth, void *work, size_t work_size, const qmm_sync *sync);
/* Grows the context scratch to j's work size and runs j on the context's pool. */
qmm_status qmm_run_pooled(qmm_context *ctx, op_job *j);

#endif
