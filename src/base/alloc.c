#include "base/alloc.h"

#include "base/error.h"

#include <stdlib.h>
#include <sys/mman.h>

void *qmm_alloc_big(size_t size) {
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    if (size >= huge) {
        const size_t rounded = (size + huge - 1) / huge * huge;
        if (rounded < size || posix_memalign(&p, huge, rounded) != 0) /* rounded < size: wrapped */
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, rounded, MADV_HUGEPAGE); /* a hint: fine if refused */
#endif
        return p;
    }
    if (posix_memalign(&p, 64, size ? size : 64) != 0)
        return NULL;
    return p;
}

qmm_status qmm_alloc_huge(size_t bytes, void **out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_alloc_huge: out is NULL");
    *out = qmm_alloc_big(bytes);
    return *out ? QMM_OK : qmm_fail(QMM_ERR_NO_MEMORY, "qmm_alloc_huge: %zu bytes", bytes);
}

void qmm_free_huge(void *p) { free(p); }

void qmm_free_big(void *p, size_t size) {
    (void)size;
    free(p);
}
