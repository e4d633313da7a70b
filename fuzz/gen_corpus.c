/* Writes the seed corpora of fuzz_blob, fuzz_cache and fuzz_mul_mat_args (MUL_MAT_ID too)
 * into DIR/<target>/ (fuzz/corpus in the repo; fuzz_gguf's seeds come from
 * gen_gguf_corpus.py). usage: fuzz_gen_corpus DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/cache.h"
#include "qmatmul.h"
#include "qmatmul_cache.h"

static char root[1024];

static void save(const char *target, const char *name, const void *data, size_t size) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static void *weights_src(qmm_type type, int64_t k, int64_t n, size_t *size) {
    const size_t rb = qmm_row_size(type, k);
    float *f = malloc(sizeof(float) * (size_t)(k * n));
    void *src = malloc(rb * (size_t)n);
    for (int64_t i = 0; i < k * n; i++)
        f[i] = (float)((i * 13) % 11) * 0.5f - 2.5f;
    if (type == QMM_TYPE_F32)
        memcpy(src, f, sizeof(float) * (size_t)(k * n));
    else
        qmm_quantize(type, f, src, n, k);
    free(f);
    *size = rb * (size_t)n;
    return src;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_gen_corpus DIR\n");
        return 2;
    }
    snprintf(root, sizeof root, "%s", argv[1]);
    qmm_options o = {0};
    o.n_threads = 1;
    o.flags = QMM_IGNORE_ENV;
    qmm_context *ctx;
    if (qmm_context_create(&o, &ctx) != QMM_OK)
        return 1;
    const qmm_type types[4] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_F16, QMM_TYPE_F32};
    const char *tn[4] = {"q4_0", "q8_0", "f16", "f32"};
    const int64_t shapes[3][2] = {{32, 1}, {64, 3}, {96, 5}};

    /* blobs */
    for (int t = 0; t < 4; t++)
        for (int s = 0; s < 3; s++) {
            size_t ssize, bsize;
            void *src = weights_src(types[t], shapes[s][0], shapes[s][1], &ssize);
            qmm_packed_size(ctx, types[t], shapes[s][0], shapes[s][1], &bsize);
            void *blob = NULL;
            if (posix_memalign(&blob, 64, bsize))
                return 1;
            if (qmm_pack_into(ctx, types[t], shapes[s][0], shapes[s][1], src, ssize, blob, bsize) != QMM_OK)
                return 1;
            char name[64];
            snprintf(name, sizeof name, "%s_%lldx%lld.blob", tn[t], (long long)shapes[s][1], (long long)shapes[s][0]);
            save("fuzz_blob", name, blob, bsize);
            free(blob);
            free(src);
        }

    /* experts weights: a blob of 3 experts, and a cache holding it with a matrix */
    {
        size_t ssize;
        void *src = weights_src(QMM_TYPE_Q4_0, 64, 9, &ssize); /* 9 rows: 3 experts of 3 */
        qmm_weights *w = NULL;
        if (qmm_experts_pack(ctx, QMM_TYPE_Q4_0, 64, 3, 3, src, ssize, &w) != QMM_OK)
            return 1;
        size_t bsize;
        const void *blob = qmm_weights_blob(w, &bsize);
        save("fuzz_blob", "q4_0_3x3x64_experts.blob", blob, bsize);
        qmm_weights_free(w);
        const qmm_cache_item items[2] = {{{"blk.0.attn_q.weight", QMM_TYPE_Q4_0, 64, 3, src, ssize}, 1},
                                         {{"blk.0.ffn_up_exps.weight", QMM_TYPE_Q4_0, 64, 3, src, ssize}, 3}};
        char path[1400];
        snprintf(path, sizeof path, "%s/fuzz_cache/experts.qmp", root);
        if (qmm_cache_write_file(ctx, items, 2, 0x5eed, path, NULL, NULL, NULL) != QMM_OK) {
            fprintf(stderr, "%s\n", qmm_last_error());
            return 1;
        }
        free(src);
    }

    /* caches: one tensor, all four types, empty */
    {
        void *srcs[4];
        qmm_cache_tensor list[4];
        const char *names[4] = {"blk.0.attn_q.weight", "blk.0.ffn_up.weight", "output.weight", "tok"};
        for (int t = 0; t < 4; t++) {
            size_t ssize;
            srcs[t] = weights_src(types[t], shapes[t % 3][0], shapes[t % 3][1], &ssize);
            list[t] = (qmm_cache_tensor){names[t], types[t], shapes[t % 3][0], shapes[t % 3][1], srcs[t], ssize};
        }
        const int counts[3] = {1, 4, 0};
        const char *files[3] = {"one.qmp", "four.qmp", "empty.qmp"};
        for (int i = 0; i < 3; i++) {
            char path[1400];
            snprintf(path, sizeof path, "%s/fuzz_cache/%s", root, files[i]);
            if (qmm_cache_write_tensors(ctx, list, counts[i], 0x5eed + (uint64_t)i, path, NULL) != QMM_OK) {
                fprintf(stderr, "%s\n", qmm_last_error());
                return 1;
            }
        }
        for (int t = 0; t < 4; t++)
            free(srcs[t]);
    }

    /* mul_mat args: the parse order of fuzz_mul_mat_args.c with valid
     * choices (type as wanted, dims as wanted, natural strides, aligned data) */
    for (int op = 0; op < 4; op++)
        for (int form = 0; form < 3; form++)
            for (int ws = 0; ws < 12; ws += 5) {
                uint8_t b[128];
                size_t n = 0;
                b[n++] = (uint8_t)op;
                b[n++] = (uint8_t)form;
                b[n++] = (uint8_t)ws;
                b[n++] = 2; /* m = 3 */
                b[n++] = 1; /* b2 = 2 */
                b[n++] = 0; /* b3 = 1 */
                if (op == 2) {
                    b[n++] = 1; /* kb = 64 */
                    b[n++] = 4; /* nb = 5 */
                    b[n++] = 1; /* w batches = b2 */
                }
                if (op == 3)
                    b[n++] = ws == 5 ? 0 : 3; /* x rows per token: 1 (shared), or m */
                const int views = op >= 2 ? 3 : 2;
                for (int v = 0; v < views; v++) {
                    b[n++] = 0; /* type as wanted */
                    for (int d = 0; d < 4; d++)
                        b[n++] = 9; /* dim as wanted */
                    for (int d = 0; d < 4; d++)
                        b[n++] = (uint8_t)(v == 1 && d == 1 ? 1 : 6); /* natural strides; y rows padded */
                    b[n++] = 64;                                      /* data at offset 0 */
                }
                if (op == 1 || op == 3)
                    b[n++] = 200; /* ids all in range */
                b[n++] = 2;       /* nth = 1 */
                b[n++] = 1;       /* ith = 0 */
                b[n++] = 1;       /* sync complete */
                b[n++] = 255;     /* full work buffer */
                char name[64];
                snprintf(name, sizeof name, "op%d_form%d_w%d", op, form, ws);
                save("fuzz_mul_mat_args", name, b, n);
            }
    qmm_context_free(ctx);
    return 0;
}
