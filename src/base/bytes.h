/* Little-endian field access for the on-disk and in-memory formats (blobs,
 * cache files, GGUF): neither the host's endianness nor a field's alignment
 * matters. */
#ifndef QMM_BASE_BYTES_H
#define QMM_BASE_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void qmm_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static inline void qmm_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void qmm_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
/* On a little-endian host a read is one unaligned load (kernels read their
 * block fields through these); elsewhere byte by byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint16_t qmm_get16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline uint32_t qmm_get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline uint64_t qmm_get64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
#else
static inline uint16_t qmm_get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t qmm_get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t qmm_get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
#endif

static inline uint64_t qmm_align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static inline int qmm_all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

#endif
