/* A llama-architecture decoder-only transformer on qmatmul's public API:
 * loading (weights packed once, or taken from a .qmp cache) and the forward
 * pass over an F16 KV cache. Norms, rotary embedding, softmax and SwiGLU are
 * plain C; every matrix product goes through qmatmul. */
#ifndef QMM_RUN_MODEL_H
#define QMM_RUN_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "qmatmul_gguf.h"

typedef struct run_layer {
    qmm_weights *wq, *wk, *wv, *wo, *w_gate, *w_up, *w_down;
    /* Packed from the GGUF (not a cache), matrices of one type that read the
     * same input are packed as one (rows of q, k, v; of gate, up): one call
     * instead of three or two, the same bits (every output row is its own). */
    qmm_weights *w_qkv, *w_gate_up;
    const float *attn_norm, *ffn_norm;
} run_layer;

typedef struct run_model {
    qmm_gguf *gguf;
    qmm_cache *cache;
    int n_layer, n_embd, n_head, n_head_kv, head_dim, n_ff, n_vocab;
    float norm_eps, rope_base;
    qmm_weights *tok_embd, *output; /* output == tok_embd when tied */
    const float *output_norm;
    run_layer *layers;
    int n_ctx;         /* KV cache length in tokens */
    int n_batch;       /* tokens per forward step (scratch size) */
    int n_past;        /* tokens in the KV cache */
    uint16_t *k_cache; /* [layer][kv head][n_ctx][head_dim] */
    uint16_t *v_cache; /* [layer][kv head][head_dim][n_ctx]: transposed, rows over positions */
    float *x, *xn, *q, *k, *v, *att, *att_heads, *scores, *gate, *up, *fused, *logits;
    float *rope_cs; /* [token of the batch][head_dim]: cos, sin of each pair's angle */
    /* Non-NULL (the caller's, n_ctx x n_vocab floats at most): the logits of
     * every position evaluated, row n_past + i for token i of an eval. */
    float *all_logits;
    float *logits_rows; /* [token of the batch][n_vocab], when all_logits is set */
} run_model;

/* Opens a GGUF file and prepares the model for n_ctx tokens: checks the
 * architecture, tensor layout and types (a clear message in err if it cannot
 * run it), packs every matrix, or with cache_path non-NULL takes them from
 * that .qmp file (written first if it is missing or unusable). */
int run_model_load(qmm_context *ctx, const char *path, const char *cache_path, int n_ctx, run_model *m, char *err,
                   size_t err_size);
void run_model_free(run_model *m);
/* Forgets the KV cache (the next eval starts at position 0). */
void run_model_reset(run_model *m);
/* Runs n tokens at positions n_past.., appends them to the KV cache and
 * leaves the logits of the last one in m->logits (and of every one in
 * m->all_logits, when set). 0 on success, else -1
 * with a message in err. */
int run_model_eval(qmm_context *ctx, run_model *m, const int32_t *ids, int n, char *err, size_t err_size);
/* With QMM_RUN_PROFILE=1 (or cpu) in the environment, every eval is timed
 * step by step; this prints the table (prefill and decode) to f. */
void run_model_profile_print(FILE *f);

#endif
