/* qmatmul pack MODEL.gguf -o MODEL.qmp: packs every supported weight of a
 * model for this CPU's kernel chains into a cache file (see src/io/cache.h).
 * --bench also times packing in memory against opening the cache. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "progress.h"
#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "qmatmul_gguf.h"
#include "text.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct pack_state {
    double t0;
} pack_state;

/* The cache writer's callback: the shared progress line (progress.h). */
static void progress(void *user, int64_t done, int64_t total, const char *name) {
    const pack_state *s = user;
    char shown[64];
    progress_line("packing [%lld/%lld] %.1f s  %s", (long long)done, (long long)total, now() - s->t0,
                  qmm_tool_escape(name, shown, sizeof shown));
    if (done == total)
        progress_done();
}

/* What qmm_cache_write packs (without a filter): the same test. */
static int packable(const qmm_gguf_tensor *t) {
    char why[160];
    return qmm_cache_tensor_cacheable(t, why, sizeof why);
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Drops a file's pages from the page cache (this file only): a cold start. */
static void evict(const char *path) {
    const int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd >= 0) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

/* In-memory packing of every weight (what an engine does without a cache)
 * against opening the cache and taking every weight from it. */
static int bench(qmm_context *ctx, const char *gguf_path, const char *out, int reps, int cold) {
    if (cold)
        evict(gguf_path);
    qmm_gguf *g;
    if (qmm_gguf_open(gguf_path, &g) != QMM_OK) {
        fprintf(stderr, "qmatmul pack: %s\n", qmm_last_error());
        return 1;
    }
    double t = now();
    uint64_t bytes = 0;
    int64_t n = 0;
    for (int64_t i = 0; i < qmm_gguf_tensor_count(g); i++) {
        const qmm_gguf_tensor *tt = qmm_gguf_tensor_at(g, i);
        if (!packable(tt))
            continue;
        qmm_weights *w;
        if (qmm_weights_pack(ctx, (qmm_type)tt->type, tt->ne[0], tt->ne[1], tt->data, (size_t)tt->size, &w) != QMM_OK) {
            fprintf(stderr, "qmatmul pack: %s: %s\n", tt->name, qmm_last_error());
            qmm_gguf_close(g);
            return 1;
        }
        size_t sz;
        qmm_weights_blob(w, &sz);
        bytes += sz;
        n++;
        qmm_weights_free(w);
    }
    const double t_pack = now() - t;
    qmm_gguf_close(g);
    int rc = 1;
    double *t_open = calloc((size_t)reps, sizeof(double)), *t_touch = calloc((size_t)reps, sizeof(double));
    double *t_index = calloc((size_t)reps, sizeof(double));
    qmm_weights **ws = calloc((size_t)(n ? n : 1), sizeof *ws);
    uint64_t sink = 0;
    if (!t_open || !t_touch || !t_index || !ws) {
        fprintf(stderr, "qmatmul pack: out of memory\n");
        goto out;
    }
    for (int r = 0; r < reps; r++) {
        if (cold)
            evict(out);
        t = now();
        qmm_cache_open_options o = {.gguf_path = gguf_path};
        qmm_cache *c;
        if (qmm_cache_open(ctx, out, &o, &c) != QMM_OK) {
            fprintf(stderr, "qmatmul pack: %s\n", qmm_last_error());
            goto out;
        }
        t_index[r] = now() - t;
        const int64_t cn = qmm_cache_count(c) < n ? qmm_cache_count(c) : n;
        int64_t got = 0;
        for (; got < cn; got++)
            if (qmm_cache_get(c, qmm_cache_name(c, got), &ws[got]) != QMM_OK)
                break;
        if (got < cn) {
            fprintf(stderr, "qmatmul pack: %s\n", qmm_last_error());
            for (int64_t i = 0; i < got; i++)
                qmm_weights_free(ws[i]);
            qmm_cache_close(c);
            goto out;
        }
        t_open[r] = now() - t;
        /* and reading every packed byte once (page cache warm) */
        for (int64_t i = 0; i < cn; i++) {
            size_t sz;
            const uint8_t *b = qmm_weights_blob(ws[i], &sz);
            uint64_t acc = 0;
            for (size_t p = 0; p < sz; p += 4096)
                acc += b[p];
            sink += acc;
        }
        t_touch[r] = now() - t;
        for (int64_t i = 0; i < cn; i++)
            qmm_weights_free(ws[i]);
        qmm_cache_close(c);
    }
    qsort(t_open, (size_t)reps, sizeof(double), cmp_double);
    qsort(t_touch, (size_t)reps, sizeof(double), cmp_double);
    qsort(t_index, (size_t)reps, sizeof(double), cmp_double);
    const double mo = t_open[reps / 2], mt = t_touch[reps / 2];
    printf("bench: %lld weights, %.2f GB packed (checksum of touched bytes %llu)\n", (long long)n, (double)bytes / 1e9,
           (unsigned long long)sink);
    printf("bench: page cache %s\n", cold ? "COLD (the GGUF and the cache file evicted before each step)" : "warm");
    printf("bench: pack in memory        %10.3f s\n", t_pack);
    const double mi = t_index[reps / 2];
    printf("bench: open cache (index)    %10.3f s (median of %d, source GGUF checked) %8.0fx faster\n", mi, reps, t_pack / mi);
    printf("bench: ... + get every weight %9.3f s                                      %8.0fx faster\n", mo, t_pack / mo);
    printf("bench: ... + touch every page %9.3f s                                      %8.1fx faster\n", mt, t_pack / mt);
    rc = 0;
out:
    free(t_open);
    free(t_touch);
    free(t_index);
    free(ws);
    return rc;
}

int cmd_pack(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    int quiet = 0, do_bench = 0, cold = 0, write = 1;
    qmm_options opts;
    memset(&opts, 0, sizeof opts);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            long long v;
            if (qmm_arg_int("pack", "--threads", argv[++i], 0, 4096, &v))
                return 2;
            opts.n_threads = (int)v;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--bench") == 0) {
            do_bench = 1;
        } else if (strcmp(argv[i], "--cold") == 0) {
            cold = 1;
        } else if (strcmp(argv[i], "--no-write") == 0) {
            write = 0;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: qmatmul pack MODEL.gguf -o MODEL.qmp [--threads N] [--quiet] [--bench [--cold] [--no-write]]\n"
                   "Packs every 2-D tensor of a packable type (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K,\n"
                   "IQ4_NL, IQ4_XS, MXFP4, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, TQ1_0, TQ2_0)\n"
                   "of MODEL.gguf, and every 3-D one named *_exps* as experts weights (qmm_mul_mat_id), "
                   "for this CPU's kernel chains (qmatmul info) and writes them to a cache file that engines open with "
                   "qmm_cache_open.\n"
                   "Other tensors are listed as skipped (a matrix that cannot be cached, zero-size or with a\n"
                   "name over 1023 bytes, with a warning); the exit status is 1 if nothing can be packed.\n"
                   "The file is written under a temporary name and renamed when complete; MODEL.qmp must be\n"
                   "a new path or a regular file, not the GGUF itself. --bench then times packing in memory\n"
                   "against opening the cache\n"
                   "(--cold: with the files evicted from the page cache first; --no-write: bench an existing cache).\n");
            return 0;
        } else if (argv[i][0] == '-' || in) {
            fprintf(stderr, "qmatmul pack: unexpected argument '%s' (--help)\n", argv[i]);
            return 2;
        } else {
            in = argv[i];
        }
    }
    if (!in || !out) {
        fprintf(stderr, "usage: qmatmul pack MODEL.gguf -o MODEL.qmp [--threads N] [--quiet] [--bench]\n");
        return 2;
    }
    qmm_context *ctx;
    qmm_status st = qmm_context_create(&opts, &ctx);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul pack: %s: %s\n", qmm_status_str(st), qmm_last_error());
        return 1;
    }
    /* what will be skipped, and why */
    qmm_gguf *g;
    st = qmm_gguf_open(in, &g);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul pack: %s: %s\n", qmm_status_str(st), qmm_last_error());
        qmm_context_free(ctx);
        return 1;
    }
    int64_t npack = 0, nskip = 0;
    for (int64_t i = 0; i < qmm_gguf_tensor_count(g); i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        char why[160], name[240];
        if (qmm_cache_tensor_cacheable(t, why, sizeof why)) {
            npack++;
            continue;
        }
        nskip++;
        /* a matrix of a packable type that still cannot be cached is worth a
         * warning even with --quiet; norms and other types are expected */
        const int matrix = t->known_type && (t->n_dims == 2 || (t->n_dims == 3 && strstr(t->name, "_exps"))) &&
                           t->type < QMM_TYPE_COUNT && qmm_type_packable((qmm_type)t->type);
        qmm_tool_escape(t->name, name, sizeof name);
        if (matrix)
            fprintf(stderr, "qmatmul pack: warning: skipped %s (%s)\n", name, why);
        else if (!quiet)
            fprintf(stderr, "skipped %s (%s)\n", name, why);
    }
    qmm_gguf_close(g);
    if (npack == 0) {
        fprintf(stderr,
                "qmatmul pack: %s has no tensor to pack (2-D, or 3-D *_exps, F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, "
                "Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, the IQ1..IQ3 types, TQ1_0 or TQ2_0): nothing written\n",
                in);
        qmm_context_free(ctx);
        return 1;
    }
    const char *prim[4];
    const qmm_type ts[4] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_F16, QMM_TYPE_F32};
    for (int i = 0; i < 4; i++)
        qmm_context_chain(ctx, ts[i], &prim[i], NULL);
    if (!quiet)
        fprintf(stderr, "packing %lld weights (%lld tensors skipped) for Q4_0: %s, Q8_0: %s, F16: %s, F32: %s\n",
                (long long)npack, (long long)nskip, prim[0], prim[1], prim[2], prim[3]);
    progress_init(quiet); /* on a terminal only */
    pack_state ps = {now()};
    qmm_cache_write_options wo = {.progress = progress, .user = &ps};
    st = write ? qmm_cache_write(ctx, in, out, &wo) : QMM_OK;
    const double secs = now() - ps.t0;
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul pack: %s: %s\n", qmm_status_str(st), qmm_last_error());
        qmm_context_free(ctx);
        return 1;
    }
    struct stat sb; /* stat, not open: with --no-write, out may be anything */
    const long long size = stat(out, &sb) == 0 ? (long long)sb.st_size : 0;
    if (write)
        printf("wrote %s: %lld weights, %.1f MB in %.2f s\n", out, (long long)npack, (double)size / 1e6, secs);
    int rc = 0;
    if (do_bench)
        rc = bench(ctx, in, out, cold ? 3 : 5, cold);
    qmm_context_free(ctx);
    return rc;
}
