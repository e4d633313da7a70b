#include "registry/dispatch.h"

#include <stddef.h>

const qmm_type qmm_packable_types[QMM_N_WTYPES] = {
    QMM_TYPE_F32,  QMM_TYPE_F16,  QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_Q4_1,   QMM_TYPE_Q5_0,   QMM_TYPE_Q5_1,  QMM_TYPE_Q2_K,
    QMM_TYPE_Q3_K, QMM_TYPE_Q4_K, QMM_TYPE_Q5_K, QMM_TYPE_Q6_K, QMM_TYPE_IQ4_NL, QMM_TYPE_IQ4_XS, QMM_TYPE_MXFP4, QMM_TYPE_BF16};

int qmm_wtype_index(qmm_type t) {
    for (int i = 0; i < QMM_N_WTYPES; i++)
        if (qmm_packable_types[i] == t)
            return i;
    return -1;
}

const qmm_chain *qmm_dispatch_chain(const qmm_dispatch *d, qmm_type t) {
    const int i = qmm_wtype_index(t);
    return i < 0 ? NULL : &d->chains[i];
}

int qmm_dispatch_cap(const qmm_dispatch *d, const qmm_family *kf) {
    if (!kf)
        return 0;
    if (kf->flags & QMM_FAMILY_CAPPED)
        return d->capped_threads;
    if (d->primary_cap > 0 && kf->fallback_hides)
        return d->primary_cap;
    return 0;
}
