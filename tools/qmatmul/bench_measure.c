/* qmatmul bench: the timed calls. Decode rotates through packed copies so
 * weights come from memory; prefill times calls of a bounded length; the
 * reference family runs the same shapes with fewer calls. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "progress.h"

static qmm_status run_mm(qmm_context *ctx, const qmm_weights *w, float *x, float *y, int64_t m, double *secs) {
    qmm_tensor tx, ty;
    const int64_t nx[2] = {qmm_weights_k(w), m}, ny[2] = {qmm_weights_n(w), m};
    qmm_status st = qmm_tensor_init(&tx, QMM_TYPE_F32, 2, nx, x);
    if (st == QMM_OK)
        st = qmm_tensor_init(&ty, QMM_TYPE_F32, 2, ny, y);
    const double t0 = qmm_bench_now();
    if (st == QMM_OK)
        st = qmm_mul_mat(ctx, w, &tx, &ty);
    *secs = qmm_bench_now() - t0;
    return st;
}

/* Seconds per output column, from two calls on a slice of n_est columns
 * (the second one timed). */
static qmm_status per_col_of(bench *b, qmm_context *ctx, const bench_matrix *mx, const void *src, int64_t m, int64_t n_est,
                             double *per_col) {
    qmm_weights *w = NULL;
    double t;
    qmm_status st = qmm_weights_pack(ctx, mx->type, mx->k, n_est, src, mx->row_bytes * (size_t)n_est, &w);
    if (st)
        return st;
    if ((st = run_mm(ctx, w, b->x, b->y, m, &t)) == QMM_OK)
        st = run_mm(ctx, w, b->x, b->y, m, &t);
    qmm_weights_free(w);
    *per_col = t / (double)n_est;
    return st;
}

/* Seconds per output column: from 64 columns, then, if the whole matrix
 * takes under 4 s a call (not the reference family), from up to 512: 64
 * columns are too few to spread over the threads (an fp family's chunks are
 * 256 wide), and overstated a call of the whole matrix enough to time a
 * subset of it where the whole one fitted. */
static qmm_status estimate_per_col(bench *b, qmm_context *ctx, const bench_matrix *mx, const void *src, int64_t m,
                                   double *per_col) {
    qmm_status st = per_col_of(b, ctx, mx, src, m, mx->n < 64 ? mx->n : 64, per_col);
    if (st == QMM_OK && mx->n > 64 && *per_col * (double)mx->n < 4.0)
        st = per_col_of(b, ctx, mx, src, m, mx->n < 512 ? mx->n : 512, per_col);
    return st;
}

/* Times y = W x for rows [0, n) of src at m activation rows within about
 * `budget` seconds. If a call of the full matrix would take longer than
 * QMM_BENCH_FULL_CALL_S and not fit that many calls, the first n_sub rows (a
 * multiple of 64) are packed and timed and the times scaled by n / n_sub (the
 * work is linear in n, but not its spread over the threads: 640 of k / v's
 * 1024 columns made 3 F32 chunks for 2 threads, 65-71% of the FMA limit
 * against 83-93% for the whole matrix). Weights are packed in ctx. */
#define QMM_BENCH_FULL_CALL_S 0.25
static qmm_status measure_gemm(bench *b, qmm_context *ctx, const bench_matrix *mx, const void *src, int64_t m, double budget,
                               int max_reps, int allow_subset, bench_stat *out, int64_t *n_measured, char *kernel,
                               size_t kernel_size) {
    double per_col, t;
    qmm_status st = estimate_per_col(b, ctx, mx, src, m, &per_col);
    if (st)
        return st;
    /* calls of ~budget/12 (30-250 ms): short enough that most of them run
     * uninterrupted on a shared machine, long enough to be a real GEMM */
    const double call = fmin(fmax(budget / 12, 0.03), 0.25);
    int64_t n_run = mx->n;
    if (allow_subset && per_col * (double)mx->n > fmax(call * 1.5, QMM_BENCH_FULL_CALL_S)) {
        n_run = (int64_t)(call / per_col) / 64 * 64;
        if (n_run < 64)
            n_run = 64;
        if (n_run > mx->n)
            n_run = mx->n;
    }
    qmm_weights *w = NULL;
    if ((st = qmm_weights_pack(ctx, mx->type, mx->k, n_run, src, mx->row_bytes * (size_t)n_run, &w)))
        return st;
    snprintf(kernel, kernel_size, "%s", qmm_weights_kernel(w));
    const double est = per_col * (double)n_run;
    int reps = est > 0 ? (int)(budget / est) : max_reps;
    reps = reps > max_reps ? max_reps : reps < 1 ? 1 : reps;
    if (reps > 64)
        reps = 64;
    double samples[64];
    if (est * 8 < budget) /* a warm-up call when cheap */
        st = run_mm(ctx, w, b->x, b->y, m, &t);
    for (int r = 0; r < reps && st == QMM_OK; r++) {
        st = run_mm(ctx, w, b->x, b->y, m, &t);
        samples[r] = t * (double)mx->n / (double)n_run;
    }
    qmm_weights_free(w);
    if (st)
        return st;
    bench_stat_from(out, samples, reps);
    *n_measured = n_run;
    return QMM_OK;
}

static void fill_rates(bench_row *w) {
    w->flops = 2.0 * (double)w->m * (double)w->n * (double)w->k;
    if (w->phase == PHASE_DECODE)
        w->rate = w->weight_bytes / w->t.median * 1e-9;
    else
        w->rate = w->flops / w->t.median * 1e-9;
}

/* How many copies of the packed set make the rotation >= 8 x LLC and
 * >= 256 MiB (at most 256 copies), as the read probe's buffer: with only
 * 2 x LLC in the rotation part of it was still served by the LLC, and
 * decode beat the DRAM read limit (a Zen 4 L3 of 32 MiB, 65 MiB rotated:
 * 105-110% of the probe). */
static qmm_status decode_copies(bench *b, const bench_matrix *mats, int nm, int *copies) {
    const double target = bench_rotation_bytes(b);
    double set_bytes = 0; /* bytes of one set of packed matrices */
    for (int j = 0; j < nm; j++) {
        size_t sz;
        qmm_status st = qmm_packed_size(b->ctx, mats[j].type, mats[j].k, mats[j].n, &sz);
        if (st)
            return st;
        set_bytes += (double)sz;
    }
    int c = (int)ceil(target / set_bytes);
    *copies = c < 1 ? 1 : c > 256 ? 256 : c;
    b->rep->decode_copies = *copies;
    b->rep->decode_rotation_bytes = set_bytes * *copies;
    return QMM_OK;
}

static qmm_status pack_decode_copies(bench *b, const bench_matrix *mats, int nm, int copies, bench_row *rows, void **srcs,
                                     qmm_weights **W) {
    qmm_status st = QMM_OK;
    for (int c = 0; c < copies && st == QMM_OK; c++)
        for (int j = 0; j < nm && st == QMM_OK; j++) {
            progress_line("packing decode copies: %d of %d, %s", c + 1, copies, mats[j].name);
            const bench_matrix *mx = &mats[j];
            const void *src = mx->n_members ? mx->members[c % mx->n_members] : srcs[j];
            const double t0 = qmm_bench_now();
            st = qmm_weights_pack(b->ctx, mx->type, mx->k, mx->n, src, mx->row_bytes * (size_t)mx->n, &W[c * nm + j]);
            if (c == 0)
                rows[j].pack_s = qmm_bench_now() - t0;
        }
    return st;
}

/* One decode call of W[i] (i = copy * nm + matrix in call order, of total),
 * then its paired read (bench_paired_read) of the call's bytes of the copy
 * half a rotation ahead, cold; *share: the call's rate over the read's (0:
 * none). */
static qmm_status decode_call_paired(bench *b, qmm_weights **W, int i, int total, double *secs, double *share) {
    qmm_status st = run_mm(b->ctx, W[i], b->x, b->y, 1, secs);
    *share = 0;
    if (st != QMM_OK || total < 2 || *secs <= 0)
        return st;
    size_t bytes;
    qmm_weights_blob(W[i], &bytes);
    const double read = bench_paired_read(b, W[(i + total / 2) % total], 0, bytes);
    if (read > 0)
        *share = (double)bytes / *secs * 1e-9 / read;
    return st;
}

/* A warm-up pass, timed to choose the repetitions, then the timed passes:
 * samples[j * reps * copies + pass * copies + copy], and the paired shares
 * beside them in shares[]. */
static qmm_status time_decode_passes(bench *b, int nm, int copies, qmm_weights **W, double **samples, double **shares,
                                     int *n_samples) {
    qmm_status st = QMM_OK;
    const int total = copies * nm;
    double t, share;
    const double t0 = qmm_bench_now();
    for (int i = 0; i < total && st == QMM_OK; i++)
        st = decode_call_paired(b, W, i, total, &t, &share);
    const double pass = qmm_bench_now() - t0;
    int reps = pass > 0 ? (int)(8.0 * b->budget_scale / pass) : 10;
    if (reps * copies > 400)
        reps = 400 / copies;
    if (reps < 3)
        reps = 3;
    const int ns = reps * copies;
    double *s = malloc(sizeof(double) * (size_t)ns * (size_t)nm), *sh = malloc(sizeof(double) * (size_t)ns * (size_t)nm);
    if (!s || !sh)
        st = QMM_ERR_NO_MEMORY;
    double sampled = 0; /* a round before the first pass, one after the last: short runs get two */
    for (int r = 0; r < reps && st == QMM_OK; r++) {
        bench_sample_read_limit_every(b, &sampled); /* the read limit through the passes */
        progress_line("decode (m = 1): pass %d of %d over %d copies", r + 1, reps, copies);
        for (int c = 0; c < copies && st == QMM_OK; c++)
            for (int j = 0; j < nm && st == QMM_OK; j++) {
                const size_t at = (size_t)j * (size_t)ns + (size_t)(r * copies + c);
                st = decode_call_paired(b, W, c * nm + j, total, &s[at], &sh[at]);
            }
    }
    if (st == QMM_OK)
        bench_sample_read_limit(b);
    *samples = s;
    *shares = sh;
    *n_samples = ns;
    return st;
}

/* Decode of every matrix, rotating through enough packed copies (distinct
 * buffers, and --model: distinct tensors) that the weights come from
 * memory, not the cache. */
qmm_status bench_decode(bench *b, bench_matrix *mats, int nm, bench_row *rows, void **srcs) {
    int copies, ns = 0;
    qmm_status st = decode_copies(b, mats, nm, &copies);
    if (st)
        return st;
    qmm_weights **W = calloc((size_t)copies * (size_t)nm, sizeof *W);
    if (!W)
        return QMM_ERR_NO_MEMORY;
    double *samples = NULL, *shares = NULL;
    st = pack_decode_copies(b, mats, nm, copies, rows, srcs, W);
    if (st == QMM_OK)
        st = time_decode_passes(b, nm, copies, W, &samples, &shares, &ns);
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        bench_row *w = &rows[j];
        bench_stat_from(&w->t, samples + (size_t)j * (size_t)ns, ns);
        snprintf(w->kernel, sizeof w->kernel, "%s", qmm_weights_kernel(W[j]));
        size_t sz;
        qmm_weights_blob(W[j], &sz);
        w->weight_bytes = (double)sz;
        w->n_measured = w->n;
        fill_rates(w);
        bench_stat paired;
        bench_stat_from(&paired, shares + (size_t)j * (size_t)ns, ns);
        w->paired_pct = 100.0 * paired.median; /* 0 when no read was paired */
    }
    free(samples);
    free(shares);
    for (int i = 0; i < copies * nm; i++)
        qmm_weights_free(W[i]);
    free(W);
    return st;
}

/* Prefill of each matrix (weights cache-resident or not does not matter at
 * m = 512); the budget follows the share of the work: ~20 s for the layer. */
qmm_status bench_prefill(bench *b, bench_matrix *mats, int nm, bench_row *dec, bench_row *pre, void **srcs) {
    qmm_status st = QMM_OK;
    double total_flops = 0;
    for (int j = 0; j < nm; j++)
        total_flops += 2.0 * (double)b->m_pre * (double)mats[j].n * (double)mats[j].k;
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        const bench_matrix *mx = &mats[j];
        bench_row *w = &pre[j];
        bench_sample_compute_limits(b); /* the int8 / FMA limits through the rows, as the read limit's */
        progress_line("prefill (m = %lld): %s (%d of %d)", (long long)b->m_pre, mx->name, j + 1, nm);
        const double budget = 20.0 * b->budget_scale * (2.0 * (double)b->m_pre * (double)mx->n * (double)mx->k) / total_flops;
        const void *src = mx->n_members ? mx->members[0] : srcs[j];
        st = measure_gemm(b, b->ctx, mx, src, b->m_pre, fmax(budget, 0.3), 15, 1, &w->t, &w->n_measured, w->kernel,
                          sizeof w->kernel);
        if (st)
            break;
        w->weight_bytes = dec[j].weight_bytes;
        w->pack_s = dec[j].pack_s;
        fill_rates(w);
    }
    if (st == QMM_OK)
        bench_sample_compute_limits(b);
    return st;
}

/* The reference family of both phases: fewer calls, a column subset at
 * prefill, scaled. A row whose kernel is the reference already reuses its
 * own time. */
qmm_status bench_reference(bench *b, bench_matrix *mats, int nm, bench_row *dec, bench_row *pre, void **srcs) {
    qmm_status st = QMM_OK;
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        const bench_matrix *mx = &mats[j];
        const void *src = mx->n_members ? mx->members[0] : srcs[j];
        for (int ph = 0; ph < 2 && st == QMM_OK; ph++) {
            bench_row *w = ph == PHASE_DECODE ? &dec[j] : &pre[j];
            qmm_family_desc rk;
            if (qmm_family_info(qmm_family_reference(mx->type), &rk) == QMM_OK && strcmp(rk.name, w->kernel) == 0) {
                snprintf(w->ref_kernel, sizeof w->ref_kernel, "%s", rk.name);
                w->t_ref = w->t;
                w->ref_n_measured = w->n_measured;
                w->speedup = 1.0;
                continue;
            }
            progress_line("reference family: %s %s (%d of %d)", mx->name, ph == PHASE_DECODE ? "decode" : "prefill", j + 1, nm);
            const double budget = (ph == PHASE_DECODE ? 0.6 : 1.2) * b->budget_scale;
            st = measure_gemm(b, b->ref_ctx, mx, src, ph == PHASE_DECODE ? 1 : b->m_pre, budget, 3, ph == PHASE_PREFILL,
                              &w->t_ref, &w->ref_n_measured, w->ref_kernel, sizeof w->ref_kernel);
            if (st == QMM_OK && w->t.median > 0)
                w->speedup = w->t_ref.median / w->t.median;
        }
    }
    return st;
}
