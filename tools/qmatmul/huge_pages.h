/* Buffers in huge pages where the OS grants them, for the command's large
 * data read row by row from far apart (the bench's cold rotations, run's KV
 * cache): qmm_mul_mat_f16's header says why. */
#ifndef QMM_TOOL_HUGE_PAGES_H
#define QMM_TOOL_HUGE_PAGES_H

#include <stddef.h>

/* bytes >= 2 MiB: 2 MiB aligned, rounded up to 2 MiB, madvise(MADV_HUGEPAGE)
 * (a hint); smaller: 64-byte aligned. free() releases it; NULL: out of memory. */
void *tool_alloc_huge(size_t bytes);

#endif
