/* GET_ROWS: rows split statically. One way reads a row of every family: its
 * w_unpack_row writes the row's GGUF bytes into the tail of the output row,
 * and the reference's dequantizer turns them into floats in place, so no
 * family has a dequantizer of its own. */
#include "exec/exec_internal.h"

#include "formats/formats.h"

int qmm_exec_rows_readable(const qmm_family *kf) {
    return kf->w_unpack_row && (kf->wtype == QMM_TYPE_F32 || qmm_type_dequantizes_in_place(kf->wtype));
}

int qmm_exec_read_row(const qmm_family *kf, const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const size_t rb = qmm_row_size(kf->wtype, k);
    if (!qmm_exec_rows_readable(kf) || !rb)
        return -1;
    kf->w_unpack_row(packed, k, n, row, (char *)dst + (size_t)k * sizeof(float) - rb);
    /* F32: the unpacked bytes are the row's values. */
    return kf->wtype == QMM_TYPE_F32 ? 0 : qmm_dequantize_row_tail(kf->wtype, dst, k);
}

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
        /* Cannot fail: get_rows_job admits only weights whose rows read (qmm_exec_rows_readable). */
        (void)qmm_exec_read_row(kf, w->data[0] + (experts ? (size_t)i1 * w->expert_stride[0] : 0), w->k, w->n, id, dst);
    }
}
