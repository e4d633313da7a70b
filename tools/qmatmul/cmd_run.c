/* qmatmul run MODEL.gguf: a llama-architecture model end to end on qmatmul
 * (tools/qmatmul/run/), greedy decoding; --bench times prefill and decode. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "qmatmul.h"
#include "run/model.h"
#include "run/tokenizer.h"

#define BENCH_PROMPT 128
#define BENCH_DECODE 64

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: qmatmul run MODEL.gguf (--tokens ID,ID,... | -p TEXT | --bench) [options]\n"
            "  runs a llama-architecture model with greedy decoding, every matrix product on qmatmul\n"
            "  --tokens LIST   prompt as comma-separated token ids\n"
            "  -p TEXT         prompt as text (the GGUF's gpt2 or llama tokenizer)\n"
            "  -n N            tokens to generate (default 32)\n"
            "  -t N            threads (default: every core)\n"
            "  --ctx N         context length in tokens (default: the model's, at most 4096)\n"
            "  --cache FILE    take the packed weights from this .qmp file (written if missing or unusable)\n"
            "  --json FILE     write prompt and generated ids, tokens per second, last prompt logits\n"
            "  --all-logits    with --json: also the logits of every prompt position (\"all_logits\": a row per token)\n"
            "  --ignore-eos    keep generating after the end-of-sequence token\n"
            "  --tokenize      with -p: print the prompt's token ids and stop (any architecture)\n"
            "  --bench         time prefill of %d tokens and decode of %d tokens (best of --reps, default 3)\n",
            BENCH_PROMPT, BENCH_DECODE);
}

static int argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best])
            best = i;
    return best;
}

static int parse_tokens(const char *s, int32_t **ids, int *n) {
    int cap = 16, count = 0;
    int32_t *v = malloc(cap * sizeof *v);
    const char *p = s;
    while (v) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        long x = strtol(p, &end, 10);
        if (x < 0 || x > INT32_MAX)
            break;
        if (count == cap) {
            int32_t *nv = realloc(v, (size_t)(cap *= 2) * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[count++] = (int32_t)x;
        if (*end == 0) {
            *ids = v;
            *n = count;
            return 0;
        }
        if (*end != ',')
            break;
        p = end + 1;
    }
    free(v);
    fprintf(stderr, "qmatmul run: --tokens takes comma-separated token ids, not '%s'\n", s);
    return -1;
}

static void json_ids(FILE *f, const char *key, const int32_t *ids, int n) {
    fprintf(f, "  \"%s\": [", key);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? ", " : "", ids[i]);
    fprintf(f, "],\n");
}

/* The index of the first NaN or infinite value of x, or -1. */
static long first_nonfinite(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return (long)i;
    return -1;
}

static void json_floats(FILE *f, const float *x, int n) {
    fprintf(f, "[");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", x[i]);
    fprintf(f, "]");
}

/* Written to a temporary beside path, then renamed over it: a full disk or a
 * crash leaves the old file (or none), never a truncated one. Every float is
 * finite (the caller stopped at a NaN): the file is JSON. */
static int write_json(const char *path, const char *model, int threads, const int32_t *prompt, int n_prompt, const int32_t *gen,
                      int n_gen, double prefill_tps, double decode_tps, const float *logits, int n_vocab, const float *all) {
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        fprintf(stderr, "qmatmul run: --json %s is not a regular file: refusing to replace it\n", path);
        return -1;
    }
    const size_t tl = strlen(path) + 48;
    char *tmp = malloc(tl);
    if (!tmp) {
        fprintf(stderr, "qmatmul run: out of memory\n");
        return -1;
    }
    snprintf(tmp, tl, "%s.qmatmul-json-partial.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wx");
    if (!f) {
        perror(tmp);
        free(tmp);
        return -1;
    }
    fprintf(f, "{\n  \"model\": \"");
    for (const char *c = model; *c; c++)
        fprintf(f, (*c == '"' || *c == '\\') ? "\\%c" : (unsigned char)*c < 32 ? "?" : "%c", *c);
    fprintf(f, "\",\n  \"threads\": %d,\n", threads);
    json_ids(f, "prompt", prompt, n_prompt);
    json_ids(f, "generated", gen, n_gen);
    fprintf(f, "  \"prefill_tok_s\": %.3f,\n  \"decode_tok_s\": %.3f,\n", prefill_tps, decode_tps);
    if (all) {
        fprintf(f, "  \"all_logits\": [");
        for (int i = 0; i < n_prompt; i++) {
            fprintf(f, "%s\n    ", i ? "," : "");
            json_floats(f, all + (size_t)i * (size_t)n_vocab, n_vocab);
        }
        fprintf(f, "\n  ],\n");
    }
    fprintf(f, "  \"logits\": ");
    json_floats(f, logits, logits ? n_vocab : 0);
    fprintf(f, "\n}\n");
    int bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "qmatmul run: writing %s: %s (nothing written)\n", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

static void print_token(const run_vocab *v, int32_t id) {
    char buf[256];
    size_t len = run_detokenize(v, id, buf, sizeof buf);
    fwrite(buf, 1, len < sizeof buf ? len : sizeof buf, stdout);
    fflush(stdout);
}

static int bench(qmm_context *ctx, run_model *m, int reps, double *prefill_tps, double *decode_tps) {
    char err[512];
    int32_t prompt[BENCH_PROMPT];
    for (int i = 0; i < BENCH_PROMPT; i++)
        prompt[i] = (int32_t)(((int64_t)i * 7919 + 1) % m->n_vocab);
    double best_p = 1e30, best_d = 1e30;
    for (int r = 0; r < reps; r++) {
        run_model_reset(m);
        double t0 = now();
        if (run_model_eval(ctx, m, prompt, BENCH_PROMPT, err, sizeof err))
            goto failed;
        double t1 = now();
        for (int i = 0; i < BENCH_DECODE; i++) {
            int32_t tok = argmax(m->logits, m->n_vocab);
            if (run_model_eval(ctx, m, &tok, 1, err, sizeof err))
                goto failed;
        }
        double t2 = now();
        if (t1 - t0 < best_p)
            best_p = t1 - t0;
        if (t2 - t1 < best_d)
            best_d = t2 - t1;
    }
    *prefill_tps = BENCH_PROMPT / best_p;
    *decode_tps = BENCH_DECODE / best_d;
    printf("prefill: %d tokens, %.1f tok/s\ndecode: %d tokens, %.1f tok/s\n", BENCH_PROMPT, *prefill_tps, BENCH_DECODE,
           *decode_tps);
    return 0;
failed:
    fprintf(stderr, "qmatmul run: %s\n", err);
    return -1;
}

int cmd_run(int argc, char **argv) {
    const char *model = NULL, *tokens = NULL, *text = NULL, *cache = NULL, *json = NULL;
    long long n_gen = 32, threads = 0, n_ctx = 0, reps = 3;
    int do_bench = 0, ignore_eos = 0, tokenize_only = 0, all_logits = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--bench")) {
            do_bench = 1;
        } else if (!strcmp(a, "--ignore-eos")) {
            ignore_eos = 1;
        } else if (!strcmp(a, "--tokenize")) {
            tokenize_only = 1;
        } else if (!strcmp(a, "--all-logits")) {
            all_logits = 1;
        } else if (has && !strcmp(a, "--tokens")) {
            tokens = argv[++i];
        } else if (has && !strcmp(a, "-p")) {
            text = argv[++i];
        } else if (has && !strcmp(a, "--cache")) {
            cache = argv[++i];
        } else if (has && !strcmp(a, "--json")) {
            json = argv[++i];
        } else if (has && !strcmp(a, "-n")) {
            if (qmm_arg_int("run", "-n", argv[++i], 0, 1 << 20, &n_gen))
                return 2;
        } else if (has && !strcmp(a, "-t")) {
            if (qmm_arg_int("run", "-t", argv[++i], 1, 4096, &threads))
                return 2;
        } else if (has && !strcmp(a, "--ctx")) {
            if (qmm_arg_int("run", "--ctx", argv[++i], 1, 1 << 20, &n_ctx))
                return 2;
        } else if (has && !strcmp(a, "--reps")) {
            if (qmm_arg_int("run", "--reps", argv[++i], 1, 1000, &reps))
                return 2;
        } else if (a[0] == '-' || model) {
            fprintf(stderr, "qmatmul run: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            model = a;
        }
    }
    if (tokenize_only && (!model || !text)) {
        fprintf(stderr, "qmatmul run: --tokenize needs MODEL.gguf and -p TEXT\n");
        return 2;
    }
    if (!model || (!tokens && !text && !do_bench) || (tokens && text)) {
        fprintf(stderr, "qmatmul run: needs MODEL.gguf and one of --tokens, -p or --bench\n");
        usage(stderr);
        return 2;
    }
    if (all_logits && (!json || do_bench)) {
        fprintf(stderr, "qmatmul run: --all-logits goes with --json (and a prompt, not --bench)\n");
        return 2;
    }
    int32_t *prompt = NULL;
    int n_prompt = 0;
    if (tokens && parse_tokens(tokens, &prompt, &n_prompt))
        return 2;

    qmm_context *ctx;
    qmm_options opts = {.n_threads = (int)threads};
    if (qmm_context_create(&opts, &ctx) != QMM_OK) {
        fprintf(stderr, "qmatmul run: %s\n", qmm_last_error());
        free(prompt);
        return 1;
    }
    int rc = 1;
    char err[512];
    run_model m;
    run_vocab *vocab = NULL;
    int32_t *gen = NULL;
    int n_done = 0;
    /* The context: --ctx, else the model's (capped: the KV cache is allocated whole). */
    qmm_gguf *peek;
    if (qmm_gguf_open(model, &peek) != QMM_OK) {
        fprintf(stderr, "qmatmul run: %s\n", qmm_last_error());
        goto out;
    }
    if (!n_ctx) {
        int64_t train = 0;
        n_ctx = qmm_gguf_get_int(peek, "llama.context_length", &train) == QMM_OK && train > 0 && train < 4096 ? train : 4096;
    }
    vocab = run_vocab_load(peek, err, sizeof err);
    qmm_gguf_close(peek);
    if (!vocab && text) {
        fprintf(stderr, "qmatmul run: %s: %s\n", model, err);
        goto out;
    }
    if (text) {
        if (run_tokenize(vocab, text, &prompt, &n_prompt, err, sizeof err)) {
            fprintf(stderr, "qmatmul run: %s\n", err);
            goto out;
        }
        if (tokenize_only) {
            for (int i = 0; i < n_prompt; i++)
                printf("%d%s", prompt[i], i + 1 < n_prompt ? "," : "");
            printf("\n");
            rc = 0;
            goto out;
        }
        if (n_prompt == 0) {
            fprintf(stderr, "qmatmul run: the prompt has no tokens\n");
            goto out;
        }
    }
    const long long need = do_bench && !tokens && !text ? BENCH_PROMPT + BENCH_DECODE : n_prompt + (n_gen > 0 ? n_gen - 1 : 0);
    if (need > n_ctx) {
        fprintf(stderr, "qmatmul run: %lld tokens (prompt %d, -n %lld) do not fit a context of %lld (--ctx)\n", need, n_prompt,
                n_gen, n_ctx);
        goto out;
    }
    if (run_model_load(ctx, model, cache, (int)n_ctx, &m, err, sizeof err)) {
        fprintf(stderr, "qmatmul run: %s: %s\n", model, err);
        run_model_free(&m);
        goto out;
    }
    if (vocab && run_vocab_size(vocab) != m.n_vocab) {
        fprintf(stderr, "qmatmul run: the tokenizer has %d tokens, the model %d; text output off\n", run_vocab_size(vocab),
                m.n_vocab);
        run_vocab_free(vocab);
        vocab = NULL;
    }
    if (do_bench && !tokens && !text) {
        double p, d;
        rc = bench(ctx, &m, (int)reps, &p, &d) ? 1 : 0;
        run_model_profile_print(stderr);
        if (!rc && json && write_json(json, model, qmm_context_threads(ctx), NULL, 0, NULL, 0, p, d, NULL, 0, NULL))
            rc = 1;
        run_model_free(&m);
        goto out;
    }
    gen = malloc(((size_t)n_gen + 1) * sizeof *gen);
    float *prompt_logits = malloc((size_t)m.n_vocab * sizeof(float));
    float *all = all_logits ? malloc((size_t)n_prompt * (size_t)m.n_vocab * sizeof(float)) : NULL;
    if (!gen || !prompt_logits || (all_logits && !all)) {
        fprintf(stderr, "qmatmul run: out of memory\n");
        free(prompt_logits);
        free(all);
        run_model_free(&m);
        goto out;
    }
    m.all_logits = all;
    double t0 = now();
    if (run_model_eval(ctx, &m, prompt, n_prompt, err, sizeof err))
        goto eval_failed;
    double t1 = now();
    m.all_logits = NULL; /* the prompt's positions only */
    memcpy(prompt_logits, m.logits, (size_t)m.n_vocab * sizeof(float));
    /* a NaN logit would make argmax return token 0 forever: a broken model
     * or runner, reported as such */
    const long bad_pos = all ? first_nonfinite(all, (size_t)n_prompt * (size_t)m.n_vocab) : -1;
    if (bad_pos >= 0 || first_nonfinite(m.logits, (size_t)m.n_vocab) >= 0) {
        snprintf(err, sizeof err,
                 "the logits of prompt position %ld are not finite (NaN or infinite): the model's weights "
                 "or this runner are broken; stopping",
                 bad_pos >= 0 ? bad_pos / m.n_vocab : (long)n_prompt - 1);
        goto eval_failed;
    }
    const int eos = vocab ? run_vocab_eos(vocab) : -1;
    while (n_done < n_gen) {
        const int32_t tok = argmax(m.logits, m.n_vocab);
        gen[n_done++] = tok;
        if (vocab)
            print_token(vocab, tok);
        if ((tok == eos && !ignore_eos) || n_done == n_gen)
            break;
        if (run_model_eval(ctx, &m, &tok, 1, err, sizeof err))
            goto eval_failed;
        if (first_nonfinite(m.logits, (size_t)m.n_vocab) >= 0) {
            snprintf(err, sizeof err, "the logits after generated token %d are not finite (NaN or infinite); stopping", n_done);
            goto eval_failed;
        }
    }
    double t2 = now();
    if (vocab)
        printf("\n");
    else
        for (int i = 0; i < n_done; i++)
            printf("%d%c", gen[i], i + 1 < n_done ? ',' : '\n');
    const double prefill_tps = n_prompt / (t1 - t0), decode_tps = n_done > 1 ? (n_done - 1) / (t2 - t1) : 0;
    fprintf(stderr, "qmatmul run: prompt %d tokens, %.1f tok/s; generated %d tokens, %.1f tok/s; %d threads\n", n_prompt,
            prefill_tps, n_done, decode_tps, qmm_context_threads(ctx));
    rc = json && write_json(json, model, qmm_context_threads(ctx), prompt, n_prompt, gen, n_done, prefill_tps, decode_tps,
                            prompt_logits, m.n_vocab, all)
             ? 1
             : 0;
    free(prompt_logits);
    free(all);
    run_model_profile_print(stderr);
    run_model_free(&m);
    goto out;
eval_failed:
    fprintf(stderr, "qmatmul run: %s\n", err);
    free(prompt_logits);
    free(all);
    run_model_free(&m);
out:
    free(gen);
    free(prompt);
    run_vocab_free(vocab);
    qmm_context_free(ctx);
    return rc;
}
