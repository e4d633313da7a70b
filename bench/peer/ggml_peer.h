/* The ggml side of bench/peer (ggml_mul_mat.c, ggml_mul_mat_id.c): ggml's CPU
 * back end started as a ggml user gets it, and what both peers need around it.
 * Our own code against ggml's public headers; header only, static inline (each
 * peer is one translation unit, built in the trixie root by bench/peer/build.sh).
 *
 * The CPU back end is loaded as llama.cpp loads it: ggml_backend_load_all()
 * (Debian builds ggml with GGML_BACKEND_DL: it picks the best libggml-cpu-*.so
 * variant for this CPU), a persistent thread pool, and weights in the first of
 * the CPU's extra buffer types (in the device's order: "AMX" where the variant
 * has it, then the repacked layouts, "CPU_REPACK") that supports the operation,
 * as llama.cpp's model loader picks them, else in the plain CPU buffer;
 * no_repack: always the plain one. */
#ifndef QMM_GGML_PEER_H
#define QMM_GGML_PEER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

#include "peer_io.h"

typedef struct peer {
    ggml_backend_dev_t dev;
    ggml_backend_t backend;
    ggml_threadpool_t pool;
    void (*pool_free)(ggml_threadpool_t);
    ggml_backend_buffer_type_t extra[8]; /* the extra buffer types in the device's order, NULL-terminated */
    int threads, no_repack;
} peer;

static char peer_loaded_from[512] = "";
static int peer_verbose = 0;

/* ggml logs through here: keep the path of the CPU variant it loaded, show
 * warnings and errors (and everything with PEER_VERBOSE=1). */
static inline void peer_on_log(enum ggml_log_level level, const char *text, void *user) {
    (void)user;
    const char *p = strstr(text, "loaded CPU backend from ");
    if (p) {
        snprintf(peer_loaded_from, sizeof peer_loaded_from, "%s", p + strlen("loaded CPU backend from "));
        peer_loaded_from[strcspn(peer_loaded_from, "\n")] = 0;
    }
    if (peer_verbose || level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR)
        fputs(text, stderr);
}

static inline int peer_parse_type(const char *s, enum ggml_type *t) {
    for (int i = 0; i < GGML_TYPE_COUNT; i++) {
        const struct ggml_type_traits *tr = ggml_get_type_traits((enum ggml_type)i);
        if (tr && tr->type_name && tr->blck_size > 0 && strcasecmp(s, tr->type_name) == 0) {
            *t = (enum ggml_type)i;
            return 1;
        }
    }
    return 0;
}

static inline const char *peer_variant_name(void) {
    const char *base = strrchr(peer_loaded_from, '/');
    return base ? base + 1 : peer_loaded_from[0] ? peer_loaded_from : "unknown";
}

static inline int peer_init(peer *P, int threads, int no_repack) {
    memset(P, 0, sizeof *P);
    P->threads = threads;
    P->no_repack = no_repack;
    peer_verbose = getenv("PEER_VERBOSE") && atoi(getenv("PEER_VERBOSE"));
    ggml_log_set(peer_on_log, NULL);
    ggml_backend_load_all();
    P->dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!P->dev) {
        fprintf(stderr, PEER_PROG ": ggml has no CPU device (no libggml-cpu variant loaded)\n");
        return 1;
    }
    P->backend = ggml_backend_dev_init(P->dev, NULL);
    if (!P->backend) {
        fprintf(stderr, PEER_PROG ": cannot start the CPU back end\n");
        return 1;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(P->dev);
    /* the entry points of the loaded variant, as a GGML_BACKEND_DL user reaches them */
    ggml_threadpool_t (*pool_new)(struct ggml_threadpool_params *) =
        (ggml_threadpool_t(*)(struct ggml_threadpool_params *))ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_new");
    void (*set_pool)(ggml_backend_t, ggml_threadpool_t) =
        (void (*)(ggml_backend_t, ggml_threadpool_t))ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_set_threadpool");
    ggml_backend_set_n_threads_t set_n =
        (ggml_backend_set_n_threads_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    P->pool_free = (void (*)(ggml_threadpool_t))ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_free");
    if (set_n)
        set_n(P->backend, threads);
    if (pool_new && set_pool) {
        struct ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
        P->pool = pool_new(&tp);
        if (P->pool)
            set_pool(P->backend, P->pool);
    }
    ggml_backend_dev_get_extra_bufts_t extra =
        (ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts");
    if (extra && !no_repack) {
        ggml_backend_buffer_type_t *b = extra(P->dev);
        for (int i = 0; b && b[i] && i < (int)(sizeof P->extra / sizeof P->extra[0]) - 1; i++)
            P->extra[i] = b[i];
    }
    return 0;
}

static inline void peer_free(peer *P) {
    if (P->backend)
        ggml_backend_free(P->backend);
    if (P->pool && P->pool_free)
        P->pool_free(P->pool);
}

/* The buffer type the weights of `op` (its src[0], in a no_alloc context) go
 * in: the first extra one with which the device runs `op` (llama.cpp's test
 * when it loads a model), else the CPU's own. */
static inline ggml_backend_buffer_type_t peer_weight_buft_for(peer *P, struct ggml_tensor *op) {
    for (int i = 0; P->extra[i]; i++) {
        ggml_backend_buffer_t dummy = ggml_backend_buft_alloc_buffer(P->extra[i], 0);
        op->src[0]->buffer = dummy;
        const int ok = dummy && ggml_backend_dev_supports_op(P->dev, op);
        op->src[0]->buffer = NULL;
        if (dummy)
            ggml_backend_buffer_free(dummy);
        if (ok)
            return P->extra[i];
    }
    return ggml_backend_dev_buffer_type(P->dev);
}

/* `rows` rows of k: ggml's quantization of random floats for the first 64,
 * tiled over the rest (the kernels' time does not depend on the values). */
static inline void *peer_make_weights(enum ggml_type type, int64_t k, int64_t rows, uint64_t *rng, size_t *size) {
    const size_t rb = ggml_row_size(type, k);
    const int64_t distinct = rows < 64 ? rows : 64;
    float *f = malloc(sizeof(float) * (size_t)(k * distinct));
    uint8_t *q = malloc(rb * (size_t)rows);
    if (!f || !q) {
        free(f);
        free(q);
        return NULL;
    }
    for (int64_t i = 0; i < k * distinct; i++)
        f[i] = peer_rngf(rng);
    /* the IQ1 / IQ2 types' quantizers need an importance matrix: uniform weights */
    float *imatrix = ggml_quantize_requires_imatrix(type) ? malloc(sizeof(float) * (size_t)k) : NULL;
    for (int64_t i = 0; imatrix && i < k; i++)
        imatrix[i] = 1.0f;
    ggml_quantize_chunk(type, f, q, 0, distinct, k, imatrix);
    free(imatrix);
    for (int64_t r = distinct; r < rows; r++)
        memcpy(q + rb * (size_t)r, q + rb * (size_t)(r % distinct), rb);
    free(f);
    *size = rb * (size_t)rows;
    return q;
}

/* The fields every JSON line of a ggml peer starts with. */
static inline void peer_json_head(const peer *P, enum ggml_type type) {
    printf("{\"peer\": \"ggml\", \"ggml_version\": \"%s\", \"cpu_variant\": \"%s\", \"type\": \"%s\", \"threads\": %d, ",
           ggml_version(), peer_variant_name(), ggml_type_name(type), P->threads);
}

#endif
