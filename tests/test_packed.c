/* The packed-weight blob: round trips, caller-owned packing, and validation
 * against every truncation and a corruption of each header field. Adoption of
 * a bad blob must return a status and never read out of bounds (the blob is
 * copied to an exact-size allocation, so ASan sees any over-read). */
#include "formats/formats.h"
#include "packed/packed.h"
#include "qmatmul.h"
#include "test_util.h"

static uint64_t seed = 4242;
static qmm_context *ctx;

static void *make_q4(int64_t k, int64_t n, size_t *size) {
    float *f = malloc((size_t)(k * n) * 4);
    for (int64_t i = 0; i < k * n; i++)
        f[i] = qmm_test_rand_f(&seed);
    *size = qmm_row_size(QMM_TYPE_Q4_0, k) * (size_t)n;
    void *q = malloc(*size);
    qmm_quantize(QMM_TYPE_Q4_0, f, q, n, k);
    free(f);
    return q;
}

/* Adopts a private copy of exactly `size` bytes. */
static qmm_status adopt(const void *blob, size_t size) {
    void *copy = qmm_test_alloc(size ? size : 1);
    memcpy(copy, blob, size);
    qmm_weights *w = NULL;
    qmm_status st = qmm_weights_from_blob(ctx, copy, size, &w);
    if (st == QMM_OK)
        CHECK(w != NULL, "OK without weights");
    else
        CHECK(w == NULL, "error status but weights returned");
    qmm_weights_free(w);
    free(copy);
    return st;
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void reseal(uint8_t *h) { /* recompute the header CRC after an edit */
    memset(h + 128, 0, 4);
    put32(h + 128, qmm_crc32(0, h, QMM_BLOB_HEADER));
}

typedef struct field_case {
    const char *what;
    void (*edit)(uint8_t *h);
    int reseal; /* edit with a valid CRC, so the field's own check must catch it */
    qmm_status expect;
} field_case;

static void e_magic(uint8_t *h) { h[0] = 'X'; }
static void e_version(uint8_t *h) { h[4] = 9; }
static void e_hsize(uint8_t *h) { h[6] = 64; }
static void e_type(uint8_t *h) { put32(h + 8, QMM_TYPE_Q8_K); }
static void e_type_other(uint8_t *h) { put32(h + 8, QMM_TYPE_Q8_0); }
static void e_type_huge(uint8_t *h) { put32(h + 8, 0xffffffffu); }
static void e_slots0(uint8_t *h) { put32(h + 12, 0); }
static void e_slots3(uint8_t *h) { put32(h + 12, 3); }
static void e_slots2(uint8_t *h) { put32(h + 12, 2); }
static void e_k0(uint8_t *h) { put64(h + 16, 0); }
static void e_kneg(uint8_t *h) { put64(h + 16, (uint64_t)-32); }
static void e_kodd(uint8_t *h) { put64(h + 16, 33); }
static void e_kbig(uint8_t *h) { put64(h + 16, 1ull << 62); }
static void e_kother(uint8_t *h) { put64(h + 16, 64); }
static void e_n0(uint8_t *h) { put64(h + 24, 0); }
static void e_nbig(uint8_t *h) { put64(h + 24, 1ull << 62); }
static void e_nother(uint8_t *h) { put64(h + 24, 1000); }
static void e_name(uint8_t *h) { memset(h + 32, 0, 24), memcpy(h + 32, "no_such_kernel", 15); }
static void e_name_empty(uint8_t *h) { h[32] = 0; }
static void e_name_unterm(uint8_t *h) { memset(h + 32, 'a', 24); }
static void e_name_trail(uint8_t *h) { h[32 + 22] = 'x'; }
static void e_name_type(uint8_t *h) { memset(h + 32, 0, 24), memcpy(h + 32, "ref_q8_0", 8); }
static void e_layout(uint8_t *h) { put32(h + 32 + 24, 77); }
static void e_reserved(uint8_t *h) { put32(h + 32 + 28, 1); }
static void e_off_unaligned(uint8_t *h) { put64(h + 32 + 32, 200); }
static void e_off_low(uint8_t *h) { put64(h + 32 + 32, 64); }
static void e_off_huge(uint8_t *h) { put64(h + 32 + 32, ~0ull - 63); }
static void e_size(uint8_t *h) { put64(h + 32 + 40, 12345); }
static void e_size_huge(uint8_t *h) { put64(h + 32 + 40, ~0ull); }
static void e_unused_slot(uint8_t *h) { h[32 + 48 + 5] = 1; }
static void e_hres(uint8_t *h) { h[150] = 1; }
static void e_crc(uint8_t *h) { h[129] ^= 0x40; }

static const field_case cases[] = {
    {"magic", e_magic, 1, QMM_ERR_BAD_BLOB},
    {"version", e_version, 1, QMM_ERR_INCOMPATIBLE},
    {"header size", e_hsize, 1, QMM_ERR_BAD_BLOB},
    {"type (unpackable)", e_type, 1, QMM_ERR_BAD_BLOB},
    {"type (another packable)", e_type_other, 1, QMM_ERR_BAD_BLOB},
    {"type (out of range)", e_type_huge, 1, QMM_ERR_BAD_BLOB},
    {"slot count 0", e_slots0, 1, QMM_ERR_BAD_BLOB},
    {"slot count 3", e_slots3, 1, QMM_ERR_BAD_BLOB},
    {"slot count 2 with an empty slot", e_slots2, 1, QMM_ERR_BAD_BLOB},
    {"k = 0", e_k0, 1, QMM_ERR_BAD_BLOB},
    {"k negative", e_kneg, 1, QMM_ERR_BAD_BLOB},
    {"k not a block multiple", e_kodd, 1, QMM_ERR_BAD_BLOB},
    {"k huge", e_kbig, 1, QMM_ERR_BAD_BLOB},
    {"k another valid value", e_kother, 1, QMM_ERR_BAD_BLOB},
    {"n = 0", e_n0, 1, QMM_ERR_BAD_BLOB},
    {"n huge", e_nbig, 1, QMM_ERR_BAD_BLOB},
    {"n larger", e_nother, 1, QMM_ERR_BAD_BLOB},
    {"kernel name unknown", e_name, 1, QMM_ERR_INCOMPATIBLE},
    {"kernel name empty", e_name_empty, 1, QMM_ERR_BAD_BLOB},
    {"kernel name unterminated", e_name_unterm, 1, QMM_ERR_BAD_BLOB},
    {"kernel name trailing bytes", e_name_trail, 1, QMM_ERR_BAD_BLOB},
    {"kernel of another type", e_name_type, 1, QMM_ERR_BAD_BLOB},
    {"layout id", e_layout, 1, QMM_ERR_INCOMPATIBLE},
    {"slot reserved", e_reserved, 1, QMM_ERR_BAD_BLOB},
    {"offset unaligned", e_off_unaligned, 1, QMM_ERR_BAD_BLOB},
    {"offset inside header", e_off_low, 1, QMM_ERR_BAD_BLOB},
    {"offset huge", e_off_huge, 1, QMM_ERR_BAD_BLOB},
    {"size", e_size, 1, QMM_ERR_BAD_BLOB},
    {"size huge", e_size_huge, 1, QMM_ERR_BAD_BLOB},
    {"unused slot not zero", e_unused_slot, 1, QMM_ERR_BAD_BLOB},
    {"header reserved", e_hres, 1, QMM_ERR_BAD_BLOB},
    {"checksum", e_crc, 0, QMM_ERR_BAD_BLOB},
};

static void test_fields(const uint8_t *blob, size_t size) {
    uint8_t *b = malloc(size);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int sealed = 0; sealed <= cases[c].reseal; sealed++) {
            memcpy(b, blob, size);
            cases[c].edit(b);
            if (sealed)
                reseal(b);
            const qmm_status st = adopt(b, size);
            /* unsealed edits are caught by the checksum first */
            qmm_status want = sealed || !cases[c].reseal ? cases[c].expect : QMM_ERR_BAD_BLOB;
            if (cases[c].edit == e_version)
                want = QMM_ERR_INCOMPATIBLE; /* the version is read before the checksum: layouts may differ */
            CHECK(st == want, "corrupted %s%s: got %s (%s), want %s", cases[c].what, sealed ? " (checksum fixed)" : "",
                  qmm_status_str(st), qmm_last_error(), qmm_status_str(want));
        }
    }
    /* every single header byte flipped: never OK */
    long accepted = 0;
    for (size_t i = 0; i < QMM_BLOB_HEADER; i++) {
        memcpy(b, blob, size);
        b[i] ^= 0x10;
        accepted += adopt(b, size) == QMM_OK;
    }
    CHECK(accepted == 0, "%ld single-byte header corruptions were accepted", accepted);
    free(b);
}

static void test_truncation(const uint8_t *blob, size_t size) {
    long accepted = 0;
    for (size_t len = 0; len < size; len += (len < 400 ? 1 : 97))
        accepted += adopt(blob, len) == QMM_OK;
    CHECK(accepted == 0, "%ld truncated blobs were accepted", accepted);
    CHECK(adopt(blob, size) == QMM_OK, "the full blob is refused: %s", qmm_last_error());
    /* a blob longer than needed is fine (allocators round up) */
    uint8_t *big = calloc(1, size + 100);
    memcpy(big, blob, size);
    CHECK(adopt(big, size + 100) == QMM_OK, "a blob with trailing space is refused");
    free(big);
}

/* The AVX-512 VNNI IQ4_NL and MXFP4 families moved from two streams per panel
 * (header, then quants: layout 1) to Q4_0's one-stream groups (layout 2): a
 * blob or cache of layout 1 must be refused, not read as the new panels. */
static void test_old_table_layouts(void) {
    static const qmm_type types[] = {QMM_TYPE_IQ4_NL, QMM_TYPE_MXFP4};
    const int64_t k = 160, n = 19; /* a partial group of 5 blocks, a partial panel */
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const size_t srcsz = qmm_row_size(types[t], k) * (size_t)n;
        uint8_t *src = malloc(srcsz);
        for (size_t i = 0; i < srcsz; i++)
            src[i] = (uint8_t)qmm_test_rand_u64(&seed);
        qmm_weights *w = NULL;
        CHECK_OK(qmm_weights_pack(ctx, types[t], k, n, src, srcsz, &w));
        const char *kern = w ? qmm_weights_kernel(w) : NULL;
        if (!kern || strncmp(kern, "avx512vnni_", 11) != 0) {
            printf("skip old-layout check of %s (kernel %s)\n", qmm_type_name(types[t]), kern ? kern : "none");
        } else {
            size_t bsz = 0;
            const uint8_t *b = qmm_weights_blob(w, &bsz);
            uint8_t *old = malloc(bsz);
            memcpy(old, b, bsz);
            CHECK(adopt(old, bsz) == QMM_OK, "%s: its own blob is refused: %s", kern, qmm_last_error());
            put32(old + 32 + 24, 1); /* slot 0 as the two-stream layout wrote it */
            reseal(old);
            const qmm_status st = adopt(old, bsz);
            CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "layout"), "%s: a layout-1 blob: got %s (%s)", kern,
                  qmm_status_str(st), qmm_last_error());
            free(old);
        }
        qmm_weights_free(w);
        free(src);
    }
}

int main(void) {
    qmm_options o;
    memset(&o, 0, sizeof o);
    o.n_threads = 2;
    o.pack_threads = 1; /* one slot: the field cases below edit a one-slot blob (a capped SME primary gets a fallback slot) */
    o.flags = QMM_IGNORE_ENV;
    CHECK_OK(qmm_context_create(&o, &ctx));
    const int64_t k = 128, n = 37;
    size_t srcsz;
    void *src = make_q4(k, n, &srcsz);

    size_t psz = 0;
    CHECK_OK(qmm_packed_size(ctx, QMM_TYPE_Q4_0, k, n, &psz));
    uint8_t *blob = qmm_test_alloc(psz + 64);
    memset(blob + psz, 0xA5, 64);
    CHECK(qmm_pack_into(ctx, QMM_TYPE_Q4_0, k, n, src, srcsz, blob, psz - 1) == QMM_ERR_INVALID_ARG, "short dst accepted");
    CHECK(qmm_pack_into(ctx, QMM_TYPE_Q4_0, k, n, src, srcsz - 1, blob, psz) == QMM_ERR_INVALID_ARG, "short src accepted");
    CHECK_OK(qmm_pack_into(ctx, QMM_TYPE_Q4_0, k, n, src, srcsz, blob, psz));
    int canary = 1;
    for (int i = 0; i < 64; i++)
        canary &= blob[psz + i] == 0xA5;
    CHECK(canary, "qmm_pack_into wrote past its size");

    /* the caller-packed blob and qmm_weights_pack give the same bytes */
    qmm_weights *w1 = NULL;
    CHECK_OK(qmm_weights_pack(ctx, QMM_TYPE_Q4_0, k, n, src, srcsz, &w1));
    size_t bsz = 0;
    const void *b1 = qmm_weights_blob(w1, &bsz);
    CHECK(bsz == psz && memcmp(b1, blob, psz) == 0, "qmm_weights_pack and qmm_pack_into differ");
    CHECK(qmm_weights_k(w1) == k && qmm_weights_n(w1) == n && qmm_weights_type(w1) == QMM_TYPE_Q4_0, "weights accessors");
    CHECK(qmm_weights_kernel(w1) && qmm_weights_slot_count(w1) >= 1, "weights kernel");
    qmm_weights_free(w1);

    test_fields(blob, psz);
    test_truncation(blob, psz);
    test_old_table_layouts();

    /* unsupported types and shapes */
    size_t dummy;
    CHECK(qmm_packed_size(ctx, QMM_TYPE_Q8_K, 256, 4, &dummy) == QMM_ERR_UNSUPPORTED, "Q8_K packable?");
    CHECK(qmm_packed_size(ctx, QMM_TYPE_Q4_0, 48, 4, &dummy) == QMM_ERR_INVALID_ARG, "k = 48 accepted");
    CHECK(qmm_packed_size(ctx, QMM_TYPE_Q4_0, 64, 0, &dummy) == QMM_ERR_INVALID_ARG, "n = 0 accepted");
    CHECK(qmm_packed_size(ctx, QMM_TYPE_Q4_0, 64, -5, &dummy) == QMM_ERR_INVALID_ARG, "n < 0 accepted");
    CHECK(qmm_packed_size(ctx, QMM_TYPE_F32, (int64_t)1 << 40, (int64_t)1 << 40, &dummy) == QMM_ERR_INVALID_ARG, "huge accepted");

    free(blob);
    free(src);
    qmm_context_free(ctx);
    return qmm_test_summary();
}
