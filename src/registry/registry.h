/* Kernel tables, selection by feature mask, and chains (primary + fallback).
 *
 * Adding a family = one descriptor (its own file) + one row in its ISA's
 * table (src/registry/<isa>_table.c). The portable reference families
 * are always last, so every supported type always has a kernel. */
#ifndef QMM_REGISTRY_H
#define QMM_REGISTRY_H

#include <stdint.h>

#include "kernels/family.h"
#include "kernels/fp_attention.h"

/* Per-ISA tables, priority order, NULL-terminated. The table of an ISA the
 * build does not target is empty. */
extern const qmm_family *const qmm_x86_kernels[];
extern const qmm_family *const qmm_arm_kernels[];
extern const qmm_family *const qmm_ref_kernels[];
/* The F16 attention path's extras (kernels/fp_attention.h) per ISA,
 * NULL-terminated, in no particular order. */
extern const qmm_fp_attention *const qmm_x86_fp_attention[];
extern const qmm_fp_attention *const qmm_arm_fp_attention[];

/* Calls fn for every family the build has, in priority order. */
typedef void (*qmm_registry_visit_fn)(const qmm_family *kf, void *user);
void qmm_kernels_foreach(qmm_registry_visit_fn fn, void *user);
int qmm_registry_count(void);
const qmm_family *qmm_registry_at(int i);

const qmm_family *qmm_registry_find(const char *name);
/* First family for wtype whose required features are all in `features`. */
const qmm_family *qmm_registry_select(qmm_type wtype, uint64_t features);
/* The reference family for wtype, or NULL if the type is not supported. */
const qmm_family *qmm_registry_reference(qmm_type wtype);

/* The attention extras of family kf, or NULL when it has none. */
const qmm_fp_attention *qmm_registry_fp_attention(const qmm_family *kf);

/* A chain: primary, and a fallback of the same type selected with the
 * primary's fallback_hides features masked off (NULL if none or the same). */
typedef struct qmm_chain {
    const qmm_family *primary;
    const qmm_family *fallback;
} qmm_chain;

qmm_chain qmm_chain_select(qmm_type wtype, uint64_t features, const qmm_family *forced_primary);

#endif
