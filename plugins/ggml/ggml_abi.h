/* The part of ggml's binary interface that the qmatmul plugin touches, in
 * qmatmul's own names (prefix qgg_).
 *
 * ggml installs no header for its back-end structures, so their layout is
 * stated here: member order, member types and function signatures are facts
 * of ggml's ABI (x86-64 / AArch64, LP64); every name and comment is ours.
 *
 * Source of each layout: ggml's public repository (ggml-org/ggml) at
 * v0.21.0, d99724f2b141 (src/ggml-backend-impl.h, include/ggml.h,
 * include/ggml-backend.h), the newest public tree reachable from this
 * project's machines. The plugin accepts one ggml at run time: 0.25.3 (the
 * one llama-cpp-python 0.3.36 builds), whose back-end layout is that one:
 * the ggml stage (scripts/test-ggml-plugin.sh) runs llama.cpp through it.
 * ggml 0.27.0 and 1.0.0 changed the buffer-type and buffer interfaces and
 * the registry's API version (3), and no public tree of theirs is reachable
 * here: the plugin refuses them with one log line rather than guess.
 */
#ifndef QMM_PLUGIN_GGML_ABI_H
#define QMM_PLUGIN_GGML_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The registry's first member must hold this, or ggml's loader refuses us. */
#define QGG_API_VERSION 2

/* Tensor limits. */
#define QGG_MAX_DIMS      4
#define QGG_MAX_SRC       10
#define QGG_MAX_OP_PARAMS 64 /* bytes */
#define QGG_MAX_NAME      64

/* Element types are GGUF's numbers, the same as qmm_type's. */
enum { QGG_TYPE_F32 = 0, QGG_TYPE_I32 = 26 };

/* What a device is. ACCEL: works beside the CPU back end; llama.cpp offers
 * its buffer type first for the weights whose op it accepts. */
enum { QGG_DEVICE_ACCEL = 3 };

/* What a buffer holds, as its owner marks it after allocation. */
enum { QGG_USAGE_ANY = 0, QGG_USAGE_WEIGHTS = 1, QGG_USAGE_COMPUTE = 2 };

/* Results of tensor initialisation and graph computation. */
enum { QGG_STATUS_FAILED = -1, QGG_STATUS_SUCCESS = 0 };

/* Logger levels. */
enum { QGG_LOG_INFO = 2, QGG_LOG_WARN = 3, QGG_LOG_ERROR = 4 };

struct qgg_buffer;
struct qgg_buffer_type;
struct qgg_backend;
struct qgg_device;
struct qgg_registry;
struct qgg_graph; /* private to ggml: walked with ggml_graph_n_nodes / ggml_graph_node */

/* A tensor (ggml owns it; the plugin reads it and sets `extra` on the
 * weights it packed in its own buffers). */
struct qgg_tensor {
    int32_t type; /* GGUF type number */
    struct qgg_buffer *buffer;
    int64_t ne[QGG_MAX_DIMS]; /* elements per dimension, [0] innermost */
    size_t nb[QGG_MAX_DIMS];  /* byte strides */
    int32_t op;               /* compared with the numbers found by name at registration */
    int32_t op_params[QGG_MAX_OP_PARAMS / 4];
    int32_t flags;
    struct qgg_tensor *src[QGG_MAX_SRC];
    struct qgg_tensor *view_src;
    size_t view_offs;
    void *data;
    char name[QGG_MAX_NAME];
    void *extra; /* the owning back end's own per-tensor data */
    char padding[8];
};

/* A buffer type: six entries. */
struct qgg_buffer_type_ops {
    const char *(*name)(struct qgg_buffer_type *buft);
    struct qgg_buffer *(*alloc)(struct qgg_buffer_type *buft, size_t size); /* ggml makes size-0 buffers itself */
    size_t (*alignment)(struct qgg_buffer_type *buft);
    size_t (*max_size)(struct qgg_buffer_type *buft);                                    /* optional */
    size_t (*alloc_size)(struct qgg_buffer_type *buft, const struct qgg_tensor *tensor); /* optional: at least ggml_nbytes */
    bool (*is_host)(struct qgg_buffer_type *buft); /* optional: data readable in place, in ggml's layout */
};
struct qgg_buffer_type {
    struct qgg_buffer_type_ops ops;
    struct qgg_device *device;
    void *context;
};

/* A buffer: eleven entries; ggml allocates the struct itself, in
 * ggml_backend_buffer_init, which takes the entries by value. */
struct qgg_buffer_ops {
    void (*free)(struct qgg_buffer *buf); /* optional */
    void *(*base)(struct qgg_buffer *buf);
    int (*init_tensor)(struct qgg_buffer *buf, struct qgg_tensor *t); /* optional; a QGG_STATUS */
    void (*memset_tensor)(struct qgg_buffer *buf, struct qgg_tensor *t, uint8_t value, size_t offset, size_t size);
    void (*set_tensor)(struct qgg_buffer *buf, struct qgg_tensor *t, const void *data, size_t offset, size_t size);
    void (*get_tensor)(struct qgg_buffer *buf, const struct qgg_tensor *t, void *data, size_t offset, size_t size);
    /* optional strided copies (NULL: ggml loops over set / get) */
    void (*set_tensor_2d)(struct qgg_buffer *buf, struct qgg_tensor *t, const void *data, size_t offset, size_t size,
                          size_t n_copies, size_t stride_tensor, size_t stride_data);
    void (*get_tensor_2d)(struct qgg_buffer *buf, const struct qgg_tensor *t, void *data, size_t offset, size_t size,
                          size_t n_copies, size_t stride_tensor, size_t stride_data);
    bool (*copy_tensor)(struct qgg_buffer *buf, const struct qgg_tensor *src,
                        struct qgg_tensor *dst); /* optional; false: not done */
    void (*clear)(struct qgg_buffer *buf, uint8_t value);
    void (*reset)(struct qgg_buffer *buf); /* optional: drop per-tensor state */
};
struct qgg_buffer {
    struct qgg_buffer_ops ops;
    struct qgg_buffer_type *buft;
    void *context;
    size_t size;
    int32_t usage; /* QGG_USAGE_* */
};

/* A back-end instance (a stream): sixteen entries, of which the plugin
 * fills name, free and graph_compute. */
struct qgg_backend_ops {
    const char *(*name)(struct qgg_backend *be);
    void (*free)(struct qgg_backend *be);
    void *set_tensor_async;
    void *get_tensor_async;
    void *set_tensor_2d_async;
    void *get_tensor_2d_async;
    void *copy_tensor_async;
    void *synchronize;
    void *plan_create;
    void *plan_free;
    void *plan_update;
    void *plan_compute;
    int (*graph_compute)(struct qgg_backend *be, struct qgg_graph *graph); /* a QGG_STATUS */
    void *event_record;
    void *event_wait;
    void *graph_optimize;
};
struct qgg_backend {
    const uint8_t (*guid)[16]; /* identifies the kind of back end */
    struct qgg_backend_ops ops;
    struct qgg_device *device;
    void *context;
};

/* Abilities a device reports. */
struct qgg_device_caps {
    bool async;
    bool host_buffer;
    bool buffer_from_host_ptr;
    bool events;
    bool mmap_support;
};

/* What a device's props entry fills. */
struct qgg_device_props {
    const char *name;
    const char *description;
    size_t memory_free;
    size_t memory_total;
    int32_t kind;          /* QGG_DEVICE_* */
    const char *device_id; /* NULL: none */
    struct qgg_device_caps caps;
};

/* A device: fifteen entries. */
struct qgg_device_ops {
    const char *(*name)(struct qgg_device *dev);
    const char *(*description)(struct qgg_device *dev);
    void (*memory)(struct qgg_device *dev, size_t *free_bytes, size_t *total_bytes);
    int (*kind)(struct qgg_device *dev);
    void (*props)(struct qgg_device *dev, struct qgg_device_props *out);
    struct qgg_backend *(*init_backend)(struct qgg_device *dev, const char *params);
    struct qgg_buffer_type *(*buffer_type)(struct qgg_device *dev);
    void *host_buffer_type;     /* optional */
    void *buffer_from_host_ptr; /* optional */
    bool (*supports_op)(struct qgg_device *dev, const struct qgg_tensor *op);
    bool (*supports_buft)(struct qgg_device *dev, struct qgg_buffer_type *buft);
    void *offload_op; /* optional */
    void *event_new;  /* optional */
    void *event_free;
    void *event_synchronize;
};
struct qgg_device {
    struct qgg_device_ops ops;
    struct qgg_registry *reg;
    void *context;
};

/* The registry the plugin's entry point (ggml_backend_init) returns. */
struct qgg_registry_ops {
    const char *(*name)(struct qgg_registry *reg);
    size_t (*device_count)(struct qgg_registry *reg);
    struct qgg_device *(*device)(struct qgg_registry *reg, size_t index);
    void *(*proc_address)(struct qgg_registry *reg, const char *fn_name); /* optional */
};
struct qgg_registry {
    int api_version; /* QGG_API_VERSION */
    struct qgg_registry_ops ops;
    void *context;
};

/* The ggml functions the plugin calls, found at registration in the ggml
 * that loaded it (plugins/ggml/host.c). */
typedef void (*qgg_log_callback)(int level, const char *text, void *user);
struct qgg_host {
    const char *(*version)(void);
    const char *(*op_name)(int op);
    size_t (*nbytes)(const struct qgg_tensor *t);
    int (*graph_n_nodes)(struct qgg_graph *g);
    struct qgg_tensor *(*graph_node)(struct qgg_graph *g, int i);
    bool (*buft_is_host)(struct qgg_buffer_type *buft);
    struct qgg_buffer *(*buffer_init)(struct qgg_buffer_type *buft, struct qgg_buffer_ops ops, void *context, size_t size);
    void (*log_get)(qgg_log_callback *callback, void **user);
};

/* Fills host from the ggml in this process that called us (the caller's
 * object first: a host may load ggml privately, RTLD_LOCAL); 0 on success,
 * else -1 with a reason in why. */
int qgg_host_find(void *caller, struct qgg_host *host, char *why, size_t why_size);

#endif
