/* libFuzzer target: `qmatmul run`'s model loader (tools/qmatmul/run/) on
 * crafted GGUF models and packed-weight caches. An input is a model and,
 * optionally, a cache:
 *   byte 0       bit 0: a cache follows; bit 1: load the tokenizer and tokenize
 *   bytes 1..4   the model's length L (little endian; clipped to what is there)
 *   L bytes      the GGUF model, written to a file
 *   the rest     the cache file (when bit 0)
 * The loader either refuses with a message or gives a model that then
 * evaluates two tokens: never a crash, an overrun or a leak. The cache is
 * opened for that model (its entries checked against the GGUF's tensors), and
 * rewritten by the loader when it is not usable, as `run --cache` does. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "run/model.h"
#include "run/tokenizer.h"

static char dir[64];

static void write_file(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/qmm-fuzz-run-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(dir))
            abort();
    }
    qmm_context *ctx = fuzz_ctx(2);
    fuzz_in in = {data, size};
    const unsigned flags = (unsigned)fuzz_bytes(&in, 1);
    size_t len = (size_t)fuzz_bytes(&in, 4);
    if (len > in.n)
        len = in.n;
    char model[96], cache[96];
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    snprintf(cache, sizeof cache, "%s/m.qmp", dir);
    write_file(model, in.p, len);
    const int with_cache = flags & 1;
    if (with_cache)
        write_file(cache, in.p + len, in.n - len);

    if (flags & 2) {
        qmm_gguf *g = NULL;
        if (qmm_gguf_open(model, &g) == QMM_OK) {
            char err[256];
            run_vocab *v = run_vocab_load(g, err, sizeof err);
            if (v) {
                int32_t *ids = NULL;
                int n = 0;
                if (run_tokenize(v, "Hello, world! 12 ab", &ids, &n, err, sizeof err) == 0) {
                    char buf[64];
                    for (int i = 0; i < n; i++)
                        fuzz_sink ^= (uint8_t)run_detokenize(v, ids[i], buf, sizeof buf);
                }
                free(ids);
                run_vocab_free(v);
            }
            qmm_gguf_close(g);
        }
    }

    run_model m;
    char err[512];
    if (run_model_load(ctx, model, with_cache ? cache : NULL, 8, &m, err, sizeof err) == 0) {
        const int32_t ids[2] = {0, m.n_vocab - 1};
        if (run_model_eval(ctx, &m, ids, 2, err, sizeof err) == 0)
            fuzz_sink ^= (uint8_t)(m.logits[0] != m.logits[0]);
    }
    run_model_free(&m);
    unlink(model);
    unlink(cache);
    return 0;
}
