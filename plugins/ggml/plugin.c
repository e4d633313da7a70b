/* libggml-qmatmul.so: qmatmul as a ggml back end.
 *
 * One device, "QMM", of kind ACCEL. Its buffer type packs each weight for
 * qmatmul's kernels when it is written (set_tensor) into a buffer marked for
 * weights, in place: the tensor's allocation is the packed blob. Its back
 * end computes MUL_MAT, MUL_MAT_ID and GET_ROWS from those weights with
 * qmatmul's pool; every other op stays on ggml's CPU back end. get_tensor
 * on a packed weight gives the GGUF bytes back (qmm_weights_unpack).
 * README.md ("Use it from llama.cpp / ggml") says how engines load it. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include <dlfcn.h>
#include <stdatomic.h>

#include "ggml_abi.h"
#include "qmatmul.h"

#define QGG_EXPORT       __attribute__((visibility("default")))
#define QGG_GGML_VERSION "0.25.3"
#define QGG_ALIGNMENT    64
#define PACKED_MAGIC     0x514d4d57u /* "QMMW" */

static struct qgg_host host;
static int host_uses_openmp;  /* the host's ggml computes on an OpenMP team: QMM joins it */
static qmm_context *pack_ctx; /* packs and unpacks the weights (all cores) */

/* Op numbers, found by name at registration (they differ between ggml
 * versions). */
static struct { int none, mul_mat, mul_mat_id, get_rows, reshape, view, permute, transpose; } ops;

static void plugin_log(int level, const char *fmt, ...) {
    char msg[512];
    int len = snprintf(msg, sizeof msg, "qmatmul: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + len, sizeof msg - (size_t)len - 1, fmt, ap);
    va_end(ap);
    strcat(msg, "\n");
    qgg_log_callback cb = NULL;
    void *user = NULL;
    if (host.log_get)
        host.log_get(&cb, &user);
    if (cb)
        cb(level, msg, user);
    else
        fputs(msg, stderr);
}

/* ---------------------------------------------------------- weight shapes */

/* A tensor qmatmul packs: a packable type, [k, n] or [k, n, n_expert],
 * rows contiguous and one after the other (GGUF's layout). */
static int weight_shape(const struct qgg_tensor *t, int64_t *k, int64_t *n, int64_t *n_expert) {
    if (t->type < 0 || t->type >= QMM_TYPE_COUNT || !qmm_type_packable((qmm_type)t->type))
        return 0;
    const qmm_type type = (qmm_type)t->type;
    if (t->ne[0] <= 0 || t->ne[1] <= 0 || t->ne[2] <= 0 || t->ne[3] != 1 || t->ne[0] % qmm_type_block_elems(type) != 0)
        return 0;
    const size_t rb = qmm_row_size(type, t->ne[0]);
    if (t->nb[0] != qmm_type_block_bytes(type) || t->nb[1] != rb || t->nb[2] != rb * (size_t)t->ne[1])
        return 0;
    *k = t->ne[0];
    *n = t->ne[1];
    *n_expert = t->ne[2];
    return 1;
}

static size_t packed_bytes(const struct qgg_tensor *t) {
    int64_t k, n, e;
    size_t size = 0;
    if (!weight_shape(t, &k, &n, &e) || qmm_experts_packed_size(pack_ctx, (qmm_type)t->type, k, n, e, &size) != QMM_OK)
        return 0;
    return size;
}

/* ------------------------------------------------------------ the buffer */

/* A weight packed in place; the tensor's `extra` points here. Records live
 * as long as their buffer (a cleared buffer keeps them, emptied), so a
 * tensor's `extra` never dangles while its buffer exists. */
struct packed_weight {
    uint32_t magic;
    qmm_weights *w; /* NULL once the buffer was cleared or reset */
    void *data;     /* where the blob is: the tensor's data when packed */
    struct packed_weight *next;
};

struct buffer_ctx {
    void *base;
    size_t size;
    pthread_mutex_t lock;
    struct packed_weight *packed;
};

static struct qgg_buffer_type buffer_type;

static struct packed_weight *packed_of(const struct qgg_tensor *t) {
    if (!t->buffer || t->buffer->buft != &buffer_type || !t->extra)
        return NULL;
    struct packed_weight *pw = t->extra;
    return (pw->magic == PACKED_MAGIC && pw->w && pw->data == t->data) ? pw : NULL;
}

/* Packs the GGUF bytes src of weight t into t's own allocation. */
static int pack_weight(struct qgg_buffer *buf, struct qgg_tensor *t, const void *src, size_t src_size) {
    struct buffer_ctx *bc = buf->context;
    int64_t k, n, e;
    weight_shape(t, &k, &n, &e);
    const size_t need = packed_bytes(t);
    struct packed_weight *pw = calloc(1, sizeof *pw);
    qmm_weights *w = NULL;
    qmm_status st =
        pw ? qmm_experts_pack_into(pack_ctx, (qmm_type)t->type, k, n, e, src, src_size, t->data, need) : QMM_ERR_NO_MEMORY;
    if (st == QMM_OK)
        st = qmm_weights_from_blob(pack_ctx, t->data, need, &w);
    if (st != QMM_OK) {
        plugin_log(QGG_LOG_ERROR, "weight %s could not be packed (%s): it is kept as written and packed at each use", t->name,
                   qmm_last_error());
        free(pw);
        memcpy(t->data, src, src_size);
        return -1;
    }
    pw->magic = PACKED_MAGIC;
    pw->w = w;
    pw->data = t->data;
    pthread_mutex_lock(&bc->lock);
    pw->next = bc->packed;
    bc->packed = pw;
    pthread_mutex_unlock(&bc->lock);
    t->extra = pw;
    return 0;
}

/* The GGUF bytes of a packed weight, whole (malloc'd), or NULL. */
static uint8_t *unpack_all(const struct qgg_tensor *t, const struct packed_weight *pw, size_t *size) {
    *size = host.nbytes(t);
    uint8_t *raw = malloc(*size ? *size : 1);
    const int64_t rows = qmm_weights_n(pw->w) * qmm_weights_n_expert(pw->w);
    if (raw && qmm_weights_unpack(pw->w, 0, rows, raw, *size) == QMM_OK)
        return raw;
    plugin_log(QGG_LOG_ERROR, "weight %s could not be unpacked (%s)", t->name, raw ? qmm_last_error() : "out of memory");
    free(raw);
    return NULL;
}

static void drop_packed(struct packed_weight *pw) {
    qmm_weights_free(pw->w);
    pw->w = NULL;
}

static void buffer_free(struct qgg_buffer *buf) {
    struct buffer_ctx *bc = buf->context;
    for (struct packed_weight *pw = bc->packed, *next; pw; pw = next) {
        next = pw->next;
        qmm_weights_free(pw->w);
        free(pw);
    }
    qmm_free_huge(bc->base);
    pthread_mutex_destroy(&bc->lock);
    free(bc);
}

static void *buffer_base(struct qgg_buffer *buf) { return ((struct buffer_ctx *)buf->context)->base; }

static int buffer_init_tensor(struct qgg_buffer *buf, struct qgg_tensor *t) {
    (void)buf;
    (void)t;
    return QGG_STATUS_SUCCESS;
}

/* A write into a packed weight: unpack, change, pack again. */
static void rewrite_packed(struct qgg_buffer *buf, struct qgg_tensor *t, struct packed_weight *pw, const void *data, int value,
                           size_t offset, size_t size) {
    size_t total;
    uint8_t *raw = unpack_all(t, pw, &total);
    if (!raw)
        return;
    if (data)
        memcpy(raw + offset, data, size);
    else
        memset(raw + offset, value, size);
    drop_packed(pw);
    t->extra = NULL;
    pack_weight(buf, t, raw, total);
    free(raw);
}

static void buffer_set_tensor(struct qgg_buffer *buf, struct qgg_tensor *t, const void *data, size_t offset, size_t size) {
    struct packed_weight *pw = packed_of(t);
    if (pw) {
        rewrite_packed(buf, t, pw, data, 0, offset, size);
        return;
    }
    int64_t k, n, e;
    /* Only a buffer marked for weights is packed: in any other buffer a
     * packable F32 tensor may as well be an activation. A partial write is
     * kept as written (packed at each use). */
    if (buf->usage == QGG_USAGE_WEIGHTS && t->op == ops.none && !t->view_src && weight_shape(t, &k, &n, &e) && offset == 0 &&
        size == host.nbytes(t)) {
        pack_weight(buf, t, data, size);
        return;
    }
    memcpy((char *)t->data + offset, data, size);
}

static void buffer_get_tensor(struct qgg_buffer *buf, const struct qgg_tensor *t, void *data, size_t offset, size_t size) {
    (void)buf;
    const struct packed_weight *pw = packed_of(t);
    if (!pw) {
        memcpy(data, (const char *)t->data + offset, size);
        return;
    }
    const size_t rb = qmm_row_size((qmm_type)t->type, t->ne[0]);
    const int64_t r0 = (int64_t)(offset / rb), r1 = (int64_t)((offset + size + rb - 1) / rb);
    uint8_t *rows = malloc((size_t)(r1 - r0) * rb);
    if (!rows || qmm_weights_unpack(pw->w, r0, r1 - r0, rows, (size_t)(r1 - r0) * rb) != QMM_OK) {
        plugin_log(QGG_LOG_ERROR, "weight %s could not be unpacked (%s)", t->name, rows ? qmm_last_error() : "out of memory");
        memset(data, 0, size);
    } else {
        memcpy(data, rows + (offset - (size_t)r0 * rb), size);
    }
    free(rows);
}

static void buffer_memset_tensor(struct qgg_buffer *buf, struct qgg_tensor *t, uint8_t value, size_t offset, size_t size) {
    struct packed_weight *pw = packed_of(t);
    if (pw)
        rewrite_packed(buf, t, pw, NULL, value, offset, size);
    else
        memset((char *)t->data + offset, value, size);
}

static void buffer_clear_packed(struct buffer_ctx *bc) {
    pthread_mutex_lock(&bc->lock);
    for (struct packed_weight *pw = bc->packed; pw; pw = pw->next)
        drop_packed(pw);
    pthread_mutex_unlock(&bc->lock);
}

static void buffer_clear(struct qgg_buffer *buf, uint8_t value) {
    struct buffer_ctx *bc = buf->context;
    buffer_clear_packed(bc);
    memset(bc->base, value, bc->size);
}

static void buffer_reset(struct qgg_buffer *buf) { buffer_clear_packed(buf->context); }

static const struct qgg_buffer_ops buffer_ops = {
    .free = buffer_free,
    .base = buffer_base,
    .init_tensor = buffer_init_tensor,
    .memset_tensor = buffer_memset_tensor,
    .set_tensor = buffer_set_tensor,
    .get_tensor = buffer_get_tensor,
    .clear = buffer_clear,
    .reset = buffer_reset,
};

/* ------------------------------------------------------- the buffer type */

static const char *buft_name(struct qgg_buffer_type *buft) {
    (void)buft;
    return "QMM";
}

static struct qgg_buffer *buft_alloc(struct qgg_buffer_type *buft, size_t size) {
    struct buffer_ctx *bc = calloc(1, sizeof *bc);
    if (!bc || qmm_alloc_huge(size, &bc->base) != QMM_OK) {
        plugin_log(QGG_LOG_ERROR, "a buffer of %zu bytes could not be allocated", size);
        free(bc);
        return NULL;
    }
    bc->size = size;
    pthread_mutex_init(&bc->lock, NULL);
    struct qgg_buffer *buf = host.buffer_init(buft, buffer_ops, bc, size);
    if (!buf) {
        qmm_free_huge(bc->base);
        pthread_mutex_destroy(&bc->lock);
        free(bc);
    }
    return buf;
}

static size_t buft_alignment(struct qgg_buffer_type *buft) {
    (void)buft;
    return QGG_ALIGNMENT;
}

/* A weight's allocation holds its packed blob (header and panel padding:
 * a few percent at most); anything else is ggml's size. */
static size_t buft_alloc_size(struct qgg_buffer_type *buft, const struct qgg_tensor *t) {
    (void)buft;
    const size_t nbytes = host.nbytes(t);
    if (t->op != ops.none || t->view_src)
        return nbytes;
    const size_t packed = packed_bytes(t);
    return packed > nbytes ? packed : nbytes;
}

/* Not host memory as ggml means it: packed weights are not in ggml's layout,
 * so nothing may read them in place (llama.cpp's loader writes a host
 * buffer's tensors directly; ours go through set_tensor). */
static bool buft_is_host(struct qgg_buffer_type *buft) {
    (void)buft;
    return false;
}

/* ------------------------------------------------------------ the backend */

/* Threads: in a host whose ggml computes with OpenMP (llama-cpp-python's),
 * QMM runs on that same OpenMP team through qmatmul's bring-your-own-pool
 * entries. Its threads spin between ggml's parallel regions; a pool of our
 * own beside them fights them for the cores at every switch between the CPU
 * and QMM back ends (measured: decode 17x slower on 2 cores). Elsewhere,
 * qmatmul's own pool. */
struct backend_ctx {
    qmm_context *ctx;
    int n_threads;
    int use_omp;
    void *work; /* the bring-your-own-pool scratch (64-byte aligned) */
    size_t work_size;
};

static const uint8_t backend_guid[16] = {0x71, 0x6d, 0x6d, 0x2d, 0x67, 0x67, 0x6d, 0x6c,
                                         0x2d, 0x70, 0x6c, 0x75, 0x67, 0x69, 0x6e, 0x01};

static const char *backend_name(struct qgg_backend *be) {
    (void)be;
    return "QMM";
}

static void backend_free(struct qgg_backend *be) {
    struct backend_ctx *bc = be->context;
    qmm_context_free(bc->ctx);
    free(bc->work);
    free(bc);
    free(be);
}

static qmm_context *make_context(int n_threads) {
    qmm_options opt = {0};
    opt.n_threads = n_threads;
    qmm_context *ctx = NULL;
    if (qmm_context_create(&opt, &ctx) != QMM_OK) {
        plugin_log(QGG_LOG_ERROR, "no qmatmul context with %d threads: %s", n_threads, qmm_last_error());
        return NULL;
    }
    return ctx;
}

/* ggml_backend_set_n_threads, found by engines through the registry. */
static void backend_set_n_threads(struct qgg_backend *be, int n_threads) {
    struct backend_ctx *bc = be->context;
    if (n_threads <= 0 || n_threads == bc->n_threads)
        return;
    if (bc->use_omp) { /* the team is OpenMP's; the context keeps one thread */
        bc->n_threads = n_threads;
        return;
    }
    qmm_context *ctx = make_context(n_threads);
    if (!ctx)
        return;
    qmm_context_free(bc->ctx);
    bc->ctx = ctx;
    bc->n_threads = n_threads;
}

static void to_qmm_tensor(const struct qgg_tensor *t, qmm_tensor *out) {
    memset(out, 0, sizeof *out);
    out->type = (qmm_type)t->type;
    for (int d = 0; d < 4; d++) {
        out->ne[d] = t->ne[d];
        out->nb[d] = t->nb[d];
    }
    out->data = t->data;
}

/* The packed weights of src: its own, or (a weight written into a buffer
 * not marked for weights, as ggml's test-backend-ops does) packed now into
 * *tmp, which the caller frees. */
static qmm_status weights_of(qmm_context *ctx, const struct qgg_tensor *src, const qmm_weights **w, qmm_weights **tmp) {
    *tmp = NULL;
    const struct packed_weight *pw = packed_of(src);
    if (pw) {
        *w = pw->w;
        return QMM_OK;
    }
    int64_t k, n, e;
    if (!weight_shape(src, &k, &n, &e))
        return QMM_ERR_UNSUPPORTED;
    qmm_status st = qmm_experts_pack(ctx, (qmm_type)src->type, k, n, e, src->data, host.nbytes(src), tmp);
    *w = *tmp;
    return st;
}

/* One node's operation and operands. */
struct node_args {
    qmm_context *ctx;
    int op;
    const qmm_weights *w;
    qmm_tensor a, b, y;
};

static qmm_status work_size_of(const struct node_args *na, int nth, size_t *size) {
    if (na->op == ops.mul_mat)
        return qmm_mul_mat_work_size(na->ctx, na->w, &na->a, &na->y, nth, size);
    if (na->op == ops.mul_mat_id)
        return qmm_mul_mat_id_work_size(na->ctx, na->w, &na->a, &na->b, &na->y, nth, size);
    return qmm_get_rows_work_size(na->ctx, na->w, &na->a, &na->y, nth, size);
}

static qmm_status compute_part(const struct node_args *na, int ith, int nth, void *work, size_t size, const qmm_sync *sync) {
    if (na->op == ops.mul_mat)
        return qmm_mul_mat_compute(na->ctx, na->w, &na->a, &na->y, ith, nth, work, size, sync);
    if (na->op == ops.mul_mat_id)
        return qmm_mul_mat_id_compute(na->ctx, na->w, &na->a, &na->b, &na->y, ith, nth, work, size, sync);
    return qmm_get_rows_compute(na->ctx, na->w, &na->a, &na->y, ith, nth, work, size, sync);
}

/* The host's OpenMP runtime (libgomp), when the process has one: its
 * compiler interface, looked up, never linked (linking it would load one
 * into hosts that have none). */
static struct {
    void (*parallel)(void (*fn)(void *), void *data, unsigned n_threads, unsigned flags);
    void (*barrier)(void);
    int (*thread_num)(void);
    int (*num_threads)(void);
    int (*max_threads)(void);
} gomp;

static int find_gomp(void) {
    void *h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    const struct {
        const char *name;
        void **fn;
    } want[] = {{"GOMP_parallel", (void **)&gomp.parallel},
                {"GOMP_barrier", (void **)&gomp.barrier},
                {"omp_get_thread_num", (void **)&gomp.thread_num},
                {"omp_get_num_threads", (void **)&gomp.num_threads},
                {"omp_get_max_threads", (void **)&gomp.max_threads}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!(*want[i].fn = dlsym(h, want[i].name)))
            return 0; /* the handle stays: the runtime outlives us either way */
    return 1;
}

struct omp_call {
    struct backend_ctx *bc;
    const struct node_args *na;
    qmm_status st;
    _Atomic int64_t counter; /* the call's own: two back ends may compute at once */
};

/* The OpenMP team as qmatmul's qmm_sync: its barrier and the call's counter. */
static void omp_sync_barrier(void *user) {
    (void)user;
    gomp.barrier();
}
static void omp_sync_store(void *user, int64_t v) { atomic_store(&((struct omp_call *)user)->counter, v); }
static int64_t omp_sync_fetch_add(void *user, int64_t d) { return atomic_fetch_add(&((struct omp_call *)user)->counter, d); }

/* Run by every thread of the team. */
static void omp_call_body(void *arg) {
    struct omp_call *c = arg;
    const int ith = gomp.thread_num(), nth = gomp.num_threads();
    const qmm_sync sync = {
        .user = c, .barrier = omp_sync_barrier, .counter_store = omp_sync_store, .counter_fetch_add = omp_sync_fetch_add};
    if (ith == 0) {
        /* the team may be smaller than asked: size the scratch for the team */
        size_t need = 0;
        c->st = work_size_of(c->na, nth, &need);
        if (c->st == QMM_OK && need > c->bc->work_size) {
            free(c->bc->work);
            c->bc->work = aligned_alloc(64, (need + 63) / 64 * 64);
            c->bc->work_size = c->bc->work ? need : 0;
            if (!c->bc->work)
                c->st = QMM_ERR_NO_MEMORY;
        }
    }
    gomp.barrier(); /* every thread sees the scratch and the status */
    if (c->st != QMM_OK)
        return;
    const qmm_status mine = compute_part(c->na, ith, nth, c->bc->work, c->bc->work_size, &sync);
    gomp.barrier(); /* every thread has read c->st before thread 0 writes it */
    if (ith == 0)
        c->st = mine; /* every thread returns the same status */
}

static qmm_status compute_node_omp(struct backend_ctx *bc, const struct node_args *na) {
    struct omp_call c = {bc, na, QMM_OK, 0};
    gomp.parallel(omp_call_body, &c, (unsigned)bc->n_threads, 0);
    return c.st;
}

static qmm_status compute_node(struct backend_ctx *bc, struct qgg_tensor *node) {
    qmm_context *ctx = bc->ctx;
    const qmm_weights *w = NULL;
    qmm_weights *tmp = NULL;
    qmm_status st = weights_of(ctx, node->src[0], &w, &tmp);
    if (st != QMM_OK)
        return st;
    struct node_args na = {ctx, node->op, w, {0}, {0}, {0}};
    to_qmm_tensor(node->src[1], &na.a);
    to_qmm_tensor(node, &na.y);
    if (node->op == ops.mul_mat_id)
        to_qmm_tensor(node->src[2], &na.b);
    if (bc->use_omp) {
        st = compute_node_omp(bc, &na);
    } else if (node->op == ops.mul_mat) {
        st = qmm_mul_mat(ctx, w, &na.a, &na.y);
    } else if (node->op == ops.mul_mat_id) {
        st = qmm_mul_mat_id(ctx, w, &na.a, &na.b, &na.y);
    } else {
        st = qmm_get_rows(ctx, w, &na.a, &na.y);
    }
    qmm_weights_free(tmp);
    return st;
}

static int backend_graph_compute(struct qgg_backend *be, struct qgg_graph *graph) {
    struct backend_ctx *bc = be->context;
    const int n = host.graph_n_nodes(graph);
    for (int i = 0; i < n; i++) {
        struct qgg_tensor *node = host.graph_node(graph, i);
        const int op = node->op;
        if (op == ops.none || op == ops.reshape || op == ops.view || op == ops.permute || op == ops.transpose)
            continue; /* no data moves */
        if (op != ops.mul_mat && op != ops.mul_mat_id && op != ops.get_rows) {
            plugin_log(QGG_LOG_ERROR, "node %s: op %s is not one of QMM's", node->name, host.op_name(op));
            return QGG_STATUS_FAILED;
        }
        if (!bc->ctx) {
            plugin_log(QGG_LOG_ERROR, "node %s: no qmatmul context", node->name);
            return QGG_STATUS_FAILED;
        }
        qmm_status st = compute_node(bc, node);
        if (st != QMM_OK) {
            plugin_log(QGG_LOG_ERROR, "node %s (%s): %s", node->name, host.op_name(op), qmm_last_error());
            return QGG_STATUS_FAILED;
        }
    }
    return QGG_STATUS_SUCCESS;
}

/* ------------------------------------------------------------- the device */

static struct qgg_device device;
static struct qgg_registry registry;
static char device_description[128];

static const char *device_name(struct qgg_device *dev) {
    (void)dev;
    return "QMM";
}

static const char *device_describe(struct qgg_device *dev) {
    (void)dev;
    return device_description;
}

static void device_memory(struct qgg_device *dev, size_t *free_bytes, size_t *total_bytes) {
    (void)dev;
    struct sysinfo si;
    if (sysinfo(&si) != 0) {
        *free_bytes = *total_bytes = 0;
        return;
    }
    *free_bytes = (size_t)si.freeram * si.mem_unit;
    *total_bytes = (size_t)si.totalram * si.mem_unit;
}

static int device_kind(struct qgg_device *dev) {
    (void)dev;
    return QGG_DEVICE_ACCEL;
}

static void device_props(struct qgg_device *dev, struct qgg_device_props *out) {
    memset(out, 0, sizeof *out);
    out->name = device_name(dev);
    out->description = device_describe(dev);
    device_memory(dev, &out->memory_free, &out->memory_total);
    out->kind = QGG_DEVICE_ACCEL;
}

static struct qgg_backend *device_init_backend(struct qgg_device *dev, const char *params) {
    (void)params;
    struct qgg_backend *be = calloc(1, sizeof *be);
    struct backend_ctx *bc = calloc(1, sizeof *bc);
    if (be && bc) {
        bc->use_omp = host_uses_openmp;
        bc->ctx = make_context(bc->use_omp ? 1 : 0);
    }
    if (!be || !bc || !bc->ctx) {
        free(be);
        free(bc);
        return NULL;
    }
    bc->n_threads = bc->use_omp ? gomp.max_threads() : qmm_context_threads(bc->ctx);
    be->guid = &backend_guid;
    be->ops.name = backend_name;
    be->ops.free = backend_free;
    be->ops.graph_compute = backend_graph_compute;
    be->device = dev;
    be->context = bc;
    return be;
}

static struct qgg_buffer_type *device_buffer_type(struct qgg_device *dev) {
    (void)dev;
    return &buffer_type;
}

/* A weight QMM can hold: packable, not a view, and unplaced or in a QMM
 * buffer (a weight ggml placed elsewhere stays with its back end). */
static int weight_ok(const struct qgg_tensor *t) {
    int64_t k, n, e;
    return t && !t->view_src && weight_shape(t, &k, &n, &e) && (!t->buffer || t->buffer->buft == &buffer_type);
}

static int f32_rows(const struct qgg_tensor *t) { return t && t->type == QGG_TYPE_F32 && t->nb[0] == sizeof(float); }

static bool device_supports_op(struct qgg_device *dev, const struct qgg_tensor *op) {
    (void)dev;
    const struct qgg_tensor *w = op->src[0];
    /* ops that move no data: ggml asks for them about the weights in our
     * buffers (the leaves of the graph) */
    if (op->op == ops.none || op->op == ops.reshape || op->op == ops.view || op->op == ops.permute || op->op == ops.transpose)
        return true;
    if (op->op == ops.mul_mat)
        return weight_ok(w) && w->ne[2] == 1 && f32_rows(op->src[1]) && f32_rows(op);
    if (op->op == ops.mul_mat_id)
        return weight_ok(w) && f32_rows(op->src[1]) && op->src[2] && op->src[2]->type == QGG_TYPE_I32 && f32_rows(op);
    if (op->op == ops.get_rows)
        return weight_ok(w) && op->src[1] && op->src[1]->type == QGG_TYPE_I32 && f32_rows(op);
    return false;
}

/* QMM reads activations where they are: its own buffers and host memory. */
static bool device_supports_buft(struct qgg_device *dev, struct qgg_buffer_type *buft) {
    (void)dev;
    return buft == &buffer_type || host.buft_is_host(buft);
}

/* ----------------------------------------------------------- the registry */

static const char *registry_name(struct qgg_registry *reg) {
    (void)reg;
    return "QMM";
}

static size_t registry_device_count(struct qgg_registry *reg) {
    (void)reg;
    return 1;
}

static struct qgg_device *registry_device(struct qgg_registry *reg, size_t index) {
    (void)reg;
    return index == 0 ? &device : NULL;
}

static void *registry_proc_address(struct qgg_registry *reg, const char *fn_name) {
    (void)reg;
    if (fn_name && strcmp(fn_name, "ggml_backend_set_n_threads") == 0)
        return (void *)backend_set_n_threads;
    return NULL;
}

/* Op numbers by name; 0 when all were found. ggml_op_name does not check its
 * argument, so the scan stops at the last one needed. */
static int find_ops(void) {
    struct {
        const char *name;
        int *op;
    } want[] = {{"NONE", &ops.none},         {"MUL_MAT", &ops.mul_mat},    {"MUL_MAT_ID", &ops.mul_mat_id},
                {"GET_ROWS", &ops.get_rows}, {"RESHAPE", &ops.reshape},    {"VIEW", &ops.view},
                {"PERMUTE", &ops.permute},   {"TRANSPOSE", &ops.transpose}};
    const int n_want = (int)(sizeof want / sizeof want[0]);
    int found = 0;
    for (int i = 0; i < n_want; i++)
        *want[i].op = -1;
    for (int op = 0; op < 128 && found < n_want; op++) {
        const char *name = host.op_name(op);
        for (int i = 0; name && i < n_want; i++)
            if (*want[i].op < 0 && strcmp(name, want[i].name) == 0) {
                *want[i].op = op;
                found++;
            }
    }
    return found == n_want ? 0 : -1;
}

/* The one buffer type, device and registry (their ops are all ours). */
static struct qgg_buffer_type buffer_type = {
    .ops = {.name = buft_name,
            .alloc = buft_alloc,
            .alignment = buft_alignment,
            .alloc_size = buft_alloc_size,
            .is_host = buft_is_host},
    .device = &device,
};
static struct qgg_device device = {
    .ops = {.name = device_name,
            .description = device_describe,
            .memory = device_memory,
            .kind = device_kind,
            .props = device_props,
            .init_backend = device_init_backend,
            .buffer_type = device_buffer_type,
            .supports_op = device_supports_op,
            .supports_buft = device_supports_buft},
    .reg = &registry,
};
static struct qgg_registry registry = {
    .api_version = QGG_API_VERSION,
    .ops = {.name = registry_name,
            .device_count = registry_device_count,
            .device = registry_device,
            .proc_address = registry_proc_address},
};

static struct qgg_registry *registry_result;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static void *registry_caller;

static void registry_make(void) {
    char why[256];
    if (qgg_host_find(registry_caller, &host, why, sizeof why) != 0) {
        fprintf(stderr, "qmatmul: %s: no QMM device registered\n", why);
        return;
    }
    const char *version = host.version();
    if (!version || strcmp(version, QGG_GGML_VERSION) != 0) {
        plugin_log(QGG_LOG_ERROR, "ggml %s is not supported (this plugin runs in ggml %s): no QMM device registered",
                   version ? version : "(unknown)", QGG_GGML_VERSION);
        return;
    }
    if (find_ops() != 0) {
        plugin_log(QGG_LOG_ERROR, "ggml %s lacks an op this plugin needs: no QMM device registered", version);
        return;
    }
    /* one slot per blob (pack_threads 1: no fallback slot beside a capped
     * SME primary), so that a QMM buffer holds about the GGUF bytes */
    qmm_options popt = {0};
    popt.pack_threads = 1;
    if (qmm_context_create(&popt, &pack_ctx) != QMM_OK) {
        plugin_log(QGG_LOG_ERROR, "no qmatmul context: %s: no QMM device registered", qmm_last_error());
        return;
    }
    /* a host with an OpenMP runtime (ggml's CPU back end built with OpenMP):
     * QMM computes on its team; QMM_GGML_OWN_POOL=1 forces qmatmul's pool */
    host_uses_openmp = getenv("QMM_GGML_OWN_POOL") == NULL && find_gomp();
    const char *primary = NULL;
    qmm_context_chain(pack_ctx, QMM_TYPE_Q4_0, &primary, NULL);
    snprintf(device_description, sizeof device_description, "qmatmul %s (Q4_0 on %s, %d threads)", qmm_version(),
             primary ? primary : "?", qmm_context_threads(pack_ctx));
    registry_result = &registry;
}

/* ggml's entry point for a back end loaded at run time. */
QGG_EXPORT struct qgg_registry *ggml_backend_init(void) {
    registry_caller = __builtin_return_address(0);
    pthread_once(&registry_once, registry_make);
    return registry_result;
}
