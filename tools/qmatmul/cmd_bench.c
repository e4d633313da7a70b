/* qmatmul bench: what this CPU gets from qmatmul, with which kernels, and
 * how close that is to what the machine can do.
 *
 * Runs the matmuls of one transformer layer of a model preset (or every
 * packable 2-D weight of a GGUF file), decode (m = 1) and prefill (m = 512),
 * next to this machine's measured limits (bench/probe.h), and the portable
 * reference family for the speed-up. Results on stdout; progress on stderr. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "probe.h"
#include "qmatmul.h"
#include "qmatmul_gguf.h"
#include "report.h"

/* ----------------------------------------------------------------- presets */

typedef struct preset {
    const char *name, *title;
    int64_t hidden, ffn, heads, kv_heads, head_dim;
    int layers;
} preset;

static const preset presets[] = {
    {"llama-3.2-1b", "Llama-3.2-1B", 2048, 8192, 32, 8, 64, 16},
    {"llama-3-8b", "Llama-3-8B", 4096, 14336, 32, 8, 128, 32},
    {"qwen2.5-7b", "Qwen2.5-7B", 3584, 18944, 28, 4, 128, 28},
};
#define N_PRESETS ((int)(sizeof presets / sizeof presets[0]))

/* A weight matrix to run: n rows (outputs) of k. src: GGUF row layout. */
typedef struct matrix {
    char name[96];
    int64_t k, n;
    int count;
    qmm_type type;
    const void *src; /* NULL: random data is generated */
    size_t row_bytes;
    /* --model: every tensor of the group (rotated through at decode) */
    const void **members;
    int n_members;
} matrix;

/* ------------------------------------------------------------------- state */

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
    const qmm_probe *probe_done[16];
    qmm_probe_result probe_res[16];
    int n_probe_done;
    int probe_reps;
} bench;

static int show_progress = -1; /* only on a terminal */

static void progress(const char *fmt, ...) {
    if (show_progress < 0)
        show_progress = isatty(2);
    if (!show_progress)
        return;
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r%-100.100s", buf);
    fflush(stderr);
}
static void progress_done(void) {
    if (show_progress > 0)
        fprintf(stderr, "\r%100s\r", "");
}

static void note(bench *b, const char *fmt, ...) {
    if (b->rep->n_notes >= (int)(sizeof b->rep->notes / sizeof b->rep->notes[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->rep->notes[b->rep->n_notes++], sizeof b->rep->notes[0], fmt, ap);
    va_end(ap);
}

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static float rngf(uint64_t *s) { return (float)((double)(rng(s) >> 40) * 0x1p-24 * 2.0 - 1.0); }

/* Random weights in GGUF layout: quantized blocks are written directly
 * (random codes, scales around 0.01), which is all a kernel sees. */
static void *make_source(qmm_type t, int64_t k, int64_t n, uint64_t *seed, size_t *size) {
    const size_t rb = qmm_row_size(t, k);
    *size = rb * (size_t)n;
    uint8_t *p = malloc(*size ? *size : 1);
    if (!p)
        return NULL;
    const size_t words = *size / 8;
    uint64_t *w = (uint64_t *)p;
    for (size_t i = 0; i < words; i++)
        w[i] = rng(seed);
    for (size_t i = words * 8; i < *size; i++)
        p[i] = (uint8_t)rng(seed);
    if (t == QMM_TYPE_Q4_0 || t == QMM_TYPE_Q8_0) {
        const size_t bb = qmm_type_block_bytes(t), nb = *size / bb;
        for (size_t i = 0; i < nb; i++) {
            const uint16_t d = qmm_fp32_to_fp16(0.005f + 0.01f * (float)(rng(seed) >> 40) * 0x1p-24f);
            memcpy(p + i * bb, &d, 2);
            if (t == QMM_TYPE_Q8_0)
                for (size_t j = 2; j < bb; j++)
                    if (p[i * bb + j] == 0x80) /* keep q in [-127, 127], as quantizers do */
                        p[i * bb + j] = 0x81;
        }
    } else if (t != QMM_TYPE_F16 && t != QMM_TYPE_F32) {
        /* the other quantized types: random bits, small positive fp16 d and
         * dmin / m (byte offsets of the fp16 fields in each block) */
        int f0 = 0, f1 = -1;
        if (t == QMM_TYPE_Q4_1 || t == QMM_TYPE_Q5_1 || t == QMM_TYPE_Q4_K || t == QMM_TYPE_Q5_K)
            f1 = 2;
        else if (t == QMM_TYPE_Q2_K)
            f0 = 80, f1 = 82;
        else if (t == QMM_TYPE_Q3_K)
            f0 = 108;
        else if (t == QMM_TYPE_Q6_K)
            f0 = 208;
        const size_t bb = qmm_type_block_bytes(t), nb = *size / bb;
        for (size_t i = 0; i < nb; i++)
            for (int f = 0; f < 2; f++) {
                const int off = f ? f1 : f0;
                if (off < 0)
                    continue;
                const uint16_t d = qmm_fp32_to_fp16(0.0005f + 0.001f * (float)(rng(seed) >> 40) * 0x1p-24f);
                memcpy(p + i * bb + off, &d, 2);
            }
    } else if (t == QMM_TYPE_F16) {
        uint16_t *h = (uint16_t *)p;
        for (size_t i = 0; i < *size / 2; i++)
            h[i] = qmm_fp32_to_fp16(rngf(seed));
    } else if (t == QMM_TYPE_F32) {
        float *f = (float *)p;
        for (size_t i = 0; i < *size / 4; i++)
            f[i] = rngf(seed);
    }
    return p;
}

static int die_status(qmm_status st, const char *what) {
    progress_done();
    fprintf(stderr, "qmatmul bench: %s: %s (%s)\n", what, qmm_status_str(st), qmm_last_error());
    return 1;
}

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

/* ------------------------------------------------------------------ limits */

static const qmm_probe_result *probe_get(bench *b, const qmm_probe *p) {
    if (!p)
        return NULL;
    for (int i = 0; i < b->n_probe_done; i++)
        if (b->probe_done[i] == p)
            return &b->probe_res[i];
    if (b->n_probe_done == 16)
        return NULL;
    progress("probing this machine: %s on %d threads", p->name, b->nth);
    qmm_probe_result *r = &b->probe_res[b->n_probe_done];
    const double llc = b->rep->llc_bytes;
    size_t bytes = (size_t)256 << 20;
    if (llc * 8 > (double)bytes)
        bytes = (size_t)(llc * 8);
    if (qmm_probe_run(p, b->nth, b->probe_reps, 0.001, bytes, r) != 0)
        return NULL;
    b->probe_done[b->n_probe_done++] = p;
    return r;
}

/* The limit a row is measured against: the read bandwidth for decode; for
 * prefill the peak of the instruction its family is built from (the best
 * probe its required features allow). */
static void set_limit(bench *b, bench_row *w) {
    const int fi = qmm_family_find(w->kernel);
    qmm_family_desc kf;
    const uint64_t feats = fi >= 0 && qmm_family_info(fi, &kf) == QMM_OK ? kf.required : 0;
    const qmm_probe_result *pr;
    if (w->phase == PHASE_DECODE) {
        pr = &b->rep->read;
        w->limit_name = "read";
    } else if (w->type != QMM_TYPE_F32 && w->type != QMM_TYPE_F16) { /* int8 activations */
        pr = probe_get(b, qmm_probe_best(QMM_PROBE_INT8, feats));
        w->limit_name = pr && pr->probe ? pr->probe->name : "int8";
    } else {
        pr = probe_get(b, qmm_probe_best(QMM_PROBE_FMA, feats));
        w->limit_name = pr && pr->probe ? pr->probe->name : "fma";
    }
    w->limit = pr ? pr->median : 0;
    w->pct = w->limit > 0 ? 100.0 * w->rate / w->limit : 0;
}

/* ------------------------------------------------------------ measurement */

/* Times y = W x for rows [0, n) of src at m activation rows within about
 * `budget` seconds. If the full matrix would not fit that many calls, the
 * first n_sub rows (a multiple of 64) are packed and timed and the times
 * scaled by n / n_sub (the work is linear in n). Weights are packed in ctx
 * (full may be an already packed full matrix). */
static qmm_status measure_gemm(bench *b, qmm_context *ctx, const matrix *mx, const void *src, const qmm_weights *full, int64_t m,
                               double budget, int max_reps, int allow_subset, bench_stat *out, int64_t *n_measured, char *kernel,
                               size_t kernel_size) {
    qmm_status st;
    double t;
    const int64_t n_est = mx->n < 64 ? mx->n : 64;
    qmm_weights *w = NULL;
    /* estimate on a small slice */
    if ((st = qmm_weights_pack(ctx, mx->type, mx->k, n_est, src, mx->row_bytes * (size_t)n_est, &w)))
        return st;
    if ((st = run_mm(ctx, w, b->x, b->y, m, &t)) || (st = run_mm(ctx, w, b->x, b->y, m, &t))) {
        qmm_weights_free(w);
        return st;
    }
    qmm_weights_free(w);
    w = NULL;
    const double per_col = t / (double)n_est;
    /* calls of ~budget/12 (30-250 ms): short enough that most of them run
     * uninterrupted on a shared machine, long enough to be a real GEMM */
    const double call = fmin(fmax(budget / 12, 0.03), 0.25);
    int64_t n_run = mx->n;
    if (allow_subset && per_col * (double)mx->n > call * 1.5) {
        n_run = (int64_t)(call / per_col) / 64 * 64;
        if (n_run < 64)
            n_run = 64;
        if (n_run > mx->n)
            n_run = mx->n;
    }
    const qmm_weights *use = NULL;
    if (n_run == mx->n && full) {
        use = full;
    } else {
        if ((st = qmm_weights_pack(ctx, mx->type, mx->k, n_run, src, mx->row_bytes * (size_t)n_run, &w)))
            return st;
        use = w;
    }
    snprintf(kernel, kernel_size, "%s", qmm_weights_kernel(use));
    const double est = per_col * (double)n_run;
    int reps = est > 0 ? (int)(budget / est) : max_reps;
    if (reps > max_reps)
        reps = max_reps;
    if (reps < 1)
        reps = 1;
    double samples[64];
    if (reps > 64)
        reps = 64;
    if (est * 8 < budget) /* a warm-up call when cheap */
        st = run_mm(ctx, use, b->x, b->y, m, &t);
    for (int r = 0; r < reps && st == QMM_OK; r++) {
        st = run_mm(ctx, use, b->x, b->y, m, &t);
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

/* Decode of every matrix, rotating through enough packed copies (distinct
 * buffers, and --model: distinct tensors) that the weights come from
 * memory, not the cache: > 2 x LLC and >= 64 MiB in the rotation. */
static qmm_status bench_decode(bench *b, matrix *mats, int nm, bench_row *rows, void **srcs) {
    qmm_status st = QMM_OK;
    const double target = fmax(64.0 * 1048576, 2.0 * b->rep->llc_bytes + 1);
    /* bytes of one set of packed matrices */
    double set_bytes = 0;
    for (int j = 0; j < nm; j++) {
        size_t sz;
        if ((st = qmm_packed_size(b->ctx, mats[j].type, mats[j].k, mats[j].n, &sz)))
            return st;
        set_bytes += (double)sz;
    }
    int copies = (int)ceil(target / set_bytes);
    if (copies < 1)
        copies = 1;
    if (copies > 256)
        copies = 256;
    b->rep->decode_copies = copies;
    b->rep->decode_rotation_bytes = set_bytes * copies;
    qmm_weights **W = calloc((size_t)copies * (size_t)nm, sizeof *W);
    if (!W)
        return QMM_ERR_NO_MEMORY;
    for (int c = 0; c < copies && st == QMM_OK; c++)
        for (int j = 0; j < nm && st == QMM_OK; j++) {
            progress("packing decode copies: %d of %d, %s", c + 1, copies, mats[j].name);
            const matrix *mx = &mats[j];
            const void *src = mx->n_members ? mx->members[c % mx->n_members] : srcs[j];
            const double t0 = qmm_bench_now();
            st = qmm_weights_pack(b->ctx, mx->type, mx->k, mx->n, src, mx->row_bytes * (size_t)mx->n, &W[c * nm + j]);
            if (c == 0)
                rows[j].pack_s = qmm_bench_now() - t0;
        }
    double t;
    /* warm-up pass, and the time of one pass to choose the repetitions */
    const double t0 = qmm_bench_now();
    for (int c = 0; c < copies && st == QMM_OK; c++)
        for (int j = 0; j < nm && st == QMM_OK; j++)
            st = run_mm(b->ctx, W[c * nm + j], b->x, b->y, 1, &t);
    const double pass = qmm_bench_now() - t0;
    int reps = pass > 0 ? (int)(8.0 * b->budget_scale / pass) : 10;
    if (reps * copies > 400)
        reps = 400 / copies;
    if (reps < 3)
        reps = 3;
    const int ns = reps * copies;
    double *samples = malloc(sizeof(double) * (size_t)ns * (size_t)nm);
    if (!samples)
        st = QMM_ERR_NO_MEMORY;
    for (int r = 0; r < reps && st == QMM_OK; r++) {
        progress("decode (m = 1): pass %d of %d over %d copies", r + 1, reps, copies);
        for (int c = 0; c < copies && st == QMM_OK; c++)
            for (int j = 0; j < nm && st == QMM_OK; j++) {
                st = run_mm(b->ctx, W[c * nm + j], b->x, b->y, 1, &t);
                samples[(size_t)j * (size_t)ns + (size_t)(r * copies + c)] = t;
            }
    }
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        bench_row *w = &rows[j];
        bench_stat_from(&w->t, samples + (size_t)j * (size_t)ns, ns);
        snprintf(w->kernel, sizeof w->kernel, "%s", qmm_weights_kernel(W[j]));
        size_t sz;
        qmm_weights_blob(W[j], &sz);
        w->weight_bytes = (double)sz;
        w->n_measured = w->n;
        fill_rates(w);
    }
    free(samples);
    for (int i = 0; i < copies * nm; i++)
        qmm_weights_free(W[i]);
    free(W);
    return st;
}

/* Prefill of each matrix (weights cache-resident or not does not matter at
 * m = 512), then the reference family of both phases. */
static qmm_status bench_prefill_and_ref(bench *b, matrix *mats, int nm, bench_row *dec, bench_row *pre, void **srcs) {
    qmm_status st = QMM_OK;
    double total_flops = 0;
    for (int j = 0; j < nm; j++)
        total_flops += 2.0 * (double)b->m_pre * (double)mats[j].n * (double)mats[j].k;
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        const matrix *mx = &mats[j];
        bench_row *w = &pre[j];
        progress("prefill (m = %lld): %s (%d of %d)", (long long)b->m_pre, mx->name, j + 1, nm);
        /* the budget follows the share of the work: ~20 s for the layer */
        const double budget = 20.0 * b->budget_scale * (2.0 * (double)b->m_pre * (double)mx->n * (double)mx->k) / total_flops;
        const void *src = mx->n_members ? mx->members[0] : srcs[j];
        st = measure_gemm(b, b->ctx, mx, src, NULL, b->m_pre, fmax(budget, 0.3), 15, 1, &w->t, &w->n_measured, w->kernel,
                          sizeof w->kernel);
        if (st)
            break;
        w->weight_bytes = dec[j].weight_bytes;
        w->pack_s = dec[j].pack_s;
        fill_rates(w);
    }
    if (st || !b->run_ref)
        return st;
    /* the reference: fewer calls, columns subset at prefill, scaled */
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        const matrix *mx = &mats[j];
        const void *src = mx->n_members ? mx->members[0] : srcs[j];
        for (int ph = 0; ph < 2 && st == QMM_OK; ph++) {
            bench_row *w = ph == PHASE_DECODE ? &dec[j] : &pre[j];
            qmm_family_desc rk;
            if (qmm_family_info(qmm_family_reference(mx->type), &rk) == QMM_OK &&
                strcmp(rk.name, w->kernel) == 0) { /* it ran already */
                snprintf(w->ref_kernel, sizeof w->ref_kernel, "%s", rk.name);
                w->t_ref = w->t;
                w->ref_n_measured = w->n_measured;
                w->speedup = 1.0;
                continue;
            }
            progress("reference family: %s %s (%d of %d)", mx->name, ph == PHASE_DECODE ? "decode" : "prefill", j + 1, nm);
            const double budget = (ph == PHASE_DECODE ? 0.6 : 1.2) * b->budget_scale;
            st = measure_gemm(b, b->ref_ctx, mx, src, NULL, ph == PHASE_DECODE ? 1 : b->m_pre, budget, 3, ph == PHASE_PREFILL,
                              &w->t_ref, &w->ref_n_measured, w->ref_kernel, sizeof w->ref_kernel);
            if (st == QMM_OK && w->t.median > 0)
                w->speedup = w->t_ref.median / w->t.median;
        }
    }
    return st;
}

/* ------------------------------------------------------------------- main */

static void usage(FILE *f) {
    fprintf(f, "usage: qmatmul bench [--preset NAME] [--type T] [--m N] [--threads N] [--model FILE.gguf]\n"
               "                     [--json FILE] [--plot FILE.svg] [--no-ref] [--kernel NAME] [--time X]\n"
               "\n"
               "Runs the matmuls of one transformer layer of a model preset with random weights, decode\n"
               "(m = 1) and prefill (m = --m), on --threads threads, and prints per matrix and phase the\n"
               "kernel family that ran, the time per call (median [min - max]), GB/s of weights (decode)\n"
               "or GFLOP/s (prefill), the percentage of this machine's measured limit, and the speed-up\n"
               "over the portable reference family; then tokens/s estimated from the layer x layers.\n"
               "\n"
               "  --preset NAME   llama-3-8b (default), llama-3.2-1b, qwen2.5-7b\n"
               "  --type T        weight type: Q4_0 (default), Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, F16, F32\n"
               "  --m N           prefill rows (tokens), default 512\n"
               "  --threads N     0 (default): every core available\n"
               "  --model FILE    benchmark every 2-D weight of a packable type of a GGUF file instead\n"
               "                  (identical shapes grouped; pack time and size; skipped tensors listed)\n"
               "  --json FILE     every figure and the machine's description as JSON\n"
               "  --plot FILE     a roofline SVG: intensity vs throughput, the limits as lines\n"
               "  --no-ref        skip the reference family\n"
               "  --kernel NAME   force a kernel family for its type (as QMM_KERNEL)\n"
               "  --time X        scale every time budget by X (default 1; the defaults take ~1 minute)\n"
               "\n"
               "Methods. Decode calls rotate through copies of the packed weights holding > 2 x LLC\n"
               "and >= 64 MiB, so weights come from memory; time per call is the median of every call.\n"
               "Prefill: median of up to 15 calls per matrix after a warm-up; calls are kept to 30-250 ms\n"
               "(a short call usually runs uninterrupted on a shared machine): a matrix whose full call\n"
               "would be longer runs on its first n' columns (a multiple of 64) and its time is scaled\n"
               "by n / n' (marked * in the table; n' in the JSON). The reference family runs fewer\n"
               "calls: decode on the full matrix, prefill as above. Limits, same thread count, median of\n"
               "201 runs of ~1 ms each:\n");
    qmm_cpu_desc cpu;
    qmm_cpu_describe(NULL, &cpu);
    const qmm_cpu_desc *ci = &cpu;
    for (const qmm_probe *const *p = qmm_probes(); *p; p++)
        fprintf(f, "  %-15s %-5s %s%s\n", (*p)->name,
                (*p)->kind == QMM_PROBE_READ   ? "read"
                : (*p)->kind == QMM_PROBE_INT8 ? "int8"
                                               : "fp32",
                (*p)->method, ((*p)->required & ~ci->features) ? " (not on this CPU)" : "");
    fprintf(f, "  Memory read: each run, every thread reads its own chunk of a buffer of max(256 MiB,\n"
               "  8 x LLC) (2 MiB aligned, huge pages asked, as packed weights), a different chunk each run,\n"
               "  so reads come from memory. The compute probes run enough independent chains that\n"
               "  latency is covered. Decode rows are\n"
               "  compared with the read bandwidth; prefill rows with the peak of the instruction their\n"
               "  family uses (chosen by the family's required CPU features).\n");
}

static int parse_type(const char *s, qmm_type *t) {
    for (int i = 0; i < QMM_TYPE_COUNT; i++) /* every packable type, by its name */
        if (qmm_type_packable((qmm_type)i) && qmm_type_name((qmm_type)i) && strcasecmp(s, qmm_type_name((qmm_type)i)) == 0) {
            *t = (qmm_type)i;
            return 1;
        }
    return 0;
}

static int is_packable(uint32_t t) { return t < QMM_TYPE_COUNT && qmm_type_packable((qmm_type)t); }

/* --model: the groups of identical (type, k, n) 2-D weights. */
static int model_groups(bench *b, qmm_gguf *g, matrix **out) {
    bench_report *r = b->rep;
    const int64_t nt = qmm_gguf_tensor_count(g);
    matrix *mats = calloc((size_t)(nt ? nt : 1), sizeof *mats);
    int nm = 0, n_1d = 0;
    for (int64_t i = 0; i < nt; i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        const int two_d = t->n_dims >= 2 && t->ne[2] == 1 && t->ne[3] == 1;
        if (!two_d) {
            if (t->n_dims <= 1)
                n_1d++;
            else if (r->n_skipped < 64)
                snprintf(r->skipped[r->n_skipped++], sizeof r->skipped[0], "%s: %u-D, not a weight matrix", t->name, t->n_dims);
            else
                r->skipped_more++;
            continue;
        }
        if (!is_packable(t->type) || !t->known_type) {
            if (r->n_skipped < 64) {
                const char *tn = t->type < QMM_TYPE_COUNT ? qmm_type_name((qmm_type)t->type) : NULL;
                if (tn)
                    snprintf(r->skipped[r->n_skipped++], sizeof r->skipped[0], "%s: %s: not supported yet", t->name, tn);
                else
                    snprintf(r->skipped[r->n_skipped++], sizeof r->skipped[0], "%s: type %u: unknown type", t->name, t->type);
            } else {
                r->skipped_more++;
            }
            continue;
        }
        /* the name's pattern, short: "blk.N.ffn_up.weight" -> "ffn_up" */
        char pat[96];
        snprintf(pat, sizeof pat, "%s", t->name);
        char *bs = strstr(pat, "blk.");
        if (bs) {
            char *e = bs + 4;
            while (*e >= '0' && *e <= '9')
                e++;
            if (e > bs + 4 && *e == '.')
                memmove(bs, e + 1, strlen(e + 1) + 1);
        }
        const size_t pl = strlen(pat);
        if (pl > 7 && strcmp(pat + pl - 7, ".weight") == 0)
            pat[pl - 7] = 0;
        /* the token embedding is its own group (it is read by GET_ROWS) */
        const int embd = strstr(t->name, "token_embd") != NULL;
        int gi = -1;
        for (int j = 0; j < nm; j++)
            if (mats[j].type == (qmm_type)t->type && mats[j].k == t->ne[0] && mats[j].n == t->ne[1] &&
                (strstr(mats[j].name, "token_embd") != NULL) == embd)
                gi = j;
        if (gi < 0) {
            gi = nm++;
            matrix *mx = &mats[gi];
            mx->type = (qmm_type)t->type;
            mx->k = t->ne[0];
            mx->n = t->ne[1];
            mx->row_bytes = qmm_row_size(mx->type, mx->k);
            mx->members = calloc((size_t)nt, sizeof *mx->members);
            snprintf(mx->name, sizeof mx->name, "%s", pat);
        } else if (!strstr(mats[gi].name, pat)) {
            /* identical shapes of other names join the group: list them */
            const size_t l = strlen(mats[gi].name);
            snprintf(mats[gi].name + l, sizeof mats[gi].name - l, "+%s", pat);
        }
        mats[gi].members[mats[gi].n_members++] = t->data;
        mats[gi].count++;
    }
    if (n_1d && r->n_skipped < 64)
        snprintf(r->skipped[r->n_skipped++], sizeof r->skipped[0], "%d 1-D tensors (norms, biases): not weight matrices", n_1d);
    *out = mats;
    return nm;
}

int cmd_bench(int argc, char **argv) {
    const preset *pr = &presets[1];
    qmm_type type = QMM_TYPE_Q4_0;
    int64_t m_pre = 512;
    int threads = 0, run_ref = 1;
    const char *json = NULL, *plot = NULL, *model = NULL, *kernel = NULL;
    double tscale = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-ref")) {
            run_ref = 0;
        } else if (v && !strcmp(a, "--preset")) {
            pr = NULL;
            for (int p = 0; p < N_PRESETS; p++)
                if (!strcasecmp(v, presets[p].name))
                    pr = &presets[p];
            if (!pr) {
                fprintf(stderr, "qmatmul bench: unknown preset '%s' (llama-3.2-1b, llama-3-8b, qwen2.5-7b)\n", v);
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--type")) {
            if (!parse_type(v, &type)) {
                fprintf(stderr, "qmatmul bench: --type takes Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, F16 or F32\n");
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--m")) {
            long long mv;
            if (qmm_arg_int("bench", a, v, 2, 65536, &mv))
                return 2;
            m_pre = mv;
            i++;
        } else if (v && !strcmp(a, "--threads")) {
            long long tv;
            if (qmm_arg_int("bench", a, v, 0, 4096, &tv))
                return 2;
            threads = (int)tv;
            i++;
        } else if (v && !strcmp(a, "--json")) {
            json = argv[++i];
        } else if (v && !strcmp(a, "--plot")) {
            plot = argv[++i];
        } else if (v && !strcmp(a, "--model")) {
            model = argv[++i];
        } else if (v && !strcmp(a, "--kernel")) {
            kernel = argv[++i];
        } else if (v && !strcmp(a, "--time")) {
            if (qmm_arg_double("bench", a, v, 0, 100, &tscale))
                return 2;
            i++;
        } else {
            fprintf(stderr, "qmatmul bench: unknown option '%s' (qmatmul bench --help)\n", a);
            return 2;
        }
    }

    bench_report *rep = calloc(1, sizeof *rep);
    bench b;
    memset(&b, 0, sizeof b);
    b.rep = rep;
    b.m_pre = m_pre;
    b.run_ref = run_ref;
    b.budget_scale = tscale;
    b.seed = 0x5eed;
    b.probe_reps = (int)(201 * tscale) | 1;
    if (b.probe_reps > 255)
        b.probe_reps = 255;
    int rc = 1;
    qmm_status st;
    qmm_gguf *g = NULL;
    matrix *mats = NULL;
    void **srcs = NULL;
    int nm = 0;

    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    opts.n_threads = threads;
    opts.kernel = kernel;
    if ((st = qmm_context_create(&opts, &b.ctx))) {
        rc = die_status(st, "context");
        goto out;
    }
    b.nth = qmm_context_threads(b.ctx);

    /* the machine */
    qmm_cpu_desc cpu;
    qmm_cpu_describe(NULL, &cpu);
    const qmm_cpu_desc *ci = &cpu;
    rep->n_threads = b.nth;
    rep->llc_bytes = ci->llc_bytes > 0 ? (double)ci->llc_bytes : 32.0 * 1048576; /* unknown: assume a large LLC */
    rep->m_prefill = m_pre;
    snprintf(rep->machine, sizeof rep->machine, "%.63s (%.15s, %d cores available%s)", ci->model[0] ? ci->model : "unknown CPU",
             ci->arch, ci->n_cores, ci->numa_nodes > 1 ? ", NUMA" : "");
    for (int bit = 0; bit < 64; bit++) {
        const char *fn = qmm_cpu_feature_name(1ull << bit);
        if (fn && (ci->features >> bit) & 1) {
            size_t l = strlen(rep->features);
            snprintf(rep->features + l, sizeof rep->features - l, "%s%s", l ? " " : "", fn);
        }
    }
    if (qmm_context_describe(b.ctx, 1, rep->context_json, sizeof rep->context_json) != QMM_OK)
        rep->context_json[0] = 0;
    /* strip a trailing newline so the JSON nests cleanly */
    for (size_t l = strlen(rep->context_json); l > 0 && (rep->context_json[l - 1] == '\n' || rep->context_json[l - 1] == ' ');)
        rep->context_json[--l] = 0;

    /* the matrices */
    if (model) {
        if ((st = qmm_gguf_open(model, &g))) {
            rc = die_status(st, model);
            goto out;
        }
        nm = model_groups(&b, g, &mats);
        snprintf(rep->model_path, sizeof rep->model_path, "%s", model);
        rep->file_bytes = (double)qmm_gguf_file_size(g);
        const qmm_gguf_value *name = qmm_gguf_get(g, "general.name");
        const char *s = NULL;
        uint64_t len = 0;
        if (name && qmm_gguf_value_str(name, &s, &len))
            snprintf(rep->title, sizeof rep->title, "%.*s (%s), %d threads", (int)(len > 80 ? 80 : len), s, model, b.nth);
        else
            snprintf(rep->title, sizeof rep->title, "%s, %d threads", model, b.nth);
        rep->n_layers = 1;
        rep->type_name = "mixed";
        if (nm == 0) {
            bench_print_table(stdout, rep);
            fprintf(stderr, "qmatmul bench: %s has no 2-D weights of a packable type\n", model);
            goto out;
        }
    } else {
        const int64_t q = pr->heads * pr->head_dim, kv = pr->kv_heads * pr->head_dim;
        const struct {
            const char *name;
            int64_t k, n;
        } defs[7] = {{"q", pr->hidden, q},         {"k", pr->hidden, kv},         {"v", pr->hidden, kv},
                     {"o", q, pr->hidden},         {"gate", pr->hidden, pr->ffn}, {"up", pr->hidden, pr->ffn},
                     {"down", pr->ffn, pr->hidden}};
        nm = 7;
        mats = calloc(7, sizeof *mats);
        for (int j = 0; j < 7; j++) {
            snprintf(mats[j].name, sizeof mats[j].name, "%s", defs[j].name);
            mats[j].k = defs[j].k;
            mats[j].n = defs[j].n;
            mats[j].count = 1;
            mats[j].type = type;
            mats[j].row_bytes = qmm_row_size(type, defs[j].k);
        }
        rep->n_layers = pr->layers;
        rep->type_name = qmm_type_name(type);
        snprintf(rep->title, sizeof rep->title, "%s, one layer (x %d), %s weights, %d threads", pr->title, pr->layers,
                 qmm_type_name(type), b.nth);
    }

    /* reference context: the portable family of each type forced */
    if (run_ref) {
        qmm_options ro = opts;
        ro.kernel = NULL;
        char list[512] = "";
        for (int i = 0; i < QMM_TYPE_COUNT; i++) {
            qmm_family_desc rk;
            if (qmm_type_packable((qmm_type)i) && qmm_family_info(qmm_family_reference((qmm_type)i), &rk) == QMM_OK) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? "," : "", rk.name);
            }
        }
        ro.kernel = list;
        if ((st = qmm_context_create(&ro, &b.ref_ctx))) {
            rc = die_status(st, "reference context");
            goto out;
        }
    }

    /* activations: random, the largest k x m and n x m */
    int64_t maxk = 0, maxn = 0;
    for (int j = 0; j < nm; j++) {
        maxk = mats[j].k > maxk ? mats[j].k : maxk;
        maxn = mats[j].n > maxn ? mats[j].n : maxn;
    }
    b.x_elems = (size_t)maxk * (size_t)m_pre;
    b.y_elems = (size_t)maxn * (size_t)m_pre;
    if (posix_memalign((void **)&b.x, 64, b.x_elems * 4) || posix_memalign((void **)&b.y, 64, b.y_elems * 4)) {
        rc = die_status(QMM_ERR_NO_MEMORY, "activations");
        goto out;
    }
    for (size_t i = 0; i < b.x_elems; i++)
        b.x[i] = rngf(&b.seed);
    memset(b.y, 0, b.y_elems * 4);

    /* limits first: the machine is quiet then */
    {
        const qmm_probe_result *p;
        if ((p = probe_get(&b, qmm_probe_best(QMM_PROBE_READ, ci->features))))
            rep->read = *p;
        if ((p = probe_get(&b, qmm_probe_best(QMM_PROBE_INT8, ci->features))))
            rep->int8 = *p;
        if ((p = probe_get(&b, qmm_probe_best(QMM_PROBE_FMA, ci->features))))
            rep->fma = *p;
    }

    /* random sources (presets) */
    srcs = calloc((size_t)nm, sizeof *srcs);
    if (!model)
        for (int j = 0; j < nm; j++) {
            progress("generating random %s weights: %s", qmm_type_name(type), mats[j].name);
            size_t sz;
            srcs[j] = make_source(type, mats[j].k, mats[j].n, &b.seed, &sz);
            if (!srcs[j]) {
                rc = die_status(QMM_ERR_NO_MEMORY, "weights");
                goto out;
            }
        }

    /* --model: pack every tensor once, for the pack time and size */
    if (model) {
        double t_pack = 0, packed = 0;
        int np = 0;
        for (int j = 0; j < nm && st == QMM_OK; j++)
            for (int i = 0; i < mats[j].n_members && st == QMM_OK; i++) {
                progress("packing the model: %s (%d of %d)", mats[j].name, i + 1, mats[j].n_members);
                qmm_weights *w = NULL;
                const double t0 = qmm_bench_now();
                st = qmm_weights_pack(b.ctx, mats[j].type, mats[j].k, mats[j].n, mats[j].members[i],
                                      mats[j].row_bytes * (size_t)mats[j].n, &w);
                t_pack += qmm_bench_now() - t0;
                if (st == QMM_OK) {
                    size_t sz;
                    qmm_weights_blob(w, &sz);
                    packed += (double)sz;
                    np++;
                }
                qmm_weights_free(w);
            }
        if (st) {
            rc = die_status(st, "packing");
            goto out;
        }
        rep->pack_total_s = t_pack;
        rep->packed_bytes = packed;
        rep->n_packed_tensors = np;
    }

    bench_row *dec = calloc((size_t)nm, sizeof *dec), *pre = calloc((size_t)nm, sizeof *pre);
    for (int j = 0; j < nm; j++) {
        for (int ph = 0; ph < 2; ph++) {
            bench_row *w = ph ? &pre[j] : &dec[j];
            snprintf(w->name, sizeof w->name, "%s", mats[j].name);
            w->count = mats[j].count;
            w->phase = ph;
            w->type = mats[j].type;
            w->m = ph ? m_pre : 1;
            w->n = mats[j].n;
            w->k = mats[j].k;
        }
    }
    st = bench_decode(&b, mats, nm, dec, srcs);
    if (st == QMM_OK)
        st = bench_prefill_and_ref(&b, mats, nm, dec, pre, srcs);
    if (st) {
        free(dec);
        free(pre);
        rc = die_status(st, "benchmark");
        goto out;
    }
    progress("probing the limits of the kernels that ran");
    for (int j = 0; j < nm; j++) {
        set_limit(&b, &dec[j]);
        set_limit(&b, &pre[j]);
    }
    /* portable probes, to read the reference rows against */
    if (run_ref) {
        const qmm_probe_result *p;
        if ((p = probe_get(&b, qmm_probe_best(QMM_PROBE_INT8, 0))))
            rep->ref_int8 = *p;
        if ((p = probe_get(&b, qmm_probe_best(QMM_PROBE_FMA, 0))))
            rep->ref_fma = *p;
        rep->have_ref_probes = 1;
    }
    progress_done();

    /* rows: decode then prefill; totals */
    double dec_s = 0, pre_s = 0;
    for (int j = 0; j < nm && rep->n_rows < 510; j++) {
        rep->rows[rep->n_rows++] = dec[j];
        /* --model: the token embedding is read by GET_ROWS, not multiplied,
         * unless it is also the output (tied) */
        const int is_embd = model && strstr(mats[j].name, "token_embd") && qmm_gguf_find_tensor(g, "output.weight") >= 0;
        if (is_embd)
            rep->rows[rep->n_rows - 1].count = -rep->rows[rep->n_rows - 1].count; /* shown, not counted */
        if (!is_embd)
            dec_s += dec[j].t.median * mats[j].count;
    }
    for (int j = 0; j < nm && rep->n_rows < 510; j++) {
        rep->rows[rep->n_rows++] = pre[j];
        const int is_embd = model && strstr(mats[j].name, "token_embd") && qmm_gguf_find_tensor(g, "output.weight") >= 0;
        if (is_embd)
            rep->rows[rep->n_rows - 1].count = -rep->rows[rep->n_rows - 1].count;
        if (!is_embd)
            pre_s += pre[j].t.median * mats[j].count;
    }
    free(dec);
    free(pre);
    rep->decode_s = dec_s * rep->n_layers;
    rep->prefill_s = pre_s * rep->n_layers;
    rep->tok_s_decode = rep->decode_s > 0 ? 1.0 / rep->decode_s : 0;
    rep->tok_s_prefill = rep->prefill_s > 0 ? (double)m_pre / rep->prefill_s : 0;

    char b1[32];
    snprintf(b1, sizeof b1, "%.0f MiB", rep->decode_rotation_bytes / 1048576.0);
    note(&b, "decode: calls rotate through %d cop%s of the packed weights (%s, LLC %.0f MiB); rate = packed weight bytes / time",
         rep->decode_copies, rep->decode_copies == 1 ? "y" : "ies", b1, rep->llc_bytes / 1048576.0);
    note(&b, "tokens/s count the weight matmuls only (no attention, norms%s)", model ? "" : ", embeddings or output head");
    if (run_ref)
        note(&b, "vs ref: the portable reference family on the same shape, fewer calls; * = timed on the first n' columns and "
                 "scaled by n/n'");
    {
        double load = 0;
        FILE *lf = fopen("/proc/loadavg", "r");
        if (lf) {
            if (fscanf(lf, "%lf", &load) != 1)
                load = 0;
            fclose(lf);
        }
        if (load > 0.5 * ci->n_cores + 0.5)
            note(&b, "the machine was busy (1-minute load average %.1f on %d cores): figures are noisy", load, ci->n_cores);
    }
    if (model && qmm_gguf_find_tensor(g, "token_embd.weight") >= 0 && qmm_gguf_find_tensor(g, "output.weight") >= 0)
        note(&b,
             "token_embd (count in parentheses) is read by GET_ROWS, not multiplied: left out of tokens/s while output.weight "
             "exists");
    if (model)
        note(&b, "--model: a row is a group of tensors of one type and shape (names without blk.N. and .weight); decode "
                 "rotates through sets of one tensor per group, distinct tensors of the group where it has them");
    rc = 0;

    bench_print_table(stdout, rep);
    if (json && bench_write_json(json, rep) != 0) {
        fprintf(stderr, "qmatmul bench: cannot write %s\n", json);
        rc = 1;
    }
    if (plot && bench_write_svg(plot, rep) != 0) {
        fprintf(stderr, "qmatmul bench: cannot write %s\n", plot);
        rc = 1;
    }

out:
    if (srcs)
        for (int j = 0; j < nm; j++)
            free(srcs[j]);
    free(srcs);
    if (mats)
        for (int j = 0; j < nm; j++)
            free(mats[j].members);
    free(mats);
    qmm_gguf_close(g);
    free(b.x);
    free(b.y);
    qmm_context_free(b.ref_ctx);
    qmm_context_free(b.ctx);
    free(rep);
    return rc;
}
