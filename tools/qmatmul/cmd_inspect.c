/* qmatmul inspect FILE.gguf: the file's metadata (key = value, arrays
 * shortened) and its tensor table (name, type, shape, bytes). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmatmul.h"
#include "qmatmul_gguf.h"
#include "text.h"

#include "args.h"
#include "commands.h"

static void usage(FILE *f) {
    fprintf(f, "usage: qmatmul inspect [--items N] FILE.gguf\n"
               "  Prints the metadata (key = value; arrays show their first N items, default 8)\n"
               "  and the tensor table (name, type, shape, bytes, offset in the data section).\n");
}

static const char *type_str(uint32_t type, char *tmp, size_t n) {
    const char *s = type < QMM_TYPE_COUNT ? qmm_type_name((qmm_type)type) : NULL;
    if (s)
        return s;
    snprintf(tmp, n, "type%" PRIu32 "?", type);
    return tmp;
}

static void human_bytes(uint64_t b, char *out, size_t n) {
    if (b >= (1ull << 30))
        snprintf(out, n, "%.2f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(out, n, "%.2f MiB", (double)b / (double)(1ull << 20));
    else if (b >= (1ull << 10))
        snprintf(out, n, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(out, n, "%" PRIu64 " B", b);
}

int cmd_inspect(int argc, char **argv) {
    const char *path = NULL;
    int items = 8;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--items") == 0 && i + 1 < argc) {
            long long v;
            if (qmm_arg_int("inspect", argv[i], argv[i + 1], 0, 1 << 20, &v))
                return 2;
            items = (int)v;
            i++;
        } else if (argv[i][0] == '-' || path) {
            usage(stderr);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    qmm_gguf *g = NULL;
    qmm_status st = qmm_gguf_open(path, &g);
    if (st != QMM_OK) {
        fprintf(stderr, "qmatmul inspect: %s: %s\n", qmm_status_str(st), qmm_last_error());
        return 1;
    }
    char hb[32];
    human_bytes(qmm_gguf_file_size(g), hb, sizeof hb);
    printf("file: %s\n", path);
    printf("  %" PRIu64 " bytes (%s), GGUF v%" PRIu32 ", alignment %" PRIu64 ", data section at offset %" PRIu64 "\n",
           qmm_gguf_file_size(g), hb, qmm_gguf_version(g), qmm_gguf_alignment(g), qmm_gguf_data_offset(g));

    const int64_t nkv = qmm_gguf_kv_count(g);
    printf("\nmetadata (%" PRId64 " keys):\n", nkv);
    char buf[256], key[320];
    for (int64_t i = 0; i < nkv; i++) {
        const qmm_gguf_kv *kv = qmm_gguf_kv_at(g, i);
        qmm_gguf_value_format(&kv->value, items, buf, sizeof buf);
        qmm_tool_escape(kv->key, key, sizeof key);
        if (kv->value.type == QMM_GGUF_ARRAY)
            printf("  %s = %s  (%s[%" PRIu64 "])\n", key, buf, qmm_gguf_vtype_name(kv->value.elem_type), kv->value.len);
        else
            printf("  %s = %s\n", key, buf);
    }

    const int64_t nt = qmm_gguf_tensor_count(g);
    int name_w = 4;
    for (int64_t i = 0; i < nt; i++) {
        const int l = (int)strlen(qmm_gguf_tensor_at(g, i)->name);
        if (l > name_w)
            name_w = l;
    }
    if (name_w > 60)
        name_w = 60;
    printf("\ntensors (%" PRId64 "):\n", nt);
    printf("  %-*s  %-7s  %-24s  %14s  %14s\n", name_w, "name", "type", "shape (ne0, ne1, ...)", "bytes", "offset");
    uint64_t total = 0;
    int n_unknown = 0;
    /* bytes per type for the summary */
    uint64_t by_type[QMM_TYPE_COUNT] = {0};
    int64_t count_type[QMM_TYPE_COUNT] = {0};
    for (int64_t i = 0; i < nt; i++) {
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
        char shape[64], tmp[24], name[320];
        qmm_tool_escape(t->name, name, sizeof name);
        int n = snprintf(shape, sizeof shape, "[");
        for (uint32_t d = 0; d < (t->n_dims ? t->n_dims : 1) && n < (int)sizeof shape; d++)
            n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%" PRId64, d ? ", " : "", t->ne[d]);
        if (n < (int)sizeof shape)
            snprintf(shape + n, sizeof shape - (size_t)n, "]");
        if (t->known_type) {
            printf("  %-*s  %-7s  %-24s  %14" PRIu64 "  %14" PRIu64 "\n", name_w, name, type_str(t->type, tmp, sizeof tmp), shape,
                   t->size, t->offset);
            total += t->size;
            by_type[t->type] += t->size;
            count_type[t->type]++;
        } else {
            printf("  %-*s  %-7s  %-24s  %14s  %14" PRIu64 "\n", name_w, name, type_str(t->type, tmp, sizeof tmp), shape,
                   "unknown type", t->offset);
            n_unknown++;
        }
    }
    human_bytes(total, hb, sizeof hb);
    printf("\ntotal tensor data: %" PRIu64 " bytes (%s)", total, hb);
    if (n_unknown)
        printf(", plus %d tensor(s) of types this build cannot size", n_unknown);
    printf("\nby type:");
    for (int t = 0; t < QMM_TYPE_COUNT; t++)
        if (count_type[t]) {
            human_bytes(by_type[t], hb, sizeof hb);
            printf("  %s: %" PRId64 " (%s)", qmm_type_name((qmm_type)t), count_type[t], hb);
        }
    printf("\n");
    qmm_gguf_close(g);
    return 0;
}
