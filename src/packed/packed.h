/* The self-describing packed-weight blob.
 *
 * Layout (little-endian), docs/formats.md has the table:
 *   0   char[4]  magic "QMMP"
 *   4   u16      format version (1)
 *   6   u16      header size (192)
 *   8   u32      weight type (qmm_type)
 *   12  u32      slot count (1 or 2)
 *   16  i64      k
 *   24  i64      n
 *   32  2 x slot { char kernel[24]; u32 layout_id; u32 reserved; u64 offset; u64 size; }
 *   128 u32      CRC-32 of the 192 header bytes with this field zero
 *   132 60 bytes reserved, zero
 *   192 slots, each at a 64-byte aligned offset
 * Every field is validated against the blob's size before any use. */
#ifndef QMM_PACKED_H
#define QMM_PACKED_H

#include "api/internal.h"
#include "base/crc32.h"

#define QMM_BLOB_MAGIC   "QMMP"
#define QMM_BLOB_VERSION 1
#define QMM_BLOB_HEADER  192
#define QMM_BLOB_ALIGN   64
#define QMM_BLOB_NAME    24

typedef struct qmm_blob_plan {
    qmm_type type;
    int64_t k, n;
    int nslots;
    const qmm_kernel *kf[QMM_MAX_SLOTS];
    size_t offset[QMM_MAX_SLOTS], size[QMM_MAX_SLOTS];
    size_t total;
} qmm_blob_plan;

/* The slots this context writes for a type; QMM_OK or an error status. */
qmm_status qmm_blob_plan_make(const qmm_context *ctx, qmm_type type, int64_t k, int64_t n, qmm_blob_plan *plan);
/* Writes the header alone (the slots packed already). */
void qmm_blob_write_header(const qmm_blob_plan *plan, void *dst);
/* Zeroes, packs every slot (src: n rows, GGUF layout), writes the header. */
void qmm_blob_write(const qmm_blob_plan *plan, const void *src, size_t src_row_stride, void *dst);
/* Validates blob and fills w (pointers into the blob). ctx may be NULL to
 * skip the CPU-feature check. */
qmm_status qmm_blob_validate(const qmm_context *ctx, const void *blob, size_t size, qmm_weights *w);

#endif
