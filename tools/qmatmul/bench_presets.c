/* qmatmul bench: the model presets (shapes of one transformer layer) and the
 * weight types a preset can run. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "bench_internal.h"

static const bench_preset presets[] = {
    {"llama-3.2-1b", "Llama-3.2-1B", 2048, 8192, 32, 8, 64, 16},
    {"llama-3-8b", "Llama-3-8B", 4096, 14336, 32, 8, 128, 32},
    {"qwen2.5-7b", "Qwen2.5-7B", 3584, 18944, 28, 4, 128, 28},
};
#define N_PRESETS ((int)(sizeof presets / sizeof presets[0]))

const bench_preset *bench_preset_default(void) { return &presets[1]; }

const bench_preset *bench_preset_find(const char *name) {
    for (int p = 0; p < N_PRESETS; p++)
        if (!strcasecmp(name, presets[p].name))
            return &presets[p];
    return NULL;
}

int bench_parse_type(const char *s, qmm_type *t) {
    for (int i = 0; i < QMM_TYPE_COUNT; i++) /* every packable type, by its name */
        if (qmm_type_packable((qmm_type)i) && qmm_type_name((qmm_type)i) && strcasecmp(s, qmm_type_name((qmm_type)i)) == 0) {
            *t = (qmm_type)i;
            return 1;
        }
    return 0;
}

bench_matrix *bench_preset_matrices(const bench_preset *pr, qmm_type type, int *n) {
    const int64_t q = pr->heads * pr->head_dim, kv = pr->kv_heads * pr->head_dim;
    const struct {
        const char *name;
        int64_t k, n;
    } defs[7] = {{"q", pr->hidden, q},          {"k", pr->hidden, kv},       {"v", pr->hidden, kv},        {"o", q, pr->hidden},
                 {"gate", pr->hidden, pr->ffn}, {"up", pr->hidden, pr->ffn}, {"down", pr->ffn, pr->hidden}};
    bench_matrix *mats = calloc(7, sizeof *mats);
    if (!mats)
        return NULL;
    for (int j = 0; j < 7; j++) {
        snprintf(mats[j].name, sizeof mats[j].name, "%s", defs[j].name);
        mats[j].k = defs[j].k;
        mats[j].n = defs[j].n;
        mats[j].count = 1;
        mats[j].type = type;
        mats[j].row_bytes = qmm_row_size(type, defs[j].k);
    }
    *n = 7;
    return mats;
}
