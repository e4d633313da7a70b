/* Tensor descriptions and block conversion (qmm_quantize / qmm_dequantize). */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "base/error.h"
#include "exec/fpenv.h"
#include "formats/formats.h"

qmm_status qmm_tensor_init(qmm_tensor *t, qmm_type type, int n_dims, const int64_t *ne, void *data) {
    if (!t || (n_dims > 0 && !ne) || n_dims < 0 || n_dims > 4)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: bad arguments");
    const int64_t blk = qmm_type_block_elems(type);
    if (blk <= 0)
        return qmm_fail(QMM_ERR_UNSUPPORTED, "qmm_tensor_init: unknown type %d", (int)type);
    memset(t, 0, sizeof *t);
    t->type = type;
    for (int i = 0; i < 4; i++)
        t->ne[i] = i < n_dims ? ne[i] : 1;
    for (int i = 0; i < 4; i++)
        if (t->ne[i] <= 0)
            return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: ne[%d] = %lld", i, (long long)t->ne[i]);
    const size_t row = qmm_row_size(type, t->ne[0]);
    if (!row)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: ne[0] = %lld is not a multiple of the %s block",
                        (long long)t->ne[0], qmm_type_name(type));
    /* the whole tensor's bytes must be representable (no wrapped strides) */
    uint64_t bytes = row;
    for (int i = 1; i < 4; i++) {
        if ((uint64_t)t->ne[i] > (uint64_t)PTRDIFF_MAX / bytes)
            return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_tensor_init: a tensor of %lld x %lld x %lld x %lld overflows",
                            (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3]);
        bytes *= (uint64_t)t->ne[i];
    }
    t->nb[0] = qmm_type_block_bytes(type);
    t->nb[1] = row;
    t->nb[2] = t->nb[1] * (size_t)t->ne[1];
    t->nb[3] = t->nb[2] * (size_t)t->ne[2];
    t->data = data;
    return QMM_OK;
}

/* --------------------------------------------------------- quantization */

static qmm_status check_rows(qmm_type type, const void *src, const void *dst, int64_t nrows, int64_t k, int quantize,
                             const char *fn) {
    if (!src || !dst)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: NULL buffer", fn);
    if (!(quantize ? qmm_type_has_quantizer(type) : qmm_type_has_dequantizer(type)))
        return qmm_fail(QMM_ERR_UNSUPPORTED, "%s: type %s: %s", fn, qmm_type_name(type) ? qmm_type_name(type) : "?",
                        quantize ? "F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 are supported"
                                 : "F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, IQ1_S, IQ1_M, "
                                   "IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, TQ1_0 and TQ2_0 are supported");
    if (nrows < 0 || k <= 0 || k % qmm_type_block_elems(type) != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: %lld rows of %lld: k must be a positive multiple of %lld", fn, (long long)nrows,
                        (long long)k, (long long)qmm_type_block_elems(type));
    if ((uint64_t)nrows > (uint64_t)(SIZE_MAX / 8) / (uint64_t)k)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: size overflows", fn);
    return QMM_OK;
}

/* Row by row, in the library's floating-point environment (fp16 rounding,
 * the quantizers' divisions). A row at an address its C type cannot sit at
 * (a byte buffer, a GGUF file with general.alignment = 1) goes through an
 * aligned row buffer. */
static qmm_status convert_rows(qmm_type type, const void *src, void *dst, int64_t nrows, int64_t k, int quantize,
                               const char *fn) {
    qmm_status st = check_rows(type, src, dst, nrows, k, quantize, fn);
    if (st)
        return st;
    const size_t rb = qmm_row_size(type, k), fb = (size_t)k * sizeof(float);
    const size_t sb = quantize ? fb : rb, db = quantize ? rb : fb;
    const size_t sa = quantize ? 4 : qmm_type_align(type), da = quantize ? qmm_type_align(type) : 4;
    /* rows are whole blocks (or floats): all of a buffer's rows share its first row's alignment */
    const int bounce_src = (uintptr_t)src % sa != 0, bounce_dst = (uintptr_t)dst % da != 0;
    void *bs = NULL, *bd = NULL;
    if ((bounce_src && !(bs = malloc(sb))) || (bounce_dst && !(bd = malloc(db)))) {
        free(bs);
        return qmm_fail(QMM_ERR_NO_MEMORY, "%s: aligned row buffer", fn);
    }
    qmm_fpenv fe;
    qmm_fpenv_enter(&fe);
    for (int64_t r = 0; r < nrows; r++) {
        const char *s = (const char *)src + (size_t)r * sb;
        char *d = (char *)dst + (size_t)r * db;
        if (bs)
            s = memcpy(bs, s, sb);
        char *out = bd ? bd : d;
        if (quantize)
            qmm_quantize_row(type, (const float *)(const void *)s, out, k);
        else
            qmm_dequantize_row(type, s, (float *)(void *)out, k);
        if (bd)
            memcpy(d, bd, db);
    }
    qmm_fpenv_leave(&fe);
    free(bs);
    free(bd);
    return QMM_OK;
}

qmm_status qmm_quantize(qmm_type type, const float *src, void *dst, int64_t nrows, int64_t k) {
    return convert_rows(type, src, dst, nrows, k, 1, "qmm_quantize");
}

qmm_status qmm_dequantize(qmm_type type, const void *src, float *dst, int64_t nrows, int64_t k) {
    return convert_rows(type, src, dst, nrows, k, 0, "qmm_dequantize");
}
