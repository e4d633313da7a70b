/* Kernel tables and chain selection. */
#include "registry/registry.h"

#include <string.h>

#include "kernels/ref/ref_kernels.h"
#include "registry/dispatch.h"

const qmm_family *const qmm_ref_kernels[] = {
    &qmm_family_ref_q4_0,    &qmm_family_ref_q8_0,
    &qmm_family_ref_f32,     &qmm_family_ref_f16,
    &qmm_family_ref_q4_1,    &qmm_family_ref_q5_0,
    &qmm_family_ref_q5_1,    &qmm_family_ref_q2_k,
    &qmm_family_ref_q3_k,    &qmm_family_ref_q4_k,
    &qmm_family_ref_q5_k,    &qmm_family_ref_q6_k,
    &qmm_family_ref_iq4_nl,  &qmm_family_ref_iq4_xs,
    &qmm_family_ref_mxfp4,   &qmm_family_ref_bf16,
    &qmm_family_ref_iq1_s,   &qmm_family_ref_iq1_m,
    &qmm_family_ref_iq2_xxs, &qmm_family_ref_iq2_xs,
    &qmm_family_ref_iq2_s,   &qmm_family_ref_iq3_xxs,
    &qmm_family_ref_iq3_s,   &qmm_family_ref_tq1_0,
    &qmm_family_ref_tq2_0,   NULL,
};

/* SIMD tables first (each in priority order), the reference last. */
static const qmm_family *const *const all_tables[] = {qmm_x86_kernels, qmm_arm_kernels, qmm_ref_kernels};

int qmm_registry_count(void) {
    int n = 0;
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_family *const *p = all_tables[t]; *p; p++)
            n++;
    return n;
}

const qmm_family *qmm_registry_at(int i) {
    if (i < 0)
        return NULL;
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_family *const *p = all_tables[t]; *p; p++)
            if (i-- == 0)
                return *p;
    return NULL;
}

void qmm_kernels_foreach(qmm_registry_visit_fn fn, void *user) {
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_family *const *p = all_tables[t]; *p; p++)
            fn(*p, user);
}

const qmm_family *qmm_registry_find(const char *name) {
    if (!name)
        return NULL;
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_family *const *p = all_tables[t]; *p; p++)
            if (strcmp((*p)->name, name) == 0)
                return *p;
    return NULL;
}

const qmm_family *qmm_registry_select(qmm_type wtype, uint64_t features) {
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_family *const *p = all_tables[t]; *p; p++)
            if ((*p)->wtype == wtype && ((*p)->required & ~features) == 0)
                return *p;
    return NULL;
}

const qmm_family *qmm_registry_reference(qmm_type wtype) {
    for (const qmm_family *const *p = qmm_ref_kernels; *p; p++)
        if ((*p)->wtype == wtype)
            return *p;
    return NULL;
}

const qmm_fp_attention *qmm_registry_fp_attention(const qmm_family *kf) {
    static const qmm_fp_attention *const *const tables[] = {qmm_x86_fp_attention, qmm_arm_fp_attention};
    for (size_t t = 0; kf && t < sizeof(tables) / sizeof(tables[0]); t++)
        for (const qmm_fp_attention *const *p = tables[t]; *p; p++)
            if ((*p)->family == kf)
                return *p;
    return NULL;
}

qmm_chain qmm_chain_select(qmm_type wtype, uint64_t features, const qmm_family *forced_primary) {
    qmm_dispatch_tune_kernels(); /* the kernels' choices that selection by features cannot make */
    qmm_chain c = {NULL, NULL};
    c.primary = forced_primary ? forced_primary : qmm_registry_select(wtype, features);
    if (c.primary && c.primary->fallback_hides) {
        const qmm_family *fb = qmm_registry_select(wtype, features & ~c.primary->fallback_hides);
        if (fb != c.primary)
            c.fallback = fb;
    }
    return c;
}
