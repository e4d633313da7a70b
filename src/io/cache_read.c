/* The cache reader: validates the header and the index of a file (mapped,
 * copied, or an image in memory), hands out weights pointing into it
 * (reference-counted), and verifies checksums. Every field read from a file
 * is checked against the file size, with overflow-safe arithmetic, before it
 * is used. The byte layout is in io/cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/crc32.h"
#include "base/error.h"
#include "io/cache.h"
#include "io/gguf.h"

#ifndef QMM_VERSION_STRING
#define QMM_VERSION_STRING "0.0.0"
#endif

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
        if (!qmm_cache_packable(wt))
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
        fa->kf = qmm_registry_find(fa->name);
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
        if (!qmm_cache_packable(type))
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' has type %u, not a packable type", e->name, type);
        e->type = (qmm_type)type;
        e->k = (int64_t)qmm_get64(t + 16);
        e->n = (int64_t)qmm_get64(t + 24);
        /* version 3 records the experts count (0: a matrix); before, the field was reserved */
        const uint64_t ne = qmm_get64(t + 56);
        if (ne == 1 || (c->format < 3 && ne != 0))
            return qmm_fail(QMM_ERR_BAD_FILE,
                            "tensor '%s' entry: experts field %llu in a version %u file (0 or 2 and more in version 3)", e->name,
                            (unsigned long long)ne, c->format);
        e->n_expert = ne == 0 ? 1 : (ne > (uint64_t)QMM_BLOB_MAX_EXPERTS ? -1 : (int64_t)ne);
        if (!qmm_cache_shape_ok(e->type, e->k, e->n, e->n_expert))
            return qmm_fail(QMM_ERR_BAD_FILE, "tensor '%s' shape %lld x %lld x %lld experts is invalid for %s", e->name,
                            (long long)e->n, (long long)e->k, (long long)e->n_expert, qmm_type_name(e->type));
        e->offset = qmm_get64(t + 32);
        e->size = qmm_get64(t + 40);
        e->crc = qmm_get32(t + 48);
        const uint32_t fams = qmm_get32(t + 52);
        if (fams >> 16)
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
        return qmm_fail_prefixed(st, "%s: %s", path);
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
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer; the
     * fstat below refuses it (reads of a regular file ignore the flag) */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
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
        return qmm_fail_prefixed(st, "%s: %s", path);
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
    qmm_cache_open_options o = {0};
    if (opts)
        o = *opts;
    if (qmm_check_reserved(o.reserved, 4, "qmm_cache_open_options") != QMM_OK)
        return QMM_ERR_INVALID_ARG;
    if (o.flags & ~(unsigned)(QMM_CACHE_VERIFY | QMM_CACHE_ANY_KERNELS | QMM_CACHE_POPULATE | QMM_CACHE_COPY))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: unknown flags 0x%x", o.flags);
    if (!o.gguf_path)
        return qmm_cache_open_path(ctx, path, o.flags, o.source_hash, out);
    /* the GGUF stays open until every entry is checked against its tensor */
    qmm_gguf *g;
    qmm_status st = qmm_gguf_open(o.gguf_path, &g);
    if (st)
        return st;
    const uint64_t gh = qmm_gguf_source_hash(g);
    if (o.source_hash && o.source_hash != gh)
        st = qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_open: source_hash and gguf_path disagree");
    if (st == QMM_OK)
        st = qmm_cache_open_path(ctx, path, o.flags, gh, out);
    if (st == QMM_OK && (st = qmm_cache_check_entries(*out, g, o.gguf_path)) != QMM_OK) {
        qmm_cache_close(*out);
        *out = NULL;
        st = qmm_fail_prefixed(st, "%s: %s", path);
    }
    qmm_gguf_close(g);
    return st;
}

int qmm_cache_file_kind(const char *path) {
    if (!path) {
        qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_file_kind: path is NULL");
        return -1;
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return 0;
        qmm_fail(QMM_ERR_IO, "cannot check '%s': %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        qmm_fail(QMM_ERR_INVALID_ARG, "'%s' is not a regular file", path);
        return -1;
    }
    /* O_NONBLOCK: a FIFO put there since the stat must not hang the open */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    char magic[8];
    const ssize_t got = fd >= 0 ? pread(fd, magic, sizeof magic, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (fd < 0 || got < 0) {
        qmm_fail(QMM_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    if (got != (ssize_t)sizeof magic || memcmp(magic, QMM_CACHE_MAGIC, sizeof magic) != 0) {
        qmm_fail(QMM_ERR_INVALID_ARG, "'%s' is not a qmatmul cache file (no \"%s\" magic)", path, QMM_CACHE_MAGIC);
        return -1;
    }
    return 1;
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
        return qmm_fail_prefixed(st, "tensor '%s': %s", name);
    if (tmp.type != e->type || tmp.k != e->k || tmp.n != e->n || tmp.n_expert != e->n_expert ||
        tmp.nslots != (e->fam[1] >= 0 ? 2 : 1) || tmp.kf[0] != cache->fam[e->fam[0]].kf ||
        (e->fam[1] >= 0 && tmp.kf[1] != cache->fam[e->fam[1]].kf))
        return qmm_fail(QMM_ERR_BAD_FILE,
                        "tensor '%s': its blob (%s %lld x %lld x %lld experts, '%s') does not match the cache index", name,
                        qmm_type_name(tmp.type), (long long)tmp.n, (long long)tmp.k, (long long)tmp.n_expert, tmp.kf[0]->name);
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
