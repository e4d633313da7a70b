/* qmatmul_cache.h: packed-weight cache files (.qmp), whose byte layout
 * docs/formats.md gives.
 *
 * Engines load the same model again and again; a cache file holds every
 * weight of a model packed for this CPU's kernel chains, so a start maps it
 * instead of repacking. Opening is cheap (the header and the tensor index
 * are read and validated; the packed data is only mapped; each blob's own
 * header is validated when qmm_cache_get hands it out). Everything read from a cache file is checked before use: a
 * malformed or truncated file is QMM_ERR_BAD_FILE, a valid file that this
 * CPU, this build or this model cannot use is QMM_ERR_INCOMPATIBLE, always
 * with a message in qmm_last_error(). Either way the engine can fall back to
 * packing (and rewrite the cache).
 *
 * Typical use:
 *     qmm_cache_open_options o = {.gguf_path = "m.gguf"};
 *     if (qmm_cache_open(ctx, "m.qmp", &o, &cache) != QMM_OK) {
 *         log(qmm_last_error());
 *         qmm_cache_write(ctx, "m.gguf", "m.qmp", NULL);   // or pack in memory
 *         ...
 *     }
 *     qmm_cache_get(cache, "blk.0.attn_q.weight", &w);   // no copy
 *     ...
 *     qmm_weights_free(w); qmm_cache_close(cache);        // in any order
 *
 * Lifetime: weights handed out by qmm_cache_get point into the cache's
 * mapping and hold a reference on it: the mapping is released when the cache
 * is closed AND every weights object obtained from it has been freed, in any
 * order. qmm_cache_get may be called from several threads at once.
 *
 * The file must not change under an open cache: the weights are read from
 * the mapping at every multiply, so a cache file truncated (or rewritten in
 * place) by another program after qmm_cache_open makes the next multiply
 * touching the lost pages end the process with SIGBUS, which no status can
 * report; bytes changed in place give wrong results. What a caller can do:
 * replace cache files only by writing a new file and renaming it over the old
 * one (qmm_cache_write does: open caches keep the old file's data); open with
 * QMM_CACHE_COPY when other programs may truncate or edit the file (the file
 * is read into memory once; nothing depends on it afterwards); and
 * QMM_CACHE_VERIFY (or qmm_cache_verify) to check the data at open. */

#ifndef QMATMUL_CACHE_H
#define QMATMUL_CACHE_H

#include "qmatmul.h"

struct qmm_gguf_tensor; /* qmatmul_gguf.h */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qmm_cache qmm_cache;

typedef struct qmm_cache_write_options {
    /* NULL: every 2-D tensor of a packable type (F32, F16, Q4_0, Q8_0...),
     * and every 3-D one with "_exps" in its name (experts weights). Else
     * called for every tensor of the GGUF; nonzero packs it (it must still be
     * 2-D, or 3-D with "_exps" in its name, and of a packable type, else the
     * write fails). */
    int (*filter)(void *user, const char *name, qmm_type type, int n_dims, const int64_t ne[4]);
    /* Called after each tensor is packed and written (done of total). */
    void (*progress)(void *user, int64_t done, int64_t total, const char *name);
    void *user;
    uint64_t reserved[4]; /* zero, as qmm_tensor's (qmatmul.h) */
} qmm_cache_write_options;

/* Packs the selected weights of the GGUF file at gguf_path for ctx's kernel
 * chains and writes the cache file out_path. Crash-safe: the file is written
 * under a temporary name in the same directory ("out_path.tmp.PID.N", locked
 * with flock while written), synced, then renamed over out_path; an
 * interrupted write never leaves a file at out_path that opens (nor replaces
 * a previous one), and the next write to out_path removes the temporaries of
 * writers that were killed. out_path must be a new path or a regular file
 * (a device, FIFO, socket or directory is refused, QMM_ERR_INVALID_ARG, before
 * anything is written; a symbolic link is replaced, not followed), and not
 * the GGUF file itself (compared by device and inode: links count). Without a
 * filter, tensors that cannot be cached (zero-size, a name over 1023 bytes)
 * are skipped. opts may be NULL. */
QMM_API qmm_status qmm_cache_write(qmm_context *ctx, const char *gguf_path, const char *out_path,
                                   const qmm_cache_write_options *opts);

/* One weight matrix to cache: n rows of k elements in GGUF layout. */
typedef struct qmm_cache_tensor {
    const char *name; /* 1 to 1023 bytes, unique within the cache */
    qmm_type type;    /* F32, F16, Q4_0 or Q8_0 */
    int64_t k, n;
    const void *data;
    size_t size;          /* bytes at data: at least n rows of k */
    uint64_t reserved[2]; /* zero, as qmm_tensor's (qmatmul.h) */
} qmm_cache_tensor;

/* Writes a cache of tensors held in memory (any source); source_hash
 * identifies that source (qmm_cache_open_options.source_hash checks it).
 * opts->filter is not used. Crash-safe as qmm_cache_write. */
QMM_API qmm_status qmm_cache_write_tensors(qmm_context *ctx, const qmm_cache_tensor *tensors, int64_t count, uint64_t source_hash,
                                           const char *out_path, const qmm_cache_write_options *opts);

/* The source hash a cache written from this GGUF file records: a hash of its
 * metadata, its tensor table (names, types, shapes, offsets), its size and the
 * first bytes of the data of up to 16 tensors spread over the table. */
QMM_API qmm_status qmm_cache_gguf_hash(const char *gguf_path, uint64_t *hash);

enum {
    /* Verify every checksum at open (reads the whole file). */
    QMM_CACHE_VERIFY = 1u << 0,
    /* Accept blobs packed by any family this CPU can run; by default a cache
     * whose primary families differ from the chains ctx selects is refused
     * (QMM_ERR_INCOMPATIBLE: it would run, but slower than a fresh pack). */
    QMM_CACHE_ANY_KERNELS = 1u << 1,
    /* Read the whole mapping in at open (MAP_POPULATE). */
    QMM_CACHE_POPULATE = 1u << 2,
    /* Read the file into memory instead of mapping it (the file's size in
     * RAM, not shared between processes): the cache then survives the file
     * being truncated or rewritten in place by another program. */
    QMM_CACHE_COPY = 1u << 3
};

typedef struct qmm_cache_open_options {
    /* Non-NULL: refuse (QMM_ERR_INCOMPATIBLE) a cache written from another
     * GGUF file than this one (compares qmm_cache_gguf_hash). */
    const char *gguf_path;
    /* Nonzero: refuse a cache whose source hash differs. */
    uint64_t source_hash;
    unsigned flags;       /* QMM_CACHE_* */
    uint64_t reserved[4]; /* zero, as qmm_tensor's (qmatmul.h) */
} qmm_cache_open_options;

/* Maps and validates a cache file for use with ctx (opts may be NULL). The
 * context is not referenced after the call. */
QMM_API qmm_status qmm_cache_open(qmm_context *ctx, const char *path, const qmm_cache_open_options *opts, qmm_cache **out);
/* Drops the caller's handle; the mapping stays while weights from it live. */
QMM_API void qmm_cache_close(qmm_cache *cache);

/* Tensors in the cache, sorted by name; the name of tensor i (valid while the
 * cache is open), or NULL if i is out of range. */
QMM_API int64_t qmm_cache_count(const qmm_cache *cache);
QMM_API const char *qmm_cache_name(const qmm_cache *cache, int64_t i);
/* Index of a tensor by name, or -1. */
QMM_API int64_t qmm_cache_find(const qmm_cache *cache, const char *name);
QMM_API uint64_t qmm_cache_source_hash(const qmm_cache *cache);

/* Weights pointing into the mapping (validated as qmm_weights_from_blob
 * does; not copied). Free them with qmm_weights_free. QMM_ERR_INVALID_ARG if
 * no tensor has that name. */
QMM_API qmm_status qmm_cache_get(qmm_cache *cache, const char *name, qmm_weights **out);

/* Verifies every checksum and that all padding is zero: QMM_ERR_BAD_FILE
 * names the first damaged tensor or region. Reads the whole file. */
QMM_API qmm_status qmm_cache_verify(qmm_cache *cache);

/* Inspection (what `qmatmul verify` shows).
 *
 * Opens a cache file checking its structure only (header, index, strings),
 * not whether this CPU, build or model can use it: for tools that report on
 * any cache. qmm_cache_verify then checks the data; qmm_cache_compatible
 * the rest. */
QMM_API qmm_status qmm_cache_open_structure(const char *path, qmm_cache **out);
/* The checks qmm_cache_open makes against ctx (families in this build,
 * their layouts, the CPU's features, and unless flags has
 * QMM_CACHE_ANY_KERNELS, ctx's preferred families); reads no blob.
 * QMM_ERR_INCOMPATIBLE with a message if the cache cannot be used. */
QMM_API qmm_status qmm_cache_compatible(const qmm_context *ctx, const qmm_cache *cache, unsigned flags);
/* What is at path, for a tool about to write a cache there: 1 a qmatmul
 * cache file (it begins with the cache magic: of any model or version,
 * intact or not), 0 nothing, -1 anything else (another file, a directory,
 * a FIFO: qmm_last_error says which), which a tool must not replace. */
QMM_API int qmm_cache_file_kind(const char *path);
/* Whether cache was written from the GGUF file at gguf_path (its source hash)
 * and every tensor it holds is that file's tensor of the same name, type and
 * shape (what qmm_cache_open checks when given gguf_path). QMM_OK, or
 * QMM_ERR_INCOMPATIBLE naming the first tensor that differs. */
QMM_API qmm_status qmm_cache_matches_gguf(const qmm_cache *cache, const char *gguf_path);
/* File size, and the qmatmul version that wrote it (0 / NULL if cache is NULL). */
QMM_API uint64_t qmm_cache_file_size(const qmm_cache *cache);
QMM_API const char *qmm_cache_writer_version(const qmm_cache *cache);
/* The kernel families the cache's blobs were packed by (0 if cache is NULL),
 * and family i as recorded in the file (name valid while the cache is open;
 * is_reference and runnable refer to this build's family of that name, 0 if
 * the build has none). */
QMM_API int qmm_cache_family_count(const qmm_cache *cache);
QMM_API qmm_status qmm_cache_family_info(const qmm_cache *cache, int i, qmm_family_desc *out);

/* Whether qmm_cache_write would cache this GGUF tensor (2-D, or 3-D with
 * "_exps" in its name: experts weights, as qmm_experts_pack packs them; a
 * packable type, non-empty, a name of at most 1023 bytes): 1, or 0 with the reason in why
 * (NUL-terminated, cut to why_size). For tools that list what they skip. */
QMM_API int qmm_cache_tensor_cacheable(const struct qmm_gguf_tensor *t, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* QMATMUL_CACHE_H */
