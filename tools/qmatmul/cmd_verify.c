/* qmatmul verify MODEL.qmp [--gguf MODEL.gguf]: checks a cache file's
 * integrity (structure, every checksum, all padding), then whether this CPU
 * and build can use it (and, with --gguf, that it was made from that model).
 * Exit 0: intact and usable; 1: damaged or not a cache file (the message
 * names what); 3: intact but not usable here; 2: usage. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "text.h"

int cmd_verify(int argc, char **argv) {
    const char *path = NULL, *gguf = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gguf") == 0 && i + 1 < argc) {
            gguf = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: qmatmul verify MODEL.qmp [--gguf MODEL.gguf] [--quiet]\n"
                   "Checks a packed-weight cache file: its structure, every checksum and all padding; then\n"
                   "whether this CPU and qmatmul build can use it, and with --gguf that it was packed from\n"
                   "that model. Exit status: 0 intact and usable, 1 damaged or not a cache file, 3 intact\n"
                   "but not usable here, 2 usage error.\n");
            return 0;
        } else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "qmatmul verify: unexpected argument '%s' (--help)\n", argv[i]);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "usage: qmatmul verify MODEL.qmp [--gguf MODEL.gguf] [--quiet]\n");
        return 2;
    }
    qmm_cache *c = NULL;
    qmm_status st = qmm_cache_open_structure(path, &c);
    if (st == QMM_OK)
        st = qmm_cache_verify(c);
    if (st != QMM_OK) {
        /* an other format version is INCOMPATIBLE: intact for its writer */
        fprintf(stderr, "qmatmul verify: %s: %s\n", qmm_status_str(st), qmm_last_error());
        qmm_cache_close(c);
        return st == QMM_ERR_INCOMPATIBLE ? 3 : 1;
    }
    if (!quiet) {
        char ver[140];
        printf("%s: intact, %lld tensors, %llu bytes, written by qmatmul %s, source hash %016llx\n", path,
               (long long)qmm_cache_count(c), (unsigned long long)qmm_cache_file_size(c),
               qmm_tool_escape(qmm_cache_writer_version(c), ver, sizeof ver), (unsigned long long)qmm_cache_source_hash(c));
        for (int i = 0; i < qmm_cache_family_count(c); i++) {
            qmm_family_desc f;
            char name[112];
            if (qmm_cache_family_info(c, i, &f) == QMM_OK)
                printf("  family %-24s %-4s layout %u, tile %dx%d, n_step %d\n", qmm_tool_escape(f.name, name, sizeof name),
                       qmm_type_name(f.type), f.layout_id, f.mr, f.nr, f.n_step);
        }
        /* experts weights (3-D *_exps tensors, for qmm_mul_mat_id): their blobs say how many experts */
        int64_t nexp = 0, most = 0;
        for (int64_t i = 0; i < qmm_cache_count(c); i++) {
            qmm_weights *w = NULL;
            if (qmm_cache_get(c, qmm_cache_name(c, i), &w) == QMM_OK && qmm_weights_n_expert(w) > 1) {
                nexp++;
                most = qmm_weights_n_expert(w) > most ? qmm_weights_n_expert(w) : most;
            }
            qmm_weights_free(w);
        }
        if (nexp)
            printf("  %lld experts tensors (up to %lld experts each)\n", (long long)nexp, (long long)most);
    }
    int rc = 0;
    qmm_context *ctx;
    st = qmm_context_create(NULL, &ctx);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul verify: %s\n", qmm_last_error());
        qmm_cache_close(c);
        return 1;
    }
    st = qmm_cache_compatible(ctx, c, 0);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul verify: intact, but not usable here: %s\n", qmm_last_error());
        rc = 3;
    }
    /* from that model, and every tensor the model's of its name, type and shape */
    if (gguf && (st = qmm_cache_matches_gguf(c, gguf)) != QMM_OK) {
        fprintf(stderr, "qmatmul verify: intact, but not a cache of %s: %s\n", gguf, qmm_last_error());
        rc = st == QMM_ERR_INCOMPATIBLE ? 3 : 1;
    }
    if (rc == 0 && !quiet)
        printf("%s: OK, usable on this CPU%s%s\n", path, gguf ? " with " : "", gguf ? gguf : "");
    qmm_context_free(ctx);
    qmm_cache_close(c);
    return rc;
}
