/* The table, JSON and roofline SVG of a bench run. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void bench_stat_from(bench_stat *s, double *v, int n) {
    memset(s, 0, sizeof *s);
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    s->n = n;
    s->min = v[0];
    s->max = v[n - 1];
    s->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char *fmt_time(double s, char *buf, size_t n) {
    if (s < 1e-3)
        snprintf(buf, n, "%.1f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, n, "%.2f ms", s * 1e3);
    else
        snprintf(buf, n, "%.2f s", s);
    return buf;
}

static const char *fmt_time_bare(double s, double unit_of, char *buf, size_t n) {
    /* the spread in the unit of the median */
    if (unit_of < 1e-3)
        snprintf(buf, n, "%.1f", s * 1e6);
    else if (unit_of < 1.0)
        snprintf(buf, n, "%.2f", s * 1e3);
    else
        snprintf(buf, n, "%.2f", s);
    return buf;
}

static const char *fmt_bytes(double b, char *buf, size_t n) {
    if (b >= 1073741824.0)
        snprintf(buf, n, "%.2f GiB", b / 1073741824.0);
    else if (b >= 1048576.0)
        snprintf(buf, n, "%.1f MiB", b / 1048576.0);
    else
        snprintf(buf, n, "%.1f KiB", b / 1024.0);
    return buf;
}

/* reps: the header's count of runs; a probe with more (the read limit,
 * sampled between decode passes) says its own */
static void print_probe(FILE *f, const char *label, const char *unit, const qmm_probe_result *p, int reps) {
    if (!p->probe)
        return;
    fprintf(f, "  %-12s %8.1f %-7s (median %.1f, min %.1f)  %s", label, p->max, unit, p->median, p->min, p->probe->name);
    if (p->reps > reps)
        fprintf(f, ": best of %d runs", p->reps);
    fprintf(f, "\n");
}

void bench_print_table(FILE *f, const bench_report *r) {
    char b1[32], b2[32], b3[32], b4[32];
    fprintf(f, "qmatmul bench: %s\n", r->title);
    fprintf(f, "CPU: %s; LLC %s; %d threads\n", r->machine, fmt_bytes(r->llc_bytes, b1, sizeof b1), r->n_threads);
    fprintf(f, "features: %s\n", r->features[0] ? r->features : "(none)");
    const int reps = r->fma.reps ? r->fma.reps : r->read.reps;
    fprintf(f, "\nmachine limits (%d threads; best of %d runs, median beside; methods: qmatmul bench --help):\n", r->n_threads,
            reps);
    print_probe(f, "memory read", "GB/s", &r->read, reps);
    print_probe(f, "int8 dot", "GOP/s", &r->int8, reps);
    print_probe(f, "fp32 FMA", "GFLOP/s", &r->fma, reps);
    if (r->fma_tile.probe && r->fma.max > 0) /* not a limit */
        fprintf(f,
                "  %-12s %8.1f %-7s (median %.1f, min %.1f)  %s: not a limit, %.0f%% of fp32 FMA: the ceiling of an exact "
                "fp32 GEMM's register tile\n",
                "fp32 tile", r->fma_tile.max, "GFLOP/s", r->fma_tile.median, r->fma_tile.min, r->fma_tile.probe->name,
                100.0 * r->fma_tile.max / r->fma.max);
    if (r->have_ref_probes) {
        print_probe(f, "int8 (C)", "GOP/s", &r->ref_int8, reps);
        print_probe(f, "fp32 (C)", "GFLOP/s", &r->ref_fma, reps);
    }
    if (r->model_path[0]) {
        fprintf(f, "\nmodel: %s\n  file %s; packed %d tensors into %s in %.2f s\n", r->model_path,
                fmt_bytes(r->file_bytes, b1, sizeof b1), r->n_packed_tensors, fmt_bytes(r->packed_bytes, b2, sizeof b2),
                r->pack_total_s);
    }
    int name_w = 6;
    for (int i = 0; i < r->n_rows; i++) {
        int l = (int)strlen(r->rows[i].name);
        if (l > name_w)
            name_w = l;
    }
    if (name_w > 40)
        name_w = 40;
    fprintf(f, "\n%-*s %5s %-12s %-5s %-7s %-18s %10s %-21s %13s %-18s %6s %8s\n", name_w, "matrix", "count", "n x k", "type",
            "phase", "kernel", "time/call", "[min - max]", "rate", "% of limit", "paired", "vs ref");
    for (int i = 0; i < r->n_rows; i++) {
        const bench_row *w = &r->rows[i];
        char shape[48], spread[96], rate[32], pct[64], paired[16], sp[24], tt[24];
        snprintf(shape, sizeof shape, "%lldx%lld", (long long)w->n, (long long)w->k);
        snprintf(spread, sizeof spread, "[%s - %s]%s", fmt_time_bare(w->t.min, w->t.median, b1, sizeof b1),
                 fmt_time_bare(w->t.max, w->t.median, b2, sizeof b2), w->n_measured < w->n ? "*" : "");
        if (w->phase == PHASE_DECODE)
            snprintf(rate, sizeof rate, "%.1f GB/s", w->rate);
        else
            snprintf(rate, sizeof rate, "%.1f GFLOP/s", w->rate);
        if (w->limit > 0)
            snprintf(pct, sizeof pct, "%3.0f%% %s", w->pct, w->limit_name ? w->limit_name : "");
        else
            snprintf(pct, sizeof pct, "-");
        if (w->paired_pct > 0)
            snprintf(paired, sizeof paired, "%3.0f%%", w->paired_pct);
        else
            snprintf(paired, sizeof paired, "-");
        if (w->speedup > 0 && strcmp(w->kernel, w->ref_kernel) == 0)
            snprintf(sp, sizeof sp, "(is ref)");
        else if (w->speedup > 0)
            snprintf(sp, sizeof sp, "%.1fx%s", w->speedup, w->ref_n_measured < w->n ? "*" : "");
        else
            snprintf(sp, sizeof sp, "-");
        char cnt[16];
        snprintf(cnt, sizeof cnt, w->count < 0 ? "(%d)" : "%d", w->count < 0 ? -w->count : w->count);
        fprintf(f, "%-*.*s %5s %-12s %-5s %-7s %-18s %10s %-21s %13s %-18s %6s %8s\n", name_w, name_w, w->name, cnt, shape,
                qmm_type_name(w->type), w->phase == PHASE_DECODE ? "decode" : "prefill", w->kernel,
                fmt_time(w->t.median, tt, sizeof tt), spread, rate, pct, paired, sp);
    }
    if (r->n_layers > 1)
        fprintf(f, "\nper layer (sum of the matrices x count): decode %s, prefill (m = %lld) %s\n",
                fmt_time(r->decode_s / r->n_layers, b1, sizeof b1), (long long)r->m_prefill,
                fmt_time(r->prefill_s / r->n_layers, b2, sizeof b2));
    fprintf(f, "%s: decode %s/token -> %.2f tokens/s; prefill %s per %lld tokens -> %.1f tokens/s\n",
            r->n_layers > 1 ? "estimated model (layer x layers, matmuls only)" : "estimated model (all benchmarked matmuls)",
            fmt_time(r->decode_s, b3, sizeof b3), r->tok_s_decode, fmt_time(r->prefill_s, b4, sizeof b4), (long long)r->m_prefill,
            r->tok_s_prefill);
    if (r->n_skipped || r->skipped_more) {
        fprintf(f, "\nskipped tensors:\n");
        for (int i = 0; i < r->n_skipped; i++)
            fprintf(f, "  %s\n", r->skipped[i]);
        if (r->skipped_more)
            fprintf(f, "  ... and %d more\n", r->skipped_more);
    }
    if (r->n_notes) {
        fprintf(f, "\nnotes:\n");
        for (int i = 0; i < r->n_notes; i++)
            fprintf(f, "  - %s\n", r->notes[i]);
    }
}

/* ------------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_stat(FILE *f, const char *name, const bench_stat *s) {
    fprintf(f, "\"%s\": {\"median\": %.9g, \"min\": %.9g, \"max\": %.9g, \"n\": %d}", name, s->median, s->min, s->max, s->n);
}

/* best_key: "limit" (a roof the rows are read against) or "ceiling" (not a
 * limit: shown beside one) */
static void json_probe_as(FILE *f, const char *name, const char *unit, const qmm_probe_result *p, int last,
                          const char *best_key) {
    fprintf(f, "    \"%s\": {\"probe\": ", name);
    json_str(f, p->probe ? p->probe->name : "");
    fprintf(f, ", \"method\": ");
    json_str(f, p->probe ? p->probe->method : "");
    fprintf(f, ", \"unit\": \"%s\", \"%s\": %.6g, \"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"runs\": %d, \"threads\": %d",
            unit, best_key, p->max, p->median, p->min, p->max, p->reps, p->n_threads);
    if (p->bytes > 0)
        fprintf(f, ", \"buffer_bytes\": %.0f", p->bytes);
    fprintf(f, "}%s\n", last ? "" : ",");
}

static void json_probe(FILE *f, const char *name, const char *unit, const qmm_probe_result *p, int last) {
    json_probe_as(f, name, unit, p, last, "limit");
}

int bench_write_json(const char *path, const bench_report *r) {
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"title\": ");
    json_str(f, r->title);
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_str(f, r->machine);
    fprintf(f, ", \"features\": ");
    json_str(f, r->features);
    fprintf(f, ", \"llc_bytes\": %.0f, \"threads\": %d},\n", r->llc_bytes, r->n_threads);
    fprintf(f, "  \"context\": %s,\n", r->context_json[0] ? r->context_json : "null");
    fprintf(f, "  \"weight_type\": ");
    json_str(f, r->type_name ? r->type_name : "");
    fprintf(f, ",\n  \"m_prefill\": %lld,\n  \"layers\": %d,\n", (long long)r->m_prefill, r->n_layers);
    fprintf(f, "  \"limits\": {\n");
    json_probe(f, "memory_read", "GB/s", &r->read, 0);
    json_probe(f, "int8_dot", "GOP/s", &r->int8, 0);
    json_probe(f, "fp32_fma", "GFLOP/s", &r->fma, !r->have_ref_probes);
    if (r->have_ref_probes) {
        json_probe(f, "int8_dot_portable", "GOP/s", &r->ref_int8, 0);
        json_probe(f, "fp32_fma_portable", "GFLOP/s", &r->ref_fma, 1);
    }
    fprintf(f, "  },\n");
    if (r->fma_tile.probe) { /* not limits: no row is read against them */
        fprintf(f, "  \"ceilings\": {\n");
        json_probe_as(f, "fp32_gemm_tile", "GFLOP/s", &r->fma_tile, 1, "ceiling");
        fprintf(f, "  },\n");
    }
    fprintf(f, "  \"decode_rotation\": {\"copies\": %d, \"bytes\": %.0f},\n", r->decode_copies, r->decode_rotation_bytes);
    if (r->model_path[0]) {
        fprintf(f, "  \"model\": {\"path\": ");
        json_str(f, r->model_path);
        fprintf(f,
                ", \"file_bytes\": %.0f, \"packed_bytes\": %.0f, \"packed_tensors\": %d, \"pack_seconds\": %.6g, \"skipped\": [",
                r->file_bytes, r->packed_bytes, r->n_packed_tensors, r->pack_total_s);
        for (int i = 0; i < r->n_skipped; i++) {
            if (i)
                fprintf(f, ", ");
            json_str(f, r->skipped[i]);
        }
        fprintf(f, "], \"skipped_not_listed\": %d},\n", r->skipped_more);
    }
    fprintf(f, "  \"rows\": [\n");
    for (int i = 0; i < r->n_rows; i++) {
        const bench_row *w = &r->rows[i];
        fprintf(f, "    {\"matrix\": ");
        json_str(f, w->name);
        fprintf(f, ", \"count\": %d, \"phase\": \"%s\", \"type\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"kernel\": ",
                w->count, w->phase == PHASE_DECODE ? "decode" : "prefill", qmm_type_name(w->type), (long long)w->m,
                (long long)w->n, (long long)w->k);
        json_str(f, w->kernel);
        fprintf(f, ", ");
        json_stat(f, "seconds", &w->t);
        fprintf(f, ", \"n_measured\": %lld, \"weight_bytes\": %.0f, \"flops\": %.0f, \"rate\": %.6g, \"rate_unit\": \"%s\"",
                (long long)w->n_measured, w->weight_bytes, w->flops, w->rate, w->phase == PHASE_DECODE ? "GB/s" : "GFLOP/s");
        fprintf(f, ", \"limit\": %.6g, \"limit_name\": ", w->limit);
        json_str(f, w->limit_name ? w->limit_name : "");
        fprintf(f, ", \"percent_of_limit\": %.4g, \"pack_seconds\": %.6g", w->pct, w->pack_s);
        if (w->paired_pct > 0)
            fprintf(f, ", \"percent_of_paired_read\": %.4g", w->paired_pct);
        if (w->speedup > 0) {
            fprintf(f, ", \"reference\": {\"kernel\": ");
            json_str(f, w->ref_kernel);
            fprintf(f, ", ");
            json_stat(f, "seconds", &w->t_ref);
            fprintf(f, ", \"n_measured\": %lld, \"speedup\": %.4g}", (long long)w->ref_n_measured, w->speedup);
        }
        fprintf(f, "}%s\n", i + 1 < r->n_rows ? "," : "");
    }
    fprintf(f,
            "  ],\n  \"totals\": {\"decode_seconds_per_token\": %.6g, \"prefill_seconds\": %.6g, \"decode_tokens_per_s\": %.6g, "
            "\"prefill_tokens_per_s\": %.6g},\n",
            r->decode_s, r->prefill_s, r->tok_s_decode, r->tok_s_prefill);
    fprintf(f, "  \"notes\": [");
    for (int i = 0; i < r->n_notes; i++) {
        if (i)
            fprintf(f, ", ");
        json_str(f, r->notes[i]);
    }
    fprintf(f, "]\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* -------------------------------------------------------------------- SVG */

/* Log-log roofline: x = operational intensity (FLOP per byte moved: weights
 * + activations + outputs), y = attained GFLOP/s (GOP/s for int8). The
 * memory line is bandwidth x intensity; the ceilings are the measured int8
 * and fp32 peaks. */
typedef struct plot {
    double x0, x1, y0, y1; /* data ranges (log10) */
    double L, T, W, H;     /* plot area */
} plot;

static double px(const plot *p, double x) { return p->L + (log10(x) - p->x0) / (p->x1 - p->x0) * p->W; }
static double py(const plot *p, double y) { return p->T + p->H - (log10(y) - p->y0) / (p->y1 - p->y0) * p->H; }

static double row_oi(const bench_row *w) {
    const double bytes = w->weight_bytes + 4.0 * (double)w->m * (double)w->k + 4.0 * (double)w->m * (double)w->n;
    return w->flops / bytes;
}
static double row_gflops(const bench_row *w) { return w->flops / w->t.median * 1e-9; }

int bench_write_svg(const char *path, const bench_report *r) {
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const double bw = r->read.max; /* the limits: best runs */
    double peak = r->int8.max > r->fma.max ? r->int8.max : r->fma.max;
    double xmin = 1e30, xmax = 0, ymin = 1e30, ymax = peak;
    for (int i = 0; i < r->n_rows; i++) {
        const double x = row_oi(&r->rows[i]), y = row_gflops(&r->rows[i]);
        if (x > 0 && y > 0) {
            xmin = fmin(xmin, x);
            xmax = fmax(xmax, x);
            ymin = fmin(ymin, y);
            ymax = fmax(ymax, y);
        }
    }
    if (xmax <= 0) {
        xmin = 1;
        xmax = 1000;
        ymin = 1;
    }
    if (bw > 0)
        ymin = fmin(ymin, bw * xmin);
    plot p = {floor(log10(xmin / 2)), ceil(log10(xmax * 4)), floor(log10(ymin / 2)), ceil(log10(ymax * 2)), 80, 50, 720, 440};
    const double Wt = 920, Ht = 580;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            Wt, Ht, Wt, Ht);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"15\" font-weight=\"bold\">Roofline: ", p.L);
    for (const char *s = r->title; *s; s++)
        fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : (char[2]){*s, 0}, f);
    fprintf(f, "</text>\n");
    /* grid and axes */
    for (int e = (int)p.x0; e <= (int)p.x1; e++) {
        const double x = px(&p, pow(10, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, p.T, x, p.T + p.H);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, p.T + p.H + 16, pow(10, e));
    }
    for (int e = (int)p.y0; e <= (int)p.y1; e++) {
        const double y = py(&p, pow(10, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", p.L, y, p.L + p.W, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", p.L - 6, y + 4, pow(10, e));
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", p.L, p.T, p.W,
            p.H);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">operational intensity (FLOP per byte of weights + activations + "
            "outputs)</text>\n",
            p.L + p.W / 2, p.T + p.H + 36);
    fprintf(f,
            "<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\">attained GFLOP/s (int8: GOP/s)</text>\n",
            p.T + p.H / 2);
    fprintf(f, "<clipPath id=\"area\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n", p.L, p.T, p.W,
            p.H);
    fprintf(f, "<g clip-path=\"url(#area)\">\n");
    /* roofs: memory line up to each ceiling, then the ceiling */
    const struct {
        const qmm_probe_result *pr;
        const char *label, *color;
    } roofs[2] = {{&r->int8, "int8 dot", "#c0392b"}, {&r->fma, "fp32 FMA", "#2471a3"}};
    const double xa = pow(10, p.x0), xb = pow(10, p.x1);
    for (int i = 0; i < 2; i++) {
        const double c = roofs[i].pr->max;
        if (c <= 0)
            continue;
        const double xr = bw > 0 ? c / bw : xa; /* ridge point */
        if (bw > 0)
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 "
                    "3\"/>\n",
                    px(&p, xa), py(&p, bw * xa), px(&p, xr), py(&p, c), roofs[i].color);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", px(&p, xr),
                py(&p, c), px(&p, xb), py(&p, c), roofs[i].color);
    }
    if (bw > 0) { /* along the memory line, just above it */
        const double xl = xa * 1.3;
        const double ang = -atan((p.H / (p.y1 - p.y0)) / (p.W / (p.x1 - p.x0))) * 180.0 / M_PI;
        fprintf(
            f,
            "<text font-size=\"11\" fill=\"#555\" transform=\"translate(%.1f %.1f) rotate(%.1f)\">memory read %.1f GB/s</text>\n",
            px(&p, xl), py(&p, bw * xl) - 5, ang, bw);
    }
    /* points, then their labels pushed apart vertically where they would
     * overlap (points of one phase often share an intensity) */
    double lx_[512], ly_[512], ptx[512], pty[512];
    int idx[512], np = 0;
    for (int i = 0; i < r->n_rows && np < 512; i++) {
        const bench_row *w = &r->rows[i];
        const double x = row_oi(w), y = row_gflops(w);
        if (!(x > 0 && y > 0))
            continue;
        const char *col = w->phase == PHASE_DECODE ? "#117a65" : "#7d3c98";
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" fill-opacity=\"0.8\"/>\n", px(&p, x), py(&p, y), col);
        ptx[np] = px(&p, x);
        pty[np] = py(&p, y);
        lx_[np] = ptx[np] + 9;
        ly_[np] = pty[np] + 4;
        idx[np++] = i;
    }
    for (int a = 1; a < np; a++) /* insertion sort by label y */
        for (int c = a; c > 0 && ly_[c] < ly_[c - 1]; c--) {
            double t;
            int ti;
            t = ly_[c], ly_[c] = ly_[c - 1], ly_[c - 1] = t;
            t = lx_[c], lx_[c] = lx_[c - 1], lx_[c - 1] = t;
            t = ptx[c], ptx[c] = ptx[c - 1], ptx[c - 1] = t;
            t = pty[c], pty[c] = pty[c - 1], pty[c - 1] = t;
            ti = idx[c], idx[c] = idx[c - 1], idx[c - 1] = ti;
        }
    for (int a = 0; a < np; a++)
        for (int c = 0; c < a; c++)
            if (lx_[a] < lx_[c] + 6.0 * (double)strlen(r->rows[idx[c]].name) + 30 &&
                lx_[c] < lx_[a] + 6.0 * (double)strlen(r->rows[idx[a]].name) + 30 && ly_[a] < ly_[c] + 11 && ly_[a] > ly_[c] - 11)
                ly_[a] = ly_[c] + 11;
    for (int a = 0; a < np; a++) {
        const bench_row *w = &r->rows[idx[a]];
        const char *col = w->phase == PHASE_DECODE ? "#117a65" : "#7d3c98";
        char label[80];
        snprintf(label, sizeof label, "%.40s %s", w->name, w->phase == PHASE_DECODE ? "dec" : "pre");
        for (char *s = label; *s; s++)
            if (*s == '<' || *s == '>' || *s == '&')
                *s = '_';
        if (ly_[a] - 4 - pty[a] > 6)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"0.5\"/>\n", ptx[a] + 4,
                    pty[a], lx_[a] - 1, ly_[a] - 4, col);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">%s</text>\n", lx_[a], ly_[a], col, label);
    }
    fprintf(f, "</g>\n");
    /* the ceilings named at their height, right of the plot */
    for (int i = 0; i < 2; i++) {
        const double c = roofs[i].pr->max;
        if (c <= 0)
            continue;
        const int close = r->int8.max > 0 && r->fma.max > 0 && fabs(log10(r->int8.max / r->fma.max)) < 0.08;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s %.1f</text>\n", p.L + p.W + 6,
                py(&p, c) + 4 + (close && i ? 12.0 : 0.0), roofs[i].color, roofs[i].label, c);
    }
    /* legend: under the plot, right */
    const double lx = p.L + p.W - 230, ly = p.T + p.H + 52;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#117a65\"/><text x=\"%.1f\" y=\"%.1f\">decode (m = 1)</text>\n",
            lx, ly - 4, lx + 8, ly);
    fprintf(f,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#7d3c98\"/><text x=\"%.1f\" y=\"%.1f\">prefill (m = %lld)</text>\n",
            lx + 110, ly - 4, lx + 118, ly, (long long)r->m_prefill);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">%d threads; rows: medians; limits: best probe runs; "
            "written by "
            "qmatmul bench</text>\n",
            p.L, ly, r->n_threads);
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
