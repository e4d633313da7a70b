/* Whether an open cache suits a context: every family it needs is in this
 * build with the same layout, runs on this CPU, and (unless the caller
 * accepts any) is the family the context would pick itself. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "io/cache.h"

static void feature_names(uint64_t bits, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < 64; i++) {
        if (!(bits >> i & 1))
            continue;
        const char *nm = qmm_cpu_feature_name(1ull << i);
        const int w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", nm ? nm : "?");
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
    }
}

qmm_status qmm_cache_check_compat(const qmm_context *ctx, const qmm_cache *c, unsigned flags) {
    for (int i = 0; i < c->nfam; i++) {
        const qmm_cache_family *fa = &c->fam[i];
        if (!fa->kf)
            return qmm_fail(QMM_ERR_INCOMPATIBLE,
                            "cache was packed by kernel family '%s' (qmatmul %s), which this build (%s) lacks", fa->name,
                            c->version, QMM_VERSION_STRING);
        if (fa->kf->layout_id != fa->layout_id || fa->kf->wtype != fa->wtype)
            return qmm_fail(QMM_ERR_INCOMPATIBLE, "cache has layout %u of '%s' (qmatmul %s), this build (%s) packs layout %u",
                            fa->layout_id, fa->name, c->version, QMM_VERSION_STRING, fa->kf->layout_id);
        const uint64_t missing = fa->kf->required & ~ctx->dispatch.features;
        if (missing) {
            char names[256];
            feature_names(missing, names, sizeof names);
            return qmm_fail(QMM_ERR_INCOMPATIBLE,
                            "cache was packed for kernel family '%s', which needs CPU features this CPU lacks: %s", fa->name,
                            names);
        }
    }
    if (!(flags & QMM_CACHE_ANY_KERNELS))
        for (int64_t i = 0; i < c->count; i++) {
            const qmm_cache_entry *e = &c->e[i];
            const qmm_family *want = ctx->dispatch.chains[qmm_wtype_index(e->type)].primary;
            if (c->fam[e->fam[0]].kf != want)
                return qmm_fail(QMM_ERR_INCOMPATIBLE,
                                "tensor '%s' was packed for '%s', this context selects '%s' for %s: repack "
                                "(or open with QMM_CACHE_ANY_KERNELS)",
                                e->name, c->fam[e->fam[0]].name, want->name, qmm_type_name(e->type));
        }
    return QMM_OK;
}
