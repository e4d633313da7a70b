/* Packed-weight cache files: write / open / get round trips (blobs byte-equal
 * to in-memory packing, results bit-equal), lifetime (weights outliving their
 * cache), every flipped byte and every truncation refused, foreign files,
 * version / family / layout / source mismatches, the kernel-preference check,
 * crash safety (a writer killed at every step leaves the old file intact), and
 * with --gguf-dir: caches of GGUF files written by the gguf Python package. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/internal.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "io/gguf.h"
#include "packed/packed.h"
#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "test_util.h"

static uint64_t seed = 4242;
static char dir[512];

/* --------------------------------------------------------------- helpers */

static qmm_context *make_ctx(int threads) {
    qmm_options o = {0};
    o.n_threads = threads;
    o.pack_threads = 2; /* the same slots whatever the thread count (a capped SME primary gets a fallback) */
    o.flags = QMM_IGNORE_ENV;
    qmm_context *ctx = NULL;
    CHECK_OK(qmm_context_create(&o, &ctx));
    return ctx;
}

typedef struct src_tensor {
    qmm_cache_tensor t;
    void *buf;
} src_tensor;

static void make_source(src_tensor *s, const char *name, qmm_type type, int64_t k, int64_t n) {
    const size_t rb = qmm_row_size(type, k);
    s->buf = qmm_test_alloc(rb * (size_t)n);
    float *f = qmm_test_alloc(sizeof(float) * (size_t)(k * n));
    for (int64_t i = 0; i < k * n; i++)
        f[i] = qmm_test_rand_f(&seed);
    if (type == QMM_TYPE_F32)
        memcpy(s->buf, f, sizeof(float) * (size_t)(k * n));
    else
        CHECK_OK(qmm_quantize(type, f, s->buf, n, k));
    free(f);
    memset(&s->t, 0, sizeof s->t);
    s->t.name = name;
    s->t.type = type;
    s->t.k = k;
    s->t.n = n;
    s->t.data = s->buf;
    s->t.size = rb * (size_t)n;
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = qmm_test_alloc((size_t)n + 1);
    *size = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static int write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const size_t w = fwrite(data, 1, size, f);
    fclose(f);
    return w == size ? 0 : -1;
}

/* Rewrites the header and index checksums after a deliberate edit. */
static void reseal(uint8_t *img) {
    uint32_t nfam, ntens;
    uint64_t ssize;
    memcpy(&nfam, img + 64, 4);
    memcpy(&ntens, img + 68, 4);
    memcpy(&ssize, img + 72, 8);
    const uint32_t icrc = qmm_crc32(0, img + QMM_CACHE_HEADER, (size_t)(nfam + ntens) * QMM_CACHE_ENTRY + ssize);
    memcpy(img + 92, &icrc, 4);
    memset(img + 252, 0, 4);
    const uint32_t hcrc = qmm_crc32(0, img, QMM_CACHE_HEADER);
    memcpy(img + 252, &hcrc, 4);
}

static float *run_mul_mat(qmm_context *ctx, const qmm_weights *w, int64_t m, uint64_t xseed) {
    const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w);
    float *x = qmm_test_alloc(sizeof(float) * (size_t)(k * m));
    float *y = qmm_test_alloc(sizeof(float) * (size_t)(n * m));
    for (int64_t i = 0; i < k * m; i++)
        x[i] = qmm_test_rand_f(&xseed);
    qmm_tensor tx, ty;
    const int64_t nex[2] = {k, m}, ney[2] = {n, m};
    CHECK_OK(qmm_tensor_init(&tx, QMM_TYPE_F32, 2, nex, x));
    CHECK_OK(qmm_tensor_init(&ty, QMM_TYPE_F32, 2, ney, y));
    CHECK_OK(qmm_mul_mat(ctx, w, &tx, &ty));
    free(x);
    return y;
}

/* ---------------------------------------------------------- round trip */

#define NT 6
static src_tensor srcs[NT];

static void make_sources(void) {
    make_source(&srcs[0], "blk.0.attn_q.weight", QMM_TYPE_Q4_0, 96, 37);
    make_source(&srcs[1], "blk.0.attn_v.weight", QMM_TYPE_Q8_0, 64, 5);
    make_source(&srcs[2], "blk.0.ffn_up.weight", QMM_TYPE_F32, 33, 9);
    make_source(&srcs[3], "blk.0.ffn_down.weight", QMM_TYPE_F16, 40, 17);
    make_source(&srcs[4], "a", QMM_TYPE_Q4_0, 32, 1);
    make_source(&srcs[5], "output.weight", QMM_TYPE_Q8_0, 128, 70);
}

static void test_round_trip(qmm_context *ctx) {
    char path[600];
    snprintf(path, sizeof path, "%s/rt.qmp", dir);
    qmm_cache_tensor list[NT];
    for (int i = 0; i < NT; i++)
        list[i] = srcs[i].t;
    CHECK_OK(qmm_cache_write_tensors(ctx, list, NT, 0x1234abcdull, path, NULL));
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    if (!c)
        return;
    CHECK(qmm_cache_count(c) == NT, "count %lld", (long long)qmm_cache_count(c));
    CHECK(qmm_cache_source_hash(c) == 0x1234abcdull, "source hash");
    for (int64_t i = 1; i < qmm_cache_count(c); i++)
        CHECK(strcmp(qmm_cache_name(c, i - 1), qmm_cache_name(c, i)) < 0, "names sorted");
    CHECK(qmm_cache_name(c, -1) == NULL && qmm_cache_name(c, NT) == NULL, "name out of range");
    CHECK(qmm_cache_find(c, "nope") == -1, "find missing");
    CHECK_OK(qmm_cache_verify(c));
    qmm_weights *got[NT];
    for (int i = 0; i < NT; i++) {
        const qmm_cache_tensor *t = &srcs[i].t;
        CHECK(qmm_cache_find(c, t->name) >= 0, "find %s", t->name);
        got[i] = NULL;
        CHECK_OK(qmm_cache_get(c, t->name, &got[i]));
        qmm_weights *ref = NULL;
        CHECK_OK(qmm_weights_pack(ctx, t->type, t->k, t->n, t->data, t->size, &ref));
        if (!got[i] || !ref)
            continue;
        size_t sa, sb;
        const void *a = qmm_weights_blob(got[i], &sa), *b = qmm_weights_blob(ref, &sb);
        CHECK(sa == sb && memcmp(a, b, sa) == 0, "%s: cached blob differs from a fresh pack", t->name);
        CHECK((uintptr_t)a % (sa >= QMM_CACHE_LARGE_BLOB ? QMM_CACHE_PAGE : QMM_CACHE_BLOB_ALIGN) == 0,
              "blob of %zu bytes aligned", sa);
        CHECK(qmm_weights_type(got[i]) == t->type && qmm_weights_k(got[i]) == t->k && qmm_weights_n(got[i]) == t->n, "shape");
        float *y1 = run_mul_mat(ctx, got[i], 3, 99), *y2 = run_mul_mat(ctx, ref, 3, 99);
        CHECK(memcmp(y1, y2, sizeof(float) * (size_t)(3 * t->n)) == 0, "%s: results differ", t->name);
        free(y1);
        free(y2);
        qmm_weights_free(ref);
    }
    qmm_weights *missing = (qmm_weights *)1;
    CHECK(qmm_cache_get(c, "missing", &missing) == QMM_ERR_INVALID_ARG && missing == NULL, "get missing");
    /* lifetime: close first, the weights keep the mapping alive */
    qmm_cache_close(c);
    for (int i = 0; i < NT; i++) {
        if (!got[i])
            continue;
        float *y = run_mul_mat(ctx, got[i], 2, 5);
        free(y);
        qmm_weights_free(got[i]);
    }
    /* opening with a source hash */
    qmm_cache_open_options o = {.source_hash = 0x1234abcdull};
    CHECK_OK(qmm_cache_open(ctx, path, &o, &c));
    qmm_cache_close(c);
    o.source_hash = 77;
    c = (qmm_cache *)1;
    qmm_status st = qmm_cache_open(ctx, path, &o, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && c == NULL, "other source: %s", qmm_status_str(st));
    CHECK(strstr(qmm_last_error(), "another model") != NULL, "message: %s", qmm_last_error());
    o.source_hash = 0;
    o.flags = QMM_CACHE_VERIFY | QMM_CACHE_POPULATE;
    CHECK_OK(qmm_cache_open(ctx, path, &o, &c));
    qmm_cache_close(c);
    o.flags = 1u << 9;
    CHECK(qmm_cache_open(ctx, path, &o, &c) == QMM_ERR_INVALID_ARG, "unknown flag");

    /* an empty cache is valid */
    snprintf(path, sizeof path, "%s/empty.qmp", dir);
    CHECK_OK(qmm_cache_write_tensors(ctx, NULL, 0, 1, path, NULL));
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    CHECK(qmm_cache_count(c) == 0, "empty");
    CHECK_OK(qmm_cache_verify(c));
    qmm_cache_close(c);

    /* writer argument errors */
    list[1].name = list[0].name;
    CHECK(qmm_cache_write_tensors(ctx, list, NT, 0, path, NULL) == QMM_ERR_INVALID_ARG, "duplicate names");
    list[1] = srcs[1].t;
    list[2].size -= 1;
    CHECK(qmm_cache_write_tensors(ctx, list, NT, 0, path, NULL) == QMM_ERR_INVALID_ARG, "short data");
    list[2] = srcs[2].t;
    list[3].type = QMM_TYPE_Q8_K;
    CHECK(qmm_cache_write_tensors(ctx, list, NT, 0, path, NULL) == QMM_ERR_UNSUPPORTED, "Q8_K");
    list[3] = srcs[3].t;
    list[0].k = 33;
    CHECK(qmm_cache_write_tensors(ctx, list, NT, 0, path, NULL) == QMM_ERR_INVALID_ARG, "k not a block multiple");
    list[0] = srcs[0].t;
    CHECK(qmm_cache_write_tensors(ctx, list, NT, 0, "/nonexistent-dir-qmm/x.qmp", NULL) == QMM_ERR_IO, "bad dir");
    CHECK(access("/nonexistent-dir-qmm/x.qmp", F_OK) != 0, "nothing written");
    /* the failed writes left the empty cache in place */
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    qmm_cache_close(c);
}

/* --------------------------------------------------- corruption, foreign */

static void test_corruption(qmm_context *ctx) {
    char path[600];
    snprintf(path, sizeof path, "%s/small.qmp", dir);
    qmm_cache_tensor list[2] = {srcs[4].t, srcs[1].t};
    CHECK_OK(qmm_cache_write_tensors(ctx, list, 2, 9, path, NULL));
    size_t size = 0;
    uint8_t *file = read_file(path, &size);
    if (!file)
        return;
    uint8_t *img = qmm_test_alloc(size);
    memcpy(img, file, size);
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open_memory(ctx, img, size, QMM_CACHE_VERIFY, 9, &c));
    qmm_cache_close(c);

    /* every byte flipped, one at a time: open + verify refuses it */
    long undetected = 0, bad_file = 0, incompatible = 0;
    for (size_t p = 0; p < size; p++) {
        for (int pat = 0; pat < 2; pat++) {
            const uint8_t x = pat ? 0xff : (uint8_t)(1u << (p % 8));
            img[p] ^= x;
            qmm_status st = qmm_cache_open_memory(ctx, img, size, QMM_CACHE_VERIFY, 0, &c);
            if (st == QMM_OK) {
                undetected++;
                if (undetected < 5)
                    fprintf(stderr, "flip 0x%02x at byte %zu not detected\n", x, p);
                qmm_cache_close(c);
            } else if (st == QMM_ERR_BAD_FILE) {
                bad_file++;
            } else if (st == QMM_ERR_INCOMPATIBLE) {
                incompatible++;
            }
            img[p] ^= x;
        }
    }
    CHECK(undetected == 0, "%ld of %zu flipped bytes not detected", undetected, 2 * size);
    CHECK(bad_file > 0 && bad_file + incompatible == (long)(2 * size), "statuses: %ld bad file, %ld incompatible", bad_file,
          incompatible);

    /* the cheap open catches header/index damage; verify catches blob damage */
    img[size - 3] ^= 0x10;
    CHECK_OK(qmm_cache_open_memory(ctx, img, size, 0, 0, &c));
    if (c) {
        qmm_status st = qmm_cache_verify(c);
        CHECK(st == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "checksum mismatch"), "verify: %s", qmm_last_error());
        qmm_cache_close(c);
    }
    img[size - 3] ^= 0x10;

    /* every truncation (and one byte too many) */
    long trunc_ok = 0;
    for (size_t n = 0; n < size; n += (n < 1024 || size - n < 1024) ? 1 : 61) {
        qmm_status st = qmm_cache_open_memory(ctx, img, n, 0, 0, &c);
        if (st != QMM_ERR_BAD_FILE) {
            trunc_ok++;
            if (st == QMM_OK)
                qmm_cache_close(c);
        }
    }
    CHECK(trunc_ok == 0, "%ld truncations not refused as a bad file", trunc_ok);
    uint8_t *longer = qmm_test_alloc(size + 64);
    memcpy(longer, img, size);
    memset(longer + size, 0, 64);
    CHECK(qmm_cache_open_memory(ctx, longer, size + 1, 0, 0, &c) == QMM_ERR_BAD_FILE, "trailing byte");
    free(longer);

    /* truncated file on disk, through the path API */
    char tpath[600];
    snprintf(tpath, sizeof tpath, "%s/trunc.qmp", dir);
    write_file(tpath, img, size - 100);
    qmm_status st = qmm_cache_open(ctx, tpath, NULL, &c);
    CHECK(st == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "truncated"), "truncated: %s", qmm_last_error());
    write_file(tpath, img, 0);
    CHECK(qmm_cache_open(ctx, tpath, NULL, &c) == QMM_ERR_BAD_FILE, "empty file");
    CHECK(qmm_cache_open(ctx, dir, NULL, &c) == QMM_ERR_IO, "a directory");
    snprintf(tpath, sizeof tpath, "%s/does-not-exist.qmp", dir);
    CHECK(qmm_cache_open(ctx, tpath, NULL, &c) == QMM_ERR_IO, "missing file");

    /* foreign files */
    uint8_t *junk = qmm_test_alloc(8192);
    for (int i = 0; i < 8192; i++)
        junk[i] = (uint8_t)qmm_test_rand_u64(&seed);
    st = qmm_cache_open_memory(ctx, junk, 8192, 0, 0, &c);
    CHECK(st == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "not a qmatmul cache"), "junk: %s", qmm_last_error());
    memcpy(junk, "GGUF\3\0\0\0", 8);
    CHECK(qmm_cache_open_memory(ctx, junk, 8192, 0, 0, &c) == QMM_ERR_BAD_FILE, "a GGUF");
    free(junk);

    /* valid but incompatible: format version, unknown family, other layout */
    uint8_t *ed = qmm_test_alloc(size);
    memcpy(ed, img, size);
    CHECK(ed[8] == QMM_CACHE_VERSION, "written as version %d", QMM_CACHE_VERSION);
    ed[8] = QMM_CACHE_VERSION + 1;
    reseal(ed);
    st = qmm_cache_open_memory(ctx, ed, size, 0, 0, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "version"), "a newer version: %s", qmm_last_error());
    memcpy(ed, img, size);
    ed[8] = QMM_CACHE_VERSION + 1; /* not resealed: damage, not a newer file */
    CHECK(qmm_cache_open_memory(ctx, ed, size, 0, 0, &c) == QMM_ERR_BAD_FILE, "version flip");
    memcpy(ed, img, size);
    ed[8] = 0;
    reseal(ed);
    CHECK(qmm_cache_open_memory(ctx, ed, size, 0, 0, &c) == QMM_ERR_INCOMPATIBLE, "version 0");
    /* version 1 required page-aligned blobs: these small ones are not */
    memcpy(ed, img, size);
    ed[8] = 1;
    reseal(ed);
    st = qmm_cache_open_memory(ctx, ed, size, 0, 0, &c);
    CHECK(st == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "4096-byte aligned"), "version 1 with small alignment: %s",
          qmm_last_error());
    memcpy(ed, img, size);
    memset(ed + QMM_CACHE_HEADER, 0, 24); /* the whole name field: family names can be longer */
    memcpy(ed + QMM_CACHE_HEADER, "zz9000_q4_0", 11);
    reseal(ed);
    st = qmm_cache_open_memory(ctx, ed, size, 0, 0, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "lacks"), "unknown family: %s", qmm_last_error());
    /* structure-only open (the tool's verify) still reads it */
    CHECK_OK(qmm_cache_open_memory(NULL, ed, size, QMM_CACHE_STRUCTURE_ONLY | QMM_CACHE_VERIFY, 0, &c));
    qmm_cache_close(c);
    memcpy(ed, img, size);
    ed[QMM_CACHE_HEADER + 24] ^= 1;
    reseal(ed);
    st = qmm_cache_open_memory(ctx, ed, size, 0, 0, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "layout"), "layout: %s", qmm_last_error());
    /* an index that disagrees with its blob (resealed, so it opens): the blob
     * is refused when it is taken */
    memcpy(ed, img, size);
    {
        uint32_t nfam;
        memcpy(&nfam, ed + 64, 4);
        uint8_t *e1 = ed + QMM_CACHE_HEADER + (size_t)nfam * QMM_CACHE_ENTRY + QMM_CACHE_ENTRY; /* tensor 1: k 64 */
        const int64_t k32 = 32;
        memcpy(e1 + 16, &k32, 8);
        reseal(ed);
        CHECK_OK(qmm_cache_open_memory(ctx, ed, size, 0, 0, &c));
        if (c) {
            qmm_weights *w = NULL;
            st = qmm_cache_get(c, qmm_cache_name(c, 1), &w);
            CHECK(st == QMM_ERR_BAD_FILE && w == NULL && strstr(qmm_last_error(), "does not match"), "index/blob mismatch: %s",
                  qmm_last_error());
            qmm_cache_close(c);
        }
    }
    /* a family this build has but this CPU cannot run (when there is one) */
    const qmm_family *foreign = NULL;
    for (int i = 0; i < qmm_registry_count() && !foreign; i++) {
        const qmm_family *kf = qmm_registry_at(i);
        if (kf->wtype == QMM_TYPE_Q4_0 && (kf->required & ~ctx->dispatch.features))
            foreign = kf;
    }
    if (foreign) {
        memcpy(ed, img, size);
        /* family 0 of this cache is Q4_0's (tensor "a" sorts first) */
        uint32_t f0type;
        memcpy(&f0type, ed + QMM_CACHE_HEADER + 28, 4);
        CHECK(f0type == QMM_TYPE_Q4_0, "family 0 multiplies Q4_0 (%u)", f0type);
        memset(ed + QMM_CACHE_HEADER, 0, 24);
        memcpy(ed + QMM_CACHE_HEADER, foreign->name, strlen(foreign->name));
        memcpy(ed + QMM_CACHE_HEADER + 24, &foreign->layout_id, 4);
        reseal(ed);
        st = qmm_cache_open_memory(ctx, ed, size, 0, 0, &c);
        CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "CPU features this CPU lacks"), "%s: %s", foreign->name,
              qmm_last_error());
        printf("note: a cache for '%s' is refused here: %s\n", foreign->name, qmm_last_error());
    }
    free(ed);
    free(img);
    free(file);
}

/* Caches written for other kernel chains: refused by default (another
 * family is preferred here, or this CPU lacks the features). */
static void test_other_chains(qmm_context *ctx) {
    qmm_options o = {0};
    o.n_threads = 1;
    o.flags = QMM_IGNORE_ENV;
    o.hide_features = "avx,avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512_vnni,avx512_bf16,avx_vnni";
    qmm_context *plain = NULL;
    if (qmm_context_create(&o, &plain) != QMM_OK) {
        printf("note: cannot hide x86 features here (%s); chain tests skipped\n", qmm_last_error());
        return;
    }
    const char *p1, *p2;
    qmm_context_chain(ctx, QMM_TYPE_Q4_0, &p1, NULL);
    qmm_context_chain(plain, QMM_TYPE_Q4_0, &p2, NULL);
    if (strcmp(p1, p2) == 0) {
        printf("note: one Q4_0 family with and without SIMD features (%s); chain tests skipped\n", p1);
        qmm_context_free(plain);
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/plain.qmp", dir);
    CHECK_OK(qmm_cache_write_tensors(plain, &srcs[0].t, 1, 0, path, NULL));
    qmm_cache *c = NULL;
    qmm_status st = qmm_cache_open(ctx, path, NULL, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "this context selects"), "%s", qmm_last_error());
    qmm_cache_open_options oo = {.flags = QMM_CACHE_ANY_KERNELS};
    CHECK_OK(qmm_cache_open(ctx, path, &oo, &c));
    qmm_cache_close(c);
    snprintf(path, sizeof path, "%s/simd.qmp", dir);
    CHECK_OK(qmm_cache_write_tensors(ctx, &srcs[0].t, 1, 0, path, NULL));
    st = qmm_cache_open(plain, path, &oo, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "lacks"), "%s", qmm_last_error());
    qmm_context_free(plain);
}

/* Blobs with a fallback slot (a capped primary): the index names both
 * families and the round trip keeps them. */
static void test_two_slots(void) {
    qmm_options o = {0};
    o.n_threads = 2;
    o.thread_cap = 1;
    o.flags = QMM_IGNORE_ENV | QMM_CAP_ALL_PRIMARIES;
    qmm_context *hc = NULL;
    CHECK_OK(qmm_context_create(&o, &hc));
    const char *fb = NULL;
    if (!hc || qmm_context_chain(hc, QMM_TYPE_Q4_0, NULL, &fb) < 2) {
        printf("note: no fallback family for Q4_0 here; two-slot test skipped\n");
        qmm_context_free(hc);
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/two.qmp", dir);
    qmm_cache_tensor list[NT];
    for (int i = 0; i < NT; i++)
        list[i] = srcs[i].t;
    CHECK_OK(qmm_cache_write_tensors(hc, list, NT, 5, path, NULL));
    qmm_cache *c = NULL;
    qmm_cache_open_options oo = {.source_hash = 5, .flags = QMM_CACHE_VERIFY};
    CHECK_OK(qmm_cache_open(hc, path, &oo, &c));
    for (int i = 0; c && i < NT; i++) {
        qmm_weights *w = NULL, *ref = NULL;
        CHECK_OK(qmm_cache_get(c, srcs[i].t.name, &w));
        CHECK_OK(qmm_weights_pack(hc, srcs[i].t.type, srcs[i].t.k, srcs[i].t.n, srcs[i].t.data, srcs[i].t.size, &ref));
        if (w && ref) {
            CHECK(qmm_weights_slot_count(w) == qmm_weights_slot_count(ref) && qmm_weights_slot_count(w) == 2, "%s: %d slots",
                  srcs[i].t.name, qmm_weights_slot_count(w));
            size_t s1, s2;
            const void *b1 = qmm_weights_blob(w, &s1), *b2 = qmm_weights_blob(ref, &s2);
            CHECK(s1 == s2 && memcmp(b1, b2, s1) == 0, "%s: two-slot blob differs", srcs[i].t.name);
            float *y1 = run_mul_mat(hc, w, 5, 17), *y2 = run_mul_mat(hc, ref, 5, 17);
            CHECK(memcmp(y1, y2, sizeof(float) * 5 * (size_t)srcs[i].t.n) == 0, "%s: results differ", srcs[i].t.name);
            free(y1);
            free(y2);
        }
        qmm_weights_free(w);
        qmm_weights_free(ref);
    }
    const qmm_cache_entry *e = c ? qmm_cache_entry_at(c, 0) : NULL;
    CHECK(e && e->fam[1] >= 0, "the index names a fallback family");
    qmm_cache_close(c);
    qmm_context_free(hc);
}

/* ------------------------------------------------------------ crash safety */

/* The names of the temporary files of destination base in dir (up to max). */
static int list_temps(const char *base, char (*names)[256], int max) {
    DIR *d = opendir(dir);
    int n = 0;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    for (struct dirent *de; d && (de = readdir(d));)
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0) {
            if (n < max)
                snprintf(names[n], 256, "%s", de->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

static int kill_at;
static void die_after(void *user, int64_t done, int64_t total, const char *name) {
    (void)user, (void)total, (void)name;
    if (done == kill_at)
        raise(SIGKILL);
}

static void test_crash_safety(qmm_context *ctx) {
    char path[600];
    snprintf(path, sizeof path, "%s/crash.qmp", dir);
    CHECK_OK(qmm_cache_write_tensors(ctx, &srcs[1].t, 1, 111, path, NULL));
    qmm_cache_tensor list[NT];
    for (int i = 0; i < NT; i++)
        list[i] = srcs[i].t;
    for (kill_at = 1; kill_at <= NT; kill_at++) {
        fflush(NULL);
        const pid_t pid = fork();
        if (pid == 0) {
            /* a context of its own: the parent's pool threads are not here */
            qmm_options o = {0};
            o.n_threads = 1;
            o.flags = QMM_IGNORE_ENV;
            qmm_context *cctx = NULL;
            if (qmm_context_create(&o, &cctx) != QMM_OK)
                _exit(3);
            qmm_cache_write_options wo = {.progress = die_after};
            qmm_cache_write_tensors(cctx, list, NT, 222, path, &wo);
            _exit(4); /* not reached: killed after tensor kill_at */
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "writer killed at %d", kill_at);
        qmm_cache *c = NULL;
        CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
        CHECK(c && qmm_cache_source_hash(c) == 111, "the old cache is still there after a kill at %d", kill_at);
        qmm_cache_close(c);
        /* each writer removed the temporary of the one killed before it */
        char names[4][256];
        const int n = list_temps("crash.qmp", names, 4);
        CHECK(n == 1, "%d temporary files after %d killed writers (the stale ones are not removed)", n, kill_at);
        /* and the one left never opens */
        for (int i = 0; i < n && i < 4; i++) {
            char tp[1600];
            snprintf(tp, sizeof tp, "%s/%s", dir, names[i]);
            qmm_status st = qmm_cache_open(ctx, tp, NULL, &c);
            CHECK(st == QMM_ERR_BAD_FILE, "temporary file %s: %s", names[i], qmm_status_str(st));
            if (st == QMM_OK)
                qmm_cache_close(c);
        }
    }
    /* a completed write replaces the cache and removes the last stale temporary */
    CHECK_OK(qmm_cache_write_tensors(ctx, list, NT, 333, path, NULL));
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    CHECK(c && qmm_cache_source_hash(c) == 333 && qmm_cache_count(c) == NT, "replaced");
    qmm_cache_close(c);
    char names[4][256];
    CHECK(list_temps("crash.qmp", names, 4) == 0, "no temporary file left after a completed write");
}

/* A live writer's temporary is kept: a second write to the same destination,
 * made while the first one is between two tensors, leaves the first one's
 * locked temporary alone, and the first one completes. */
static const char *live_path;
static int live_nested_rc = -1, live_temps_during = -1, live_temps_after = -1;
static qmm_context *live_ctx;
static void nested_write(void *user, int64_t done, int64_t total, const char *name) {
    (void)user, (void)total, (void)name;
    if (done != 2)
        return;
    char names[4][256];
    live_temps_during = list_temps("live.qmp", names, 4);
    live_nested_rc = qmm_cache_write_tensors(live_ctx, &srcs[4].t, 1, 444, live_path, NULL);
    live_temps_after = list_temps("live.qmp", names, 4);
}

static void test_live_writer(qmm_context *ctx) {
    char path[600];
    snprintf(path, sizeof path, "%s/live.qmp", dir);
    live_path = path;
    live_ctx = ctx;
    qmm_cache_tensor list[NT];
    for (int i = 0; i < NT; i++)
        list[i] = srcs[i].t;
    qmm_cache_write_options wo = {.progress = nested_write};
    CHECK_OK(qmm_cache_write_tensors(ctx, list, NT, 555, path, &wo));
    CHECK(live_temps_during == 1, "%d temporaries while the first write runs", live_temps_during);
    CHECK(live_nested_rc == QMM_OK, "nested write: %d", live_nested_rc);
    CHECK(live_temps_after == 1, "%d temporaries after the nested write (the live one must stay)", live_temps_after);
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    CHECK(c && qmm_cache_source_hash(c) == 555 && qmm_cache_count(c) == NT, "the outer write completed");
    qmm_cache_close(c);
    /* a lock held by another open file (another process's writer): kept */
    char tp[700];
    snprintf(tp, sizeof tp, "%s.tmp.%d.77", path, 1);
    const int fd = open(tp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "lock %s", tp);
    CHECK(write(fd, QMM_ATOMIC_TEMP_MARKER, QMM_ATOMIC_TEMP_MARKER_LEN) == QMM_ATOMIC_TEMP_MARKER_LEN, "marker");
    CHECK_OK(qmm_cache_write_tensors(ctx, list, 1, 1, path, NULL));
    CHECK(access(tp, F_OK) == 0, "a locked temporary was removed");
    close(fd);
    /* the same file unlocked is stale; names that only look alike are kept,
     * and so is a file of the temporaries' name without their marker (a
     * user's: it was not made by this library) */
    char other[4][700];
    snprintf(other[0], sizeof other[0], "%s.tmp.12x.3", path);
    snprintf(other[1], sizeof other[1], "%s.tmp.12.3.old", path);
    snprintf(other[2], sizeof other[2], "%s/xlive.qmp.tmp.12.3", dir);
    snprintf(other[3], sizeof other[3], "%s.tmp.12.3", path);
    for (int i = 0; i < 4; i++)
        write_file(other[i], "user data", 9);
    CHECK_OK(qmm_cache_write_tensors(ctx, list, 1, 1, path, NULL));
    CHECK(access(tp, F_OK) != 0, "the unlocked temporary %s is still there", tp);
    for (int i = 0; i < 4; i++) {
        CHECK(access(other[i], F_OK) == 0, "%s was removed", other[i]);
        unlink(other[i]);
    }
}

/* ------------------------------------------------- destination checks */

static void test_destinations(qmm_context *ctx) {
    char fifo[600], sub[600], link[600], path[600];
    snprintf(fifo, sizeof fifo, "%s/fifo.qmp", dir);
    snprintf(sub, sizeof sub, "%s/subdir.qmp", dir);
    snprintf(link, sizeof link, "%s/link-to-fifo.qmp", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    CHECK(mkdir(sub, 0700) == 0, "mkdir: %s", strerror(errno));
    CHECK(symlink("fifo.qmp", link) == 0, "symlink: %s", strerror(errno));
    const char *targets[3] = {fifo, sub, link};
    const char *kinds[3] = {"FIFO", "directory", "FIFO"};
    for (int i = 0; i < 3; i++) {
        qmm_status st = qmm_cache_write_tensors(ctx, &srcs[0].t, 1, 1, targets[i], NULL);
        CHECK(st == QMM_ERR_INVALID_ARG && strstr(qmm_last_error(), kinds[i]) && strstr(qmm_last_error(), "refusing"),
              "%s: %s: %s", targets[i], qmm_status_str(st), qmm_last_error());
    }
    struct stat sb;
    CHECK(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO is still a FIFO");
    CHECK(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode), "the link is still a link");
    CHECK(stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode), "the directory is still a directory");
    char names[4][256];
    CHECK(list_temps("fifo.qmp", names, 4) == 0 && list_temps("subdir.qmp", names, 4) == 0 &&
              list_temps("link-to-fifo.qmp", names, 4) == 0,
          "nothing written");
    unlink(link);
    unlink(fifo);
    rmdir(sub);
    /* a regular file, and a symbolic link to one, are replaced */
    snprintf(path, sizeof path, "%s/regular.qmp", dir);
    write_file(path, "old", 3);
    CHECK_OK(qmm_cache_write_tensors(ctx, &srcs[0].t, 1, 1, path, NULL));
    snprintf(link, sizeof link, "%s/link-to-regular.qmp", dir);
    CHECK(symlink("regular.qmp", link) == 0, "symlink: %s", strerror(errno));
    CHECK_OK(qmm_cache_write_tensors(ctx, &srcs[0].t, 1, 2, link, NULL));
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, link, NULL, &c));
    CHECK(c && qmm_cache_source_hash(c) == 2 && lstat(link, &sb) == 0 && S_ISREG(sb.st_mode), "the link is replaced");
    qmm_cache_close(c);
    unlink(link);
    unlink(path);
}

/* ----------------------------------------- many small tensors: file size */

static void test_small_tensors(qmm_context *ctx) {
    enum { COUNT = 3000 };
    qmm_cache_tensor *list = qmm_test_alloc(sizeof *list * COUNT);
    char(*names)[16] = qmm_test_alloc(sizeof *names * COUNT);
    for (int i = 0; i < COUNT; i++) {
        snprintf(names[i], sizeof names[i], "t.%05d", i);
        list[i] = srcs[4].t; /* Q4_0, 1 row of 32 */
        list[i].name = names[i];
    }
    char path[600];
    snprintf(path, sizeof path, "%s/small_many.qmp", dir);
    CHECK_OK(qmm_cache_write_tensors(ctx, list, COUNT, 1, path, NULL));
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    if (c) {
        uint64_t packed = 0;
        for (int64_t i = 0; i < qmm_cache_count(c); i++)
            packed += qmm_cache_entry_at(c, i)->size;
        const uint64_t index = qmm_cache_entry_at(c, 0)->offset, fsize = qmm_cache_file_size(c);
        printf("note: %d tiny tensors: %llu packed bytes, index %llu, file %llu\n", COUNT, (unsigned long long)packed,
               (unsigned long long)index, (unsigned long long)fsize);
        CHECK(fsize <= 2 * packed + index, "a cache of %llu bytes for %llu packed bytes and a %llu-byte index",
              (unsigned long long)fsize, (unsigned long long)packed, (unsigned long long)index);
        CHECK_OK(qmm_cache_verify(c));
        qmm_weights *w = NULL;
        CHECK_OK(qmm_cache_get(c, "t.01234", &w));
        if (w) {
            qmm_weights *ref = NULL;
            CHECK_OK(qmm_weights_pack(ctx, srcs[4].t.type, 32, 1, srcs[4].t.data, srcs[4].t.size, &ref));
            float *y1 = run_mul_mat(ctx, w, 2, 4), *y2 = run_mul_mat(ctx, ref, 2, 4);
            CHECK(memcmp(y1, y2, 2 * sizeof(float)) == 0, "results differ");
            free(y1);
            free(y2);
            qmm_weights_free(ref);
        }
        qmm_weights_free(w);
        qmm_cache_close(c);
    }
    unlink(path);
    free(names);
    free(list);

    /* a large blob is page aligned; relabelled version 1 (page-aligned blobs
     * only), such a file is still read */
    src_tensor big;
    make_source(&big, "big", QMM_TYPE_Q8_0, 1024, 128);
    qmm_cache_tensor two[2] = {srcs[4].t, big.t};
    snprintf(path, sizeof path, "%s/big.qmp", dir);
    CHECK_OK(qmm_cache_write_tensors(ctx, two, 2, 1, path, NULL));
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    const qmm_cache_entry *e0 = qmm_cache_entry_at(c, 0), *e1 = qmm_cache_entry_at(c, 1);
    CHECK(e0 && e1 && strcmp(e0->name, "a") == 0 && e0->size < QMM_CACHE_LARGE_BLOB && e0->offset % QMM_CACHE_BLOB_ALIGN == 0 &&
              e1->size >= QMM_CACHE_LARGE_BLOB && e1->offset % QMM_CACHE_PAGE == 0 &&
              e1->offset - (e0->offset + e0->size) < QMM_CACHE_PAGE,
          "the small blob 64-byte aligned, the large one on the next page");
    qmm_cache_close(c);
    CHECK_OK(qmm_cache_write_tensors(ctx, &big.t, 1, 1, path, NULL));
    size_t size = 0;
    uint8_t *img = read_file(path, &size);
    if (img) {
        img[8] = 1;
        reseal(img);
        CHECK_OK(qmm_cache_open_memory(ctx, img, size, QMM_CACHE_VERIFY, 0, &c));
        qmm_cache_close(c);
        free(img);
    }
    unlink(path);
    free(big.buf);
}

/* ------------------------------ a file truncated under an open cache */

static void test_copy_mode(qmm_context *ctx) {
    char path[600];
    snprintf(path, sizeof path, "%s/copy.qmp", dir);
    qmm_cache_tensor list[NT];
    for (int i = 0; i < NT; i++)
        list[i] = srcs[i].t;
    CHECK_OK(qmm_cache_write_tensors(ctx, list, NT, 1, path, NULL));
    qmm_cache_open_options o = {.flags = QMM_CACHE_COPY | QMM_CACHE_VERIFY};
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, &o, &c));
    /* another program truncates the file: a mapped cache would fault (SIGBUS)
     * on the next multiply; the copy does not depend on the file */
    CHECK(truncate(path, 100) == 0, "truncate: %s", strerror(errno));
    qmm_weights *ws[NT] = {0};
    for (int i = 0; c && i < NT; i++)
        CHECK_OK(qmm_cache_get(c, srcs[i].t.name, &ws[i]));
    qmm_cache_close(c); /* the weights keep the copy */
    for (int i = 0; i < NT; i++) {
        qmm_weights *ref = NULL;
        CHECK_OK(qmm_weights_pack(ctx, srcs[i].t.type, srcs[i].t.k, srcs[i].t.n, srcs[i].t.data, srcs[i].t.size, &ref));
        if (ws[i] && ref) {
            float *y1 = run_mul_mat(ctx, ws[i], 3, 21), *y2 = run_mul_mat(ctx, ref, 3, 21);
            CHECK(memcmp(y1, y2, sizeof(float) * 3 * (size_t)srcs[i].t.n) == 0, "%s: results differ", srcs[i].t.name);
            free(y1);
            free(y2);
        }
        qmm_weights_free(ws[i]);
        qmm_weights_free(ref);
    }
    CHECK(qmm_cache_open(ctx, path, &o, &c) == QMM_ERR_BAD_FILE, "the truncated file is refused");
    unlink(path);
}

/* -------------------------------------------- threads sharing one cache */

typedef struct get_arg {
    qmm_cache *c;
    int fails;
} get_arg;

static void *getter(void *p) {
    get_arg *a = p;
    for (int r = 0; r < 200; r++)
        for (int i = 0; i < NT; i++) {
            qmm_weights *w = NULL;
            if (qmm_cache_get(a->c, srcs[i].t.name, &w) != QMM_OK)
                a->fails++;
            qmm_weights_free(w);
        }
    return NULL;
}

static void test_threads(qmm_context *ctx) {
    char path[600];
    snprintf(path, sizeof path, "%s/rt.qmp", dir);
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, NULL, &c));
    if (!c)
        return;
    pthread_t th[4];
    get_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i].c = c;
        args[i].fails = 0;
        pthread_create(&th[i], NULL, getter, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].fails == 0, "thread %d: %d failed gets", i, args[i].fails);
    }
    qmm_cache_close(c);
}

/* ---------------------------------------------- GGUF written by gguf (py) */

static int count_progress;
static void progress(void *user, int64_t done, int64_t total, const char *name) {
    (void)user, (void)done, (void)total, (void)name;
    count_progress++;
}
static int only_q4(void *user, const char *name, qmm_type type, int n_dims, const int64_t ne[4]) {
    (void)user, (void)name, (void)ne;
    return type == QMM_TYPE_Q4_0 && n_dims == 2;
}
static int take_3d(void *user, const char *name, qmm_type type, int n_dims, const int64_t ne[4]) {
    (void)user, (void)type, (void)n_dims, (void)ne;
    return strcmp(name, "extra.3d") == 0;
}

/* A cache that claims model_a's source hash (copied, as from a genuine
 * cache) but holds an entry of another shape, type or name: refused by
 * qmm_cache_open with gguf_path and by qmm_cache_matches_gguf; an engine
 * sizing its buffers from the GGUF would overrun them otherwise. */
static void test_gguf_forged(qmm_context *ctx, const char *gdir) {
    char ga[600], path[600];
    snprintf(ga, sizeof ga, "%s/model_a.gguf", gdir);
    snprintf(path, sizeof path, "%s/forged.qmp", dir);
    uint64_t h = 0;
    CHECK_OK(qmm_cache_gguf_hash(ga, &h));
    /* model_a's blk.0.attn_q.weight is Q4_0 [96, 96] */
    static uint8_t data[2 * 34 * 3 * 192];
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)qmm_test_rand_u64(&rng) & 0x3f; /* finite fp16 scales */
    const struct {
        const char *name;
        qmm_type type;
        int64_t k, n;
        int ok;
    } cases[] = {
        {"blk.0.attn_q.weight", QMM_TYPE_Q4_0, 96, 96, 1},  {"blk.0.attn_q.weight", QMM_TYPE_Q4_0, 96, 192, 0},
        {"blk.0.attn_q.weight", QMM_TYPE_Q4_0, 192, 48, 0}, {"blk.0.attn_q.weight", QMM_TYPE_Q8_0, 96, 96, 0},
        {"blk.9.attn_q.weight", QMM_TYPE_Q4_0, 96, 96, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const qmm_cache_tensor t = {
            .name = cases[i].name, .type = cases[i].type, .k = cases[i].k, .n = cases[i].n, .data = data, .size = sizeof data};
        CHECK_OK(qmm_cache_write_tensors(ctx, &t, 1, h, path, NULL));
        qmm_cache_open_options o = {.gguf_path = ga};
        qmm_cache *c = NULL;
        const qmm_status st = qmm_cache_open(ctx, path, &o, &c);
        CHECK(cases[i].ok ? st == QMM_OK : st == QMM_ERR_INCOMPATIBLE && !c, "%s %s [%lld, %lld] with model_a's hash: %s (%s)",
              cases[i].name, qmm_type_name(cases[i].type), (long long)cases[i].k, (long long)cases[i].n, qmm_status_str(st),
              qmm_last_error());
        qmm_cache_close(c);
        /* the structure-only open (qmatmul verify) then the check */
        CHECK_OK(qmm_cache_open_structure(path, &c));
        const qmm_status sm = qmm_cache_matches_gguf(c, ga);
        CHECK(cases[i].ok ? sm == QMM_OK : sm == QMM_ERR_INCOMPATIBLE, "qmm_cache_matches_gguf, case %zu: %s", i,
              qmm_status_str(sm));
        qmm_cache_close(c);
    }
}

static void test_gguf_files(qmm_context *ctx, const char *gdir) {
    char ga[600], gb[600], gc[600], path[600];
    snprintf(ga, sizeof ga, "%s/model_a.gguf", gdir);
    snprintf(gb, sizeof gb, "%s/model_b.gguf", gdir);
    snprintf(gc, sizeof gc, "%s/model_c.gguf", gdir);
    snprintf(path, sizeof path, "%s/model_a.qmp", dir);
    qmm_cache_write_options wo = {.progress = progress};
    CHECK_OK(qmm_cache_write(ctx, ga, path, &wo));
    /* 2 layers x 7 matrices + token_embd + output + the Q4_K + the MXFP4; norms, 3-D and Q8_K skipped */
    CHECK(count_progress == 18, "%d tensors packed", count_progress);
    qmm_cache_open_options o = {.gguf_path = ga, .flags = QMM_CACHE_VERIFY};
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open(ctx, path, &o, &c));
    if (!c)
        return;
    CHECK(qmm_cache_count(c) == 18, "count %lld", (long long)qmm_cache_count(c));
    uint64_t h = 0;
    CHECK_OK(qmm_cache_gguf_hash(ga, &h));
    CHECK(h == qmm_cache_source_hash(c), "source hash");
    CHECK(qmm_cache_find(c, "blk.0.attn_norm.weight") < 0 && qmm_cache_find(c, "extra.q8_k") < 0 &&
              qmm_cache_find(c, "extra.q4_k") >= 0 && qmm_cache_find(c, "extra.mxfp4") >= 0,
          "skipped tensors, the K-quant and MXFP4 cached");
    /* each cached blob equals a fresh pack of the GGUF's data, and runs the same */
    qmm_gguf *g = NULL;
    CHECK_OK(qmm_gguf_open(ga, &g));
    for (int64_t i = 0; g && i < qmm_cache_count(c); i++) {
        const qmm_cache_entry *e = qmm_cache_entry_at(c, i);
        const int64_t ti = qmm_gguf_find_tensor(g, e->name);
        CHECK(ti >= 0, "%s in the GGUF", e->name);
        if (ti < 0)
            continue;
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, ti);
        CHECK(t->type == (uint32_t)e->type && t->ne[0] == e->k && t->ne[1] == e->n, "%s shape", e->name);
        qmm_weights *w = NULL, *ref = NULL;
        CHECK_OK(qmm_cache_get(c, e->name, &w));
        CHECK_OK(qmm_weights_pack(ctx, (qmm_type)t->type, t->ne[0], t->ne[1], t->data, (size_t)t->size, &ref));
        if (w && ref) {
            size_t s1, s2;
            const void *b1 = qmm_weights_blob(w, &s1), *b2 = qmm_weights_blob(ref, &s2);
            CHECK(s1 == s2 && memcmp(b1, b2, s1) == 0, "%s: cached blob differs from a pack of the GGUF data", e->name);
            float *y1 = run_mul_mat(ctx, w, 3, 8), *y2 = run_mul_mat(ctx, ref, 3, 8);
            CHECK(memcmp(y1, y2, sizeof(float) * 3 * (size_t)e->n) == 0, "%s: results differ", e->name);
            free(y1);
            free(y2);
        }
        qmm_weights_free(w);
        qmm_weights_free(ref);
    }
    qmm_gguf_close(g);
    /* results: cached weights vs weights packed from the same GGUF data, via a
     * second cache written with a 1-thread context (other pack split) */
    qmm_context *one = make_ctx(1);
    char path1[600];
    snprintf(path1, sizeof path1, "%s/model_a_1t.qmp", dir);
    CHECK_OK(qmm_cache_write(one, ga, path1, NULL));
    qmm_cache *c1 = NULL;
    CHECK_OK(qmm_cache_open(one, path1, &o, &c1));
    for (int64_t i = 0; c1 && i < qmm_cache_count(c); i++) {
        qmm_weights *w = NULL, *w1 = NULL;
        CHECK_OK(qmm_cache_get(c, qmm_cache_name(c, i), &w));
        CHECK_OK(qmm_cache_get(c1, qmm_cache_name(c, i), &w1));
        if (w && w1) {
            size_t s, s1;
            const void *b = qmm_weights_blob(w, &s), *b1 = qmm_weights_blob(w1, &s1);
            CHECK(s == s1 && memcmp(b, b1, s) == 0, "%s: blobs differ", qmm_cache_name(c, i));
            float *y = run_mul_mat(ctx, w, 2, 3), *y1 = run_mul_mat(one, w1, 2, 3);
            CHECK(memcmp(y, y1, sizeof(float) * 2 * (size_t)qmm_weights_n(w)) == 0, "%s: results differ", qmm_cache_name(c, i));
            free(y);
            free(y1);
        }
        qmm_weights_free(w);
        qmm_weights_free(w1);
    }
    qmm_cache_close(c1);
    qmm_context_free(one);
    qmm_cache_close(c);

    /* a fine-tune (same table, other weights) and another model are refused */
    uint64_t hb = 0, hc = 0;
    CHECK_OK(qmm_cache_gguf_hash(gb, &hb));
    CHECK_OK(qmm_cache_gguf_hash(gc, &hc));
    CHECK(hb != h && hc != h && hb != hc, "hashes differ");
    o.gguf_path = gb;
    qmm_status st = qmm_cache_open(ctx, path, &o, &c);
    CHECK(st == QMM_ERR_INCOMPATIBLE && strstr(qmm_last_error(), "another model"), "fine-tune: %s", qmm_last_error());
    o.gguf_path = gc;
    CHECK(qmm_cache_open(ctx, path, &o, &c) == QMM_ERR_INCOMPATIBLE, "other model");
    /* a GGUF is not a cache, a cache is not a GGUF */
    CHECK(qmm_cache_open(ctx, ga, NULL, &c) == QMM_ERR_BAD_FILE, "gguf as cache");
    CHECK(qmm_cache_write(ctx, path, path1, NULL) == QMM_ERR_BAD_FILE, "cache as gguf");
    /* filters */
    count_progress = 0;
    wo.filter = only_q4;
    CHECK_OK(qmm_cache_write(ctx, ga, path1, &wo));
    CHECK(count_progress == 9, "%d Q4_0 tensors", count_progress);
    wo.filter = take_3d;
    CHECK(qmm_cache_write(ctx, ga, path1, &wo) == QMM_ERR_UNSUPPORTED, "3-D selected");
}

int main(int argc, char **argv) {
    const char *gdir = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--gguf-dir") == 0 && i + 1 < argc)
            gdir = argv[++i];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/qmm_test_cache.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    qmm_context *ctx = make_ctx(2);
    make_sources();
    test_round_trip(ctx);
    test_corruption(ctx);
    test_other_chains(ctx);
    test_two_slots();
    test_crash_safety(ctx);
    test_live_writer(ctx);
    test_destinations(ctx);
    test_small_tensors(ctx);
    test_copy_mode(ctx);
    test_threads(ctx);
    if (gdir) {
        test_gguf_files(ctx, gdir);
        test_gguf_forged(ctx, gdir);
    }
    qmm_context_free(ctx);
    for (int i = 0; i < NT; i++)
        free(srcs[i].buf);
    /* clean up the directory */
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return qmm_test_summary();
}
