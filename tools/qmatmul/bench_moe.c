/* qmatmul bench: mixture-of-experts rows, through qmm_mul_mat_id.
 *
 * --preset gpt-oss-20b-moe / qwen3-30b-a3b-moe: the expert FFN of one layer
 * (random weights of the preset's type, or --type), and --model: every
 * experts tensor of the file (blk.N.ffn_{gate,up,down}_exps, grouped by type
 * and shape as the 2-D weights are). Per matrix:
 * - decode: one token, uniform routing; the chosen experts cold: calls go in
 *   rounds of n_expert / n_used tokens that choose every expert once, each
 *   round on every copy of the packed experts in turn (--model: distinct
 *   tensors of the group where it has them), with copies = ceil(max(256 MiB,
 *   8 x LLC) / packed bytes) + 1, so between two reads of an expert of a copy
 *   at least the rotation of the MUL_MAT rows has been read; a warm-up pass,
 *   then passes (8 s x --time in all, at most 400 calls). Rate: GB/s of the
 *   chosen experts' packed bytes. Skewed routing changes nothing here: one
 *   token picks n_used distinct experts whatever the skew, and the rotation
 *   removes any cache reuse by design; so decode runs uniform only.
 * - prefill: --m tokens (512), uniform and Zipf-skewed routing (the expert of
 *   rank r, under a fixed random relabelling, drawn with weight 1 / (r + 1):
 *   a few experts get most tokens, the rest few or none); a warm-up call then
 *   up to 15 calls in 3 s x --time (at least 3). Rate: GFLOP/s of 2 k n (rows
 *   routed), against the int8 (or FMA) limit of the kernel's family.
 * gate and up (x: one row per token, shared by its experts) share one row
 * counted twice; down has one x row per chosen expert. A row's m is the rows
 * routed (tokens x n_used); its name "MATRIX ROUTING used/n_expert". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "progress.h"

struct bench_moe_preset {
    const char *name, *title;
    qmm_type type;
    int64_t n_expert, n_used, hidden, ffn; /* gate/up: k = hidden, n = ffn; down: k = ffn, n = hidden */
    int layers;
};

static const bench_moe_preset moe_presets[] = {
    {"gpt-oss-20b-moe", "gpt-oss-20b experts", QMM_TYPE_MXFP4, 32, 4, 2880, 2880, 24},
    {"qwen3-30b-a3b-moe", "Qwen3-30B-A3B experts", QMM_TYPE_Q4_K, 128, 8, 2048, 768, 48},
};
#define N_MOE_PRESETS ((int)(sizeof moe_presets / sizeof moe_presets[0]))

const bench_moe_preset *bench_moe_preset_find(const char *name) {
    for (int p = 0; p < N_MOE_PRESETS; p++)
        if (!strcmp(name, moe_presets[p].name))
            return &moe_presets[p];
    return NULL;
}

/* One experts tensor shape to run. */
typedef struct moe_matrix {
    char name[96];
    qmm_type type;
    int64_t k, n, n_expert, n_used, x_rows; /* x_rows: 1 (shared) or n_used */
    int count;
    size_t bytes;         /* GGUF bytes of the tensor */
    const void **members; /* --model: the tensors of the group; preset: one random source */
    int n_members;
} moe_matrix;

/* ------------------------------------------------------------------ routing */

/* u distinct experts of ne for one token, uniform: a partial Fisher-Yates. */
static void route_uniform(int64_t ne, int64_t u, int32_t *out, int32_t *scratch, uint64_t *seed) {
    for (int64_t e = 0; e < ne; e++)
        scratch[e] = (int32_t)e;
    for (int64_t i = 0; i < u; i++) {
        const int64_t j = i + (int64_t)(bench_rng(seed) % (uint64_t)(ne - i));
        const int32_t t = scratch[i];
        scratch[i] = scratch[j];
        scratch[j] = t;
        out[i] = scratch[i];
    }
}

/* u distinct experts, rank r with weight 1 / (r + 1) (draws of a chosen rank
 * are drawn again), ranks mapped to experts by `label`. */
static void route_zipf(int64_t ne, int64_t u, int32_t *out, const int32_t *label, uint64_t *seed) {
    double total = 0;
    for (int64_t r = 0; r < ne; r++)
        total += 1.0 / (double)(r + 1);
    for (int64_t i = 0; i < u; i++) {
        for (;;) {
            double x = (double)(bench_rng(seed) >> 11) * 0x1p-53 * total;
            int64_t r = 0;
            while (r < ne - 1 && (x -= 1.0 / (double)(r + 1)) > 0)
                r++;
            int dup = 0;
            for (int64_t j = 0; j < i; j++)
                dup |= out[j] == label[r];
            if (!dup) {
                out[i] = label[r];
                break;
            }
        }
    }
}

/* ------------------------------------------------------------------- calls */

typedef struct moe_run {
    bench *b;
    const moe_matrix *mx;
    qmm_weights **w; /* packed copies */
    int copies;
    float *x, *y; /* x [k, x_rows, tokens], y [n, n_used, tokens] */
    int32_t *ids; /* [n_used, tokens] */
} moe_run;

static qmm_status call(moe_run *r, int copy, int64_t token, int64_t ntok, double *secs) {
    const moe_matrix *mx = r->mx;
    qmm_tensor x, ids, y;
    qmm_status st = qmm_tensor_init(&x, QMM_TYPE_F32, 3, (int64_t[]){mx->k, mx->x_rows, ntok}, r->x + token * mx->k * mx->x_rows);
    if (st == QMM_OK)
        st = qmm_tensor_init(&ids, QMM_TYPE_I32, 2, (int64_t[]){mx->n_used, ntok}, r->ids + token * mx->n_used);
    if (st == QMM_OK)
        st = qmm_tensor_init(&y, QMM_TYPE_F32, 3, (int64_t[]){mx->n, mx->n_used, ntok}, r->y);
    const double t0 = qmm_bench_now();
    if (st == QMM_OK)
        st = qmm_mul_mat_id(r->b->ctx, r->w[copy], &x, &ids, &y);
    *secs = qmm_bench_now() - t0;
    return st;
}

static qmm_status pack_copies(moe_run *r, int copies, double *pack_s) {
    const moe_matrix *mx = r->mx;
    r->w = calloc((size_t)copies, sizeof *r->w);
    if (!r->w)
        return QMM_ERR_NO_MEMORY;
    r->copies = copies;
    qmm_status st = QMM_OK;
    for (int c = 0; c < copies && st == QMM_OK; c++) {
        progress_line("packing experts: %s, copy %d of %d", mx->name, c + 1, copies);
        const double t0 = qmm_bench_now();
        st = qmm_experts_pack(r->b->ctx, mx->type, mx->k, mx->n, mx->n_expert, mx->members[c % mx->n_members], mx->bytes,
                              &r->w[c]);
        if (c == 0 && pack_s)
            *pack_s = qmm_bench_now() - t0;
    }
    return st;
}

static void free_run(moe_run *r) {
    for (int c = 0; r->w && c < r->copies; c++)
        qmm_weights_free(r->w[c]);
    free(r->w);
    free(r->x);
    free(r->y);
    free(r->ids);
    memset(r, 0, sizeof *r);
}

/* Inputs for `tokens` tokens: random x, y, and ids (0: rounds, 1: uniform, 2: zipf). */
static qmm_status make_inputs(moe_run *r, int64_t tokens, int routing) {
    const moe_matrix *mx = r->mx;
    bench *b = r->b;
    const size_t nx = (size_t)(mx->k * mx->x_rows * tokens), ny = (size_t)(mx->n * mx->n_used * tokens);
    r->x = malloc(nx * sizeof *r->x);
    r->y = malloc(ny * sizeof *r->y);
    r->ids = malloc(sizeof *r->ids * (size_t)(mx->n_used * tokens));
    int32_t *scratch = malloc(sizeof *scratch * (size_t)mx->n_expert * 2), *perm = scratch + mx->n_expert;
    if (!r->x || !r->y || !r->ids || !scratch) {
        free(scratch);
        return QMM_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < nx; i++)
        r->x[i] = bench_rngf(&b->seed);
    memset(r->y, 0, ny * sizeof *r->y);
    const int64_t u = mx->n_used, group = mx->n_expert / u;
    if (routing == 0) { /* rounds: a permutation of the experts cut into groups of u */
        for (int64_t t0 = 0; t0 < tokens; t0 += group) {
            route_uniform(mx->n_expert, mx->n_expert, perm, scratch, &b->seed);
            for (int64_t j = 0; j < group && t0 + j < tokens; j++)
                memcpy(r->ids + (t0 + j) * u, perm + j * u, sizeof *perm * (size_t)u);
        }
    } else if (routing == 1) {
        for (int64_t t = 0; t < tokens; t++)
            route_uniform(mx->n_expert, u, r->ids + t * u, scratch, &b->seed);
    } else {
        route_uniform(mx->n_expert, mx->n_expert, perm, scratch, &b->seed); /* perm: rank -> expert */
        for (int64_t t = 0; t < tokens; t++)
            route_zipf(mx->n_expert, u, r->ids + t * u, perm, &b->seed);
    }
    free(scratch);
    return QMM_OK;
}

static void init_row(bench_row *w, const moe_matrix *mx, int phase, const char *routing, int64_t tokens) {
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%.56s %s %lld/%lld", mx->name, routing, (long long)mx->n_used, (long long)mx->n_expert);
    w->count = mx->count;
    w->phase = phase;
    w->type = mx->type;
    w->m = tokens * mx->n_used;
    w->n = w->n_measured = mx->n;
    w->k = mx->k;
}

/* Packed bytes of one expert: the tensor's blob over n_expert (the header is
 * a rounding error). */
static double expert_bytes(const qmm_weights *w, int64_t n_expert) {
    size_t sz = 0;
    qmm_weights_blob(w, &sz);
    return (double)sz / (double)n_expert;
}

/* One decode call of token `token` on copy c, then its paired read
 * (bench_paired_read): `chosen` bytes (its experts') of the copy half a
 * rotation ahead, cold, part `part` of it (a group's calls read that copy's
 * consecutive parts); *share: the call's rate over the read's (0: none). */
static qmm_status decode_call_paired(moe_run *r, int c, int64_t token, int64_t part, size_t chosen, double *secs, double *share) {
    qmm_status st = call(r, c, token, 1, secs);
    const double read =
        st == QMM_OK ? bench_paired_read(r->b, r->w[(c + r->copies / 2) % r->copies], (size_t)part * chosen, chosen) : 0;
    *share = read > 0 && *secs > 0 ? (double)chosen / *secs * 1e-9 / read : 0;
    return st;
}

static qmm_status decode_row(bench *b, const moe_matrix *mx, bench_row *w) {
    moe_run r = {.b = b, .mx = mx};
    const double target = bench_rotation_bytes(b);
    int copies = (int)ceil(target / (double)mx->bytes) + 1;
    copies = copies > 64 ? 64 : copies;
    const int64_t group = mx->n_expert / mx->n_used > 0 ? mx->n_expert / mx->n_used : 1, rounds = 4, tokens = rounds * group;
    init_row(w, mx, PHASE_DECODE, "uniform", 1);
    qmm_status st = make_inputs(&r, tokens, mx->n_expert % mx->n_used == 0 ? 0 : 1);
    if (st == QMM_OK)
        st = pack_copies(&r, copies, &w->pack_s);
    const size_t chosen = st == QMM_OK ? (size_t)(expert_bytes(r.w[0], mx->n_expert) * (double)mx->n_used) : 0;
    const int64_t per_pass = rounds * copies * group;
    double t, share;
    const double t0 = qmm_bench_now();
    for (int64_t q = 0; q < rounds && st == QMM_OK; q++) /* the warm-up pass */
        for (int c = 0; c < copies && st == QMM_OK; c++)
            for (int64_t j = 0; j < group && st == QMM_OK; j++)
                st = decode_call_paired(&r, c, q * group + j, j, chosen, &t, &share);
    const double pass = qmm_bench_now() - t0;
    int64_t reps = pass > 0 ? (int64_t)(8.0 * b->budget_scale / pass) : 10;
    reps = reps * per_pass > 400 ? 400 / per_pass : reps;
    reps = reps < 3 ? 3 : reps;
    const size_t n_max = (size_t)(reps * per_pass);
    double *s = st == QMM_OK ? malloc(sizeof(double) * n_max) : NULL, *shares = s ? malloc(sizeof(double) * n_max) : NULL;
    if (st == QMM_OK && !shares)
        st = QMM_ERR_NO_MEMORY;
    int ns = 0;
    double sampled = 0; /* a round before the first pass, one after the last */
    for (int64_t p = 0; p < reps && st == QMM_OK; p++) {
        bench_sample_read_limit_every(b, &sampled); /* the read limit through the passes */
        progress_line("MoE decode: %s, pass %lld of %lld over %d copies", mx->name, (long long)p + 1, (long long)reps, copies);
        for (int64_t q = 0; q < rounds && st == QMM_OK; q++)
            for (int c = 0; c < copies && st == QMM_OK; c++)
                for (int64_t j = 0; j < group && st == QMM_OK; j++, ns++)
                    st = decode_call_paired(&r, c, q * group + j, j, chosen, &s[ns], &shares[ns]);
    }
    if (st == QMM_OK)
        bench_sample_read_limit(b);
    if (st == QMM_OK) {
        bench_stat_from(&w->t, s, ns);
        snprintf(w->kernel, sizeof w->kernel, "%s", qmm_weights_kernel(r.w[0]));
        w->weight_bytes = (double)chosen; /* the chosen experts */
        w->flops = 2.0 * (double)w->m * (double)w->n * (double)w->k;
        w->rate = w->weight_bytes / w->t.median * 1e-9;
        bench_stat paired;
        bench_stat_from(&paired, shares, ns);
        w->paired_pct = 100.0 * paired.median; /* 0 when no read was paired */
        if (copies > b->rep->decode_copies) {
            b->rep->decode_copies = copies;
            b->rep->decode_rotation_bytes = (double)mx->bytes * copies;
        }
    }
    free(s);
    free(shares);
    free_run(&r);
    return st;
}

static qmm_status prefill_row(bench *b, const moe_matrix *mx, int routing, const bench_row *dec, bench_row *w) {
    moe_run r = {.b = b, .mx = mx};
    init_row(w, mx, PHASE_PREFILL, routing == 2 ? "zipf" : "uniform", b->m_pre);
    qmm_status st = make_inputs(&r, b->m_pre, routing);
    if (st == QMM_OK)
        st = pack_copies(&r, 1, NULL);
    bench_sample_compute_limits(b); /* the int8 / FMA limits through the rows (bench_limits.c) */
    progress_line("MoE prefill (%lld tokens): %s", (long long)b->m_pre, w->name);
    double t, s[15];
    if (st == QMM_OK)
        st = call(&r, 0, 0, b->m_pre, &t); /* warm-up */
    int reps = st == QMM_OK && t > 0 ? (int)(3.0 * b->budget_scale / t) : 15;
    reps = reps > 15 ? 15 : reps < 3 ? 3 : reps;
    for (int i = 0; i < reps && st == QMM_OK; i++)
        st = call(&r, 0, 0, b->m_pre, &s[i]);
    if (st == QMM_OK) {
        bench_stat_from(&w->t, s, reps);
        snprintf(w->kernel, sizeof w->kernel, "%s", qmm_weights_kernel(r.w[0]));
        w->weight_bytes = dec->weight_bytes;
        w->pack_s = dec->pack_s;
        w->flops = 2.0 * (double)w->m * (double)w->n * (double)w->k;
        w->rate = w->flops / w->t.median * 1e-9;
    }
    free_run(&r);
    return st;
}

/* The rows of every matrix into the report (decode uniform, prefill uniform,
 * prefill zipf), their limits, and the totals of the uniform rows. */
static qmm_status run_matrices(bench *b, const moe_matrix *mats, int nm, int layers) {
    bench_report *rep = b->rep;
    qmm_status st = QMM_OK;
    const int first = rep->n_rows;
    for (int j = 0; j < nm && st == QMM_OK; j++) {
        if (rep->n_rows + 3 > (int)(sizeof rep->rows / sizeof rep->rows[0]))
            break;
        bench_row *dec = &rep->rows[rep->n_rows];
        st = decode_row(b, &mats[j], dec);
        for (int routing = 1; routing <= 2 && st == QMM_OK; routing++)
            st = prefill_row(b, &mats[j], routing, dec, &rep->rows[rep->n_rows + routing]);
        if (st == QMM_OK)
            rep->n_rows += 3;
    }
    if (st != QMM_OK)
        return st;
    progress_line("probing the limits of the kernels that ran");
    for (int i = first; i < rep->n_rows; i++)
        bench_set_limit(b, &rep->rows[i]);
    bench_refresh_limits(b);
    double sum[2] = {0, 0};
    for (int i = first; i < rep->n_rows; i++) {
        bench_row *w = &rep->rows[i];
        bench_set_limit(b, w);
        if (!strstr(w->name, " zipf "))
            sum[w->phase] += w->t.median * w->count;
    }
    progress_done();
    rep->decode_s += sum[0] * layers;
    rep->prefill_s += sum[1] * layers;
    rep->tok_s_decode = rep->decode_s > 0 ? 1.0 / rep->decode_s : 0;
    rep->tok_s_prefill = rep->prefill_s > 0 ? (double)b->m_pre / rep->prefill_s : 0;
    return QMM_OK;
}

static void moe_notes(bench *b) {
    bench_note(b, "MoE rows (qmm_mul_mat_id): m = tokens x experts per token; decode: 1 token, chosen experts cold (rounds "
                  "choosing every expert once, rotated over copies); GB/s of their packed bytes");
    bench_note(b, "MoE prefill: uniform and zipf routing (rank r with weight 1/(r+1)); no zipf decode row: one token's experts "
                  "are distinct whatever the skew, and the rotation removes reuse");
}

qmm_status bench_moe_preset_run(bench *b, const bench_moe_preset *p, int type_given, qmm_type type) {
    bench_report *rep = b->rep;
    if (!type_given)
        type = p->type;
    b->run_ref = 0; /* the reference family is not timed on MoE rows: scalar MUL_MAT_ID of these shapes takes minutes */
    const struct {
        const char *name;
        int64_t k, n, x_rows;
        int count;
    } defs[2] = {{"gate_up", p->hidden, p->ffn, 1, 2}, {"down", p->ffn, p->hidden, p->n_used, 1}};
    moe_matrix mats[2];
    void *srcs[2] = {NULL, NULL};
    const void *members[2][1];
    qmm_status st = QMM_OK;
    for (int j = 0; j < 2 && st == QMM_OK; j++) {
        moe_matrix *mx = &mats[j];
        memset(mx, 0, sizeof *mx);
        snprintf(mx->name, sizeof mx->name, "%s", defs[j].name);
        mx->type = type;
        mx->k = defs[j].k;
        mx->n = defs[j].n;
        mx->n_expert = p->n_expert;
        mx->n_used = p->n_used;
        mx->x_rows = defs[j].x_rows;
        mx->count = defs[j].count;
        if (qmm_row_size(type, mx->k) == 0) {
            fprintf(stderr, "qmatmul bench: %s: k = %lld does not fit %s's blocks\n", p->name, (long long)mx->k,
                    qmm_type_name(type));
            st = QMM_ERR_INVALID_ARG;
            break;
        }
        progress_line("generating random %s experts: %s", qmm_type_name(type), mx->name);
        if (!(srcs[j] = bench_make_source(type, mx->k, mx->n * mx->n_expert, &b->seed, &mx->bytes)))
            st = QMM_ERR_NO_MEMORY;
        members[j][0] = srcs[j];
        mx->members = members[j];
        mx->n_members = 1;
    }
    rep->n_layers = p->layers;
    rep->type_name = qmm_type_name(type);
    snprintf(rep->title, sizeof rep->title, "%s (%lld experts, %lld per token), one layer (x %d), %s weights, %d threads",
             p->title, (long long)p->n_expert, (long long)p->n_used, p->layers, qmm_type_name(type), b->nth);
    if (st == QMM_OK)
        st = run_matrices(b, mats, 2, p->layers);
    if (st == QMM_OK) {
        moe_notes(b);
        bench_note(b, "the estimated model: the expert FFN only (uniform rows; no attention, router or shared weights)");
    }
    free(srcs[0]);
    free(srcs[1]);
    return st;
}

/* -------------------------------------------------------------- --model */

int bench_moe_is_experts(const qmm_gguf_tensor *t) {
    return t->n_dims == 3 && t->ne[3] == 1 && t->ne[2] > 1 && strstr(t->name, "_exps") != NULL;
}

/* The experts per token of the file: <arch>.expert_used_count, else 0. */
static int64_t experts_used(qmm_gguf *g) {
    const char *arch = NULL;
    uint64_t len = 0;
    int64_t u = 0;
    char key[160];
    if (qmm_gguf_get_string(g, "general.architecture", &arch, &len) != QMM_OK || len > 100)
        return 0;
    snprintf(key, sizeof key, "%.*s.expert_used_count", (int)len, arch);
    return qmm_gguf_get_int(g, key, &u) == QMM_OK ? u : 0;
}

qmm_status bench_moe_model_run(bench *b, qmm_gguf *g) {
    const int64_t nt = qmm_gguf_tensor_count(g);
    int64_t u = experts_used(g);
    moe_matrix *mats = calloc((size_t)(nt ? nt : 1), sizeof *mats);
    if (!mats)
        return QMM_ERR_NO_MEMORY;
    int nm = 0;
    qmm_status st = QMM_OK;
    for (int64_t i = 0; i < nt && st == QMM_OK; i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        if (!bench_moe_is_experts(t) || !t->known_type || t->type >= QMM_TYPE_COUNT || !qmm_type_packable((qmm_type)t->type))
            continue;
        const int64_t used = u > 0 && u <= t->ne[2] ? u : (t->ne[2] < 4 ? t->ne[2] : 4);
        const int64_t xr = strstr(t->name, "down") ? used : 1;
        int j = 0;
        while (j < nm && !(mats[j].type == (qmm_type)t->type && mats[j].k == t->ne[0] && mats[j].n == t->ne[1] &&
                           mats[j].n_expert == t->ne[2] && mats[j].x_rows == xr))
            j++;
        if (j == nm) {
            moe_matrix *mx = &mats[nm++];
            mx->type = (qmm_type)t->type;
            mx->k = t->ne[0];
            mx->n = t->ne[1];
            mx->n_expert = t->ne[2];
            mx->n_used = used;
            mx->x_rows = xr;
            mx->bytes = (size_t)t->size;
            if (!(mx->members = calloc((size_t)nt, sizeof *mx->members)))
                st = QMM_ERR_NO_MEMORY;
            /* the name's pattern, short: "blk.N.ffn_up_exps.weight" -> "ffn_up_exps" */
            const char *s = strncmp(t->name, "blk.", 4) ? t->name : strchr(t->name + 4, '.');
            s = s ? s + (*s == '.') : t->name;
            snprintf(mx->name, sizeof mx->name, "%.*s", (int)strcspn(s, "."), s);
        } else if (!strstr(mats[j].name, "+") && strlen(mats[j].name) < 60) {
            const char *s = strstr(t->name, "ffn_");
            if (s && strncmp(mats[j].name, s, strcspn(s, ".")) != 0) { /* gate and up share a shape: one group, both named */
                const size_t l = strlen(mats[j].name);
                snprintf(mats[j].name + l, sizeof mats[j].name - l, "+%.*s", (int)strcspn(s, "."), s);
            }
        }
        if (st == QMM_OK) {
            mats[j].members[mats[j].n_members++] = t->data;
            mats[j].count++;
        }
    }
    for (int j = 0; j < nm && st == QMM_OK; j++) /* every experts tensor packed once: the model's pack time and size */
        for (int i = 0; i < mats[j].n_members && st == QMM_OK; i++) {
            progress_line("packing the model's experts: %s (%d of %d)", mats[j].name, i + 1, mats[j].n_members);
            qmm_weights *w = NULL;
            const double t0 = qmm_bench_now();
            st = qmm_experts_pack(b->ctx, mats[j].type, mats[j].k, mats[j].n, mats[j].n_expert, mats[j].members[i], mats[j].bytes,
                                  &w);
            b->rep->pack_total_s += qmm_bench_now() - t0;
            if (st == QMM_OK) {
                size_t sz;
                qmm_weights_blob(w, &sz);
                b->rep->packed_bytes += (double)sz;
                b->rep->n_packed_tensors++;
            }
            qmm_weights_free(w);
        }
    if (st == QMM_OK && nm > 0) {
        st = run_matrices(b, mats, nm, 1);
        moe_notes(b);
        if (u <= 0)
            bench_note(b, "no <arch>.expert_used_count in the file: MoE rows take min(4, n_expert) experts per token");
    }
    for (int j = 0; j < nm; j++)
        free(mats[j].members);
    free(mats);
    return st;
}

int bench_moe_model_count(qmm_gguf *g) {
    int c = 0;
    for (int64_t i = 0; i < qmm_gguf_tensor_count(g); i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        c += bench_moe_is_experts(t) && t->known_type && t->type < QMM_TYPE_COUNT && qmm_type_packable((qmm_type)t->type);
    }
    return c;
}
