/* model_ops MODEL.gguf CACHE.qmp: GET_ROWS and MUL_MAT on the weights of a
 * real model, for tests/check_models.py (which compares them with the `gguf`
 * package). Uses only the public headers, as an engine would: the weights come
 * from the cache file `qmatmul pack` wrote (opened for this GGUF, so the
 * cache must match the model and this CPU's kernels), and each one is also
 * packed in memory from the GGUF to check that the cache holds exactly the
 * blob packing gives.
 *
 * Requests on stdin, one per line; output files are raw float32, native order:
 *   list                      stdout: "packable TYPE" per packable type, then
 *                             "tensor NAME TYPE K N KERNEL" per cache entry
 *   rows NAME OUT ID...       the rows ID... of NAME (qmm_get_rows), ids.size x k
 *   mul NAME X M OUT          y = W x (qmm_mul_mat), x from file X (M rows of k),
 *                             y written as M rows of n
 * Prints "ok" per request on stdout; exits 1 on the first failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "qmatmul_gguf.h"

static qmm_context *ctx;
static qmm_gguf *gguf;
static qmm_cache *cache;

static int fail(const char *what, const char *name, qmm_status st) {
    fprintf(stderr, "model_ops: %s %s: %s: %s\n", what, name, qmm_status_str(st), qmm_last_error());
    return 1;
}

static int write_floats(const char *path, const float *v, size_t count) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, sizeof *v, count, f) != count || fclose(f) != 0) {
        fprintf(stderr, "model_ops: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

/* The cached weights of a GGUF tensor, checked to be the blob a fresh pack gives. */
static int cached_weights(const char *name, qmm_weights **out) {
    const int64_t ti = qmm_gguf_find_tensor(gguf, name);
    if (ti < 0) {
        fprintf(stderr, "model_ops: no tensor %s in the GGUF\n", name);
        return 1;
    }
    const qmm_gguf_tensor *t = qmm_gguf_tensor_at(gguf, ti);
    qmm_status st = qmm_cache_get(cache, name, out);
    if (st != QMM_OK)
        return fail("cache_get", name, st);
    qmm_weights *fresh;
    st = qmm_weights_pack(ctx, (qmm_type)t->type, t->ne[0], t->ne[1], t->data, (size_t)t->size, &fresh);
    if (st != QMM_OK)
        return fail("weights_pack", name, st);
    size_t cached_size, fresh_size;
    const void *cached_blob = qmm_weights_blob(*out, &cached_size), *fresh_blob = qmm_weights_blob(fresh, &fresh_size);
    const int same = cached_size == fresh_size && memcmp(cached_blob, fresh_blob, cached_size) == 0;
    qmm_weights_free(fresh);
    if (!same || qmm_weights_k(*out) != t->ne[0] || qmm_weights_n(*out) != t->ne[1]) {
        fprintf(stderr, "model_ops: %s: the cached blob is not the one packing the GGUF tensor gives\n", name);
        return 1;
    }
    return 0;
}

static int list(void) {
    for (int t = 0; t < QMM_TYPE_COUNT; t++)
        if (qmm_type_packable((qmm_type)t))
            printf("packable %s\n", qmm_type_name((qmm_type)t));
    for (int64_t i = 0; i < qmm_cache_count(cache); i++) {
        const char *name = qmm_cache_name(cache, i);
        qmm_weights *w;
        const qmm_status st = qmm_cache_get(cache, name, &w);
        if (st != QMM_OK)
            return fail("cache_get", name, st);
        printf("tensor %s %s %lld %lld %s\n", name, qmm_type_name(qmm_weights_type(w)), (long long)qmm_weights_k(w),
               (long long)qmm_weights_n(w), qmm_weights_kernel(w));
        qmm_weights_free(w);
    }
    return 0;
}

static int rows(const char *name, const char *out, char *ids_text) {
    int32_t ids[256];
    int64_t count = 0;
    for (char *tok = strtok(ids_text, " \n"); tok; tok = strtok(NULL, " \n")) {
        if (count == 256) {
            fprintf(stderr, "model_ops: at most 256 ids\n");
            return 1;
        }
        ids[count++] = (int32_t)strtol(tok, NULL, 10);
    }
    qmm_weights *w;
    if (count == 0 || cached_weights(name, &w))
        return 1;
    const int64_t k = qmm_weights_k(w);
    float *y = malloc((size_t)(count * k) * sizeof *y);
    qmm_tensor ti, to;
    qmm_status st = y ? QMM_OK : QMM_ERR_NO_MEMORY;
    if (st == QMM_OK)
        st = qmm_tensor_init(&ti, QMM_TYPE_I32, 1, (int64_t[]){count}, ids);
    if (st == QMM_OK)
        st = qmm_tensor_init(&to, QMM_TYPE_F32, 2, (int64_t[]){k, count}, y);
    if (st == QMM_OK)
        st = qmm_get_rows(ctx, w, &ti, &to);
    int rc = st != QMM_OK ? fail("get_rows", name, st) : write_floats(out, y, (size_t)(count * k));
    free(y);
    qmm_weights_free(w);
    return rc;
}

static int mul(const char *name, const char *x_path, int64_t m, const char *out) {
    qmm_weights *w;
    if (m < 1 || cached_weights(name, &w))
        return 1;
    const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w);
    float *x = malloc((size_t)(m * k) * sizeof *x), *y = malloc((size_t)(m * n) * sizeof *y);
    FILE *f = fopen(x_path, "rb");
    int rc = !x || !y || !f || fread(x, sizeof *x, (size_t)(m * k), f) != (size_t)(m * k);
    if (f)
        fclose(f);
    if (rc) {
        fprintf(stderr, "model_ops: cannot read %lld x %lld floats from %s\n", (long long)m, (long long)k, x_path);
    } else {
        qmm_tensor tx, ty;
        qmm_status st = qmm_tensor_init(&tx, QMM_TYPE_F32, 2, (int64_t[]){k, m}, x);
        if (st == QMM_OK)
            st = qmm_tensor_init(&ty, QMM_TYPE_F32, 2, (int64_t[]){n, m}, y);
        if (st == QMM_OK)
            st = qmm_mul_mat(ctx, w, &tx, &ty);
        rc = st != QMM_OK ? fail("mul_mat", name, st) : write_floats(out, y, (size_t)(m * n));
    }
    free(x);
    free(y);
    qmm_weights_free(w);
    return rc;
}

static int request(char *line) {
    char *op = strtok(line, " \n");
    if (!op)
        return 0;
    if (strcmp(op, "list") == 0)
        return list();
    char *name = strtok(NULL, " \n"), *a = strtok(NULL, " \n");
    if (name && a && strcmp(op, "rows") == 0)
        return rows(name, a, strtok(NULL, ""));
    char *m = strtok(NULL, " \n"), *out = strtok(NULL, " \n");
    if (name && a && m && out && strcmp(op, "mul") == 0)
        return mul(name, a, strtoll(m, NULL, 10), out);
    fprintf(stderr, "model_ops: bad request '%s'\n", op);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: model_ops MODEL.gguf CACHE.qmp < requests\n");
        return 2;
    }
    qmm_status st = qmm_context_create(NULL, &ctx);
    if (st == QMM_OK)
        st = qmm_gguf_open(argv[1], &gguf);
    const qmm_cache_open_options o = {.gguf_path = argv[1]};
    if (st == QMM_OK)
        st = qmm_cache_open(ctx, argv[2], &o, &cache);
    if (st != QMM_OK)
        return fail("open", argv[2], st);
    static char line[1 << 16];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, stdin)) {
        rc = request(line);
        if (rc == 0)
            printf("ok\n");
        fflush(stdout);
    }
    qmm_cache_close(cache);
    qmm_gguf_close(gguf);
    qmm_context_free(ctx);
    return rc;
}
