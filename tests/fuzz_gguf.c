/* libFuzzer target for the GGUF reader: any bytes must give QMM_OK or
 * QMM_ERR_BAD_FILE with a message, never a crash, an overread or a huge
 * allocation; on success every accessor and the formatter are exercised.
 * Build with clang -fsanitize=fuzzer,address,undefined (QMM_SANITIZE). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* an exactly-sized copy, so reading one byte past the end is caught */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    qmm_gguf *g = NULL;
    const qmm_status st = qmm_gguf_open_memory(copy, size, &g);
    if (st != QMM_OK && (st != QMM_ERR_BAD_FILE || !qmm_last_error()[0] || g))
        abort();
    if (g) {
        char buf[256];
        volatile uint64_t sink = 0;
        for (int64_t i = 0; i < qmm_gguf_kv_count(g); i++) {
            const qmm_gguf_kv *kv = qmm_gguf_kv_at(g, i);
            if (qmm_gguf_find_key(g, kv->key) != i)
                abort();
            qmm_gguf_value_format(&kv->value, 4, buf, sizeof buf);
            qmm_gguf_value e;
            if (kv->value.type == QMM_GGUF_ARRAY && kv->value.len && qmm_gguf_array_get(&kv->value, kv->value.len - 1, &e)) {
                uint64_t u;
                double f;
                if (qmm_gguf_value_u64(&e, &u))
                    sink += u;
                if (qmm_gguf_value_f64(&e, &f))
                    sink += (uint64_t)(f == f);
            }
        }
        for (int64_t i = 0; i < qmm_gguf_tensor_count(g); i++) {
            const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, i);
            if (qmm_gguf_find_tensor(g, t->name) != i)
                abort();
            if (t->known_type && t->size) /* the whole range must be readable */
                sink += ((const uint8_t *)t->data)[0] + ((const uint8_t *)t->data)[t->size - 1];
        }
        (void)sink;
        qmm_gguf_close(g);
    }
    free(copy);
    return 0;
}
