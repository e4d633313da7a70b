/* qmatmul bench --model: the GGUF file's packable 2-D weights grouped by
 * (type, k, n), what is skipped and why, and the pack of every tensor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "progress.h"

static int is_packable(uint32_t t) { return t < QMM_TYPE_COUNT && qmm_type_packable((qmm_type)t); }

static void skip(bench_report *r, const char *fmt, const char *name, const char *what, unsigned num) {
    if (r->n_skipped >= 64) {
        r->skipped_more++;
        return;
    }
    char why[96];
    if (what)
        snprintf(why, sizeof why, fmt, what);
    else
        snprintf(why, sizeof why, fmt, num);
    snprintf(r->skipped[r->n_skipped++], sizeof r->skipped[0], "%s: %s", name, why);
}

/* Whether a tensor is a weight matrix the bench can run; else it is listed
 * as skipped (1-D tensors only counted: n_1d). */
static int usable(bench_report *r, const qmm_gguf_tensor *t, int *n_1d) {
    if (bench_moe_is_experts(t) && is_packable(t->type) && t->known_type)
        return 0; /* an experts tensor: bench_moe.c runs it */
    const int two_d = t->n_dims >= 2 && t->ne[2] == 1 && t->ne[3] == 1;
    if (!two_d) {
        if (t->n_dims <= 1)
            (*n_1d)++;
        else
            skip(r, "%u-D, not a weight matrix", t->name, NULL, t->n_dims);
        return 0;
    }
    if (!is_packable(t->type) || !t->known_type) {
        const char *tn = t->type < QMM_TYPE_COUNT ? qmm_type_name((qmm_type)t->type) : NULL;
        if (tn)
            skip(r, "%s: not supported yet", t->name, tn, 0);
        else
            skip(r, "type %u: unknown type", t->name, NULL, t->type);
        return 0;
    }
    return 1;
}

/* The name's pattern, short: "blk.N.ffn_up.weight" -> "ffn_up". */
static void name_pattern(const char *name, char *pat, size_t size) {
    snprintf(pat, size, "%s", name);
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
}

/* The group of t's type and shape (the token embedding is its own group: it
 * is read by GET_ROWS), made if new; -1: out of memory. */
static int group_of(bench_matrix *mats, int *nm, int64_t nt, const qmm_gguf_tensor *t, const char *pat) {
    const int embd = strstr(t->name, "token_embd") != NULL;
    for (int j = *nm - 1; j >= 0; j--)
        if (mats[j].type == (qmm_type)t->type && mats[j].k == t->ne[0] && mats[j].n == t->ne[1] &&
            (strstr(mats[j].name, "token_embd") != NULL) == embd) {
            if (!strstr(mats[j].name, pat)) { /* identical shapes of other names join the group: list them */
                const size_t l = strlen(mats[j].name);
                snprintf(mats[j].name + l, sizeof mats[j].name - l, "+%s", pat);
            }
            return j;
        }
    bench_matrix *mx = &mats[*nm];
    mx->type = (qmm_type)t->type;
    mx->k = t->ne[0];
    mx->n = t->ne[1];
    mx->row_bytes = qmm_row_size(mx->type, mx->k);
    mx->members = calloc((size_t)nt, sizeof *mx->members);
    if (!mx->members)
        return -1;
    snprintf(mx->name, sizeof mx->name, "%s", pat);
    return (*nm)++;
}

int bench_model_groups(bench *b, qmm_gguf *g, bench_matrix **out) {
    bench_report *r = b->rep;
    const int64_t nt = qmm_gguf_tensor_count(g);
    bench_matrix *mats = calloc((size_t)(nt ? nt : 1), sizeof *mats);
    int nm = 0, n_1d = 0;
    *out = mats;
    if (!mats)
        return 0;
    for (int64_t i = 0; i < nt; i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        if (!usable(r, t, &n_1d))
            continue;
        char pat[96];
        name_pattern(t->name, pat, sizeof pat);
        const int gi = group_of(mats, &nm, nt, t, pat);
        if (gi < 0)
            break;
        mats[gi].members[mats[gi].n_members++] = t->data;
        mats[gi].count++;
    }
    if (n_1d && r->n_skipped < 64)
        snprintf(r->skipped[r->n_skipped++], sizeof r->skipped[0], "%d 1-D tensors (norms, biases): not weight matrices", n_1d);
    return nm;
}

void bench_model_title(bench *b, qmm_gguf *g, const char *path) {
    bench_report *rep = b->rep;
    snprintf(rep->model_path, sizeof rep->model_path, "%s", path);
    rep->file_bytes = (double)qmm_gguf_file_size(g);
    const qmm_gguf_value *name = qmm_gguf_get(g, "general.name");
    const char *s = NULL;
    uint64_t len = 0;
    if (name && qmm_gguf_value_str(name, &s, &len))
        snprintf(rep->title, sizeof rep->title, "%.*s (%s), %d threads", (int)(len > 80 ? 80 : len), s, path, b->nth);
    else
        snprintf(rep->title, sizeof rep->title, "%s, %d threads", path, b->nth);
    rep->n_layers = 1;
    rep->type_name = "mixed";
}

/* Every tensor packed once, for the pack time and size. */
qmm_status bench_model_pack_all(bench *b, bench_matrix *mats, int nm) {
    qmm_status st = QMM_OK;
    double t_pack = 0, packed = 0;
    int np = 0;
    for (int j = 0; j < nm && st == QMM_OK; j++)
        for (int i = 0; i < mats[j].n_members && st == QMM_OK; i++) {
            progress_line("packing the model: %s (%d of %d)", mats[j].name, i + 1, mats[j].n_members);
            qmm_weights *w = NULL;
            const double t0 = qmm_bench_now();
            st = qmm_weights_pack(b->ctx, mats[j].type, mats[j].k, mats[j].n, mats[j].members[i],
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
    b->rep->pack_total_s = t_pack;
    b->rep->packed_bytes = packed;
    b->rep->n_packed_tensors = np;
    return st;
}
