/* Kernel family enumeration: the registry as the public qmm_family_desc. */
#include <string.h>

#include "api/internal.h"
#include "base/error.h"

static void fill(const qmm_family *kf, qmm_family_desc *out) {
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
    out->is_reference = qmm_registry_reference(kf->wtype) == kf;
    out->runnable = (kf->required & ~qmm_cpu_detect()->features) == 0;
}

int qmm_family_count(void) { return qmm_registry_count(); }

qmm_status qmm_family_info(int i, qmm_family_desc *out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_family_info: out is NULL");
    const qmm_family *kf = qmm_registry_at(i);
    if (!kf)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_family_info: index %d out of range (%d families)", i, qmm_registry_count());
    fill(kf, out);
    return QMM_OK;
}

static int index_of(const qmm_family *kf) {
    const int n = qmm_registry_count();
    for (int i = 0; kf && i < n; i++)
        if (qmm_registry_at(i) == kf)
            return i;
    return -1;
}

int qmm_family_find(const char *name) { return name ? index_of(qmm_registry_find(name)) : -1; }

int qmm_family_reference(qmm_type type) { return index_of(qmm_registry_reference(type)); }

int qmm_type_packable(qmm_type type) { return qmm_wtype_index(type) >= 0; }
