/* What qmatmul's peers (qmm_mul_mat.c, qmm_mul_mat_id.c) share: a type by its
 * name in the list files, as ggml_peer.h's peer_parse_type is for ggml's side.
 * Header only; include qmatmul.h first. */
#ifndef QMM_PEER_QMM_H
#define QMM_PEER_QMM_H

#include <strings.h>

#include "qmatmul.h"

/* 1 and *t if s names a type (any case: "q4_k" or "Q4_K"), else 0. */
static inline int peer_parse_type(const char *s, qmm_type *t) {
    for (int i = 0; i < QMM_TYPE_COUNT; i++) {
        const char *name = qmm_type_name((qmm_type)i);
        if (name && strcasecmp(s, name) == 0) {
            *t = (qmm_type)i;
            return 1;
        }
    }
    return 0;
}

#endif
