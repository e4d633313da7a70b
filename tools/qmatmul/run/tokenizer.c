/* Tokenizers from the GGUF vocabulary: see tokenizer.h. */
#include "tokenizer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOKEN_NORMAL = 1, TOKEN_UNKNOWN = 2, TOKEN_CONTROL = 3, TOKEN_USER = 4, TOKEN_UNUSED = 5, TOKEN_BYTE = 6 };
enum { KIND_GPT2, KIND_SPM };

typedef struct str_map { /* string -> int, open addressing */
    const char **keys;
    size_t *lens;
    int *vals;
    size_t cap;
} str_map;

struct run_vocab {
    int kind;
    int n;
    char **text; /* NUL-terminated copies */
    size_t *len;
    int *type;
    float *score;
    str_map ids;    /* token text -> id */
    str_map merges; /* "left right" -> rank (gpt2) */
    char **merge_text;
    int n_merges;
    int bos, eos, add_bos, add_space_prefix, isolate_digits;
    int byte_token[256]; /* SentencePiece byte fallback ids, -1 if missing */
    int *user;           /* user-defined tokens, longest text first */
    int n_user;
    size_t max_len;        /* of a token's text */
    size_t max_merge_len;  /* of a merge's "left right" (gpt2) */
    uint32_t byte_cp[256]; /* gpt2: each byte's code point in the byte-level alphabet */
};

static int fail(char *err, size_t es, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, es, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int map_init(str_map *m, size_t n) {
    m->cap = 16;
    while (m->cap < 2 * n)
        m->cap *= 2;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->lens = calloc(m->cap, sizeof *m->lens);
    m->vals = calloc(m->cap, sizeof *m->vals);
    return m->keys && m->lens && m->vals ? 0 : -1;
}

static void map_free(str_map *m) {
    free(m->keys);
    free(m->lens);
    free(m->vals);
}

/* Keeps the first value of a key seen twice. */
static void map_put(str_map *m, const char *k, size_t n, int v) {
    for (size_t i = hash(k, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i]) {
            m->keys[i] = k;
            m->lens[i] = n;
            m->vals[i] = v;
            return;
        }
        if (m->lens[i] == n && !memcmp(m->keys[i], k, n))
            return;
    }
}

static int map_get(const str_map *m, const char *k, size_t n) {
    if (!m->cap)
        return -1;
    for (size_t i = hash(k, n) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->lens[i] == n && !memcmp(m->keys[i], k, n))
            return m->vals[i];
    return -1;
}

static char *dup_str(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

void run_vocab_free(run_vocab *v) {
    if (!v)
        return;
    for (int i = 0; v->text && i < v->n; i++)
        free(v->text[i]);
    for (int i = 0; v->merge_text && i < v->n_merges; i++)
        free(v->merge_text[i]);
    free(v->text);
    free(v->len);
    free(v->type);
    free(v->score);
    free(v->merge_text);
    free(v->user);
    map_free(&v->ids);
    map_free(&v->merges);
    free(v);
}

static int get_flag(const qmm_gguf *g, const char *key, int dflt) {
    const qmm_gguf_value *val = qmm_gguf_get(g, key);
    int64_t x;
    return val && qmm_gguf_value_i64(val, &x) ? x != 0 : dflt;
}

/* A per-token array of numbers (token_type: integers, scores: any number):
 * 1 and *out if the file has one of n elements, 0 if it has none (or one of
 * another length: ignored), -1 with a message in err if its elements are of
 * another kind. Elements of variable size (strings, arrays) are refused, not
 * read: reaching element i of such an array walks all those before it. */
static int per_token_array(const qmm_gguf *g, const char *key, uint64_t n, int floats, qmm_gguf_value *out, char *err,
                           size_t es) {
    if (!qmm_gguf_get(g, key))
        return 0;
    if (qmm_gguf_get_array(g, key, out) != QMM_OK)
        return fail(err, es, "%s is not an array", key);
    const uint32_t t = out->elem_type;
    const int is_int = t == QMM_GGUF_UINT8 || t == QMM_GGUF_INT8 || t == QMM_GGUF_UINT16 || t == QMM_GGUF_INT16 ||
                       t == QMM_GGUF_UINT32 || t == QMM_GGUF_INT32 || t == QMM_GGUF_UINT64 || t == QMM_GGUF_INT64 ||
                       t == QMM_GGUF_BOOL;
    if (!(is_int || (floats && (t == QMM_GGUF_FLOAT32 || t == QMM_GGUF_FLOAT64))))
        return fail(err, es, "%s is an array of %s, not of %s", key, qmm_gguf_vtype_name(t),
                    floats ? "numbers (float32 expected)" : "integers (int32 expected)");
    return out->len == n;
}

static int by_len_then_id(const void *a, const void *b) {
    const size_t *x = a, *y = b; /* {length, id} */
    return x[0] != y[0] ? (x[0] < y[0] ? 1 : -1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static int get_id(const qmm_gguf *g, const char *key, int n) {
    int64_t x;
    return qmm_gguf_get_int(g, key, &x) == QMM_OK && x >= 0 && x < n ? (int)x : -1;
}

run_vocab *run_vocab_load(const qmm_gguf *g, char *err, size_t es) {
    const char *model, *pre = "";
    uint64_t mlen, plen = 0;
    if (qmm_gguf_get_string(g, "tokenizer.ggml.model", &model, &mlen) != QMM_OK) {
        fail(err, es, "no tokenizer (tokenizer.ggml.model)");
        return NULL;
    }
    int kind;
    if (mlen == 4 && !memcmp(model, "gpt2", 4))
        kind = KIND_GPT2;
    else if (mlen == 5 && !memcmp(model, "llama", 5))
        kind = KIND_SPM;
    else {
        fail(err, es, "tokenizer '%.*s' is not supported (gpt2 or llama)", (int)(mlen > 32 ? 32 : mlen), model);
        return NULL;
    }
    qmm_gguf_value toks, types, scores, merges;
    if (qmm_gguf_get_array(g, "tokenizer.ggml.tokens", &toks) != QMM_OK || toks.elem_type != QMM_GGUF_STRING || toks.len < 1 ||
        toks.len > (1u << 24)) {
        fail(err, es, "no usable tokenizer.ggml.tokens");
        return NULL;
    }
    run_vocab *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->kind = kind;
    v->n = (int)toks.len;
    v->text = calloc((size_t)v->n, sizeof *v->text);
    v->len = calloc((size_t)v->n, sizeof *v->len);
    v->type = calloc((size_t)v->n, sizeof *v->type);
    v->score = calloc((size_t)v->n, sizeof *v->score);
    if (!v->text || !v->len || !v->type || !v->score || map_init(&v->ids, (size_t)v->n))
        goto oom;
    const int have_types = per_token_array(g, "tokenizer.ggml.token_type", toks.len, 0, &types, err, es);
    const int have_scores = have_types < 0 ? 0 : per_token_array(g, "tokenizer.ggml.scores", toks.len, 1, &scores, err, es);
    if (have_types < 0 || have_scores < 0) {
        run_vocab_free(v);
        return NULL;
    }
    /* Types and scores (fixed-size elements) are indexed directly; strings
     * are read in one pass. */
    const uint8_t *p = toks.p;
    for (int i = 0; i < v->n; i++) {
        uint64_t n;
        memcpy(&n, p, 8);
        v->text[i] = dup_str((const char *)p + 8, (size_t)n);
        if (!v->text[i])
            goto oom;
        v->len[i] = (size_t)n;
        if (v->len[i] > v->max_len)
            v->max_len = v->len[i];
        p += 8 + n;
        v->type[i] = TOKEN_NORMAL;
        qmm_gguf_value e;
        int64_t t;
        double s;
        if (have_types > 0 && qmm_gguf_array_get(&types, (uint64_t)i, &e) && qmm_gguf_value_i64(&e, &t))
            v->type[i] = (int)t;
        if (have_scores > 0 && qmm_gguf_array_get(&scores, (uint64_t)i, &e) && qmm_gguf_value_f64(&e, &s))
            v->score[i] = (float)s;
        map_put(&v->ids, v->text[i], v->len[i], i);
    }
    if (kind == KIND_GPT2) {
        if (qmm_gguf_get_array(g, "tokenizer.ggml.merges", &merges) != QMM_OK || merges.elem_type != QMM_GGUF_STRING) {
            fail(err, es, "gpt2 tokenizer without tokenizer.ggml.merges");
            run_vocab_free(v);
            return NULL;
        }
        v->merge_text = calloc((size_t)merges.len + 1, sizeof *v->merge_text);
        if (!v->merge_text || map_init(&v->merges, (size_t)merges.len))
            goto oom;
        p = merges.p;
        for (uint64_t i = 0; i < merges.len; i++) {
            uint64_t n;
            memcpy(&n, p, 8);
            v->merge_text[i] = dup_str((const char *)p + 8, (size_t)n);
            if (!v->merge_text[i])
                goto oom;
            v->n_merges = (int)i + 1;
            if ((size_t)n > v->max_merge_len)
                v->max_merge_len = (size_t)n;
            map_put(&v->merges, v->merge_text[i], (size_t)n, (int)i);
            p += 8 + n;
        }
        qmm_gguf_get_string(g, "tokenizer.ggml.pre", &pre, &plen);
        /* Pre-tokenizers that split every digit off first (llama.cpp's smollm, starcoder, refact, ...). */
        static const char *const isolating[] = {"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva"};
        for (size_t i = 0; i < sizeof isolating / sizeof isolating[0]; i++)
            if (plen == strlen(isolating[i]) && !memcmp(pre, isolating[i], plen))
                v->isolate_digits = 1;
    }
    for (int b = 0; b < 256; b++) {
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", b);
        v->byte_token[b] = map_get(&v->ids, name, strlen(name));
    }
    /* GPT-2's byte-level alphabet: printable bytes stand for themselves, the
     * rest for code points from 256 on, in byte order. */
    for (int b = 0, next = 256; b < 256; b++)
        v->byte_cp[b] = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174 ? (uint32_t)b : (uint32_t)next++;
    /* User-defined tokens, longest first (equal lengths by id: deterministic). */
    for (int i = 0; i < v->n; i++)
        v->n_user += v->type[i] == TOKEN_USER && v->len[i] > 0;
    if (v->n_user) {
        size_t *order = malloc((size_t)v->n_user * 2 * sizeof *order);
        if (!order || !(v->user = malloc((size_t)v->n_user * sizeof *v->user))) {
            free(order);
            goto oom;
        }
        int u = 0;
        for (int i = 0; i < v->n; i++)
            if (v->type[i] == TOKEN_USER && v->len[i] > 0) {
                order[2 * u] = v->len[i];
                order[2 * u++ + 1] = (size_t)i;
            }
        qsort(order, (size_t)u, 2 * sizeof *order, by_len_then_id);
        for (int j = 0; j < u; j++)
            v->user[j] = (int)order[2 * j + 1];
        free(order);
    }
    v->bos = get_id(g, "tokenizer.ggml.bos_token_id", v->n);
    v->eos = get_id(g, "tokenizer.ggml.eos_token_id", v->n);
    v->add_bos = get_flag(g, "tokenizer.ggml.add_bos_token", kind == KIND_SPM);
    v->add_space_prefix = get_flag(g, "tokenizer.ggml.add_space_prefix", kind == KIND_SPM);
    return v;
oom:
    fail(err, es, "out of memory reading the vocabulary");
    run_vocab_free(v);
    return NULL;
}

int run_vocab_size(const run_vocab *v) { return v->n; }
int run_vocab_bos(const run_vocab *v) { return v->add_bos ? v->bos : -1; }
int run_vocab_eos(const run_vocab *v) { return v->eos; }

/* ------------------------------------------------------------- UTF-8 */

static int utf8_len(unsigned char c) { return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1; }

static uint32_t utf8_decode(const char *s, size_t avail, int *len) {
    const unsigned char *u = (const unsigned char *)s;
    int n = utf8_len(u[0]);
    if ((size_t)n > avail)
        n = 1;
    uint32_t cp = n == 1 ? u[0] : n == 2 ? u[0] & 0x1f : n == 3 ? u[0] & 0x0f : u[0] & 0x07;
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            n = 1;
            cp = u[0];
            break;
        }
        cp = (cp << 6) | (u[i] & 0x3f);
    }
    *len = n;
    return cp;
}

static int utf8_encode(uint32_t cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The byte a code point of GPT-2's byte-level alphabet stands for, -1 if none. */
static int cp_to_byte(const run_vocab *v, uint32_t cp) {
    for (int b = 0; b < 256; b++)
        if (v->byte_cp[b] == cp)
            return b;
    return -1;
}

/* ---------------------------------------------------------- token list */

typedef struct id_list {
    int32_t *v;
    int n, cap;
} id_list;

static int push(id_list *l, int32_t id) {
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        int32_t *nv = realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = id;
    return 0;
}

/* --------------------------------------------------------------- merging */

/* The symbols of a word being merged: byte ranges [start, start + len) of a
 * buffer, in a doubly linked list by index (prev / next, -1 at the ends); a
 * symbol merged into its left neighbour has len 0. Neighbours stay adjacent
 * in the buffer, so merging one into the other only adds up lengths. */
typedef struct sym {
    int start, len, prev, next;
} sym;

/* A merge of the adjacent symbols left and right as they were when it was
 * queued (left_len, right_len: any change since leaves it stale); cost: the
 * lowest merges first (gpt2: the merge's rank; SentencePiece: minus the
 * score of the token the pair makes), the leftmost of equal costs first. */
typedef struct cand {
    double cost;
    int left, right, left_len, right_len;
} cand;

typedef struct cand_heap { /* binary min-heap */
    cand *c;
    int n;
} cand_heap;

static int cand_first(const cand *a, const cand *b) { return a->cost < b->cost || (a->cost == b->cost && a->left < b->left); }

static void heap_push(cand_heap *h, cand c) {
    int i = h->n++;
    while (i > 0 && cand_first(&c, &h->c[(i - 1) / 2])) {
        h->c[i] = h->c[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->c[i] = c;
}

static cand heap_pop(cand_heap *h) {
    const cand top = h->c[0], last = h->c[--h->n];
    int i = 0;
    for (;;) {
        int k = 2 * i + 1;
        if (k >= h->n)
            break;
        if (k + 1 < h->n && cand_first(&h->c[k + 1], &h->c[k]))
            k++;
        if (!cand_first(&h->c[k], &last))
            break;
        h->c[i] = h->c[k];
        i = k;
    }
    if (h->n)
        h->c[i] = last;
    return top;
}

/* Queues the merge of s[l] and s[r] (adjacent) if there is one: gpt2, the
 * rank of the merge "left right" (pair: room for max_merge_len bytes);
 * SentencePiece, the score of the token their concatenation spells. */
static void queue_pair(const run_vocab *v, const char *buf, const sym *s, int l, int r, char *pair, cand_heap *h) {
    const size_t ll = (size_t)s[l].len, rl = (size_t)s[r].len;
    double cost;
    if (v->kind == KIND_GPT2) {
        if (ll + 1 + rl > v->max_merge_len)
            return;
        memcpy(pair, buf + s[l].start, ll);
        pair[ll] = ' ';
        memcpy(pair + ll + 1, buf + s[r].start, rl);
        const int rank = map_get(&v->merges, pair, ll + 1 + rl);
        if (rank < 0)
            return;
        cost = rank;
    } else {
        if (ll + rl > v->max_len)
            return;
        const int id = map_get(&v->ids, buf + s[l].start, ll + rl);
        if (id < 0)
            return;
        cost = -(double)v->score[id];
    }
    heap_push(h, (cand){cost, l, r, (int)ll, (int)rl});
}

/* Merges s[0..n) (a list in index order) until no adjacent pair merges,
 * the cheapest pair first and the leftmost of equals: the order of
 * rescanning every pair after each merge, in O(n log n) with a heap of the
 * candidates (stale ones skipped when they come up). The result is the list
 * from s[0]. 0, or -1 out of memory. */
static int merge_symbols(const run_vocab *v, const char *buf, sym *s, int n) {
    for (int i = 0; i < n; i++) {
        s[i].prev = i - 1;
        s[i].next = i + 1 < n ? i + 1 : -1;
    }
    if (n < 2)
        return 0;
    /* n - 1 pairs at first, at most two new ones per merge, n - 1 merges. */
    cand_heap h = {malloc((size_t)n * 3 * sizeof *h.c), 0};
    char *pair = v->kind == KIND_GPT2 ? malloc(v->max_merge_len + 1) : NULL;
    if (!h.c || (v->kind == KIND_GPT2 && !pair)) {
        free(h.c);
        free(pair);
        return -1;
    }
    for (int i = 0; i + 1 < n; i++)
        queue_pair(v, buf, s, i, i + 1, pair, &h);
    while (h.n) {
        const cand c = heap_pop(&h);
        sym *a = &s[c.left], *b = &s[c.right];
        if (a->len != c.left_len || b->len != c.right_len || a->next != c.right)
            continue; /* stale: one of them merged since */
        a->len += b->len;
        a->next = b->next;
        if (b->next >= 0)
            s[b->next].prev = c.left;
        b->len = 0;
        b->prev = b->next = -1;
        if (a->prev >= 0)
            queue_pair(v, buf, s, a->prev, c.left, pair, &h);
        if (a->next >= 0)
            queue_pair(v, buf, s, c.left, a->next, pair, &h);
    }
    free(h.c);
    free(pair);
    return 0;
}

/* ------------------------------------------------------ byte-level BPE */

enum { CL_SPACE, CL_LETTER, CL_DIGIT, CL_OTHER };

/* ASCII classes; every non-ASCII code point counts as a letter (no Unicode
 * tables here: exact for ASCII text, an approximation beyond). */
static int classify(uint32_t cp) {
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f')
        return CL_SPACE;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp >= 0x80)
        return CL_LETTER;
    if (cp >= '0' && cp <= '9')
        return CL_DIGIT;
    return CL_OTHER;
}

static int bpe_word(const run_vocab *v, const char *bytes, int nbytes, id_list *out) {
    /* The word in the byte-level alphabet, one symbol per byte. */
    char *buf = malloc((size_t)nbytes * 2 + 1);
    sym *s = malloc((size_t)nbytes * sizeof *s);
    int ok = buf && s, n = 0, pos = 0;
    for (int i = 0; ok && i < nbytes; i++) {
        s[n].start = pos;
        s[n].len = utf8_encode(v->byte_cp[(unsigned char)bytes[i]], buf + pos);
        pos += s[n++].len;
    }
    if (ok && n)
        ok = !merge_symbols(v, buf, s, n);
    for (int i = 0; ok && n && i >= 0; i = s[i].next) {
        const int id = map_get(&v->ids, buf + s[i].start, (size_t)s[i].len);
        if (id >= 0) {
            ok = !push(out, id);
            continue;
        }
        /* Not in the vocabulary: its characters one by one (each a byte). */
        for (int j = 0; ok && j < s[i].len;) {
            int cl;
            utf8_decode(buf + s[i].start + j, (size_t)(s[i].len - j), &cl);
            const int cid = map_get(&v->ids, buf + s[i].start + j, (size_t)cl);
            if (cid >= 0)
                ok = !push(out, cid);
            j += cl;
        }
    }
    free(buf);
    free(s);
    return ok ? 0 : -1;
}

/* GPT-2's pre-tokenizer regex ('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|
 * ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+) over one segment of text. */
static int gpt2_segment(const run_vocab *v, const char *t, int len, id_list *out) {
    int i = 0;
    while (i < len) {
        int l0, l1 = 0;
        const uint32_t c = utf8_decode(t + i, (size_t)(len - i), &l0);
        const int cl = classify(c);
        int c1 = -1;
        if (i + l0 < len)
            c1 = classify(utf8_decode(t + i + l0, (size_t)(len - i - l0), &l1));
        int end = i;
        if (c == '\'' && i + 1 < len) {
            static const char *const suffixes[] = {"s", "t", "re", "ve", "m", "ll", "d"};
            for (size_t k = 0; k < 7 && end == i; k++) {
                const int sl = (int)strlen(suffixes[k]);
                if (i + 1 + sl <= len && !memcmp(t + i + 1, suffixes[k], (size_t)sl))
                    end = i + 1 + sl;
            }
        }
        if (end == i) {
            int run_class = -1, j = i;
            if (cl != CL_SPACE)
                run_class = cl;
            else if (c == ' ' && c1 >= 0 && c1 != CL_SPACE) {
                run_class = c1;
                j = i + l0;
            }
            if (run_class >= 0) {
                while (j < len) {
                    int lj;
                    if (classify(utf8_decode(t + j, (size_t)(len - j), &lj)) != run_class)
                        break;
                    j += lj;
                }
                end = j;
            } else {
                /* Whitespace: the run, less its last character if text follows. */
                int j2 = i, last = i;
                while (j2 < len) {
                    int lj;
                    if (classify(utf8_decode(t + j2, (size_t)(len - j2), &lj)) != CL_SPACE)
                        break;
                    last = j2;
                    j2 += lj;
                }
                end = (j2 < len && last > i) ? last : j2;
            }
        }
        if (bpe_word(v, t + i, end - i, out))
            return -1;
        i = end;
    }
    return 0;
}

static int tokenize_gpt2(const run_vocab *v, const char *text, id_list *out) {
    const int len = (int)strlen(text);
    if (!v->isolate_digits)
        return gpt2_segment(v, text, len, out);
    /* Every digit its own piece first; the regex over the text between. */
    int start = 0;
    for (int i = 0; i <= len; i++) {
        if (i < len && !(text[i] >= '0' && text[i] <= '9'))
            continue;
        if (i > start && gpt2_segment(v, text + start, i - start, out))
            return -1;
        if (i < len && bpe_word(v, text + i, 1, out))
            return -1;
        start = i + 1;
    }
    return 0;
}

/* --------------------------------------------------------- SentencePiece */

/* Spaces become U+2581 (and one leads the first piece of the text, or one
 * after a user-defined token, if add_space_prefix); then the adjacent
 * pair whose concatenation is a token of the highest score merges (the
 * leftmost on ties) until none does; what is left out of the vocabulary
 * falls back to byte tokens. */
static int tokenize_spm(const run_vocab *v, const char *text, int first, id_list *out) {
    const size_t len = strlen(text);
    char *buf = malloc(len * 3 + 4);
    sym *s = malloc((len * 3 + 4) * sizeof *s);
    if (!buf || !s) {
        free(buf);
        free(s);
        return -1;
    }
    size_t pos = 0;
    if (first && v->add_space_prefix && len > 0 && text[0] != ' ')
        pos += (size_t)utf8_encode(0x2581, buf);
    for (size_t i = 0; i < len; i++)
        if (text[i] == ' ')
            pos += (size_t)utf8_encode(0x2581, buf + pos);
        else
            buf[pos++] = text[i];
    int n = 0;
    for (size_t i = 0; i < pos;) {
        int cl;
        utf8_decode(buf + i, pos - i, &cl);
        s[n].start = (int)i;
        s[n++].len = cl;
        i += (size_t)cl;
    }
    int ok = !merge_symbols(v, buf, s, n);
    for (int i = 0; ok && n && i >= 0; i = s[i].next) {
        const int id = map_get(&v->ids, buf + s[i].start, (size_t)s[i].len);
        if (id >= 0)
            ok = !push(out, id);
        else
            for (int j = 0; ok && j < s[i].len; j++) {
                const int b = v->byte_token[(unsigned char)buf[s[i].start + j]];
                if (b >= 0)
                    ok = !push(out, b);
            }
    }
    free(buf);
    free(s);
    return ok ? 0 : -1;
}

/* ------------------------------------------------- user-defined tokens */

/* A piece of the text: raw (id < 0) or one user-defined token. */
typedef struct fragment {
    size_t start, len;
    int id;
} fragment;

static const char *find(const char *s, size_t n, const char *t, size_t tn) {
    for (const char *end = s + n, *c = s; tn <= (size_t)(end - c); c++) {
        if (!(c = memchr(c, t[0], (size_t)(end - c) - tn + 1)))
            return NULL;
        if (!memcmp(c, t, tn))
            return c;
    }
    return NULL;
}

/* User-defined tokens (type 4: gemma's runs of spaces and of newlines, for
 * one) are split off the raw text before the tokenizer runs, as llama.cpp
 * (and Hugging Face tokenizers) do: longest token first, each at its leftmost
 * non-overlapping occurrences in what is still raw; the raw pieces between
 * are tokenized one by one. Control tokens are not (no special-token
 * parsing, as llama.cpp's tokenize with special = false). */
static int tokenize_pieces(const run_vocab *v, const char *text, id_list *out) {
    const size_t len = strlen(text);
    fragment *cur = malloc((2 * len + 2) * sizeof *cur), *next = malloc((2 * len + 2) * sizeof *next);
    char *piece = malloc(len + 1);
    int rc = -1;
    if (!cur || !next || !piece)
        goto done;
    int n = 0;
    if (len)
        cur[n++] = (fragment){0, len, -1};
    for (int u = 0; u < v->n_user; u++) {
        const int id = v->user[u];
        const char *t = v->text[id];
        const size_t tn = v->len[id];
        int m = 0;
        for (int f = 0; f < n; f++) {
            if (cur[f].id >= 0) {
                next[m++] = cur[f];
                continue;
            }
            size_t pos = cur[f].start;
            const size_t end = cur[f].start + cur[f].len;
            const char *hit;
            while ((hit = find(text + pos, end - pos, t, tn))) {
                const size_t at = (size_t)(hit - text);
                if (at > pos)
                    next[m++] = (fragment){pos, at - pos, -1};
                next[m++] = (fragment){at, tn, id};
                pos = at + tn;
            }
            if (pos < end)
                next[m++] = (fragment){pos, end - pos, -1};
        }
        fragment *swap = cur;
        cur = next;
        next = swap;
        n = m;
    }
    rc = 0;
    for (int f = 0; !rc && f < n; f++) {
        if (cur[f].id >= 0) {
            rc = push(out, cur[f].id);
            continue;
        }
        memcpy(piece, text + cur[f].start, cur[f].len);
        piece[cur[f].len] = 0;
        rc = v->kind == KIND_GPT2 ? tokenize_gpt2(v, piece, out) : tokenize_spm(v, piece, f == 0 || cur[f - 1].id >= 0, out);
    }
done:
    free(cur);
    free(next);
    free(piece);
    return rc;
}

int run_tokenize(const run_vocab *v, const char *text, int32_t **ids, int *n, char *err, size_t es) {
    id_list l = {0};
    int rc = (v->add_bos && v->bos >= 0) ? push(&l, v->bos) : 0;
    if (!rc)
        rc = tokenize_pieces(v, text, &l);
    if (rc) {
        free(l.v);
        return fail(err, es, "out of memory tokenizing");
    }
    *ids = l.v;
    *n = l.n;
    return 0;
}

size_t run_detokenize(const run_vocab *v, int32_t id, char *buf, size_t size) {
    if (id < 0 || id >= v->n || v->type[id] == TOKEN_CONTROL || v->type[id] == TOKEN_UNUSED)
        return 0;
    const char *t = v->text[id];
    const size_t len = v->len[id];
    size_t o = 0;
    if (v->kind == KIND_SPM && v->type[id] == TOKEN_BYTE && len == 6) {
        if (size > 0)
            buf[0] = (char)strtol(t + 3, NULL, 16);
        return 1;
    }
    for (size_t i = 0; i < len;) {
        int cl;
        const uint32_t cp = utf8_decode(t + i, len - i, &cl);
        char tmp[4];
        int tl;
        if (v->kind == KIND_GPT2 && v->type[id] != TOKEN_USER) {
            const int b = cp_to_byte(v, cp);
            tmp[0] = (char)(b >= 0 ? b : '?');
            tl = 1;
        } else if (cp == 0x2581) {
            tmp[0] = ' ';
            tl = 1;
        } else {
            memcpy(tmp, t + i, (size_t)cl);
            tl = cl;
        }
        for (int k = 0; k < tl; k++, o++)
            if (o < size)
                buf[o] = tmp[k];
        i += (size_t)cl;
    }
    return o;
}
