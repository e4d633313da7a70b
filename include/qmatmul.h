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

/* ----------------------------------------------------------------- version */

/* The version of this header; qmm_version() is the library's, which a program
 * linked against a shared library can compare with these. The build reads
 * them from here (CMakeLists.txt): one place. */
#define QMM_VERSION_MAJOR 0
#define QMM_VERSION_MINOR 1
#define QMM_VERSION_PATCH 0

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

/* "MAJOR.MINOR.PATCH" of the library that runs (QMM_VERSION_* are the header's). */
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
    /* Zero (qmm_tensor_init, `= {0}` and designated initializers make it so):
     * room for later fields, whose 0 will mean what the call does today, so
     * that a program built against this header keeps working. Nonzero is
     * QMM_ERR_INVALID_ARG. */
    uint64_t reserved[2];
} qmm_tensor;

/* Fills a contiguous view of the given shape (missing dims are 1). */
QMM_API qmm_status qmm_tensor_init(qmm_tensor *t, qmm_type type, int n_dims, const int64_t *ne, void *data);

/* ----------------------------------------------------------- thread safety
 *
 * One context, from several threads at once:
 * - qmm_mul_mat, qmm_mul_mat_id, qmm_get_rows, qmm_mul_mat_f16,
 *   qmm_weights_pack, qmm_experts_pack, qmm_pack_into and qmm_parallel_run
 *   are safe: a mutex in the context serialises them (each runs on the
 *   context's whole pool, one after the other; a call waits for the one
 *   before it).
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
    uint64_t reserved[4]; /* zero, as qmm_tensor's */
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

/* Runs the caller's own work on the context's thread pool (the one its
 * products run on, so an engine's element-wise steps and qmatmul's calls
 * share one pool instead of two competing for the cores): fn(user, task, ith)
 * once for every task in [0, n_tasks), handed out dynamically, one at a time,
 * to min(n_tasks, qmm_context_threads) threads: the caller's (ith 0) and the
 * pool's (ith 1..); ith identifies the thread (e.g. for per-thread scratch).
 * Returns when every task has run. Serialised with the context's other
 * pooled calls (its mutex), in the same floating-point environment (round to
 * nearest, no flushing); one task, or a one-thread context, runs on the
 * caller alone (no wake-up, no mutex). fn must not call qmm_mul_mat, qmm_get_rows,
 * qmm_mul_mat_f16, qmm_mul_mat_id, the packers or qmm_parallel_run of the
 * same context (they would wait for this call: a deadlock); the qmm_*_compute
 * entries, which only read the context, may be called. n_tasks 0 runs
 * nothing; NULL ctx or fn, or n_tasks < 0, is QMM_ERR_INVALID_ARG. */
typedef void (*qmm_task_fn)(void *user, int64_t task, int ith);
QMM_API qmm_status qmm_parallel_run(qmm_context *ctx, int64_t n_tasks, qmm_task_fn fn, void *user);

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
    /* Zeroed by the library: room for later fields, so a program built
     * against this header keeps its buffer large enough. */
    uint64_t reserved[8];
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
    int mr, nr, kr, sr;   /* output tile mr x nr; k interleave kr / sr */
    int n_step;           /* weight panel: column chunks start at multiples */
    int is_reference;     /* the portable family that defines every result */
    int runnable;         /* this CPU has its features (as detected) */
    uint64_t reserved[4]; /* zeroed by the library, as qmm_cpu_desc's */
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
 * a packable type (qmm_type_packable: F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
 * Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, BF16, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S,
 * IQ3_XXS, IQ3_S, TQ1_0, TQ2_0). src_size must be at least n rows of that type. */
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

/* The GGUF bytes w was packed from, back: rows [row0, row0 + nrows), each
 * qmm_row_size(type, k) bytes, one after the other into dst (dst_size at
 * least nrows rows). Experts weights count their rows as the GGUF 3-D tensor
 * does: row e * n + r is row r of expert e. Packing is lossless: the bytes
 * are the ones packed, for every source whose fp16 / bf16 fields (scales,
 * F16 / BF16 values) are finite. Works on views and adopted blobs alike. */
QMM_API qmm_status qmm_weights_unpack(const qmm_weights *w, int64_t row0, int64_t nrows, void *dst, size_t dst_size);

/* Mixture-of-experts weights: a GGUF 3-D tensor [k, n, n_expert] (n_expert
 * matrices of n rows of k, contiguous, in GGUF block layout) of a packable
 * type, packed into ONE qmm_weights (one blob: qmm_weights_blob /
 * qmm_weights_from_blob and cache files work as for a matrix). Each expert is
 * packed as qmm_weights_pack packs a matrix, so every expert runs the very
 * same kernels. src_size must be at least n * n_expert rows; n_expert >= 1
 * (1 gives a matrix), and n * n_expert * k at most 2^44 weights. For
 * qmm_mul_mat_id; qmm_mul_mat refuses experts weights (n_expert > 1). */
QMM_API qmm_status qmm_experts_pack(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, const void *src,
                                    size_t src_size, qmm_weights **out);
/* Number of experts (1 for a matrix, 0 if w is NULL). */
QMM_API int64_t qmm_weights_n_expert(const qmm_weights *w);
/* A matrix view of expert e, 0 <= e < n_expert (of a matrix: e = 0), that
 * borrows w's memory: usable with qmm_mul_mat and qmm_get_rows (the same bits
 * qmm_mul_mat_id gives for that expert's rows); qmm_weights_blob of a view is
 * NULL (it has no blob of its own). Free it with qmm_weights_free, before w. */
QMM_API qmm_status qmm_weights_expert(const qmm_weights *w, int64_t e, qmm_weights **out);

/* Caller-owned packing: the size of the blob, then packing into dst. dst
 * must be 16-byte aligned, as qmm_weights_from_blob requires (else
 * QMM_ERR_INVALID_ARG); 64 is best. It must stay alive while weights adopt
 * it. */
QMM_API qmm_status qmm_packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, size_t *size);
QMM_API qmm_status qmm_pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, const void *src, size_t src_size,
                                 void *dst, size_t dst_size);
/* The same for experts weights (qmm_experts_pack's arguments): one blob. */
QMM_API qmm_status qmm_experts_packed_size(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, size_t *size);
QMM_API qmm_status qmm_experts_pack_into(qmm_context *ctx, qmm_type type, int64_t k, int64_t n, int64_t n_expert, const void *src,
                                         size_t src_size, void *dst, size_t dst_size);
/* Adopts (does not copy) a blob after validating it; the memory must outlive
 * *out. QMM_ERR_BAD_BLOB if it fails validation, QMM_ERR_INCOMPATIBLE if it
 * is valid but was packed for kernels this CPU or build cannot run. */
QMM_API qmm_status qmm_weights_from_blob(qmm_context *ctx, const void *blob, size_t size, qmm_weights **out);

/* Memory for data an engine reads row by row from far apart (a KV cache,
 * large activations): *out is 64-byte aligned; from 2 MiB up it is 2 MiB
 * aligned, rounded up to whole 2 MiB pages and advised for huge pages
 * (madvise(MADV_HUGEPAGE), a hint the OS may refuse), as packed weights are.
 * QMM_ERR_NO_MEMORY (with *out NULL) when out of memory, QMM_ERR_INVALID_ARG
 * for a NULL out. Free with qmm_free_huge (NULL is fine). */
QMM_API qmm_status qmm_alloc_huge(size_t bytes, void **out);
QMM_API void qmm_free_huge(void *p);

/* -------------------------------------------------------------- operations */

/* y = W x, ggml MUL_MAT: x F32 [k, m, b2, b3] (nb[0] == 4), y F32 [n, m, b2,
 * b3] (nb[0] == 4), y[..][j][i] = sum_l W[i][l] * x[..][j][l]. Experts
 * weights (n_expert > 1) are QMM_ERR_INVALID_ARG: see qmm_mul_mat_id. */
QMM_API qmm_status qmm_mul_mat(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y);

/* GET_ROWS: ids I32 [r] or [r, b1, b2]; out F32 [k, r, b1, b2]; each row the
 * dequantized weight row ids[..]. An id out of range is QMM_ERR_INVALID_ARG,
 * and so is an out whose memory overlaps that of ids. Experts weights (ggml's
 * GET_ROWS of a 3-D tensor): ids I32 [r, n_expert, b2], out[:, i0, i1, i2] =
 * row ids[i0, i1, i2] of expert i1 (ids ne[1] must be n_expert). */
QMM_API qmm_status qmm_get_rows(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out);

/* y = W x for F16 weights that change every call (e.g. the KV cache): w F16
 * [k, n, bw2, bw3] (rows contiguous in elements, nb[0] == 2), x F32 [k, m, b2,
 * b3] with b2 % bw2 == 0 and b3 % bw3 == 0 (ggml broadcast), y F32 [n, m, b2, b3].
 * The weights are packed inside the call; for a few rows of x (decode) they
 * are read where they are. Memory from qmm_alloc_huge helps where rows lie
 * far apart: a KV cache's V^T (decode's PV reads 16 rows of a pass k * 2
 * bytes apart) and QK^T's scores y (docs/performance.md has the figures). */
QMM_API qmm_status qmm_mul_mat_f16(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y);

/* Expert-routed y = W[ids] x, ggml_mul_mat_id: w experts weights
 * (qmm_experts_pack; a matrix counts as one expert), x F32 [k, 1 or U, T]
 * (one row per token shared by its chosen experts, as gate/up, or one per
 * chosen expert, as down), ids I32 [U, T] (expert index per slot u and token
 * t; one out of [0, n_expert) is QMM_ERR_INVALID_ARG), y F32 [n, U, T];
 * ggml byte strides, x and y nb[0] == 4, y not overlapping ids.
 * y[:, u, t] = W[ids[u, t]] x[:, (x ne[1] == 1 ? 0 : u), t], every row
 * bit-identical to qmm_mul_mat of qmm_weights_expert(w, ids[u, t]) on that
 * row of x, at every thread count. The rows are grouped by expert: each
 * chosen expert's weights stream once per call, its rows run as one GEMM,
 * and unchosen experts are never read. */
QMM_API qmm_status qmm_mul_mat_id(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                  const qmm_tensor *y);

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
    uint64_t reserved[2]; /* zero, as qmm_tensor's */
} qmm_sync;

/* Bytes of scratch a call with nth threads needs (shared by all threads).
 * Ask for the nth the compute calls will pass: the size depends on it and
 * is not monotonic (more threads can take narrower chunks and need less). */
QMM_API qmm_status qmm_mul_mat_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y,
                                         int n_threads, size_t *size);
/* Run by each of nth threads with its ith, the same arguments, work buffer
 * (64-byte aligned, at least the work size) and sync. Every thread returns
 * the same status; on an argument error no thread touches y. */
QMM_API qmm_status qmm_mul_mat_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                                       int nth, void *work, size_t work_size, const qmm_sync *sync);

/* The same for qmm_mul_mat_id, as qmm_mul_mat_work_size / _compute (every
 * thread returns the same status; on an argument error no thread touches y).
 * The work size depends on the shapes only (not on the routing in ids), so
 * one buffer serves every call of those shapes. */
QMM_API qmm_status qmm_mul_mat_id_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                            const qmm_tensor *y, int n_threads, size_t *size);
QMM_API qmm_status qmm_mul_mat_id_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                          const qmm_tensor *y, int ith, int nth, void *work, size_t work_size,
                                          const qmm_sync *sync);

QMM_API qmm_status qmm_get_rows_work_size(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out,
                                          int n_threads, size_t *size);
QMM_API qmm_status qmm_get_rows_compute(qmm_context *ctx, const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out,
                                        int ith, int nth, void *work, size_t work_size, const qmm_sync *sync);

QMM_API qmm_status qmm_mul_mat_f16_work_size(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y,
                                             int n_threads, size_t *size);
QMM_API qmm_status qmm_mul_mat_f16_compute(qmm_context *ctx, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y,
                                           int ith, int nth, void *work, size_t work_size, const qmm_sync *sync);

#ifdef __cplusplus
}
#endif

#endif /* QMATMUL_H */
