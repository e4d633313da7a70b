/* The public API the qmatmul command is built on: CPU description, feature
 * names, kernel family enumeration, the log callback, fp16 conversion, cache
 * inspection and the GGUF reader (on files written by the `gguf` package:
 * --python-dir DIR, see gguf_gen.py). Uses only the installed headers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "qmatmul_gguf.h"
#include "test_util.h"

#define EXPECT_ST(expr, want)                                                                                                    \
    do {                                                                                                                         \
        qmm_status s_ = (expr);                                                                                                  \
        CHECK(s_ == (want), "%s -> %s, expected %s", #expr, qmm_status_str(s_), qmm_status_str(want));                           \
    } while (0)

static void test_feature_names(void) {
    int named = 0;
    for (int bit = 0; bit < 64; bit++) {
        const char *name = qmm_cpu_feature_name(1ull << bit);
        if (!name)
            continue;
        named++;
        CHECK(qmm_cpu_feature_from_name(name) == 1ull << bit, "%s does not map back to bit %d", name, bit);
    }
    CHECK(named == 25, "%d named features", named);
    CHECK(strcmp(qmm_cpu_feature_name(QMM_CPU_AVX2), "avx2") == 0, "avx2");
    CHECK(strcmp(qmm_cpu_feature_name(QMM_CPU_AVX512VNNI), "avx512_vnni") == 0, "avx512_vnni");
    CHECK(strcmp(qmm_cpu_feature_name(QMM_CPU_SME2), "sme2") == 0, "sme2");
    CHECK(qmm_cpu_feature_name(QMM_CPU_AVX2 | QMM_CPU_FMA) == NULL, "two bits have no name");
    CHECK(qmm_cpu_feature_name(0) == NULL, "no bit has no name");
    CHECK(qmm_cpu_feature_from_name("nosuchfeature") == 0, "unknown name");
    CHECK(qmm_cpu_feature_from_name(NULL) == 0, "NULL name");
}

static void test_cpu_describe(void) {
    EXPECT_ST(qmm_cpu_describe(NULL, NULL), QMM_ERR_INVALID_ARG);
    CHECK(strstr(qmm_last_error(), "qmm_cpu_describe") != NULL, "message: %s", qmm_last_error());
    qmm_cpu_desc d;
    memset(&d, 0xA5, sizeof d);
    CHECK_OK(qmm_cpu_describe(NULL, &d));
    CHECK(d.features == d.features_detected, "no context: features as detected");
    CHECK(d.arch[0] && memchr(d.arch, 0, sizeof d.arch), "arch '%.16s'", d.arch);
    CHECK(memchr(d.model, 0, sizeof d.model) != NULL, "model NUL-terminated");
    CHECK(d.n_cores >= 1 && d.numa_nodes >= 1, "cores %d, nodes %d", d.n_cores, d.numa_nodes);
    CHECK(d.llc_bytes >= 0 && d.sve_vl_bytes >= 0 && d.sme_svl_bytes >= 0 && d.sme_units >= 0, "sizes");
    CHECK(!!d.sve_vl_bytes == !!(d.features & QMM_CPU_SVE), "SVE vector length %d with sve %d", d.sve_vl_bytes,
          !!(d.features & QMM_CPU_SVE));
    printf("cpu: %s (%s), %d cores, LLC %lld bytes, features 0x%016llx\n", d.model, d.arch, d.n_cores, (long long)d.llc_bytes,
           (unsigned long long)d.features);

    /* With a context that hides a feature the CPU has: gone from features,
     * still in features_detected. */
    uint64_t bit = 0;
    for (int b = 0; b < 64 && !bit; b++)
        if ((d.features_detected >> b & 1) && qmm_cpu_feature_name(1ull << b) && (1ull << b) != QMM_CPU_SME)
            bit = 1ull << b;
    if (bit) {
        qmm_options o = {0};
        o.flags = QMM_IGNORE_ENV;
        o.hide_features = qmm_cpu_feature_name(bit);
        qmm_context *ctx;
        CHECK_OK(qmm_context_create(&o, &ctx));
        qmm_cpu_desc h;
        CHECK_OK(qmm_cpu_describe(ctx, &h));
        CHECK(h.features_detected == d.features_detected, "detected features unchanged");
        CHECK(h.features == (d.features_detected & ~bit), "hidden %s: 0x%llx", qmm_cpu_feature_name(bit),
              (unsigned long long)h.features);
        qmm_context_free(ctx);
    }
}

static const qmm_type packable[] = {QMM_TYPE_F32, QMM_TYPE_F16, QMM_TYPE_Q4_0, QMM_TYPE_Q8_0};

static void test_families(void) {
    const int n = qmm_family_count();
    CHECK(n >= 4, "%d families", n);
    qmm_cpu_desc cpu;
    CHECK_OK(qmm_cpu_describe(NULL, &cpu));
    int n_ref = 0;
    for (int i = 0; i < n; i++) {
        qmm_family_desc f;
        memset(&f, 0, sizeof f);
        CHECK_OK(qmm_family_info(i, &f));
        if (!f.name)
            continue;
        CHECK(strlen(f.name) >= 1 && strlen(f.name) <= 23, "name '%s'", f.name);
        CHECK(qmm_family_find(f.name) == i, "find(%s) = %d, expected %d", f.name, qmm_family_find(f.name), i);
        CHECK(qmm_type_packable(f.type), "%s: type %d", f.name, (int)f.type);
        CHECK(f.is_reference == (qmm_family_reference(f.type) == i), "%s: is_reference %d", f.name, f.is_reference);
        CHECK(f.runnable == ((f.required & ~cpu.features_detected) == 0), "%s: runnable %d", f.name, f.runnable);
        CHECK(f.mr >= 1 && f.nr >= 1 && f.n_step >= 1, "%s: tile %dx%d step %d", f.name, f.mr, f.nr, f.n_step);
        if (f.is_reference) {
            n_ref++;
            CHECK(f.required == 0 && f.runnable, "%s: a reference family needs nothing", f.name);
        }
    }
    CHECK(n_ref == 25, "%d reference families", n_ref);
    qmm_family_desc f;
    EXPECT_ST(qmm_family_info(-1, &f), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_family_info(n, &f), QMM_ERR_INVALID_ARG);
    CHECK(strstr(qmm_last_error(), "out of range") != NULL, "message: %s", qmm_last_error());
    EXPECT_ST(qmm_family_info(0, NULL), QMM_ERR_INVALID_ARG);
    CHECK(qmm_family_find(NULL) == -1 && qmm_family_find("no_such_family") == -1, "find unknown");
    CHECK(qmm_family_reference(QMM_TYPE_Q8_K) == -1 && qmm_family_reference((qmm_type)99) == -1, "reference of unsupported");
    CHECK(qmm_type_packable(QMM_TYPE_Q4_K) && qmm_type_packable(QMM_TYPE_MXFP4) && qmm_type_packable(QMM_TYPE_BF16) &&
              !qmm_type_packable(QMM_TYPE_Q8_K) && !qmm_type_packable(QMM_TYPE_Q8_1) && !qmm_type_packable((qmm_type)-1) &&
              !qmm_type_packable((qmm_type)QMM_TYPE_COUNT),
          "unpackable types");

    /* Enumeration order is priority order: a context's primary for a type is
     * the first family of that type this CPU can run. */
    qmm_options o = {0};
    o.flags = QMM_IGNORE_ENV;
    qmm_context *ctx;
    CHECK_OK(qmm_context_create(&o, &ctx));
    for (size_t t = 0; t < sizeof packable / sizeof packable[0]; t++) {
        CHECK(qmm_type_packable(packable[t]), "%s packable", qmm_type_name(packable[t]));
        const char *primary = NULL, *fallback = NULL;
        CHECK(qmm_context_chain(ctx, packable[t], &primary, &fallback) >= 1, "chain");
        const char *first = NULL;
        for (int i = 0; i < n && !first; i++)
            if (qmm_family_info(i, &f) == QMM_OK && f.type == packable[t] && f.runnable)
                first = f.name;
        CHECK(primary && first && strcmp(primary, first) == 0, "%s: chain primary %s, first runnable %s",
              qmm_type_name(packable[t]), primary ? primary : "-", first ? first : "-");
        if (fallback) {
            const int fi = qmm_family_find(fallback);
            CHECK(fi >= 0 && qmm_family_info(fi, &f) == QMM_OK && f.runnable && f.type == packable[t], "fallback %s", fallback);
        }
    }
    qmm_context_free(ctx);
}

typedef struct log_record {
    int calls, level;
    char msg[256];
} log_record;

static void record_log(int level, const char *message, void *user) {
    log_record *r = user;
    r->calls++;
    r->level = level;
    snprintf(r->msg, sizeof r->msg, "%s", message);
}

/* A context reading QMM_HIDE_FEATURES with an unknown name warns. */
static void warn_once(void) {
    char *saved = getenv("QMM_HIDE_FEATURES") ? strdup(getenv("QMM_HIDE_FEATURES")) : NULL;
    char *saved_log = getenv("QMM_LOG") ? strdup(getenv("QMM_LOG")) : NULL;
    setenv("QMM_HIDE_FEATURES", "nosuchfeature", 1);
    unsetenv("QMM_LOG");
    qmm_context *ctx = NULL;
    CHECK_OK(qmm_context_create(NULL, &ctx));
    qmm_context_free(ctx);
    if (saved)
        setenv("QMM_HIDE_FEATURES", saved, 1);
    else
        unsetenv("QMM_HIDE_FEATURES");
    if (saved_log)
        setenv("QMM_LOG", saved_log, 1);
    free(saved);
    free(saved_log);
}

static void test_log_callback(void) {
    log_record r = {0};
    qmm_set_log_callback(record_log, &r);
    warn_once();
    CHECK(r.calls == 1, "%d calls", r.calls);
    CHECK(r.level == QMM_LOG_WARN, "level %d", r.level);
    CHECK(strstr(r.msg, "nosuchfeature") != NULL, "message '%s'", r.msg);
    CHECK(r.msg[0] && r.msg[strlen(r.msg) - 1] != '\n', "no trailing newline");
    qmm_set_log_callback(NULL, NULL); /* back to stderr */
    warn_once();
    CHECK(r.calls == 1, "callback called after it was removed");
}

static void test_fp16(void) {
    CHECK(qmm_fp32_to_fp16(1.0f) == 0x3c00, "1.0 -> 0x%04x", qmm_fp32_to_fp16(1.0f));
    CHECK(qmm_fp32_to_fp16(-2.0f) == 0xc000, "-2.0");
    CHECK(qmm_fp16_to_fp32(0x3555) == 0x1.554p-2f, "0x3555");
    CHECK(qmm_fp16_to_fp32(qmm_fp32_to_fp16(65504.0f)) == 65504.0f, "max half");
}

static void test_cache_inspection(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/test_public_api_%d.qmp", dir, (int)getpid());
    qmm_options o = {0};
    o.flags = QMM_IGNORE_ENV;
    qmm_context *ctx;
    CHECK_OK(qmm_context_create(&o, &ctx));
    float w[4 * 64];
    for (int i = 0; i < 4 * 64; i++)
        w[i] = (float)(i % 7) - 3.0f;
    qmm_cache_tensor t = {.name = "w.f32", .type = QMM_TYPE_F32, .k = 64, .n = 4, .data = w, .size = sizeof w};
    CHECK_OK(qmm_cache_write_tensors(ctx, &t, 1, 42, path, NULL));
    qmm_cache *c = NULL;
    CHECK_OK(qmm_cache_open_structure(path, &c));
    if (c) {
        CHECK(qmm_cache_file_size(c) > 4096, "size %llu", (unsigned long long)qmm_cache_file_size(c));
        CHECK(strcmp(qmm_cache_writer_version(c), qmm_version()) == 0, "writer %s", qmm_cache_writer_version(c));
        const char *primary = NULL, *fallback = NULL;
        const int chain = qmm_context_chain(ctx, QMM_TYPE_F32, &primary, &fallback);
        const int nf = qmm_cache_family_count(c);
        CHECK(nf >= 1 && nf <= chain, "%d families in the cache, chain of %d", nf, chain);
        qmm_family_desc f;
        CHECK_OK(qmm_cache_family_info(c, 0, &f));
        CHECK(f.name && strcmp(f.name, primary) == 0, "family 0 %s, primary %s", f.name ? f.name : "-", primary);
        const int fi = qmm_family_find(primary);
        qmm_family_desc g;
        CHECK_OK(qmm_family_info(fi, &g));
        CHECK(f.type == g.type && f.required == g.required && f.layout_id == g.layout_id && f.mr == g.mr && f.nr == g.nr &&
                  f.kr == g.kr && f.sr == g.sr && f.n_step == g.n_step && f.runnable == g.runnable &&
                  f.is_reference == g.is_reference,
              "the cache's family %s as the build's", f.name);
        EXPECT_ST(qmm_cache_family_info(c, nf, &f), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_cache_family_info(c, -1, &f), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_cache_family_info(c, 0, NULL), QMM_ERR_INVALID_ARG);
        CHECK_OK(qmm_cache_verify(c));
        CHECK_OK(qmm_cache_compatible(ctx, c, 0));
        EXPECT_ST(qmm_cache_compatible(NULL, c, 0), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_cache_compatible(ctx, c, 1u << 20), QMM_ERR_INVALID_ARG);
        qmm_cache_close(c);
    }
    EXPECT_ST(qmm_cache_family_info(NULL, 0, &(qmm_family_desc){0}), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_cache_compatible(ctx, NULL, 0), QMM_ERR_INVALID_ARG);
    CHECK(qmm_cache_family_count(NULL) == 0 && qmm_cache_file_size(NULL) == 0 && qmm_cache_writer_version(NULL) == NULL,
          "NULL cache");
    EXPECT_ST(qmm_cache_open_structure(NULL, &c), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_cache_open_structure(path, NULL), QMM_ERR_INVALID_ARG);
    unlink(path);
    EXPECT_ST(qmm_cache_open_structure(path, &c), QMM_ERR_IO);
    CHECK(c == NULL, "no cache on error");
    qmm_context_free(ctx);
}

/* The GGUF reader with NULL and missing arguments: errors, never a crash. */
static void test_gguf_bad_args(void) {
    qmm_gguf *g = (qmm_gguf *)&g;
    EXPECT_ST(qmm_gguf_open(NULL, &g), QMM_ERR_INVALID_ARG);
    CHECK(g == NULL, "*out cleared");
    EXPECT_ST(qmm_gguf_open("x.gguf", NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_open("/nonexistent/x.gguf", &g), QMM_ERR_IO);
    EXPECT_ST(qmm_gguf_open_memory(NULL, 10, &g), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_open_memory("GGUF", 4, &g), QMM_ERR_BAD_FILE);
    CHECK(g == NULL, "no handle on error");
    CHECK(qmm_gguf_version(NULL) == 0 && qmm_gguf_file_size(NULL) == 0 && qmm_gguf_alignment(NULL) == 0 &&
              qmm_gguf_data_offset(NULL) == 0,
          "NULL handle sizes");
    CHECK(qmm_gguf_kv_count(NULL) == 0 && qmm_gguf_tensor_count(NULL) == 0, "NULL handle counts");
    CHECK(qmm_gguf_kv_at(NULL, 0) == NULL && qmm_gguf_tensor_at(NULL, 0) == NULL && qmm_gguf_get(NULL, "k") == NULL,
          "NULL handle items");
    CHECK(qmm_gguf_find_key(NULL, "k") == -1 && qmm_gguf_find_tensor(NULL, "t") == -1, "NULL handle lookups");
    int64_t i;
    double d;
    const char *s;
    uint64_t len;
    qmm_gguf_value v;
    EXPECT_ST(qmm_gguf_get_int(NULL, "k", &i), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_float(NULL, "k", &d), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_string(NULL, "k", &s, &len), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_array(NULL, "k", &v), QMM_ERR_INVALID_ARG);
    CHECK(!qmm_gguf_value_i64(NULL, &i) && !qmm_gguf_value_f64(NULL, &d) && !qmm_gguf_value_str(NULL, &s, &len) &&
              !qmm_gguf_array_get(NULL, 0, &v),
          "NULL value");
    qmm_gguf_close(NULL);
}

static void test_gguf_python(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/py_basic.gguf", dir);
    qmm_gguf *g = NULL;
    CHECK_OK(qmm_gguf_open(path, &g));
    if (!g)
        return;
    CHECK(qmm_gguf_version(g) == 3 && qmm_gguf_alignment(g) == 32, "v%u, alignment %llu", qmm_gguf_version(g),
          (unsigned long long)qmm_gguf_alignment(g));
    const char *s = NULL;
    uint64_t len = 0;
    CHECK_OK(qmm_gguf_get_string(g, "t.str", &s, &len));
    CHECK(s && len == 10 && memcmp(s, "hello gguf", 10) == 0, "t.str");
    CHECK_OK(qmm_gguf_get_string(g, "general.architecture", &s, &len));
    CHECK(s && len == 5 && memcmp(s, "llama", 5) == 0, "general.architecture");
    int64_t i = 0;
    CHECK_OK(qmm_gguf_get_int(g, "t.i32", &i));
    CHECK(i == -2000000000, "t.i32 = %lld", (long long)i);
    CHECK_OK(qmm_gguf_get_int(g, "t.u32", &i));
    CHECK(i == 4000000000, "t.u32 = %lld", (long long)i);
    CHECK_OK(qmm_gguf_get_int(g, "t.u64", &i));
    CHECK(i == (1ll << 40) + 3, "t.u64");
    CHECK_OK(qmm_gguf_get_int(g, "t.bool", &i));
    CHECK(i == 1, "t.bool");
    double d = 0;
    CHECK_OK(qmm_gguf_get_float(g, "t.f32", &d));
    CHECK(d == 1.5, "t.f32 = %g", d);
    CHECK_OK(qmm_gguf_get_float(g, "t.f64", &d));
    CHECK(d == 2.25, "t.f64 = %g", d);
    CHECK_OK(qmm_gguf_get_float(g, "t.i8", &d));
    CHECK(d == -5, "t.i8 as float = %g", d);
    qmm_gguf_value arr, el;
    CHECK_OK(qmm_gguf_get_array(g, "t.arr_i32", &arr));
    CHECK(arr.type == QMM_GGUF_ARRAY && arr.len == 3 && arr.elem_type == QMM_GGUF_INT32, "t.arr_i32");
    CHECK(qmm_gguf_array_get(&arr, 1, &el) && qmm_gguf_value_i64(&el, &i) && i == -2, "t.arr_i32[1]");
    CHECK(!qmm_gguf_array_get(&arr, 3, &el), "t.arr_i32[3] out of range");
    CHECK_OK(qmm_gguf_get_array(g, "t.arr_str", &arr));
    CHECK(arr.len == 3 && qmm_gguf_array_get(&arr, 1, &el) && qmm_gguf_value_str(&el, &s, &len) && len == 2 &&
              memcmp(s, "bc", 2) == 0,
          "t.arr_str[1]");

    /* wrong kinds, missing keys, NULL outputs */
    EXPECT_ST(qmm_gguf_get_int(g, "t.str", &i), QMM_ERR_UNSUPPORTED);
    CHECK(strstr(qmm_last_error(), "t.str") != NULL, "message: %s", qmm_last_error());
    EXPECT_ST(qmm_gguf_get_int(g, "t.f32", &i), QMM_ERR_UNSUPPORTED);
    EXPECT_ST(qmm_gguf_get_float(g, "t.str", &d), QMM_ERR_UNSUPPORTED);
    EXPECT_ST(qmm_gguf_get_string(g, "t.u32", &s, &len), QMM_ERR_UNSUPPORTED);
    EXPECT_ST(qmm_gguf_get_array(g, "t.str", &arr), QMM_ERR_UNSUPPORTED);
    EXPECT_ST(qmm_gguf_get_int(g, "no.such.key", &i), QMM_ERR_INVALID_ARG);
    CHECK(strstr(qmm_last_error(), "no.such.key") != NULL, "message: %s", qmm_last_error());
    EXPECT_ST(qmm_gguf_get_int(g, NULL, &i), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_int(g, "t.i32", NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_string(g, "t.str", &s, NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_string(g, "t.str", NULL, &len), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_float(g, "t.f32", NULL), QMM_ERR_INVALID_ARG);
    EXPECT_ST(qmm_gguf_get_array(g, "t.arr_i32", NULL), QMM_ERR_INVALID_ARG);
    const qmm_gguf_value *v = qmm_gguf_get(g, "t.i32");
    CHECK(v && !qmm_gguf_value_i64(v, NULL) && !qmm_gguf_value_u64(v, NULL) && !qmm_gguf_value_f64(v, NULL), "NULL out");
    CHECK(qmm_gguf_find_key(g, NULL) == -1 && qmm_gguf_find_tensor(g, NULL) == -1, "NULL names");

    /* tensors: name, type, shape, data in the mapping */
    CHECK(qmm_gguf_tensor_count(g) == 6, "%lld tensors", (long long)qmm_gguf_tensor_count(g));
    const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "a.f32"));
    CHECK(t && t->type == QMM_TYPE_F32 && t->n_dims == 2 && t->ne[0] == 8 && t->ne[1] == 3 && t->ne[2] == 1 && t->size == 96 &&
              t->known_type,
          "a.f32");
    if (t && t->data) {
        int ok = 1;
        for (int j = 0; j < 24; j++)
            ok &= ((const float *)t->data)[j] == (float)j;
        CHECK(ok, "a.f32 data 0..23");
        CHECK((const char *)t->data ==
                  (const char *)qmm_gguf_tensor_at(g, 0)->data - qmm_gguf_tensor_at(g, 0)->offset + t->offset,
              "data = data section + offset");
    }
    t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "d.q8_0"));
    CHECK(t && t->type == QMM_TYPE_Q8_0 && t->ne[0] == 32 && t->ne[1] == 3 && t->size == 3 * 34 &&
              t->size == qmm_row_size(QMM_TYPE_Q8_0, 32) * 3,
          "d.q8_0");
    t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "f.f32_3d"));
    CHECK(t && t->n_dims == 3 && t->ne[0] == 4 && t->ne[1] == 3 && t->ne[2] == 2 && t->ne[3] == 1, "f.f32_3d");
    CHECK(qmm_gguf_find_tensor(g, "nope") == -1 && qmm_gguf_tensor_at(g, 6) == NULL && qmm_gguf_tensor_at(g, -1) == NULL,
          "missing tensors");
    qmm_gguf_close(g);
}

/* The library's version is the header's (a shared library of another
 * version would differ). */
/* qmm_weights_unpack: every packable type's GGUF bytes back, from weights
 * packed by the library, from a caller-owned blob (qmm_experts_pack_into)
 * and through an expert view, whole and row ranges; bad ranges refused. */
static void test_unpack(void) {
    qmm_context *ctx = NULL;
    CHECK_OK(qmm_context_create(NULL, &ctx));
    const int64_t k = 256, n = 9, e = 3;
    uint64_t seed = 45;
    for (int t = 0; ctx && t < QMM_TYPE_COUNT; t++) {
        const qmm_type type = (qmm_type)t;
        if (!qmm_type_packable(type))
            continue;
        const size_t rb = qmm_row_size(type, k), bytes = rb * (size_t)(n * e);
        /* random bytes with bit 6 clear: every fp16, bf16, fp32 and E8M0
         * field they make is finite (the unpack contract) */
        uint8_t *src = malloc(bytes), *back = malloc(bytes + 1);
        for (size_t i = 0; i < bytes; i++)
            src[i] = (uint8_t)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 56) & 0xBF;
        qmm_weights *w = NULL, *blob_w = NULL, *view = NULL;
        size_t need = 0;
        CHECK_OK(qmm_experts_pack(ctx, type, k, n, e, src, bytes, &w));
        CHECK_OK(qmm_experts_packed_size(ctx, type, k, n, e, &need));
        void *blob = NULL;
        CHECK(posix_memalign(&blob, 64, need) == 0, "memory");
        CHECK_OK(qmm_experts_pack_into(ctx, type, k, n, e, src, bytes, blob, need));
        EXPECT_ST(qmm_experts_pack_into(ctx, type, k, n, e, src, bytes, blob, need - 1), QMM_ERR_INVALID_ARG);
        CHECK_OK(qmm_weights_from_blob(ctx, blob, need, &blob_w));
        CHECK_OK(qmm_weights_expert(w, 1, &view));
        const qmm_weights *all[2] = {w, blob_w};
        for (int i = 0; i < 2; i++) {
            memset(back, 0xA5, bytes + 1);
            CHECK_OK(qmm_weights_unpack(all[i], 0, n * e, back, bytes));
            CHECK(memcmp(back, src, bytes) == 0 && back[bytes] == 0xA5, "%s: unpack of %s differs", qmm_type_name(type),
                  i ? "an adopted blob" : "packed experts");
            CHECK_OK(qmm_weights_unpack(all[i], n - 1, 2, back, 2 * rb)); /* across two experts */
            CHECK(memcmp(back, src + (size_t)(n - 1) * rb, 2 * rb) == 0, "%s: rows %lld..%lld differ", qmm_type_name(type),
                  (long long)(n - 1), (long long)n);
        }
        CHECK_OK(qmm_weights_unpack(view, 0, n, back, bytes));
        CHECK(memcmp(back, src + (size_t)n * rb, (size_t)n * rb) == 0, "%s: expert 1's view unpacks to other bytes",
              qmm_type_name(type));
        EXPECT_ST(qmm_weights_unpack(w, n * e - 1, 2, back, bytes), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_weights_unpack(w, -1, 1, back, bytes), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_weights_unpack(w, 0, 2, back, 2 * rb - 1), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_weights_unpack(NULL, 0, 1, back, bytes), QMM_ERR_INVALID_ARG);
        EXPECT_ST(qmm_weights_unpack(w, 0, 1, NULL, bytes), QMM_ERR_INVALID_ARG);
        qmm_weights_free(view);
        qmm_weights_free(blob_w);
        qmm_weights_free(w);
        free(blob);
        free(src);
        free(back);
    }
    qmm_context_free(ctx);
}

static void test_version(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", QMM_VERSION_MAJOR, QMM_VERSION_MINOR, QMM_VERSION_PATCH);
    CHECK(qmm_version() && strcmp(qmm_version(), want) == 0, "qmm_version() %s, header %s", qmm_version(), want);
}

/* The public structs' sizes on LP64 (x86_64, aarch64): a field is added by
 * taking words of a struct's reserved tail, so these never change; a size
 * that moves breaks every program built against the earlier header. */
static void test_struct_sizes(void) {
    if (sizeof(void *) != 8 || sizeof(long) != 8)
        return;
    const struct {
        const char *name;
        size_t size, want;
    } s[] = {
        {"qmm_tensor", sizeof(qmm_tensor), 96},
        {"qmm_options", sizeof(qmm_options), 72},
        {"qmm_sync", sizeof(qmm_sync), 48},
        {"qmm_cpu_desc", sizeof(qmm_cpu_desc), 192},
        {"qmm_family_desc", sizeof(qmm_family_desc), 88},
        {"qmm_cache_write_options", sizeof(qmm_cache_write_options), 56},
        {"qmm_cache_tensor", sizeof(qmm_cache_tensor), 64},
        {"qmm_cache_open_options", sizeof(qmm_cache_open_options), 56},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        CHECK(s[i].size == s[i].want, "sizeof(%s) = %zu, the published ABI has %zu", s[i].name, s[i].size, s[i].want);
}

int main(int argc, char **argv) {
    const char *py_dir = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--python-dir") == 0)
            py_dir = argv[i + 1];
    test_version();
    test_struct_sizes();
    test_unpack();
    test_feature_names();
    test_cpu_describe();
    test_families();
    test_log_callback();
    test_fp16();
    const char *tmp = getenv("TMPDIR");
    test_cache_inspection(tmp && *tmp ? tmp : "/tmp");
    test_gguf_bad_args();
    if (py_dir)
        test_gguf_python(py_dir);
    return qmm_test_summary();
}
