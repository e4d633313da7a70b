/* qmatmul: quantized matrix multiplication for LLM inference on CPUs.
 *
 * A plain C API. Every function returns a qmm_status (or a value documented
 * as such); nothing aborts the host process. Shapes and strides follow ggml:
 * ne[0] is the innermost dimension, nb[] are byte strides.
 */
#ifndef QMATMUL_H
#define QMATMUL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(QMM_SHARED_BUILD)
#define QMM_API __declspec(dllexport)
#elif defined(__GNUC__)
#define QMM_API __attribute__((visibility("default")))
#else
#define QMM_API
#endif

/* ------------------------------------------------------------------ status */

typedef enum qmm_status {
    QMM_OK = 0,
    QMM_ERR_INVALID_ARG = 1, /* NULL, bad shape, bad stride, id out of range */
    QMM_ERR_UNSUPPORTED = 2, /* type or operation not supported */
    QMM_ERR_BAD_BLOB = 3,    /* packed weights failed validation */
    QMM_ERR_BAD_FILE = 4,    /* malformed or foreign file */
    QMM_ERR_NO_MEMORY = 5,
    QMM_ERR_IO = 6,
    QMM_ERR_INCOMPATIBLE = 7 /* valid data made for another CPU, version or source */
} qmm_status;

QMM_API const char *qmm_status_str(qmm_status status);

/* Text of the last error raised on this thread (a detail beyond the status),
 * or "" if none. Valid until the next qmatmul call on this thread. */
QMM_API const char *qmm_last_error(void);

QMM_API const char *qmm_version(void);

/* ------------------------------------------------------------------- types */

/* ggml / GGUF numbering, so a GGUF tensor type id maps onto it unchanged. */
typedef enum qmm_type {
    QMM_TYPE_F32 = 0,
    QMM_TYPE_F16 = 1,
    QMM_TYPE_Q4_0 = 2,
    QMM_TYPE_Q4_1 = 3,
    QMM_TYPE_Q5_0 = 6,
    QMM_TYPE_Q5_1 = 7,
    QMM_TYPE_Q8_0 = 8,
    QMM_TYPE_Q8_1 = 9,
    QMM_TYPE_Q2_K = 10,
    QMM_TYPE_Q3_K = 11,
    QMM_TYPE_Q4_K = 12,
    QMM_TYPE_Q5_K = 13,
    QMM_TYPE_Q6_K = 14,
    QMM_TYPE_Q8_K = 15,
    QMM_TYPE_IQ2_XXS = 16,
    QMM_TYPE_IQ2_XS = 17,
    QMM_TYPE_IQ3_XXS = 18,
    QMM_TYPE_IQ1_S = 19,
    QMM_TYPE_IQ4_NL = 20,
    QMM_TYPE_IQ3_S = 21,
    QMM_TYPE_IQ2_S = 22,
    QMM_TYPE_IQ4_XS = 23,
    QMM_TYPE_I8 = 24,
    QMM_TYPE_I16 = 25,
    QMM_TYPE_I32 = 26,
    QMM_TYPE_I64 = 27,
    QMM_TYPE_F64 = 28,
    QMM_TYPE_IQ1_M = 29,
    QMM_TYPE_BF16 = 30,
    QMM_TYPE_TQ1_0 = 34,
    QMM_TYPE_TQ2_0 = 35,
    QMM_TYPE_MXFP4 = 39,
    QMM_TYPE_COUNT = 40
} qmm_type;

/* Name of a type as GGUF tools print it ("Q4_0", "F16"), or NULL if unknown. */
QMM_API const char *qmm_type_name(qmm_type type);
/* Elements per block (1 for plain types) and bytes per block; 0 if unknown. */
QMM_API int64_t qmm_type_block_elems(qmm_type type);
QMM_API size_t qmm_type_block_bytes(qmm_type type);
/* Bytes of one row of k elements; 0 if k is not a multiple of the block. */
QMM_API size_t qmm_row_size(qmm_type type, int64_t k);

/* A view with ggml's layout. */
typedef struct qmm_tensor {
    qmm_type type;
    int64_t ne[4];
    size_t nb[4];
    void *data;
} qmm_tensor;

/* Fills a contiguous view of the given shape (missing dims are 1). */
QMM_API qmm_status qmm_tensor_init(qmm_tensor *t, qmm_type type, int n_dims, const int64_t *ne, void *data);

/* ----------------------------------------------------------- thread safety
 *
 * One context, from several threads at once:
 * - qmm_mul_mat, qmm_get_rows, qmm_mul_mat_f16, qmm_weights_pack and
 *   qmm_pack_into are safe: a mutex in the context serialises them (each runs
 *   on the context's whole pool, one after the other; a call waits for the
 *   one before it).
 * - qmm_*_work_size, qmm_*_compute, qmm_packed_size, qmm_weights_from_blob,
 *   qmm_context_threads, qmm_context_chain and qmm_context_describe only read
 *   the context and are safe alongside any of these. Concurrent
 *   qmm_*_compute calls need a work buffer and a qmm_sync each.
 * - qmm_context_free must not overlap any other call on that context.
 * Distinct contexts share nothing: every function may run on them at once
 * (each has its own threads: together they may oversubscribe the cores).
 * One qmm_weights is read-only once made: any number of calls, on any
 * threads and contexts that can run its families, may use it at once;
 * qmm_weights_free must not overlap them. Calls that write the same output
 * memory at once are the caller's race. qmm_last_error is per thread;
 * qmm_quantize, qmm_dequantize and the type functions hold no state.
 *
 * Arithmetic: every call computes in round-to-nearest without flushing
 * subnormals, on every thread it runs on (the caller's, the pool's, a
 * caller's own pool's in qmm_*_compute), whatever the caller's
 * floating-point environment (rounding mode, x86 FTZ/DAZ, Arm FZ/FZ16/AH),
 * and leaves that environment as it found it: results do not depend on it. */

/* ----------------------------------------------------------------- context */

typedef struct qmm_options {
    /* 0: every core available to the process. */
    int n_threads;
    /* 0: automatic. >0: caps every capped-family primary (SME: the SME unit
     * count) at this many threads; with QMM_CAP_ALL_PRIMARIES in flags, caps
     * every chain's primary family, so hybrid runs can be tested on any CPU. */
    int thread_cap;
    unsigned flags;
    /* NULL: automatic. Else kernel family names to force for their types,
     * comma-separated (as QMM_KERNEL); an unknown name, or one this CPU
     * cannot run, is an error. At most 255 characters (a longer string is
     * QMM_ERR_INVALID_ARG, never cut). */
    const char *kernel;
    /* Chunks per thread; 0: QMM_CHUNK_MULTIPLIER or 4. */
    int chunk_multiplier;
    /* Expected thread count at pack time (decides whether a fallback slot is
     * written); 0: QMM_THREADS or n_threads. */
    int pack_threads;
    /* Features to hide from detection, as a comma-separated list of their
     * names ("avx512f,avx512_vnni"); NULL: QMM_HIDE_FEATURES. An unknown name
     * is an error. At most 255 characters (a longer string is
     * QMM_ERR_INVALID_ARG, never cut). */
    const char *hide_features;
} qmm_options;

enum {
    QMM_CAP_ALL_PRIMARIES = 1u << 0, /* thread_cap applies to every chain primary */
    QMM_IGNORE_ENV = 1u << 1         /* do not read QMM_* environment variables */
};

typedef struct qmm_context qmm_context;

QMM_API qmm_status qmm_context_create(const qmm_options *opts /* NULL: defaults */, qmm_context **out);
QMM_API void qmm_context_free(qmm_context *ctx);
QMM_API int qmm_context_threads(const qmm_context *ctx);
/* The family names of the chain selected for a weight type: primary, then
 * fallback (NULL if none). Returns the chain length (0 if unsupported). */
QMM_API int qmm_context_chain(const qmm_context *ctx, qmm_type type, const char **primary, const char **fallback);
/* Writes a human-readable description (CPU, features, chains) into buf. */
QMM_API qmm_status qmm_context_describe(const qmm_context *ctx, int json, char *buf, size_t buf_size);

/* -------------------------------------------------------- block conversion */

/* nrows rows of k elements; k must be a multiple of the type's block. */
QMM_API qmm_status qmm_quantize(qmm_type type, const float *src, void *dst, int64_t nrows, int64_t k);
QMM_API qmm_status qmm_dequantize(qmm_type type, const void *src, float *dst, int64_t nrows, int64_t k);

/* ----------------------------------------------------------------- weights */

typedef struct qmm_weights qmm_weights;

/* Packs an n x k matrix (n rows of k elements, GGUF/ggml row layout) of type
 * F32, F16, Q4_0 or Q8_0. src_size must be at least n rows of that type. */
QMM_API qmm_status qmm_weights_pack(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size,
                                    qmm_weights **out);
QMM_API void qmm_weights_free(qmm_weights *w);
/* Kernel family that will run the weights (the primary slot's). */
QMM_API const char *qmm_weights_kernel(const qmm_weights *w);
/* Family of slot i (0 primary, 1 fallback), or NULL. */
QMM_API const char *qmm_weights_slot_kernel(const qmm_weights *w, int slot);
QMM_API int qmm_weights_slot_count(const qmm_weights *w);
QMM_API qmm_type qmm_weights_type(const qmm_weights *w);
QMM_API int64_t qmm_weights_k(const qmm_weights *w);
QMM_API int64_t qmm_weights_n(const qmm_weights *w);
/* The packed blob behind w (header included) and its size. */
QMM_API const void *qmm_weights_blob(const qmm_weights *w, size_t *size);

/* Caller-owned packing: the size of the blob, then packing into dst. dst
 * must be 16-byte aligned, as qmm_weights_from_blob requires (else
 * QMM_ERR_INVALID_ARG); 64 is best. It must stay alive while weights adopt
 * it. */
QMM_API qmm_status qmm_packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, size_t *size);
QMM_API qmm_status qmm_pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size,
                                 void *dst, size_t dst_size);
/* Adopts (does not copy) a blob after validating it; the memory must outlive
 * *out. QMM_ERR_BAD_BLOB if it fails validation, QMM_ERR_INCOMPATIBLE if it
 * is valid but was packed for kernels this CPU or build cannot run. */
QMM_API qmm_status qmm_weights_from_blob(qmm_context *ctx, const void *blob, size_t size, qmm_weights **out);

/* -------------------------------------------------------------- operations */

/* y = W x, ggml MUL_MAT: x F32 [k, m, b2, b3] (nb[0] == 4), y F32 [n, m, b2,
 * b3] (nb[0] == 4), y[..][j][i] = sum_l W[i][l] * x[..][j][l]. */
QMM_API qmm_status qmm_mul_mat(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y);

/* GET_ROWS: ids I32 [r] or [r, b1, b2]; out F32 [k, r, b1, b2]; each row the
 * dequantized weight row ids[..]. An id out of range is QMM_ERR_INVALID_ARG,
 * and so is an out whose memory overlaps that of ids. */
QMM_API qmm_status qmm_get_rows(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out);

/* y = W x for F16 weights that change every call (e.g. the KV cache): w F16
 * [k, n, bw2, bw3] (rows contiguous in elements, nb[0] == 2), x F32 [k, m, b2,
 * b3] with b2 % bw2 == 0 and b3 % bw3 == 0 (ggml broadcast), y F32 [n, m, b2, b3].
 * The weights are packed inside the call. */
QMM_API qmm_status qmm_mul_mat_f16(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y);

/* ------------------------------------------------- bring your own threads */

/* Synchronisation the caller's pool provides to the compute entry points.
 * barrier: every one of the nth threads of this call waits for the others.
 * counter_store / counter_fetch_add: one shared atomic integer per call,
 * sequentially consistent. */
typedef struct qmm_sync {
    void *user;
    void (*barrier)(void *user);
    void (*counter_store)(void *user, int64_t value);
    int64_t (*counter_fetch_add)(void *user, int64_t delta);
} qmm_sync;

/* Bytes of scratch a call with nth threads needs (shared by all threads). */
QMM_API qmm_status qmm_mul_mat_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y,
                                         int n_threads, size_t *size);
/* Run by each of nth threads with its ith, the same arguments, work buffer
 * (64-byte aligned, at least the work size) and sync. Every thread returns
 * the same status; on an argument error no thread touches y. */
QMM_API qmm_status qmm_mul_mat_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                                       int nth, void *work, size_t work_size, const qmm_sync *sync);

QMM_API qmm_status qmm_get_rows_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out,
                                          int n_threads, size_t *size);
QMM_API qmm_status qmm_get_rows_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out,
                                        int ith, int nth, void *work, size_t work_size, const qmm_sync *sync);

QMM_API qmm_status qmm_mul_mat_f16_work_size(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y,
                                             int n_threads, size_t *size);
QMM_API qmm_status qmm_mul_mat_f16_compute(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y,
                                           int ith, int nth, void *work, size_t work_size, const qmm_sync *sync);

/* ============================================ packed-weight cache files
 * (owned by the trust branch: src/io/cache.c; docs: the file format is in
 * src/io/cache.h)
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

typedef struct qmm_cache qmm_cache;

typedef struct qmm_cache_write_options {
    /* NULL: every 2-D tensor of a packable type (F32, F16, Q4_0, Q8_0). Else
     * called for every tensor of the GGUF; nonzero packs it (it must still be
     * 2-D and of a packable type, else the write fails). */
    int (*filter)(void *user, const char *name, qmm_type type, int n_dims, const int64_t ne[4]);
    /* Called after each tensor is packed and written (done of total). */
    void (*progress)(void *user, int64_t done, int64_t total, const char *name);
    void *user;
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
    size_t size; /* bytes at data: at least n rows of k */
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
    unsigned flags; /* QMM_CACHE_* */
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

/* ====================================== end of packed-weight cache files */

#ifdef __cplusplus
}
#endif

#endif /* QMATMUL_H */
