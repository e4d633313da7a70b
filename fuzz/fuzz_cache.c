/* libFuzzer target: the cache-file reader. Each input is opened as is, and
 * again with its header and index checksums re-sealed (so mutations reach the
 * checks behind them); an accepted cache is verified, every tensor taken and
 * multiplied, and the cache closed before or after its weights. */
#include "fuzz_common.h"
#include "io/cache.h"
#include "packed/packed.h"
#include "qmatmul_cache.h"

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void reseal(uint8_t *img, size_t size) {
    if (size < QMM_CACHE_HEADER)
        return;
    const uint64_t nfam = get(img + 64, 4), ntens = get(img + 68, 4), ssize = get(img + 72, 8);
    const uint64_t meta = (nfam + ntens) * QMM_CACHE_ENTRY;
    if (nfam <= QMM_CACHE_MAX_FAMILIES && ntens <= QMM_CACHE_MAX_TENSORS && ssize <= size && meta <= size &&
        QMM_CACHE_HEADER + meta + ssize <= size)
        put32(img + 92, qmm_crc32(0, img + QMM_CACHE_HEADER, (size_t)(meta + ssize)));
    memset(img + 252, 0, 4);
    put32(img + 252, qmm_crc32(0, img, QMM_CACHE_HEADER));
}

static void exercise(qmm_context *ctx, qmm_cache *c, int close_first) {
    const int64_t n = qmm_cache_count(c);
    qmm_weights *ws[8] = {0};
    int nw = 0;
    for (int64_t i = 0; i < n && i < 64; i++) {
        const char *name = qmm_cache_name(c, i);
        FUZZ_ASSERT(name && qmm_cache_find(c, name) == i);
        qmm_weights *w = NULL;
        const qmm_status st = qmm_cache_get(c, name, &w);
        FUZZ_ASSERT((st == QMM_OK) == (w != NULL));
        if (!w)
            continue;
        const int64_t k = qmm_weights_k(w), rows = qmm_weights_n(w);
        if (k * rows <= ((int64_t)1 << 20)) {
            float *x = calloc((size_t)k, sizeof(float)), *y = malloc(sizeof(float) * (size_t)rows);
            if (!x || !y)
                abort();
            qmm_tensor tx, ty;
            const int64_t nex[1] = {k}, ney[1] = {rows};
            FUZZ_ASSERT(qmm_tensor_init(&tx, QMM_TYPE_F32, 1, nex, x) == QMM_OK);
            FUZZ_ASSERT(qmm_tensor_init(&ty, QMM_TYPE_F32, 1, ney, y) == QMM_OK);
            if (qmm_weights_n_expert(w) == 1) {
                FUZZ_ASSERT(qmm_mul_mat(ctx, w, &tx, &ty) == QMM_OK);
            } else { /* experts weights: the last expert */
                int32_t id = (int32_t)(qmm_weights_n_expert(w) - 1);
                qmm_tensor ti;
                FUZZ_ASSERT(qmm_tensor_init(&ti, QMM_TYPE_I32, 1, (const int64_t[]){1}, &id) == QMM_OK);
                FUZZ_ASSERT(qmm_mul_mat_id(ctx, w, &tx, &ti, &ty) == QMM_OK);
            }
            free(x);
            free(y);
        }
        if (nw < 8)
            ws[nw++] = w;
        else
            qmm_weights_free(w);
    }
    if (close_first)
        qmm_cache_close(c);
    for (int i = 0; i < nw; i++)
        qmm_weights_free(ws[i]);
    if (!close_first)
        qmm_cache_close(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    qmm_context *ctx = fuzz_ctx(1);
    for (int pass = 0; pass < 2; pass++) {
        uint8_t *img = fuzz_copy(data, size);
        if (pass)
            reseal(img, size);
        const unsigned modes[3] = {QMM_CACHE_STRUCTURE_ONLY | QMM_CACHE_VERIFY, QMM_CACHE_ANY_KERNELS, 0};
        for (int m = 0; m < 3; m++) {
            qmm_cache *c = NULL;
            const qmm_status st = qmm_cache_open_memory(m == 0 ? NULL : ctx, img, size, modes[m], 0, &c);
            FUZZ_ASSERT((st == QMM_OK) == (c != NULL));
            FUZZ_ASSERT(st == QMM_OK || st == QMM_ERR_BAD_FILE || st == QMM_ERR_INCOMPATIBLE || st == QMM_ERR_BAD_BLOB ||
                        st == QMM_ERR_NO_MEMORY);
            if (!c)
                continue;
            if (m == 0) {
                qmm_cache_close(c);
                continue;
            }
            qmm_cache_verify(c);
            exercise(ctx, c, (int)(size & 1));
        }
        free(img);
    }
    return 0;
}
