/* The public API: argument checks and statuses around the layers below. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api/internal.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "cpu/env.h"
#include "exec/exec.h"
#include "exec/fpenv.h"
#include "formats/formats.h"
#include "packed/packed.h"

#ifndef QMM_VERSION_STRING
#define QMM_VERSION_STRING "0.0.0"
#endif

#define MAX_THREADS 4096

const char *qmm_version(void) { return QMM_VERSION_STRING; }

qmm_status qmm_tensor_init(qmm_tensor *t, qmm_type type, int n_dims, const int64_t *ne, void *data) {
    if (!t || (n_dims > 0 && !ne) || n_dims < 0 || n_dims > 4)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: bad arguments");
    const int64_t blk = qmm_type_block_elems(type);
    if (blk <= 0)
        return qmm_fail(QMM_ERR_UNSUPPORTED, "qmm_tensor_init: unknown type %d", (int)type);
    memset(t, 0, sizeof *t);
    t->type = type;
    for (int i = 0; i < 4; i++)
        t->ne[i] = i < n_dims ? ne[i] : 1;
    for (int i = 0; i < 4; i++)
        if (t->ne[i] <= 0)
            return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: ne[%d] = %lld", i, (long long)t->ne[i]);
    const size_t row = qmm_row_size(type, t->ne[0]);
    if (!row)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: ne[0] = %lld is not a multiple of the %s block",
                        (long long)t->ne[0], qmm_type_name(type));
    /* the whole tensor's bytes must be representable (no wrapped strides) */
    uint64_t bytes = row;
    for (int i = 1; i < 4; i++) {
        if ((uint64_t)t->ne[i] > (uint64_t)PTRDIFF_MAX / bytes)
            return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: a tensor of %lld x %lld x %lld x %lld overflows",
                            (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3]);
        bytes *= (uint64_t)t->ne[i];
    }
    t->nb[0] = qmm_type_block_bytes(type);
    t->nb[1] = row;
    t->nb[2] = t->nb[1] * (size_t)t->ne[1];
    t->nb[3] = t->nb[2] * (size_t)t->ne[2];
    t->data = data;
    return QMM_OK;
}

/* ------------------------------------------------------------------ context */

/* A copy of an option string to tokenize, whole: one too long is refused
 * (the environment's were refused by qmm_env_read, with a warning). */
static qmm_status copy_list(const char *list, const char *what, char buf[QMM_OPTION_STRING_MAX + 1]) {
    const size_t n = strlen(list);
    if (n > QMM_OPTION_STRING_MAX)
        return qmm_fail(QMM_ERR_INVALID_ARG, "options.%s is %zu characters long; at most %d are accepted", what, n,
                        QMM_OPTION_STRING_MAX);
    memcpy(buf, list, n + 1);
    return QMM_OK;
}

static qmm_status hide_features(const char *list, int strict, uint64_t *features) {
    char buf[QMM_OPTION_STRING_MAX + 1];
    qmm_status st = copy_list(list, "hide_features", buf);
    if (st)
        return st;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const uint64_t bit = qmm_cpu_feature_from_name(tok);
        if (!bit) {
            if (strict)
                return qmm_fail(QMM_ERR_INVALID_ARG, "unknown CPU feature '%s' to hide", tok);
            qmm_log(QMM_LOG_WARN, "QMM_HIDE_FEATURES: unknown feature '%s' ignored", tok);
            continue;
        }
        *features &= ~bit;
    }
    return QMM_OK;
}

static qmm_status force_kernels(qmm_context *ctx, const char *list, int strict, const qmm_kernel **forced) {
    char buf[QMM_OPTION_STRING_MAX + 1];
    qmm_status st = copy_list(list, "kernel", buf);
    if (st)
        return st;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const qmm_kernel *kf = qmm_kernel_find(tok);
        const char *why = !kf                                        ? "no such kernel family"
                          : (kf->required & ~ctx->dispatch.features) ? "this CPU lacks its features"
                                                                     : NULL;
        if (why) {
            if (strict)
                return qmm_fail(kf ? QMM_ERR_UNSUPPORTED : QMM_ERR_INVALID_ARG, "kernel '%s': %s", tok, why);
            qmm_log(QMM_LOG_WARN, "QMM_KERNEL=%s: %s; ignored", tok, why);
            continue;
        }
        forced[qmm_wtype_index(kf->wtype)] = kf;
    }
    return QMM_OK;
}

qmm_status qmm_context_create(const qmm_options *opts_in, qmm_context **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_context_create: out is NULL");
    *out = NULL;
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    if (opts_in)
        opts = *opts_in;
    if (opts.n_threads < 0 || opts.n_threads > MAX_THREADS)
        return qmm_fail(QMM_ERR_INVALID_ARG, "n_threads = %d: expected 0 (all cores) to %d", opts.n_threads, MAX_THREADS);
    if (opts.thread_cap < 0 || opts.chunk_multiplier < 0 || opts.pack_threads < 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "negative thread_cap, chunk_multiplier or pack_threads");
    if (opts.flags & ~(unsigned)(QMM_CAP_ALL_PRIMARIES | QMM_IGNORE_ENV))
        return qmm_fail(QMM_ERR_INVALID_ARG, "unknown option flags 0x%x", opts.flags);
    qmm_env env;
    if (opts.flags & QMM_IGNORE_ENV) {
        memset(&env, 0, sizeof env);
        env.sme = -1;
        env.log_level = -1;
    } else {
        qmm_env_read(&env);
    }
    if (env.log_level >= 0)
        qmm_log_set_level(env.log_level);

    qmm_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return qmm_fail(QMM_ERR_NO_MEMORY, "context");
    pthread_mutex_init(&ctx->lock, NULL);
    ctx->cpu = *qmm_cpu_detect();
    ctx->dispatch.features = ctx->cpu.features;
    qmm_status st = QMM_OK;
    if (opts.hide_features)
        st = hide_features(opts.hide_features, 1, &ctx->dispatch.features);
    else if (env.hide[0])
        st = hide_features(env.hide, 0, &ctx->dispatch.features);
    if (st != QMM_OK)
        goto fail;
    ctx->cpu.features = ctx->dispatch.features;

    ctx->n_threads = opts.n_threads > 0 ? opts.n_threads : ctx->cpu.n_cores;
    ctx->chunk_multiplier = opts.chunk_multiplier > 0  ? opts.chunk_multiplier
                            : env.chunk_multiplier > 0 ? env.chunk_multiplier
                                                       : 4;
    ctx->pack_threads = opts.pack_threads > 0 ? opts.pack_threads : env.threads > 0 ? env.threads : ctx->n_threads;
    ctx->exec.dispatch = &ctx->dispatch;
    ctx->exec.chunk_multiplier = ctx->cpu.numa_nodes > 1 ? 1 : ctx->chunk_multiplier;

    /* SME: QMM_SME=0 disables the families, N caps their threads; else the
     * detected unit count, or 1 (conservative) when it is unknown. */
    const uint64_t sme_bits = QMM_CPU_SME | QMM_CPU_SME2;
    if (ctx->dispatch.features & QMM_CPU_SME) {
        if (env.sme == 0) {
            ctx->dispatch.features &= ~sme_bits;
        } else if (env.sme > 0) {
            ctx->dispatch.capped_threads = env.sme;
        } else {
            ctx->dispatch.capped_threads = ctx->cpu.sme_units > 0 ? ctx->cpu.sme_units : 1;
            if (ctx->cpu.sme_units <= 0)
                qmm_log(QMM_LOG_INFO, "SME present, unit count unknown: SME threads capped at 1");
        }
    } else if (env.sme > 0) {
        qmm_log(QMM_LOG_WARN, "QMM_SME=%d but this CPU has no SME", env.sme);
    }
    if (opts.thread_cap > 0 && !(opts.flags & QMM_CAP_ALL_PRIMARIES))
        ctx->dispatch.capped_threads = opts.thread_cap;
    ctx->dispatch.primary_cap = (opts.flags & QMM_CAP_ALL_PRIMARIES) ? opts.thread_cap : env.cap;

    const qmm_kernel *forced[QMM_N_WTYPES] = {0};
    if (opts.kernel)
        st = force_kernels(ctx, opts.kernel, 1, forced);
    else if (env.kernel[0])
        st = force_kernels(ctx, env.kernel, 0, forced);
    if (st != QMM_OK)
        goto fail;
    for (int i = 0; i < QMM_N_WTYPES; i++) {
        ctx->dispatch.chains[i] = qmm_chain_select(qmm_packable_types[i], ctx->dispatch.features, forced[i]);
        qmm_log(QMM_LOG_DEBUG, "%s: primary %s, fallback %s, cap %d", qmm_type_name(qmm_packable_types[i]),
                ctx->dispatch.chains[i].primary->name,
                ctx->dispatch.chains[i].fallback ? ctx->dispatch.chains[i].fallback->name : "none",
                qmm_dispatch_cap(&ctx->dispatch, ctx->dispatch.chains[i].primary));
    }
    st = qmm_pool_create(ctx->n_threads, &ctx->pool);
    if (st != QMM_OK) {
        qmm_fail(st, "cannot start %d threads", ctx->n_threads);
        goto fail;
    }
    *out = ctx;
    return QMM_OK;
fail:
    qmm_context_free(ctx);
    return st;
}

void qmm_context_free(qmm_context *ctx) {
    if (!ctx)
        return;
    qmm_pool_free(ctx->pool);
    qmm_free_big(ctx->scratch, ctx->scratch_size);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

int qmm_context_threads(const qmm_context *ctx) { return ctx ? ctx->n_threads : 0; }

int qmm_context_chain(const qmm_context *ctx, qmm_type type, const char **primary, const char **fallback) {
    const int ti = qmm_wtype_index(type);
    if (primary)
        *primary = NULL;
    if (fallback)
        *fallback = NULL;
    if (!ctx || ti < 0)
        return 0;
    const qmm_chain *c = &ctx->dispatch.chains[ti];
    if (primary)
        *primary = c->primary->name;
    if (fallback && c->fallback)
        *fallback = c->fallback->name;
    return c->fallback ? 2 : 1;
}

qmm_status qmm_context_describe(const qmm_context *ctx, int json, char *buf, size_t buf_size) {
    if (!ctx || !buf || buf_size == 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_context_describe: NULL argument");
    qmm_strbuf b = qmm_strbuf_make(buf, buf_size);
    const qmm_cpu_info *c = &ctx->cpu;
    char units[32];
    if (!(c->features & QMM_CPU_SME))
        snprintf(units, sizeof units, "none");
    else if (c->sme_units > 0)
        snprintf(units, sizeof units, "%d", c->sme_units);
    else
        snprintf(units, sizeof units, "unknown");
    if (json) {
        qmm_strbuf_printf(&b, "{\n  \"version\": \"%s\",\n  \"cpu\": {\"arch\": \"%s\", \"model\": \"", qmm_version(), c->arch);
        for (const char *s = c->model; *s; s++)
            qmm_strbuf_printf(&b, (*s == '"' || *s == '\\') ? "\\%c" : "%c", *s);
        qmm_strbuf_printf(&b, "\", \"cores\": %d, \"numa_nodes\": %d, \"sve_vector_bits\": %d, \"sme_vector_bits\": %d, ",
                          c->n_cores, c->numa_nodes, c->sve_vl_bytes * 8, c->sme_svl_bytes * 8);
        if (c->features & QMM_CPU_SME)
            qmm_strbuf_printf(&b, "\"sme_units\": %s, \"features\": [", c->sme_units > 0 ? units : "null");
        else
            qmm_strbuf_printf(&b, "\"sme_units\": 0, \"features\": [");
        int first = 1;
        for (int i = 0; i < 64; i++) {
            const char *nm = (c->features >> i & 1) ? qmm_cpu_feature_name(1ull << i) : NULL;
            if (nm) {
                qmm_strbuf_printf(&b, "%s\"%s\"", first ? "" : ", ", nm);
                first = 0;
            }
        }
        qmm_strbuf_printf(&b, "]},\n  \"threads\": %d,\n  \"chunk_multiplier\": %d,\n  \"chains\": {\n", ctx->n_threads,
                          ctx->chunk_multiplier);
        for (int i = 0; i < QMM_N_WTYPES; i++) {
            const qmm_chain *ch = &ctx->dispatch.chains[i];
            qmm_strbuf_printf(&b, "    \"%s\": {\"primary\": \"%s\", \"fallback\": ", qmm_type_name(qmm_packable_types[i]),
                              ch->primary->name);
            if (ch->fallback)
                qmm_strbuf_printf(&b, "\"%s\"", ch->fallback->name);
            else
                qmm_strbuf_printf(&b, "null");
            qmm_strbuf_printf(&b, ", \"thread_cap\": %d}%s\n", qmm_dispatch_cap(&ctx->dispatch, ch->primary),
                              i + 1 < QMM_N_WTYPES ? "," : "");
        }
        qmm_strbuf_printf(&b, "  }\n}\n");
    } else {
        qmm_strbuf_printf(&b, "qmatmul %s\n", qmm_version());
        qmm_strbuf_printf(&b, "cpu:       %s (%s), %d cores available, %d NUMA node%s\n",
                          c->model[0] ? c->model : "unknown model", c->arch, c->n_cores, c->numa_nodes,
                          c->numa_nodes == 1 ? "" : "s");
        qmm_strbuf_printf(&b, "features: ");
        for (int i = 0; i < 64; i++) {
            const char *nm = (c->features >> i & 1) ? qmm_cpu_feature_name(1ull << i) : NULL;
            if (nm)
                qmm_strbuf_printf(&b, " %s", nm);
        }
        qmm_strbuf_printf(&b, "\n");
        if (c->sve_vl_bytes)
            qmm_strbuf_printf(&b, "sve:       %d-bit vectors\n", c->sve_vl_bytes * 8);
        if (c->features & QMM_CPU_SME)
            qmm_strbuf_printf(&b, "sme:       %d-bit streaming vectors\n", c->sme_svl_bytes * 8);
        qmm_strbuf_printf(&b, "sme units: %s\n", units);
        qmm_strbuf_printf(&b, "threads:   %d (chunk multiplier %d)\n", ctx->n_threads, ctx->chunk_multiplier);
        qmm_strbuf_printf(&b, "kernel chains (type: primary [-> fallback]):\n");
        for (int i = 0; i < QMM_N_WTYPES; i++) {
            const qmm_chain *ch = &ctx->dispatch.chains[i];
            const int cap = qmm_dispatch_cap(&ctx->dispatch, ch->primary);
            qmm_strbuf_printf(&b, "%s: %s", qmm_type_name(qmm_packable_types[i]), ch->primary->name);
            if (ch->fallback)
                qmm_strbuf_printf(&b, " -> %s", ch->fallback->name);
            if (cap > 0)
                qmm_strbuf_printf(&b, " (primary capped at %d thread%s)", cap, cap == 1 ? "" : "s");
            qmm_strbuf_printf(&b, "\n");
        }
    }
    if (b.len >= buf_size)
        return qmm_fail(QMM_ERR_INVALID_ARG, "description needs %zu bytes, buffer has %zu", b.len + 1, buf_size);
    return QMM_OK;
}

/* --------------------------------------------------------- quantization */

static qmm_status check_rows(qmm_type type, const void *src, const void *dst, int64_t nrows, int64_t k, int quantize,
                             const char *fn) {
    if (!src || !dst)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: NULL buffer", fn);
    if (!(quantize ? qmm_type_has_quantizer(type) : qmm_type_has_dequantizer(type)))
        return qmm_fail(QMM_ERR_UNSUPPORTED, "%s: type %s: %s", fn, qmm_type_name(type) ? qmm_type_name(type) : "?",
                        quantize ? "F16, Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 are supported"
                                 : "F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and Q2_K..Q6_K are supported");
    if (nrows < 0 || k <= 0 || k % qmm_type_block_elems(type) != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: %lld rows of %lld: k must be a positive multiple of %lld", fn, (long long)nrows,
                        (long long)k, (long long)qmm_type_block_elems(type));
    if ((uint64_t)nrows > (uint64_t)(SIZE_MAX / 8) / (uint64_t)k)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: size overflows", fn);
    return QMM_OK;
}

qmm_status qmm_quantize(qmm_type type, const float *src, void *dst, int64_t nrows, int64_t k) {
    qmm_status st = check_rows(type, src, dst, nrows, k, 1, "qmm_quantize");
    if (st)
        return st;
    const size_t rb = qmm_row_size(type, k);
    qmm_fpenv fe;
    qmm_fpenv_enter(&fe);
    for (int64_t r = 0; r < nrows; r++) {
        const float *x = src + r * k;
        void *y = (char *)dst + (size_t)r * rb;
        qmm_quantize_row(type, x, y, k);
    }
    qmm_fpenv_leave(&fe);
    return QMM_OK;
}

qmm_status qmm_dequantize(qmm_type type, const void *src, float *dst, int64_t nrows, int64_t k) {
    qmm_status st = check_rows(type, src, dst, nrows, k, 0, "qmm_dequantize");
    if (st)
        return st;
    const size_t rb = qmm_row_size(type, k);
    qmm_fpenv fe;
    qmm_fpenv_enter(&fe);
    for (int64_t r = 0; r < nrows; r++) {
        const void *x = (const char *)src + (size_t)r * rb;
        float *y = dst + r * k;
        qmm_dequantize_row(type, x, y, k);
    }
    qmm_fpenv_leave(&fe);
    return QMM_OK;
}

/* ------------------------------------------------------------------ weights */

typedef struct pack_job {
    const qmm_blob_plan *plan;
    const void *src;
    size_t stride;
    uint8_t *dst;
} pack_job;

/* Each thread packs an n_step-aligned row range of every slot. */
static void pack_job_fn(void *arg, int ith, int nth, const qmm_sync *sync) {
    (void)sync;
    const pack_job *j = arg;
    qmm_fpenv fe; /* packers may convert (F16 panels) */
    qmm_fpenv_enter(&fe);
    for (int s = 0; s < j->plan->nslots; s++) {
        const qmm_kernel *kf = j->plan->kf[s];
        const int64_t panels = (j->plan->n + kf->n_step - 1) / kf->n_step;
        const int64_t p0 = panels * ith / nth, p1 = panels * (ith + 1) / nth;
        const int64_t r0 = p0 * kf->n_step, r1 = p1 * kf->n_step < j->plan->n ? p1 * kf->n_step : j->plan->n;
        if (r0 < r1)
            kf->w_pack(j->plan->k, j->plan->n, r0, r1, j->src, j->stride, j->dst + j->plan->offset[s]);
    }
    qmm_fpenv_leave(&fe);
}

static qmm_status pack_to(qmm_context *ctx, const qmm_blob_plan *plan, const void *src, size_t src_size, void *dst) {
    const size_t rb = qmm_row_size(plan->type, plan->k);
    if ((uint64_t)src_size / rb < (uint64_t)plan->n)
        return qmm_fail(QMM_ERR_INVALID_ARG, "source of %zu bytes is smaller than %lld rows of %zu bytes", src_size,
                        (long long)plan->n, rb);
    /* zero the gaps, pack the slots in parallel, then write the header: it
     * names slots that are complete */
    memset(dst, 0, plan->total);
    pack_job j = {plan, src, rb, dst};
    pthread_mutex_lock(&ctx->lock);
    qmm_pool_run(ctx->pool, ctx->n_threads, pack_job_fn, &j);
    pthread_mutex_unlock(&ctx->lock);
    qmm_blob_write_header(plan, dst);
    return QMM_OK;
}

qmm_status qmm_packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, size_t *size) {
    if (!ctx || !size)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_packed_size: NULL argument");
    qmm_blob_plan plan;
    qmm_status st = qmm_blob_plan_make(&ctx->dispatch, ctx->pack_threads, type, k, n, &plan);
    if (st)
        return st;
    *size = plan.total;
    return QMM_OK;
}

qmm_status qmm_pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size, void *dst,
                         size_t dst_size) {
    if (!ctx || !src || !dst)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_pack_into: NULL argument");
    /* the rule of qmm_weights_from_blob: the packers store 16-byte vectors */
    if ((uintptr_t)dst % 16 != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_pack_into: destination at %p is not 16-byte aligned", dst);
    qmm_blob_plan plan;
    qmm_status st = qmm_blob_plan_make(&ctx->dispatch, ctx->pack_threads, type, k, n, &plan);
    if (st)
        return st;
    if (dst_size < plan.total)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_pack_into: destination of %zu bytes, %zu needed", dst_size, plan.total);
    return pack_to(ctx, &plan, src, src_size, dst);
}

qmm_status qmm_weights_pack(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size,
                            qmm_weights **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_pack: out is NULL");
    *out = NULL;
    if (!ctx || !src)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_weights_pack: NULL argument");
    qmm_blob_plan plan;
    qmm_status st = qmm_blob_plan_make(&ctx->dispatch, ctx->pack_threads, type, k, n, &plan);
    if (st)
        return st;
    qmm_weights *w = calloc(1, sizeof *w);
    void *mem = qmm_alloc_big(plan.total);
    if (!w || !mem) {
        free(w);
        qmm_free_big(mem, plan.total);
        return qmm_fail(QMM_ERR_NO_MEMORY, "packed weights of %zu bytes", plan.total);
    }
    st = pack_to(ctx, &plan, src, src_size, mem);
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
    qmm_log(QMM_LOG_DEBUG, "packed %s %lld x %lld: %s%s%s", qmm_type_name(type), (long long)n, (long long)k, w->kf[0]->name,
            w->nslots > 1 ? " + " : "", w->nslots > 1 ? w->kf[1]->name : "");
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
const void *qmm_weights_blob(const qmm_weights *w, size_t *size) {
    if (size)
        *size = w ? w->size : 0;
    return w ? w->blob : NULL;
}
