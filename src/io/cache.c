/* Packed-weight cache files: writer, mmap reader, verification. The format
 * is described in cache.h. Every field read from a file is checked against
 * the file size, with overflow-safe arithmetic, before it is used. */
#include "io/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/crc32.h"
#include "base/error.h"
#include "io/gguf.h"
#include "packed/packed.h"

#ifndef QMM_VERSION_STRING
#define QMM_VERSION_STRING "0.0.0"
#endif

struct qmm_cache {
    const uint8_t *base;
    size_t size;
    void *map; /* munmap'ed at the last release, or NULL (memory image) */
    size_t map_size;
    void *copy; /* QMM_CACHE_COPY: the file read into memory, freed at the last release */
    size_t copy_size;
    uint32_t format;  /* format version of the file */
    atomic_long refs; /* the handle + one per live weights object */
    uint64_t source_hash;
    uint64_t data_offset;
    char version[33];
    int nfam;
    qmm_cache_family fam[QMM_CACHE_MAX_FAMILIES];
    int64_t count;
    qmm_cache_entry *e;
};

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

/* Re-raises the last error with a prefix (copied first: qmm_fail formats
 * into the buffer qmm_last_error() points at). */
static qmm_status prefixed(qmm_status st, const char *prefix, const char *what) {
    char detail[512];
    snprintf(detail, sizeof detail, "%s", qmm_last_error());
    return qmm_fail(st, prefix, what, detail);
}

static int packable(uint32_t type) { return type < QMM_TYPE_COUNT && qmm_wtype_index((qmm_type)type) >= 0; }

static int shape_ok(qmm_type type, int64_t k, int64_t n) {
    const int64_t blk = qmm_type_block_elems(type);
    return blk > 0 && k > 0 && n > 0 && k % blk == 0 && k <= ((int64_t)1 << 40) && n <= ((int64_t)1 << 40) &&
           (uint64_t)k * (uint64_t)n <= ((uint64_t)1 << 44);
}

/* ------------------------------------------------------------------ reader */

static void cache_release(void *owner) {
    qmm_cache *c = owner;
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    if (c->map)
        munmap(c->map, c->map_size);
    qmm_free_big(c->copy, c->copy_size);
    free(c->e);
    free(c);
}

static qmm_status parse(qmm_cache *c, uint64_t want_source) {
    const uint8_t *h = c->base;
    const size_t size = c->size;
    if (size < 8 || memcmp(h, QMM_CACHE_MAGIC, 8) != 0)
        return qmm_fail(QMM_ERR_BAD_FILE, "not a qmatmul cache file (no \"%s\" magic)", QMM_CACHE_MAGIC);
    if (size < QMM_CACHE_HEADER)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache file of %zu bytes is shorter than its %d-byte header (truncated)", size,
                        QMM_CACHE_HEADER);
    /* the checksum first: a flipped version byte is damage, a sealed other
     * version is a file from another qmatmul */
    uint8_t tmp[QMM_CACHE_HEADER];
    memcpy(tmp, h, QMM_CACHE_HEADER);
    memset(tmp + 252, 0, 4);
    const int sealed = qmm_crc32(0, tmp, QMM_CACHE_HEADER) == qmm_get32(h + 252);
    c->format = qmm_get32(h + 8);
    if (c->format < QMM_CACHE_VERSION_MIN || c->format > QMM_CACHE_VERSION) {
        if (sealed)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "cache format version %u, this qmatmul (%s) reads versions %d to %d: repack",
                            qmm_get32(h + 8), QMM_VERSION_STRING, QMM_CACHE_VERSION_MIN, QMM_CACHE_VERSION);
        return qmm_fail(QMM_ERR_BAD_FILE, "cache header is corrupted (format version %u and a checksum mismatch)",
                        qmm_get32(h + 8));
    }
    if (!sealed)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache header checksum mismatch (corrupted header)");
    if (qmm_get32(h + 12) != QMM_CACHE_HEADER)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache header size %u, expected %d", qmm_get32(h + 12), QMM_CACHE_HEADER);
    const uint64_t fsize = qmm_get64(h + 16);
    if (fsize > size)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache file is truncated: %zu bytes, its header says %llu", size,
                        (unsigned long long)fsize);
    if (fsize < size)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache file has %llu bytes after its end (%zu bytes, header says %llu)",
                        (unsigned long long)(size - fsize), size, (unsigned long long)fsize);
    if (!qmm_all_zero(h + 96, 156))
        return qmm_fail(QMM_ERR_BAD_FILE, "cache header reserved bytes are not zero");
    c->source_hash = qmm_get64(h + 24);
    if (want_source && c->source_hash != want_source)
        return qmm_fail(QMM_ERR_INCOMPATIBLE,
                        "cache was written from another model (source hash %016llx, expected %016llx): repack",
                        (unsigned long long)c->source_hash, (unsigned long long)want_source);
    memcpy(c->version, h + 32, 32);
    c->version[32] = 0;
    if (strnlen((const char *)h + 32, 32) == 32 || !qmm_all_zero(h + 32 + strlen(c->version), 32 - strlen(c->version)))
        return qmm_fail(QMM_ERR_BAD_FILE, "cache header version string is not NUL-padded");
    const uint32_t nfam = qmm_get32(h + 64), ntens = qmm_get32(h + 68);
    const uint64_t ssize = qmm_get64(h + 72), doff = qmm_get64(h + 80);
    if (qmm_get32(h + 88) != QMM_CACHE_PAGE)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache page size %u, expected %d", qmm_get32(h + 88), QMM_CACHE_PAGE);
    if (nfam > QMM_CACHE_MAX_FAMILIES || ntens > QMM_CACHE_MAX_TENSORS)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache lists %u kernel families and %u tensors (limits %d, %d)", nfam, ntens,
                        QMM_CACHE_MAX_FAMILIES, QMM_CACHE_MAX_TENSORS);
    const uint64_t idx_off = QMM_CACHE_HEADER + (uint64_t)nfam * QMM_CACHE_ENTRY;
    const uint64_t str_off = idx_off + (uint64_t)ntens * QMM_CACHE_ENTRY;
    if (ssize > fsize || str_off > fsize - ssize)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache index (%u families, %u tensors, %llu bytes of names) runs past the file", nfam,
                        ntens, (unsigned long long)ssize);
    const uint64_t meta_end = str_off + ssize;
    if (doff != qmm_align_up(meta_end, QMM_CACHE_PAGE) || doff > fsize)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache data offset %llu, expected %llu", (unsigned long long)doff,
                        (unsigned long long)qmm_align_up(meta_end, QMM_CACHE_PAGE));
    if (qmm_crc32(0, h + QMM_CACHE_HEADER, meta_end - QMM_CACHE_HEADER) != qmm_get32(h + 92))
        return qmm_fail(QMM_ERR_BAD_FILE, "cache index checksum mismatch (corrupted family table, tensor index or names)");
    c->data_offset = doff;

    c->nfam = (int)nfam;
    for (uint32_t i = 0; i < nfam; i++) {
        const uint8_t *f = h + QMM_CACHE_HEADER + (size_t)i * QMM_CACHE_ENTRY;
        qmm_cache_family *fa = &c->fam[i];
        memcpy(fa->name, f, 24);
        fa->name[24] = 0;
        const size_t len = strlen(fa->name);
        if (len == 0 || len >= 24 || !qmm_all_zero(f + len, 24 - len))
            return qmm_fail(QMM_ERR_BAD_FILE, "kernel family %u of the cache has an empty or unterminated name", i);
        fa->layout_id = qmm_get32(f + 24);
        const uint32_t wt = qmm_get32(f + 28);
        if (!packable(wt))
            return qmm_fail(QMM_ERR_BAD_FILE, "kernel family '%s' of the cache has weight type %u", fa->name, wt);
        fa->wtype = (qmm_type)wt;
        fa->required = qmm_get64(f + 32);
        fa->mr = (int32_t)qmm_get32(f + 40);
        fa->nr = (int32_t)qmm_get32(f + 44);
        fa->kr = (int32_t)qmm_get32(f + 48);
        fa->sr = (int32_t)qmm_get32(f + 52);
        fa->n_step = (int32_t)qmm_get32(f + 56);
        if (qmm_get32(f + 60))
            return qmm_fail(QMM_ERR_BAD_FILE, "kernel family '%s' entry reserved field is not zero", fa->name);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(c->fam[j].name, fa->name) == 0)
                return qmm_fail(QMM_ERR_BAD_FILE, "kernel family '%s' is listed twice", fa->name);
        fa->kf = qmm_kernel_find(fa->name);
    }

    c->count = ntens;
    c->e = calloc(ntens ? ntens : 1, sizeof *c->e);
    if (!c->e)
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache index of %u tensors", ntens);
    const char *strs = (const char *)h + str_off;
    /* version 1 page-aligned every blob; version 2 only needs the blob's own alignment */
    const uint64_t align_req = c->format == 1 ? QMM_CACHE_PAGE : QMM_CACHE_BLOB_ALIGN;
    uint64_t prev_end = doff;
    for (uint32_t i = 0; i < ntens; i++) {
        const uint8_t *t = h + idx_off + (size_t)i * QMM_CACHE_ENTRY;
        qmm_cache_entry *e = &c->e[i];
        const uint64_t noff = qmm_get64(t), nlen = qmm_get32(t + 8);
        if (nlen == 0 || nlen > QMM_CACHE_MAX_NAME || noff >= ssize || nlen >= ssize - noff)
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor %u name [%llu, +%llu] is empty or outside the name table", i,
                            (unsigned long long)noff, (unsigned long long)nlen);
        if (strs[noff + nlen] != 0 || memchr(strs + noff, 0, nlen))
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor %u name is not a NUL-terminated string of %llu bytes", i,
                            (unsigned long long)nlen);
        e->name = strs + noff;
        e->name_len = (uint32_t)nlen;
        if (i > 0 && strcmp(c->e[i - 1].name, e->name) >= 0)
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor index is not sorted by name at '%s' (or a name repeats)", e->name);
        const uint32_t type = qmm_get32(t + 12);
        if (!packable(type))
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' has type %u, not a packable type", e->name, type);
        e->type = (qmm_type)type;
        e->k = (int64_t)qmm_get64(t + 16);
        e->n = (int64_t)qmm_get64(t + 24);
        if (!shape_ok(e->type, e->k, e->n))
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' shape %lld x %lld is invalid for %s", e->name, (long long)e->n,
                            (long long)e->k, qmm_type_name(e->type));
        e->offset = qmm_get64(t + 32);
        e->size = qmm_get64(t + 40);
        e->crc = qmm_get32(t + 48);
        const uint32_t fams = qmm_get32(t + 52);
        if ((fams >> 16) || qmm_get64(t + 56))
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' entry reserved fields are not zero", e->name);
        e->fam[0] = (int)(fams & 0xff);
        e->fam[1] = (fams >> 8 & 0xff) == 0xff ? -1 : (int)(fams >> 8 & 0xff);
        if (e->fam[0] >= (int)nfam || e->fam[1] >= (int)nfam || e->fam[0] == e->fam[1] || c->fam[e->fam[0]].wtype != e->type ||
            (e->fam[1] >= 0 && c->fam[e->fam[1]].wtype != e->type))
            return qmm_fail(QMM_ERR_BAD_FILE,
                            "tensor '%s' names kernel families %d and %d, not families of its type in the table", e->name,
                            e->fam[0], e->fam[1]);
        if (e->offset % align_req || e->offset < prev_end)
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' blob offset %llu is not %llu-byte aligned or overlaps the one before",
                            e->name, (unsigned long long)e->offset, (unsigned long long)align_req);
        if (e->size < QMM_BLOB_HEADER || e->offset > fsize || e->size > fsize - e->offset)
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' blob [%llu, +%llu) runs past the file's %llu bytes (truncated?)",
                            e->name, (unsigned long long)e->offset, (unsigned long long)e->size, (unsigned long long)fsize);
        prev_end = e->offset + e->size;
    }
    if (prev_end != fsize && ntens > 0)
        return qmm_fail(QMM_ERR_BAD_FILE, "cache file does not end with its last blob (%llu bytes, last blob ends at %llu)",
                        (unsigned long long)fsize, (unsigned long long)prev_end);
    if (ntens == 0 && fsize != doff)
        return qmm_fail(QMM_ERR_BAD_FILE, "empty cache file has %llu bytes, expected %llu", (unsigned long long)fsize,
                        (unsigned long long)doff);
    return QMM_OK;
}

static void feature_names(uint64_t bits, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < 64; i++) {
        if (!(bits >> i & 1))
            continue;
        const char *nm = qmm_cpu_feature_name(1ull << i);
        const int w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", nm ? nm : "?");
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
    }
}

qmm_status qmm_cache_check_compat(const qmm_context *ctx, const qmm_cache *c, unsigned flags) {
    for (int i = 0; i < c->nfam; i++) {
        const qmm_cache_family *fa = &c->fam[i];
        if (!fa->kf)
            return qmm_fail(QMM_ERR_INCOMPATIBLE,
                            "cache was packed by kernel family '%s' (qmatmul %s), which this build (%s) lacks", fa->name,
                            c->version, QMM_VERSION_STRING);
        if (fa->kf->layout_id != fa->layout_id || fa->kf->wtype != fa->wtype)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "cache has layout %u of '%s' (qmatmul %s), this build (%s) packs layout %u",
                            fa->layout_id, fa->name, c->version, QMM_VERSION_STRING, fa->kf->layout_id);
        const uint64_t missing = fa->kf->required & ~ctx->dispatch.features;
        if (missing) {
            char names[256];
            feature_names(missing, names, sizeof names);
            return qmm_fail(QMM_ERR_INCOMPATIBLE,
                            "cache was packed for kernel family '%s', which needs CPU features this CPU lacks: %s", fa->name,
                            names);
        }
    }
    if (!(flags & QMM_CACHE_ANY_KERNELS))
        for (int64_t i = 0; i < c->count; i++) {
            const qmm_cache_entry *e = &c->e[i];
            const qmm_kernel *want = ctx->dispatch.chains[qmm_wtype_index(e->type)].primary;
            if (c->fam[e->fam[0]].kf != want)
                return qmm_fail(QMM_ERR_INCOMPATIBLE,
                                "tensor '%s' was packed for '%s', this context selects '%s' for %s: repack "
                                "(or open with QMM_CACHE_ANY_KERNELS)",
                                e->name, c->fam[e->fam[0]].name, want->name, qmm_type_name(e->type));
        }
    return QMM_OK;
}

qmm_status qmm_cache_open_memory(const qmm_context *ctx, const void *data, size_t size, unsigned flags, uint64_t source_hash,
                                 qmm_cache **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: out is NULL");
    *out = NULL;
    if (!data || (!ctx && !(flags & QMM_CACHE_STRUCTURE_ONLY)))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: NULL argument");
    if ((uintptr_t)data % 64)
        return qmm_fail(QMM_ERR_INVALID_ARG, "cache image at %p is not 64-byte aligned", data);
    qmm_cache *c = calloc(1, sizeof *c);
    if (!c)
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache");
    c->base = data;
    c->size = size;
    atomic_init(&c->refs, 1);
    qmm_status st = parse(c, source_hash);
    if (st == QMM_OK && (flags & QMM_CACHE_VERIFY))
        st = qmm_cache_verify(c);
    if (st == QMM_OK && !(flags & QMM_CACHE_STRUCTURE_ONLY))
        st = qmm_cache_check_compat(ctx, c, flags);
    if (st != QMM_OK) {
        free(c->e);
        free(c);
        return st;
    }
    *out = c;
    return QMM_OK;
}

/* QMM_CACHE_COPY: the file read into private memory (closes fd). The cache
 * then no longer depends on the file: truncating or rewriting it in place
 * cannot fault a later multiply, as it can with the mapping. */
static qmm_status open_copy(const qmm_context *ctx, const char *path, int fd, size_t size, unsigned flags, uint64_t source_hash,
                            qmm_cache **out) {
    uint8_t *buf = qmm_alloc_big(size);
    if (!buf) {
        close(fd);
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache file '%s': %zu bytes to copy", path, size);
    }
    size_t got = 0;
    while (got < size) {
        const size_t chunk = size - got < ((size_t)1 << 30) ? size - got : ((size_t)1 << 30);
        const ssize_t r = pread(fd, buf + got, chunk, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            const int err = r < 0 ? errno : 0;
            close(fd);
            qmm_free_big(buf, size);
            if (r == 0)
                return qmm_fail(QMM_ERR_BAD_FILE, "cache file '%s' shrank while it was read (%zu of %zu bytes)", path, got, size);
            return qmm_fail(QMM_ERR_IO, "reading cache file '%s': %s", path, strerror(err));
        }
        got += (size_t)r;
    }
    close(fd);
    qmm_cache *c;
    qmm_status st = qmm_cache_open_memory(ctx, buf, size, flags, source_hash, &c);
    if (st) {
        qmm_free_big(buf, size);
        return prefixed(st, "%s: %s", path);
    }
    c->copy = buf;
    c->copy_size = size;
    *out = c;
    return QMM_OK;
}

qmm_status qmm_cache_open_path(const qmm_context *ctx, const char *path, unsigned flags, uint64_t source_hash, qmm_cache **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: out is NULL");
    *out = NULL;
    if (!path || (!ctx && !(flags & QMM_CACHE_STRUCTURE_ONLY)))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: NULL argument");
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return qmm_fail(QMM_ERR_IO, "cannot open cache file '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        const int err = errno;
        close(fd);
        return qmm_fail(QMM_ERR_IO, "cannot stat cache file '%s': %s", path, strerror(err));
    }
    if (!S_ISREG(sb.st_mode) || sb.st_size <= 0) {
        close(fd);
        if (S_ISREG(sb.st_mode))
            return qmm_fail(QMM_ERR_BAD_FILE, "cache file '%s' is empty", path);
        return qmm_fail(QMM_ERR_IO, "cache file '%s' is not a regular file", path);
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        return qmm_fail(QMM_ERR_BAD_FILE, "cache file '%s' is too large to map", path);
    }
    const size_t size = (size_t)sb.st_size;
    if (flags & QMM_CACHE_COPY)
        return open_copy(ctx, path, fd, size, flags, source_hash, out);
    int mflags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    if (flags & QMM_CACHE_POPULATE)
        mflags |= MAP_POPULATE;
#endif
    void *map = mmap(NULL, size, PROT_READ, mflags, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return qmm_fail(QMM_ERR_IO, "cannot map cache file '%s': %s", path, strerror(errno));
    qmm_cache *c;
    qmm_status st = qmm_cache_open_memory(ctx, map, size, flags, source_hash, &c);
    if (st) {
        munmap(map, size);
        return prefixed(st, "%s: %s", path);
    }
    c->map = map;
    c->map_size = size;
    *out = c;
    return QMM_OK;
}

qmm_status qmm_cache_open(qmm_context *ctx, const char *path, const qmm_cache_open_options *opts, qmm_cache **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: out is NULL");
    *out = NULL;
    if (!ctx || !path)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: NULL argument");
    qmm_cache_open_options o = {NULL, 0, 0};
    if (opts)
        o = *opts;
    if (o.flags & ~(unsigned)(QMM_CACHE_VERIFY | QMM_CACHE_ANY_KERNELS | QMM_CACHE_POPULATE | QMM_CACHE_COPY))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: unknown flags 0x%x", o.flags);
    uint64_t want = o.source_hash;
    if (o.gguf_path) {
        uint64_t gh;
        qmm_status st = qmm_cache_gguf_hash(o.gguf_path, &gh);
        if (st)
            return st;
        if (want && want != gh)
            return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: source_hash and gguf_path disagree");
        want = gh;
    }
    return qmm_cache_open_path(ctx, path, o.flags, want, out);
}

void qmm_cache_close(qmm_cache *cache) {
    if (cache)
        cache_release(cache);
}

int64_t qmm_cache_count(const qmm_cache *cache) { return cache ? cache->count : 0; }

const char *qmm_cache_name(const qmm_cache *cache, int64_t i) {
    return (cache && i >= 0 && i < cache->count) ? cache->e[i].name : NULL;
}

int64_t qmm_cache_find(const qmm_cache *cache, const char *name) {
    if (!cache || !name)
        return -1;
    int64_t lo = 0, hi = cache->count;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int r = strcmp(cache->e[mid].name, name);
        if (r == 0)
            return mid;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

uint64_t qmm_cache_source_hash(const qmm_cache *cache) { return cache ? cache->source_hash : 0; }

qmm_status qmm_cache_get(qmm_cache *cache, const char *name, qmm_weights **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_get: out is NULL");
    *out = NULL;
    if (!cache || !name)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_get: NULL argument");
    const int64_t i = qmm_cache_find(cache, name);
    if (i < 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "the cache has no tensor named '%s'", name);
    const qmm_cache_entry *e = &cache->e[i];
    qmm_weights tmp;
    /* the CPU features were checked against the context at open */
    qmm_status st = qmm_blob_validate(NULL, cache->base + e->offset, e->size, &tmp);
    if (st)
        return prefixed(st, "tensor '%s': %s", name);
    if (tmp.type != e->type || tmp.k != e->k || tmp.n != e->n || tmp.nslots != (e->fam[1] >= 0 ? 2 : 1) ||
        tmp.kf[0] != cache->fam[e->fam[0]].kf || (e->fam[1] >= 0 && tmp.kf[1] != cache->fam[e->fam[1]].kf))
        return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s': its blob (%s %lld x %lld, '%s') does not match the cache index", name,
                        qmm_type_name(tmp.type), (long long)tmp.n, (long long)tmp.k, tmp.kf[0]->name);
    qmm_weights *w = malloc(sizeof *w);
    if (!w)
        return qmm_fail(QMM_ERR_NO_MEMORY, "weights");
    *w = tmp;
    w->release = cache_release;
    w->owner = cache;
    atomic_fetch_add(&cache->refs, 1);
    *out = w;
    return QMM_OK;
}

qmm_status qmm_cache_verify(qmm_cache *cache) {
    if (!cache)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_verify: cache is NULL");
    const uint8_t *b = cache->base;
    uint64_t pos = cache->data_offset;
    /* header and index were checked at open; the rest: names' padding, blobs, gaps */
    const uint64_t meta_end = QMM_CACHE_HEADER + (uint64_t)(cache->nfam + cache->count) * QMM_CACHE_ENTRY + qmm_get64(b + 72);
    if (!qmm_all_zero(b + meta_end, cache->data_offset - meta_end))
        return qmm_fail(QMM_ERR_BAD_FILE, "padding after the cache index is not zero (corrupted at byte %llu or after)",
                        (unsigned long long)meta_end);
    for (int64_t i = 0; i < cache->count; i++) {
        const qmm_cache_entry *e = &cache->e[i];
        for (uint64_t p = pos; p < e->offset; p++)
            if (b[p])
                return qmm_fail(QMM_ERR_BAD_FILE, "padding before tensor '%s' is not zero at byte %llu", e->name,
                                (unsigned long long)p);
        const uint32_t crc = qmm_crc32(0, b + e->offset, e->size);
        if (crc != e->crc)
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s': checksum mismatch (blob at byte %llu, %llu bytes, is corrupted)",
                            e->name, (unsigned long long)e->offset, (unsigned long long)e->size);
        pos = e->offset + e->size;
    }
    return QMM_OK;
}

const qmm_cache_entry *qmm_cache_entry_at(const qmm_cache *c, int64_t i) {
    return (c && i >= 0 && i < c->count) ? &c->e[i] : NULL;
}
int qmm_cache_family_count(const qmm_cache *c) { return c ? c->nfam : 0; }
const qmm_cache_family *qmm_cache_family_at(const qmm_cache *c, int i) {
    return (c && i >= 0 && i < c->nfam) ? &c->fam[i] : NULL;
}
const char *qmm_cache_writer_version(const qmm_cache *c) { return c ? c->version : NULL; }
uint64_t qmm_cache_file_size(const qmm_cache *c) { return c ? c->size : 0; }

/* ------------------------------------------------------------------ writer */

typedef struct wtensor {
    const qmm_cache_tensor *t;
    qmm_blob_plan plan;
    uint64_t offset;
    uint32_t crc;
} wtensor;

static int cmp_name(const void *a, const void *b) { return strcmp(((const wtensor *)a)->t->name, ((const wtensor *)b)->t->name); }

static qmm_status write_all(int fd, const void *buf, size_t n, uint64_t off, const char *path) {
    const uint8_t *p = buf;
    while (n) {
        const size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        const ssize_t w = pwrite(fd, p, chunk, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return qmm_fail(QMM_ERR_IO, "writing '%s': %s", path, w < 0 ? strerror(errno) : "no progress");
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return QMM_OK;
}

static atomic_uint tmp_counter;

static const char *file_kind(mode_t m) {
    return S_ISDIR(m)    ? "directory"
           : S_ISCHR(m)  ? "character device"
           : S_ISBLK(m)  ? "block device"
           : S_ISFIFO(m) ? "FIFO"
           : S_ISSOCK(m) ? "socket"
                         : "special file";
}

/* The rename replaces whatever is at out_path: allow only a new path or a
 * regular file (followed through symbolic links), never a device, FIFO,
 * socket or directory, and never the source itself (same device and inode,
 * so symbolic and hard links to it count). */
static qmm_status check_destination(const char *out_path, const struct stat *src, const char *src_path) {
    struct stat sb;
    if (stat(out_path, &sb) != 0) {
        if (errno == ENOENT)
            return QMM_OK; /* a new file (or a dangling link, which the rename replaces) */
        return qmm_fail(QMM_ERR_IO, "cannot check the output path '%s': %s", out_path, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return qmm_fail(QMM_ERR_INVALID_ARG, "output '%s' is a %s, not a regular file: refusing to replace it", out_path,
                        file_kind(sb.st_mode));
    if (src && sb.st_dev == src->st_dev && sb.st_ino == src->st_ino)
        return qmm_fail(QMM_ERR_INVALID_ARG,
                        "output '%s' is the source GGUF '%s' itself (the same file): refusing to overwrite the model", out_path,
                        src_path);
    return QMM_OK;
}

/* Whether name is "<base>.tmp.<digits>.<digits>", the writer's temporary
 * name for a destination of basename base. */
static int is_temp_name(const char *name, const char *base, size_t blen) {
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5) != 0)
        return 0;
    const char *p = name + blen + 5;
    for (int part = 0; part < 2; part++) {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (part == 0 && *p++ != '.')
            return 0;
    }
    return *p == 0;
}

static int same_file(const struct stat *a, const struct stat *b) { return a->st_dev == b->st_dev && a->st_ino == b->st_ino; }

/* Removes the temporaries of earlier writers to out_path that died (killed,
 * crashed) before renaming: a live writer holds an flock on its temporary,
 * so a temporary whose lock can be taken is abandoned. Best effort: what
 * cannot be checked (no lock support, no permission) is left alone. */
static void remove_stale_temps(const char *out_path, const struct stat *src) {
    const char *slash = strrchr(out_path, '/');
    const char *base = slash ? slash + 1 : out_path;
    const size_t blen = strlen(base);
    char *dpath = !slash ? strdup(".") : slash == out_path ? strdup("/") : strndup(out_path, (size_t)(slash - out_path));
    DIR *d = blen && dpath ? opendir(dpath) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!is_temp_name(de->d_name, base, blen))
            continue;
        const size_t tlen = strlen(dpath) + strlen(de->d_name) + 2;
        char *tp = malloc(tlen);
        if (!tp)
            break;
        snprintf(tp, tlen, "%s/%s", dpath, de->d_name);
        struct stat ls, fs;
        /* O_NONBLOCK: never wait on a FIFO that took a temporary's name */
        const int fd = lstat(tp, &ls) == 0 && S_ISREG(ls.st_mode) && !(src && same_file(&ls, src))
                           ? open(tp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                           : -1;
        if (fd >= 0) {
            /* locked by us, and still the file under that name: abandoned */
            if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &fs) == 0 && lstat(tp, &ls) == 0 && same_file(&fs, &ls) &&
                S_ISREG(fs.st_mode) && unlink(tp) == 0)
                qmm_log(QMM_LOG_INFO, "removed '%s', the temporary file of a writer that did not finish", tp);
            close(fd);
        }
        free(tp);
    }
    if (d)
        closedir(d);
    free(dpath);
}

/* Creates the temporary file next to out_path (so rename is atomic) and
 * flock()s it for as long as it is open: the mark of a live writer. */
static int create_temp(const char *out_path, char *tmp, size_t tmp_size) {
    for (int tries = 0; tries < 100; tries++) {
        snprintf(tmp, tmp_size, "%s.tmp.%ld.%u", out_path, (long)getpid(), atomic_fetch_add(&tmp_counter, 1));
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK) { /* a cleaner holds it and removes it: another name */
                close(fd);
                continue;
            }
            return fd; /* no locks on this file system: write unlocked (never cleaned as stale) */
        }
        /* a cleaner may have removed it between the create and the lock */
        struct stat fs, ls;
        if (fstat(fd, &fs) == 0 && lstat(tmp, &ls) == 0 && same_file(&fs, &ls))
            return fd;
        close(fd);
    }
    errno = EEXIST;
    return -1;
}

static uint64_t blob_align(uint64_t size) { return size >= QMM_CACHE_LARGE_BLOB ? QMM_CACHE_PAGE : QMM_CACHE_BLOB_ALIGN; }

static qmm_status write_cache(qmm_context *ctx, const qmm_cache_tensor *tensors, int64_t count, uint64_t source_hash,
                              const char *out_path, const qmm_cache_write_options *opts, const struct stat *src,
                              const char *src_path) {
    if (!ctx || !out_path || (count > 0 && !tensors))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: NULL argument");
    if (count < 0 || count > QMM_CACHE_MAX_TENSORS)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: %lld tensors (0 to %d)", (long long)count,
                        QMM_CACHE_MAX_TENSORS);
    const size_t plen = strlen(out_path);
    if (plen == 0 || plen > 4000)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_write_tensors: output path is empty or too long");
    qmm_status dst = check_destination(out_path, src, src_path);
    if (dst)
        return dst;
    wtensor *wt = calloc((size_t)(count ? count : 1), sizeof *wt);
    if (!wt)
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache writer");
    qmm_status st = QMM_OK;
    uint64_t names = 0;
    size_t maxblob = 0;
    const qmm_kernel *fams[QMM_CACHE_MAX_FAMILIES];
    int nfam = 0;
    for (int64_t i = 0; i < count && st == QMM_OK; i++) {
        const qmm_cache_tensor *t = &tensors[i];
        wt[i].t = t;
        const size_t nl = t->name ? strlen(t->name) : 0;
        if (nl == 0 || nl > QMM_CACHE_MAX_NAME) {
            st = qmm_fail(QMM_ERR_INVALID_ARG, "tensor %lld: name is NULL, empty or longer than %d bytes", (long long)i,
                          QMM_CACHE_MAX_NAME);
            break;
        }
        if (!t->data) {
            st = qmm_fail(QMM_ERR_INVALID_ARG, "tensor '%s': data is NULL", t->name);
            break;
        }
        st = qmm_blob_plan_make(&ctx->dispatch, ctx->pack_threads, t->type, t->k, t->n, &wt[i].plan);
        if (st) {
            st = prefixed(st, "tensor '%s': %s", t->name);
            break;
        }
        const size_t rb = qmm_row_size(t->type, t->k);
        if ((uint64_t)t->size / rb < (uint64_t)t->n) {
            st = qmm_fail(QMM_ERR_INVALID_ARG, "tensor '%s': %zu bytes of data, %lld rows of %zu bytes needed", t->name, t->size,
                          (long long)t->n, rb);
            break;
        }
        names += nl + 1;
        if (wt[i].plan.total > maxblob)
            maxblob = wt[i].plan.total;
        for (int s = 0; s < wt[i].plan.nslots; s++) {
            int seen = 0;
            for (int f = 0; f < nfam; f++)
                seen |= fams[f] == wt[i].plan.kf[s];
            if (!seen && nfam < QMM_CACHE_MAX_FAMILIES)
                fams[nfam++] = wt[i].plan.kf[s];
        }
    }
    if (st) {
        free(wt);
        return st;
    }
    qsort(wt, (size_t)count, sizeof *wt, cmp_name);
    for (int64_t i = 1; i < count; i++)
        if (strcmp(wt[i - 1].t->name, wt[i].t->name) == 0) {
            st = qmm_fail(QMM_ERR_INVALID_ARG, "tensor name '%s' appears twice", wt[i].t->name);
            free(wt);
            return st;
        }

    const uint64_t idx_off = QMM_CACHE_HEADER + (uint64_t)nfam * QMM_CACHE_ENTRY;
    const uint64_t str_off = idx_off + (uint64_t)count * QMM_CACHE_ENTRY;
    const uint64_t meta_end = str_off + names;
    const uint64_t doff = qmm_align_up(meta_end, QMM_CACHE_PAGE);
    uint64_t end = doff;
    for (int64_t i = 0; i < count; i++) {
        wt[i].offset = qmm_align_up(end, blob_align(wt[i].plan.total));
        end = wt[i].offset + wt[i].plan.total;
    }

    uint8_t *meta = calloc(1, (size_t)meta_end);
    void *buf = maxblob ? qmm_alloc_big(maxblob) : NULL;
    char *tmp = malloc(plen + 64);
    if (!meta || (maxblob && !buf) || !tmp) {
        free(meta);
        qmm_free_big(buf, maxblob);
        free(tmp);
        free(wt);
        return qmm_fail(QMM_ERR_NO_MEMORY, "cache writer buffers (%zu bytes)", maxblob);
    }

    remove_stale_temps(out_path, src);
    int fd = create_temp(out_path, tmp, plen + 64);
    if (fd < 0) {
        st = qmm_fail(QMM_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
        goto done;
    }

    uint64_t noff = 0;
    for (int64_t i = 0; i < count; i++) {
        const qmm_cache_tensor *t = wt[i].t;
        st = qmm_pack_into(ctx, t->type, t->k, t->n, t->data, t->size, buf, maxblob);
        if (st)
            goto fail;
        wt[i].crc = qmm_crc32(0, buf, wt[i].plan.total);
        if ((st = write_all(fd, buf, wt[i].plan.total, wt[i].offset, tmp)))
            goto fail;
        uint8_t *e = meta + idx_off + (size_t)i * QMM_CACHE_ENTRY;
        const size_t nl = strlen(t->name);
        qmm_put64(e, noff);
        qmm_put32(e + 8, (uint32_t)nl);
        qmm_put32(e + 12, (uint32_t)t->type);
        qmm_put64(e + 16, (uint64_t)t->k);
        qmm_put64(e + 24, (uint64_t)t->n);
        qmm_put64(e + 32, wt[i].offset);
        qmm_put64(e + 40, wt[i].plan.total);
        qmm_put32(e + 48, wt[i].crc);
        uint32_t fi[2] = {0, 0xff};
        for (int sl = 0; sl < wt[i].plan.nslots; sl++)
            for (int f = 0; f < nfam; f++)
                if (fams[f] == wt[i].plan.kf[sl])
                    fi[sl] = (uint32_t)f;
        qmm_put32(e + 52, fi[0] | fi[1] << 8);
        memcpy(meta + str_off + noff, t->name, nl + 1);
        noff += nl + 1;
        if (opts && opts->progress)
            opts->progress(opts->user, i + 1, count, t->name);
    }
    for (int f = 0; f < nfam; f++) {
        uint8_t *e = meta + QMM_CACHE_HEADER + (size_t)f * QMM_CACHE_ENTRY;
        const qmm_kernel *kf = fams[f];
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
    uint8_t *h = meta;
    memcpy(h, QMM_CACHE_MAGIC, 8);
    qmm_put32(h + 8, QMM_CACHE_VERSION);
    qmm_put32(h + 12, QMM_CACHE_HEADER);
    qmm_put64(h + 16, end);
    qmm_put64(h + 24, source_hash);
    memcpy(h + 32, QMM_VERSION_STRING, strnlen(QMM_VERSION_STRING, 31));
    qmm_put32(h + 64, (uint32_t)nfam);
    qmm_put32(h + 68, (uint32_t)count);
    qmm_put64(h + 72, names);
    qmm_put64(h + 80, doff);
    qmm_put32(h + 88, QMM_CACHE_PAGE);
    qmm_put32(h + 92, qmm_crc32(0, h + QMM_CACHE_HEADER, (size_t)(meta_end - QMM_CACHE_HEADER)));
    qmm_put32(h + 252, qmm_crc32(0, h, QMM_CACHE_HEADER));
    /* the index and names first, the header (magic) last, then size, sync */
    if ((st = write_all(fd, meta + QMM_CACHE_HEADER, (size_t)(meta_end - QMM_CACHE_HEADER), QMM_CACHE_HEADER, tmp)))
        goto fail;
    if (ftruncate(fd, (off_t)end) != 0) {
        st = qmm_fail(QMM_ERR_IO, "sizing '%s': %s", tmp, strerror(errno));
        goto fail;
    }
    if (fdatasync(fd) != 0) {
        st = qmm_fail(QMM_ERR_IO, "syncing '%s': %s", tmp, strerror(errno));
        goto fail;
    }
    if ((st = write_all(fd, h, QMM_CACHE_HEADER, 0, tmp)))
        goto fail;
    if (fsync(fd) != 0) {
        st = qmm_fail(QMM_ERR_IO, "syncing '%s': %s", tmp, strerror(errno));
        goto fail;
    }
    /* again: the destination may have changed during the write */
    if ((st = check_destination(out_path, src, src_path)))
        goto fail;
    /* renamed while still open, so locked: a cleaner never takes a finished
     * temporary for an abandoned one */
    if (rename(tmp, out_path) != 0) {
        st = qmm_fail(QMM_ERR_IO, "renaming '%s' to '%s': %s", tmp, out_path, strerror(errno));
        goto fail;
    }
    close(fd); /* fsync reported any write-back error already */
    fd = -1;
    /* make the rename durable: sync the directory */
    {
        char *dir = strdup(out_path);
        if (dir) {
            char *slash = strrchr(dir, '/');
            const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
            const int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
            }
            free(dir);
        }
    }
    goto done;
fail:
    unlink(tmp);
    if (fd >= 0)
        close(fd);
done:
    free(meta);
    qmm_free_big(buf, maxblob);
    free(tmp);
    free(wt);
    return st;
}

qmm_status qmm_cache_write_tensors(qmm_context *ctx, const qmm_cache_tensor *tensors, int64_t count, uint64_t source_hash,
                                   const char *out_path, const qmm_cache_write_options *opts) {
    return write_cache(ctx, tensors, count, source_hash, out_path, opts, NULL, NULL);
}

/* ------------------------------------------------------------- from GGUF */

int qmm_cache_tensor_cacheable(const struct qmm_gguf_tensor *t, char *why, size_t why_size) {
    const char *tn = t->known_type && t->type < QMM_TYPE_COUNT ? qmm_type_name((qmm_type)t->type) : NULL;
    if (!t->known_type || !packable(t->type) || t->n_dims != 2) {
        snprintf(why, why_size, "%s, %u dims", tn ? tn : "unknown type", t->n_dims);
        return 0;
    }
    const size_t nl = strlen(t->name);
    if (nl > QMM_CACHE_MAX_NAME) {
        snprintf(why, why_size, "a name of %zu bytes, longer than the cache's %d", nl, QMM_CACHE_MAX_NAME);
        return 0;
    }
    if (!shape_ok((qmm_type)t->type, t->ne[0], t->ne[1])) {
        snprintf(why, why_size, "%s [%lld, %lld]: %s", tn, (long long)t->ne[0], (long long)t->ne[1],
                 t->ne[0] == 0 || t->ne[1] == 0 ? "zero-size" : "a shape that cannot be packed");
        return 0;
    }
    return 1;
}

static uint64_t gguf_hash(const qmm_gguf *g) {
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

qmm_status qmm_cache_gguf_hash(const char *gguf_path, uint64_t *hash) {
    if (!gguf_path || !hash)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_gguf_hash: NULL argument");
    *hash = 0;
    qmm_gguf *g;
    qmm_status st = qmm_gguf_open(gguf_path, &g);
    if (st)
        return st;
    *hash = gguf_hash(g);
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
    qmm_status st = check_destination(out_path, &src, gguf_path);
    if (st)
        return st;
    qmm_gguf *g;
    st = qmm_gguf_open(gguf_path, &g);
    if (st)
        return st;
    const int64_t nt = qmm_gguf_tensor_count(g);
    qmm_cache_tensor *list = calloc((size_t)(nt ? nt : 1), sizeof *list);
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
            if (take && (!t->known_type || !packable(t->type) || t->ne[2] != 1 || t->ne[3] != 1)) {
                st = qmm_fail(QMM_ERR_UNSUPPORTED, "tensor '%s' (%s, %u dims) was selected but cannot be packed", t->name,
                              t->known_type && qmm_type_name((qmm_type)t->type) ? qmm_type_name((qmm_type)t->type) : "?",
                              t->n_dims);
                break;
            }
        } else {
            char why[160];
            take = qmm_cache_tensor_cacheable(t, why, sizeof why);
            if (!take && t->known_type && packable(t->type) && t->n_dims == 2)
                qmm_log(QMM_LOG_INFO, "cache of '%s': skipped tensor '%.200s': %s", gguf_path, t->name, why);
        }
        if (!take)
            continue;
        list[n].name = t->name;
        list[n].type = (qmm_type)t->type;
        list[n].k = t->ne[0];
        list[n].n = t->ne[1];
        list[n].data = t->data;
        list[n].size = (size_t)t->size;
        n++;
    }
    if (st == QMM_OK)
        st = write_cache(ctx, list, n, gguf_hash(g), out_path, opts, &src, gguf_path);
    free(list);
    qmm_gguf_close(g);
    return st;
}
