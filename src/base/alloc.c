#include "base/alloc.h"

#include <stdlib.h>
#include <sys/mman.h>

void *qmm_alloc_big(size_t size) {
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    if (size >= huge) {
        const size_t rounded = (size + huge - 1) / huge * huge;
        if (posix_memalign(&p, huge, rounded) != 0)
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

void qmm_free_big(void *p, size_t size) {
    (void)size;
    free(p);
}
