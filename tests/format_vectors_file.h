/* The record files the Python generators write (tests/gen_format_vectors.py,
 * tests/gen_known_answers.py), read by test_formats and test_known_answers:
 * a little-endian uint32 count, then per record four little-endian uint32
 * (type, rows, k, nbytes) and nbytes of data. */
#ifndef QMM_FORMAT_VECTORS_FILE_H
#define QMM_FORMAT_VECTORS_FILE_H

#include "base/bytes.h"
#include "test_util.h"

typedef struct qmm_test_record {
    uint32_t type, rows, k, nbytes;
    uint8_t *data;
} qmm_test_record;

typedef struct qmm_test_records {
    uint32_t n;   /* records the file announces */
    uint32_t got; /* records read whole: r[0 .. got) */
    qmm_test_record *r;
} qmm_test_records;

static inline void qmm_test_records_free(qmm_test_records *rs) {
    for (uint32_t i = 0; i < rs->got; i++)
        free(rs->r[i].data);
    free(rs->r);
    rs->r = NULL;
    rs->n = rs->got = 0;
}

/* Reads the file at path (writer: the script named in failure messages), of at
 * most max_records records of under 2^28 bytes each. Returns 1 when every
 * record was read; the whole ones are in rs either way (qmm_test_records_free). */
static inline int qmm_test_records_read(const char *path, const char *writer, uint32_t max_records, qmm_test_records *rs) {
    rs->n = rs->got = 0;
    rs->r = NULL;
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s (written by %s)", path, writer);
    if (!f)
        return 0;
    uint8_t h[16];
    const int header = fread(h, 4, 1, f) == 1 && qmm_get32(h) <= max_records;
    CHECK(header, "%s: header (at most %u records)", path, max_records);
    if (header) {
        rs->n = qmm_get32(h);
        rs->r = calloc(rs->n ? rs->n : 1, sizeof *rs->r);
    }
    while (rs->r && rs->got < rs->n && fread(h, 4, 4, f) == 4) {
        qmm_test_record *r = &rs->r[rs->got];
        r->type = qmm_get32(h), r->rows = qmm_get32(h + 4), r->k = qmm_get32(h + 8), r->nbytes = qmm_get32(h + 12);
        if (r->nbytes >= (1u << 28) || (r->data = malloc(r->nbytes ? r->nbytes : 1)) == NULL)
            break;
        if (fread(r->data, 1, r->nbytes, f) != r->nbytes) {
            free(r->data);
            r->data = NULL;
            break;
        }
        rs->got++;
    }
    fclose(f);
    CHECK(!header || rs->got == rs->n, "%s: %u of %u records (truncated or malformed)", path, rs->got, rs->n);
    return header && rs->got == rs->n;
}

#endif
