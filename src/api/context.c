/* Contexts: options and environment, CPU features and hiding, kernel chains
 * and the cap policy (the dispatch description), the thread pool, and the
 * description `qmatmul info` prints. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "cpu/env.h"
#include "exec/fpenv.h"

#ifndef QMM_VERSION_STRING
#define QMM_VERSION_STRING "0.0.0"
#endif

#define MAX_THREADS 4096

const char *qmm_version(void) { return QMM_VERSION_STRING; }

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

static qmm_status force_kernels(qmm_context *ctx, const char *list, int strict, const qmm_family **forced) {
    char buf[QMM_OPTION_STRING_MAX + 1];
    qmm_status st = copy_list(list, "kernel", buf);
    if (st)
        return st;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const qmm_family *kf = qmm_registry_find(tok);
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
    if (qmm_check_reserved(opts.reserved, 4, "qmm_options") != QMM_OK)
        return QMM_ERR_INVALID_ARG;
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

    const qmm_family *forced[QMM_N_WTYPES] = {0};
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

/* ------------------------------------------------------ the caller's tasks */

typedef struct task_job {
    qmm_task_fn fn;
    void *user;
    int64_t n_tasks;
    _Alignas(64) atomic_llong next; /* the next task to hand out */
} task_job;

static void task_job_fn(void *arg, int ith, int nth, const qmm_sync *sync) {
    (void)nth;
    (void)sync;
    task_job *j = arg;
    qmm_fpenv fe;
    qmm_fpenv_enter(&fe);
    /* One task at a time from a shared counter: a thread slowed by another
     * process on its core takes fewer, none is skipped or run twice. */
    for (int64_t t; (t = (int64_t)atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->n_tasks;)
        j->fn(j->user, t, ith);
    qmm_fpenv_leave(&fe);
}

qmm_status qmm_parallel_run(qmm_context *ctx, int64_t n_tasks, qmm_task_fn fn, void *user) {
    if (!ctx || !fn)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_parallel_run: %s is NULL", ctx ? "fn" : "context");
    if (n_tasks < 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_parallel_run: n_tasks = %lld is negative", (long long)n_tasks);
    if (n_tasks == 0)
        return QMM_OK;
    task_job j = {.fn = fn, .user = user, .n_tasks = n_tasks};
    atomic_init(&j.next, 0);
    if (n_tasks == 1 || ctx->n_threads == 1) {
        task_job_fn(&j, 0, 1, NULL); /* no thread to wake */
        return QMM_OK;
    }
    pthread_mutex_lock(&ctx->lock);
    qmm_pool_run(ctx->pool, n_tasks < ctx->n_threads ? (int)n_tasks : ctx->n_threads, task_job_fn, &j);
    pthread_mutex_unlock(&ctx->lock);
    return QMM_OK;
}

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
