/* Cache inspection for tools that report on any cache file (qmatmul verify):
 * the structure-only open, the compatibility check alone, the families a
 * file records. */
#include <string.h>

#include "base/error.h"
#include "io/cache.h"

qmm_status qmm_cache_open_structure(const char *path, qmm_cache **out) {
    return qmm_cache_open_path(NULL, path, QMM_CACHE_STRUCTURE_ONLY, 0, out);
}

qmm_status qmm_cache_compatible(const qmm_context *ctx, const qmm_cache *cache, unsigned flags) {
    if (!ctx || !cache)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_compatible: NULL argument");
    if (flags & ~(unsigned)(QMM_CACHE_VERIFY | QMM_CACHE_ANY_KERNELS | QMM_CACHE_POPULATE))
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_compatible: unknown flags 0x%x", flags);
    return qmm_cache_check_compat(ctx, cache, flags);
}

qmm_status qmm_cache_family_info(const qmm_cache *cache, int i, qmm_family_desc *out) {
    if (!cache || !out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_family_info: NULL argument");
    const qmm_cache_family *f = qmm_cache_family_at(cache, i);
    if (!f)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cache_family_info: index %d out of range (%d families)", i,
                        qmm_cache_family_count(cache));
    memset(out, 0, sizeof *out);
    out->name = f->name;
    out->type = f->wtype;
    out->required = f->required;
    out->layout_id = f->layout_id;
    out->mr = f->mr;
    out->nr = f->nr;
    out->kr = f->kr;
    out->sr = f->sr;
    out->n_step = f->n_step;
    if (f->kf) {
        out->is_reference = qmm_registry_reference(f->kf->wtype) == f->kf;
        out->runnable = (f->kf->required & ~qmm_cpu_detect()->features) == 0;
    }
    return QMM_OK;
}
