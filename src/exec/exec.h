/* The operations, built on one per-thread compute entry point each: every
 * thread derives the same plan from the arguments, packs its share of the
 * activations, meets the others at a barrier, then takes column chunks from
 * the shared counter. Arguments are validated by the api layer. */
#ifndef QMM_EXEC_H
#define QMM_EXEC_H

#include "packed/packed.h"
#include "qmatmul.h"
#include "registry/dispatch.h"

/* What the operations need of a context: its dispatch (families and caps)
 * and the chunking. */
typedef struct qmm_exec_config {
    const qmm_dispatch *dispatch;
    int chunk_multiplier; /* column chunks per thread (1 on NUMA machines: a chunk per thread keeps its memory local) */
} qmm_exec_config;

size_t qmm_exec_mul_mat_work_size(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, int nth);
void qmm_exec_mul_mat(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                      int nth, void *work, const qmm_sync *sync);

/* MUL_MAT_ID (x [k, 1 or U, T], ids [U, T], y [n, U, T]): the work size
 * depends on the shapes only. */
size_t qmm_exec_mul_mat_id_work_size(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                     int nth);
void qmm_exec_mul_mat_id(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                         const qmm_tensor *y, int ith, int nth, void *work, const qmm_sync *sync);

/* GET_ROWS; of experts weights, ids [r, n_expert, b2] (row of expert i1). */
void qmm_exec_get_rows(const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out, int ith, int nth);
/* Packed row `row` of family kf's n x k weights as floats, ggml's values
 * exactly, into dst[k]: the family's w_unpack_row into the tail of dst, then
 * the reference's dequantizer in place. 0, or -1 (dst undefined) when the
 * family's rows cannot be read so (qmm_exec_rows_readable). */
int qmm_exec_read_row(const qmm_family *kf, const void *packed, int64_t k, int64_t n, int64_t row, float *dst);
int qmm_exec_rows_readable(const qmm_family *kf);

size_t qmm_exec_mul_mat_f16_work_size(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, int nth);
void qmm_exec_mul_mat_f16(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                          int nth, void *work, const qmm_sync *sync);

/* Chunk geometry, exposed for tests: columns per chunk for n columns, nth
 * threads, multiplier mult, a common step. */
int64_t qmm_chunk_cols(int64_t n, int nth, int mult, int64_t step);

#endif
