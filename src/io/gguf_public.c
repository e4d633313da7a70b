/* Typed metadata lookup of the public GGUF reader (include/qmatmul_gguf.h):
 * status-returning forms of find-key-then-decode, with messages. */
#include <inttypes.h>

#include "base/error.h"
#include "io/gguf.h"

static qmm_status lookup(const qmm_gguf *g, const char *key, const void *out, const char *fn, const qmm_gguf_value **v) {
    if (!g || !key || !out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: NULL argument", fn);
    *v = qmm_gguf_get(g, key);
    if (!*v)
        return qmm_fail(QMM_ERR_INVALID_ARG, "%s: no key '%s'", fn, key);
    return QMM_OK;
}

static qmm_status wrong_kind(const char *fn, const char *key, const qmm_gguf_value *v, const char *wanted) {
    return qmm_fail(QMM_ERR_UNSUPPORTED, "%s: key '%s' is a %s, not %s", fn, key, qmm_gguf_vtype_name(v->type), wanted);
}

qmm_status qmm_gguf_get_string(const qmm_gguf *g, const char *key, const char **s, uint64_t *len) {
    const qmm_gguf_value *v;
    qmm_status st = lookup(g, key, s, "qmm_gguf_get_string", &v);
    if (st != QMM_OK)
        return st;
    if (!len)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_gguf_get_string: NULL argument");
    return qmm_gguf_value_str(v, s, len) ? QMM_OK : wrong_kind("qmm_gguf_get_string", key, v, "a string");
}

qmm_status qmm_gguf_get_int(const qmm_gguf *g, const char *key, int64_t *out) {
    const qmm_gguf_value *v;
    qmm_status st = lookup(g, key, out, "qmm_gguf_get_int", &v);
    if (st != QMM_OK)
        return st;
    if (qmm_gguf_value_i64(v, out))
        return QMM_OK;
    uint64_t u;
    if (qmm_gguf_value_u64(v, &u)) /* an integer, but above INT64_MAX */
        return qmm_fail(QMM_ERR_UNSUPPORTED, "qmm_gguf_get_int: key '%s' = %" PRIu64 " does not fit in int64", key, u);
    return wrong_kind("qmm_gguf_get_int", key, v, "an integer");
}

qmm_status qmm_gguf_get_float(const qmm_gguf *g, const char *key, double *out) {
    const qmm_gguf_value *v;
    qmm_status st = lookup(g, key, out, "qmm_gguf_get_float", &v);
    if (st != QMM_OK)
        return st;
    return qmm_gguf_value_f64(v, out) ? QMM_OK : wrong_kind("qmm_gguf_get_float", key, v, "a number");
}

qmm_status qmm_gguf_get_array(const qmm_gguf *g, const char *key, qmm_gguf_value *out) {
    const qmm_gguf_value *v;
    qmm_status st = lookup(g, key, out, "qmm_gguf_get_array", &v);
    if (st != QMM_OK)
        return st;
    if (v->type != QMM_GGUF_ARRAY)
        return wrong_kind("qmm_gguf_get_array", key, v, "an array");
    *out = *v;
    return QMM_OK;
}
