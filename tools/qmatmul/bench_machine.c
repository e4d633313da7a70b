/* qmatmul bench: the machine's description in the report (CPU, features,
 * LLC, the context's kernel chains), the report's notes, the load, the size
 * of cold-data rotations. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench_internal.h"

void bench_describe_machine(bench *b, const qmm_cpu_desc *ci) {
    bench_report *rep = b->rep;
    rep->n_threads = b->nth;
    rep->llc_bytes = ci->llc_bytes > 0 ? (double)ci->llc_bytes : 32.0 * 1048576; /* unknown: assume a large LLC */
    rep->m_prefill = b->m_pre;
    snprintf(rep->machine, sizeof rep->machine, "%.63s (%.15s, %d cores available%s)", ci->model[0] ? ci->model : "unknown CPU",
             ci->arch, ci->n_cores, ci->numa_nodes > 1 ? ", NUMA" : "");
    for (int bit = 0; bit < 64; bit++) {
        const char *fn = qmm_cpu_feature_name(1ull << bit);
        if (fn && (ci->features >> bit) & 1) {
            size_t l = strlen(rep->features);
            snprintf(rep->features + l, sizeof rep->features - l, "%s%s", l ? " " : "", fn);
        }
    }
    if (qmm_context_describe(b->ctx, 1, rep->context_json, sizeof rep->context_json) != QMM_OK)
        rep->context_json[0] = 0;
    /* strip a trailing newline so the JSON nests cleanly */
    for (size_t l = strlen(rep->context_json); l > 0 && (rep->context_json[l - 1] == '\n' || rep->context_json[l - 1] == ' ');)
        rep->context_json[--l] = 0;
}

void bench_note(bench *b, const char *fmt, ...) {
    if (b->rep->n_notes >= (int)(sizeof b->rep->notes / sizeof b->rep->notes[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->rep->notes[b->rep->n_notes++], sizeof b->rep->notes[0], fmt, ap);
    va_end(ap);
}

double bench_rotation_bytes(const bench *b) {
    const double floor_bytes = 256.0 * 1048576, llc8 = 8.0 * b->rep->llc_bytes;
    return llc8 > floor_bytes ? llc8 : floor_bytes;
}

double bench_load_average(void) {
    double load = 0;
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fscanf(lf, "%lf", &load) != 1)
            load = 0;
        fclose(lf);
    }
    return load;
}
