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

/* IEEE half <-> single. fp16 -> fp32 is exact; fp32 -> fp16 rounds to
 * nearest even (as F16C does). */
QMM_API float qmm_fp16_to_fp32(uint16_t h);
QMM_API uint16_t qmm_fp32_to_fp16(float f);

/* A view with ggml's layout. */
typedef struct qmm_tensor {
    qmm_type type;
    int64_t ne[4];
    size_t nb[4];
    void *data;
} qmm_tensor;

/* Fills a contiguous view of the given shape (missing dims are 1). */
QMM_API qmm_status qmm_tensor_init(qmm_tensor *t, qmm_type type, int n_dims, const int64_t *ne, void *data);

/* ----------------------------------------------------------------- context */

typedef struct qmm_options {
    /* 0: every core available to the process. */
    int n_threads;
    /* 0: automatic. >0: caps every capped-family primary (SME: the SME unit
     * count) at this many threads; with QMM_CAP_ALL_PRIMARIES in flags, caps
     * every chain's primary family, so hybrid runs can be tested on any CPU. */
    int thread_cap;
    unsigned flags;
    /* NULL: automatic. Else a kernel family name to force for its type (as
     * QMM_KERNEL). */
    const char *kernel;
    /* Chunks per thread; 0: QMM_CHUNK_MULTIPLIER or 4. */
    int chunk_multiplier;
    /* Expected thread count at pack time (decides whether a fallback slot is
     * written); 0: QMM_THREADS or n_threads. */
    int pack_threads;
    /* Features to hide from detection, as a comma-separated list of their
     * names ("avx512f,avx512_vnni"); NULL: QMM_HIDE_FEATURES. */
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

/* ------------------------------------------------------- CPU description */

/* CPU feature bits (qmm_cpu_desc.features, qmm_family_desc.required). */
#define QMM_CPU_SSE42      (1ull << 0)
#define QMM_CPU_AVX        (1ull << 1)
#define QMM_CPU_AVX2       (1ull << 2)
#define QMM_CPU_FMA        (1ull << 3)
#define QMM_CPU_F16C       (1ull << 4)
#define QMM_CPU_AVX512F    (1ull << 5)
#define QMM_CPU_AVX512BW   (1ull << 6)
#define QMM_CPU_AVX512VL   (1ull << 7)
#define QMM_CPU_AVX512DQ   (1ull << 8)
#define QMM_CPU_AVX512VNNI (1ull << 9)
#define QMM_CPU_AVX512BF16 (1ull << 10)
#define QMM_CPU_AVXVNNI    (1ull << 11)
#define QMM_CPU_AMX_TILE   (1ull << 12)
#define QMM_CPU_AMX_INT8   (1ull << 13)
#define QMM_CPU_AMX_BF16   (1ull << 14)
#define QMM_CPU_NEON       (1ull << 32)
#define QMM_CPU_DOTPROD    (1ull << 33)
#define QMM_CPU_I8MM       (1ull << 34)
#define QMM_CPU_FP16       (1ull << 35)
#define QMM_CPU_BF16       (1ull << 36)
#define QMM_CPU_SVE        (1ull << 37)
#define QMM_CPU_SVE2       (1ull << 38)
#define QMM_CPU_SVE_I8MM   (1ull << 39)
#define QMM_CPU_SME        (1ull << 40)
#define QMM_CPU_SME2       (1ull << 41)

/* Name of a single feature bit ("avx2", "avx512_vnni", "dotprod", "sme2"),
 * or NULL if bit is not exactly one known feature. */
QMM_API const char *qmm_cpu_feature_name(uint64_t bit);
/* The bit of a feature name (as qmm_cpu_feature_name spells it); 0 if the
 * name is unknown or NULL. */
QMM_API uint64_t qmm_cpu_feature_from_name(const char *name);

typedef struct qmm_cpu_desc {
    char arch[16];  /* "x86_64", "aarch64", ... */
    char model[64]; /* brand string where known, else "" */
    int n_cores;    /* cores available to this process */
    int numa_nodes; /* >1 on NUMA systems */
    /* Last-level cache of cpu0 in bytes (the largest cache of the highest
     * level the OS reports); 0 if unknown. */
    int64_t llc_bytes;
    int sve_vl_bytes;  /* SVE vector length, 0 if no SVE */
    int sme_svl_bytes; /* SME streaming vector length, 0 if no SME */
    int sme_units;     /* SME compute units, 0 = unknown or none */
    /* QMM_CPU_* bits: as detected; and as the context's kernel selection
     * sees them (hidden features and QMM_SME=0 removed; equal to
     * features_detected when described without a context). */
    uint64_t features_detected;
    uint64_t features;
} qmm_cpu_desc;

/* Describes this CPU (detected once, thread-safe); ctx NULL: as detected,
 * else with the features ctx hides. QMM_ERR_INVALID_ARG if out is NULL. */
QMM_API qmm_status qmm_cpu_describe(const qmm_context *ctx, qmm_cpu_desc *out);

/* ---------------------------------------------------------- kernel families */

/* A micro-kernel family of this build: the code that multiplies one weight
 * type on one ISA, and the packed layout it reads. */
typedef struct qmm_family_desc {
    const char *name;  /* unique, at most 23 characters; static storage */
    qmm_type type;     /* the weight type it multiplies */
    uint64_t required; /* QMM_CPU_* features it needs, all of them */
    uint32_t layout_id;
    int mr, nr, kr, sr; /* output tile mr x nr; k interleave kr / sr */
    int n_step;         /* weight panel: column chunks start at multiples */
    int is_reference;   /* the portable family that defines every result */
    int runnable;       /* this CPU has its features (as detected) */
} qmm_family_desc;

/* Families in priority order (selection takes the first runnable one of a
 * type); the portable reference families come last. */
QMM_API int qmm_family_count(void);
/* Family i, 0 <= i < qmm_family_count(); QMM_ERR_INVALID_ARG otherwise. */
QMM_API qmm_status qmm_family_info(int i, qmm_family_desc *out);
/* Index of the family of that name, or -1. */
QMM_API int qmm_family_find(const char *name);
/* Index of the reference family of a weight type, or -1 if no family
 * multiplies that type. */
QMM_API int qmm_family_reference(qmm_type type);
/* 1 if weights of this type can be packed (qmm_weights_pack), else 0. */
QMM_API int qmm_type_packable(qmm_type type);

/* ------------------------------------------------------------------- log */

enum { QMM_LOG_NONE = 0, QMM_LOG_ERROR = 1, QMM_LOG_WARN = 2, QMM_LOG_INFO = 3, QMM_LOG_DEBUG = 4 };

/* Receives every message the library logs at or below the current level
 * (QMM_LOG, default QMM_LOG_WARN); message has no trailing newline and is
 * valid during the call only. May be called from any thread that calls into
 * the library. */
typedef void (*qmm_log_fn)(int level, const char *message, void *user);

/* Sends the library's log to fn (NULL: back to the default, which prints
 * "qmatmul LEVEL: message" on stderr). Thread-safe. */
QMM_API void qmm_set_log_callback(qmm_log_fn fn, void *user);

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
 * should be 64-byte aligned; it must stay alive while weights adopt it. */
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
 * dequantized weight row ids[..]. An id out of range is QMM_ERR_INVALID_ARG. */
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
 * order. qmm_cache_get may be called from several threads at once. */

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
 * under a temporary name in the same directory, synced, then renamed over
 * out_path; an interrupted write never leaves a file at out_path that opens
 * (nor replaces a previous one). opts may be NULL. */
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
    QMM_CACHE_POPULATE = 1u << 2
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

/* Inspection (what `qmatmul verify` shows; added by the public-api branch).
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
/* File size, and the qmatmul version that wrote it (0 / NULL if cache is NULL). */
QMM_API uint64_t qmm_cache_file_size(const qmm_cache *cache);
QMM_API const char *qmm_cache_writer_version(const qmm_cache *cache);
/* The kernel families the cache's blobs were packed by (0 if cache is NULL),
 * and family i as recorded in the file (name valid while the cache is open;
 * is_reference and runnable refer to this build's family of that name, 0 if
 * the build has none). */
QMM_API int qmm_cache_family_count(const qmm_cache *cache);
QMM_API qmm_status qmm_cache_family_info(const qmm_cache *cache, int i, qmm_family_desc *out);

/* ====================================== end of packed-weight cache files */

#ifdef __cplusplus
}
#endif

#endif /* QMATMUL_H */
