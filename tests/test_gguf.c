/* The GGUF reader: files written by a small writer here (every value type,
 * nested arrays, known and unknown tensor types), truncated at every byte
 * offset (each must fail cleanly, only the full length succeeds), and with
 * each header field corrupted (lengths, counts, types, offsets, alignment).
 * With --python-dir DIR it also reads the files tests/gguf_gen.py wrote with
 * the `gguf` package's GGUFWriter.
 *
 * Truncated images are copied into exactly-sized heap buffers, so a read past
 * the end shows up under AddressSanitizer. */
#include <math.h>
#include <unistd.h>

#include "io/gguf.h"
#include "test_util.h"

/* ------------------------------------------------------------------ writer */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void w_bytes(wbuf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            exit(2);
    }
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void w_le(wbuf *b, uint64_t v, int n) {
    for (int i = 0; i < n; i++) {
        uint8_t c = (uint8_t)(v >> (8 * i));
        w_bytes(b, &c, 1);
    }
}
static void w_u32(wbuf *b, uint32_t v) { w_le(b, v, 4); }
static void w_u64(wbuf *b, uint64_t v) { w_le(b, v, 8); }
static void w_str(wbuf *b, const char *s) {
    w_u64(b, strlen(s));
    w_bytes(b, s, strlen(s));
}
static void w_pad(wbuf *b, size_t a) {
    while (b->n % a)
        w_le(b, 0, 1);
}
static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint64_t f64_bits(double f) {
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* Offsets of fields in the written file, to corrupt them. */
typedef struct field {
    char name[48];
    size_t off;
    int width;
} field;

static field fields[128];
static int n_fields;

static void mark(const wbuf *b, const char *name, int width) {
    field *f = &fields[n_fields++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->off = b->n;
    f->width = width;
}
static const field *find_field(const char *name) {
    for (int i = 0; i < n_fields; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    fprintf(stderr, "no field %s\n", name);
    exit(2);
}

/* A key followed by its type; the field names are "<key>.key_len", "<key>.type". */
static void w_key(wbuf *b, const char *key, uint32_t type) {
    char n[48];
    snprintf(n, sizeof n, "%s.key_len", key);
    mark(b, n, 8);
    w_str(b, key);
    snprintf(n, sizeof n, "%s.type", key);
    mark(b, n, 4);
    w_u32(b, type);
}

typedef struct tdesc {
    const char *name;
    uint32_t type;
    uint32_t n_dims;
    int64_t ne[4];
    uint64_t size; /* data bytes (0 for the unknown type) */
    uint64_t offset;
} tdesc;

#define ALIGN 64
static tdesc tensors[] = {
    {"a.f32", QMM_TYPE_F32, 2, {8, 3, 1, 1}, 8 * 3 * 4, 0},
    {"b.f16", QMM_TYPE_F16, 2, {16, 2, 1, 1}, 16 * 2 * 2, 0},
    {"e.unknown", 200, 1, {5, 1, 1, 1}, 0, 0},
    {"f.q4_k", QMM_TYPE_Q4_K, 2, {256, 1, 1, 1}, 144, 0},
    {"g.3d", QMM_TYPE_F32, 3, {4, 3, 2, 1}, 96, 0},
    {"c.q4_0", QMM_TYPE_Q4_0, 2, {64, 2, 1, 1}, 2 * 2 * 18, 0},
    {"d.q8_0", QMM_TYPE_Q8_0, 2, {32, 3, 1, 1}, 3 * 34, 0}, /* last: its data ends the file */
};
#define N_TENSORS ((int)(sizeof tensors / sizeof tensors[0]))
#define N_KV      19

/* The test file: every value type, arrays (nested too), alignment 64, the
 * tensors above; the file ends exactly where the last tensor's data ends. */
static wbuf make_file(uint32_t version) {
    wbuf b = {0};
    n_fields = 0;
    mark(&b, "magic", 4);
    w_bytes(&b, "GGUF", 4);
    mark(&b, "version", 4);
    w_u32(&b, version);
    mark(&b, "n_tensors", 8);
    w_u64(&b, N_TENSORS);
    mark(&b, "n_kv", 8);
    w_u64(&b, N_KV);

    w_key(&b, "general.architecture", QMM_GGUF_STRING);
    mark(&b, "arch.len", 8);
    w_str(&b, "llama");
    w_key(&b, "t.u8", QMM_GGUF_UINT8);
    w_le(&b, 200, 1);
    w_key(&b, "t.i8", QMM_GGUF_INT8);
    w_le(&b, (uint8_t)-5, 1);
    w_key(&b, "t.u16", QMM_GGUF_UINT16);
    w_le(&b, 60000, 2);
    w_key(&b, "t.i16", QMM_GGUF_INT16);
    w_le(&b, (uint16_t)-30000, 2);
    w_key(&b, "t.u32", QMM_GGUF_UINT32);
    w_u32(&b, 4000000000u);
    w_key(&b, "t.i32", QMM_GGUF_INT32);
    w_u32(&b, (uint32_t)-2000000000);
    w_key(&b, "t.f32", QMM_GGUF_FLOAT32);
    w_u32(&b, f32_bits(1.5f));
    w_key(&b, "t.bool", QMM_GGUF_BOOL);
    mark(&b, "bool.value", 1);
    w_le(&b, 1, 1);
    w_key(&b, "t.u64", QMM_GGUF_UINT64);
    w_u64(&b, (1ull << 40) + 3);
    w_key(&b, "t.i64", QMM_GGUF_INT64);
    w_u64(&b, (uint64_t) - (1ll << 40));
    w_key(&b, "t.f64", QMM_GGUF_FLOAT64);
    w_u64(&b, f64_bits(2.25));
    w_key(&b, "t.arr_i32", QMM_GGUF_ARRAY);
    mark(&b, "arr_i32.elem_type", 4);
    w_u32(&b, QMM_GGUF_INT32);
    mark(&b, "arr_i32.len", 8);
    w_u64(&b, 3);
    w_u32(&b, 1);
    w_u32(&b, (uint32_t)-2);
    w_u32(&b, 3);
    w_key(&b, "t.arr_str", QMM_GGUF_ARRAY);
    w_u32(&b, QMM_GGUF_STRING);
    mark(&b, "arr_str.len", 8);
    w_u64(&b, 3);
    w_str(&b, "a");
    mark(&b, "arr_str.1.len", 8);
    w_str(&b, "bc");
    w_str(&b, "");
    /* [[1, 2], [], [3]] of uint8 */
    w_key(&b, "t.arr_nested", QMM_GGUF_ARRAY);
    w_u32(&b, QMM_GGUF_ARRAY);
    mark(&b, "arr_nested.len", 8);
    w_u64(&b, 3);
    mark(&b, "arr_nested.0.elem_type", 4);
    w_u32(&b, QMM_GGUF_UINT8);
    mark(&b, "arr_nested.0.len", 8);
    w_u64(&b, 2);
    w_le(&b, 1, 1);
    w_le(&b, 2, 1);
    w_u32(&b, QMM_GGUF_UINT8);
    w_u64(&b, 0);
    w_u32(&b, QMM_GGUF_UINT8);
    w_u64(&b, 1);
    w_le(&b, 3, 1);
    /* [["x"], ["y", "zz"]] */
    w_key(&b, "t.arr_nested_str", QMM_GGUF_ARRAY);
    w_u32(&b, QMM_GGUF_ARRAY);
    w_u64(&b, 2);
    w_u32(&b, QMM_GGUF_STRING);
    w_u64(&b, 1);
    w_str(&b, "x");
    w_u32(&b, QMM_GGUF_STRING);
    w_u64(&b, 2);
    w_str(&b, "y");
    mark(&b, "arr_nested_str.zz.len", 8);
    w_str(&b, "zz");
    w_key(&b, "t.arr_bool", QMM_GGUF_ARRAY);
    w_u32(&b, QMM_GGUF_BOOL);
    w_u64(&b, 2);
    w_le(&b, 0, 1);
    mark(&b, "arr_bool.1", 1);
    w_le(&b, 1, 1);
    w_key(&b, "t.arr_f64", QMM_GGUF_ARRAY);
    w_u32(&b, QMM_GGUF_FLOAT64);
    w_u64(&b, 2);
    w_u64(&b, f64_bits(-0.5));
    w_u64(&b, f64_bits(1e300));
    w_key(&b, "general.alignment", QMM_GGUF_UINT32);
    mark(&b, "alignment", 4);
    w_u32(&b, ALIGN);

    /* tensor infos: offsets laid out in order, aligned; the unknown one at 0 */
    uint64_t off = 0;
    for (int i = 0; i < N_TENSORS; i++) {
        tdesc *t = &tensors[i];
        if (t->size == 0) {
            t->offset = 0;
            continue;
        }
        t->offset = off;
        off = (off + t->size + ALIGN - 1) / ALIGN * ALIGN;
    }
    for (int i = 0; i < N_TENSORS; i++) {
        const tdesc *t = &tensors[i];
        char n[48];
        snprintf(n, sizeof n, "%s.name_len", t->name);
        mark(&b, n, 8);
        w_str(&b, t->name);
        snprintf(n, sizeof n, "%s.n_dims", t->name);
        mark(&b, n, 4);
        w_u32(&b, t->n_dims);
        for (uint32_t d = 0; d < t->n_dims; d++) {
            snprintf(n, sizeof n, "%s.ne%u", t->name, d);
            mark(&b, n, 8);
            w_u64(&b, (uint64_t)t->ne[d]);
        }
        snprintf(n, sizeof n, "%s.type", t->name);
        mark(&b, n, 4);
        w_u32(&b, t->type);
        snprintf(n, sizeof n, "%s.offset", t->name);
        mark(&b, n, 8);
        w_u64(&b, t->offset);
    }
    w_pad(&b, ALIGN);
    const size_t data = b.n;
    for (int i = 0; i < N_TENSORS; i++) {
        const tdesc *t = &tensors[i];
        if (!t->size)
            continue;
        while (b.n < data + t->offset)
            w_le(&b, 0, 1);
        for (uint64_t j = 0; j < t->size; j++)
            w_le(&b, (j * 13 + (uint64_t)i) & 0xff, 1);
    }
    return b;
}

/* Opens an exactly-sized heap copy of the first len bytes. */
static qmm_status open_copy(const uint8_t *img, size_t len, qmm_gguf **g, uint8_t **copy) {
    *copy = malloc(len ? len : 1);
    if (len)
        memcpy(*copy, img, len);
    return qmm_gguf_open_memory(*copy, len, g);
}

static int has_message(void) { return qmm_last_error()[0] != 0; }

/* ----------------------------------------------------------------- checks */

static void check_contents(qmm_gguf *g, uint32_t version, const uint8_t *img) {
    char buf[256];
    CHECK(qmm_gguf_version(g) == version, "version %u", qmm_gguf_version(g));
    CHECK(qmm_gguf_kv_count(g) == N_KV, "kv count %lld", (long long)qmm_gguf_kv_count(g));
    CHECK(qmm_gguf_tensor_count(g) == N_TENSORS, "tensor count");
    CHECK(qmm_gguf_alignment(g) == ALIGN, "alignment %llu", (unsigned long long)qmm_gguf_alignment(g));
    CHECK(qmm_gguf_data_offset(g) % ALIGN == 0, "data offset aligned");

    const char *s;
    uint64_t len, u;
    int64_t i;
    double f;
    CHECK(qmm_gguf_value_str(qmm_gguf_get(g, "general.architecture"), &s, &len) && len == 5 && memcmp(s, "llama", 5) == 0,
          "architecture");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u8"), &u) && u == 200, "u8");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i8"), &i) && i == -5, "i8");
    CHECK(!qmm_gguf_value_u64(qmm_gguf_get(g, "t.i8"), &u), "negative i8 as u64 refused");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u16"), &u) && u == 60000, "u16");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i16"), &i) && i == -30000, "i16");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u32"), &u) && u == 4000000000u, "u32");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i32"), &i) && i == -2000000000, "i32");
    CHECK(qmm_gguf_value_f64(qmm_gguf_get(g, "t.f32"), &f) && f == 1.5, "f32");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.bool"), &u) && u == 1, "bool");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u64"), &u) && u == (1ull << 40) + 3, "u64");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i64"), &i) && i == -(1ll << 40), "i64");
    CHECK(qmm_gguf_value_f64(qmm_gguf_get(g, "t.f64"), &f) && f == 2.25, "f64");
    CHECK(!qmm_gguf_value_str(qmm_gguf_get(g, "t.f64"), &s, &len), "f64 is no string");
    CHECK(qmm_gguf_get(g, "missing") == NULL && qmm_gguf_find_key(g, "t.u") < 0, "missing key");
    CHECK(qmm_gguf_find_key(g, "t.u8") == 1, "key index");

    const qmm_gguf_value *a = qmm_gguf_get(g, "t.arr_i32");
    qmm_gguf_value e, e2;
    CHECK(a && a->type == QMM_GGUF_ARRAY && a->elem_type == QMM_GGUF_INT32 && a->len == 3, "arr_i32");
    CHECK(qmm_gguf_array_get(a, 1, &e) && qmm_gguf_value_i64(&e, &i) && i == -2, "arr_i32[1]");
    CHECK(!qmm_gguf_array_get(a, 3, &e), "arr_i32[3] out of range");
    a = qmm_gguf_get(g, "t.arr_str");
    CHECK(qmm_gguf_array_get(a, 1, &e) && qmm_gguf_value_str(&e, &s, &len) && len == 2 && memcmp(s, "bc", 2) == 0, "arr_str[1]");
    CHECK(qmm_gguf_array_get(a, 2, &e) && qmm_gguf_value_str(&e, &s, &len) && len == 0, "arr_str[2]");
    a = qmm_gguf_get(g, "t.arr_nested");
    CHECK(qmm_gguf_array_get(a, 2, &e) && e.type == QMM_GGUF_ARRAY && e.len == 1 && qmm_gguf_array_get(&e, 0, &e2) &&
              qmm_gguf_value_u64(&e2, &u) && u == 3,
          "arr_nested[2][0]");
    CHECK(qmm_gguf_array_get(a, 1, &e) && e.len == 0, "arr_nested[1] empty");
    a = qmm_gguf_get(g, "t.arr_nested_str");
    CHECK(qmm_gguf_array_get(a, 1, &e) && qmm_gguf_array_get(&e, 1, &e2) && qmm_gguf_value_str(&e2, &s, &len) && len == 2 &&
              memcmp(s, "zz", 2) == 0,
          "arr_nested_str[1][1]");

    qmm_gguf_value_format(qmm_gguf_get(g, "t.arr_nested"), 8, buf, sizeof buf);
    CHECK(strcmp(buf, "[[1, 2], [], [3]]") == 0, "format nested: %s", buf);
    qmm_gguf_value_format(qmm_gguf_get(g, "t.arr_str"), 2, buf, sizeof buf);
    CHECK(strcmp(buf, "[\"a\", \"bc\", ... (3 items)]") == 0, "format shortened: %s", buf);
    qmm_gguf_value_format(qmm_gguf_get(g, "t.arr_f64"), 8, buf, sizeof buf);
    CHECK(strcmp(buf, "[-0.5, 1e+300]") == 0, "format f64: %s", buf);
    qmm_gguf_value_format(qmm_gguf_get(g, "t.i64"), 8, buf, sizeof buf);
    CHECK(strcmp(buf, "-1099511627776") == 0, "format i64: %s", buf);
    qmm_gguf_value_format(qmm_gguf_get(g, "t.arr_bool"), 8, buf, sizeof buf);
    CHECK(strcmp(buf, "[false, true]") == 0, "format bool: %s", buf);
    char small[8];
    qmm_gguf_value_format(qmm_gguf_get(g, "t.arr_nested_str"), 8, small, sizeof small);
    CHECK(strlen(small) == 7 && strcmp(small + 4, "...") == 0, "format cut: %s", small);

    for (int t = 0; t < N_TENSORS; t++) {
        const int64_t idx = qmm_gguf_find_tensor(g, tensors[t].name);
        CHECK(idx == t, "find tensor %s -> %lld", tensors[t].name, (long long)idx);
        const qmm_gguf_tensor *ti = qmm_gguf_tensor_at(g, t);
        if (!ti)
            continue;
        CHECK(strcmp(ti->name, tensors[t].name) == 0 && ti->type == tensors[t].type && ti->n_dims == tensors[t].n_dims,
              "tensor %d info", t);
        for (int d = 0; d < 4; d++)
            CHECK(ti->ne[d] == tensors[t].ne[d], "tensor %s ne[%d] = %lld", ti->name, d, (long long)ti->ne[d]);
        CHECK(ti->offset == tensors[t].offset, "tensor %s offset", ti->name);
        if (tensors[t].size) {
            CHECK(ti->known_type && ti->size == tensors[t].size, "tensor %s size %llu", ti->name, (unsigned long long)ti->size);
            CHECK(ti->data == img + qmm_gguf_data_offset(g) + ti->offset, "tensor %s data pointer", ti->name);
            const uint8_t *p = ti->data;
            int ok = 1;
            for (uint64_t j = 0; j < ti->size; j++)
                ok &= p[j] == ((j * 13 + (uint64_t)t) & 0xff);
            CHECK(ok, "tensor %s data bytes", ti->name);
        } else {
            CHECK(!ti->known_type && ti->data == NULL && ti->size == 0, "unknown type flagged");
        }
    }
    CHECK(qmm_gguf_find_tensor(g, "nope") < 0, "missing tensor");
    CHECK(qmm_gguf_tensor_at(g, N_TENSORS) == NULL && qmm_gguf_kv_at(g, -1) == NULL, "out of range accessors");
}

static void test_valid(void) {
    for (uint32_t v = 2; v <= 3; v++) {
        wbuf b = make_file(v);
        qmm_gguf *g = NULL;
        uint8_t *copy;
        qmm_status st = open_copy(b.p, b.n, &g, &copy);
        CHECK(st == QMM_OK, "valid v%u file: %s (%s)", v, qmm_status_str(st), qmm_last_error());
        if (g)
            check_contents(g, v, copy);
        qmm_gguf_close(g);
        free(copy);
        free(b.p);
    }
}

/* Every prefix shorter than the file fails with a message; the whole succeeds. */
static void test_truncation(const uint8_t *img, size_t size, const char *label, size_t min_valid) {
    long bad = 0;
    for (size_t len = 0; len <= size; len++) {
        qmm_gguf *g = NULL;
        uint8_t *copy;
        qmm_status st = open_copy(img, len, &g, &copy);
        if (len < min_valid) {
            if (st != QMM_ERR_BAD_FILE || !has_message() || g) {
                if (bad++ < 5)
                    fprintf(stderr, "%s truncated to %zu of %zu: %s (%s)\n", label, len, size, qmm_status_str(st),
                            qmm_last_error());
            }
        } else if (len == size && st != QMM_OK) {
            bad++;
            fprintf(stderr, "%s full length fails: %s\n", label, qmm_last_error());
        }
        qmm_gguf_close(g);
        free(copy);
    }
    CHECK(bad == 0, "%s: %ld truncations misbehaved", label, bad);
}

static void patch(uint8_t *img, const field *f, uint64_t v) {
    for (int i = 0; i < f->width; i++)
        img[f->off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

typedef struct corruption {
    const char *field;
    uint64_t value;
    int delta; /* 1: value is added to the field */
    qmm_status expect;
    const char *msg; /* a substring of the message */
} corruption;

static void test_corruptions(void) {
    wbuf b = make_file(3);
    const uint64_t BIG = ~0ull;
    const corruption cs[] = {
        {"magic", 0x46554748, 0, QMM_ERR_BAD_FILE, "not a GGUF"},
        {"version", 1, 0, QMM_ERR_BAD_FILE, "version 1"},
        {"version", 4, 0, QMM_ERR_BAD_FILE, "version 4"},
        {"version", 0x03000000, 0, QMM_ERR_BAD_FILE, "big-endian"},
        {"n_tensors", BIG, 0, QMM_ERR_BAD_FILE, "tensor count"},
        {"n_tensors", 1ull << 40, 0, QMM_ERR_BAD_FILE, "tensor count"},
        {"n_kv", BIG, 0, QMM_ERR_BAD_FILE, "metadata count"},
        {"n_kv", 1, 1, QMM_ERR_BAD_FILE, ""},
        {"general.architecture.key_len", BIG, 0, QMM_ERR_BAD_FILE, "key length"},
        {"general.architecture.key_len", 0, 0, QMM_ERR_BAD_FILE, "empty key"},
        {"general.architecture.type", QMM_GGUF_VTYPE_COUNT, 0, QMM_ERR_BAD_FILE, "unknown value type"},
        {"general.architecture.type", BIG, 0, QMM_ERR_BAD_FILE, "unknown value type"},
        {"arch.len", BIG, 0, QMM_ERR_BAD_FILE, "string length"},
        {"arch.len", 1ull << 62, 0, QMM_ERR_BAD_FILE, "string length"},
        {"t.u64.key_len", BIG - 3, 0, QMM_ERR_BAD_FILE, "key length"},
        {"t.f64.type", 99, 0, QMM_ERR_BAD_FILE, "unknown value type"},
        {"bool.value", 2, 0, QMM_ERR_BAD_FILE, "bool"},
        {"arr_bool.1", 7, 0, QMM_ERR_BAD_FILE, "bool"},
        {"arr_i32.elem_type", 13, 0, QMM_ERR_BAD_FILE, "array element type"},
        {"arr_i32.len", BIG, 0, QMM_ERR_BAD_FILE, "array of"},
        {"arr_i32.len", BIG / 4 + 1, 0, QMM_ERR_BAD_FILE, "array of"},
        {"arr_str.len", 1ull << 61, 0, QMM_ERR_BAD_FILE, "array of"},
        {"arr_str.1.len", BIG, 0, QMM_ERR_BAD_FILE, "string length"},
        {"arr_nested.len", BIG / 12, 0, QMM_ERR_BAD_FILE, "array of"},
        {"arr_nested.0.elem_type", 100, 0, QMM_ERR_BAD_FILE, "array element type"},
        {"arr_nested.0.len", BIG, 0, QMM_ERR_BAD_FILE, "array of"},
        {"arr_nested_str.zz.len", 1ull << 63, 0, QMM_ERR_BAD_FILE, "string length"},
        {"alignment", 0, 0, QMM_ERR_BAD_FILE, "alignment 0"},
        {"alignment", 48, 0, QMM_ERR_BAD_FILE, "alignment 48"},
        {"alignment", 1u << 31, 0, QMM_ERR_BAD_FILE, "power of two"},
        {"general.alignment.type", QMM_GGUF_FLOAT32, 0, QMM_ERR_BAD_FILE, "expected an unsigned integer"},
        {"general.alignment.type", QMM_GGUF_INT32, 0, QMM_OK, ""}, /* 64 as int32 is fine */
        {"a.f32.name_len", BIG, 0, QMM_ERR_BAD_FILE, "name length"},
        {"a.f32.name_len", 0, 0, QMM_ERR_BAD_FILE, "empty name"},
        {"a.f32.n_dims", 5, 0, QMM_ERR_BAD_FILE, "n_dims 5"},
        {"a.f32.n_dims", BIG, 0, QMM_ERR_BAD_FILE, "n_dims"},
        {"a.f32.ne0", 1ull << 63, 0, QMM_ERR_BAD_FILE, "negative"},
        {"a.f32.ne1", 1ull << 40, 0, QMM_ERR_BAD_FILE, "runs past the end"},
        {"g.3d.ne2", 1ull << 62, 0, QMM_ERR_BAD_FILE, "overflow"},
        {"a.f32.ne0", 1u << 20, 0, QMM_ERR_BAD_FILE, "runs past the end"},
        {"c.q4_0.ne0", 33, 0, QMM_ERR_BAD_FILE, "not a multiple of the Q4_0 block"},
        {"f.q4_k.ne0", 128, 0, QMM_ERR_BAD_FILE, "not a multiple of the Q4_K block"},
        {"a.f32.type", 300, 0, QMM_OK, ""},                         /* unknown type: listed, flagged */
        {"b.f16.type", QMM_TYPE_Q4_0, 0, QMM_ERR_BAD_FILE, "Q4_0"}, /* ne0 16 is not a Q4_0 row */
        {"d.q8_0.type", QMM_TYPE_F32, 0, QMM_ERR_BAD_FILE, "runs past the end"},
        {"d.q8_0.type", QMM_TYPE_Q4_0, 0, QMM_OK, ""}, /* a smaller type still fits */
        {"a.f32.offset", 1, 1, QMM_ERR_BAD_FILE, "not a multiple of the alignment"},
        {"a.f32.offset", BIG - 63, 0, QMM_ERR_BAD_FILE, "past the data section"},
        {"d.q8_0.offset", ALIGN, 1, QMM_ERR_BAD_FILE, "past the end"},
        {"e.unknown.offset", 1ull << 40, 0, QMM_ERR_BAD_FILE, "past the data section"},
        {"e.unknown.offset", 32, 0, QMM_ERR_BAD_FILE, "alignment"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        const field *f = find_field(cs[i].field);
        uint8_t *img = malloc(b.n);
        memcpy(img, b.p, b.n);
        uint64_t v = cs[i].value;
        if (cs[i].delta)
            for (int j = f->width - 1; j >= 0; j--)
                v += (uint64_t)img[f->off + (size_t)j] << (8 * j);
        patch(img, f, v);
        qmm_gguf *g = NULL;
        qmm_status st = qmm_gguf_open_memory(img, b.n, &g);
        CHECK(st == cs[i].expect, "%s = %llu: %s, expected %s (%s)", cs[i].field, (unsigned long long)v, qmm_status_str(st),
              qmm_status_str(cs[i].expect), qmm_last_error());
        if (st != QMM_OK)
            CHECK(strstr(qmm_last_error(), cs[i].msg) != NULL, "%s: message '%s' lacks '%s'", cs[i].field, qmm_last_error(),
                  cs[i].msg);
        CHECK((st == QMM_OK) == (g != NULL), "handle iff success");
        if (g && strcmp(cs[i].field, "a.f32.type") == 0) {
            const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, 0);
            CHECK(t && !t->known_type && t->type == 300, "unknown type flagged");
        }
        qmm_gguf_close(g);
        free(img);
    }

    /* duplicate key and duplicate tensor name (same lengths, renamed) */
    uint8_t *img = malloc(b.n);
    memcpy(img, b.p, b.n);
    const field *f = find_field("t.i8.key_len");
    memcpy(img + f->off + 8, "t.u8", 4);
    qmm_gguf *g = NULL;
    CHECK(qmm_gguf_open_memory(img, b.n, &g) == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "appears twice"),
          "duplicate key: %s", qmm_last_error());
    memcpy(img, b.p, b.n);
    f = find_field("d.q8_0.name_len");
    memcpy(img + f->off + 8, "c.q4_0", 6);
    CHECK(qmm_gguf_open_memory(img, b.n, &g) == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "appears twice"),
          "duplicate tensor: %s", qmm_last_error());
    /* every byte of the header region flipped: never a crash, status consistent */
    size_t hdr = 0;
    if (qmm_gguf_open_memory(b.p, b.n, &g) == QMM_OK)
        hdr = (size_t)qmm_gguf_data_offset(g);
    qmm_gguf_close(g);
    CHECK(hdr > 0, "header size");
    for (size_t off = 0; off < hdr; off++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(img, b.p, b.n);
            img[off] ^= (uint8_t)(1u << bit);
            qmm_status st = qmm_gguf_open_memory(img, b.n, &g);
            CHECK(st == QMM_OK || (st == QMM_ERR_BAD_FILE && has_message()), "flip at %zu: %s", off, qmm_status_str(st));
            qmm_gguf_close(g);
            g = NULL;
        }
    }
    free(img);
    free(b.p);
}

/* Arrays nested QMM_GGUF_MAX_NESTING deep are read; one more level is refused. */
static void test_nesting(void) {
    for (int depth = QMM_GGUF_MAX_NESTING; depth <= QMM_GGUF_MAX_NESTING + 1; depth++) {
        wbuf b = {0};
        w_bytes(&b, "GGUF", 4);
        w_u32(&b, 3);
        w_u64(&b, 0);
        w_u64(&b, 1);
        w_str(&b, "deep");
        w_u32(&b, QMM_GGUF_ARRAY);
        for (int d = 0; d < depth - 1; d++) {
            w_u32(&b, QMM_GGUF_ARRAY);
            w_u64(&b, 1);
        }
        w_u32(&b, QMM_GGUF_UINT8);
        w_u64(&b, 1);
        w_le(&b, 42, 1);
        qmm_gguf *g = NULL;
        qmm_status st = qmm_gguf_open_memory(b.p, b.n, &g);
        if (depth <= QMM_GGUF_MAX_NESTING) {
            CHECK(st == QMM_OK, "nesting %d: %s", depth, qmm_last_error());
            char buf[256];
            if (g) {
                qmm_gguf_value_format(qmm_gguf_get(g, "deep"), 4, buf, sizeof buf);
                CHECK(strstr(buf, "[[[42]]]") != NULL, "deep format %s", buf);
            }
        } else {
            CHECK(st == QMM_ERR_BAD_FILE && strstr(qmm_last_error(), "nested"), "nesting %d: %s", depth, qmm_last_error());
        }
        /* a file with no tensors may end right after its metadata */
        qmm_gguf_close(g);
        free(b.p);
    }
}

/* The same image through a file and mmap; missing and empty files. */
static void test_files(void) {
    wbuf b = make_file(3);
    char path[] = "/tmp/qmm_test_gguf_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    CHECK(write(fd, b.p, b.n) == (ssize_t)b.n, "write");
    close(fd);
    qmm_gguf *g = NULL;
    CHECK_OK(qmm_gguf_open(path, &g));
    if (g) {
        CHECK(qmm_gguf_file_size(g) == b.n, "file size");
        const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "d.q8_0"));
        CHECK(t && t->data && memcmp(t->data, b.p + qmm_gguf_data_offset(g) + t->offset, t->size) == 0, "mapped data");
    }
    qmm_gguf_close(g);
    g = NULL;
    CHECK(truncate(path, 0) == 0, "truncate");
    CHECK(qmm_gguf_open(path, &g) == QMM_ERR_BAD_FILE && g == NULL && has_message(), "empty file");
    unlink(path);
    CHECK(qmm_gguf_open(path, &g) == QMM_ERR_IO && g == NULL && has_message(), "missing file");
    CHECK(qmm_gguf_open("/tmp", &g) == QMM_ERR_IO && g == NULL, "directory");
    CHECK(qmm_gguf_open(NULL, &g) == QMM_ERR_INVALID_ARG, "NULL path");
    free(b.p);
}

/* ------------------------------------------------------- python-written */

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

static void check_python_file(const char *dir, const char *name, uint64_t alignment) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    qmm_gguf *g = NULL;
    qmm_status st = qmm_gguf_open(path, &g);
    CHECK(st == QMM_OK, "%s: %s (%s)", path, qmm_status_str(st), qmm_last_error());
    if (!g)
        return;
    const char *s;
    uint64_t len, u;
    int64_t i;
    double f;
    qmm_gguf_value e, e2;
    CHECK(qmm_gguf_version(g) == 3, "py version");
    CHECK(qmm_gguf_alignment(g) == alignment, "py alignment %llu", (unsigned long long)qmm_gguf_alignment(g));
    CHECK(qmm_gguf_value_str(qmm_gguf_get(g, "general.architecture"), &s, &len) && len == 5 && memcmp(s, "llama", 5) == 0,
          "py arch");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u8"), &u) && u == 200, "py u8");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i8"), &i) && i == -5, "py i8");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u16"), &u) && u == 60000, "py u16");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i16"), &i) && i == -30000, "py i16");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u32"), &u) && u == 4000000000u, "py u32");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i32"), &i) && i == -2000000000, "py i32");
    CHECK(qmm_gguf_value_f64(qmm_gguf_get(g, "t.f32"), &f) && f == 1.5, "py f32");
    CHECK(qmm_gguf_get(g, "t.bool") && qmm_gguf_get(g, "t.bool")->type == QMM_GGUF_BOOL &&
              qmm_gguf_value_u64(qmm_gguf_get(g, "t.bool"), &u) && u == 1,
          "py bool");
    CHECK(qmm_gguf_value_u64(qmm_gguf_get(g, "t.u64"), &u) && u == (1ull << 40) + 3, "py u64");
    CHECK(qmm_gguf_value_i64(qmm_gguf_get(g, "t.i64"), &i) && i == -(1ll << 40), "py i64");
    CHECK(qmm_gguf_value_f64(qmm_gguf_get(g, "t.f64"), &f) && f == 2.25, "py f64");
    CHECK(qmm_gguf_value_str(qmm_gguf_get(g, "t.str"), &s, &len) && len == 10 && memcmp(s, "hello gguf", 10) == 0, "py str");
    const qmm_gguf_value *a = qmm_gguf_get(g, "t.arr_i32");
    CHECK(a && a->elem_type == QMM_GGUF_INT32 && a->len == 3 && qmm_gguf_array_get(a, 1, &e) && qmm_gguf_value_i64(&e, &i) &&
              i == -2,
          "py arr_i32");
    a = qmm_gguf_get(g, "t.arr_str");
    CHECK(a && a->len == 3 && qmm_gguf_array_get(a, 1, &e) && qmm_gguf_value_str(&e, &s, &len) && len == 2 &&
              memcmp(s, "bc", 2) == 0,
          "py arr_str");
    a = qmm_gguf_get(g, "t.arr_f32");
    CHECK(a && a->elem_type == QMM_GGUF_FLOAT32 && qmm_gguf_array_get(a, 1, &e) && qmm_gguf_value_f64(&e, &f) && f == 0.25,
          "py arr_f32");
    a = qmm_gguf_get(g, "t.arr_nested");
    CHECK(a && a->elem_type == QMM_GGUF_ARRAY && qmm_gguf_array_get(a, 1, &e) && qmm_gguf_array_get(&e, 0, &e2) &&
              qmm_gguf_value_i64(&e2, &i) && i == 3,
          "py arr_nested");
    a = qmm_gguf_get(g, "t.arr_nested_str");
    CHECK(a && qmm_gguf_array_get(a, 1, &e) && qmm_gguf_array_get(&e, 1, &e2) && qmm_gguf_value_str(&e2, &s, &len) && len == 2 &&
              memcmp(s, "zz", 2) == 0,
          "py arr_nested_str");

    static const struct {
        const char *name;
        uint32_t type;
        int64_t ne[4];
        uint64_t size;
    } want[] = {
        {"a.f32", QMM_TYPE_F32, {8, 3, 1, 1}, 96},      {"b.f16", QMM_TYPE_F16, {16, 2, 1, 1}, 64},
        {"c.q4_0", QMM_TYPE_Q4_0, {64, 2, 1, 1}, 72},   {"d.q8_0", QMM_TYPE_Q8_0, {32, 3, 1, 1}, 102},
        {"e.q4_k", QMM_TYPE_Q4_K, {256, 1, 1, 1}, 144}, {"f.f32_3d", QMM_TYPE_F32, {4, 3, 2, 1}, 96},
    };
    CHECK(qmm_gguf_tensor_count(g) == 6, "py tensor count");
    uint64_t end = 0;
    for (size_t t = 0; t < sizeof want / sizeof want[0]; t++) {
        const qmm_gguf_tensor *ti = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, want[t].name));
        CHECK(ti != NULL, "py tensor %s", want[t].name);
        if (!ti)
            continue;
        CHECK(ti->type == want[t].type && ti->known_type && ti->size == want[t].size && ti->offset % alignment == 0,
              "py tensor %s: type %u size %llu", ti->name, ti->type, (unsigned long long)ti->size);
        for (int d = 0; d < 4; d++)
            CHECK(ti->ne[d] == want[t].ne[d], "py %s ne[%d]", ti->name, d);
        if (qmm_gguf_data_offset(g) + ti->offset + ti->size > end)
            end = qmm_gguf_data_offset(g) + ti->offset + ti->size;
    }
    /* data: F32 0..23, F16 0..31 / 4, Q4_0 bytes (i * 7 + 3) & 255, 3-D F32 100.. */
    const qmm_gguf_tensor *t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "a.f32"));
    if (t) {
        float v[24];
        memcpy(v, t->data, sizeof v);
        int ok = 1;
        for (int j = 0; j < 24; j++)
            ok &= v[j] == (float)j;
        CHECK(ok, "py a.f32 data");
    }
    t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "b.f16"));
    if (t) {
        const uint8_t *p = t->data;
        CHECK(p[2] == 0x00 && p[3] == 0x34, "py b.f16 data (0.25 = 0x3400)");
    }
    t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "c.q4_0"));
    if (t) {
        const uint8_t *p = t->data;
        int ok = 1;
        for (int j = 0; j < 72; j++)
            ok &= p[j] == ((j * 7 + 3) & 0xff);
        CHECK(ok, "py c.q4_0 data");
    }
    t = qmm_gguf_tensor_at(g, qmm_gguf_find_tensor(g, "f.f32_3d"));
    if (t) {
        float v[24];
        memcpy(v, t->data, sizeof v);
        CHECK(v[0] == 100.0f && v[23] == 123.0f, "py f.f32_3d data");
    }
    qmm_gguf_close(g);

    /* truncations: anything short of the last tensor's end fails */
    size_t size;
    uint8_t *img = read_all(path, &size);
    CHECK(img != NULL, "read %s", path);
    if (img) {
        test_truncation(img, size, name, (size_t)end);
        free(img);
    }
}

int main(int argc, char **argv) {
    const char *py_dir = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--python-dir") == 0)
            py_dir = argv[i + 1];

    test_valid();
    for (uint32_t v = 2; v <= 3; v++) {
        wbuf b = make_file(v);
        test_truncation(b.p, b.n, v == 2 ? "v2 file" : "v3 file", b.n);
        free(b.p);
    }
    test_corruptions();
    test_nesting();
    test_files();
    if (py_dir) {
        check_python_file(py_dir, "py_basic.gguf", 32);
        check_python_file(py_dir, "py_align64.gguf", 64);
    }
    return qmm_test_summary();
}
