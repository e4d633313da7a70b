/* Every public function with each kind of bad argument: NULL pointers, zero
 * and negative dims, overflowing sizes, misaligned or inconsistent strides,
 * wrong types, k not a multiple of the block, thread ids out of range, short
 * buffers. A status comes back (never OK), nothing crashes (run under ASan +
 * UBSan by scripts/run-sanitizers.sh), out-pointers are cleared, and nothing
 * is written outside the outputs: every output lives in a canary-filled
 * buffer that must be unchanged after an error, and unchanged outside the
 * output's own elements after a success. */
#include <stdint.h>
#include <unistd.h>

#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "test_pool.h"
#include "test_util.h"

#define CANARY 0x5a
#define BIG    (1 << 20)

static qmm_context *ctx;
static uint8_t *ybuf;   /* output arena, canary-filled */
static uint8_t *xbuf;   /* input arena */
static uint8_t *shadow; /* to compare */

static void arm(void) {
    memset(ybuf, CANARY, BIG);
    memcpy(shadow, xbuf, BIG);
}
static int y_untouched(void) {
    for (size_t i = 0; i < BIG; i++)
        if (ybuf[i] != CANARY)
            return 0;
    return 1;
}
static int x_untouched(void) { return memcmp(xbuf, shadow, BIG) == 0; }

/* An error status (not OK, a known one), a message, outputs untouched. */
#define EXPECT_ERR(expr, want)                                                                                                   \
    do {                                                                                                                         \
        arm();                                                                                                                   \
        const qmm_status s_ = (expr);                                                                                            \
        CHECK(s_ == (want), "%s -> %s, expected %s (%s)", #expr, qmm_status_str(s_), qmm_status_str(want), qmm_last_error());    \
        CHECK(s_ == QMM_OK || qmm_last_error()[0] != 0, "%s: no error message", #expr);                                          \
        CHECK(y_untouched(), "%s wrote into the output arena", #expr);                                                           \
        CHECK(x_untouched(), "%s wrote into an input", #expr);                                                                   \
    } while (0)

/* ------------------------------------------------------- huge buffers */

static void test_alloc_huge(void) {
    void *p = (void *)1;
    EXPECT_ERR(qmm_alloc_huge(64, NULL), QMM_ERR_INVALID_ARG);
    /* a size whose round-up to 2 MiB wraps: refused before any allocator sees it */
    EXPECT_ERR(qmm_alloc_huge(SIZE_MAX - 4096, &p), QMM_ERR_NO_MEMORY);
    CHECK(p == NULL, "alloc_huge: *out not cleared on failure");
    const size_t sizes[] = {0, 1, 4096, ((size_t)2 << 20) - 1, (size_t)2 << 20, ((size_t)3 << 20) + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        p = NULL;
        CHECK(qmm_alloc_huge(sizes[i], &p) == QMM_OK && p, "alloc_huge(%zu): %s", sizes[i], qmm_last_error());
        const uintptr_t align = sizes[i] >= ((size_t)2 << 20) ? (uintptr_t)2 << 20 : 64;
        CHECK(((uintptr_t)p & (align - 1)) == 0, "alloc_huge(%zu) = %p: not %zu-byte aligned", sizes[i], p, (size_t)align);
        if (p && sizes[i])
            memset(p, 0x5a, sizes[i]); /* all of it is ours (ASan checks) */
        qmm_free_huge(p);
    }
    qmm_free_huge(NULL);
}

/* ------------------------------------------------------------ basics */

static void test_basics(void) {
    const int statuses[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, 1000};
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        CHECK(qmm_status_str((qmm_status)statuses[i]) != NULL, "status_str(%d)", statuses[i]);
    CHECK(qmm_last_error() != NULL, "last_error");
    CHECK(qmm_version() && qmm_version()[0], "version");
    const int bad_types[] = {-1, 4, 5, 31, 40, 41, 1000, INT32_MIN};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++) {
        const qmm_type t = (qmm_type)bad_types[i];
        CHECK(qmm_type_name(t) == NULL, "type_name(%d)", bad_types[i]);
        CHECK(qmm_type_block_elems(t) == 0 && qmm_type_block_bytes(t) == 0, "block of %d", bad_types[i]);
        CHECK(qmm_row_size(t, 32) == 0, "row_size(%d)", bad_types[i]);
    }
    CHECK(qmm_row_size(QMM_TYPE_Q4_0, 33) == 0 && qmm_row_size(QMM_TYPE_Q4_0, 0) == 0 && qmm_row_size(QMM_TYPE_Q4_0, -32) == 0,
          "row_size of bad k");
    CHECK(qmm_row_size(QMM_TYPE_F32, INT64_MAX) == 0, "row_size overflow");

    /* qmm_tensor_init */
    qmm_tensor t;
    const int64_t ne[4] = {64, 2, 1, 1};
    CHECK_OK(qmm_tensor_init(&t, QMM_TYPE_F32, 2, ne, xbuf));
    EXPECT_ERR(qmm_tensor_init(NULL, QMM_TYPE_F32, 2, ne, xbuf), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, 2, NULL, xbuf), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, -1, ne, xbuf), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, 5, ne, xbuf), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_tensor_init(&t, (qmm_type)77, 2, ne, xbuf), QMM_ERR_UNSUPPORTED);
    const int64_t zero[2] = {64, 0}, neg[2] = {-64, 2}, odd[2] = {33, 2};
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, 2, zero, xbuf), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, 2, neg, xbuf), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_Q4_0, 2, odd, xbuf), QMM_ERR_INVALID_ARG);
    const int64_t huge[4] = {(int64_t)1 << 40, (int64_t)1 << 40, (int64_t)1 << 40, 4};
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, 4, huge, xbuf), QMM_ERR_INVALID_ARG);
    const int64_t huge2[2] = {INT64_MAX - INT64_MAX % 32, 3};
    EXPECT_ERR(qmm_tensor_init(&t, QMM_TYPE_F32, 2, huge2, xbuf), QMM_ERR_INVALID_ARG);
}

/* ----------------------------------------------------------- context */

static void test_context(void) {
    qmm_context *c = (qmm_context *)xbuf;
    qmm_options o;
    EXPECT_ERR(qmm_context_create(NULL, NULL), QMM_ERR_INVALID_ARG);
    memset(&o, 0, sizeof o);
    o.n_threads = -1;
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    CHECK(c == NULL, "out cleared");
    o.n_threads = 100000;
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.n_threads = 1;
    o.thread_cap = -2;
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.thread_cap = 0;
    o.chunk_multiplier = -1;
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.chunk_multiplier = 0;
    o.reserved[3] = 1; /* room for later options: must be zero */
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.reserved[3] = 0;
    o.pack_threads = -1;
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.pack_threads = 0;
    o.flags = 1u << 30;
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.flags = QMM_IGNORE_ENV;
    o.kernel = "no_such_family";
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.kernel = NULL;
    o.hide_features = "no_such_feature";
    EXPECT_ERR(qmm_context_create(&o, &c), QMM_ERR_INVALID_ARG);
    o.hide_features = NULL;

    qmm_context_free(NULL);
    CHECK(qmm_context_threads(NULL) == 0, "threads(NULL)");
    const char *p = "x", *f = "y";
    CHECK(qmm_context_chain(NULL, QMM_TYPE_Q4_0, &p, &f) == 0 && !p && !f, "chain(NULL)");
    p = f = "x";
    CHECK(qmm_context_chain(ctx, QMM_TYPE_Q8_K, &p, &f) == 0 && !p && !f, "chain(Q8_K)");
    CHECK(qmm_context_chain(ctx, (qmm_type)-5, NULL, NULL) == 0, "chain(-5)");
    CHECK(qmm_context_chain(ctx, QMM_TYPE_Q4_0, NULL, NULL) >= 1, "chain with NULL outs");
    char *buf = (char *)ybuf + 4096;
    EXPECT_ERR(qmm_context_describe(NULL, 0, buf, 100), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_context_describe(ctx, 0, NULL, 100), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_context_describe(ctx, 0, buf, 0), QMM_ERR_INVALID_ARG);
    /* too small: may fill its buffer, never past it */
    for (int json = 0; json < 2; json++) {
        memset(ybuf, CANARY, BIG);
        const qmm_status st = qmm_context_describe(ctx, json, buf, 10);
        CHECK(st == QMM_ERR_INVALID_ARG, "describe into 10 bytes: %s", qmm_status_str(st));
        int ok = 1;
        for (size_t i = 0; i < BIG; i++)
            if ((i < 4096 || i >= 4096 + 10) && ybuf[i] != CANARY)
                ok = 0;
        CHECK(ok, "describe wrote past its 10-byte buffer");
        CHECK(memchr(buf, 0, 10) != NULL, "describe output is NUL-terminated");
    }
}

/* -------------------------------------------------- block conversion */

static void test_conversion(void) {
    float *src = (float *)xbuf;
    void *dst = ybuf + 64;
    const qmm_type types[3] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_F16};
    for (int i = 0; i < 3; i++) {
        const qmm_type t = types[i];
        EXPECT_ERR(qmm_quantize(t, NULL, dst, 2, 64), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_quantize(t, src, NULL, 2, 64), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_quantize(t, src, dst, -1, 64), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_quantize(t, src, dst, 2, 0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_quantize(t, src, dst, 2, -64), QMM_ERR_INVALID_ARG);
        if (t != QMM_TYPE_F16)
            EXPECT_ERR(qmm_quantize(t, src, dst, 2, 48), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_quantize(t, src, dst, INT64_MAX, 64), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_quantize(t, src, dst, (int64_t)1 << 40, (int64_t)1 << 40), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_dequantize(t, NULL, (float *)dst, 2, 64), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_dequantize(t, xbuf, NULL, 2, 64), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_dequantize(t, xbuf, (float *)dst, -1, 64), QMM_ERR_INVALID_ARG);
        if (t != QMM_TYPE_F16)
            EXPECT_ERR(qmm_dequantize(t, xbuf, (float *)dst, 1, 31), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_dequantize(t, xbuf, (float *)dst, INT64_MAX, 32), QMM_ERR_INVALID_ARG);
    }
    EXPECT_ERR(qmm_quantize(QMM_TYPE_Q4_K, src, dst, 1, 256), QMM_ERR_UNSUPPORTED);
    EXPECT_ERR(qmm_quantize((qmm_type)99, src, dst, 1, 32), QMM_ERR_UNSUPPORTED);
    EXPECT_ERR(qmm_dequantize(QMM_TYPE_Q8_K, xbuf, (float *)dst, 1, 256), QMM_ERR_UNSUPPORTED);
    /* zero rows is a valid no-op */
    arm();
    CHECK_OK(qmm_quantize(QMM_TYPE_Q8_0, src, dst, 0, 32));
    CHECK(y_untouched(), "zero rows wrote");
}

/* ----------------------------------------------------------- weights */

static qmm_weights *weights[4];
static const qmm_type wtypes[4] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_F32, QMM_TYPE_F16};
#define WK 64
#define WN 5

static void test_weights(void) {
    /* valid weights of each type from xbuf (finite floats, then converted) */
    float *f = (float *)xbuf;
    for (int i = 0; i < WK * WN * 4; i++)
        f[i] = (float)(i % 9) - 4.0f;
    uint8_t *src = xbuf + 65536;
    for (int t = 0; t < 4; t++) {
        const size_t rb = qmm_row_size(wtypes[t], WK);
        if (wtypes[t] == QMM_TYPE_F32)
            memcpy(src + t * 8192, f, rb * WN);
        else
            CHECK_OK(qmm_quantize(wtypes[t], f, src + t * 8192, WN, WK));
        CHECK_OK(qmm_weights_pack(ctx, wtypes[t], WK, WN, src + t * 8192, rb * WN, &weights[t]));
    }
    const void *s = src;
    const size_t ss = qmm_row_size(QMM_TYPE_Q4_0, WK) * WN;
    qmm_weights *w = (qmm_weights *)xbuf;
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, WK, WN, s, ss, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(NULL, QMM_TYPE_Q4_0, WK, WN, s, ss, &w), QMM_ERR_INVALID_ARG);
    CHECK(w == NULL, "out cleared");
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, WK, WN, NULL, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q8_K, 256, WN, s, ss, &w), QMM_ERR_UNSUPPORTED);
    EXPECT_ERR(qmm_weights_pack(ctx, (qmm_type)-3, WK, WN, s, ss, &w), QMM_ERR_UNSUPPORTED);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, 0, WN, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, -64, WN, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, 48, WN, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, WK, 0, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, WK, -5, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, (int64_t)1 << 41, 1 << 20, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_F32, INT64_MAX, 2, s, ss, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, WK, WN, s, ss - 1, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, WK, WN, s, 0, &w), QMM_ERR_INVALID_ARG);
    CHECK(w == NULL, "out cleared");
    /* IQ4_XS needs k % 256 == 0, with a message that says so; k = 2880 (gpt-oss) is fine for the 32-blocks */
    {
        static uint8_t big[2880 * 2]; /* one BF16 row, the largest here */
        memset(big, 0, sizeof big);
        EXPECT_ERR(qmm_weights_pack(ctx, QMM_TYPE_IQ4_XS, 2880, 1, big, sizeof big, &w), QMM_ERR_INVALID_ARG);
        CHECK(strstr(qmm_last_error(), "multiple of 256") != NULL, "IQ4_XS k = 2880: %s", qmm_last_error());
        const qmm_type t32[] = {QMM_TYPE_IQ4_NL, QMM_TYPE_MXFP4, QMM_TYPE_BF16};
        for (int i = 0; i < 3; i++) {
            qmm_weights *w2 = NULL;
            CHECK_OK(qmm_weights_pack(ctx, t32[i], 2880, 1, big, qmm_row_size(t32[i], 2880), &w2));
            qmm_weights_free(w2);
        }
    }

    qmm_weights_free(NULL);
    CHECK(qmm_weights_kernel(NULL) == NULL, "kernel(NULL)");
    CHECK(qmm_weights_slot_kernel(NULL, 0) == NULL, "slot_kernel(NULL)");
    CHECK(qmm_weights_slot_kernel(weights[0], -1) == NULL && qmm_weights_slot_kernel(weights[0], 2) == NULL &&
              qmm_weights_slot_kernel(weights[0], qmm_weights_slot_count(weights[0])) == NULL,
          "slot_kernel out of range");
    CHECK(qmm_weights_slot_count(NULL) == 0, "slot_count(NULL)");
    CHECK(qmm_weights_type(NULL) == QMM_TYPE_COUNT, "type(NULL)");
    CHECK(qmm_weights_k(NULL) == 0 && qmm_weights_n(NULL) == 0, "k/n(NULL)");
    size_t bs = 77;
    CHECK(qmm_weights_blob(NULL, &bs) == NULL && bs == 0, "blob(NULL)");
    CHECK(qmm_weights_blob(weights[0], NULL) != NULL, "blob with NULL size");

    /* caller-owned packing */
    size_t need = 0;
    EXPECT_ERR(qmm_packed_size(NULL, QMM_TYPE_Q4_0, WK, WN, &need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_packed_size(ctx, QMM_TYPE_Q4_0, WK, WN, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_packed_size(ctx, QMM_TYPE_Q8_K, 256, WN, &need), QMM_ERR_UNSUPPORTED);
    EXPECT_ERR(qmm_packed_size(ctx, QMM_TYPE_Q8_0, 40, WN, &need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_packed_size(ctx, QMM_TYPE_Q8_0, WK, -1, &need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_packed_size(ctx, QMM_TYPE_F16, INT64_MAX, INT64_MAX, &need), QMM_ERR_INVALID_ARG);
    CHECK_OK(qmm_packed_size(ctx, QMM_TYPE_Q4_0, WK, WN, &need));
    uint8_t *dst = ybuf + 4096;
    EXPECT_ERR(qmm_pack_into(NULL, QMM_TYPE_Q4_0, WK, WN, s, ss, dst, need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_pack_into(ctx, QMM_TYPE_Q4_0, WK, WN, NULL, ss, dst, need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_pack_into(ctx, QMM_TYPE_Q4_0, WK, WN, s, ss, NULL, need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_pack_into(ctx, QMM_TYPE_Q4_0, WK, WN, s, ss, dst, need - 1), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_pack_into(ctx, QMM_TYPE_Q4_0, WK, WN, s, ss - 18, dst, need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_pack_into(ctx, QMM_TYPE_Q4_0, 33, WN, s, ss, dst, need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_pack_into(ctx, QMM_TYPE_Q8_1, 256, WN, s, ss, dst, need), QMM_ERR_UNSUPPORTED);
    /* a destination qmm_weights_from_blob would refuse (below 16-byte alignment), every type */
    for (int t = 0; t < 4; t++) {
        size_t tneed = 0;
        CHECK_OK(qmm_packed_size(ctx, wtypes[t], WK, WN, &tneed));
        const size_t tss = qmm_row_size(wtypes[t], WK) * WN;
        for (size_t mis = 1; mis < 16; mis += (mis < 4 ? 1 : 4))
            EXPECT_ERR(qmm_pack_into(ctx, wtypes[t], WK, WN, src + t * 8192, tss, dst + mis, tneed + 64), QMM_ERR_INVALID_ARG);
    }
    /* a good pack writes exactly its size */
    arm();
    CHECK_OK(qmm_pack_into(ctx, QMM_TYPE_Q4_0, WK, WN, s, ss, dst, need));
    int ok = 1;
    for (size_t i = 0; i < BIG; i++)
        if ((i < 4096 || i >= 4096 + need) && ybuf[i] != CANARY)
            ok = 0;
    CHECK(ok, "pack_into wrote outside [dst, dst + size)");

    /* adopting blobs */
    uint8_t *blob = xbuf + 200000; /* 64-byte aligned (xbuf is) */
    memcpy(blob, dst, need);
    memcpy(shadow, xbuf, BIG);
    w = (qmm_weights *)xbuf;
    EXPECT_ERR(qmm_weights_from_blob(ctx, blob, need, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_from_blob(NULL, blob, need, &w), QMM_ERR_INVALID_ARG);
    CHECK(w == NULL, "out cleared");
    EXPECT_ERR(qmm_weights_from_blob(ctx, NULL, need, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_from_blob(ctx, blob + 1, need - 1, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_from_blob(ctx, blob + 8, need - 8, &w), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_weights_from_blob(ctx, blob, 0, &w), QMM_ERR_BAD_BLOB);
    EXPECT_ERR(qmm_weights_from_blob(ctx, blob, 191, &w), QMM_ERR_BAD_BLOB);
    EXPECT_ERR(qmm_weights_from_blob(ctx, blob, need / 2, &w), QMM_ERR_BAD_BLOB);
    EXPECT_ERR(qmm_weights_from_blob(ctx, xbuf + 300000, need, &w), QMM_ERR_BAD_BLOB); /* not a blob */
    CHECK_OK(qmm_weights_from_blob(ctx, blob, need, &w));
    qmm_weights_free(w);
}

/* ------------------------------------------------------------ operations */

static int64_t solo_counter;
static const qmm_sync good_sync = QMM_TEST_SOLO_SYNC(&solo_counter);

/* Contiguous F32 view of ne into base. */
static qmm_tensor view(qmm_type type, int64_t n0, int64_t n1, int64_t n2, int64_t n3, void *base) {
    qmm_tensor t;
    const int64_t ne[4] = {n0, n1, n2, n3};
    if (qmm_tensor_init(&t, type, 4, ne, base) != QMM_OK) {
        fprintf(stderr, "view: %s\n", qmm_last_error());
        exit(2);
    }
    return t;
}

typedef qmm_status (*op3_fn)(const qmm_tensor *a, const qmm_tensor *b, const qmm_weights *w);

/* The ways to spoil one tensor view. */
static int spoil(qmm_tensor *t, int how) {
    switch (how) {
    case 0: t->data = NULL; return 1;
    case 1: t->ne[1] = 0; return 1;
    case 2: t->ne[2] = -3; return 1;
    case 3: t->ne[3] = INT64_MIN; return 1;
    case 4: t->ne[1] = (int64_t)1 << 41; return 1;
    case 5: t->nb[0] = t->nb[0] * 2; return 1;       /* rows not contiguous */
    case 6: t->nb[1] += 1; return 1;                 /* misaligned stride */
    case 7: t->data = (char *)t->data + 1; return 1; /* misaligned data */
    case 8:
        t->nb[3] = SIZE_MAX - 3;
        t->ne[3] = 2;
        return 1;                                                                      /* overflowing span */
    case 9: t->type = t->type == QMM_TYPE_F32 ? QMM_TYPE_F16 : QMM_TYPE_F32; return 1; /* wrong type */
    case 10: t->type = (qmm_type)-1; return 1;
    case 11: t->ne[0] += 32; return 1; /* shape mismatch */
    case 12: t->ne[1] *= 2; return 1;  /* batch mismatch */
    case 13:
        t->nb[2] = SIZE_MAX / 2;
        t->nb[3] = SIZE_MAX / 2;
        t->ne[2] = 3;
        t->ne[3] = 3;
        return 1;
    case 14: t->ne[0] = 0; return 1;
    default: return 0;
    }
}
#define N_SPOIL 15

static void test_mul_mat_errors(void) {
    const int64_t m = 3, b2 = 2;
    for (int wi = 0; wi < 4; wi++) {
        const qmm_weights *w = weights[wi];
        const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w);
        const qmm_tensor x0 = view(QMM_TYPE_F32, k, m, b2, 1, xbuf);
        qmm_tensor y0 = view(QMM_TYPE_F32, n, m, b2, 1, ybuf + 8192);
        /* a valid call writes only its elements */
        arm();
        CHECK_OK(qmm_mul_mat(ctx, w, &x0, &y0));
        int ok = 1;
        for (size_t i = 0; i < BIG; i++)
            if ((i < 8192 || i >= 8192 + sizeof(float) * (size_t)(n * m * b2)) && ybuf[i] != CANARY)
                ok = 0;
        CHECK(ok && x_untouched(), "valid mul_mat wrote outside y");

        EXPECT_ERR(qmm_mul_mat(NULL, w, &x0, &y0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat(ctx, NULL, &x0, &y0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat(ctx, w, NULL, &y0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat(ctx, w, &x0, NULL), QMM_ERR_INVALID_ARG);
        for (int which = 0; which < 2; which++)
            for (int how = 0; how < N_SPOIL; how++) {
                qmm_tensor x = x0, y = y0;
                spoil(which ? &y : &x, how);
                EXPECT_ERR(qmm_mul_mat(ctx, w, &x, &y), QMM_ERR_INVALID_ARG);
                size_t ws = 1;
                EXPECT_ERR(qmm_mul_mat_work_size(ctx, w, &x, &y, 1, &ws), QMM_ERR_INVALID_ARG);
                EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x, &y, 0, 1, ybuf, BIG, &good_sync), QMM_ERR_INVALID_ARG);
            }
        /* an output whose rows overlap */
        qmm_tensor y = y0;
        y.nb[1] = 4;
        EXPECT_ERR(qmm_mul_mat(ctx, w, &x0, &y), QMM_ERR_INVALID_ARG);
        y = y0;
        y.nb[2] = y.nb[1];
        EXPECT_ERR(qmm_mul_mat(ctx, w, &x0, &y), QMM_ERR_INVALID_ARG);

        /* work size and compute */
        size_t need = 0;
        EXPECT_ERR(qmm_mul_mat_work_size(ctx, w, &x0, &y0, 1, NULL), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_work_size(ctx, w, &x0, &y0, 0, &need), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_work_size(ctx, w, &x0, &y0, -4, &need), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_work_size(ctx, w, &x0, &y0, 1 << 20, &need), QMM_ERR_INVALID_ARG);
        CHECK_OK(qmm_mul_mat_work_size(ctx, w, &x0, &y0, 1, &need));
        uint8_t *work = xbuf + BIG / 2; /* in the input arena: must only be used on success */
        memset(work, 0, need + 64);
        qmm_sync bad = good_sync;
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, -1, 1, work, need, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 1, 1, work, need, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 0, work, need, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, -2, work, need, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1 << 20, work, need, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work, need, NULL), QMM_ERR_INVALID_ARG);
        bad.barrier = NULL;
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work, need, &bad), QMM_ERR_INVALID_ARG);
        bad = good_sync;
        bad.counter_fetch_add = NULL;
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work, need, &bad), QMM_ERR_INVALID_ARG);
        bad = good_sync;
        bad.reserved[1] = 1;
        EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work, need, &bad), QMM_ERR_INVALID_ARG);
        /* a tensor's reserved tail not zero: refused, for inputs and outputs */
        qmm_tensor xr = x0, yr = y0;
        xr.reserved[0] = 7;
        yr.reserved[1] = 1;
        EXPECT_ERR(qmm_mul_mat(ctx, w, &xr, &y0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat(ctx, w, &x0, &yr), QMM_ERR_INVALID_ARG);
        if (need > 0) {
            EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work, need - 1, &good_sync), QMM_ERR_INVALID_ARG);
            EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, NULL, need, &good_sync), QMM_ERR_INVALID_ARG);
            EXPECT_ERR(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work + 8, need, &good_sync), QMM_ERR_INVALID_ARG);
        }
        arm();
        CHECK_OK(qmm_mul_mat_compute(ctx, w, &x0, &y0, 0, 1, work, need, &good_sync));
    }
}

static void test_get_rows_errors(void) {
    for (int wi = 0; wi < 4; wi++) {
        const qmm_weights *w = weights[wi];
        const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w);
        int32_t *ids = (int32_t *)xbuf;
        for (int i = 0; i < 8; i++)
            ids[i] = (int32_t)(i % n);
        const qmm_tensor i0 = view(QMM_TYPE_I32, 4, 2, 1, 1, ids);
        const qmm_tensor o0 = view(QMM_TYPE_F32, k, 4, 2, 1, ybuf + 4096);
        arm();
        CHECK_OK(qmm_get_rows(ctx, w, &i0, &o0));
        EXPECT_ERR(qmm_get_rows(NULL, w, &i0, &o0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_get_rows(ctx, NULL, &i0, &o0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_get_rows(ctx, w, NULL, &o0), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_get_rows(ctx, w, &i0, NULL), QMM_ERR_INVALID_ARG);
        for (int which = 0; which < 2; which++)
            for (int how = 0; how < N_SPOIL; how++) {
                qmm_tensor a = i0, b = o0;
                spoil(which ? &b : &a, how);
                if (!which && how == 9)
                    a.type = QMM_TYPE_F32;
                EXPECT_ERR(qmm_get_rows(ctx, w, &a, &b), QMM_ERR_INVALID_ARG);
                size_t ws;
                EXPECT_ERR(qmm_get_rows_work_size(ctx, w, &a, &b, 1, &ws), QMM_ERR_INVALID_ARG);
                EXPECT_ERR(qmm_get_rows_compute(ctx, w, &a, &b, 0, 1, NULL, 0, &good_sync), QMM_ERR_INVALID_ARG);
            }
        /* ids out of range, 4-D ids */
        const int32_t bad_ids[3] = {-1, (int32_t)n, INT32_MAX};
        for (int b = 0; b < 3; b++) {
            ids[5] = bad_ids[b];
            EXPECT_ERR(qmm_get_rows(ctx, w, &i0, &o0), QMM_ERR_INVALID_ARG);
            EXPECT_ERR(qmm_get_rows_compute(ctx, w, &i0, &o0, 0, 1, NULL, 0, &good_sync), QMM_ERR_INVALID_ARG);
        }
        ids[5] = 0;
        const qmm_tensor i4 = view(QMM_TYPE_I32, 2, 2, 1, 2, ids);
        const qmm_tensor o4 = view(QMM_TYPE_F32, k, 2, 2, 1, ybuf + 4096);
        EXPECT_ERR(qmm_get_rows(ctx, w, &i4, &o4), QMM_ERR_INVALID_ARG);
        size_t ws = 0;
        EXPECT_ERR(qmm_get_rows_work_size(ctx, w, &i0, &o0, 0, &ws), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_get_rows_work_size(ctx, w, &i0, &o0, 1, NULL), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_get_rows_compute(ctx, w, &i0, &o0, 2, 2, NULL, 0, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_get_rows_compute(ctx, w, &i0, &o0, 0, 1, NULL, 0, NULL), QMM_ERR_INVALID_ARG);
    }
}

/* out overlapping ids: the ids are validated, then read again while rows are
 * written; rows written over them would be read as ids (wild reads). Refused,
 * with nothing written, through the pool and a caller's own threads; views
 * side by side are fine. */
static void test_get_rows_overlap(void) {
    uint8_t *buf = qmm_test_alloc(65536), *copy = qmm_test_alloc(65536);
    for (int wi = 0; wi < 4; wi++) {
        const qmm_weights *w = weights[wi];
        const int64_t k = qmm_weights_k(w);
        const size_t out_bytes = (size_t)k * 4 * 4;
        /* ids at the start of out, then inside its last row, then in its last bytes */
        const size_t id_offsets[3] = {0, out_bytes - (size_t)k * 4, out_bytes - 4};
        for (int c = 0; c < 3; c++)
            for (int byo = 0; byo < 2; byo++) {
                memset(buf, 0, 65536);
                int32_t *ids = (int32_t *)(buf + id_offsets[c]);
                for (int i = 0; i < 4; i++)
                    ids[i] = 1; /* row 1's values, read as ids, are far out of range */
                const qmm_tensor it = view(QMM_TYPE_I32, 4, 1, 1, 1, ids);
                const qmm_tensor ot = view(QMM_TYPE_F32, k, 4, 1, 1, buf);
                memcpy(copy, buf, 65536);
                const qmm_status st =
                    byo ? qmm_get_rows_compute(ctx, w, &it, &ot, 0, 1, NULL, 0, &good_sync) : qmm_get_rows(ctx, w, &it, &ot);
                CHECK(st == QMM_ERR_INVALID_ARG, "get_rows%s with ids at byte %zu of out -> %s", byo ? "_compute" : "",
                      id_offsets[c], qmm_status_str(st));
                CHECK(qmm_last_error()[0] != 0, "overlap: no message");
                CHECK(memcmp(copy, buf, 65536) == 0, "get_rows%s wrote before refusing overlapping out and ids",
                      byo ? "_compute" : "");
            }
        /* side by side: ids right after out, and right before it */
        for (int c = 0; c < 2; c++) {
            memset(buf, 0, 65536);
            uint8_t *out = buf + (c ? 64 : 0);
            int32_t *ids = (int32_t *)(c ? out - 16 : out + out_bytes);
            for (int i = 0; i < 4; i++)
                ids[i] = 1;
            const qmm_tensor it = view(QMM_TYPE_I32, 4, 1, 1, 1, ids);
            const qmm_tensor ot = view(QMM_TYPE_F32, k, 4, 1, 1, out);
            CHECK_OK(qmm_get_rows(ctx, w, &it, &ot));
            CHECK(ids[0] == 1 && ids[3] == 1, "ids beside out changed");
            CHECK(memcmp(out, out + (size_t)k * 4 * 3, (size_t)k * 4) == 0, "rows of the same id differ");
        }
    }
    free(copy);
    free(buf);
}

static void test_f16_errors(void) {
    const int64_t k = 64, n = 6, m = 2;
    uint16_t *wd = (uint16_t *)(xbuf + 8192);
    for (int i = 0; i < k * n * 2; i++)
        wd[i] = 0x3c00; /* 1.0 */
    const qmm_tensor w0 = view(QMM_TYPE_F16, k, n, 1, 1, wd);
    const qmm_tensor x0 = view(QMM_TYPE_F32, k, m, 2, 1, xbuf);
    const qmm_tensor y0 = view(QMM_TYPE_F32, n, m, 2, 1, ybuf + 4096);
    arm();
    CHECK_OK(qmm_mul_mat_f16(ctx, &w0, &x0, &y0));
    EXPECT_ERR(qmm_mul_mat_f16(NULL, &w0, &x0, &y0), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_mul_mat_f16(ctx, NULL, &x0, &y0), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_mul_mat_f16(ctx, &w0, NULL, &y0), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_mul_mat_f16(ctx, &w0, &x0, NULL), QMM_ERR_INVALID_ARG);
    for (int which = 0; which < 3; which++)
        for (int how = 0; how < N_SPOIL; how++) {
            qmm_tensor w = w0, x = x0, y = y0;
            spoil(which == 0 ? &w : which == 1 ? &x : &y, how);
            EXPECT_ERR(qmm_mul_mat_f16(ctx, &w, &x, &y), QMM_ERR_INVALID_ARG);
            size_t ws;
            EXPECT_ERR(qmm_mul_mat_f16_work_size(ctx, &w, &x, &y, 1, &ws), QMM_ERR_INVALID_ARG);
            EXPECT_ERR(qmm_mul_mat_f16_compute(ctx, &w, &x, &y, 0, 1, ybuf, BIG, &good_sync), QMM_ERR_INVALID_ARG);
        }
    /* batches that do not broadcast */
    const qmm_tensor w3 = view(QMM_TYPE_F16, k, n, 3, 1, wd);
    EXPECT_ERR(qmm_mul_mat_f16(ctx, &w3, &x0, &y0), QMM_ERR_INVALID_ARG);
    size_t need = 0;
    EXPECT_ERR(qmm_mul_mat_f16_work_size(ctx, &w0, &x0, &y0, 0, &need), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_mul_mat_f16_work_size(ctx, &w0, &x0, &y0, 1, NULL), QMM_ERR_INVALID_ARG);
    CHECK_OK(qmm_mul_mat_f16_work_size(ctx, &w0, &x0, &y0, 1, &need));
    uint8_t *work = xbuf + BIG / 2;
    EXPECT_ERR(qmm_mul_mat_f16_compute(ctx, &w0, &x0, &y0, 1, 1, work, need, &good_sync), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_mul_mat_f16_compute(ctx, &w0, &x0, &y0, 0, 0, work, need, &good_sync), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_mul_mat_f16_compute(ctx, &w0, &x0, &y0, 0, 1, work, need, NULL), QMM_ERR_INVALID_ARG);
    if (need > 0) {
        EXPECT_ERR(qmm_mul_mat_f16_compute(ctx, &w0, &x0, &y0, 0, 1, work, need - 1, &good_sync), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_mul_mat_f16_compute(ctx, &w0, &x0, &y0, 0, 1, work + 4, need, &good_sync), QMM_ERR_INVALID_ARG);
    }
}

/* -------------------------------------------------------------- cache */

static void test_cache_errors(void) {
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[700], gpath[700];
    snprintf(dir, sizeof dir, "%s/qmm_api_errors.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/c.qmp", dir);
    snprintf(gpath, sizeof gpath, "%s/missing.gguf", dir);
    uint8_t *src = xbuf + 65536;
    qmm_cache_tensor t = {
        .name = "w", .type = QMM_TYPE_Q4_0, .k = WK, .n = WN, .data = src, .size = qmm_row_size(QMM_TYPE_Q4_0, WK) * WN};
    EXPECT_ERR(qmm_cache_write(NULL, gpath, path, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write(ctx, NULL, path, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write(ctx, gpath, NULL, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write(ctx, gpath, path, NULL), QMM_ERR_IO);
    EXPECT_ERR(qmm_cache_write_tensors(NULL, &t, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write_tensors(ctx, NULL, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &t, -1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &t, INT64_MAX, 0, path, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &t, 1, 0, NULL, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &t, 1, 0, "", NULL), QMM_ERR_INVALID_ARG);
    qmm_cache_tensor b = t;
    b.reserved[0] = 1;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    qmm_cache_write_options wr = {.reserved = {0, 0, 0, 9}};
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &t, 1, 0, path, &wr), QMM_ERR_INVALID_ARG);
    b = t;
    b.name = NULL;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    b.name = "";
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    static char longname[2000];
    memset(longname, 'a', sizeof longname - 1);
    b.name = longname;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    b = t;
    b.data = NULL;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    b = t;
    b.k = 40;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    b = t;
    b.n = -1;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    b = t;
    b.type = QMM_TYPE_Q8_K;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_UNSUPPORTED);
    b = t;
    b.size = 0;
    EXPECT_ERR(qmm_cache_write_tensors(ctx, &b, 1, 0, path, NULL), QMM_ERR_INVALID_ARG);
    CHECK(access(path, F_OK) != 0, "failed writes left no file");
    uint64_t h = 5;
    EXPECT_ERR(qmm_cache_gguf_hash(NULL, &h), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_gguf_hash(gpath, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_gguf_hash(gpath, &h), QMM_ERR_IO);

    CHECK_OK(qmm_cache_write_tensors(ctx, &t, 1, 0, path, NULL));
    qmm_cache *c = (qmm_cache *)xbuf;
    EXPECT_ERR(qmm_cache_open(NULL, path, NULL, &c), QMM_ERR_INVALID_ARG);
    CHECK(c == NULL, "out cleared");
    EXPECT_ERR(qmm_cache_open(ctx, NULL, NULL, &c), QMM_ERR_INVALID_ARG);
    EXPECT_ERR(qmm_cache_open(ctx, path, NULL, NULL), QMM_ERR_INVALID_ARG);
    qmm_cache_open_options o = {.flags = 0x80};
    EXPECT_ERR(qmm_cache_open(ctx, path, &o, &c), QMM_ERR_INVALID_ARG);
    o.flags = 0;
    o.reserved[2] = 1;
    EXPECT_ERR(qmm_cache_open(ctx, path, &o, &c), QMM_ERR_INVALID_ARG);
    o.reserved[2] = 0;
    o.gguf_path = gpath;
    EXPECT_ERR(qmm_cache_open(ctx, path, &o, &c), QMM_ERR_IO);
    EXPECT_ERR(qmm_cache_open(ctx, gpath, NULL, &c), QMM_ERR_IO);
    EXPECT_ERR(qmm_cache_open(ctx, dir, NULL, &c), QMM_ERR_IO);
    qmm_cache_close(NULL);
    CHECK(qmm_cache_count(NULL) == 0 && qmm_cache_name(NULL, 0) == NULL && qmm_cache_find(NULL, "w") == -1 &&
              qmm_cache_source_hash(NULL) == 0,
          "NULL cache queries");
    EXPECT_ERR(qmm_cache_verify(NULL), QMM_ERR_INVALID_ARG);
    qmm_weights *w = (qmm_weights *)xbuf;
    EXPECT_ERR(qmm_cache_get(NULL, "w", &w), QMM_ERR_INVALID_ARG);
    CHECK(w == NULL, "out cleared");
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    if (c) {
        CHECK(qmm_cache_find(c, NULL) == -1 && qmm_cache_name(c, -1) == NULL && qmm_cache_name(c, 1) == NULL &&
                  qmm_cache_name(c, INT64_MAX) == NULL,
              "queries out of range");
        EXPECT_ERR(qmm_cache_get(c, NULL, &w), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_cache_get(c, "w", NULL), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_cache_get(c, "x", &w), QMM_ERR_INVALID_ARG);
        EXPECT_ERR(qmm_cache_get(c, "", &w), QMM_ERR_INVALID_ARG);
        qmm_cache_close(c);
    }
    unlink(path);
    rmdir(dir);
}

int main(void) {
    xbuf = qmm_test_alloc(BIG);
    ybuf = qmm_test_alloc(BIG);
    shadow = qmm_test_alloc(BIG);
    memset(xbuf, 0, BIG);
    ctx = qmm_test_context(2);
    test_basics();
    test_alloc_huge();
    test_context();
    test_conversion();
    test_weights();
    test_mul_mat_errors();
    test_get_rows_errors();
    test_get_rows_overlap();
    test_f16_errors();
    test_cache_errors();
    for (int i = 0; i < 4; i++)
        qmm_weights_free(weights[i]);
    qmm_context_free(ctx);
    free(xbuf);
    free(ybuf);
    free(shadow);
    return qmm_test_summary();
}
