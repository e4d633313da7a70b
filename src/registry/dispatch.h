/* The dispatch description: what a context chose, in the small form the
 * layers between the registry and the API (packed, exec, io) work from, so
 * that none of them needs the context itself.
 *
 * Per packable weight type a chain (primary family + fallback), and the cap
 * policy: how many threads may run a capped family (SME units are shared and
 * few) and, for hybrid testing, a cap on every primary that has a fallback. */
#ifndef QMM_DISPATCH_H
#define QMM_DISPATCH_H

#include <stdint.h>

#include "registry/registry.h"

/* The packable weight types, in the order of qmm_dispatch.chains: the one
 * list of them (qmm_type_packable, the blob and cache checks, the context's
 * chains all read it). */
#define QMM_N_WTYPES 25
extern const qmm_type qmm_packable_types[QMM_N_WTYPES];

/* Index of a packable weight type in qmm_packable_types, or -1. */
int qmm_wtype_index(qmm_type t);

typedef struct qmm_dispatch {
    uint64_t features; /* the CPU's, less hidden ones: what selection saw */
    qmm_chain chains[QMM_N_WTYPES];
    int capped_threads; /* threads that may run a QMM_FAMILY_CAPPED family (SME units); 0: none do */
    int primary_cap;    /* >0: also cap every chain primary that has a fallback (QMM_CAP) */
} qmm_dispatch;

/* The chain of a packable type, or NULL. */
const qmm_chain *qmm_dispatch_chain(const qmm_dispatch *d, qmm_type t);
/* Thread cap of family kf under d, 0 = uncapped. */
int qmm_dispatch_cap(const qmm_dispatch *d, const qmm_family *kf);

/* The kernels' choices by micro-architecture rather than by feature (the x86
 * vendor), decided here from the CPU detected and handed to the kernels that
 * take them (avx2_fp_widen.h). Idempotent: every selection
 * (qmm_chain_select) runs it. */
void qmm_dispatch_tune_kernels(void);

#endif
