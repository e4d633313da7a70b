#include "packed/packed.h"

#include <string.h>

#include "base/bytes.h"
#include "base/crc32.h"
#include "base/error.h"

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

size_t qmm_blob_expert_stride(const qmm_family *kf, int64_t k, int64_t n) {
    return align_up(kf->w_packed_size(k, n), QMM_BLOB_ALIGN);
}

/* Shapes a blob may have: positive, k a whole number of blocks, at most 2^44
 * weights in all (so every size below fits 64 bits with room). */
static int shape_ok(int64_t blk, int64_t k, int64_t n, int64_t n_expert) {
    return k > 0 && n > 0 && n_expert > 0 && k % blk == 0 && k <= ((int64_t)1 << 40) && n <= ((int64_t)1 << 40) &&
           n_expert <= QMM_BLOB_MAX_EXPERTS && k <= ((int64_t)1 << 44) / n && k * n <= ((int64_t)1 << 44) / n_expert;
}

qmm_status qmm_blob_plan_make_experts(const qmm_dispatch *d, int pack_threads, qmm_type type, int64_t k, int64_t n,
                                      int64_t n_expert, qmm_blob_plan *plan) {
    memset(plan, 0, sizeof *plan);
    const int ti = qmm_wtype_index(type);
    if (ti < 0)
        return qmm_fail(QMM_ERR_UNSUPPORTED,
                        "weight type %s (%d) cannot be packed: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, "
                        "IQ4_NL, IQ4_XS, MXFP4, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, TQ1_0 and TQ2_0 can",
                        qmm_type_name(type) ? qmm_type_name(type) : "?", (int)type);
    const int64_t blk = qmm_type_block_elems(type);
    if (n_expert <= 0 || n_expert > QMM_BLOB_MAX_EXPERTS)
        return qmm_fail(QMM_ERR_INVALID_ARG, "experts weights: n_expert = %lld (1 to %lld)", (long long)n_expert,
                        (long long)QMM_BLOB_MAX_EXPERTS);
    if (k <= 0 || n <= 0 || k % blk != 0)
        return qmm_fail(QMM_ERR_INVALID_ARG, "weights of %lld x %lld: k and n must be positive and k a multiple of %lld",
                        (long long)n, (long long)k, (long long)blk);
    if (!shape_ok(blk, k, n, n_expert))
        return qmm_fail(QMM_ERR_INVALID_ARG, "weights of %lld x %lld x %lld experts are too large (2^44 weights at most)",
                        (long long)n, (long long)k, (long long)n_expert);
    const qmm_chain *ch = &d->chains[ti];
    plan->type = type;
    plan->k = k;
    plan->n = n;
    plan->n_expert = n_expert;
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
        /* one matrix: its packed size, as before experts existed */
        plan->expert_stride[i] = qmm_blob_expert_stride(plan->kf[i], k, n);
        plan->size[i] = n_expert == 1 ? plan->kf[i]->w_packed_size(k, n) : plan->expert_stride[i] * (size_t)n_expert;
        off += plan->size[i];
    }
    plan->total = align_up(off, QMM_BLOB_ALIGN);
    return QMM_OK;
}

qmm_status qmm_blob_plan_make(const qmm_dispatch *d, int pack_threads, qmm_type type, int64_t k, int64_t n, qmm_blob_plan *plan) {
    return qmm_blob_plan_make_experts(d, pack_threads, type, k, n, 1, plan);
}

void qmm_blob_write_header(const qmm_blob_plan *plan, void *dst) {
    uint8_t *h = dst;
    memset(h, 0, QMM_BLOB_HEADER);
    memcpy(h, QMM_BLOB_MAGIC, 4);
    qmm_put16(h + 4, plan->n_expert > 1 ? QMM_BLOB_VERSION_EXPERTS : QMM_BLOB_VERSION);
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
    if (plan->n_expert > 1)
        qmm_put64(h + 136, (uint64_t)plan->n_expert);
    qmm_put32(h + 128, qmm_crc32(0, h, QMM_BLOB_HEADER));
}

void qmm_blob_write(const qmm_blob_plan *plan, const void *src, size_t src_row_stride, void *dst) {
    uint8_t *h = dst;
    memset(h, 0, plan->total);
    for (int i = 0; i < plan->nslots; i++)
        for (int64_t e = 0; e < plan->n_expert; e++)
            plan->kf[i]->w_pack(plan->k, plan->n, 0, plan->n, (const uint8_t *)src + (size_t)e * (size_t)plan->n * src_row_stride,
                                src_row_stride, h + plan->offset[i] + (size_t)e * plan->expert_stride[i]);
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
    const unsigned version = qmm_get16(h + 4);
    if (version != QMM_BLOB_VERSION && version != QMM_BLOB_VERSION_EXPERTS)
        return qmm_fail(QMM_ERR_INCOMPATIBLE, "blob format version %u, this build reads %d and %d", version, QMM_BLOB_VERSION,
                        QMM_BLOB_VERSION_EXPERTS);
    if (qmm_get16(h + 6) != QMM_BLOB_HEADER)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob header size %u, expected %d", qmm_get16(h + 6), QMM_BLOB_HEADER);
    uint8_t tmp[QMM_BLOB_HEADER];
    memcpy(tmp, h, QMM_BLOB_HEADER);
    memset(tmp + 128, 0, 4);
    if (qmm_crc32(0, tmp, QMM_BLOB_HEADER) != qmm_get32(h + 128))
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob header checksum mismatch (corrupted header)");
    for (int i = 132; i < QMM_BLOB_HEADER; i++)
        if (h[i] && !(version == QMM_BLOB_VERSION_EXPERTS && i >= 136 && i < 144))
            return qmm_fail(QMM_ERR_BAD_BLOB, "blob header reserved byte %d is not zero", i);
    /* version 1 is one matrix; version 2 says how many experts it holds */
    const int64_t n_expert = version == QMM_BLOB_VERSION ? 1 : (int64_t)qmm_get64(h + 136);
    if (version == QMM_BLOB_VERSION_EXPERTS && (n_expert < 2 || n_expert > QMM_BLOB_MAX_EXPERTS))
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob of experts claims %lld experts (2 to %lld)", (long long)n_expert,
                        (long long)QMM_BLOB_MAX_EXPERTS);
    const uint32_t type = qmm_get32(h + 8);
    if (type >= QMM_TYPE_COUNT || qmm_wtype_index((qmm_type)type) < 0)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob weight type %u is not a packable type", type);
    const uint32_t nslots = qmm_get32(h + 12);
    if (nslots < 1 || nslots > QMM_MAX_SLOTS)
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob slot count %u, expected 1 or 2", nslots);
    const int64_t k = (int64_t)qmm_get64(h + 16), n = (int64_t)qmm_get64(h + 24);
    const int64_t blk = qmm_type_block_elems((qmm_type)type);
    if (!shape_ok(blk, k, n, n_expert))
        return qmm_fail(QMM_ERR_BAD_BLOB, "blob shape %lld x %lld x %lld experts is invalid for %s", (long long)n, (long long)k,
                        (long long)n_expert, qmm_type_name((qmm_type)type));
    w->type = (qmm_type)type;
    w->k = k;
    w->n = n;
    w->n_expert = n_expert;
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
        /* no overflow: shape_ok bounds the weights, and a packed image is
         * within a small factor of them */
        const uint64_t stride = qmm_blob_expert_stride(kf, k, n);
        const uint64_t expect = n_expert == 1 ? kf->w_packed_size(k, n) : stride * (uint64_t)n_expert;
        if (sz != expect)
            return qmm_fail(QMM_ERR_BAD_BLOB, "slot %u size %llu, '%s' packs %llu bytes for %lld x %lld x %lld experts", i,
                            (unsigned long long)sz, name, (unsigned long long)expect, (long long)n, (long long)k,
                            (long long)n_expert);
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
        w->expert_stride[i] = (size_t)stride;
    }
    return QMM_OK;
}
