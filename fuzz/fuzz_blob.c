/* libFuzzer target: the packed-blob validator (qmm_weights_from_blob), and
 * every kernel reading a blob it accepted (MUL_MAT with one and with several
 * activation rows, GET_ROWS). Half the runs re-seal the header checksum first,
 * so mutations reach the checks behind it. */
#include <stdio.h>

#include "fuzz_common.h"
#include "packed/packed.h"

static void exercise_matrix(qmm_context *ctx, const qmm_weights *w) {
    const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w);
    for (int64_t m = 1; m <= 3; m += 2) {
        float *x = malloc(sizeof(float) * (size_t)(k * m)), *y = malloc(sizeof(float) * (size_t)(n * m));
        if (!x || !y)
            abort();
        for (int64_t i = 0; i < k * m; i++)
            x[i] = (float)((i * 7) % 13) - 6.0f;
        qmm_tensor tx, ty;
        const int64_t nex[2] = {k, m}, ney[2] = {n, m};
        FUZZ_ASSERT(qmm_tensor_init(&tx, QMM_TYPE_F32, 2, nex, x) == QMM_OK);
        FUZZ_ASSERT(qmm_tensor_init(&ty, QMM_TYPE_F32, 2, ney, y) == QMM_OK);
        FUZZ_ASSERT(qmm_mul_mat(ctx, w, &tx, &ty) == QMM_OK);
        free(x);
        free(y);
    }
    int32_t ids[2] = {0, (int32_t)(n - 1)};
    float *out = malloc(sizeof(float) * (size_t)(2 * k));
    if (!out)
        abort();
    qmm_tensor ti, to;
    const int64_t nei[1] = {2}, neo[2] = {k, 2};
    FUZZ_ASSERT(qmm_tensor_init(&ti, QMM_TYPE_I32, 1, nei, ids) == QMM_OK);
    FUZZ_ASSERT(qmm_tensor_init(&to, QMM_TYPE_F32, 2, neo, out) == QMM_OK);
    FUZZ_ASSERT(qmm_get_rows(ctx, w, &ti, &to) == QMM_OK);
    free(out);
}

/* A matrix; of experts weights the first and last expert's views, and
 * MUL_MAT_ID routing a token to both. */
static void exercise(qmm_context *ctx, const qmm_weights *w) {
    const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w), ne = qmm_weights_n_expert(w);
    if (k * n > ((int64_t)1 << 22) || ne > 64)
        return; /* a huge but valid blob: validation is what is fuzzed */
    if (ne == 1) {
        exercise_matrix(ctx, w);
        return;
    }
    for (int64_t e = 0; e < ne; e += ne - 1) {
        qmm_weights *v = NULL;
        FUZZ_ASSERT(qmm_weights_expert(w, e, &v) == QMM_OK);
        exercise_matrix(ctx, v);
        qmm_weights_free(v);
    }
    float *x = malloc(sizeof(float) * (size_t)k), *y = malloc(sizeof(float) * (size_t)(2 * n));
    if (!x || !y)
        abort();
    for (int64_t i = 0; i < k; i++)
        x[i] = (float)((i * 5) % 11) - 5.0f;
    int32_t ids[2] = {(int32_t)(ne - 1), 0};
    qmm_tensor tx, ti, ty;
    FUZZ_ASSERT(qmm_tensor_init(&tx, QMM_TYPE_F32, 3, (const int64_t[]){k, 1, 1}, x) == QMM_OK);
    FUZZ_ASSERT(qmm_tensor_init(&ti, QMM_TYPE_I32, 2, (const int64_t[]){2, 1}, ids) == QMM_OK);
    FUZZ_ASSERT(qmm_tensor_init(&ty, QMM_TYPE_F32, 3, (const int64_t[]){n, 2, 1}, y) == QMM_OK);
    FUZZ_ASSERT(qmm_mul_mat_id(ctx, w, &tx, &ti, &ty) == QMM_OK);
    free(x);
    free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    qmm_context *ctx = fuzz_ctx(1);
    for (int reseal = 0; reseal < 2; reseal++) {
        uint8_t *blob = fuzz_copy(data, size);
        if (reseal) {
            if (size < QMM_BLOB_HEADER) {
                free(blob);
                break;
            }
            memset(blob + 128, 0, 4);
            const uint32_t crc = qmm_crc32(0, blob, QMM_BLOB_HEADER);
            for (int i = 0; i < 4; i++)
                blob[128 + i] = (uint8_t)(crc >> (8 * i));
        }
        qmm_weights *w = NULL;
        const qmm_status st = qmm_weights_from_blob(ctx, blob, size, &w);
        FUZZ_ASSERT((st == QMM_OK) == (w != NULL));
        FUZZ_ASSERT(st == QMM_OK || st == QMM_ERR_BAD_BLOB || st == QMM_ERR_INCOMPATIBLE || st == QMM_ERR_INVALID_ARG);
        if (w) {
            size_t bs;
            FUZZ_ASSERT(qmm_weights_blob(w, &bs) == blob && bs == size);
            exercise(ctx, w);
            qmm_weights_free(w);
        }
        free(blob);
    }
    return 0;
}
