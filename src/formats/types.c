/* Type names and block geometry (ggml's numbering). */
#include <stddef.h>

#include "qmatmul.h"

static const struct {
    const char *name;
    int64_t blck;
    size_t bytes;
} type_info[QMM_TYPE_COUNT] = {
    [QMM_TYPE_F32] = {"F32", 1, 4},
    [QMM_TYPE_F16] = {"F16", 1, 2},
    [QMM_TYPE_Q4_0] = {"Q4_0", 32, 18},
    [QMM_TYPE_Q4_1] = {"Q4_1", 32, 20},
    [QMM_TYPE_Q5_0] = {"Q5_0", 32, 22},
    [QMM_TYPE_Q5_1] = {"Q5_1", 32, 24},
    [QMM_TYPE_Q8_0] = {"Q8_0", 32, 34},
    [QMM_TYPE_Q8_1] = {"Q8_1", 32, 36},
    [QMM_TYPE_Q2_K] = {"Q2_K", 256, 84},
    [QMM_TYPE_Q3_K] = {"Q3_K", 256, 110},
    [QMM_TYPE_Q4_K] = {"Q4_K", 256, 144},
    [QMM_TYPE_Q5_K] = {"Q5_K", 256, 176},
    [QMM_TYPE_Q6_K] = {"Q6_K", 256, 210},
    [QMM_TYPE_Q8_K] = {"Q8_K", 256, 292},
    [QMM_TYPE_IQ2_XXS] = {"IQ2_XXS", 256, 66},
    [QMM_TYPE_IQ2_XS] = {"IQ2_XS", 256, 74},
    [QMM_TYPE_IQ3_XXS] = {"IQ3_XXS", 256, 98},
    [QMM_TYPE_IQ1_S] = {"IQ1_S", 256, 50},
    [QMM_TYPE_IQ4_NL] = {"IQ4_NL", 32, 18},
    [QMM_TYPE_IQ3_S] = {"IQ3_S", 256, 110},
    [QMM_TYPE_IQ2_S] = {"IQ2_S", 256, 82},
    [QMM_TYPE_IQ4_XS] = {"IQ4_XS", 256, 136},
    [QMM_TYPE_I8] = {"I8", 1, 1},
    [QMM_TYPE_I16] = {"I16", 1, 2},
    [QMM_TYPE_I32] = {"I32", 1, 4},
    [QMM_TYPE_I64] = {"I64", 1, 8},
    [QMM_TYPE_F64] = {"F64", 1, 8},
    [QMM_TYPE_IQ1_M] = {"IQ1_M", 256, 56},
    [QMM_TYPE_BF16] = {"BF16", 1, 2},
    [QMM_TYPE_TQ1_0] = {"TQ1_0", 256, 54},
    [QMM_TYPE_TQ2_0] = {"TQ2_0", 256, 66},
    [QMM_TYPE_MXFP4] = {"MXFP4", 32, 17},
};

const char *qmm_type_name(qmm_type t) {
    if ((unsigned)t >= QMM_TYPE_COUNT)
        return NULL;
    return type_info[t].name;
}

int64_t qmm_type_block_elems(qmm_type t) {
    if ((unsigned)t >= QMM_TYPE_COUNT || !type_info[t].name)
        return 0;
    return type_info[t].blck;
}

size_t qmm_type_block_bytes(qmm_type t) {
    if ((unsigned)t >= QMM_TYPE_COUNT || !type_info[t].name)
        return 0;
    return type_info[t].bytes;
}

size_t qmm_type_align(qmm_type t) {
    /* F32 / I32 elements; every other block's widest field is an fp16 or a
     * uint16 (formats.h), so 2 covers the one-byte MXFP4 block too */
    return t == QMM_TYPE_F32 || t == QMM_TYPE_I32 ? 4 : 2;
}

size_t qmm_row_size(qmm_type t, int64_t k) {
    const int64_t b = qmm_type_block_elems(t);
    if (b <= 0 || k <= 0 || k % b != 0)
        return 0;
    const uint64_t blocks = (uint64_t)(k / b);
    if (blocks > SIZE_MAX / type_info[t].bytes)
        return 0;
    return (size_t)blocks * type_info[t].bytes;
}
