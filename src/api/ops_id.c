/* MUL_MAT_ID's public entry points: argument checks, the work size, and the
 * pooled and bring-your-own-threads runs of qmm_exec_mul_mat_id. */
#include "api/ops_internal.h"
#include "base/error.h"

/* Pairs (u, t) per call: their indices are int32 in the work buffer. */
#define MAX_PAIRS ((int64_t)1 << 30)

/* Checks a MUL_MAT_ID's arguments; *j is its job. */
static qmm_status mul_mat_id_job(const qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                 const qmm_tensor *y, op_job *j) {
    *j = (op_job){OP_MUL_MAT_ID, ctx, w, x, ids, y, NULL};
    if (!ctx || !w)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: context or weights is NULL");
    qmm_status st;
    if ((st = qmm_check_view(x, "x", QMM_TYPE_F32, 4)) || (st = qmm_check_view(ids, "ids", QMM_TYPE_I32, 4)) ||
        (st = qmm_check_view(y, "y", QMM_TYPE_F32, 4)) || (st = qmm_check_output(y, "y")))
        return st;
    if (ids->ne[2] != 1 || ids->ne[3] != 1)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: ids is [%lld, %lld, %lld, %lld], expected [U, T]",
                        (long long)ids->ne[0], (long long)ids->ne[1], (long long)ids->ne[2], (long long)ids->ne[3]);
    const int64_t nu = ids->ne[0], nt = ids->ne[1];
    if (x->ne[3] != 1 || y->ne[3] != 1)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: x and y have 3 dims at most (x ne[3] = %lld, y ne[3] = %lld)",
                        (long long)x->ne[3], (long long)y->ne[3]);
    if (x->ne[0] != w->k)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: x ne[0] = %lld, the weights have k = %lld", (long long)x->ne[0],
                        (long long)w->k);
    if (y->ne[0] != w->n)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: y ne[0] = %lld, the weights have n = %lld", (long long)y->ne[0],
                        (long long)w->n);
    if (y->ne[1] != nu || y->ne[2] != nt)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: y is [n, %lld, %lld], ids [U, T] = [%lld, %lld]: y must be [n, U, T]",
                        (long long)y->ne[1], (long long)y->ne[2], (long long)nu, (long long)nt);
    if (x->ne[2] != nt)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: x has %lld tokens (ne[2]), ids %lld (ne[1])", (long long)x->ne[2],
                        (long long)nt);
    if (x->ne[1] != 1 && x->ne[1] != nu)
        return qmm_fail(QMM_ERR_INVALID_ARG,
                        "mul_mat_id: x has %lld rows per token (ne[1]): 1 (shared by the chosen experts) or U = %lld (one "
                        "per chosen expert) expected",
                        (long long)x->ne[1], (long long)nu);
    if (nu * nt > MAX_PAIRS)
        return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: %lld x %lld expert slots, at most %lld", (long long)nu, (long long)nt,
                        (long long)MAX_PAIRS);
    /* ids are read again when the rows are grouped */
    if ((st = qmm_check_apart("mul_mat_id", y, "y", ids, 4, "ids")) || (st = qmm_check_apart("mul_mat_id", y, "y", x, 4, "x")))
        return st;
    for (int64_t t = 0; t < nt; t++)
        for (int64_t u = 0; u < nu; u++) {
            const int32_t id = *(const int32_t *)((const char *)ids->data + (size_t)u * ids->nb[0] + (size_t)t * ids->nb[1]);
            if (id < 0 || id >= w->n_expert)
                return qmm_fail(QMM_ERR_INVALID_ARG, "mul_mat_id: ids[%lld, %lld] = %d is not an expert: out of range [0, %lld)",
                                (long long)u, (long long)t, id, (long long)w->n_expert);
        }
    for (int s = 0; s < w->nslots; s++)
        if (w->kf[s]->required & ~ctx->dispatch.features)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "weights packed for '%s', which this context cannot run", w->kf[s]->name);
    return QMM_OK;
}

qmm_status qmm_mul_mat_id_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                    const qmm_tensor *y, int n_threads, size_t *size) {
    op_job j;
    const qmm_status st = mul_mat_id_job(ctx, w, x, ids, y, &j);
    return st ? st : qmm_op_work_size(&j, n_threads, size);
}

qmm_status qmm_mul_mat_id_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                  const qmm_tensor *y, int ith, int nth, void *work, size_t work_size, const qmm_sync *sync) {
    op_job j;
    const qmm_status st = mul_mat_id_job(ctx, w, x, ids, y, &j);
    return st ? st : qmm_op_compute(&j, ith, nth, work, work_size, sync);
}

qmm_status qmm_mul_mat_id(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                          const qmm_tensor *y) {
    op_job j;
    const qmm_status st = mul_mat_id_job(ctx, w, x, ids, y, &j);
    return st ? st : qmm_run_pooled(ctx, &j);
}
