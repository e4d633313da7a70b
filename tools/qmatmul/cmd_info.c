/* qmatmul info [--json] [--threads N]: the CPU, its features, the SME unit
 * count, and per weight type the kernel chain selected (one line per type,
 * starting with the type's name).
 * qmatmul info --families [--markdown]: every kernel family of this build,
 * whatever the CPU (docs/kernels.md is this output, checked by ctest). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "qmatmul.h"

/* The family a CPU without this one's features runs instead: the next family
 * of its type, in priority order, that needs a subset of them (the chain ends
 * at the reference). -1 for the reference. */
static int family_fallback(int i, const qmm_family_desc *f) {
    const int n = qmm_family_count();
    for (int j = i + 1; j < n; j++) {
        qmm_family_desc g;
        if (qmm_family_info(j, &g) == QMM_OK && g.type == f->type && (g.required & ~f->required) == 0)
            return j;
    }
    return -1;
}

/* The ISA part of a family's name: the name without its type suffix. */
static void family_isa(const qmm_family_desc *f, char *out, size_t size) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_%s", qmm_type_name(f->type));
    for (char *c = suffix; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    const size_t len = strlen(f->name), sl = strlen(suffix);
    const size_t keep = (len > sl && strcmp(f->name + len - sl, suffix) == 0) ? len - sl : len;
    snprintf(out, size, "%.*s", (int)keep, f->name);
}

static void feature_list(uint64_t bits, char *out, size_t size) {
    size_t used = 0;
    out[0] = 0;
    for (int b = 0; b < 64 && used < size; b++) {
        const char *name = (bits >> b) & 1 ? qmm_cpu_feature_name(1ull << b) : NULL;
        if (name)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? " " : "", name);
    }
    if (!out[0])
        snprintf(out, size, "-");
}

static int print_families(int markdown) {
    const int n = qmm_family_count();
    if (markdown)
        printf("| family | ISA | weights | activations | tile mr x nr | kr / sr | panel rows | needs | fallback |\n"
               "| --- | --- | --- | --- | --- | --- | ---: | --- | --- |\n");
    for (int i = 0; i < n; i++) {
        qmm_family_desc f;
        if (qmm_family_info(i, &f) != QMM_OK)
            return 1;
        char isa[32], needs[256];
        family_isa(&f, isa, sizeof isa);
        feature_list(f.required, needs, sizeof needs);
        const int fp = f.type == QMM_TYPE_F32 || f.type == QMM_TYPE_F16 || f.type == QMM_TYPE_BF16;
        const int fb = family_fallback(i, &f);
        qmm_family_desc g;
        const char *fallback = (fb >= 0 && qmm_family_info(fb, &g) == QMM_OK) ? g.name : "-";
        if (markdown)
            printf("| %s | %s | %s | %s | %d x %d | %d / %d | %d | %s | %s |\n", f.name, isa, qmm_type_name(f.type),
                   fp ? "fp32 rows" : "int8, 32-blocks", f.mr, f.nr, f.kr, f.sr, f.n_step, needs, fallback);
        else
            printf("%-24s %-14s %-7s %-16s %2dx%-3d kr %d sr %d  panel %3d  fallback %s\n", f.name, isa, qmm_type_name(f.type),
                   fp ? "fp32 rows" : "int8 32-blocks", f.mr, f.nr, f.kr, f.sr, f.n_step, fallback);
    }
    return 0;
}

int cmd_info(int argc, char **argv) {
    int json = 0, families = 0, markdown = 0;
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--families") == 0) {
            families = 1;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            long long v;
            if (qmm_arg_int("info", argv[i], argv[i + 1], 0, 4096, &v))
                return 2;
            opts.n_threads = (int)v;
            i++;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: qmatmul info [--json] [--threads N]\n"
                   "       qmatmul info --families [--markdown]\n"
                   "Prints the CPU, its features, the SME unit count and, per weight type, the kernel\n"
                   "chain selected: primary family, fallback family, and the primary's thread cap.\n"
                   "--families: every kernel family of this build, in priority order, whatever the CPU:\n"
                   "its ISA, weight type, activation format, tile, panel, needed features and fallback\n"
                   "(--markdown: as the table of docs/kernels.md).\n"
                   "Environment: QMM_KERNEL, QMM_SME, QMM_CAP, QMM_HIDE_FEATURES, QMM_LOG (docs/ENVIRONMENT.md).\n");
            return 0;
        } else {
            fprintf(stderr, "qmatmul info: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (markdown && !families) {
        fprintf(stderr, "qmatmul info: --markdown goes with --families\n");
        return 2;
    }
    if (families) {
        if (json) {
            fprintf(stderr, "qmatmul info: --families has no --json form\n");
            return 2;
        }
        return print_families(markdown);
    }
    qmm_context *ctx;
    qmm_status st = qmm_context_create(&opts, &ctx);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul info: %s: %s\n", qmm_status_str(st), qmm_last_error());
        return 1;
    }
    char buf[8192];
    st = qmm_context_describe(ctx, json, buf, sizeof buf);
    qmm_context_free(ctx);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul info: %s\n", qmm_last_error());
        return 1;
    }
    fputs(buf, stdout);
    return 0;
}
