/* libFuzzer target: the GGUF reader. A file it accepts must be safe to use
 * in full: every key and value read and formatted, every array element, every
 * tensor's data read, and the packable 2-D tensors packed (the packer trusts
 * the reader's sizes). */
#include "fuzz_common.h"
#include "io/gguf.h"

static void use_value(const qmm_gguf_value *v, int depth) {
    char buf[256];
    qmm_gguf_value_format(v, 8, buf, sizeof buf);
    uint64_t u;
    int64_t i;
    double d;
    const char *s;
    uint64_t len;
    qmm_gguf_value_u64(v, &u);
    qmm_gguf_value_i64(v, &i);
    qmm_gguf_value_f64(v, &d);
    if (qmm_gguf_value_str(v, &s, &len)) {
        for (uint64_t j = 0; j < len; j++)
            fuzz_sink ^= (uint8_t)s[j];
    }
    if (v->type == QMM_GGUF_ARRAY && depth < 4) {
        for (uint64_t j = 0; j < v->len && j < 64; j++) {
            qmm_gguf_value e;
            if (qmm_gguf_array_get(v, j, &e))
                use_value(&e, depth + 1);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *img = fuzz_copy(data, size);
    qmm_gguf *g = NULL;
    const qmm_status st = qmm_gguf_open_memory(img, size, &g);
    FUZZ_ASSERT((st == QMM_OK) == (g != NULL));
    if (g) {
        FUZZ_ASSERT(qmm_gguf_data_offset(g) <= size);
        for (int64_t i = 0; i < qmm_gguf_kv_count(g); i++) {
            const qmm_gguf_kv *kv = qmm_gguf_kv_at(g, i);
            FUZZ_ASSERT(qmm_gguf_find_key(g, kv->key) >= 0);
            use_value(&kv->value, 0);
        }
        qmm_context *ctx = fuzz_ctx(1);
        for (int64_t i = 0; i < qmm_gguf_tensor_count(g); i++) {
            const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
            FUZZ_ASSERT(qmm_gguf_find_tensor(g, t->name) >= 0);
            if (!t->data)
                continue;
            const uint8_t *p = t->data;
            FUZZ_ASSERT(p >= img && p + t->size <= img + size);
            for (uint64_t j = 0; j < t->size; j++)
                fuzz_sink ^= p[j];
            if (t->n_dims == 2 && t->ne[0] * t->ne[1] <= 65536) {
                qmm_weights *w = NULL;
                if (qmm_weights_pack(ctx, (qmm_type)t->type, t->ne[0], t->ne[1], t->data, (size_t)t->size, &w) == QMM_OK)
                    qmm_weights_free(w);
            }
        }
        qmm_gguf_close(g);
    }
    free(img);
    return 0;
}
