/* The public entry points against inputs a hostile or careless caller hands
 * over (issue 49's defects of the library; the tools' are in
 * check_run_safety.py). Run under ASan + UBSan by scripts/run-sanitizers.sh,
 * where a misaligned access is an abort:
 * - sources and destinations at odd addresses (a GGUF file with
 *   general.alignment = 1): packing, qmm_dequantize and qmm_quantize give the
 *   bits of the aligned call;
 * - outputs whose elements alias each other through a dim of size 1, or that
 *   overlap an input: refused by every operation;
 * - a source shorter than its shape: an argument error before anything the
 *   size of that shape is allocated. */
#include <stdint.h>

#include "formats/formats.h"
#include "qmatmul.h"
#include "test_util.h"
#include "test_weights.h"

static qmm_context *ctx;

#define K 256 /* a multiple of every block */
#define N 24

/* The blob of w (its bytes), for comparing two packings. */
static int same_blob(const qmm_weights *a, const qmm_weights *b) {
    size_t sa, sb;
    const void *pa = qmm_weights_blob(a, &sa), *pb = qmm_weights_blob(b, &sb);
    return pa && pb && sa == sb && memcmp(pa, pb, sa) == 0;
}

/* Every packable type from an aligned and from an odd address: the same blob. */
static void test_unaligned_pack(void) {
    uint64_t seed = 49;
    for (int t = 0; t < QMM_TYPE_COUNT; t++) {
        const qmm_type type = (qmm_type)t;
        if (!qmm_type_packable(type))
            continue;
        const size_t bytes = qmm_row_size(type, K) * N * 2; /* two experts' worth */
        uint8_t *src = qmm_test_alloc(bytes + 64);
        qmm_test_random_blocks(type, K, 2 * N, src, 1, &seed);
        for (int off = 1; off < 4; off++) {
            uint8_t *odd = qmm_test_alloc(bytes + 64);
            memcpy(odd + off, src, bytes);
            qmm_weights *wa = NULL, *wb = NULL;
            CHECK_OK(qmm_weights_pack(ctx, type, K, N, src, bytes / 2, &wa));
            const qmm_status st = qmm_weights_pack(ctx, type, K, N, odd + off, bytes / 2, &wb);
            CHECK(st == QMM_OK && wa && wb && same_blob(wa, wb), "%s packed from offset %d: %s", qmm_type_name(type), off,
                  st ? qmm_last_error() : "blobs differ");
            qmm_weights_free(wa);
            qmm_weights_free(wb);
            wa = wb = NULL;
            CHECK_OK(qmm_experts_pack(ctx, type, K, N, 2, src, bytes, &wa));
            CHECK(qmm_experts_pack(ctx, type, K, N, 2, odd + off, bytes, &wb) == QMM_OK && wa && wb && same_blob(wa, wb),
                  "%s experts packed from offset %d", qmm_type_name(type), off);
            qmm_weights_free(wa);
            qmm_weights_free(wb);
            size_t need = 0;
            CHECK_OK(qmm_packed_size(ctx, type, K, N, &need));
            uint8_t *da = qmm_test_alloc(need), *db = qmm_test_alloc(need);
            CHECK_OK(qmm_pack_into(ctx, type, K, N, src, bytes / 2, da, need));
            CHECK(qmm_pack_into(ctx, type, K, N, odd + off, bytes / 2, db, need) == QMM_OK && memcmp(da, db, need) == 0,
                  "%s qmm_pack_into from offset %d", qmm_type_name(type), off);
            free(da);
            free(db);
            free(odd);
        }
        free(src);
    }
}

/* qmm_dequantize from and to odd addresses, qmm_quantize likewise: the bytes
 * of the aligned call. */
static void test_unaligned_convert(void) {
    uint64_t seed = 7;
    const int64_t rows = 3;
    for (int t = 0; t < QMM_TYPE_COUNT; t++) {
        const qmm_type type = (qmm_type)t;
        const size_t qb = qmm_row_size(type, K) * rows, fb = (size_t)K * rows * sizeof(float);
        if (qmm_type_has_dequantizer(type)) {
            uint8_t *q = qmm_test_alloc(qb + 8), *qo = qmm_test_alloc(qb + 8);
            uint8_t *f = qmm_test_alloc(fb + 8), *fo = qmm_test_alloc(fb + 8);
            qmm_test_random_blocks(type, K, rows, q, 0, &seed);
            memcpy(qo + 1, q, qb);
            CHECK_OK(qmm_dequantize(type, q, (float *)(void *)f, rows, K));
            const qmm_status st = qmm_dequantize(type, qo + 1, (float *)(void *)(fo + 3), rows, K);
            CHECK(st == QMM_OK && memcmp(f, fo + 3, fb) == 0, "%s dequantized at odd addresses", qmm_type_name(type));
            free(q);
            free(qo);
            free(f);
            free(fo);
        }
        if (qmm_type_has_quantizer(type)) {
            float *f = qmm_test_alloc(fb);
            for (int64_t i = 0; i < K * rows; i++)
                f[i] = qmm_test_rand_f(&seed) * 3.0f;
            uint8_t *fo = qmm_test_alloc(fb + 8), *q = qmm_test_alloc(qb + 8), *qo = qmm_test_alloc(qb + 8);
            memcpy(fo + 2, f, fb);
            CHECK_OK(qmm_quantize(type, f, q, rows, K));
            const qmm_status st = qmm_quantize(type, (const float *)(const void *)(fo + 2), qo + 1, rows, K);
            CHECK(st == QMM_OK && memcmp(q, qo + 1, qb) == 0, "%s quantized at odd addresses", qmm_type_name(type));
            free(f);
            free(fo);
            free(q);
            free(qo);
        }
    }
}

static qmm_tensor f32_view(int64_t n0, int64_t n1, int64_t n2, void *data) {
    qmm_tensor t;
    qmm_tensor_init(&t, QMM_TYPE_F32, 3, (int64_t[]){n0, n1, n2}, data);
    return t;
}

/* [n, 1, B] with every stride 4 bytes: B outputs on one row. Each operation
 * refuses it (and an output over an input); the same shape with room for
 * each batch is accepted. */
static void test_aliasing_outputs(void) {
    const int64_t n = 32, k = 64, B = 4;
    float *x = qmm_test_alloc((size_t)k * B * 4), *y = qmm_test_alloc((size_t)n * B * 4 + 4096);
    uint64_t seed = 3;
    for (int64_t i = 0; i < k * B; i++)
        x[i] = qmm_test_rand_f(&seed);
    uint8_t *wq = qmm_test_alloc(qmm_row_size(QMM_TYPE_Q8_0, k) * (size_t)n * 2);
    qmm_test_random_blocks(QMM_TYPE_Q8_0, k, 2 * n, wq, 1, &seed);
    qmm_weights *w = NULL, *we = NULL;
    CHECK_OK(qmm_weights_pack(ctx, QMM_TYPE_Q8_0, k, n, wq, qmm_row_size(QMM_TYPE_Q8_0, k) * (size_t)n, &w));
    CHECK_OK(qmm_experts_pack(ctx, QMM_TYPE_Q8_0, k, n, 2, wq, qmm_row_size(QMM_TYPE_Q8_0, k) * (size_t)n * 2, &we));

    qmm_tensor tx = f32_view(k, 1, B, x), ty = f32_view(n, 1, B, y);
    ty.nb[1] = 4;
    ty.nb[2] = 4;
    ty.nb[3] = 4;
    CHECK(qmm_mul_mat(ctx, w, &tx, &ty) == QMM_ERR_INVALID_ARG, "mul_mat: self-aliasing [n, 1, B] output accepted");
    qmm_tensor good = f32_view(n, 1, B, y);
    CHECK_OK(qmm_mul_mat(ctx, w, &tx, &good));
    /* y over x */
    qmm_tensor over = f32_view(n, 1, B, x);
    CHECK(qmm_mul_mat(ctx, w, &tx, &over) == QMM_ERR_INVALID_ARG, "mul_mat: output over the input accepted");

    /* MUL_MAT_ID: x [k, 1, B] shared by U = 1 chosen expert per token, y [n, 1, B] */
    int32_t ids[4] = {0, 1, 1, 0};
    qmm_tensor tid;
    qmm_tensor_init(&tid, QMM_TYPE_I32, 2, (int64_t[]){1, B}, ids);
    CHECK(qmm_mul_mat_id(ctx, we, &tx, &tid, &ty) == QMM_ERR_INVALID_ARG, "mul_mat_id: self-aliasing output accepted");
    CHECK_OK(qmm_mul_mat_id(ctx, we, &tx, &tid, &good));
    CHECK(qmm_mul_mat_id(ctx, we, &tx, &tid, &over) == QMM_ERR_INVALID_ARG, "mul_mat_id: output over x accepted");

    /* GET_ROWS: ids [1, B] -> out [k, 1, B] */
    const qmm_tensor rows_good = f32_view(k, 1, B, y);
    qmm_tensor rows_bad = rows_good;
    rows_bad.nb[1] = rows_bad.nb[2] = rows_bad.nb[3] = 4;
    for (int i = 0; i < 4; i++)
        ids[i] = i;
    CHECK(qmm_get_rows(ctx, w, &tid, &rows_bad) == QMM_ERR_INVALID_ARG, "get_rows: self-aliasing output accepted");
    CHECK_OK(qmm_get_rows(ctx, w, &tid, &rows_good));

    /* F16: w [k, n] F16, x [k, 1, B] -> y [n, 1, B] */
    uint16_t *wh = qmm_test_alloc((size_t)k * n * 2);
    for (int64_t i = 0; i < k * n; i++)
        wh[i] = qmm_fp32_to_fp16(qmm_test_rand_f(&seed));
    qmm_tensor tw;
    qmm_tensor_init(&tw, QMM_TYPE_F16, 2, (int64_t[]){k, n}, wh);
    CHECK(qmm_mul_mat_f16(ctx, &tw, &tx, &ty) == QMM_ERR_INVALID_ARG, "mul_mat_f16: self-aliasing output accepted");
    CHECK_OK(qmm_mul_mat_f16(ctx, &tw, &tx, &good));
    CHECK(qmm_mul_mat_f16(ctx, &tw, &tx, &over) == QMM_ERR_INVALID_ARG, "mul_mat_f16: output over x accepted");
    qmm_tensor over_w = f32_view(n, 1, B, wh);
    CHECK(qmm_mul_mat_f16(ctx, &tw, &tx, &over_w) == QMM_ERR_INVALID_ARG, "mul_mat_f16: output over w accepted");

    /* the same with a size-1 dim between: [n, 2, 1, 2] whose dim 3 steps
     * back onto dim 1's second row */
    qmm_tensor x4, y4;
    qmm_tensor_init(&x4, QMM_TYPE_F32, 4, (int64_t[]){k, 2, 1, 2}, x);
    qmm_tensor_init(&y4, QMM_TYPE_F32, 4, (int64_t[]){n, 2, 1, 2}, y);
    y4.nb[2] = 4;
    y4.nb[3] = (size_t)n * 4;
    CHECK(qmm_mul_mat(ctx, w, &x4, &y4) == QMM_ERR_INVALID_ARG, "mul_mat: [n, 2, 1, 2] stepping back accepted");
    free(wh);
    qmm_weights_free(w);
    qmm_weights_free(we);
    free(wq);
    free(x);
    free(y);
}

/* A source of 64 bytes for a shape of terabytes: INVALID_ARG, not an
 * allocation of the blob first (which fails as NO_MEMORY, or succeeds on an
 * overcommitting system). */
static void test_short_source(void) {
    uint8_t src[64] = {0};
    const int64_t k = (int64_t)1 << 20, n = (int64_t)1 << 22;
    qmm_weights *w = (qmm_weights *)src;
    qmm_status st = qmm_weights_pack(ctx, QMM_TYPE_Q8_0, k, n, src, sizeof src, &w);
    CHECK(st == QMM_ERR_INVALID_ARG && !w, "a 64-byte source for 4 TB of Q8_0: %s (%s)", qmm_status_str(st), qmm_last_error());
    st = qmm_experts_pack(ctx, QMM_TYPE_Q4_0, k, n, 4, src, sizeof src, &w);
    CHECK(st == QMM_ERR_INVALID_ARG && !w, "experts from a 64-byte source: %s (%s)", qmm_status_str(st), qmm_last_error());
    size_t need = 0;
    CHECK_OK(qmm_packed_size(ctx, QMM_TYPE_Q4_0, 64, 64, &need));
    void *dst = qmm_test_alloc(need);
    st = qmm_pack_into(ctx, QMM_TYPE_Q4_0, 64, 64, src, sizeof src, dst, need);
    CHECK(st == QMM_ERR_INVALID_ARG && strstr(qmm_last_error(), "source"), "qmm_pack_into from a short source: %s (%s)",
          qmm_status_str(st), qmm_last_error());
    free(dst);
}

int main(void) {
    ctx = qmm_test_context(2);
    test_unaligned_pack();
    test_unaligned_convert();
    test_aliasing_outputs();
    test_short_source();
    qmm_context_free(ctx);
    return qmm_test_summary();
}
