/* Caches from GGUF files: which tensors a cache takes, the source hash that
 * ties a cache to its GGUF, and qmm_cache_write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/bytes.h"
#include "base/error.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "io/gguf.h"

/* 64-bit FNV-1a, for the source hash. */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
static uint64_t fnv_u64(uint64_t h, uint64_t v) {
    uint8_t b[8];
    qmm_put64(b, v);
    return fnv(h, b, 8);
}

int qmm_cache_tensor_cacheable(const struct qmm_gguf_tensor *t, char *why, size_t why_size) {
    const char *tn = t->known_type && t->type < QMM_TYPE_COUNT ? qmm_type_name((qmm_type)t->type) : NULL;
    /* 3-D: experts weights by ggml's name (blk.N.ffn_{gate,up,down}_exps) */
    const int experts = t->n_dims == 3 && strstr(t->name, "_exps") != NULL;
    if (!t->known_type || !qmm_cache_packable(t->type) || (t->n_dims != 2 && !experts)) {
        snprintf(why, why_size, "%s, %u dims%s", tn ? tn : "unknown type", t->n_dims,
                 t->n_dims == 3 ? " (3-D: cached as experts when its name has _exps)" : "");
        return 0;
    }
    const size_t nl = strlen(t->name);
    if (nl > QMM_CACHE_MAX_NAME) {
        snprintf(why, why_size, "a name of %zu bytes, longer than the cache's %d", nl, QMM_CACHE_MAX_NAME);
        return 0;
    }
    if (!qmm_cache_shape_ok((qmm_type)t->type, t->ne[0], t->ne[1], t->ne[2])) {
        snprintf(why, why_size, "%s [%lld, %lld, %lld]: %s", tn, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2],
                 t->ne[0] == 0 || t->ne[1] == 0 || t->ne[2] == 0 ? "zero-size" : "a shape that cannot be packed");
        return 0;
    }
    return 1;
}

uint64_t qmm_gguf_source_hash(const qmm_gguf *g) {
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, "qmatmul-gguf-source-1", 21);
    h = fnv_u64(h, qmm_gguf_version(g));
    h = fnv_u64(h, qmm_gguf_file_size(g));
    h = fnv_u64(h, qmm_gguf_alignment(g));
    const int64_t nkv = qmm_gguf_kv_count(g);
    h = fnv_u64(h, (uint64_t)nkv);
    for (int64_t i = 0; i < nkv; i++) {
        const qmm_gguf_kv *kv = qmm_gguf_kv_at(g, i);
        h = fnv(h, kv->key, strlen(kv->key) + 1);
        h = fnv_u64(h, kv->value.type);
        h = fnv_u64(h, kv->value.elem_type);
        h = fnv_u64(h, kv->value.len);
        h = fnv_u64(h, kv->value.size);
        h = fnv(h, kv->value.p, (size_t)kv->value.size);
    }
    const int64_t nt = qmm_gguf_tensor_count(g);
    h = fnv_u64(h, (uint64_t)nt);
    for (int64_t i = 0; i < nt; i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        h = fnv(h, t->name, strlen(t->name) + 1);
        h = fnv_u64(h, t->n_dims);
        for (int d = 0; d < QMM_GGUF_MAX_DIMS; d++)
            h = fnv_u64(h, (uint64_t)t->ne[d]);
        h = fnv_u64(h, t->type);
        h = fnv_u64(h, t->offset);
        /* samples of the data tell apart fine-tunes of one architecture;
         * 16 tensors at most, spread over the table: a cold open reads one
         * page per sample */
        const int64_t step = nt > 16 ? nt / 16 : 1;
        if (i % step == 0 && t->data && t->size)
            h = fnv(h, t->data, t->size < 64 ? (size_t)t->size : 64);
    }
    return h;
}

/* Every cache entry must be the GGUF tensor of its name: same type and
 * shape. The source hash only says which model the writer read; a cache
 * edited afterwards (or one whose hash was copied from another cache) can
 * carry an entry of another shape, which an engine sizing its buffers from
 * the GGUF would then overrun. */
qmm_status qmm_cache_check_entries(const qmm_cache *c, const qmm_gguf *g, const char *gguf_path) {
    for (int64_t i = 0; i < qmm_cache_count(c); i++) {
        const qmm_cache_entry *e = qmm_cache_entry_at(c, i);
        const int64_t ti = qmm_gguf_find_tensor(g, e->name);
        if (ti < 0)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "cache tensor '%.200s' is not a tensor of '%s': repack", e->name, gguf_path);
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, ti);
        const int64_t n_expert = t->n_dims == 3 ? t->ne[2] : 1;
        if (!t->known_type || t->type != (uint32_t)e->type || (t->n_dims != 2 && t->n_dims != 3) || t->ne[0] != e->k ||
            t->ne[1] != e->n || n_expert != e->n_expert || t->ne[3] != 1) {
            const char *tn = t->known_type ? qmm_type_name((qmm_type)t->type) : NULL;
            return qmm_fail(QMM_ERR_INCOMPATIBLE,
                            "cache tensor '%.200s' is %s [%lld, %lld, %lld], but '%s' has it as %s [%lld, %lld, %lld]: repack",
                            e->name, qmm_type_name(e->type), (long long)e->k, (long long)e->n, (long long)e->n_expert, gguf_path,
                            tn ? tn : "an unknown type", (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2]);
        }
    }
    return QMM_OK;
}

qmm_status qmm_cache_matches_gguf(const qmm_cache *cache, const char *gguf_path) {
    if (!cache || !gguf_path)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_matches_gguf: NULL argument");
    qmm_gguf *g;
    qmm_status st = qmm_gguf_open(gguf_path, &g);
    if (st)
        return st;
    if (qmm_gguf_source_hash(g) != qmm_cache_source_hash(cache))
        st = qmm_fail(QMM_ERR_INCOMPATIBLE, "the cache was written from another model than '%s' (source hash %016llx): repack",
                      gguf_path, (unsigned long long)qmm_cache_source_hash(cache));
    else
        st = qmm_cache_check_entries(cache, g, gguf_path);
    qmm_gguf_close(g);
    return st;
}

qmm_status qmm_cache_gguf_hash(const char *gguf_path, uint64_t *hash) {
    if (!gguf_path || !hash)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_gguf_hash: NULL argument");
    *hash = 0;
    qmm_gguf *g;
    qmm_status st = qmm_gguf_open(gguf_path, &g);
    if (st)
        return st;
    *hash = qmm_gguf_source_hash(g);
    qmm_gguf_close(g);
    return QMM_OK;
}

qmm_status qmm_cache_write(qmm_context *ctx, const char *gguf_path, const char *out_path, const qmm_cache_write_options *opts) {
    if (!ctx || !gguf_path || !out_path)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write: NULL argument");
    struct stat src;
    if (stat(gguf_path, &src) != 0)
        return qmm_fail(QMM_ERR_IO, "cannot open '%s': %s", gguf_path, strerror(errno));
    /* before the source is even read: pack m.gguf -o m.gguf must not replace the model */
    qmm_status st = qmm_atomic_file_check(out_path, &src, gguf_path);
    if (st)
        return st;
    qmm_gguf *g;
    st = qmm_gguf_open(gguf_path, &g);
    if (st)
        return st;
    const int64_t nt = qmm_gguf_tensor_count(g);
    qmm_cache_item *list = calloc((size_t)(nt ? nt : 1), sizeof *list);
    if (!list) {
        qmm_gguf_close(g);
        return qmm_fail(QMM_ERR_NO_MEMORY, "tensor list");
    }
    int64_t n = 0;
    for (int64_t i = 0; i < nt; i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        int take;
        if (opts && opts->filter) {
            take = opts->filter(opts->user, t->name, t->type < QMM_TYPE_COUNT ? (qmm_type)t->type : QMM_TYPE_COUNT,
                                (int)t->n_dims, t->ne);
            /* a 3-D tensor is experts weights by its name only: another 3-D
             * tensor packed as experts would not be what its engine multiplies */
            const int shape_ok = t->n_dims <= 2 || (t->n_dims == 3 && strstr(t->name, "_exps") != NULL);
            if (take && (!t->known_type || !qmm_cache_packable(t->type) || !shape_ok || t->ne[3] != 1)) {
                st = qmm_fail(QMM_ERR_UNSUPPORTED, "tensor '%s' (%s, %u dims) was selected but cannot be packed", t->name,
                              t->known_type && qmm_type_name((qmm_type)t->type) ? qmm_type_name((qmm_type)t->type) : "?",
                              t->n_dims);
                break;
            }
        } else {
            char why[160];
            take = qmm_cache_tensor_cacheable(t, why, sizeof why);
            if (!take && t->known_type && qmm_cache_packable(t->type) && t->n_dims == 2)
                qmm_log(QMM_LOG_INFO, "cache of '%s': skipped tensor '%.200s': %s", gguf_path, t->name, why);
        }
        if (!take)
            continue;
        list[n].t.name = t->name;
        list[n].t.type = (qmm_type)t->type;
        list[n].t.k = t->ne[0];
        list[n].t.n = t->ne[1];
        list[n].t.data = t->data;
        list[n].t.size = (size_t)t->size;
        list[n].n_expert = t->ne[2]; /* 1: a matrix */
        n++;
    }
    if (st == QMM_OK)
        st = qmm_cache_write_file(ctx, list, n, qmm_gguf_source_hash(g), out_path, opts, &src, gguf_path);
    free(list);
    qmm_gguf_close(g);
    return st;
}
