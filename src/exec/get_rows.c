/* GET_ROWS: rows split statically, each read by its slot's w_read_row. */
#include "exec/exec_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* -------------------------------------------------------------- GET_ROWS */

void qmm_exec_get_rows(const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out, int ith, int nth) {
    const qmm_family *kf = w->kf[0];
    const int experts = w->n_expert > 1; /* ids [r, n_expert, b2]: row of expert i1 */
    const int64_t nr = ids->ne[0] * ids->ne[1] * ids->ne[2];
    const int64_t r0 = nr * ith / nth, r1 = nr * (ith + 1) / nth;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i0 = r % ids->ne[0], i1 = (r / ids->ne[0]) % ids->ne[1], i2 = r / (ids->ne[0] * ids->ne[1]);
        const int32_t id = *(const int32_t *)((const char *)ids->data + (size_t)i0 * ids->nb[0] + (size_t)i1 * ids->nb[1] +
                                              (size_t)i2 * ids->nb[2]);
        float *dst = (float *)((char *)out->data + (size_t)i0 * out->nb[1] + (size_t)i1 * out->nb[2] + (size_t)i2 * out->nb[3]);
        kf->w_read_row(w->data[0] + (experts ? (size_t)i1 * w->expert_stride[0] : 0), w->k, w->n, id, dst);
    }
}
