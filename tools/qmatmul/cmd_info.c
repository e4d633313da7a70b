/* qmatmul info [--json] [--threads N]: the CPU, its features, the SME unit
 * count, and per weight type the kernel chain selected (one line per type,
 * starting with the type's name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "qmatmul.h"

int cmd_info(int argc, char **argv) {
    int json = 0;
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            long long v;
            if (qmm_arg_int("info", argv[i], argv[i + 1], 0, 4096, &v))
                return 2;
            opts.n_threads = (int)v;
            i++;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: qmatmul info [--json] [--threads N]\n"
                   "Prints the CPU, its features, the SME unit count and, per weight type, the kernel\n"
                   "chain selected: primary family, fallback family, and the primary's thread cap.\n"
                   "Environment: QMM_KERNEL, QMM_SME, QMM_CAP, QMM_HIDE_FEATURES, QMM_LOG (docs/ENVIRONMENT.md).\n");
            return 0;
        } else {
            fprintf(stderr, "qmatmul info: unknown option '%s'\n", argv[i]);
            return 2;
        }
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
