/* The operations' public entry points: argument checks, work sizes, and the
 * pooled and bring-your-own-threads runs of the exec layer. */
#include <string.h>

#include "api/internal.h"
#include "api/ops_internal.h"
#include "base/error.h"
#include "exec/exec.h"
#include "exec/fpenv.h"

#define MAX_NTH   QMM_MAX_NTH
#define MAX_ELEMS ((int64_t)1 << 40)

/* A tensor view: positive dims, byte strides aligned to the element, and
 * every address it spans representable. */
qmm_status qmm_check_view(const qmm_tensor *t, const char *what, qmm_type type, size_t elem) {
    if (!t)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s is NULL", what);
    if (qmm_check_reserved(t->reserved, 2, what) != QMM_OK)
        return QMM_ERR_INVALID_ARG;
    if (t->type != type)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s has type %s, expected %s", what,
                        qmm_type_name(t->type) ? qmm_type_name(t->type) : "?", qmm_type_name(type));
    if (!t->data)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s data is NULL", what);
    if ((uintptr_t)t->data % elem)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s data is not %zu-byte aligned", what, elem);
    uint64_t span = elem, total = 1;
    for (int i = 0; i < 4; i++) {
        if (t->ne[i] <= 0 || t->ne[i] > MAX_ELEMS)
            return qmm_fail(QMM_ERR_INVALID_ARG, "%s ne[%d] = %lld", what, i, (long long)t->ne[i]);
        total *= (uint64_t)t->ne[i];
        if (total > (uint64_t)MAX_ELEMS)
            return qmm_fail(QMM_ERR_INVALID_ARG, "%s has too many elements", what);
        if (t->nb[i] % elem)
            return qmm_fail(QMM_ERR_INVALID_ARG, "%s nb[%d] = %zu is not a multiple of %zu", what, i, t->nb[i], elem);
        if (t->ne[i] > 1 && t->nb[i] > (UINT64_MAX / 4) / (uint64_t)(t->ne[i] - 1))
            return qmm_fail(QMM_ERR_INVALID_ARG, "%s strides overflow", what);
        span += (uint64_t)(t->ne[i] - 1) * t->nb[i];
        if (span > (uint64_t)PTRDIFF_MAX || span > UINTPTR_MAX - (uintptr_t)t->data)
            return qmm_fail(QMM_ERR_INVALID_ARG, "%s spans more memory than can be addressed", what);
    }
    if (t->nb[0] != elem)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s nb[0] = %zu, expected %zu (rows contiguous in elements)", what, t->nb[0], elem);
    return QMM_OK;
}

/* An output view must not alias itself: each dim of more than one element
 * steps past everything the dims inside it span. A dim of size 1 spans
 * nothing of its own, but the ones outside it must still clear the inner
 * extent: [n, 1, B] with 4-byte strides would put every batch on one row. */
qmm_status qmm_check_output(const qmm_tensor *t, const char *what) {
    uint64_t inner = (uint64_t)t->nb[0] * (uint64_t)t->ne[0]; /* bytes the dims below i span */
    for (int i = 1; i < 4; i++) {
        if (t->ne[i] > 1 && t->nb[i] < inner)
            return qmm_fail(QMM_ERR_INVALID_ARG, "%s nb[%d] = %zu overlaps the dims inside it (needs >= %llu)", what, i, t->nb[i],
                            (unsigned long long)inner);
        inner += (uint64_t)(t->ne[i] - 1) * t->nb[i];
    }
    return QMM_OK;
}

/* Bytes from a view's first element to one past its last (the view passed
 * check_view: no overflow). */
static uint64_t view_span(const qmm_tensor *t, size_t elem) {
    uint64_t span = elem;
    for (int i = 0; i < 4; i++)
        span += (uint64_t)(t->ne[i] - 1) * t->nb[i];
    return span;
}

/* Whether the memory two views span intersects (a view interleaved with
 * another counts as overlapping: cheap and conservative). */
int qmm_views_overlap(const qmm_tensor *a, size_t ea, const qmm_tensor *b, size_t eb) {
    const uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    return a0 < b0 + view_span(b, eb) && b0 < a0 + view_span(a, ea);
}

/* An output must not share memory with an input: the inputs are read while
 * the output is written, by other threads too. */
qmm_status qmm_check_apart(const char *op, const qmm_tensor *out, const char *out_name, const qmm_tensor *in, size_t in_elem,
                           const char *in_name) {
    if (qmm_views_overlap(in, in_elem, out, 4))
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: %s overlaps %s", op, out_name, in_name);
    return QMM_OK;
}

/* Checks a MUL_MAT's arguments; *j is its job. */
static qmm_status mul_mat_job(const qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, op_job *j) {
    *j = (op_job){OP_MUL_MAT, ctx, w, x, y, NULL, NULL};
    if (!ctx || !w)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat: context or weights is NULL");
    qmm_status st;
    if ((st = qmm_check_view(x, "x", QMM_TYPE_F32, 4)) || (st = qmm_check_view(y, "y", QMM_TYPE_F32, 4)) ||
        (st = qmm_check_output(y, "y")) || (st = qmm_check_apart("mul_mat", y, "y", x, 4, "x")))
        return st;
    if (x->ne[0] != w->k)
        return qmm_fail(QMM_ERR_INVALID_ARG, "x ne[0] = %lld, the weights have k = %lld", (long long)x->ne[0], (long long)w->k);
    if (y->ne[0] != w->n)
        return qmm_fail(QMM_ERR_INVALID_ARG, "y ne[0] = %lld, the weights have n = %lld", (long long)y->ne[0], (long long)w->n);
    for (int i = 1; i < 4; i++)
        if (y->ne[i] != x->ne[i])
            return qmm_fail(QMM_ERR_INVALID_ARG, "y ne[%d] = %lld, x ne[%d] = %lld", i, (long long)y->ne[i], i,
                            (long long)x->ne[i]);
    if (w->n_expert > 1)
        return qmm_fail(QMM_ERR_INVALID_ARG,
                        "mul_mat: the weights hold %lld experts: multiply them with qmm_mul_mat_id (or one expert's "
                        "qmm_weights_expert view)",
                        (long long)w->n_expert);
    for (int s = 0; s < w->nslots; s++)
        if (w->kf[s]->required & ~ctx->dispatch.features)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "weights packed for '%s', which this context cannot run", w->kf[s]->name);
    return QMM_OK;
}

/* The scratch j needs on nth threads (all the threads share it). */
static size_t op_work_size(const op_job *j, int nth) {
    const qmm_exec_config *exec = &j->ctx->exec;
    switch (j->op) {
    case OP_MUL_MAT: return qmm_exec_mul_mat_work_size(exec, j->w, j->a, nth);
    case OP_GET_ROWS: return 0;
    case OP_MUL_MAT_F16: return qmm_exec_mul_mat_f16_work_size(exec, j->a, j->b, nth);
    case OP_MUL_MAT_ID: return qmm_exec_mul_mat_id_work_size(exec, j->w, j->a, j->b, nth);
    }
    return 0;
}

/* Every thread that runs a job, the pool's or the caller's. */
static void op_job_fn(void *arg, int ith, int nth, const qmm_sync *sync) {
    const op_job *j = arg;
    const qmm_exec_config *exec = &j->ctx->exec;
    qmm_fpenv fe;
    qmm_fpenv_enter(&fe);
    switch (j->op) {
    case OP_MUL_MAT: qmm_exec_mul_mat(exec, j->w, j->a, j->b, ith, nth, j->work, sync); break;
    case OP_GET_ROWS: qmm_exec_get_rows(j->w, j->a, j->b, ith, nth); break;
    case OP_MUL_MAT_F16: qmm_exec_mul_mat_f16(exec, j->a, j->b, j->c, ith, nth, j->work, sync); break;
    case OP_MUL_MAT_ID: qmm_exec_mul_mat_id(exec, j->w, j->a, j->b, j->c, ith, nth, j->work, sync); break;
    }
    qmm_fpenv_leave(&fe);
}

qmm_status qmm_op_work_size(const op_job *j, int n_threads, size_t *size) {
    if (!size || n_threads < 1 || n_threads > MAX_NTH)
        return qmm_fail(QMM_ERR_INVALID_ARG, "work size: bad thread count %d or NULL size", n_threads);
    *size = op_work_size(j, n_threads);
    return QMM_OK;
}

qmm_status qmm_op_compute(op_job *j, int ith, int nth, void *work, size_t work_size, const qmm_sync *sync) {
    if (nth < 1 || nth > MAX_NTH || ith < 0 || ith >= nth) /* before the work size, which takes nth */
        return qmm_fail(QMM_ERR_INVALID_ARG, "thread %d of %d", ith, nth);
    if (sync && qmm_check_reserved(sync->reserved, 2, "qmm_sync") != QMM_OK)
        return QMM_ERR_INVALID_ARG;
    if (!sync || !sync->barrier || !sync->counter_store || !sync->counter_fetch_add)
        return qmm_fail(QMM_ERR_INVALID_ARG, "sync callbacks missing");
    const size_t need = op_work_size(j, nth);
    if (work_size < need)
        return qmm_fail(QMM_ERR_INVALID_ARG, "work buffer of %zu bytes, %zu needed", work_size, need);
    if (need && (!work || (uintptr_t)work % 64))
        return qmm_fail(QMM_ERR_INVALID_ARG, "work buffer is NULL or not 64-byte aligned");
    j->work = work;
    op_job_fn(j, ith, nth, sync);
    return QMM_OK;
}

/* ----------------------------------------------------------- pooled runs */

/* Grows the context scratch (under ctx->lock) and runs the job on the pool. */
qmm_status qmm_run_pooled(qmm_context *ctx, op_job *j) {
    const size_t need = op_work_size(j, ctx->n_threads);
    pthread_mutex_lock(&ctx->lock);
    if (need > ctx->scratch_size) {
        qmm_free_big(ctx->scratch, ctx->scratch_size);
        ctx->scratch_size = 0;
        ctx->scratch = qmm_alloc_big(need + need / 4);
        if (!ctx->scratch) {
            pthread_mutex_unlock(&ctx->lock);
            return qmm_fail(QMM_ERR_NO_MEMORY, "scratch of %zu bytes", need);
        }
        ctx->scratch_size = need + need / 4;
    }
    j->work = ctx->scratch;
    qmm_pool_run(ctx->pool, ctx->n_threads, op_job_fn, j);
    pthread_mutex_unlock(&ctx->lock);
    return QMM_OK;
}

/* ------------------------------------------------------------- MUL_MAT */

qmm_status qmm_mul_mat_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, int n_threads,
                                 size_t *size) {
    op_job j;
    const qmm_status st = mul_mat_job(ctx, w, x, y, &j);
    return st ? st : qmm_op_work_size(&j, n_threads, size);
}

qmm_status qmm_mul_mat_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, int ith, int nth,
                               void *work, size_t work_size, const qmm_sync *sync) {
    op_job j;
    const qmm_status st = mul_mat_job(ctx, w, x, y, &j);
    return st ? st : qmm_op_compute(&j, ith, nth, work, work_size, sync);
}

qmm_status qmm_mul_mat(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y) {
    op_job j;
    const qmm_status st = mul_mat_job(ctx, w, x, y, &j);
    return st ? st : qmm_run_pooled(ctx, &j);
}

/* ------------------------------------------------------------ GET_ROWS */

/* Checks a GET_ROWS's arguments; *j is its job. */
static qmm_status get_rows_job(const qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out,
                               op_job *j) {
    *j = (op_job){OP_GET_ROWS, ctx, w, ids, out, NULL, NULL};
    if (!ctx || !w)
        return qmm_fail(QMM_ERR_INVALID_ARG, "get_rows: context or weights is NULL");
    if (!qmm_exec_rows_readable(w->kf[0]))
        return qmm_fail(QMM_ERR_UNSUPPORTED, "get_rows: rows of %s weights (family %s) cannot be read",
                        qmm_type_name(w->kf[0]->wtype), w->kf[0]->name);
    qmm_status st;
    if ((st = qmm_check_view(ids, "ids", QMM_TYPE_I32, 4)) || (st = qmm_check_view(out, "out", QMM_TYPE_F32, 4)) ||
        (st = qmm_check_output(out, "out")))
        return st;
    /* the ids are validated here, then read again while rows are written:
     * rows written over them would turn into unchecked ids */
    if ((st = qmm_check_apart("get_rows", out, "out", ids, 4, "ids")))
        return st;
    if (ids->ne[3] != 1)
        return qmm_fail(QMM_ERR_INVALID_ARG, "ids has 4 dims; [r], [r, b1] or [r, b1, b2] expected");
    if (w->n_expert > 1 && ids->ne[1] != w->n_expert)
        return qmm_fail(QMM_ERR_INVALID_ARG,
                        "get_rows of %lld experts: ids ne[1] = %lld, expected [r, n_expert = %lld, b2] (ids[i0, i1, i2] is a "
                        "row of expert i1)",
                        (long long)w->n_expert, (long long)ids->ne[1], (long long)w->n_expert);
    if (out->ne[0] != w->k)
        return qmm_fail(QMM_ERR_INVALID_ARG, "out ne[0] = %lld, the weights have k = %lld", (long long)out->ne[0],
                        (long long)w->k);
    for (int i = 0; i < 3; i++)
        if (out->ne[i + 1] != ids->ne[i])
            return qmm_fail(QMM_ERR_INVALID_ARG, "out ne[%d] = %lld, ids ne[%d] = %lld", i + 1, (long long)out->ne[i + 1], i,
                            (long long)ids->ne[i]);
    for (int64_t i2 = 0; i2 < ids->ne[2]; i2++)
        for (int64_t i1 = 0; i1 < ids->ne[1]; i1++)
            for (int64_t i0 = 0; i0 < ids->ne[0]; i0++) {
                const int32_t id = *(const int32_t *)((const char *)ids->data + (size_t)i0 * ids->nb[0] +
                                                      (size_t)i1 * ids->nb[1] + (size_t)i2 * ids->nb[2]);
                if (id < 0 || id >= w->n)
                    return qmm_fail(QMM_ERR_INVALID_ARG, "ids[%lld, %lld, %lld] = %d is out of range [0, %lld)", (long long)i0,
                                    (long long)i1, (long long)i2, id, (long long)w->n);
            }
    return QMM_OK;
}

qmm_status qmm_get_rows_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out,
                                  int n_threads, size_t *size) {
    op_job j;
    const qmm_status st = get_rows_job(ctx, w, ids, out, &j);
    return st ? st : qmm_op_work_size(&j, n_threads, size);
}

qmm_status qmm_get_rows_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out, int ith,
                                int nth, void *work, size_t work_size, const qmm_sync *sync) {
    op_job j;
    const qmm_status st = get_rows_job(ctx, w, ids, out, &j);
    return st ? st : qmm_op_compute(&j, ith, nth, work, work_size, sync);
}

qmm_status qmm_get_rows(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out) {
    op_job j;
    const qmm_status st = get_rows_job(ctx, w, ids, out, &j);
    return st ? st : qmm_run_pooled(ctx, &j);
}

/* ------------------------------------------------- F16, packed per call */

/* Checks an F16 product's arguments; *j is its job. */
static qmm_status mul_mat_f16_job(const qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y,
                                  op_job *j) {
    *j = (op_job){OP_MUL_MAT_F16, ctx, NULL, w, x, y, NULL};
    if (!ctx)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_f16: context is NULL");
    qmm_status st;
    if ((st = qmm_check_view(w, "w", QMM_TYPE_F16, 2)) || (st = qmm_check_view(x, "x", QMM_TYPE_F32, 4)) ||
        (st = qmm_check_view(y, "y", QMM_TYPE_F32, 4)) || (st = qmm_check_output(y, "y")) ||
        (st = qmm_check_apart("mul_mat_f16", y, "y", x, 4, "x")) || (st = qmm_check_apart("mul_mat_f16", y, "y", w, 2, "w")))
        return st;
    if (x->ne[0] != w->ne[0])
        return qmm_fail(QMM_ERR_INVALID_ARG, "x ne[0] = %lld, w ne[0] = %lld", (long long)x->ne[0], (long long)w->ne[0]);
    if (y->ne[0] != w->ne[1])
        return qmm_fail(QMM_ERR_INVALID_ARG, "y ne[0] = %lld, w ne[1] = %lld", (long long)y->ne[0], (long long)w->ne[1]);
    for (int i = 1; i < 4; i++)
        if (y->ne[i] != x->ne[i])
            return qmm_fail(QMM_ERR_INVALID_ARG, "y ne[%d] = %lld, x ne[%d] = %lld", i, (long long)y->ne[i], i,
                            (long long)x->ne[i]);
    if (x->ne[2] % w->ne[2] || x->ne[3] % w->ne[3])
        return qmm_fail(QMM_ERR_INVALID_ARG, "x batches [%lld, %lld] are not multiples of w batches [%lld, %lld]",
                        (long long)x->ne[2], (long long)x->ne[3], (long long)w->ne[2], (long long)w->ne[3]);
    return QMM_OK;
}

qmm_status qmm_mul_mat_f16_work_size(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y,
                                     int n_threads, size_t *size) {
    op_job j;
    const qmm_status st = mul_mat_f16_job(ctx, w, x, y, &j);
    return st ? st : qmm_op_work_size(&j, n_threads, size);
}

qmm_status qmm_mul_mat_f16_compute(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                                   int nth, void *work, size_t work_size, const qmm_sync *sync) {
    op_job j;
    const qmm_status st = mul_mat_f16_job(ctx, w, x, y, &j);
    return st ? st : qmm_op_compute(&j, ith, nth, work, work_size, sync);
}

qmm_status qmm_mul_mat_f16(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y) {
    op_job j;
    const qmm_status st = mul_mat_f16_job(ctx, w, x, y, &j);
    return st ? st : qmm_run_pooled(ctx, &j);
}
