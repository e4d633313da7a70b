/* The parts of `qmatmul bench` (internal to the tool): the matrices to run,
 * the run's state, and the steps cmd_bench.c calls in order. */
#ifndef QMM_TOOL_BENCH_INTERNAL_H
#define QMM_TOOL_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "probe.h"
#include "qmatmul.h"
#include "qmatmul_gguf.h"
#include "report.h"

/* A model preset: the shapes of one transformer layer. */
typedef struct bench_preset {
    const char *name, *title;
    int64_t hidden, ffn, heads, kv_heads, head_dim;
    int layers;
} bench_preset;

/* A weight matrix to run: n rows (outputs) of k. src: GGUF row layout. */
typedef struct bench_matrix {
    char name[96];
    int64_t k, n;
    int count;
    qmm_type type;
    size_t row_bytes;
    /* --model: every tensor of the group (rotated through at decode) */
    const void **members;
    int n_members;
} bench_matrix;

#define BENCH_MAX_PROBES QMM_PROBE_MAX /* every probe can run (x86 with AMX and AVX-VNNI has 17) */

typedef struct bench {
    qmm_context *ctx, *ref_ctx;
    int nth;
    int64_t m_pre;
    int run_ref;
    double budget_scale; /* --time scales every budget */
    float *x, *y;        /* activations and outputs, big enough for every call */
    size_t x_elems, y_elems;
    uint64_t seed;
    bench_report *rep;
    /* probe results by probe, run on demand */
    const qmm_probe *probe_done[BENCH_MAX_PROBES];
    qmm_probe_result probe_res[BENCH_MAX_PROBES];
    unsigned char probe_is_limit[BENCH_MAX_PROBES]; /* some row's or the machine's int8 / FMA limit: sampled */
    int n_probe_done;
    int probe_reps;
    uint64_t machine_features; /* the features the machine limits were chosen by */
} bench;

/* bench_presets.c */
const bench_preset *bench_preset_default(void);
const bench_preset *bench_preset_find(const char *name); /* NULL: unknown */
int bench_parse_type(const char *s, qmm_type *t);        /* 1 if one of the four */
/* The 7 matrices of one layer (q k v o gate up down); NULL: out of memory. */
bench_matrix *bench_preset_matrices(const bench_preset *pr, qmm_type type, int *n);

/* bench_weights.c */
uint64_t bench_rng(uint64_t *s);
float bench_rngf(uint64_t *s); /* uniform in [-1, 1) */
/* Random weights in GGUF layout; NULL: out of memory. */
void *bench_make_source(qmm_type t, int64_t k, int64_t n, uint64_t *seed, size_t *size);

/* bench_machine.c */
void bench_describe_machine(bench *b, const qmm_cpu_desc *ci);
void bench_note(bench *b, const char *fmt, ...);
double bench_load_average(void); /* 1-minute; 0 if unknown */
/* The bytes a cold-data rotation (decode weights, attention K / V, the read
 * probes' buffer) spans: max(256 MiB, 8 x LLC), so every pass reads memory. */
double bench_rotation_bytes(const bench *b);

/* bench_limits.c */
const qmm_probe_result *bench_probe_get(bench *b, const qmm_probe *p);
void bench_measure_machine_limits(bench *b, uint64_t features);
void bench_measure_reference_limits(bench *b);
void bench_refresh_limits(bench *b); /* a second round of every probe run so far */
/* GB/s of a read of up to `bytes` of w's blob from `offset` (rounded down to
 * 4096), on the pool, by the best read probe's loop: a decode call's paired
 * read (bench_limits.c); 0 if none ran. */
double bench_paired_read(bench *b, const qmm_weights *w, size_t offset, size_t bytes);
void bench_sample_read_limit(bench *b);                     /* a short round of the read probes, between decode passes */
void bench_sample_read_limit_every(bench *b, double *last); /* ... when > 1 s since *last (then *last = now) */
void bench_sample_compute_limits(bench *b);                 /* a short round of the int8 / FMA probes, between prefill rows */
void bench_set_limit(bench *b, bench_row *w);
int bench_print_probes(bench *b, uint64_t features, FILE *f); /* exit code */

/* bench_measure.c */
qmm_status bench_decode(bench *b, bench_matrix *mats, int nm, bench_row *rows, void **srcs);
qmm_status bench_prefill(bench *b, bench_matrix *mats, int nm, bench_row *dec, bench_row *pre, void **srcs);
qmm_status bench_reference(bench *b, bench_matrix *mats, int nm, bench_row *dec, bench_row *pre, void **srcs);

/* bench_model.c */
/* --model: the groups of identical (type, k, n) 2-D weights; skipped tensors
 * are listed in the report. Returns the group count (*out NULL: no memory). */
int bench_model_groups(bench *b, qmm_gguf *g, bench_matrix **out);
void bench_model_title(bench *b, qmm_gguf *g, const char *path);
qmm_status bench_model_pack_all(bench *b, bench_matrix *mats, int nm);

/* bench_attn.c: --attn, qmm_mul_mat_f16 at the preset's attention shapes
 * (prints its table, writes json if not NULL); returns the exit code. */
int bench_attn(bench *b, const bench_preset *pr, const int64_t *rows, int n_rows, uint64_t features, const char *json);
int bench_attn_parse_rows(const char *s, int64_t *rows, int max); /* count, or -1 */

/* bench_moe.c: mixture-of-experts rows through qmm_mul_mat_id (the MoE
 * presets, and the experts tensors of --model). */
typedef struct bench_moe_preset bench_moe_preset;
const bench_moe_preset *bench_moe_preset_find(const char *name); /* NULL: not a MoE preset */
qmm_status bench_moe_preset_run(bench *b, const bench_moe_preset *p, int type_given, qmm_type type);
int bench_moe_is_experts(const qmm_gguf_tensor *t); /* a 3-D *_exps tensor: run by bench_moe_model_run */
int bench_moe_model_count(qmm_gguf *g);             /* its experts tensors of a packable type */
qmm_status bench_moe_model_run(bench *b, qmm_gguf *g);

/* bench_help.c */
void bench_usage(FILE *f);

#endif
