/* The self-describing packed-weight blob.
 *
 * Layout (little-endian), docs/formats.md has the table:
 *   0   char[4]  magic "QMMP"
 *   4   u16      format version (1; 2 for experts weights)
 *   6   u16      header size (192)
 *   8   u32      weight type (qmm_type)
 *   12  u32      slot count (1 or 2)
 *   16  i64      k
 *   24  i64      n
 *   32  2 x slot { char kernel[24]; u32 layout_id; u32 reserved; u64 offset; u64 size; }
 *   128 u32      CRC-32 of the 192 header bytes with this field zero
 *   132 u32      reserved, zero
 *   136 u64      version 2: the expert count E (>= 2); version 1: zero (one matrix)
 *   144 48 bytes reserved, zero
 *   192 slots, each at a 64-byte aligned offset; a slot of experts weights
 *       holds E images of the 2-D packing, expert e at e * the 64-aligned
 *       image size, so every expert runs the very kernels a matrix does
 * Every field is validated against the blob's size before any use. */
#ifndef QMM_PACKED_H
#define QMM_PACKED_H

#include "base/crc32.h"
#include "registry/dispatch.h"

#define QMM_BLOB_MAGIC           "QMMP"
#define QMM_BLOB_VERSION         1 /* one matrix: the format of every blob before experts */
#define QMM_BLOB_VERSION_EXPERTS 2
#define QMM_BLOB_MAX_EXPERTS     ((int64_t)1 << 20)
#define QMM_BLOB_HEADER          192
#define QMM_BLOB_ALIGN           64
#define QMM_BLOB_NAME            24

/* A blob holds one slot per family of its chain that runs it: the primary,
 * and the fallback when a capped primary leaves threads to it. */
#define QMM_MAX_SLOTS 2

/* Packed weights: a validated blob and, per slot, its family and data. */
struct qmm_weights {
    qmm_type type;
    int64_t k, n;
    /* Experts weights: n_expert matrices of n x k; expert e of slot s at
     * data[s] + e * expert_stride[s]. 1 for a matrix (and a view). */
    int64_t n_expert;
    size_t expert_stride[QMM_MAX_SLOTS];
    int is_view; /* qmm_weights_expert: borrows another's blob */
    const uint8_t *blob;
    size_t size;
    void *owned; /* freed with the weights, or NULL if adopted */
    size_t owned_size;
    int nslots;
    const qmm_family *kf[QMM_MAX_SLOTS];
    const uint8_t *data[QMM_MAX_SLOTS];
    /* Called by qmm_weights_free when the blob belongs to another object
     * (a cache file mapping): drops the reference the weights hold. */
    void (*release)(void *owner);
    void *owner;
};

typedef struct qmm_blob_plan {
    qmm_type type;
    int64_t k, n, n_expert;
    size_t expert_stride[QMM_MAX_SLOTS];
    int nslots;
    const qmm_family *kf[QMM_MAX_SLOTS];
    size_t offset[QMM_MAX_SLOTS], size[QMM_MAX_SLOTS];
    size_t total;
} qmm_blob_plan;

/* The slots a blob of this type gets under d, for weights that pack_threads
 * threads will use (a fallback slot only when they exceed the primary's
 * cap); QMM_OK or an error status. */
qmm_status qmm_blob_plan_make(const qmm_dispatch *d, int pack_threads, qmm_type type, int64_t k, int64_t n, qmm_blob_plan *plan);
/* The same for n_expert matrices of n x k (n_expert 1: the plan above). */
qmm_status qmm_blob_plan_make_experts(const qmm_dispatch *d, int pack_threads, qmm_type type, int64_t k, int64_t n,
                                      int64_t n_expert, qmm_blob_plan *plan);
/* Bytes of one expert's image in a slot of family kf: the 2-D packed size,
 * 64-byte aligned. */
size_t qmm_blob_expert_stride(const qmm_family *kf, int64_t k, int64_t n);
/* Writes the header alone (the slots packed already). */
void qmm_blob_write_header(const qmm_blob_plan *plan, void *dst);
/* Zeroes, packs every slot (src: n rows, GGUF layout; experts: n_expert
 * such matrices one after the other), writes the header. */
void qmm_blob_write(const qmm_blob_plan *plan, const void *src, size_t src_row_stride, void *dst);
/* Validates blob and fills w (pointers into the blob). d may be NULL to
 * skip the CPU-feature check. */
qmm_status qmm_blob_validate(const qmm_dispatch *d, const void *blob, size_t size, qmm_weights *w);

#endif
