/* qmatmul_gguf.h: a GGUF reader (versions 2 and 3, little-endian), memory-mapped read-only.
 *
 * Opening validates the whole file once: every length, count and offset is
 * checked against the file size and for overflow before it is used, so a
 * truncated or hostile file yields QMM_ERR_BAD_FILE with a message naming
 * the field (qmm_last_error()), never a crash or a huge allocation. After a
 * successful open every accessor below is safe and cheap.
 *
 * Public, in its own header: qmatmul does not need it to multiply, but an
 * engine (and the qmatmul command) reads its weights with it. The handle is
 * opaque; the kv, tensor and value structs below describe data in the
 * mapping and stay valid until qmm_gguf_close. Every function taking a
 * handle accepts NULL (counts 0, pointers NULL, statuses
 * QMM_ERR_INVALID_ARG). */
#ifndef QMATMUL_GGUF_H
#define QMATMUL_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "qmatmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GGUF metadata value types (the numbers in the file). */
typedef enum qmm_gguf_vtype {
    QMM_GGUF_UINT8 = 0,
    QMM_GGUF_INT8 = 1,
    QMM_GGUF_UINT16 = 2,
    QMM_GGUF_INT16 = 3,
    QMM_GGUF_UINT32 = 4,
    QMM_GGUF_INT32 = 5,
    QMM_GGUF_FLOAT32 = 6,
    QMM_GGUF_BOOL = 7,
    QMM_GGUF_STRING = 8,
    QMM_GGUF_ARRAY = 9,
    QMM_GGUF_UINT64 = 10,
    QMM_GGUF_INT64 = 11,
    QMM_GGUF_FLOAT64 = 12,
    QMM_GGUF_VTYPE_COUNT = 13
} qmm_gguf_vtype;

#define QMM_GGUF_MAX_DIMS          4
#define QMM_GGUF_DEFAULT_ALIGNMENT 32
/* Arrays of arrays deeper than this are rejected (bounded recursion). */
#define QMM_GGUF_MAX_NESTING 16

/* A value in the mapped file; p points at its little-endian bytes (for a
 * string: at the characters, len of them, not NUL-terminated; for an array:
 * at its first element). Always validated: reading within it is safe. */
typedef struct qmm_gguf_value {
    uint32_t type;      /* qmm_gguf_vtype */
    const uint8_t *p;   /* payload */
    uint64_t len;       /* string: bytes; array: element count; else 0 */
    uint32_t elem_type; /* array: the elements' qmm_gguf_vtype */
    uint64_t size;      /* bytes of the payload (array: all its elements) */
} qmm_gguf_value;

typedef struct qmm_gguf_kv {
    const char *key; /* NUL-terminated copy */
    qmm_gguf_value value;
} qmm_gguf_kv;

typedef struct qmm_gguf_tensor {
    const char *name; /* NUL-terminated copy */
    uint32_t n_dims;
    int64_t ne[QMM_GGUF_MAX_DIMS]; /* missing dims are 1 */
    uint32_t type;                 /* ggml type id (qmm_type numbering) */
    int known_type;                /* 0: a type this build cannot size; size and data are 0 */
    uint64_t offset;               /* relative to the data section, aligned */
    uint64_t size;                 /* bytes: row_size(type, ne[0]) * ne[1] * ne[2] * ne[3] */
    const void *data;              /* in the mapping; NULL if !known_type */
} qmm_gguf_tensor;

typedef struct qmm_gguf qmm_gguf;

/* Maps and validates a file. */
QMM_API qmm_status qmm_gguf_open(const char *path, qmm_gguf **out);
/* Validates a file image in memory (not copied: it must outlive *out). */
QMM_API qmm_status qmm_gguf_open_memory(const void *data, size_t size, qmm_gguf **out);
QMM_API void qmm_gguf_close(qmm_gguf *g);

QMM_API uint32_t qmm_gguf_version(const qmm_gguf *g);
QMM_API uint64_t qmm_gguf_file_size(const qmm_gguf *g);
QMM_API uint64_t qmm_gguf_alignment(const qmm_gguf *g);
/* Offset of the data section from the start of the file. */
QMM_API uint64_t qmm_gguf_data_offset(const qmm_gguf *g);

QMM_API int64_t qmm_gguf_kv_count(const qmm_gguf *g);
QMM_API const qmm_gguf_kv *qmm_gguf_kv_at(const qmm_gguf *g, int64_t i);
/* Index of a key, or -1. */
QMM_API int64_t qmm_gguf_find_key(const qmm_gguf *g, const char *key);
/* The value of a key, or NULL. */
QMM_API const qmm_gguf_value *qmm_gguf_get(const qmm_gguf *g, const char *key);

QMM_API int64_t qmm_gguf_tensor_count(const qmm_gguf *g);
QMM_API const qmm_gguf_tensor *qmm_gguf_tensor_at(const qmm_gguf *g, int64_t i);
/* Index of a tensor, or -1. */
QMM_API int64_t qmm_gguf_find_tensor(const qmm_gguf *g, const char *name);

/* Value decoding. Integers (and bool) convert to the wider types; they
 * return 0 and leave *out alone if the value is of another kind or does not
 * fit (a negative value for _u64, a uint64 above INT64_MAX for _i64), or
 * if an argument is NULL; 1 on success. */
QMM_API int qmm_gguf_value_u64(const qmm_gguf_value *v, uint64_t *out);
QMM_API int qmm_gguf_value_i64(const qmm_gguf_value *v, int64_t *out);
/* Any integer, bool or float. */
QMM_API int qmm_gguf_value_f64(const qmm_gguf_value *v, double *out);
/* A string (not NUL-terminated) and its length. */
QMM_API int qmm_gguf_value_str(const qmm_gguf_value *v, const char **s, uint64_t *len);
/* Element i of an array (linear in i for elements of variable size). */
QMM_API int qmm_gguf_array_get(const qmm_gguf_value *arr, uint64_t i, qmm_gguf_value *out);

/* Typed metadata lookup. QMM_OK and *out set; QMM_ERR_INVALID_ARG if an
 * argument is NULL or the file has no such key; QMM_ERR_UNSUPPORTED if the
 * value is of another kind or does not fit (a message in qmm_last_error()).
 * _string: the characters in the mapping (not NUL-terminated) and their
 * count; _int: any integer or bool; _float: any integer, bool or float;
 * _array: the array value (read its elements with qmm_gguf_array_get). */
QMM_API qmm_status qmm_gguf_get_string(const qmm_gguf *g, const char *key, const char **s, uint64_t *len);
QMM_API qmm_status qmm_gguf_get_int(const qmm_gguf *g, const char *key, int64_t *out);
QMM_API qmm_status qmm_gguf_get_float(const qmm_gguf *g, const char *key, double *out);
QMM_API qmm_status qmm_gguf_get_array(const qmm_gguf *g, const char *key, qmm_gguf_value *out);

/* Name of a value type ("uint32", "array", ...), "?" if unknown. */
QMM_API const char *qmm_gguf_vtype_name(uint32_t type);
/* Formats a value as text into buf (always NUL-terminated, cut with "..."
 * if it does not fit); arrays show at most max_items elements then
 * "... (N items)". Returns the length written. */
QMM_API size_t qmm_gguf_value_format(const qmm_gguf_value *v, int max_items, char *buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* QMATMUL_GGUF_H */
