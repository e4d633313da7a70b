/* The cache writer: plans every tensor's blob for the context's chains, lays
 * the file out (families, index, names, then the blobs), packs and writes
 * each blob with its index entry, and commits the file crash-safely
 * (io/atomic_file.h). The byte layout is in io/cache.h. */
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/crc32.h"
#include "base/error.h"
#include "io/atomic_file.h"
#include "io/cache.h"

#ifndef QMM_VERSION_STRING
#define QMM_VERSION_STRING "0.0.0"
#endif

typedef struct wtensor {
    const qmm_cache_tensor *t;
    int64_t n_expert;
    qmm_blob_plan plan;
    uint64_t offset;
    uint32_t crc;
} wtensor;

/* What the file will hold, before a byte of it is written. */
typedef struct cache_plan {
    wtensor *wt; /* sorted by name */
    int64_t count;
    const qmm_family *fams[QMM_CACHE_MAX_FAMILIES];
    int nfam;
    uint64_t names;                      /* string table bytes */
    uint64_t idx_off, str_off, meta_end; /* the metadata region [QMM_CACHE_HEADER, meta_end) */
    uint64_t data_off, end;              /* the first blob, the file size */
    size_t maxblob;                      /* the largest blob: the pack buffer */
} cache_plan;

static int cmp_name(const void *a, const void *b) { return strcmp(((const wtensor *)a)->t->name, ((const wtensor *)b)->t->name); }

static uint64_t blob_align(uint64_t size) { return size >= QMM_CACHE_LARGE_BLOB ? QMM_CACHE_PAGE : QMM_CACHE_BLOB_ALIGN; }

static void add_family(cache_plan *p, const qmm_family *kf) {
    for (int f = 0; f < p->nfam; f++)
        if (p->fams[f] == kf)
            return;
    if (p->nfam < QMM_CACHE_MAX_FAMILIES)
        p->fams[p->nfam++] = kf;
}

static qmm_status plan_tensor(const qmm_context *ctx, const qmm_cache_item *item, int64_t i, wtensor *w, cache_plan *p) {
    const qmm_cache_tensor *t = &item->t;
    w->t = t;
    const size_t nl = t->name ? strlen(t->name) : 0;
    if (nl == 0 || nl > QMM_CACHE_MAX_NAME)
        return qmm_fail(QMM_ERR_INVALID_ARG, "tensor %lld: name is NULL, empty or longer than %d bytes", (long long)i,
                        QMM_CACHE_MAX_NAME);
    if (!t->data)
        return qmm_fail(QMM_ERR_INVALID_ARG, "tensor '%s': data is NULL", t->name);
    const int64_t ne = item->n_expert;
    qmm_status st = qmm_blob_plan_make_experts(&ctx->dispatch, ctx->pack_threads, t->type, t->k, t->n, ne, &w->plan);
    if (st)
        return qmm_fail_prefixed(st, "tensor '%s': %s", t->name);
    const size_t rb = qmm_row_size(t->type, t->k);
    if ((uint64_t)t->size / rb < (uint64_t)t->n * (uint64_t)ne)
        return qmm_fail(QMM_ERR_INVALID_ARG, "tensor '%s': %zu bytes of data, %lld rows of %zu bytes needed", t->name, t->size,
                        (long long)(t->n * ne), rb);

    p->names += nl + 1;
    if (w->plan.total > p->maxblob)
        p->maxblob = w->plan.total;
    for (int s = 0; s < w->plan.nslots; s++)
        add_family(p, w->plan.kf[s]);
    return QMM_OK;
}

/* Plans every tensor, sorts them by name, refuses duplicates, and places
 * the metadata and the blobs. */
static qmm_status plan_cache(const qmm_context *ctx, const qmm_cache_item *items, int64_t count, cache_plan *p) {
    memset(p, 0, sizeof *p);
    p->count = count;
    p->wt = calloc((size_t)(count ? count : 1), sizeof *p->wt);
    if (!p->wt)
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache writer");
    for (int64_t i = 0; i < count; i++) {
        qmm_status st = plan_tensor(ctx, &items[i], i, &p->wt[i], p);
        if (st)
            return st;
    }
    qsort(p->wt, (size_t)count, sizeof *p->wt, cmp_name);
    for (int64_t i = 1; i < count; i++)
        if (strcmp(p->wt[i - 1].t->name, p->wt[i].t->name) == 0)
            return qmm_fail(QMM_ERR_INVALID_ARG, "tensor name '%s' appears twice", p->wt[i].t->name);
    p->idx_off = QMM_CACHE_HEADER + (uint64_t)p->nfam * QMM_CACHE_ENTRY;
    p->str_off = p->idx_off + (uint64_t)count * QMM_CACHE_ENTRY;
    p->meta_end = p->str_off + p->names;
    p->data_off = qmm_align_up(p->meta_end, QMM_CACHE_PAGE);
    p->end = p->data_off;
    for (int64_t i = 0; i < count; i++) {
        p->wt[i].offset = qmm_align_up(p->end, blob_align(p->wt[i].plan.total));
        p->end = p->wt[i].offset + p->wt[i].plan.total;
    }
    return QMM_OK;
}

static void put_entry(const cache_plan *p, int64_t i, uint64_t name_off, uint8_t *meta) {
    const wtensor *w = &p->wt[i];
    uint8_t *e = meta + p->idx_off + (size_t)i * QMM_CACHE_ENTRY;
    const size_t nl = strlen(w->t->name);
    qmm_put64(e, name_off);
    qmm_put32(e + 8, (uint32_t)nl);
    qmm_put32(e + 12, (uint32_t)w->t->type);
    qmm_put64(e + 16, (uint64_t)w->t->k);
    qmm_put64(e + 24, (uint64_t)w->t->n);
    qmm_put64(e + 32, w->offset);
    qmm_put64(e + 40, w->plan.total);
    qmm_put32(e + 48, w->crc);
    uint32_t fi[2] = {0, 0xff};
    for (int sl = 0; sl < w->plan.nslots; sl++)
        for (int f = 0; f < p->nfam; f++)
            if (p->fams[f] == w->plan.kf[sl])
                fi[sl] = (uint32_t)f;
    qmm_put32(e + 52, fi[0] | fi[1] << 8);
    /* 0 for a matrix: a file of matrices is a version 2 file but for its number */
    qmm_put64(e + 56, w->plan.n_expert > 1 ? (uint64_t)w->plan.n_expert : 0);
    memcpy(meta + p->str_off + name_off, w->t->name, nl + 1);
}

static void put_families(const cache_plan *p, uint8_t *meta) {
    for (int f = 0; f < p->nfam; f++) {
        uint8_t *e = meta + QMM_CACHE_HEADER + (size_t)f * QMM_CACHE_ENTRY;
        const qmm_family *kf = p->fams[f];
        memcpy(e, kf->name, strnlen(kf->name, 23));
        qmm_put32(e + 24, kf->layout_id);
        qmm_put32(e + 28, (uint32_t)kf->wtype);
        qmm_put64(e + 32, kf->required);
        qmm_put32(e + 40, (uint32_t)kf->mr);
        qmm_put32(e + 44, (uint32_t)kf->nr);
        qmm_put32(e + 48, (uint32_t)kf->kr);
        qmm_put32(e + 52, (uint32_t)kf->sr);
        qmm_put32(e + 56, (uint32_t)kf->n_step);
    }
}

/* The header, sealed: both checksums over the finished metadata. */
static void put_header(const cache_plan *p, uint64_t source_hash, uint8_t *meta) {
    uint8_t *h = meta;
    memcpy(h, QMM_CACHE_MAGIC, 8);
    qmm_put32(h + 8, QMM_CACHE_VERSION);
    qmm_put32(h + 12, QMM_CACHE_HEADER);
    qmm_put64(h + 16, p->end);
    qmm_put64(h + 24, source_hash);
    memcpy(h + 32, QMM_VERSION_STRING, strnlen(QMM_VERSION_STRING, 31));
    qmm_put32(h + 64, (uint32_t)p->nfam);
    qmm_put32(h + 68, (uint32_t)p->count);
    qmm_put64(h + 72, p->names);
    qmm_put64(h + 80, p->data_off);
    qmm_put32(h + 88, QMM_CACHE_PAGE);
    qmm_put32(h + 92, qmm_crc32(0, h + QMM_CACHE_HEADER, (size_t)(p->meta_end - QMM_CACHE_HEADER)));
    qmm_put32(h + 252, qmm_crc32(0, h, QMM_CACHE_HEADER));
}

/* Packs and writes every blob (its entry into meta as it goes), then the
 * families, the index and the names; the header goes last, at commit. */
static qmm_status write_body(qmm_context *ctx, cache_plan *p, uint8_t *meta, void *buf, qmm_atomic_file *f,
                             const qmm_cache_write_options *opts) {
    uint64_t name_off = 0;
    for (int64_t i = 0; i < p->count; i++) {
        wtensor *w = &p->wt[i];
        qmm_status st = qmm_pack_plan_into(ctx, &w->plan, w->t->data, w->t->size, buf);
        if (st)
            return st;
        w->crc = qmm_crc32(0, buf, w->plan.total);
        if ((st = qmm_atomic_file_write(f, buf, w->plan.total, w->offset)))
            return st;
        put_entry(p, i, name_off, meta);
        name_off += strlen(w->t->name) + 1;
        if (opts && opts->progress)
            opts->progress(opts->user, i + 1, p->count, w->t->name);
    }
    put_families(p, meta);
    return qmm_atomic_file_write(f, meta + QMM_CACHE_HEADER, (size_t)(p->meta_end - QMM_CACHE_HEADER), QMM_CACHE_HEADER);
}

qmm_status qmm_cache_write_file(qmm_context *ctx, const qmm_cache_item *items, int64_t count, uint64_t source_hash,
                                const char *out_path, const qmm_cache_write_options *opts, const struct stat *src,
                                const char *src_path) {
    if (!ctx || !out_path || (count > 0 && !items))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: NULL argument");
    if (count < 0 || count > QMM_CACHE_MAX_TENSORS)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: %lld tensors (0 to %d)", (long long)count,
                        QMM_CACHE_MAX_TENSORS);
    if (opts && qmm_check_reserved(opts->reserved, 4, "qmm_cache_write_options") != QMM_OK)
        return QMM_ERR_INVALID_ARG;
    const size_t plen = strlen(out_path);
    if (plen == 0 || plen > 4000)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: output path is empty or too long");
    qmm_status st = qmm_atomic_file_check(out_path, src, src_path);
    if (st)
        return st;
    cache_plan p;
    st = plan_cache(ctx, items, count, &p);
    if (st) {
        free(p.wt);
        return st;
    }
    uint8_t *meta = calloc(1, (size_t)p.meta_end);
    void *buf = p.maxblob ? qmm_alloc_big(p.maxblob) : NULL;
    if (!meta || (p.maxblob && !buf)) {
        st = qmm_fail(QMM_ERR_NO_MEMORY, "cache writer buffers (%zu bytes)", p.maxblob);
    } else {
        qmm_atomic_file f;
        st = qmm_atomic_file_begin(&f, out_path, src, src_path);
        if (st == QMM_OK) {
            st = write_body(ctx, &p, meta, buf, &f, opts);
            if (st == QMM_OK) {
                put_header(&p, source_hash, meta);
                st = qmm_atomic_file_commit(&f, p.end, meta, QMM_CACHE_HEADER); /* ends f either way */
            } else {
                qmm_atomic_file_abort(&f);
            }
        }
    }
    free(meta);
    qmm_free_big(buf, p.maxblob);
    free(p.wt);
    return st;
}

qmm_status qmm_cache_write_tensors(qmm_context *ctx, const qmm_cache_tensor *tensors, int64_t count, uint64_t source_hash,
                                   const char *out_path, const qmm_cache_write_options *opts) {
    if (count < 0 || count > QMM_CACHE_MAX_TENSORS)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: %lld tensors (0 to %d)", (long long)count,
                        QMM_CACHE_MAX_TENSORS);
    if (count > 0 && !tensors)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: NULL argument");
    for (int64_t i = 0; i < count; i++)
        if (qmm_check_reserved(tensors[i].reserved, 2, "qmm_cache_tensor") != QMM_OK)
            return QMM_ERR_INVALID_ARG;
    /* matrices: the public form has no experts count */
    qmm_cache_item *items = calloc((size_t)(count ? count : 1), sizeof *items);
    if (!items)
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache writer");
    for (int64_t i = 0; i < count; i++) {
        items[i].t = tensors[i];
        items[i].n_expert = 1;
    }
    qmm_status st = qmm_cache_write_file(ctx, items, count, source_hash, out_path, opts, NULL, NULL);
    free(items);
    return st;
}
