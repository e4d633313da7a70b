/* What the two MUL_MAT_ID peers (qmm_mul_mat_id.c on qmatmul's public API,
 * ggml_mul_mat_id.c on ggml's) share, so that both read the same files and time
 * the same sequence of calls: the case lines, loading and checking the files
 * bench/peer/moe_data.py writes, the decode rotation, the timing loops and the
 * JSON fields of a timed row, the command line and the loop over a list.
 * Header only (static inline); include peer_io.h first.
 *
 * A case: experts weights W (n_expert matrices of n rows of k, GGUF block
 * layout, contiguous: a GGUF [k, n, n_expert] tensor), x F32 [k, xr, t] (xr = 1:
 * one row per token shared by its experts, as gate/up; xr = u: one per chosen
 * expert, as down), ids I32 [u, t] (distinct experts per token), y F32 [n, u, t].
 *   accuracy list line: TYPE K N NE U T XR W X IDS Y
 *   bench spec line:    PHASE TYPE K N NE U T XR W X IDS   (PHASE decode or prefill)
 *
 * decode: one token per call, tokens in the order of IDS, which moe_data.py
 * writes as rounds of n_expert / u tokens that together choose every expert
 * once. Each round runs on every copy of W in turn (copy c, then c + 1, ...),
 * so between two reads of the same expert of the same copy the calls read at
 * least (copies - 1) whole tensors: copies = ceil(max(256 MiB, 8 x LLC) / W
 * bytes) + 1 makes that at least the rotation `qmatmul bench` uses for MUL_MAT,
 * and the chosen experts' bytes come from memory. A warm-up pass, then passes
 * (8 s x --time in all, 3 to 400 / calls-per-pass passes), each call a sample.
 * prefill: all t tokens in one call on copy 0 (warm: compute-bound); a warm-up
 * call, then up to 15 calls in 3 s x --time (at least 3). Rates: decode GB/s of
 * the chosen experts' GGUF bytes (u distinct experts), prefill GOP/s of
 * 2 k n u t. */
#ifndef QMM_PEER_MOE_H
#define QMM_PEER_MOE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef QMM_PEER_IO_H
#error "include peer_io.h before peer_moe.h"
#endif

typedef struct peer_moe_case {
    char phase[16]; /* bench: "decode" or "prefill"; accuracy: "" */
    char type[32];
    long long k, n, ne, u, t, xr;
    char w[1024], x[1024], ids[1024], y[1024];
} peer_moe_case;

/* One line into c (with_phase: a bench spec line, no Y); 0 if malformed. */
static inline int peer_moe_parse(const char *line, int with_phase, peer_moe_case *c) {
    memset(c, 0, sizeof *c);
    int ok;
    if (with_phase)
        ok = sscanf(line, "%15s %31s %lld %lld %lld %lld %lld %lld %1023s %1023s %1023s", c->phase, c->type, &c->k, &c->n, &c->ne,
                    &c->u, &c->t, &c->xr, c->w, c->x, c->ids) == 11 &&
             (!strcmp(c->phase, "decode") || !strcmp(c->phase, "prefill"));
    else
        ok = sscanf(line, "%31s %lld %lld %lld %lld %lld %lld %1023s %1023s %1023s %1023s", c->type, &c->k, &c->n, &c->ne, &c->u,
                    &c->t, &c->xr, c->w, c->x, c->ids, c->y) == 11;
    return ok && c->k > 0 && c->n > 0 && c->ne > 0 && c->u > 0 && c->u <= c->ne && c->t > 0 && (c->xr == 1 || c->xr == c->u);
}

/* The command line of both sides: CMD LIST [--threads T] [--time X] [--llc BYTES], CMD accuracy-batch or bench,
 * and one flag of a side's own (flag: its name, or NULL). */
typedef struct peer_moe_args {
    const char *list;
    int is_bench, threads, flag;
    double tscale;
    size_t llc; /* 0: peer_detect_llc()'s */
} peer_moe_args;

/* 1 and *a if argv is such a command line, else 0 (the caller prints its usage). */
static inline int peer_moe_args_parse(int argc, char **argv, const char *flag, peer_moe_args *a) {
    memset(a, 0, sizeof *a);
    a->threads = 2;
    a->tscale = 1.0;
    if (argc < 3)
        return 0;
    a->list = argv[2];
    for (int i = 3; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (flag && !strcmp(argv[i], flag))
            a->flag = 1;
        else if (v && !strcmp(argv[i], "--threads"))
            a->threads = atoi(v), i++;
        else if (v && !strcmp(argv[i], "--time"))
            a->tscale = atof(v), i++;
        else if (v && !strcmp(argv[i], "--llc"))
            a->llc = (size_t)atoll(v), i++;
        else
            return 0;
    }
    a->is_bench = !strcmp(argv[1], "bench");
    return (a->is_bench || !strcmp(argv[1], "accuracy-batch")) && a->threads >= 1 && a->tscale > 0;
}

/* One case of the list, on a side's state. */
typedef int (*peer_moe_case_fn)(void *side, const peer_moe_case *c, const peer_moe_args *a);

/* Runs every line of the list (accuracy lines or bench spec lines) until one fails; 0 if all ran and there was
 * at least one. */
static inline int peer_moe_run_list(const peer_moe_args *a, peer_moe_case_fn run, void *side) {
    FILE *f = fopen(a->list, "r");
    if (!f) {
        fprintf(stderr, PEER_PROG ": cannot open %s\n", a->list);
        return 1;
    }
    char line[8192];
    int rc = 0, cases = 0;
    while (rc == 0 && peer_list_next(f, line, sizeof line)) {
        peer_moe_case c;
        if (!peer_moe_parse(line, a->is_bench, &c)) {
            fprintf(stderr, PEER_PROG ": %s: bad line: %s", a->list, line);
            rc = 1;
            break;
        }
        rc = run(side, &c, a);
        cases++;
    }
    fclose(f);
    if (rc == 0 && cases == 0) {
        fprintf(stderr, PEER_PROG ": %s: no cases\n", a->list);
        rc = 1;
    }
    return rc;
}

/* The three input files of c (row_bytes: one row of k of c's type); every id
 * checked in [0, ne) and distinct per token (ggml leaves duplicates undefined).
 * 0 on success, else a message and nothing allocated. */
static inline int peer_moe_load(const peer_moe_case *c, size_t row_bytes, void **w, float **x, int32_t **ids) {
    *w = peer_read_exact(c->w, row_bytes * (size_t)(c->n * c->ne));
    *x = peer_read_exact(c->x, sizeof(float) * (size_t)(c->k * c->xr * c->t));
    *ids = peer_read_exact(c->ids, sizeof(int32_t) * (size_t)(c->u * c->t));
    int ok = *w && *x && *ids;
    for (long long t = 0; ok && t < c->t; t++)
        for (long long i = 0; ok && i < c->u; i++) {
            const int32_t e = (*ids)[t * c->u + i];
            int dup = 0;
            for (long long j = 0; j < i; j++)
                dup |= (*ids)[t * c->u + j] == e;
            if (e < 0 || e >= c->ne || dup) {
                fprintf(stderr, PEER_PROG ": %s: token %lld slot %lld: expert %d %s\n", c->ids, t, i, (int)e,
                        dup ? "chosen twice" : "out of range");
                ok = 0;
            }
        }
    if (!ok) {
        free(*w);
        free(*x);
        free(*ids);
        *w = NULL, *x = NULL, *ids = NULL;
    }
    return !ok;
}

/* Copies of W the decode rotation needs (see the top). */
static inline int peer_moe_copies(double tensor_bytes, size_t llc) {
    const double target = fmax(256.0 * 1048576, 8.0 * (double)llc);
    const int c = (int)ceil(target / tensor_bytes) + 1;
    return c > 64 ? 64 : c;
}

/* One timed call: tokens [token, token + ntok) on copy `copy`; 0 on success. */
typedef int (*peer_moe_call_fn)(void *user, int copy, long long token, long long ntok);

/* The decode samples (malloc'ed into *s, *ns of them); 0 on success. */
static inline int peer_moe_time_decode(const peer_moe_case *c, int copies, double tscale, peer_moe_call_fn call, void *user,
                                       double **s, int *ns) {
    const long long group = c->ne / c->u > 0 ? c->ne / c->u : 1, rounds = c->t / group > 0 ? c->t / group : 1;
    const long long per_pass = rounds * copies * group;
    *s = NULL;
    *ns = 0;
    double t0 = peer_now();
    for (long long r = 0; r < rounds; r++)
        for (int cp = 0; cp < copies; cp++)
            for (long long j = 0; j < group; j++)
                if (call(user, cp, (r * group + j) % c->t, 1))
                    return 1;
    const double pass = peer_now() - t0;
    long long reps = pass > 0 ? (long long)(8.0 * tscale / pass) : 10;
    if (reps * per_pass > 400)
        reps = 400 / per_pass;
    if (reps < 3)
        reps = 3;
    double *v = malloc(sizeof(double) * (size_t)(reps * per_pass));
    if (!v)
        return 1;
    int n = 0;
    for (long long p = 0; p < reps; p++)
        for (long long r = 0; r < rounds; r++)
            for (int cp = 0; cp < copies; cp++)
                for (long long j = 0; j < group; j++) {
                    t0 = peer_now();
                    if (call(user, cp, (r * group + j) % c->t, 1)) {
                        free(v);
                        return 1;
                    }
                    v[n++] = peer_now() - t0;
                }
    *s = v;
    *ns = n;
    return 0;
}

/* The prefill samples (at most 15, into s); 0 on success. */
static inline int peer_moe_time_prefill(const peer_moe_case *c, double tscale, peer_moe_call_fn call, void *user, double s[15],
                                        int *ns) {
    double t0 = peer_now();
    if (call(user, 0, 0, c->t))
        return 1;
    const double one = peer_now() - t0;
    int reps = one > 0 ? (int)(3.0 * tscale / one) : 15;
    reps = reps > 15 ? 15 : reps < 3 ? 3 : reps;
    for (int r = 0; r < reps; r++) {
        t0 = peer_now();
        if (call(user, 0, 0, c->t))
            return 1;
        s[r] = peer_now() - t0;
    }
    *ns = reps;
    return 0;
}

/* How many distinct experts the tokens of c choose (decode: one token's u). */
static inline long long peer_moe_distinct(const peer_moe_case *c, const int32_t *ids) {
    if (!strcmp(c->phase, "decode"))
        return c->u;
    long long d = 0;
    for (long long e = 0; e < c->ne; e++)
        for (long long i = 0; i < c->u * c->t; i++)
            if (ids[i] == e) {
                d++;
                break;
            }
    return d;
}

/* The fields of a timed row after the program's own (peer, type, threads,
 * buffer or kernel), and the end of the line. expert_bytes: one expert's GGUF
 * bytes; chosen: the distinct experts a call reads (peer_moe_distinct). */
static inline void peer_moe_json_row(const peer_moe_case *c, int copies, double expert_bytes, long long chosen_experts, double *s,
                                     int ns) {
    const double med = peer_median(s, ns);
    const int dec = !strcmp(c->phase, "decode");
    const double chosen = expert_bytes * (double)chosen_experts;
    const double rate = dec ? chosen / med * 1e-9 : 2.0 * (double)c->k * (double)c->n * (double)c->u * (double)c->t / med * 1e-9;
    printf("\"op\": \"mul_mat_id\", \"phase\": \"%s\", \"k\": %lld, \"n\": %lld, \"n_expert\": %lld, \"n_used\": %lld, "
           "\"tokens\": %lld, \"x_rows\": %lld, \"copies\": %d, \"rotation_bytes\": %.0f, \"chosen_bytes\": %.0f, "
           "\"seconds\": {\"median\": %.9f, \"min\": %.9f, \"max\": %.9f, \"n\": %d}, \"rate\": %.4f, \"rate_unit\": \"%s\"}\n",
           c->phase, c->k, c->n, c->ne, c->u, dec ? 1 : c->t, c->xr, dec ? copies : 1,
           expert_bytes * (double)c->ne * (dec ? copies : 1), chosen, med, s[0], s[ns - 1], ns, rate, dec ? "GB/s" : "GOP/s");
    fflush(stdout);
}

#endif
