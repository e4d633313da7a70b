/* CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320, as zlib's crc32):
 * the checksum of packed blobs and cache files. */
#ifndef QMM_BASE_CRC32_H
#define QMM_BASE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc (0 to start) over n bytes. Thread-safe. */
uint32_t qmm_crc32(uint32_t crc, const void *data, size_t n);

#endif
