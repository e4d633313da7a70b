/* Kernel tables and chain selection. */
#include "registry/registry.h"

#include <string.h>

#include "kernels/ref/ref_kernels.h"

const qmm_kernel *const qmm_ref_kernels[] = {
    &qmm_kernel_ref_q4_0,
    &qmm_kernel_ref_q8_0,
    &qmm_kernel_ref_f32,
    &qmm_kernel_ref_f16,
    &qmm_kernel_ref_q4_1,
    &qmm_kernel_ref_q5_0,
    &qmm_kernel_ref_q5_1,
    &qmm_kernel_ref_q2_k,
    &qmm_kernel_ref_q3_k,
    &qmm_kernel_ref_q4_k,
    &qmm_kernel_ref_q5_k,
    &qmm_kernel_ref_q6_k,
    NULL,
};

/* SIMD tables first (each in priority order), the reference last. */
static const qmm_kernel *const *const all_tables[] = {qmm_x86_kernels, qmm_arm_kernels, qmm_ref_kernels};

int qmm_kernel_count(void) {
    int n = 0;
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_kernel *const *p = all_tables[t]; *p; p++)
            n++;
    return n;
}

const qmm_kernel *qmm_kernel_at(int i) {
    if (i < 0)
        return NULL;
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_kernel *const *p = all_tables[t]; *p; p++)
            if (i-- == 0)
                return *p;
    return NULL;
}

void qmm_kernels_foreach(qmm_kernel_visit_fn fn, void *user) {
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_kernel *const *p = all_tables[t]; *p; p++)
            fn(*p, user);
}

const qmm_kernel *qmm_kernel_find(const char *name) {
    if (!name)
        return NULL;
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_kernel *const *p = all_tables[t]; *p; p++)
            if (strcmp((*p)->name, name) == 0)
                return *p;
    return NULL;
}

const qmm_kernel *qmm_kernel_select(qmm_type wtype, uint64_t features) {
    for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++)
        for (const qmm_kernel *const *p = all_tables[t]; *p; p++)
            if ((*p)->wtype == wtype && ((*p)->required & ~features) == 0)
                return *p;
    return NULL;
}

const qmm_kernel *qmm_kernel_reference(qmm_type wtype) {
    for (const qmm_kernel *const *p = qmm_ref_kernels; *p; p++)
        if ((*p)->wtype == wtype)
            return *p;
    return NULL;
}

qmm_chain qmm_chain_select(qmm_type wtype, uint64_t features, const qmm_kernel *forced_primary) {
    qmm_chain c = {NULL, NULL};
    c.primary = forced_primary ? forced_primary : qmm_kernel_select(wtype, features);
    if (c.primary && c.primary->exclusive) {
        const qmm_kernel *fb = qmm_kernel_select(wtype, features & ~c.primary->exclusive);
        if (fb != c.primary)
            c.fallback = fb;
    }
    return c;
}
