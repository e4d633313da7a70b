/* Memory for packed weights and scratch buffers. */
#ifndef QMM_BASE_ALLOC_H
#define QMM_BASE_ALLOC_H

#include <stddef.h>

/* 64-byte aligned; buffers of 2 MiB or more on 2 MiB boundaries with
 * transparent huge pages requested (decode streams every weight byte: fewer
 * TLB misses). NULL when out of memory. Free with qmm_free_big. */
void *qmm_alloc_big(size_t size);
void qmm_free_big(void *p, size_t size);

#endif
