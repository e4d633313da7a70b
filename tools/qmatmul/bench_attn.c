/* qmatmul bench --attn: qmm_mul_mat_f16 (F16 weights packed inside every
 * call: the KV-cache path) at the attention shapes of the preset: QK^T
 * (w = K: kv rows of head_dim, x = Q) and PV (w = V^T: head_dim rows of kv,
 * x = P), every query head of the layer in one call over the preset's KV
 * heads (GQA broadcast). Query rows m = --attn-rows (default 1, 64, 512,
 * 2048, 4096; at most 4096: PV at m = kv = 4096 already holds 2 GiB of P and
 * as much packed); kv = m (a prompt attending to itself, unmasked), except
 * at m = 1 (decode), where kv = 4096. Decode rows are read against the memory
 * limit (F16 K or V bytes per call), each call on the next of copies of K or V
 * holding >= 8 x LLC and >= 256 MiB, in huge pages where the OS grants them
 * (as the weights of `qmatmul bench` and the read probe's buffer: PV's 16
 * rows of a pass, 8 KiB apart at kv = 4096, read 20-25% slower from 4 KiB
 * pages), so they come from memory: a small model's K (SmolLM2: 1.5 MiB)
 * stays in cache otherwise and read 115% of the memory limit; the others
 * against the FMA limit.
 * After the preset's heads, the head-dim-64 shapes below (short k for QK,
 * short n for PV) unless the preset has them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "progress.h"

#define ATTN_DECODE_KV 4096

typedef struct attn_shape {
    const char *title;
    int64_t heads, kv_heads, head_dim;
} attn_shape;

static const attn_shape extra_shapes[] = {
    {"Llama-3.2-1B", 32, 8, 64},
    {"SmolLM2-135M", 9, 3, 64},
};

static int64_t row_kv_heads[512]; /* per table row: rows hold the query heads only */

static qmm_status run_attn(bench *b, const qmm_tensor *tw, const qmm_tensor *tx, const qmm_tensor *ty, double *secs) {
    const double t0 = qmm_bench_now();
    const qmm_status st = qmm_mul_mat_f16(b->ctx, tw, tx, ty);
    *secs = qmm_bench_now() - t0;
    return st;
}

/* Copies of a decode row's K or V spanning the rotation (as the weights of
 * bench_measure.c); 1 for prefill rows (their K / V are reused from cache by
 * any attention kernel). */
static size_t attn_copies(const bench *b, int64_t m, size_t bytes) {
    return m == 1 ? (size_t)ceil(bench_rotation_bytes(b) / (double)bytes) + 1 : 1;
}

/* One row: pv 0 (QK) or 1 (PV) at m query rows over kv keys. */
static qmm_status attn_row(bench *b, const attn_shape *pr, int pv, int64_t m, int64_t kv, bench_row *w) {
    const int64_t hd = pr->head_dim, k = pv ? kv : hd, n = pv ? hd : kv;
    const size_t we = (size_t)(k * n * pr->kv_heads), xe = (size_t)(k * m * pr->heads), ye = (size_t)(n * m * pr->heads);
    const size_t copies = attn_copies(b, m, we * 2);
    void *wd_mem = NULL; /* the pages of the weights and of the read probe */
    qmm_alloc_huge(copies * we * 2, &wd_mem);
    uint16_t *wd = wd_mem;
    float *x = malloc(xe * 4), *y = malloc(ye * 4);
    qmm_status st = wd && x && y ? QMM_OK : QMM_ERR_NO_MEMORY;
    for (size_t i = 0; st == QMM_OK && i < we; i++)
        wd[i] = qmm_fp32_to_fp16(bench_rngf(&b->seed));
    for (size_t c = 1; st == QMM_OK && c < copies; c++)
        memcpy(wd + c * we, wd, we * 2);
    for (size_t i = 0; st == QMM_OK && i < xe; i++)
        x[i] = bench_rngf(&b->seed);
    qmm_tensor tw, tx, ty;
    if (st == QMM_OK)
        st = qmm_tensor_init(&tw, QMM_TYPE_F16, 3, (int64_t[]){k, n, pr->kv_heads}, wd);
    if (st == QMM_OK)
        st = qmm_tensor_init(&tx, QMM_TYPE_F32, 3, (int64_t[]){k, m, pr->heads}, x);
    if (st == QMM_OK)
        st = qmm_tensor_init(&ty, QMM_TYPE_F32, 3, (int64_t[]){n, m, pr->heads}, y);
    double t = 0, samples[64];
    if (st == QMM_OK)
        st = run_attn(b, &tw, &tx, &ty, &t); /* warm-up: pages, pool, scratch */
    /* ~0.3 s x --time per row, 3..64 calls */
    int reps = t > 0 ? (int)(0.3 * b->budget_scale / t) : 64;
    reps = reps < 3 ? 3 : reps > 64 ? 64 : reps;
    for (int r = 0; r < reps && st == QMM_OK; r++) {
        tw.data = wd + (size_t)(r + 1) % copies * we; /* the next copy: from memory at decode */
        st = run_attn(b, &tw, &tx, &ty, &samples[r]);
    }
    if (st == QMM_OK) {
        snprintf(w->name, sizeof w->name, "attn %s hd%lld %lld/%lld m=%lld kv=%lld", pv ? "PV" : "QK", (long long)hd,
                 (long long)pr->heads, (long long)pr->kv_heads, (long long)m, (long long)kv);
        row_kv_heads[b->rep->n_rows] = pr->kv_heads;
        w->count = (int)pr->heads;
        w->phase = m == 1 ? PHASE_DECODE : PHASE_PREFILL;
        w->type = QMM_TYPE_F16;
        w->m = m, w->n = n, w->k = k;
        const char *chain = NULL;
        qmm_context_chain(b->ctx, QMM_TYPE_F16, &chain, NULL);
        snprintf(w->kernel, sizeof w->kernel, "%s", chain ? chain : "?");
        bench_stat_from(&w->t, samples, reps);
        w->n_measured = n;
        w->weight_bytes = (double)we * 2; /* the F16 K or V read by the call */
        w->flops = 2.0 * (double)m * (double)n * (double)k * (double)pr->heads;
        w->rate = (w->phase == PHASE_DECODE ? w->weight_bytes : w->flops) / w->t.median * 1e-9;
    }
    qmm_free_huge(wd);
    free(x);
    free(y);
    return st;
}

static void print_attn(FILE *f, const bench_report *r, const bench_preset *pr) {
    fprintf(f, "qmatmul bench --attn: %s\n", r->title);
    fprintf(f, "CPU: %s; %d threads\n", r->machine, r->n_threads);
    fprintf(f, "limits: memory read %.1f GB/s, fp32 FMA %.1f GFLOP/s (%s; best of runs)\n", r->read.max, r->fma.max,
            r->fma.probe ? r->fma.probe->name : "-");
    fprintf(f, "\n%-34s %5s %5s %5s %6s %-16s %10s %12s %s\n", "qmm_mul_mat_f16", "m", "n", "k", "heads", "kernel", "time/call",
            "rate", "% of limit");
    for (int i = 0; i < r->n_rows; i++) {
        const bench_row *w = &r->rows[i];
        char rate[32];
        snprintf(rate, sizeof rate, "%.1f %s", w->rate, w->phase == PHASE_DECODE ? "GB/s" : "GFLOP/s");
        fprintf(f, "%-34s %5lld %5lld %5lld %3lld/%-2lld %-16s %8.3f ms %12s %3.0f%% %s\n", w->name, (long long)w->m,
                (long long)w->n, (long long)w->k, (long long)w->count, (long long)row_kv_heads[i], w->kernel, w->t.median * 1e3,
                rate, w->pct, w->limit_name ? w->limit_name : "");
    }
    fprintf(f,
            "\nnotes:\n  - one call multiplies all query heads by the KV heads (GQA broadcast: heads column), packing K or V^T "
            "inside the call;\n    rate counts 2 m n k x heads (prefill) or the F16 bytes of K or V (decode: m = 1, kv = %d,\n"
            "    each call on the next of copies of K or V holding >= 8 x LLC (%.0f MiB) and >= 256 MiB: from memory);\n"
            "    rows after the preset's: ",
            ATTN_DECODE_KV, r->llc_bytes / 1048576.0);
    for (size_t i = 0; i < sizeof extra_shapes / sizeof extra_shapes[0]; i++)
        fprintf(f, "%s%s (%lld / %lld heads, hd %lld)", i ? ", " : "", extra_shapes[i].title, (long long)extra_shapes[i].heads,
                (long long)extra_shapes[i].kv_heads, (long long)extra_shapes[i].head_dim);
    fprintf(f, " unless the preset has the shape\n");
    (void)pr;
    for (int i = 0; i < r->n_notes; i++)
        fprintf(f, "  - %s\n", r->notes[i]);
}

int bench_attn(bench *b, const bench_preset *pr, const int64_t *rows, int n_rows, uint64_t features, const char *json) {
    bench_report *rep = b->rep;
    snprintf(rep->title, sizeof rep->title, "%s attention, head dim %lld, %lld query / %lld KV heads, %d threads", pr->title,
             (long long)pr->head_dim, (long long)pr->heads, (long long)pr->kv_heads, b->nth);
    rep->type_name = "F16";
    rep->n_layers = 1;
    bench_measure_machine_limits(b, features);
    qmm_status st = QMM_OK;
    attn_shape shapes[1 + sizeof extra_shapes / sizeof extra_shapes[0]] = {{pr->title, pr->heads, pr->kv_heads, pr->head_dim}};
    int n_shapes = 1;
    for (size_t e = 0; e < sizeof extra_shapes / sizeof extra_shapes[0]; e++) {
        const attn_shape *x = &extra_shapes[e];
        if (x->heads != pr->heads || x->kv_heads != pr->kv_heads || x->head_dim != pr->head_dim)
            shapes[n_shapes++] = *x;
    }
    for (int sh = 0; sh < n_shapes && st == QMM_OK; sh++)
        for (int i = 0; i < n_rows && st == QMM_OK && rep->n_rows < 510; i++)
            for (int pv = 0; pv < 2 && st == QMM_OK; pv++) {
                const int64_t m = rows[i], kv = m == 1 ? ATTN_DECODE_KV : m;
                progress_line("attention %s hd %lld, %lld / %lld heads, m = %lld, kv = %lld", pv ? "PV" : "QK",
                              (long long)shapes[sh].head_dim, (long long)shapes[sh].heads, (long long)shapes[sh].kv_heads,
                              (long long)m, (long long)kv);
                bench_row *w = &rep->rows[rep->n_rows];
                memset(w, 0, sizeof *w);
                if (m == 1) /* the limit of this row, sampled right before it (bench_limits.c) */
                    bench_sample_read_limit(b);
                else
                    bench_sample_compute_limits(b);
                if ((st = attn_row(b, &shapes[sh], pv, m, kv, w)) == QMM_OK)
                    rep->n_rows++;
            }
    if (st == QMM_OK) {
        bench_sample_read_limit(b);
        bench_sample_compute_limits(b);
    }
    progress_done();
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul bench: attention: %s (%s)\n", qmm_status_str(st), qmm_last_error());
        return 1;
    }
    bench_refresh_limits(b);
    for (int i = 0; i < rep->n_rows; i++)
        bench_set_limit(b, &rep->rows[i]);
    const double load = bench_load_average();
    if (load > 0.5 * b->nth + 0.5)
        bench_note(b, "the machine was busy (1-minute load average %.1f): figures are noisy", load);
    print_attn(stdout, rep, pr);
    if (json && bench_write_json(json, rep) != 0) {
        fprintf(stderr, "qmatmul bench: cannot write %s\n", json);
        return 1;
    }
    return 0;
}

int bench_attn_parse_rows(const char *s, int64_t *rows, int max) {
    int n = 0;
    while (*s) {
        char *end;
        const long long v = strtoll(s, &end, 10);
        if (end == s || v < 1 || v > 4096 || n == max || (*end && *end != ','))
            return -1;
        rows[n++] = v;
        s = *end ? end + 1 : end;
    }
    return n ? n : -1;
}
