/* tool_alloc_huge: see huge_pages.h. */
#include "huge_pages.h"

#include <stdlib.h>
#include <sys/mman.h>

void *tool_alloc_huge(size_t bytes) {
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    if (bytes < huge)
        return posix_memalign(&p, 64, bytes ? (bytes + 63) / 64 * 64 : 64) == 0 ? p : NULL;
    const size_t rounded = (bytes + huge - 1) / huge * huge;
    if (rounded < bytes || posix_memalign(&p, huge, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}
