/* The llama forward pass: see model.h. */
#include "model.h"
#include "qmatmul_cache.h"
#include "vecmath.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------- profile (QMM_RUN_PROFILE=1) */

/* Per phase (prefill: evals of several tokens; decode: of one), per step of
 * the forward pass: calls, total and shortest time. On a loaded machine the
 * shortest call is the one that ran undisturbed: calls per eval x shortest
 * estimates a quiet eval. QMM_RUN_PROFILE=cpu times the calling thread's CPU
 * time instead (with -t 1: the work, without the waits). */
enum {
    P_EMBD,
    P_ANGLES,
    P_NORM,
    P_QKV,
    P_ROPE_KV,
    P_ATT_K,
    P_SOFTMAX,
    P_ATT_V,
    P_O,
    P_RESID,
    P_GATE_UP,
    P_SWIGLU,
    P_DOWN,
    P_OUT,
    P_EVAL,
    P_COUNT
};
static const char *const prof_names[P_COUNT] = {"get_rows (embd)", "rope angles",
                                                "residual + norm", "mul_mat q/k/v",
                                                "rope + kv write", "f16 scores",
                                                "softmax",         "f16 values",
                                                "mul_mat o",       "heads side by side",
                                                "mul_mat gate/up", "swiglu",
                                                "mul_mat down",    "output (norm + mul_mat)",
                                                "whole eval"};
typedef struct prof_stat {
    double sum, min;
    long long count;
} prof_stat;
static prof_stat prof[2][P_COUNT];
static int prof_mode = -1; /* -1 unread, 0 off, 1 wall clock, 2 thread CPU time */
static int prof_phase;

static double prof_now(void) {
    struct timespec ts;
    clock_gettime(prof_mode == 2 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double prof_start(void) { return prof_mode > 0 ? prof_now() : 0; }

static void prof_stop(int step, double t0) {
    if (prof_mode <= 0 || step < 0)
        return;
    const double dt = prof_now() - t0;
    prof_stat *s = &prof[prof_phase][step];
    if (!s->count || dt < s->min)
        s->min = dt;
    s->sum += dt;
    s->count++;
}

void run_model_profile_print(FILE *f) {
    static const char *const phase[2] = {"prefill", "decode"};
    for (int ph = 0; ph < 2 && prof_mode > 0; ph++) {
        const prof_stat *e = &prof[ph][P_EVAL];
        if (!e->count)
            continue;
        double quiet = 0;
        for (int i = 0; i < P_EVAL; i++)
            quiet += prof[ph][i].count ? prof[ph][i].min * (double)prof[ph][i].count / (double)e->count : 0;
        fprintf(f, "profile %s (%s): %lld evals, mean %.1f us, shortest %.1f us, sum of shortest steps %.1f us\n", phase[ph],
                prof_mode == 2 ? "thread CPU time" : "wall clock", e->count, e->sum / (double)e->count * 1e6, e->min * 1e6,
                quiet * 1e6);
        fprintf(f, "  %-24s %8s %10s %10s %7s %10s %7s\n", "step", "per eval", "mean us", "per eval", "share", "shortest",
                "share");
        for (int i = 0; i < P_EVAL; i++) {
            const prof_stat *s = &prof[ph][i];
            if (!s->count)
                continue;
            const double per = (double)s->count / (double)e->count, mean_eval = s->sum / (double)e->count;
            fprintf(f, "  %-24s %8.1f %10.2f %10.1f %6.1f%% %10.2f %6.1f%%\n", prof_names[i], per,
                    s->sum / (double)s->count * 1e6, mean_eval * 1e6, 100 * mean_eval / (e->sum / (double)e->count), s->min * 1e6,
                    100 * s->min * per / quiet);
        }
    }
}

static int fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

static int meta_int(const qmm_gguf *g, const char *key, int64_t *out, char *err, size_t es) {
    if (qmm_gguf_get_int(g, key, out) != QMM_OK)
        return fail(err, es, "missing or malformed metadata %s", key);
    return 0;
}

/* A matrix of n rows of k elements: packed from the GGUF, or from the cache. */
static int load_matrix(qmm_context *ctx, run_model *m, const char *name, int64_t k, int64_t n, qmm_weights **out, char *err,
                       size_t es) {
    const int64_t i = qmm_gguf_find_tensor(m->gguf, name);
    if (i < 0)
        return fail(err, es, "tensor layout not supported: no tensor %s", name);
    const qmm_gguf_tensor *t = qmm_gguf_tensor_at(m->gguf, i);
    if (t->n_dims != 2 || t->ne[0] != k || t->ne[1] != n)
        return fail(err, es, "tensor layout not supported: %s is [%lld, %lld] (%u dims), expected [%lld, %lld]", name,
                    (long long)t->ne[0], (long long)t->ne[1], t->n_dims, (long long)k, (long long)n);
    const char *tn = qmm_type_name((qmm_type)t->type);
    if (!t->known_type || !qmm_type_packable((qmm_type)t->type))
        return fail(err, es, "type not supported: %s is %s, which qmatmul does not pack", name, tn ? tn : "an unknown type");
    if (m->cache && qmm_cache_get(m->cache, name, out) == QMM_OK) {
        /* the library checked the cache against this GGUF at open; the
         * buffers below are sized from the GGUF's shapes, so check again */
        if (qmm_weights_type(*out) == (qmm_type)t->type && qmm_weights_k(*out) == k && qmm_weights_n(*out) == n &&
            qmm_weights_n_expert(*out) == 1)
            return 0;
        qmm_weights_free(*out);
        *out = NULL;
        return fail(err, es, "the cache's %s is not the model's %s [%lld, %lld]", name, tn, (long long)k, (long long)n);
    }
    if (qmm_weights_pack(ctx, (qmm_type)t->type, k, n, t->data, (size_t)t->size, out) != QMM_OK)
        return fail(err, es, "packing %s: %s", name, qmm_last_error());
    return 0;
}

/* Packs matrices of one type and k, stacked by rows, as one; 1 if they are
 * not all of one type (the caller loads them one by one), -1 on error. */
static int load_stacked(qmm_context *ctx, run_model *m, const char *const *names, const int64_t *rows, int count, int64_t k,
                        qmm_weights **out, char *err, size_t es) {
    const qmm_gguf_tensor *t[4];
    size_t bytes = 0;
    int64_t n = 0;
    for (int i = 0; i < count; i++) {
        const int64_t idx = qmm_gguf_find_tensor(m->gguf, names[i]);
        if (idx < 0)
            return 1;
        t[i] = qmm_gguf_tensor_at(m->gguf, idx);
        if (t[i]->n_dims != 2 || t[i]->ne[0] != k || t[i]->ne[1] != rows[i] || t[i]->type != t[0]->type || !t[i]->known_type ||
            !qmm_type_packable((qmm_type)t[i]->type))
            return 1;
        bytes += (size_t)t[i]->size;
        n += t[i]->ne[1];
    }
    char *buf = malloc(bytes);
    if (!buf)
        return fail(err, es, "out of memory");
    size_t off = 0;
    for (int i = 0; i < count; i++) {
        memcpy(buf + off, t[i]->data, (size_t)t[i]->size);
        off += (size_t)t[i]->size;
    }
    const qmm_status st = qmm_weights_pack(ctx, (qmm_type)t[0]->type, k, n, buf, bytes, out);
    free(buf);
    if (st != QMM_OK)
        return fail(err, es, "packing %s..: %s", names[0], qmm_last_error());
    return 0;
}

static int load_norm(run_model *m, const char *name, int64_t k, const float **out, char *err, size_t es) {
    const int64_t i = qmm_gguf_find_tensor(m->gguf, name);
    if (i < 0)
        return fail(err, es, "tensor layout not supported: no tensor %s", name);
    const qmm_gguf_tensor *t = qmm_gguf_tensor_at(m->gguf, i);
    if (t->type != QMM_TYPE_F32 || t->ne[0] != k || t->ne[1] * t->ne[2] * t->ne[3] != 1)
        return fail(err, es, "tensor layout not supported: %s must be F32 [%lld]", name, (long long)k);
    /* a copy of the model's own: the file may hold it at any address
     * (general.alignment = 1), and floats are read as floats */
    float *w = malloc((size_t)k * sizeof(float));
    if (!w)
        return fail(err, es, "out of memory");
    memcpy(w, t->data, (size_t)k * sizeof(float));
    *out = w;
    /* a NaN or infinite weight would turn every logit into NaN */
    for (int64_t j = 0; j < k; j++)
        if (!isfinite(w[j]))
            return fail(err, es, "%s[%lld] is %g: a norm weight must be a finite number", name, (long long)j, (double)w[j]);
    return 0;
}

/* --cache: use the file if it is a verified cache of this model (every
 * checksum, every tensor's type and shape); else write it, but only over a
 * qmatmul cache file (of any model or version) or at a new path: anything
 * else there (another model, a text file, a FIFO) is refused, never lost. */
static int open_cache(qmm_context *ctx, run_model *m, const char *gguf_path, const char *cache_path, char *err, size_t es) {
    qmm_cache_open_options o = {.gguf_path = gguf_path, .flags = QMM_CACHE_VERIFY};
    if (qmm_cache_open(ctx, cache_path, &o, &m->cache) == QMM_OK)
        return 0;
    char why[512];
    snprintf(why, sizeof why, "%s", qmm_last_error());
    const int kind = qmm_cache_file_kind(cache_path);
    if (kind < 0)
        return fail(err, es, "--cache %s: %s: refusing to replace it (only a qmatmul cache file is rewritten)", cache_path,
                    qmm_last_error());
    if (kind > 0)
        fprintf(stderr, "qmatmul run: %s: %s; writing it anew\n", cache_path, why);
    else
        fprintf(stderr, "qmatmul run: %s: no such file; writing it\n", cache_path);
    if (qmm_cache_write(ctx, gguf_path, cache_path, NULL) != QMM_OK)
        return fail(err, es, "writing the cache %s: %s", cache_path, qmm_last_error());
    if (qmm_cache_open(ctx, cache_path, &o, &m->cache) != QMM_OK)
        return fail(err, es, "opening the cache %s: %s", cache_path, qmm_last_error());
    return 0;
}

/* A float the model needs: stored as a number (not a string), finite and
 * positive (a NaN epsilon or rope base would make every logit NaN). */
static int meta_positive(const qmm_gguf *g, const char *key, int required, double *out, char *err, size_t es) {
    if (qmm_gguf_find_key(g, key) < 0) {
        if (required)
            return fail(err, es, "missing metadata %s", key);
        return 0; /* the default stays */
    }
    double v;
    if (qmm_gguf_get_float(g, key, &v) != QMM_OK)
        return fail(err, es, "metadata %s is not a number", key);
    if (!isfinite(v) || v <= 0)
        return fail(err, es, "metadata %s = %g: a finite positive number is needed", key, v);
    *out = v;
    return 0;
}

static int check_metadata(run_model *m, char *err, size_t es) {
    const qmm_gguf *g = m->gguf;
    const char *arch;
    uint64_t len;
    if (qmm_gguf_get_string(g, "general.architecture", &arch, &len) != QMM_OK)
        return fail(err, es, "no general.architecture");
    if (len != 5 || memcmp(arch, "llama", 5) != 0)
        return fail(err, es, "architecture '%.*s' is not supported (only llama)", (int)(len > 64 ? 64 : len), arch);
    int64_t v;
    if (qmm_gguf_get_int(g, "llama.expert_count", &v) == QMM_OK && v > 0)
        return fail(err, es, "architecture not supported: mixture of experts (llama.expert_count = %lld)", (long long)v);
    const char *st;
    if (qmm_gguf_get_string(g, "llama.rope.scaling.type", &st, &len) == QMM_OK && !(len == 4 && memcmp(st, "none", 4) == 0))
        return fail(err, es, "rope scaling '%.*s' is not supported", (int)(len > 32 ? 32 : len), st);
    if (qmm_gguf_find_tensor(g, "rope_freqs.weight") >= 0)
        return fail(err, es, "rope frequency factors (rope_freqs.weight) are not supported");
    int64_t n_layer, n_embd, n_head, n_head_kv = 0, n_ff;
    if (meta_int(g, "llama.block_count", &n_layer, err, es) || meta_int(g, "llama.embedding_length", &n_embd, err, es) ||
        meta_int(g, "llama.attention.head_count", &n_head, err, es) || meta_int(g, "llama.feed_forward_length", &n_ff, err, es))
        return -1;
    if (qmm_gguf_get_int(g, "llama.attention.head_count_kv", &n_head_kv) != QMM_OK)
        n_head_kv = n_head;
    if (n_layer < 1 || n_layer > 1024 || n_embd < 1 || n_embd > 65536 || n_head < 1 || n_head > n_embd || n_head_kv < 1 ||
        n_head % n_head_kv || n_ff < 1 || n_ff > 1 << 20)
        return fail(err, es, "implausible hyperparameters (layers %lld, embedding %lld, heads %lld/%lld, ffn %lld)",
                    (long long)n_layer, (long long)n_embd, (long long)n_head, (long long)n_head_kv, (long long)n_ff);
    int64_t head_dim = n_embd / n_head;
    if (qmm_gguf_get_int(g, "llama.attention.key_length", &v) == QMM_OK)
        head_dim = v;
    int64_t vlen;
    if (qmm_gguf_get_int(g, "llama.attention.value_length", &vlen) == QMM_OK && vlen != head_dim)
        return fail(err, es, "tensor layout not supported: value length %lld differs from key length %lld", (long long)vlen,
                    (long long)head_dim);
    if (head_dim < 2 || head_dim % 2 || head_dim > 1024)
        return fail(err, es, "head dimension %lld not supported", (long long)head_dim);
    int64_t n_rot = head_dim;
    if (qmm_gguf_get_int(g, "llama.rope.dimension_count", &v) == QMM_OK)
        n_rot = v;
    if (n_rot != head_dim)
        return fail(err, es, "partial rotary embedding (%lld of %lld dimensions) is not supported", (long long)n_rot,
                    (long long)head_dim);
    double eps = 1e-5, base = 10000.0;
    if (meta_positive(g, "llama.attention.layer_norm_rms_epsilon", 1, &eps, err, es) ||
        meta_positive(g, "llama.rope.freq_base", 0, &base, err, es))
        return -1;
    if ((float)eps == 0 || !isfinite((float)base))
        return fail(err, es, "metadata out of float range: rms epsilon %g, rope base %g", eps, base);
    m->n_layer = (int)n_layer;
    m->n_embd = (int)n_embd;
    m->n_head = (int)n_head;
    m->n_head_kv = (int)n_head_kv;
    m->head_dim = (int)head_dim;
    m->n_ff = (int)n_ff;
    m->norm_eps = (float)eps;
    m->rope_base = (float)base;
    return 0;
}

#define RUN_MAX_BATCH 256 /* tokens per forward step at most (v_cache_rows' column) */

static void *alloc_floats(size_t n) { return aligned_alloc(64, ((n * sizeof(float)) + 63) / 64 * 64); }
/* For data read from rows far apart (the KV cache, QK^T's scores): qmm_alloc_huge. */
static void *alloc_huge(size_t bytes) {
    void *p = NULL;
    return qmm_alloc_huge(bytes, &p) == QMM_OK ? p : NULL;
}

/* Bytes of memory the machine can still give (MemAvailable), else its
 * physical memory; 0 if neither is known. */
static double available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb > 0)
        return kb * 1024;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* The buffers a context of n_ctx tokens takes (the KV cache is allocated and
 * zeroed whole), checked against the memory there is before any of it is
 * allocated: a --ctx of a million tokens is a clear refusal, not minutes of
 * paging and then the OOM killer. */
static int check_context_memory(const run_model *m, int n_ctx, char *err, size_t es) {
    const double dkv = (double)m->n_head_kv * m->head_dim, dq = (double)m->n_head * m->head_dim;
    const double b = n_ctx < RUN_MAX_BATCH ? n_ctx : RUN_MAX_BATCH;
    const double kv = 2.0 * 2.0 * m->n_layer * dkv * n_ctx; /* K and V, fp16 */
    const double scores = 4.0 * b * n_ctx * m->n_head;
    const double acts = 4.0 * b * (4.0 * m->n_embd + 4.0 * dq + 4.0 * dkv + 4.0 * m->n_ff) + 4.0 * m->n_vocab;
    const double need = kv + scores + acts, have = available_bytes();
    if (have > 0 && need > have)
        return fail(err, es,
                    "a context of %d tokens needs %.2f GB (KV cache %.2f GB, attention scores %.2f GB), more than the %.2f GB "
                    "of memory available: lower --ctx",
                    n_ctx, need / 1e9, kv / 1e9, scores / 1e9, have / 1e9);
    return 0;
}

int run_model_load(qmm_context *ctx, const char *path, const char *cache_path, int n_ctx, run_model *m, char *err, size_t es) {
    memset(m, 0, sizeof *m);
    if (qmm_gguf_open(path, &m->gguf) != QMM_OK)
        return fail(err, es, "%s", qmm_last_error());
    if (check_metadata(m, err, es))
        return -1;
    const int64_t te = qmm_gguf_find_tensor(m->gguf, "token_embd.weight");
    if (te < 0)
        return fail(err, es, "tensor layout not supported: no token_embd.weight");
    m->n_vocab = (int)qmm_gguf_tensor_at(m->gguf, te)->ne[1];
    if (m->n_vocab < 1)
        return fail(err, es, "empty vocabulary");
    if (check_context_memory(m, n_ctx, err, es))
        return -1;
    if (cache_path && open_cache(ctx, m, path, cache_path, err, es))
        return -1;
    const int64_t d = m->n_embd, dq = (int64_t)m->n_head * m->head_dim, dkv = (int64_t)m->n_head_kv * m->head_dim;
    if (load_matrix(ctx, m, "token_embd.weight", d, m->n_vocab, &m->tok_embd, err, es) ||
        load_norm(m, "output_norm.weight", d, &m->output_norm, err, es))
        return -1;
    if (qmm_gguf_find_tensor(m->gguf, "output.weight") >= 0) {
        if (load_matrix(ctx, m, "output.weight", d, m->n_vocab, &m->output, err, es))
            return -1;
    } else {
        m->output = m->tok_embd;
    }
    m->layers = calloc((size_t)m->n_layer, sizeof *m->layers);
    if (!m->layers)
        return fail(err, es, "out of memory");
    for (int l = 0; l < m->n_layer; l++) {
        run_layer *L = &m->layers[l];
        char name[96];
#define MAT(field, suffix, k, n)                                                                                                 \
    (snprintf(name, sizeof name, "blk.%d.%s.weight", l, suffix), load_matrix(ctx, m, name, k, n, &L->field, err, es))
#define NORM(field, suffix)                                                                                                      \
    (snprintf(name, sizeof name, "blk.%d.%s.weight", l, suffix), load_norm(m, name, d, &L->field, err, es))
        if (NORM(attn_norm, "attn_norm") || NORM(ffn_norm, "ffn_norm") || MAT(wo, "attn_output", dq, d) ||
            MAT(w_down, "ffn_down", m->n_ff, d))
            return -1;
        int separate_qkv = 1, separate_gate_up = 1;
        if (!m->cache) {
            char n0[96], n1[96], n2[96];
            snprintf(n0, sizeof n0, "blk.%d.attn_q.weight", l);
            snprintf(n1, sizeof n1, "blk.%d.attn_k.weight", l);
            snprintf(n2, sizeof n2, "blk.%d.attn_v.weight", l);
            const char *qkv[] = {n0, n1, n2};
            if ((separate_qkv = load_stacked(ctx, m, qkv, (int64_t[]){dq, dkv, dkv}, 3, d, &L->w_qkv, err, es)) < 0)
                return -1;
            snprintf(n0, sizeof n0, "blk.%d.ffn_gate.weight", l);
            snprintf(n1, sizeof n1, "blk.%d.ffn_up.weight", l);
            const char *gu[] = {n0, n1};
            if ((separate_gate_up = load_stacked(ctx, m, gu, (int64_t[]){m->n_ff, m->n_ff}, 2, d, &L->w_gate_up, err, es)) < 0)
                return -1;
        }
        if (separate_qkv && (MAT(wq, "attn_q", d, dq) || MAT(wk, "attn_k", d, dkv) || MAT(wv, "attn_v", d, dkv)))
            return -1;
        if (separate_gate_up && (MAT(w_gate, "ffn_gate", d, m->n_ff) || MAT(w_up, "ffn_up", d, m->n_ff)))
            return -1;
#undef MAT
#undef NORM
    }
    m->n_ctx = n_ctx;
    m->n_batch = n_ctx < RUN_MAX_BATCH ? n_ctx : RUN_MAX_BATCH;
    const size_t kv = (size_t)m->n_layer * (size_t)dkv * (size_t)n_ctx;
    m->k_cache = alloc_huge(kv * 2); /* decode reads V^T's rows far apart */
    m->v_cache = alloc_huge(kv * 2);
    const size_t b = (size_t)m->n_batch;
    m->x = alloc_floats(b * d);
    m->xn = alloc_floats(b * d);
    m->q = alloc_floats(b * dq);
    m->k = alloc_floats(b * dkv);
    m->v = alloc_floats(b * dkv);
    m->att = alloc_floats(b * dq);
    m->att_heads = alloc_floats(b * dq);
    m->scores = alloc_huge(b * (size_t)n_ctx * m->n_head * sizeof(float)); /* QK^T's y: rows n_ctx apart */
    m->gate = alloc_floats(b * m->n_ff);
    m->up = alloc_floats(b * m->n_ff);
    m->fused = alloc_floats(b * (size_t)(dq + 2 * dkv > 2 * m->n_ff ? dq + 2 * dkv : 2 * m->n_ff));
    m->logits = alloc_floats((size_t)m->n_vocab);
    m->rope_cs = alloc_floats(b * (size_t)m->head_dim);
    if (!m->k_cache || !m->v_cache || !m->x || !m->xn || !m->q || !m->k || !m->v || !m->att || !m->att_heads || !m->scores ||
        !m->gate || !m->up || !m->fused || !m->logits || !m->rope_cs)
        return fail(err, es, "out of memory for a context of %d tokens", n_ctx);
    /* Positions past n_past are never read unmasked, but they are multiplied
     * (by zero probabilities): keep them finite. */
    memset(m->k_cache, 0, kv * 2);
    memset(m->v_cache, 0, kv * 2);
    return 0;
}

void run_model_free(run_model *m) {
    if (m->layers) {
        for (int l = 0; l < m->n_layer; l++) {
            run_layer *L = &m->layers[l];
            qmm_weights *ws[] = {L->wq, L->wk, L->wv, L->wo, L->w_gate, L->w_up, L->w_down, L->w_qkv, L->w_gate_up};
            for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
                qmm_weights_free(ws[i]);
            free((void *)L->attn_norm);
            free((void *)L->ffn_norm);
        }
        free(m->layers);
    }
    if (m->output != m->tok_embd)
        qmm_weights_free(m->output);
    qmm_weights_free(m->tok_embd);
    free((void *)m->output_norm);
    qmm_cache_close(m->cache);
    qmm_gguf_close(m->gguf);
    float *bufs[] = {m->x,    m->xn, m->q,     m->k,      m->v,           m->att,    m->att_heads,
                     m->gate, m->up, m->fused, m->logits, m->logits_rows, m->rope_cs};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    qmm_free_huge(m->scores);
    qmm_free_huge(m->k_cache);
    qmm_free_huge(m->v_cache);
    memset(m, 0, sizeof *m);
}

void run_model_reset(run_model *m) { m->n_past = 0; }

/* ------------------------------------------------------------ the layers */

/* Rotary embedding as llama.cpp applies it to the llama architecture: adjacent
 * pairs (x[2i], x[2i+1]) rotated by pos * base^(-2i/d), the angle stepped by
 * one float multiplication per pair. The cosines and sines of one position
 * (cs: head_dim floats, pairs) serve q and k of every layer: computed once
 * per eval, not 2 x layers times. */
static void rope_angles(float *cs, int head_dim, int pos, float base) {
    const float theta_scale = powf(base, -2.0f / (float)head_dim);
    float theta = (float)pos;
    for (int i = 0; i < head_dim; i += 2) {
        cs[i] = cosf(theta);
        cs[i + 1] = sinf(theta);
        theta *= theta_scale;
    }
}

/* The element-wise steps run on the context's pool (qmm_parallel_run: one
 * pool for them and the products), split in tasks of whole units (rows,
 * tokens, heads' rows). A job has one or two parts, each a body over a range
 * of its units; the tasks of part 0 come first. */
typedef void (*par_body)(const void *job, int64_t u0, int64_t u1);
typedef struct par_part {
    par_body body;
    int64_t n_units, per_task, n_tasks;
} par_part;
typedef struct par_job {
    const void *job;
    par_part part[2];
    int single; /* one task runs both parts whole */
} par_job;

static void par_task(void *user, int64_t task, int ith) {
    (void)ith;
    const par_job *p = user;
    for (int k = 0; k < 2; k++) {
        const par_part *pt = &p->part[k];
        if (p->single) {
            if (pt->n_units)
                pt->body(p->job, 0, pt->n_units);
            continue;
        }
        if (task < pt->n_tasks) {
            const int64_t u0 = task * pt->per_task;
            pt->body(p->job, u0, u0 + pt->per_task < pt->n_units ? u0 + pt->per_task : pt->n_units);
            return;
        }
        task -= pt->n_tasks;
    }
}

/* A task computes at least this many elements: handing one out costs about
 * a microsecond (the workers' cache lines), so decode's small steps (one
 * token) stay on the calling thread, with no wake-up. */
#define PAR_MIN_ELEMS        8192
#define PAR_TASKS_PER_THREAD 4 /* dynamic balance against a core shared with other work */

static void par_plan(par_part *pt, par_body body, int64_t n_units, int64_t unit_cost, int nth) {
    const int64_t target = PAR_TASKS_PER_THREAD * (int64_t)nth;
    int64_t per = (n_units + target - 1) / target;
    const int64_t min_units = (PAR_MIN_ELEMS + unit_cost - 1) / (unit_cost > 0 ? unit_cost : 1);
    if (per < min_units)
        per = min_units;
    if (per < 1)
        per = 1;
    *pt = (par_part){body, n_units, per, n_units ? (n_units + per - 1) / per : 0};
}

/* Runs body over n0 units of about cost0 elements each (and body1 over n1 of
 * cost1, when body1 is not NULL). */
static int par_run(qmm_context *ctx, int step, const void *job, par_body body0, int64_t n0, int64_t cost0, par_body body1,
                   int64_t n1, int64_t cost1, char *err, size_t es) {
    const int nth = qmm_context_threads(ctx);
    par_job p = {.job = job};
    par_plan(&p.part[0], body0, n0, cost0, nth);
    par_plan(&p.part[1], body1, body1 ? n1 : 0, cost1, nth);
    int64_t n_tasks = p.part[0].n_tasks + p.part[1].n_tasks;
    if (n0 * cost0 + (body1 ? n1 * cost1 : 0) < 2 * PAR_MIN_ELEMS) {
        p.single = 1;
        n_tasks = 1;
    }
    const double t0 = prof_start();
    const qmm_status st = qmm_parallel_run(ctx, n_tasks, par_task, &p);
    prof_stop(step, t0);
    if (st != QMM_OK)
        return fail(err, es, "parallel_run: %s", qmm_last_error());
    return 0;
}

/* rows of x (+= r first, if r) normalised into y */
typedef struct norm_job {
    float *y, *x;
    const float *r, *w;
    int d;
    float eps;
} norm_job;

static void norm_rows(const void *job, int64_t u0, int64_t u1) {
    const norm_job *j = job;
    for (int64_t i = u0; i < u1; i++)
        run_add_rms_norm(j->y + i * j->d, j->x + i * j->d, j->r ? j->r + i * j->d : NULL, j->w, j->d, j->eps);
}

typedef struct angles_job {
    float *cs;
    int hd, pos0;
    float base;
} angles_job;

static void angles_rows(const void *job, int64_t u0, int64_t u1) {
    const angles_job *j = job;
    for (int64_t i = u0; i < u1; i++)
        rope_angles(j->cs + i * j->hd, j->hd, j->pos0 + (int)i, j->base);
}

/* Rotary embedding of q and k in place (rows of their strides), k written to
 * the F16 K cache (part 0: by token); v written transposed to the V cache
 * (part 1: by V cache row, each of the n positions of one head dimension,
 * so no two tasks write one cache line). */
typedef struct rope_kv_job {
    float *q, *k;
    const float *v, *cs;
    size_t q_stride, k_stride, v_stride;
    int n, nh, nkv, hd, n_ctx, pos0;
    uint16_t *kc, *vc;
} rope_kv_job;

static void rope_k_rows(const void *job, int64_t u0, int64_t u1) {
    const rope_kv_job *j = job;
    for (int64_t i = u0; i < u1; i++) {
        const float *cs = j->cs + i * j->hd;
        run_rope(j->q + (size_t)i * j->q_stride, j->nh, j->hd, cs);
        float *k = j->k + (size_t)i * j->k_stride;
        run_rope(k, j->nkv, j->hd, cs);
        for (int h = 0; h < j->nkv; h++)
            run_f16_row(j->kc + ((size_t)h * j->n_ctx + j->pos0 + (size_t)i) * j->hd, k + (size_t)h * j->hd, j->hd);
    }
}

static void v_cache_rows(const void *job, int64_t u0, int64_t u1) {
    const rope_kv_job *j = job;
    float col[RUN_MAX_BATCH];
    for (int64_t r = u0; r < u1; r++) {
        for (int i = 0; i < j->n; i++)
            col[i] = j->v[(size_t)i * j->v_stride + (size_t)r];
        run_f16_row(j->vc + (size_t)r * j->n_ctx + j->pos0, col, j->n);
    }
}

/* softmax of the score rows [head][token][position], causally masked */
typedef struct softmax_job {
    float *scores;
    int n, total, n_past;
    float scale;
} softmax_job;

static void softmax_rows(const void *job, int64_t u0, int64_t u1) {
    const softmax_job *j = job;
    for (int64_t u = u0; u < u1; u++)
        run_softmax(j->scores + (size_t)u * j->total, j->n_past + (int)(u % j->n) + 1, j->total, j->scale);
}

/* att[i][h] = att_heads[h][i]: the heads of each token side by side */
typedef struct heads_job {
    float *att;
    const float *att_heads;
    int n, nh, hd;
} heads_job;

static void heads_rows(const void *job, int64_t u0, int64_t u1) {
    const heads_job *j = job;
    for (int64_t i = u0; i < u1; i++)
        for (int h = 0; h < j->nh; h++)
            memcpy(j->att + ((size_t)i * j->nh + h) * j->hd, j->att_heads + ((size_t)h * j->n + i) * j->hd, (size_t)j->hd * 4);
}

typedef struct swiglu_job {
    float *y;
    const float *g, *u;
    size_t stride; /* of g and u rows */
    int ff;
} swiglu_job;

static void swiglu_rows(const void *job, int64_t u0, int64_t u1) {
    const swiglu_job *j = job;
    for (int64_t i = u0; i < u1; i++)
        run_swiglu(j->y + (size_t)i * j->ff, j->g + (size_t)i * j->stride, j->u + (size_t)i * j->stride, j->ff);
}

static void view2(qmm_tensor *t, float *data, int64_t ne0, int64_t ne1) {
    qmm_tensor_init(t, QMM_TYPE_F32, 2, (int64_t[]){ne0, ne1}, data);
}

static int mul(qmm_context *ctx, const qmm_weights *w, float *x, float *y, int n, int step, char *err, size_t es) {
    qmm_tensor tx, ty;
    view2(&tx, x, qmm_weights_k(w), n);
    view2(&ty, y, qmm_weights_n(w), n);
    const double t0 = prof_start();
    const qmm_status st = qmm_mul_mat(ctx, w, &tx, &ty);
    prof_stop(step, t0);
    if (st != QMM_OK)
        return fail(err, es, "mul_mat: %s", qmm_last_error());
    return 0;
}

/* Attention of the n new tokens (queries q, rotated, rows q_stride floats
 * apart) over every cached position, through qmm_mul_mat_f16 on the KV
 * cache; the result in m->att. */
static int attention(qmm_context *ctx, run_model *m, int l, int n, const float *q, size_t q_stride, char *err, size_t es) {
    const int hd = m->head_dim, nh = m->n_head, nkv = m->n_head_kv, n_ctx = m->n_ctx;
    const int total = m->n_past + n;
    const size_t layer_kv = (size_t)nkv * hd * n_ctx;
    uint16_t *kc = m->k_cache + (size_t)l * layer_kv, *vc = m->v_cache + (size_t)l * layer_kv;
    /* scores[h][i][t] = K[t] . Q[i] for head h, kv head h / (nh / nkv) (ggml broadcast). */
    qmm_tensor wk = {
        .type = QMM_TYPE_F16, .ne = {hd, total, nkv, 1}, .nb = {2, (size_t)hd * 2, (size_t)n_ctx * hd * 2, 0}, .data = kc};
    wk.nb[3] = wk.nb[2] * nkv;
    qmm_tensor xq = {.type = QMM_TYPE_F32, .ne = {hd, n, nh, 1}, .nb = {4, q_stride * 4, (size_t)hd * 4, 0}, .data = (void *)q};
    xq.nb[3] = xq.nb[1] * n;
    qmm_tensor ys;
    qmm_tensor_init(&ys, QMM_TYPE_F32, 3, (int64_t[]){total, n, nh}, m->scores);
    double t0 = prof_start();
    qmm_status st = qmm_mul_mat_f16(ctx, &wk, &xq, &ys);
    prof_stop(P_ATT_K, t0);
    if (st != QMM_OK)
        return fail(err, es, "attention scores: %s", qmm_last_error());
    const softmax_job sj = {m->scores, n, total, m->n_past, 1.0f / sqrtf((float)hd)};
    if (par_run(ctx, P_SOFTMAX, &sj, softmax_rows, (int64_t)nh * n, total, NULL, 0, 0, err, es))
        return -1;
    /* att[h][i][d] = sum_t V[t][d] p[h][i][t]: the transposed V cache as the weights. */
    qmm_tensor wv = {
        .type = QMM_TYPE_F16, .ne = {total, hd, nkv, 1}, .nb = {2, (size_t)n_ctx * 2, (size_t)n_ctx * hd * 2, 0}, .data = vc};
    wv.nb[3] = wv.nb[2] * nkv;
    qmm_tensor ya;
    qmm_tensor_init(&ya, QMM_TYPE_F32, 3, (int64_t[]){hd, n, nh}, m->att_heads);
    t0 = prof_start();
    st = qmm_mul_mat_f16(ctx, &wv, &ys, &ya);
    prof_stop(P_ATT_V, t0);
    if (st != QMM_OK)
        return fail(err, es, "attention values: %s", qmm_last_error());
    const heads_job hj = {m->att, m->att_heads, n, nh, hd};
    return par_run(ctx, P_RESID, &hj, heads_rows, n, (int64_t)nh * hd, NULL, 0, 0, err, es);
}

static int eval_batch(qmm_context *ctx, run_model *m, const int32_t *ids, int n, char *err, size_t es) {
    const int d = m->n_embd, hd = m->head_dim, nh = m->n_head, nkv = m->n_head_kv, n_ctx = m->n_ctx;
    const int dq = nh * hd, dkv = nkv * hd, ff = m->n_ff;
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= m->n_vocab)
            return fail(err, es, "token id %d is out of the vocabulary (0..%d)", ids[i], m->n_vocab - 1);
    prof_phase = n == 1;
    const double t_eval = prof_start();
    qmm_tensor tid, temb;
    qmm_tensor_init(&tid, QMM_TYPE_I32, 1, (int64_t[]){n}, (void *)ids);
    view2(&temb, m->x, d, n);
    const angles_job aj = {m->rope_cs, hd, m->n_past, m->rope_base};
    if (par_run(ctx, P_ANGLES, &aj, angles_rows, n, (int64_t)hd * 8, NULL, 0, 0, err, es))
        return -1;
    double t0 = prof_start();
    if (qmm_get_rows(ctx, m->tok_embd, &tid, &temb) != QMM_OK)
        return fail(err, es, "get_rows: %s", qmm_last_error());
    prof_stop(P_EMBD, t0);
    /* The residual of each layer's feed-forward is added by the next layer's
     * first norm (one pass over x), the last layer's by the output norm. */
    const float *pending = NULL;
    for (int l = 0; l < m->n_layer; l++) {
        const run_layer *L = &m->layers[l];
        const norm_job nj = {m->xn, m->x, pending, L->attn_norm, d, m->norm_eps};
        if (par_run(ctx, P_NORM, &nj, norm_rows, n, d, NULL, 0, 0, err, es))
            return -1;
        float *q = m->q, *k = m->k, *v = m->v;
        size_t q_stride = (size_t)dq, k_stride = (size_t)dkv, v_stride = (size_t)dkv;
        if (L->w_qkv) {
            /* q, k, v stay where the stacked product put them: rows of dq + 2 dkv */
            if (mul(ctx, L->w_qkv, m->xn, m->fused, n, P_QKV, err, es))
                return -1;
            q = m->fused;
            k = m->fused + dq;
            v = m->fused + dq + dkv;
            q_stride = k_stride = v_stride = (size_t)(dq + 2 * dkv);
        } else if (mul(ctx, L->wq, m->xn, m->q, n, P_QKV, err, es) || mul(ctx, L->wk, m->xn, m->k, n, P_QKV, err, es) ||
                   mul(ctx, L->wv, m->xn, m->v, n, P_QKV, err, es))
            return -1;
        const size_t layer_kv = (size_t)dkv * n_ctx;
        const rope_kv_job rj = {q,
                                k,
                                v,
                                m->rope_cs,
                                q_stride,
                                k_stride,
                                v_stride,
                                n,
                                nh,
                                nkv,
                                hd,
                                n_ctx,
                                m->n_past,
                                m->k_cache + (size_t)l * layer_kv,
                                m->v_cache + (size_t)l * layer_kv};
        if (par_run(ctx, P_ROPE_KV, &rj, rope_k_rows, n, dq + 2 * (int64_t)dkv, v_cache_rows, dkv, n, err, es))
            return -1;
        if (attention(ctx, m, l, n, q, q_stride, err, es) || mul(ctx, L->wo, m->att, m->xn, n, P_O, err, es))
            return -1;
        /* x += attention output; xn = ffn_norm(x), in one pass */
        const norm_job fj = {m->xn, m->x, m->xn, L->ffn_norm, d, m->norm_eps};
        if (par_run(ctx, P_NORM, &fj, norm_rows, n, 2 * (int64_t)d, NULL, 0, 0, err, es))
            return -1;
        float *act; /* silu(gate) * up, the input of down */
        if (L->w_gate_up) {
            if (mul(ctx, L->w_gate_up, m->xn, m->fused, n, P_GATE_UP, err, es))
                return -1;
            act = m->gate;
            const swiglu_job sj = {act, m->fused, m->fused + ff, (size_t)2 * ff, ff};
            if (par_run(ctx, P_SWIGLU, &sj, swiglu_rows, n, ff, NULL, 0, 0, err, es))
                return -1;
        } else {
            if (mul(ctx, L->w_gate, m->xn, m->gate, n, P_GATE_UP, err, es) ||
                mul(ctx, L->w_up, m->xn, m->up, n, P_GATE_UP, err, es))
                return -1;
            act = m->fused;
            const swiglu_job sj = {act, m->gate, m->up, (size_t)ff, ff};
            if (par_run(ctx, P_SWIGLU, &sj, swiglu_rows, n, ff, NULL, 0, 0, err, es))
                return -1;
        }
        /* down writes into xn, which the next norm adds to x (the residual) */
        if (mul(ctx, L->w_down, act, m->xn, n, P_DOWN, err, es))
            return -1;
        pending = m->xn;
    }
    /* Greedy decoding needs the last position's logits only: its residual and
     * output norm; all_logits takes every position's (the same bits for the
     * last: each output row is its own). */
    t0 = prof_start();
    if (m->all_logits) {
        const norm_job oj = {m->xn, m->x, m->xn, m->output_norm, d, m->norm_eps};
        if (par_run(ctx, -1, &oj, norm_rows, n, 2 * (int64_t)d, NULL, 0, 0, err, es) ||
            mul(ctx, m->output, m->xn, m->logits_rows, n, -1, err, es))
            return -1;
        const size_t nv = (size_t)m->n_vocab;
        memcpy(m->all_logits + (size_t)m->n_past * nv, m->logits_rows, (size_t)n * nv * sizeof(float));
        memcpy(m->logits, m->logits_rows + (size_t)(n - 1) * nv, nv * sizeof(float));
    } else {
        const size_t last = (size_t)(n - 1) * d;
        const norm_job oj = {m->xn, m->x + last, m->xn + last, m->output_norm, d, m->norm_eps};
        if (par_run(ctx, -1, &oj, norm_rows, 1, d, NULL, 0, 0, err, es) || mul(ctx, m->output, m->xn, m->logits, 1, -1, err, es))
            return -1;
    }
    prof_stop(P_OUT, t0);
    m->n_past += n;
    prof_stop(P_EVAL, t_eval);
    return 0;
}

int run_model_eval(qmm_context *ctx, run_model *m, const int32_t *ids, int n, char *err, size_t es) {
    if (prof_mode < 0) {
        const char *e = getenv("QMM_RUN_PROFILE");
        prof_mode = !e || !*e || !strcmp(e, "0") ? 0 : !strcmp(e, "cpu") ? 2 : 1;
    }
    if (n < 1)
        return fail(err, es, "nothing to evaluate");
    if (m->all_logits && !m->logits_rows && !(m->logits_rows = alloc_floats((size_t)m->n_batch * (size_t)m->n_vocab)))
        return fail(err, es, "out of memory for the logits of %d positions", m->n_batch);
    if (n > m->n_ctx - m->n_past)
        return fail(err, es, "context full: %d tokens in a context of %d (--ctx)", m->n_past + n, m->n_ctx);
    for (int i = 0; i < n; i += m->n_batch)
        if (eval_batch(ctx, m, ids + i, n - i < m->n_batch ? n - i : m->n_batch, err, es))
            return -1;
    return 0;
}
