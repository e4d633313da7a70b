/* Packed-weight cache files (.qmp): internal interface and file format.
 *
 * Layout (little-endian; every offset from the start of the file):
 *   0    char[8]   magic "QMMCACHE"
 *   8    u32       format version (3; versions 1 and 2, matrices only, are
 *                  read too)
 *   12   u32       header size (256)
 *   16   u64       file size
 *   24   u64       source hash (qmm_cache_gguf_hash of the source, or the caller's)
 *   32   char[32]  qmatmul version that wrote the file, NUL-padded
 *   64   u32       family count F (kernel families the blobs use)
 *   68   u32       tensor count T
 *   72   u64       string table size S
 *   80   u64       data offset D: the first blob, page aligned
 *   88   u32       page size D and large blobs are aligned to (4096)
 *   92   u32       CRC-32 of bytes [256, 256 + 64 F + 64 T + S): families, index, strings
 *   96   156 bytes reserved, zero
 *   252  u32       CRC-32 of the 256 header bytes with this field zero
 *   256  F family entries of 64 bytes:
 *          char name[24] (NUL-padded), u32 layout_id, u32 weight type, u64 required CPU
 *          features (QMM_CPU_* bits), i32 mr, nr, kr, sr, n_step, u32 reserved (0)
 *   ..   T tensor entries of 64 bytes, sorted by name (strcmp), blobs ascending:
 *          u64 name offset (in the string table), u32 name length, u32 type,
 *          i64 k, i64 n, u64 blob offset (>= D, aligned: see below), u64 blob size,
 *          u32 CRC-32 of the blob, u8 family of slot 0, u8 family of slot 1 (255:
 *          none; indices into the family table), u16 reserved (0), u64 n_expert
 *          (version 3: 0 for a matrix, else the experts count >= 2, the
 *          blob's own; versions 1 and 2: reserved, 0)
 *   ..   string table: the names, each followed by a NUL
 *   ..   zero padding to D
 *   D    the packed blobs (src/packed/packed.h format), zero padding between
 *        them; the file ends with the last blob.
 * Blob alignment: versions 2 and 3 require 64 bytes (what the blob's slots and
 * qmm_weights_from_blob need); the writer page-aligns blobs of 64 KiB and
 * more (QMM_CACHE_LARGE_BLOB) and packs smaller ones at 64 bytes, so a model
 * of many tiny tensors is not inflated to a page each. Version 1 required
 * every blob page aligned; a version 1 reader refuses a version 2 file as
 * another format version (not as a damaged one).
 * Opening reads the header and the index only (no blob is touched: a cold
 * open is one or two reads); qmm_cache_get validates a blob's own header.
 * Writing puts the header last, then syncs and renames: a partial file never
 * has a valid header under the final name. The temporary file is
 * "<out>.tmp.<pid>.<n>" in the destination's directory, flock()ed while it is
 * written; a later write to the same destination removes such files whose
 * lock it can take (left by killed writers). */
#ifndef QMM_CACHE_H
#define QMM_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "api/internal.h"
#include "qmatmul.h"
#include "qmatmul_cache.h"
#include "qmatmul_gguf.h"

#define QMM_CACHE_MAGIC        "QMMCACHE"
#define QMM_CACHE_VERSION      3 /* written: 3 added the experts count */
#define QMM_CACHE_VERSION_MIN  1 /* oldest read */
#define QMM_CACHE_HEADER       256
#define QMM_CACHE_ENTRY        64
#define QMM_CACHE_PAGE         4096
#define QMM_CACHE_BLOB_ALIGN   64
#define QMM_CACHE_LARGE_BLOB   65536 /* blobs of this size and more are page aligned */
#define QMM_CACHE_MAX_NAME     1023
#define QMM_CACHE_MAX_TENSORS  (1 << 20)
#define QMM_CACHE_MAX_FAMILIES 64

typedef struct qmm_cache_family {
    char name[25];
    uint32_t layout_id;
    qmm_type wtype;
    uint64_t required;
    int32_t mr, nr, kr, sr, n_step;
    const qmm_family *kf; /* this build's family of that name, or NULL */
} qmm_cache_family;

typedef struct qmm_cache_entry {
    const char *name; /* NUL-terminated, in the mapping */
    uint32_t name_len;
    qmm_type type;
    int64_t k, n, n_expert;
    uint64_t offset, size;
    uint32_t crc;
    int fam[2]; /* family table indices of slots 0 and 1 (-1: none) */
} qmm_cache_entry;

struct qmm_cache {
    const uint8_t *base;
    size_t size;
    void *map; /* munmap'ed at the last release, or NULL (memory image) */
    size_t map_size;
    void *copy; /* QMM_CACHE_COPY: the file read into memory, freed at the last release */
    size_t copy_size;
    uint32_t format;  /* format version of the file */
    atomic_long refs; /* the handle + one per live weights object */
    uint64_t source_hash;
    uint64_t data_offset;
    char version[33];
    int nfam;
    qmm_cache_family fam[QMM_CACHE_MAX_FAMILIES];
    int64_t count;
    qmm_cache_entry *e;
};

/* The types a cache holds (the packable ones), and shapes it accepts. */
static inline int qmm_cache_packable(uint32_t type) { return type < QMM_TYPE_COUNT && qmm_wtype_index((qmm_type)type) >= 0; }
static inline int qmm_cache_shape_ok(qmm_type type, int64_t k, int64_t n, int64_t n_expert) {
    const int64_t blk = qmm_type_block_elems(type);
    return blk > 0 && k > 0 && n > 0 && k % blk == 0 && k <= ((int64_t)1 << 40) && n <= ((int64_t)1 << 40) && n_expert > 0 &&
           n_expert <= QMM_BLOB_MAX_EXPERTS && (uint64_t)k * (uint64_t)n <= ((uint64_t)1 << 44) / (uint64_t)n_expert;
}

/* Opening modes for the internal open (the public flags, plus these). */
enum {
    /* Structure only: no CPU, build or kernel-preference checks (ctx may be
     * NULL). The tool's verify checks integrity first, compatibility after. */
    QMM_CACHE_STRUCTURE_ONLY = 1u << 16,
};

/* Validates a cache image in memory (not copied: it must outlive the cache
 * and every weights object from it). ctx may be NULL with STRUCTURE_ONLY. */
qmm_status qmm_cache_open_memory(const qmm_context *ctx, const void *data, size_t size, unsigned flags, uint64_t source_hash,
                                 qmm_cache **out);
/* The same for a file (mmap). */
qmm_status qmm_cache_open_path(const qmm_context *ctx, const char *path, unsigned flags, uint64_t source_hash, qmm_cache **out);
/* The compatibility checks open does (families in this build, layouts, CPU
 * features, kernel preference unless QMM_CACHE_ANY_KERNELS); no blob is read. */
qmm_status qmm_cache_check_compat(const qmm_context *ctx, const qmm_cache *c, unsigned flags);

const qmm_cache_entry *qmm_cache_entry_at(const qmm_cache *c, int64_t i);
/* The source hash of an open GGUF file (qmm_cache_gguf_hash). */
uint64_t qmm_gguf_source_hash(const qmm_gguf *g);
/* QMM_ERR_INCOMPATIBLE unless every entry of c is the tensor of its name in g
 * (type, k, n, experts). */
qmm_status qmm_cache_check_entries(const qmm_cache *c, const qmm_gguf *g, const char *gguf_path);
int qmm_cache_family_count(const qmm_cache *c);
const qmm_cache_family *qmm_cache_family_at(const qmm_cache *c, int i);
const char *qmm_cache_writer_version(const qmm_cache *c);
uint64_t qmm_cache_file_size(const qmm_cache *c);

/* A tensor to cache: a matrix (n_expert 1) or experts weights (n_expert
 * matrices one after the other, as qmm_experts_pack takes them). */
typedef struct qmm_cache_item {
    qmm_cache_tensor t;
    int64_t n_expert;
} qmm_cache_item;

/* qmm_cache_write_tensors, with the source file (never replaced) when the
 * tensors come from one (src, src_path may be NULL). */
qmm_status qmm_cache_write_file(qmm_context *ctx, const qmm_cache_item *items, int64_t count, uint64_t source_hash,
                                const char *out_path, const qmm_cache_write_options *opts, const struct stat *src,
                                const char *src_path);

#endif
