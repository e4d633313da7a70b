/* qmatmul bench: what this CPU gets from qmatmul, with which kernels, and
 * how close that is to what the machine can do.
 *
 * Runs the matmuls of one transformer layer of a model preset (or every
 * packable 2-D weight of a GGUF file), decode (m = 1) and prefill (m = 512),
 * next to this machine's measured limits (bench/probe.h), and the portable
 * reference family for the speed-up. Results on stdout; progress on stderr.
 * This file parses the options and runs the steps (bench_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bench_internal.h"
#include "commands.h"
#include "progress.h"

typedef struct bench_opts {
    const bench_preset *preset;
    const bench_moe_preset *moe; /* a MoE preset instead (bench_moe.c) */
    qmm_type type;
    int type_given;
    int64_t m_pre;
    int threads, run_ref, quiet, probes_only;
    int attn; /* --attn: the qmm_mul_mat_f16 attention table (bench_attn.c) */
    int64_t attn_rows[16];
    int n_attn_rows;
    const char *json, *plot, *model, *kernel;
    double tscale;
    long long llc; /* --llc: the LLC size the rotations are sized by (0: detected) */
} bench_opts;

/* Returns -1 to go on, else the exit code (help: 0, bad option: 2). */
static int parse_options(int argc, char **argv, bench_opts *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long iv;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            bench_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-ref")) {
            o->run_ref = 0;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--probes")) {
            o->probes_only = 1;
        } else if (!strcmp(a, "--attn")) {
            o->attn = 1;
        } else if (v && !strcmp(a, "--attn-rows")) {
            if ((o->n_attn_rows = bench_attn_parse_rows(v, o->attn_rows, 16)) <= 0) {
                fprintf(stderr, "qmatmul bench: --attn-rows takes a list of 1..4096, e.g. 1,64,512\n");
                return 2;
            }
            o->attn = 1;
            i++;
        } else if (v && !strcmp(a, "--preset")) {
            o->moe = bench_moe_preset_find(v);
            if (!(o->preset = bench_preset_find(v)) && !o->moe) {
                fprintf(stderr,
                        "qmatmul bench: unknown preset '%s' (llama-3.2-1b, llama-3-8b, qwen2.5-7b, gpt-oss-20b-moe, "
                        "qwen3-30b-a3b-moe)\n",
                        v);
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--type")) {
            if (!bench_parse_type(v, &o->type)) {
                fprintf(stderr, "qmatmul bench: --type takes Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, "
                                "IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, TQ1_0, TQ2_0, BF16, F16 or F32\n");
                return 2;
            }
            o->type_given = 1;
            i++;
        } else if (v && !strcmp(a, "--m")) {
            if (qmm_arg_int("bench", a, v, 2, 65536, &iv))
                return 2;
            o->m_pre = iv;
            i++;
        } else if (v && !strcmp(a, "--threads")) {
            if (qmm_arg_int("bench", a, v, 0, 4096, &iv))
                return 2;
            o->threads = (int)iv;
            i++;
        } else if (v && !strcmp(a, "--json")) {
            o->json = argv[++i];
        } else if (v && !strcmp(a, "--plot")) {
            o->plot = argv[++i];
        } else if (v && !strcmp(a, "--model")) {
            o->model = argv[++i];
        } else if (v && !strcmp(a, "--kernel")) {
            o->kernel = argv[++i];
        } else if (v && !strcmp(a, "--time")) {
            if (qmm_arg_double("bench", a, v, 0, 100, &o->tscale))
                return 2;
            i++;
        } else if (v && !strcmp(a, "--llc")) {
            if (qmm_arg_int("bench", a, v, 1, 1ll << 40, &o->llc))
                return 2;
            i++;
        } else {
            fprintf(stderr, "qmatmul bench: unknown option '%s' (qmatmul bench --help)\n", a);
            return 2;
        }
    }
    return -1;
}

static int die_status(qmm_status st, const char *what) {
    progress_done();
    fprintf(stderr, "qmatmul bench: %s: %s (%s)\n", what, qmm_status_str(st), qmm_last_error());
    return 1;
}

/* The reference context: the portable family of each type forced. */
static qmm_status make_ref_context(const qmm_options *opts, qmm_context **out) {
    qmm_options ro = *opts;
    char list[512] = "";
    for (int i = 0; i < QMM_TYPE_COUNT; i++) {
        qmm_family_desc rk;
        if (qmm_type_packable((qmm_type)i) && qmm_family_info(qmm_family_reference((qmm_type)i), &rk) == QMM_OK) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", l ? "," : "", rk.name);
        }
    }
    ro.kernel = list;
    return qmm_context_create(&ro, out);
}

/* Activations: random, the largest k x m and n x m. */
static qmm_status make_activations(bench *b, const bench_matrix *mats, int nm) {
    int64_t maxk = 0, maxn = 0;
    for (int j = 0; j < nm; j++) {
        maxk = mats[j].k > maxk ? mats[j].k : maxk;
        maxn = mats[j].n > maxn ? mats[j].n : maxn;
    }
    b->x_elems = (size_t)maxk * (size_t)b->m_pre;
    b->y_elems = (size_t)maxn * (size_t)b->m_pre;
    if (posix_memalign((void **)&b->x, 64, b->x_elems * 4) || posix_memalign((void **)&b->y, 64, b->y_elems * 4))
        return QMM_ERR_NO_MEMORY;
    for (size_t i = 0; i < b->x_elems; i++)
        b->x[i] = bench_rngf(&b->seed);
    memset(b->y, 0, b->y_elems * 4);
    return QMM_OK;
}

/* Random sources of the preset's matrices. */
static qmm_status make_sources(bench *b, const bench_matrix *mats, int nm, qmm_type type, void **srcs) {
    for (int j = 0; j < nm; j++) {
        progress_line("generating random %s weights: %s", qmm_type_name(type), mats[j].name);
        size_t sz;
        if (!(srcs[j] = bench_make_source(type, mats[j].k, mats[j].n, &b->seed, &sz)))
            return QMM_ERR_NO_MEMORY;
    }
    return QMM_OK;
}

static void init_rows(const bench_matrix *mats, int nm, int64_t m_pre, bench_row *dec, bench_row *pre) {
    for (int j = 0; j < nm; j++)
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

/* Rows into the report (decode, then prefill) and the totals. --model: the
 * token embedding is read by GET_ROWS, not multiplied, unless it is also the
 * output (tied): shown with its count negated, not counted. */
static void collect_rows(bench *b, const bench_matrix *mats, int nm, const bench_row *dec, const bench_row *pre, qmm_gguf *g) {
    bench_report *rep = b->rep;
    double sum[2] = {0, 0};
    for (int ph = 0; ph < 2; ph++)
        for (int j = 0; j < nm && rep->n_rows < 510; j++) {
            const bench_row *w = ph ? &pre[j] : &dec[j];
            rep->rows[rep->n_rows++] = *w;
            const int is_embd = g && strstr(mats[j].name, "token_embd") && qmm_gguf_find_tensor(g, "output.weight") >= 0;
            if (is_embd)
                rep->rows[rep->n_rows - 1].count = -rep->rows[rep->n_rows - 1].count;
            else
                sum[ph] += w->t.median * mats[j].count;
        }
    rep->decode_s = sum[0] * rep->n_layers;
    rep->prefill_s = sum[1] * rep->n_layers;
    rep->tok_s_decode = rep->decode_s > 0 ? 1.0 / rep->decode_s : 0;
    rep->tok_s_prefill = rep->prefill_s > 0 ? (double)b->m_pre / rep->prefill_s : 0;
}

static void add_notes(bench *b, const qmm_cpu_desc *ci, qmm_gguf *g) {
    const bench_report *rep = b->rep;
    char b1[32];
    snprintf(b1, sizeof b1, "%.0f MiB", rep->decode_rotation_bytes / 1048576.0);
    bench_note(
        b, "decode: calls rotate through %d cop%s of the packed weights (%s, LLC %.0f MiB); rate = packed weight bytes / time",
        rep->decode_copies, rep->decode_copies == 1 ? "y" : "ies", b1, rep->llc_bytes / 1048576.0);
    bench_note(b, "tokens/s count the weight matmuls only (no attention, norms%s)", g ? "" : ", embeddings or output head");
    if (b->run_ref)
        bench_note(b, "vs ref: the portable reference family on the same shape, fewer calls; * = timed on the first n' columns "
                      "and scaled by n/n'");
    const double load = bench_load_average();
    if (load > 0.5 * ci->n_cores + 0.5)
        bench_note(b, "the machine was busy (1-minute load average %.1f on %d cores): figures are noisy", load, ci->n_cores);
    if (g && qmm_gguf_find_tensor(g, "token_embd.weight") >= 0 && qmm_gguf_find_tensor(g, "output.weight") >= 0)
        bench_note(b, "token_embd (count in parentheses) is read by GET_ROWS, not multiplied: left out of tokens/s while "
                      "output.weight exists");
    if (g)
        bench_note(b, "--model: a row is a group of tensors of one type and shape (names without blk.N. and .weight); decode "
                      "rotates through sets of one tensor per group, distinct tensors of the group where it has them");
}

/* Decode, prefill, the reference; then every row's limit. */
static qmm_status run_rows(bench *b, bench_matrix *mats, int nm, void **srcs, qmm_gguf *g) {
    bench_row *dec = calloc((size_t)nm, sizeof *dec), *pre = calloc((size_t)nm, sizeof *pre);
    qmm_status st = dec && pre ? QMM_OK : QMM_ERR_NO_MEMORY;
    if (st == QMM_OK) {
        init_rows(mats, nm, b->m_pre, dec, pre);
        st = bench_decode(b, mats, nm, dec, srcs);
    }
    if (st == QMM_OK)
        st = bench_prefill(b, mats, nm, dec, pre, srcs);
    if (st == QMM_OK && b->run_ref)
        st = bench_reference(b, mats, nm, dec, pre, srcs);
    if (st == QMM_OK) {
        progress_line("probing the limits of the kernels that ran");
        for (int j = 0; j < nm; j++) { /* every probe the rows need, run once */
            bench_set_limit(b, &dec[j]);
            bench_set_limit(b, &pre[j]);
        }
        bench_refresh_limits(b);
        for (int j = 0; j < nm; j++) {
            bench_set_limit(b, &dec[j]);
            bench_set_limit(b, &pre[j]);
        }
        if (b->run_ref)
            bench_measure_reference_limits(b);
        progress_done();
        collect_rows(b, mats, nm, dec, pre, g);
    }
    free(dec);
    free(pre);
    return st;
}

static int write_outputs(const bench_opts *o, const bench_report *rep) {
    int rc = 0;
    bench_print_table(stdout, rep);
    if (o->json && bench_write_json(o->json, rep) != 0) {
        fprintf(stderr, "qmatmul bench: cannot write %s\n", o->json);
        rc = 1;
    }
    if (o->plot && bench_write_svg(o->plot, rep) != 0) {
        fprintf(stderr, "qmatmul bench: cannot write %s\n", o->plot);
        rc = 1;
    }
    return rc;
}

/* The matrices: the GGUF file's groups, or the preset's layer. Returns -1
 * to go on, else the exit code. */
static int load_matrices(bench *b, const bench_opts *o, qmm_gguf **g, bench_matrix **mats, int *nm) {
    bench_report *rep = b->rep;
    if (!o->model) {
        const bench_preset *pr = o->preset;
        if (!(*mats = bench_preset_matrices(pr, o->type, nm)))
            return die_status(QMM_ERR_NO_MEMORY, "matrices");
        rep->n_layers = pr->layers;
        rep->type_name = qmm_type_name(o->type);
        snprintf(rep->title, sizeof rep->title, "%s, one layer (x %d), %s weights, %d threads", pr->title, pr->layers,
                 qmm_type_name(o->type), b->nth);
        return -1;
    }
    qmm_status st = qmm_gguf_open(o->model, g);
    if (st)
        return die_status(st, o->model);
    *nm = bench_model_groups(b, *g, mats);
    if (!*mats)
        return die_status(QMM_ERR_NO_MEMORY, "matrices");
    bench_model_title(b, *g, o->model);
    if (*nm == 0 && bench_moe_model_count(*g) == 0) {
        bench_print_table(stdout, rep);
        fprintf(stderr, "qmatmul bench: %s has no 2-D weights of a packable type\n", o->model);
        return 1;
    }
    return -1;
}

/* Everything after the contexts: returns the exit code. */
static int run_bench(bench *b, const bench_opts *o, const qmm_options *opts, qmm_gguf **g, bench_matrix **mats, int *nm,
                     void ***srcs) {
    qmm_cpu_desc ci;
    qmm_cpu_describe(NULL, &ci);
    if (o->llc) /* --llc: rotations sized as on a machine with this LLC (smoke tests under emulation) */
        ci.llc_bytes = (size_t)o->llc;
    bench_describe_machine(b, &ci);
    if (o->probes_only)
        return bench_print_probes(b, ci.features, stdout);
    if (o->attn)
        return bench_attn(b, o->preset, o->attn_rows, o->n_attn_rows, ci.features, o->json);
    qmm_status st;
    if (o->moe && !o->model) { /* a MoE preset: bench_moe.c */
        bench_measure_machine_limits(b, ci.features);
        if ((st = bench_moe_preset_run(b, o->moe, o->type_given, o->type)))
            return die_status(st, "MoE benchmark");
        add_notes(b, &ci, NULL);
        return write_outputs(o, b->rep);
    }
    int rc = load_matrices(b, o, g, mats, nm);
    if (rc >= 0)
        return rc;
    if (o->run_ref && (st = make_ref_context(opts, &b->ref_ctx)))
        return die_status(st, "reference context");
    if ((st = make_activations(b, *mats, *nm)))
        return die_status(st, "activations");
    bench_measure_machine_limits(b, ci.features); /* first: the machine is quiet then */
    if (!(*srcs = calloc((size_t)*nm, sizeof **srcs)))
        return die_status(QMM_ERR_NO_MEMORY, "weights");
    if (!o->model && (st = make_sources(b, *mats, *nm, o->type, *srcs)))
        return die_status(st, "weights");
    if (o->model && (st = bench_model_pack_all(b, *mats, *nm)))
        return die_status(st, "packing");
    if (*nm > 0 && (st = run_rows(b, *mats, *nm, *srcs, *g)))
        return die_status(st, "benchmark");
    if (o->model && (st = bench_moe_model_run(b, *g))) /* the experts tensors */
        return die_status(st, "MoE benchmark");
    add_notes(b, &ci, *g);
    return write_outputs(o, b->rep);
}

int cmd_bench(int argc, char **argv) {
    bench_opts o = {.preset = bench_preset_default(),
                    .type = QMM_TYPE_Q4_0,
                    .m_pre = 512,
                    .run_ref = 1,
                    .tscale = 1.0,
                    .attn_rows = {1, 64, 512, 2048, 4096},
                    .n_attn_rows = 5};
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.probes_only && o.json) {
        /* the probes print a table only: a --json that wrote nothing would look like a run that failed to save */
        fprintf(stderr, "qmatmul bench: --probes prints its table only; --json takes the full benchmark (the limits are "
                        "in its \"limits\")\n");
        return 2;
    }
    progress_init(o.quiet);
    bench b;
    memset(&b, 0, sizeof b);
    b.rep = calloc(1, sizeof *b.rep);
    if (!b.rep)
        return die_status(QMM_ERR_NO_MEMORY, "report");
    b.m_pre = o.m_pre;
    b.run_ref = o.run_ref;
    b.budget_scale = o.tscale;
    b.seed = 0x5eed;
    b.probe_reps = (int)(201 * o.tscale) | 1;
    if (b.probe_reps < 61) /* ~1 ms each: enough for a best run on a shared machine */
        b.probe_reps = 61;
    if (b.probe_reps > 255)
        b.probe_reps = 255;
    qmm_gguf *g = NULL;
    bench_matrix *mats = NULL;
    void **srcs = NULL;
    int nm = 0;
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    opts.n_threads = o.threads;
    opts.kernel = o.kernel;
    qmm_status st = qmm_context_create(&opts, &b.ctx);
    if (st) {
        rc = die_status(st, "context");
    } else {
        b.nth = qmm_context_threads(b.ctx);
        rc = run_bench(&b, &o, &opts, &g, &mats, &nm, &srcs);
    }
    for (int j = 0; srcs && j < nm; j++)
        free(srcs[j]);
    free(srcs);
    for (int j = 0; mats && j < nm; j++)
        free(mats[j].members);
    free(mats);
    qmm_gguf_close(g);
    free(b.x);
    free(b.y);
    qmm_context_free(b.ref_ctx);
    qmm_context_free(b.ctx);
    free(b.rep);
    return rc;
}
