/* What `qmatmul bench` measured, and its three outputs: the table (stdout),
 * the JSON file and the roofline SVG. */
#ifndef QMM_BENCH_REPORT_H
#define QMM_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "probe.h"
#include "qmatmul.h"

/* Seconds per call: median and spread of n samples. */
typedef struct bench_stat {
    double median, min, max;
    int n;
} bench_stat;

void bench_stat_from(bench_stat *s, double *samples, int n); /* sorts samples */

enum { PHASE_DECODE = 0, PHASE_PREFILL = 1 };

typedef struct bench_row {
    char name[96]; /* matrix ("q", "gate") or tensor group ("blk.*.ffn_up.weight") */
    int count;     /* matrices of this shape per layer (preset) or in the model */
    int phase;
    qmm_type type;
    int64_t m, n, k;
    char kernel[48];
    bench_stat t;        /* seconds per call (scaled to the full matrix if n_measured < n) */
    int64_t n_measured;  /* columns actually run (== n unless a subset was timed and scaled) */
    double weight_bytes; /* packed bytes of the matrix */
    double flops;        /* 2 m n k */
    double rate;         /* GFLOP/s (prefill) or GB/s of weights (decode) */
    double limit;        /* the matching machine limit (same unit) */
    const char *limit_name;
    double pct; /* rate / limit * 100 */
    /* decode: the median over calls of the call's rate / the rate of a read
     * of as many cold bytes right after it on the same pool, * 100 (0: none) */
    double paired_pct;
    /* the portable reference family, same shape */
    char ref_kernel[48];
    bench_stat t_ref; /* scaled to the full matrix */
    int64_t ref_n_measured;
    double speedup; /* t_ref.median / t.median; 0 if not run */
    /* pack */
    double pack_s;
} bench_row;

typedef struct bench_report {
    char title[160];
    char machine[256];  /* CPU model, arch, cores */
    char features[512]; /* detected features */
    char context_json[8192];
    int n_threads;
    double llc_bytes;
    const char *type_name;
    int64_t m_prefill;
    int n_layers; /* preset: layers; model: 1 (rows carry counts) */
    qmm_probe_result read, int8, fma;
    qmm_probe_result fma_tile;          /* not a limit: the fp GEMM register tile's ceiling (probe.h) */
    qmm_probe_result ref_int8, ref_fma; /* the portable probes the reference families match */
    int have_ref_probes;
    int n_rows;
    bench_row rows[512];
    /* decode setup */
    int decode_copies;
    double decode_rotation_bytes;
    /* totals (per layer x layers for presets, whole model for --model) */
    double decode_s, prefill_s, tok_s_decode, tok_s_prefill;
    char notes[8][200];
    int n_notes;
    /* --model */
    char model_path[512];
    double file_bytes, packed_bytes, pack_total_s;
    int n_packed_tensors;
    char skipped[64][128];
    int n_skipped;
    int skipped_more;
} bench_report;

void bench_print_table(FILE *f, const bench_report *r);
int bench_write_json(const char *path, const bench_report *r);
int bench_write_svg(const char *path, const bench_report *r);

#endif
