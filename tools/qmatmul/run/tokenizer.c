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
    const int have_types = qmm_gguf_get_array(g, "tokenizer.ggml.token_type", &types) == QMM_OK && types.len == toks.len;
    const int have_scores = qmm_gguf_get_array(g, "tokenizer.ggml.scores", &scores) == QMM_OK && scores.len == toks.len;
    /* Arrays of fixed-size elements are indexed directly; strings in one pass. */
    const uint8_t *p = toks.p;
    for (int i = 0; i < v->n; i++) {
        uint64_t n;
        memcpy(&n, p, 8);
        v->text[i] = dup_str((const char *)p + 8, (size_t)n);
        if (!v->text[i])
            goto oom;
        v->len[i] = (size_t)n;
        p += 8 + n;
        v->type[i] = TOKEN_NORMAL;
        qmm_gguf_value e;
        int64_t t;
        double s;
        if (have_types && qmm_gguf_array_get(&types, (uint64_t)i, &e) && qmm_gguf_value_i64(&e, &t))
            v->type[i] = (int)t;
        if (have_scores && qmm_gguf_array_get(&scores, (uint64_t)i, &e) && qmm_gguf_value_f64(&e, &s))
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
    /* User-defined tokens, longest first (equal lengths by id: deterministic). */
    for (int i = 0; i < v->n; i++)
        v->n_user += v->type[i] == TOKEN_USER && v->len[i] > 0;
    if (v->n_user) {
        if (!(v->user = malloc((size_t)v->n_user * sizeof *v->user)))
            goto oom;
        int u = 0;
        for (int i = 0; i < v->n; i++)
            if (v->type[i] == TOKEN_USER && v->len[i] > 0) {
                int j = u++;
                for (; j > 0 && v->len[v->user[j - 1]] < v->len[i]; j--)
                    v->user[j] = v->user[j - 1];
                v->user[j] = i;
            }
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

/* GPT-2's byte-level alphabet: printable bytes stand for themselves, the
 * rest for code points from 256 on, in byte order. */
static uint32_t byte_to_cp(unsigned char b) {
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)
        return b;
    uint32_t n = 0;
    for (int c = 0; c < b; c++)
        if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174))
            n++;
    return 256 + n;
}

static int cp_to_byte(uint32_t cp) {
    if (cp < 256)
        return ((cp >= 33 && cp <= 126) || (cp >= 161 && cp <= 172) || cp >= 174) ? (int)cp : -1;
    for (int b = 0; b < 256; b++)
        if (byte_to_cp((unsigned char)b) == cp)
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

/* Symbols of a word being merged: byte ranges [start, start + len) of buf. */
typedef struct sym {
    int start, len;
} sym;

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
    char *pair = malloc((size_t)nbytes * 2 + 2);
    int ok = buf && s && pair, n = 0, pos = 0;
    for (int i = 0; ok && i < nbytes; i++) {
        s[n].start = pos;
        s[n].len = utf8_encode(byte_to_cp((unsigned char)bytes[i]), buf + pos);
        pos += s[n++].len;
    }
    while (ok && n > 1) {
        int best = -1, best_rank = 0;
        for (int i = 0; i + 1 < n; i++) {
            memcpy(pair, buf + s[i].start, (size_t)s[i].len);
            pair[s[i].len] = ' ';
            memcpy(pair + s[i].len + 1, buf + s[i + 1].start, (size_t)s[i + 1].len);
            const int r = map_get(&v->merges, pair, (size_t)(s[i].len + 1 + s[i + 1].len));
            if (r >= 0 && (best < 0 || r < best_rank)) {
                best = i;
                best_rank = r;
            }
        }
        if (best < 0)
            break;
        s[best].len += s[best + 1].len; /* adjacent in buf */
        memmove(s + best + 1, s + best + 2, (size_t)(n - best - 2) * sizeof *s);
        n--;
    }
    for (int i = 0; ok && i < n; i++) {
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
    free(pair);
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
    while (n > 1) {
        int best = -1;
        float best_score = 0;
        for (int i = 0; i + 1 < n; i++) {
            const int id = map_get(&v->ids, buf + s[i].start, (size_t)(s[i].len + s[i + 1].len));
            if (id >= 0 && (best < 0 || v->score[id] > best_score)) {
                best = i;
                best_score = v->score[id];
            }
        }
        if (best < 0)
            break;
        s[best].len += s[best + 1].len;
        memmove(s + best + 1, s + best + 2, (size_t)(n - best - 2) * sizeof *s);
        n--;
    }
    int ok = 1;
    for (int i = 0; ok && i < n; i++) {
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
    for (size_t i = 0; tn <= n && i <= n - tn; i++)
        if (s[i] == t[0] && !memcmp(s + i, t, tn))
            return s + i;
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
            const int b = cp_to_byte(cp);
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
