/* Kernel family enumeration (the registry as the public qmm_family_desc),
 * and the cache inspection calls the qmatmul command needs. */
#include <string.h>

#include "api/internal.h"
#include "base/error.h"
#include "io/cache.h"

static void fill(const qmm_kernel *kf, qmm_family_desc *out) {
    memset(out, 0, sizeof *out);
    out->name = kf->name;
    out->type = kf->wtype;
    out->required = kf->required;
    out->layout_id = kf->layout_id;
    out->mr = kf->mr;
    out->nr = kf->nr;
    out->kr = kf->kr;
    out->sr = kf->sr;
    out->n_step = kf->n_step;
    out->is_reference = qmm_kernel_reference(kf->wtype) == kf;
    out->runnable = (kf->required & ~qmm_cpu_detect()->features) == 0;
}

int qmm_family_count(void) { return qmm_kernel_count(); }

qmm_status qmm_family_info(int i, qmm_family_desc *out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_family_info: out is NULL");
    const qmm_kernel *kf = qmm_kernel_at(i);
    if (!kf)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_family_info: index %d out of range (%d families)", i, qmm_kernel_count());
    fill(kf, out);
    return QMM_OK;
}

static int index_of(const qmm_kernel *kf) {
    const int n = qmm_kernel_count();
    for (int i = 0; kf && i < n; i++)
        if (qmm_kernel_at(i) == kf)
            return i;
    return -1;
}

int qmm_family_find(const char *name) { return name ? index_of(qmm_kernel_find(name)) : -1; }

int qmm_family_reference(qmm_type type) { return index_of(qmm_kernel_reference(type)); }

int qmm_type_packable(qmm_type type) { return qmm_wtype_index(type) >= 0; }

/* ------------------------------------------------------- cache inspection */

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
        out->is_reference = qmm_kernel_reference(f->kf->wtype) == f->kf;
        out->runnable = (f->kf->required & ~qmm_cpu_detect()->features) == 0;
    }
    return QMM_OK;
}
