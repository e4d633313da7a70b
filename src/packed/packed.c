#include "packed/packed.h"

#include <string.h>

#include "base/bytes.h"
#include "base/crc32.h"
#include "base/error.h"

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

qmm_status qmm_blob_plan_make(const qmm_dispatch *d, int pack_threads, qmm_type type, int64_t k, int64_t n, qmm_blob_plan *plan) {
    memset(plan, 0, sizeof *plan);
    const int ti = qmm_wtype_index(type);
    if (ti < 0)
        return qmm_fail(QMM_ERR_UNSUPPORTED,
                        "weight type %s (%d) cannot be packed: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, "
                        "IQ4_NL, IQ4_XS and MXFP4 can",
                        qmm_type_name(type) ? qmm_type_name(type) : "?", (int)type);
    const int64_t blk = qmm_type_block_elems(type);
    if (k <= 0 || n <= 0 || k % blk != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "weights of %lld x %lld: k and n must be positive and k a multiple of %lld",
                        (long long)n, (long long)k, (long long)blk);
    if (k > ((int64_t)1 << 40) || n > ((int64_t)1 << 40) || k > ((int64_t)1 << 44) / n)
        return qmm_fail(QMM_ERR_INVALID_ARG, "weights of %lld x %lld are too large", (long long)n, (long long)k);
    const qmm_chain *ch = &d->chains[ti];
    plan->type = type;
    plan->k = k;
    plan->n = n;
    plan->kf[0] = ch->primary;
    plan->nslots = 1;
    /* A fallback slot only when the threads can exceed the primary's cap. */
    const int cap = qmm_dispatch_cap(d, ch->primary);
    if (ch->fallback && cap > 0 && pack_threads > cap) {
        plan->kf[1] = ch->fallback;
        plan->nslots = 2;
    }
    size_t off = QMM_BLOB_HEADER;
    for (int i = 0; i < plan->nslots; i++) {
        off = align_up(off, QMM_BLOB_ALIGN);
        plan->offset[i] = off;
        plan->size[i] = plan->kf[i]->w_packed_size(k, n);
        off += plan->size[i];
    }
    plan->total = align_up(off, QMM_BLOB_ALIGN);
    return QMM_OK;
}

void qmm_blob_write_header(const qmm_blob_plan *plan, void *dst) {
    uint8_t *h = dst;
    memset(h, 0, QMM_BLOB_HEADER);
    memcpy(h, QMM_BLOB_MAGIC, 4);
    qmm_put16(h + 4, QMM_BLOB_VERSION);
    qmm_put16(h + 6, QMM_BLOB_HEADER);
    qmm_put32(h + 8, (uint32_t)plan->type);
    qmm_put32(h + 12, (uint32_t)plan->nslots);
    qmm_put64(h + 16, (uint64_t)plan->k);
    qmm_put64(h + 24, (uint64_t)plan->n);
    for (int i = 0; i < plan->nslots; i++) {
        uint8_t *s = h + 32 + 48 * i;
        memcpy(s, plan->kf[i]->name, strnlen(plan->kf[i]->name, QMM_BLOB_NAME - 1));
        qmm_put32(s + 24, plan->kf[i]->layout_id);
        qmm_put64(s + 32, plan->offset[i]);
        qmm_put64(s + 40, plan->size[i]);
    }
    qmm_put32(h + 128, qmm_crc32(0, h, QMM_BLOB_HEADER));
}

void qmm_blob_write(const qmm_blob_plan *plan, const void *src, size_t src_row_stride, void *dst) {
    uint8_t *h = dst;
    memset(h, 0, plan->total);
    for (int i = 0; i < plan->nslots; i++)
        plan->kf[i]->w_pack(plan->k, plan->n, 0, plan->n, src, src_row_stride, h + plan->offset[i]);
    qmm_blob_write_header(plan, dst);
}

qmm_status qmm_blob_validate(const qmm_dispatch *d, const void *blob, size_t size, qmm_weights *w) {
    const uint8_t *h = blob;
    memset(w, 0, sizeof *w);
    if (!blob)
        return qmm_fail(QMM_ERR_INVALID_ARG, "blob is NULL");
    if (size < QMM_BLOB_HEADER)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob of %zu bytes is shorter than its %d-byte header", size, QMM_BLOB_HEADER);
    if (memcmp(h, QMM_BLOB_MAGIC, 4) != 0)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob magic is not \"%s\"", QMM_BLOB_MAGIC);
    if (qmm_get16(h + 4) != QMM_BLOB_VERSION)
        return qmm_fail(QMM_ERR_INCOMPATIBLE, "blob format version %u, this build reads %d", qmm_get16(h + 4), QMM_BLOB_VERSION);
    if (qmm_get16(h + 6) != QMM_BLOB_HEADER)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob header size %u, expected %d", qmm_get16(h + 6), QMM_BLOB_HEADER);
    uint8_t tmp[QMM_BLOB_HEADER];
    memcpy(tmp, h, QMM_BLOB_HEADER);
    memset(tmp + 128, 0, 4);
    if (qmm_crc32(0, tmp, QMM_BLOB_HEADER) != qmm_get32(h + 128))
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob header checksum mismatch (corrupted header)");
    for (int i = 132; i < QMM_BLOB_HEADER; i++)
        if (h[i])
            return qmm_fail(QMM_ERR_BAD_BLOB, "blob header reserved byte %d is not zero", i);
    const uint32_t type = qmm_get32(h + 8);
    if (type >= QMM_TYPE_COUNT || qmm_wtype_index((qmm_type)type) < 0)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob weight type %u is not a packable type", type);
    const uint32_t nslots = qmm_get32(h + 12);
    if (nslots < 1 || nslots > QMM_MAX_SLOTS)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob slot count %u, expected 1 or 2", nslots);
    const int64_t k = (int64_t)qmm_get64(h + 16), n = (int64_t)qmm_get64(h + 24);
    const int64_t blk = qmm_type_block_elems((qmm_type)type);
    if (k <= 0 || n <= 0 || k % blk != 0 || k > ((int64_t)1 << 40) || n > ((int64_t)1 << 40) || k > ((int64_t)1 << 44) / n)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob shape %lld x %lld is invalid for %s", (long long)n, (long long)k,
                        qmm_type_name((qmm_type)type));
    w->type = (qmm_type)type;
    w->k = k;
    w->n = n;
    w->blob = blob;
    w->size = size;
    w->nslots = (int)nslots;
    for (uint32_t i = 0; i < QMM_MAX_SLOTS; i++) {
        const uint8_t *s = h + 32 + 48 * i;
        if (i >= nslots) {
            for (int j = 0; j < 48; j++)
                if (s[j])
                    return qmm_fail(QMM_ERR_BAD_BLOB, "unused slot %u of the blob header is not zero", i);
            continue;
        }
        char name[QMM_BLOB_NAME + 1];
        memcpy(name, s, QMM_BLOB_NAME);
        name[QMM_BLOB_NAME] = 0;
        const size_t len = strlen(name);
        if (len == 0 || len >= QMM_BLOB_NAME)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u kernel name is empty or unterminated", i);
        for (size_t j = len; j < QMM_BLOB_NAME; j++)
            if (s[j])
                return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u kernel name has bytes after its end", i);
        if (qmm_get32(s + 28) != 0)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u reserved field is not zero", i);
        const qmm_family *kf = qmm_registry_find(name);
        if (!kf)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "slot %u was packed by kernel family '%s', which this build lacks", i, name);
        if (kf->wtype != (qmm_type)type)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u kernel '%s' does not multiply %s weights", i, name,
                            qmm_type_name((qmm_type)type));
        if (qmm_get32(s + 24) != kf->layout_id)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "slot %u layout %u of '%s', this build packs layout %u", i, qmm_get32(s + 24),
                            name, kf->layout_id);
        if (d && (kf->required & ~d->features))
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "slot %u kernel '%s' needs CPU features this CPU lacks", i, name);
        const uint64_t off = qmm_get64(s + 32), sz = qmm_get64(s + 40);
        const uint64_t expect = kf->w_packed_size(k, n);
        if (sz != expect)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u size %llu, '%s' packs %llu bytes for %lld x %lld", i,
                            (unsigned long long)sz, name, (unsigned long long)expect, (long long)n, (long long)k);
        if (off % QMM_BLOB_ALIGN != 0 || off < QMM_BLOB_HEADER)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u offset %llu is not a 64-byte aligned offset past the header", i,
                            (unsigned long long)off);
        if (off > size || sz > size - off)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u [%llu, +%llu) runs past the blob's %zu bytes (truncated?)", i,
                            (unsigned long long)off, (unsigned long long)sz, size);
        if (i == 1) {
            const uint64_t off0 = qmm_get64(h + 32 + 32), sz0 = qmm_get64(h + 32 + 40);
            if (off < off0 + sz0 && off0 < off + sz)
                return qmm_fail(QMM_ERR_BAD_BLOB, "slots 0 and 1 overlap");
            if (kf == w->kf[0])
                return qmm_fail(QMM_ERR_BAD_BLOB, "both slots name kernel '%s'", name);
        }
        w->kf[i] = kf;
        w->data[i] = h + off;
    }
    return QMM_OK;
}
