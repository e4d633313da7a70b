/* GGUF reader: one validating pass over a read-only mapping.
 *
 * Every read goes through a cursor that checks the bytes are there before
 * touching them; every count is bounded by the bytes left (each element
 * needs at least a known number of bytes), so a hostile header cannot ask
 * for a huge allocation or a long loop. Tables grow as entries are actually
 * parsed, so memory stays proportional to the bytes read. */
#include "io/gguf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"

struct qmm_gguf {
    const uint8_t *base;
    uint64_t size;
    void *map; /* non-NULL if we own an mmap of map_size bytes */
    size_t map_size;
    uint32_t version;
    uint64_t alignment;
    uint64_t data_offset;
    int64_t n_kv;
    qmm_gguf_kv *kv;
    int64_t n_tensors;
    qmm_gguf_tensor *tensors;
    /* Open-addressed hash tables of indices + 1 (0 = empty). */
    uint32_t *kv_hash, *tensor_hash;
    uint64_t kv_hash_cap, tensor_hash_cap;
    /* NUL-terminated copies of keys and names, one allocation each. */
    char **strings;
    int64_t n_strings, cap_strings;
};

/* ------------------------------------------------------------------ errors */

static qmm_status fail(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    qmm_set_error("GGUF: %s", msg);
    return QMM_ERR_BAD_FILE;
}

/* ------------------------------------------------------------------ cursor */

typedef struct cursor {
    const uint8_t *base;
    uint64_t size, pos;
    char what[160]; /* the entry being read, for messages */
} cursor;

static uint64_t left(const cursor *c) { return c->size - c->pos; }

static qmm_status need(cursor *c, uint64_t n, const char *field) {
    if (n > left(c))
        return fail("%s: %s needs %" PRIu64 " bytes at offset %" PRIu64 " but only %" PRIu64 " are left (file size %" PRIu64 ")",
                    c->what, field, n, c->pos, left(c), c->size);
    return QMM_OK;
}

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static qmm_status rd_u32(cursor *c, const char *field, uint32_t *out) {
    qmm_status st = need(c, 4, field);
    if (st)
        return st;
    *out = (uint32_t)le(c->base + c->pos, 4);
    c->pos += 4;
    return QMM_OK;
}

static qmm_status rd_u64(cursor *c, const char *field, uint64_t *out) {
    qmm_status st = need(c, 8, field);
    if (st)
        return st;
    *out = le(c->base + c->pos, 8);
    c->pos += 8;
    return QMM_OK;
}

/* A string: uint64 length, then the bytes. */
static qmm_status rd_str(cursor *c, const char *field, const uint8_t **s, uint64_t *len) {
    uint64_t n;
    qmm_status st = rd_u64(c, field, &n);
    if (st)
        return st;
    if (n > left(c))
        return fail("%s: %s length %" PRIu64 " at offset %" PRIu64 " exceeds the %" PRIu64 " bytes left", c->what, field, n,
                    c->pos - 8, left(c));
    *s = c->base + c->pos;
    *len = n;
    c->pos += n;
    return QMM_OK;
}

/* ------------------------------------------------------------------ values */

static const struct {
    const char *name;
    uint32_t size; /* fixed size in bytes; 0: variable */
    uint32_t min;  /* least bytes an element can take */
} vtypes[QMM_GGUF_VTYPE_COUNT] = {
    {"uint8", 1, 1}, {"int8", 1, 1},   {"uint16", 2, 2}, {"int16", 2, 2},  {"uint32", 4, 4}, {"int32", 4, 4},   {"float32", 4, 4},
    {"bool", 1, 1},  {"string", 0, 8}, {"array", 0, 12}, {"uint64", 8, 8}, {"int64", 8, 8},  {"float64", 8, 8},
};

const char *qmm_gguf_vtype_name(uint32_t type) { return type < QMM_GGUF_VTYPE_COUNT ? vtypes[type].name : "?"; }

/* Validates the value of the given type at the cursor, fills v, advances. */
static qmm_status parse_value(cursor *c, uint32_t type, int depth, qmm_gguf_value *v) {
    qmm_status st;
    memset(v, 0, sizeof *v);
    v->type = type;
    if (type >= QMM_GGUF_VTYPE_COUNT)
        return fail("%s: unknown value type %" PRIu32 " at offset %" PRIu64, c->what, type, c->pos);
    if (vtypes[type].size) {
        if ((st = need(c, vtypes[type].size, qmm_gguf_vtype_name(type))))
            return st;
        v->p = c->base + c->pos;
        v->size = vtypes[type].size;
        if (type == QMM_GGUF_BOOL && v->p[0] > 1)
            return fail("%s: bool value %u at offset %" PRIu64 " is neither 0 nor 1", c->what, v->p[0], c->pos);
        c->pos += v->size;
        return QMM_OK;
    }
    if (type == QMM_GGUF_STRING) {
        const uint8_t *s;
        uint64_t n;
        if ((st = rd_str(c, "string", &s, &n)))
            return st;
        v->p = s;
        v->len = n;
        v->size = n;
        return QMM_OK;
    }
    /* array: element type, count, elements */
    if (depth >= QMM_GGUF_MAX_NESTING)
        return fail("%s: arrays nested deeper than %d at offset %" PRIu64, c->what, QMM_GGUF_MAX_NESTING, c->pos);
    uint32_t et;
    uint64_t n;
    if ((st = rd_u32(c, "array element type", &et)))
        return st;
    if (et >= QMM_GGUF_VTYPE_COUNT)
        return fail("%s: unknown array element type %" PRIu32 " at offset %" PRIu64, c->what, et, c->pos - 4);
    if ((st = rd_u64(c, "array length", &n)))
        return st;
    if (n > left(c) / vtypes[et].min)
        return fail("%s: array of %" PRIu64 " %s at offset %" PRIu64 " cannot fit in the %" PRIu64 " bytes left", c->what, n,
                    vtypes[et].name, c->pos - 8, left(c));
    v->elem_type = et;
    v->len = n;
    v->p = c->base + c->pos;
    const uint64_t start = c->pos;
    if (vtypes[et].size) {
        const uint8_t *p = c->base + c->pos;
        c->pos += n * vtypes[et].size; /* fits: checked above */
        if (et == QMM_GGUF_BOOL)
            for (uint64_t i = 0; i < n; i++)
                if (p[i] > 1)
                    return fail("%s: bool array element %" PRIu64 " is %u, neither 0 nor 1", c->what, i, p[i]);
    } else {
        for (uint64_t i = 0; i < n; i++) {
            qmm_gguf_value e;
            if ((st = parse_value(c, et, depth + 1, &e)))
                return st;
        }
    }
    v->size = c->pos - start;
    return QMM_OK;
}

static int is_int(uint32_t t) {
    return t == QMM_GGUF_UINT8 || t == QMM_GGUF_INT8 || t == QMM_GGUF_UINT16 || t == QMM_GGUF_INT16 || t == QMM_GGUF_UINT32 ||
           t == QMM_GGUF_INT32 || t == QMM_GGUF_UINT64 || t == QMM_GGUF_INT64 || t == QMM_GGUF_BOOL;
}

static int is_signed(uint32_t t) {
    return t == QMM_GGUF_INT8 || t == QMM_GGUF_INT16 || t == QMM_GGUF_INT32 || t == QMM_GGUF_INT64;
}

/* Raw bits of an integer value, sign-extended for signed types. */
static uint64_t int_bits(const qmm_gguf_value *v) {
    const int n = (int)vtypes[v->type].size;
    uint64_t u = le(v->p, n);
    if (is_signed(v->type) && n < 8 && (u >> (8 * n - 1)) & 1)
        u |= ~0ull << (8 * n);
    return u;
}

int qmm_gguf_value_u64(const qmm_gguf_value *v, uint64_t *out) {
    if (!v || !out || !is_int(v->type))
        return 0;
    uint64_t u = int_bits(v);
    if (is_signed(v->type) && (int64_t)u < 0)
        return 0;
    *out = u;
    return 1;
}

int qmm_gguf_value_i64(const qmm_gguf_value *v, int64_t *out) {
    if (!v || !out || !is_int(v->type))
        return 0;
    uint64_t u = int_bits(v);
    if (!is_signed(v->type) && u > (uint64_t)INT64_MAX)
        return 0;
    *out = (int64_t)u;
    return 1;
}

int qmm_gguf_value_f64(const qmm_gguf_value *v, double *out) {
    if (!v || !out)
        return 0;
    if (v->type == QMM_GGUF_FLOAT32) {
        uint32_t b = (uint32_t)le(v->p, 4);
        float f;
        memcpy(&f, &b, 4);
        *out = f;
        return 1;
    }
    if (v->type == QMM_GGUF_FLOAT64) {
        uint64_t b = le(v->p, 8);
        memcpy(out, &b, 8);
        return 1;
    }
    if (!is_int(v->type))
        return 0;
    uint64_t u = int_bits(v);
    *out = is_signed(v->type) ? (double)(int64_t)u : (double)u;
    return 1;
}

int qmm_gguf_value_str(const qmm_gguf_value *v, const char **s, uint64_t *len) {
    if (!v || !s || !len || v->type != QMM_GGUF_STRING)
        return 0;
    *s = (const char *)v->p;
    *len = v->len;
    return 1;
}

/* Size of the (already validated) value of type t at p. */
static uint64_t value_extent(uint32_t t, const uint8_t *p) {
    if (vtypes[t].size)
        return vtypes[t].size;
    if (t == QMM_GGUF_STRING)
        return 8 + le(p, 8);
    const uint32_t et = (uint32_t)le(p, 4);
    const uint64_t n = le(p + 4, 8);
    if (vtypes[et].size)
        return 12 + n * vtypes[et].size;
    uint64_t off = 12;
    for (uint64_t i = 0; i < n; i++)
        off += value_extent(et, p + off);
    return off;
}

int qmm_gguf_array_get(const qmm_gguf_value *arr, uint64_t i, qmm_gguf_value *out) {
    if (!arr || !out || arr->type != QMM_GGUF_ARRAY || i >= arr->len)
        return 0;
    const uint32_t et = arr->elem_type;
    const uint8_t *p = arr->p;
    if (vtypes[et].size)
        p += i * vtypes[et].size;
    else
        for (uint64_t j = 0; j < i; j++)
            p += value_extent(et, p);
    memset(out, 0, sizeof *out);
    out->type = et;
    if (vtypes[et].size) {
        out->p = p;
        out->size = vtypes[et].size;
    } else if (et == QMM_GGUF_STRING) {
        out->len = le(p, 8);
        out->p = p + 8;
        out->size = out->len;
    } else {
        out->elem_type = (uint32_t)le(p, 4);
        out->len = le(p + 4, 8);
        out->p = p + 12;
        out->size = value_extent(et, p) - 12;
    }
    return 1;
}

/* ------------------------------------------------------------- formatting */

static void format_value(qmm_strbuf *b, const qmm_gguf_value *v, int max_items) {
    if (b->len >= b->cap) /* already cut: stop walking */
        return;
    double f;
    switch (v->type) {
    case QMM_GGUF_BOOL: qmm_strbuf_printf(b, "%s", v->p[0] ? "true" : "false"); return;
    case QMM_GGUF_FLOAT32:
    case QMM_GGUF_FLOAT64:
        qmm_gguf_value_f64(v, &f);
        qmm_strbuf_printf(b, "%.9g", f);
        return;
    case QMM_GGUF_STRING:
        qmm_strbuf_put(b, "\"", 1);
        for (uint64_t i = 0; i < v->len && b->len < b->cap; i++) {
            const unsigned char ch = v->p[i];
            if (ch == '"' || ch == '\\')
                qmm_strbuf_printf(b, "\\%c", ch);
            else if (ch == '\n')
                qmm_strbuf_put(b, "\\n", 2);
            else if (ch < 0x20 || ch == 0x7f)
                qmm_strbuf_printf(b, "\\x%02x", ch);
            else
                qmm_strbuf_put(b, (const char *)&ch, 1);
        }
        qmm_strbuf_put(b, "\"", 1);
        return;
    case QMM_GGUF_ARRAY: {
        qmm_strbuf_put(b, "[", 1);
        const uint64_t shown = max_items >= 0 && v->len > (uint64_t)max_items ? (uint64_t)max_items : v->len;
        const uint32_t et = v->elem_type;
        const uint8_t *p = v->p;
        for (uint64_t i = 0; i < shown && b->len < b->cap; i++) {
            qmm_gguf_value e;
            memset(&e, 0, sizeof e);
            e.type = et;
            const uint64_t ext = value_extent(et, p);
            if (et == QMM_GGUF_STRING) {
                e.len = le(p, 8);
                e.p = p + 8;
            } else if (et == QMM_GGUF_ARRAY) {
                e.elem_type = (uint32_t)le(p, 4);
                e.len = le(p + 4, 8);
                e.p = p + 12;
            } else {
                e.p = p;
            }
            if (i)
                qmm_strbuf_put(b, ", ", 2);
            format_value(b, &e, max_items);
            p += ext;
        }
        if (shown < v->len)
            qmm_strbuf_printf(b, ", ... (%" PRIu64 " items)", v->len);
        qmm_strbuf_put(b, "]", 1);
        return;
    }
    default:
        if (is_signed(v->type))
            qmm_strbuf_printf(b, "%" PRId64, (int64_t)int_bits(v));
        else
            qmm_strbuf_printf(b, "%" PRIu64, int_bits(v));
        return;
    }
}

size_t qmm_gguf_value_format(const qmm_gguf_value *v, int max_items, char *buf, size_t buf_size) {
    if (!buf || buf_size == 0)
        return 0;
    qmm_strbuf b = qmm_strbuf_make(buf, buf_size);
    if (v)
        format_value(&b, v, max_items);
    if (b.len + 1 > buf_size) { /* cut: end with "..." */
        size_t end = buf_size - 1;
        for (size_t i = 0; i < 3 && end > 0; i++)
            buf[--end] = '.';
        buf[buf_size - 1] = 0;
        return buf_size - 1;
    }
    buf[b.len] = 0;
    return b.len;
}

/* ----------------------------------------------------------------- tables */

static uint64_t hash_bytes(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static char *keep_string(qmm_gguf *g, const uint8_t *s, uint64_t len) {
    if (g->n_strings == g->cap_strings) {
        int64_t cap = g->cap_strings ? g->cap_strings * 2 : 64;
        char **p = realloc(g->strings, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        g->strings = p;
        g->cap_strings = cap;
    }
    char *copy = malloc((size_t)len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, (size_t)len);
    copy[len] = 0;
    g->strings[g->n_strings++] = copy;
    return copy;
}

/* Builds a table for n names (name(i)); fails on a duplicate. */
static qmm_status build_hash(const char *kind, int64_t n, const char *(*name)(const qmm_gguf *, int64_t), const qmm_gguf *g,
                             uint32_t **table, uint64_t *cap_out) {
    uint64_t cap = 16;
    while (cap < (uint64_t)n * 2)
        cap *= 2;
    uint32_t *t = calloc((size_t)cap, sizeof *t);
    if (!t)
        return QMM_ERR_NO_MEMORY;
    for (int64_t i = 0; i < n; i++) {
        const char *s = name(g, i);
        uint64_t h = hash_bytes(s) & (cap - 1);
        while (t[h]) {
            if (strcmp(name(g, t[h] - 1), s) == 0) {
                const uint32_t first = t[h] - 1;
                free(t);
                return fail("%s '%s' appears twice (entries %" PRIu32 " and %" PRId64 ")", kind, s, first, i);
            }
            h = (h + 1) & (cap - 1);
        }
        t[h] = (uint32_t)(i + 1);
    }
    *table = t;
    *cap_out = cap;
    return QMM_OK;
}

static const char *kv_name(const qmm_gguf *g, int64_t i) { return g->kv[i].key; }
static const char *tensor_name(const qmm_gguf *g, int64_t i) { return g->tensors[i].name; }

static int64_t hash_find(const uint32_t *t, uint64_t cap, const char *s, const char *(*name)(const qmm_gguf *, int64_t),
                         const qmm_gguf *g) {
    if (!t || !s)
        return -1;
    uint64_t h = hash_bytes(s) & (cap - 1);
    while (t[h]) {
        if (strcmp(name(g, t[h] - 1), s) == 0)
            return t[h] - 1;
        h = (h + 1) & (cap - 1);
    }
    return -1;
}

/* ------------------------------------------------------------------ parse */

static const char *type_label(uint32_t type, char *tmp, size_t n) {
    const char *s = type < QMM_TYPE_COUNT ? qmm_type_name((qmm_type)type) : NULL;
    if (s)
        return s;
    snprintf(tmp, n, "type %" PRIu32, type);
    return tmp;
}

static qmm_status parse(qmm_gguf *g) {
    cursor c = {g->base, g->size, 0, "header"};
    qmm_status st;
    uint32_t magic, version;
    uint64_t n_tensors, n_kv;

    if ((st = rd_u32(&c, "magic", &magic)))
        return st;
    if (memcmp(g->base, "GGUF", 4) != 0)
        return fail("not a GGUF file (magic %02x %02x %02x %02x, expected \"GGUF\")", g->base[0], g->base[1], g->base[2],
                    g->base[3]);
    if ((st = rd_u32(&c, "version", &version)))
        return st;
    if (version == 0x02000000u || version == 0x03000000u)
        return fail("big-endian GGUF (version bytes %08" PRIx32 ") is not supported", version);
    if (version != 2 && version != 3)
        return fail("GGUF version %" PRIu32 " is not supported (2 and 3 are)", version);
    g->version = version;
    if ((st = rd_u64(&c, "tensor count", &n_tensors)) || (st = rd_u64(&c, "metadata count", &n_kv)))
        return st;
    /* A key-value takes at least 13 bytes, a tensor info at least 24. */
    if (n_kv > left(&c) / 13)
        return fail("metadata count %" PRIu64 " cannot fit in the %" PRIu64 " bytes left", n_kv, left(&c));
    if (n_tensors > left(&c) / 24)
        return fail("tensor count %" PRIu64 " cannot fit in the %" PRIu64 " bytes left", n_tensors, left(&c));
    if (n_tensors > UINT32_MAX - 1 || n_kv > UINT32_MAX - 1)
        return fail("tensor count %" PRIu64 " or metadata count %" PRIu64 " is too large", n_tensors, n_kv);

    /* Metadata. */
    int64_t cap = 0;
    for (uint64_t i = 0; i < n_kv; i++) {
        snprintf(c.what, sizeof c.what, "metadata entry %" PRIu64, i);
        const uint8_t *key;
        uint64_t klen;
        uint32_t vt;
        if ((st = rd_str(&c, "key", &key, &klen)))
            return st;
        if (klen == 0)
            return fail("%s: empty key at offset %" PRIu64, c.what, c.pos - 8);
        if (memchr(key, 0, (size_t)klen))
            return fail("%s: key contains a NUL byte", c.what);
        if (g->n_kv == cap) {
            cap = cap ? cap * 2 : 32;
            qmm_gguf_kv *p = realloc(g->kv, (size_t)cap * sizeof *p);
            if (!p)
                return QMM_ERR_NO_MEMORY;
            g->kv = p;
        }
        qmm_gguf_kv *kv = &g->kv[g->n_kv];
        if (!(kv->key = keep_string(g, key, klen)))
            return QMM_ERR_NO_MEMORY;
        snprintf(c.what, sizeof c.what, "metadata entry %" PRIu64 " ('%.100s')", i, kv->key);
        if ((st = rd_u32(&c, "value type", &vt)))
            return st;
        if ((st = parse_value(&c, vt, 0, &kv->value)))
            return st;
        g->n_kv++;
    }
    if ((st = build_hash("metadata key", g->n_kv, kv_name, g, &g->kv_hash, &g->kv_hash_cap)))
        return st;

    /* Alignment. */
    g->alignment = QMM_GGUF_DEFAULT_ALIGNMENT;
    const qmm_gguf_value *av = qmm_gguf_get(g, "general.alignment");
    if (av) {
        uint64_t a;
        if (!qmm_gguf_value_u64(av, &a))
            return fail("general.alignment has type %s, expected an unsigned integer", qmm_gguf_vtype_name(av->type));
        if (a == 0 || (a & (a - 1)) || a > (1ull << 30))
            return fail("general.alignment %" PRIu64 " is not a power of two up to 2^30", a);
        g->alignment = a;
    }

    /* Tensor infos. */
    cap = 0;
    for (uint64_t i = 0; i < n_tensors; i++) {
        snprintf(c.what, sizeof c.what, "tensor info %" PRIu64, i);
        const uint8_t *name;
        uint64_t nlen;
        if ((st = rd_str(&c, "name", &name, &nlen)))
            return st;
        if (nlen == 0)
            return fail("%s: empty name", c.what);
        if (memchr(name, 0, (size_t)nlen))
            return fail("%s: name contains a NUL byte", c.what);
        if (g->n_tensors == cap) {
            cap = cap ? cap * 2 : 64;
            qmm_gguf_tensor *p = realloc(g->tensors, (size_t)cap * sizeof *p);
            if (!p)
                return QMM_ERR_NO_MEMORY;
            g->tensors = p;
        }
        qmm_gguf_tensor *t = &g->tensors[g->n_tensors];
        memset(t, 0, sizeof *t);
        if (!(t->name = keep_string(g, name, nlen)))
            return QMM_ERR_NO_MEMORY;
        snprintf(c.what, sizeof c.what, "tensor %" PRIu64 " ('%.100s')", i, t->name);
        if ((st = rd_u32(&c, "n_dims", &t->n_dims)))
            return st;
        if (t->n_dims > QMM_GGUF_MAX_DIMS)
            return fail("%s: n_dims %" PRIu32 " exceeds %d", c.what, t->n_dims, QMM_GGUF_MAX_DIMS);
        for (int d = 0; d < QMM_GGUF_MAX_DIMS; d++)
            t->ne[d] = 1;
        uint64_t nelem = 1;
        for (uint32_t d = 0; d < t->n_dims; d++) {
            uint64_t ne;
            if ((st = rd_u64(&c, "ne", &ne)))
                return st;
            if (ne > (uint64_t)INT64_MAX)
                return fail("%s: ne[%" PRIu32 "] = %" PRIu64 " is negative as int64", c.what, d, ne);
            if (ne && nelem > (uint64_t)INT64_MAX / ne)
                return fail("%s: element count overflows int64 at ne[%" PRIu32 "] = %" PRIu64, c.what, d, ne);
            nelem *= ne;
            t->ne[d] = (int64_t)ne;
        }
        if ((st = rd_u32(&c, "type", &t->type)) || (st = rd_u64(&c, "data offset", &t->offset)))
            return st;
        g->n_tensors++;
    }
    if ((st = build_hash("tensor name", g->n_tensors, tensor_name, g, &g->tensor_hash, &g->tensor_hash_cap)))
        return st;

    /* Data section: after the tensor infos, aligned. */
    const uint64_t a = g->alignment;
    if (c.pos > UINT64_MAX - (a - 1))
        return fail("data section offset overflows");
    g->data_offset = (c.pos + a - 1) & ~(a - 1);
    if (g->data_offset > g->size) {
        if (g->n_tensors)
            return fail("data section at offset %" PRIu64 " (aligned to %" PRIu64 ") is past the end of the file (%" PRIu64
                        " bytes)",
                        g->data_offset, a, g->size);
        g->data_offset = g->size; /* no tensors: no data section needed */
    }
    const uint64_t data_size = g->size - g->data_offset;

    for (int64_t i = 0; i < g->n_tensors; i++) {
        qmm_gguf_tensor *t = &g->tensors[i];
        char tmp[32];
        if (t->offset % a)
            return fail("tensor '%s': data offset %" PRIu64 " is not a multiple of the alignment %" PRIu64, t->name, t->offset,
                        a);
        if (t->offset > data_size)
            return fail("tensor '%s': data offset %" PRIu64 " is past the data section (%" PRIu64 " bytes)", t->name, t->offset,
                        data_size);
        const int64_t be = t->type < QMM_TYPE_COUNT ? qmm_type_block_elems((qmm_type)t->type) : 0;
        const size_t bb = t->type < QMM_TYPE_COUNT ? qmm_type_block_bytes((qmm_type)t->type) : 0;
        if (be <= 0 || bb == 0)
            continue; /* unknown type: listed, flagged, not sized */
        t->known_type = 1;
        if (t->ne[0] % be)
            return fail("tensor '%s': ne[0] = %" PRId64 " is not a multiple of the %s block (%" PRId64 " elements)", t->name,
                        t->ne[0], type_label(t->type, tmp, sizeof tmp), be);
        /* row bytes, then rows, each checked for overflow */
        const uint64_t blocks = (uint64_t)(t->ne[0] / be);
        if (blocks && bb > UINT64_MAX / blocks)
            return fail("tensor '%s': row size overflows", t->name);
        uint64_t size = blocks * bb;
        for (int d = 1; d < QMM_GGUF_MAX_DIMS; d++) {
            const uint64_t ne = (uint64_t)t->ne[d];
            if (ne && size > UINT64_MAX / ne)
                return fail("tensor '%s': data size overflows", t->name);
            size *= ne;
        }
        if (size > data_size - t->offset)
            return fail("tensor '%s': %s data of %" PRIu64 " bytes at offset %" PRIu64
                        " runs past the end of the data section (%" PRIu64 " bytes)",
                        t->name, type_label(t->type, tmp, sizeof tmp), size, t->offset, data_size);
        t->size = size;
        t->data = g->base + g->data_offset + t->offset;
    }
    return QMM_OK;
}

static qmm_status open_common(qmm_gguf *g, qmm_gguf **out) {
    qmm_status st = parse(g);
    if (st) {
        if (st == QMM_ERR_NO_MEMORY)
            qmm_set_error("GGUF: out of memory while reading the file");
        qmm_gguf_close(g);
        return st;
    }
    *out = g;
    return QMM_OK;
}

qmm_status qmm_gguf_open_memory(const void *data, size_t size, qmm_gguf **out) {
    if (!out || (!data && size))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_gguf_open_memory: NULL argument");
    *out = NULL;
    qmm_gguf *g = calloc(1, sizeof *g);
    if (!g)
        return QMM_ERR_NO_MEMORY;
    static const uint8_t empty[1];
    g->base = data ? data : empty;
    g->size = size;
    return open_common(g, out);
}

qmm_status qmm_gguf_open(const char *path, qmm_gguf **out) {
    if (!path || !out) {
        if (out)
            *out = NULL;
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_gguf_open: NULL argument");
    }
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer
     * forever; fstat refuses it below, and a regular file ignores the flag */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        qmm_set_error("%s: %s", path, strerror(errno));
        return QMM_ERR_IO;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        qmm_set_error("%s: not a regular file (a model must be a file: not a FIFO, device or directory)", path);
        close(fd);
        return QMM_ERR_IO;
    }
    if (sb.st_size == 0) {
        close(fd);
        return fail("%s: empty file", path);
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        return fail("%s: too large to map", path);
    }
    void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        qmm_set_error("%s: mmap: %s", path, strerror(errno));
        return QMM_ERR_IO;
    }
    qmm_gguf *g = calloc(1, sizeof *g);
    if (!g) {
        munmap(map, (size_t)sb.st_size);
        return QMM_ERR_NO_MEMORY;
    }
    g->map = map;
    g->map_size = (size_t)sb.st_size;
    g->base = map;
    g->size = (uint64_t)sb.st_size;
    return open_common(g, out);
}

void qmm_gguf_close(qmm_gguf *g) {
    if (!g)
        return;
    for (int64_t i = 0; i < g->n_strings; i++)
        free(g->strings[i]);
    free(g->strings);
    free(g->kv);
    free(g->tensors);
    free(g->kv_hash);
    free(g->tensor_hash);
    if (g->map)
        munmap(g->map, g->map_size);
    free(g);
}

/* --------------------------------------------------------------- accessors */

/* Public accessors: a NULL handle reads as an empty file. */
uint32_t qmm_gguf_version(const qmm_gguf *g) { return g ? g->version : 0; }
uint64_t qmm_gguf_file_size(const qmm_gguf *g) { return g ? g->size : 0; }
uint64_t qmm_gguf_alignment(const qmm_gguf *g) { return g ? g->alignment : 0; }
uint64_t qmm_gguf_data_offset(const qmm_gguf *g) { return g ? g->data_offset : 0; }
int64_t qmm_gguf_kv_count(const qmm_gguf *g) { return g ? g->n_kv : 0; }
int64_t qmm_gguf_tensor_count(const qmm_gguf *g) { return g ? g->n_tensors : 0; }

const qmm_gguf_kv *qmm_gguf_kv_at(const qmm_gguf *g, int64_t i) { return g && i >= 0 && i < g->n_kv ? &g->kv[i] : NULL; }

const qmm_gguf_tensor *qmm_gguf_tensor_at(const qmm_gguf *g, int64_t i) {
    return g && i >= 0 && i < g->n_tensors ? &g->tensors[i] : NULL;
}

int64_t qmm_gguf_find_key(const qmm_gguf *g, const char *key) {
    return g && key ? hash_find(g->kv_hash, g->kv_hash_cap, key, kv_name, g) : -1;
}

const qmm_gguf_value *qmm_gguf_get(const qmm_gguf *g, const char *key) {
    int64_t i = qmm_gguf_find_key(g, key);
    return i < 0 ? NULL : &g->kv[i].value;
}

int64_t qmm_gguf_find_tensor(const qmm_gguf *g, const char *name) {
    if (!g || !name)
        return -1;
    return hash_find(g->tensor_hash, g->tensor_hash_cap, name, tensor_name, g);
}
