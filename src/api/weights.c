/* Packed weights: planning a blob for the context's chains, packing it on
 * the pool, adopting caller-owned blobs, and the accessors. */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "base/error.h"
#include "exec/fpenv.h"
#include "formats/formats.h"
#include "packed/packed.h"

/* ------------------------------------------------------------------ weights */

typedef struct pack_job {
    const qmm_blob_plan *plan;
    const uint8_t *src;
    size_t stride;
    uint8_t *dst;
} pack_job;

/* Each thread packs an n_step-aligned row range of every slot (of every
 * expert: the panels of all experts are split as one range). */
static void pack_job_fn(void *arg, int ith, int nth, const qmm_sync *sync) {
    (void)sync;
    const pack_job *j = arg;
    const qmm_blob_plan *pl = j->plan;
    qmm_fpenv fe; /* packers may convert (F16 panels) */
    qmm_fpenv_enter(&fe);
    for (int s = 0; s < pl->nslots; s++) {
        const qmm_family *kf = pl->kf[s];
        const int64_t panels = (pl->n + kf->n_step - 1) / kf->n_step;
        const int64_t all = panels * pl->n_expert;
        const int64_t p0 = all * ith / nth, p1 = all * (ith + 1) / nth;
        for (int64_t p = p0; p < p1;) {
            const int64_t e = p / panels, q0 = p % panels;
            const int64_t q1 = (e + 1) * panels < p1 ? panels : p1 - e * panels;
            const int64_t r0 = q0 * kf->n_step, r1 = q1 * kf->n_step < pl->n ? q1 * kf->n_step : pl->n;
            kf->w_pack(pl->k, pl->n, r0, r1, j->src + (size_t)e * (size_t)pl->n * j->stride, j->stride,
                       j->dst + pl->offset[s] + (size_t)e * pl->expert_stride[s]);
            p = e * panels + q1;
        }
    }
    qmm_fpenv_leave(&fe);
}

/* The source must hold the plan's rows: checked before anything is
 * allocated for it, so a short source is an argument error, not a failed
 * allocation of the size its shape claims. */
static qmm_status check_source(const qmm_blob_plan *plan, size_t src_size) {
    const size_t rb = qmm_row_size(plan->type, plan->k);
    /* rows <= 2^44 (the plan checked the shape): no overflow */
    const uint64_t rows = (uint64_t)plan->n * (uint64_t)plan->n_expert;
    if ((uint64_t)src_size / rb < rows)
        return qmm_fail(QMM_ERR_INVALID_ARG, "source of %zu bytes is smaller than %llu rows of %zu bytes", src_size,
                        (unsigned long long)rows, rb);
    return QMM_OK;
}

qmm_status qmm_pack_plan_into(qmm_context *ctx, const qmm_blob_plan *plan, const void *src, size_t src_size, void *dst) {
    qmm_status st = check_source(plan, src_size);
    if (st)
        return st;
    const size_t rb = qmm_row_size(plan->type, plan->k);
    const size_t used = rb * (size_t)plan->n * (size_t)plan->n_expert;
    /* The packers read GGUF blocks through their C types: a source at an
     * address those types cannot sit at (a GGUF file with general.alignment
     * = 1, a byte buffer) is packed from an aligned copy. */
    void *copy = NULL;
    if ((uintptr_t)src % qmm_type_align(plan->type)) {
        copy = qmm_alloc_big(used);
        if (!copy)
            return qmm_fail(QMM_ERR_NO_MEMORY, "aligned copy of an unaligned source (%zu bytes)", used);
        memcpy(copy, src, used);
        src = copy;
    }
    /* zero the gaps, pack the slots in parallel, then write the header: it
     * names slots that are complete */
    memset(dst, 0, plan->total);
    pack_job j = {plan, src, rb, dst};
    pthread_mutex_lock(&ctx->lock);
    qmm_pool_run(ctx->pool, ctx->n_threads, pack_job_fn, &j);
    pthread_mutex_unlock(&ctx->lock);
    qmm_free_big(copy, used);
    qmm_blob_write_header(plan, dst);
    return QMM_OK;
}

static qmm_status packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, size_t *size,
                              const char *fn) {
    if (!ctx || !size)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: NULL argument", fn);
    qmm_blob_plan plan;
    qmm_status st = qmm_blob_plan_make_experts(&ctx->dispatch, ctx->pack_threads, type, k, n, n_expert, &plan);
    if (st)
        return st;
    *size = plan.total;
    return QMM_OK;
}

static qmm_status pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, const void *src,
                            size_t src_size, void *dst, size_t dst_size, const char *fn) {
    if (!ctx || !src || !dst)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: NULL argument", fn);
    /* the rule of qmm_weights_from_blob: the packers store 16-byte vectors */
    if ((uintptr_t)dst % 16 != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: destination at %p is not 16-byte aligned", fn, dst);
    qmm_blob_plan plan;
    qmm_status st = qmm_blob_plan_make_experts(&ctx->dispatch, ctx->pack_threads, type, k, n, n_expert, &plan);
    if (st)
        return st;
    if (dst_size < plan.total)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: destination of %zu bytes, %zu needed", fn, dst_size, plan.total);
    if ((st = check_source(&plan, src_size)))
        return st;
    return qmm_pack_plan_into(ctx, &plan, src, src_size, dst);
}

qmm_status qmm_packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, size_t *size) {
    return packed_size(ctx, type, k, n, 1, size, "qmm_packed_size");
}

qmm_status qmm_pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size, void *dst,
                         size_t dst_size) {
    return pack_into(ctx, type, k, n, 1, src, src_size, dst, dst_size, "qmm_pack_into");
}

qmm_status qmm_experts_packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, size_t *size) {
    return packed_size(ctx, type, k, n, n_expert, size, "qmm_experts_packed_size");
}

qmm_status qmm_experts_pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, const void *src,
                                 size_t src_size, void *dst, size_t dst_size) {
    return pack_into(ctx, type, k, n, n_expert, src, src_size, dst, dst_size, "qmm_experts_pack_into");
}

static qmm_status weights_pack(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, const void *src,
                               size_t src_size, qmm_weights **out, const char *fn) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!ctx || !src)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: NULL argument", fn);
    qmm_blob_plan plan;
    qmm_status st = qmm_blob_plan_make_experts(&ctx->dispatch, ctx->pack_threads, type, k, n, n_expert, &plan);
    if (st || (st = check_source(&plan, src_size)))
        return st;
    qmm_weights *w = calloc(1, sizeof *w);
    void *mem = qmm_alloc_big(plan.total);
    if (!w || !mem) {
        free(w);
        qmm_free_big(mem, plan.total);
        return qmm_fail(QMM_ERR_NO_MEMORY, "packed weights of %zu bytes", plan.total);
    }
    st = qmm_pack_plan_into(ctx, &plan, src, src_size, mem);
    if (st == QMM_OK)
        st = qmm_blob_validate(&ctx->dispatch, mem, plan.total, w);
    if (st != QMM_OK) {
        free(w);
        qmm_free_big(mem, plan.total);
        return st;
    }
    w->owned = mem;
    w->owned_size = plan.total;
    *out = w;
    qmm_log(QMM_LOG_DEBUG, "packed %s %lld x %lld x %lld: %s%s%s", qmm_type_name(type), (long long)n, (long long)k,
            (long long)n_expert, w->kf[0]->name, w->nslots > 1 ? " + " : "", w->nslots > 1 ? w->kf[1]->name : "");
    return QMM_OK;
}

qmm_status qmm_weights_pack(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size,
                            qmm_weights **out) {
    return weights_pack(ctx, type, k, n, 1, src, src_size, out, "qmm_weights_pack");
}

qmm_status qmm_experts_pack(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, const void *src,
                            size_t src_size, qmm_weights **out) {
    return weights_pack(ctx, type, k, n, n_expert, src, src_size, out, "qmm_experts_pack");
}

int64_t qmm_weights_n_expert(const qmm_weights *w) { return w ? w->n_expert : 0; }

qmm_status qmm_weights_expert(const qmm_weights *w, int64_t e, qmm_weights **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_expert: out is NULL");
    *out = NULL;
    if (!w)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_expert: weights is NULL");
    if (e < 0 || e >= w->n_expert)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_expert: expert %lld is out of range [0, %lld)", (long long)e,
                        (long long)w->n_expert);
    qmm_weights *v = malloc(sizeof *v);
    if (!v)
        return qmm_fail(QMM_ERR_NO_MEMORY, "weights view");
    *v = *w;
    /* borrows w's memory: nothing to free or release */
    v->owned = NULL;
    v->owned_size = 0;
    v->release = NULL;
    v->owner = NULL;
    v->is_view = 1;
    v->n_expert = 1;
    for (int s = 0; s < w->nslots; s++)
        v->data[s] = w->data[s] + (size_t)e * w->expert_stride[s];
    *out = v;
    return QMM_OK;
}

qmm_status qmm_weights_from_blob(qmm_context *ctx, const void *blob, size_t size, qmm_weights **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_from_blob: out is NULL");
    *out = NULL;
    if (!ctx || !blob)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_from_blob: NULL argument");
    if ((uintptr_t)blob % 16 != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "blob at %p is not 16-byte aligned", blob);
    qmm_weights tmp;
    qmm_status st = qmm_blob_validate(&ctx->dispatch, blob, size, &tmp);
    if (st)
        return st;
    qmm_weights *w = malloc(sizeof *w);
    if (!w)
        return qmm_fail(QMM_ERR_NO_MEMORY, "weights");
    *w = tmp;
    *out = w;
    return QMM_OK;
}

void qmm_weights_free(qmm_weights *w) {
    if (!w)
        return;
    qmm_free_big(w->owned, w->owned_size);
    if (w->release)
        w->release(w->owner);
    free(w);
}

const char *qmm_weights_kernel(const qmm_weights *w) { return w ? w->kf[0]->name : NULL; }
const char *qmm_weights_slot_kernel(const qmm_weights *w, int slot) {
    return (w && slot >= 0 && slot < w->nslots) ? w->kf[slot]->name : NULL;
}
int qmm_weights_slot_count(const qmm_weights *w) { return w ? w->nslots : 0; }
qmm_type qmm_weights_type(const qmm_weights *w) { return w ? w->type : QMM_TYPE_COUNT; }
int64_t qmm_weights_k(const qmm_weights *w) { return w ? w->k : 0; }
int64_t qmm_weights_n(const qmm_weights *w) { return w ? w->n : 0; }
qmm_status qmm_weights_unpack(const qmm_weights *w, int64_t row0, int64_t nrows, void *dst, size_t dst_size) {
    if (!w || (!dst && nrows > 0))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_unpack: NULL argument");
    const int64_t rows = w->n * w->n_expert;
    if (row0 < 0 || nrows < 0 || row0 > rows || nrows > rows - row0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_unpack: rows [%lld, %lld) are outside the %lld rows of the weights",
                        (long long)row0, (long long)(row0 + nrows), (long long)rows);
    const qmm_family *kf = w->kf[0];
    const size_t rb = qmm_row_size(w->type, w->k);
    if ((uint64_t)nrows > dst_size / rb)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_unpack: %lld rows of %zu bytes do not fit in %zu bytes",
                        (long long)nrows, rb, dst_size);
    if (!kf->w_unpack_row)
        return qmm_fail(QMM_ERR_UNSUPPORTED, "qmm_weights_unpack: family %s cannot unpack", kf->name);
    for (int64_t i = 0; i < nrows; i++) {
        const int64_t e = (row0 + i) / w->n, r = (row0 + i) % w->n;
        kf->w_unpack_row(w->data[0] + (size_t)e * w->expert_stride[0], w->k, w->n, r, (uint8_t *)dst + (size_t)i * rb);
    }
    return QMM_OK;
}

const void *qmm_weights_blob(const qmm_weights *w, size_t *size) {
    /* a view of one expert has no blob of its own */
    const int has = w && !w->is_view;
    if (size)
        *size = has ? w->size : 0;
    return has ? w->blob : NULL;
}
