/*
 * CRC-32 (IEEE 802.3: reflected polynomial 0xEDB88320, initial value and
 * final XOR 0xFFFFFFFF; "123456789" gives 0xCBF43926), the checksum of the
 * scenario blob (blob.h) and of every UART frame (wire.h). Portable: the
 * ARM image links it.
 */
#ifndef MCSIM_SIM_CRC32_H
#define MCSIM_SIM_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of `n` bytes at `p`, continuing from `crc` (0 to start):
 * crc32_update(crc32_update(0, a, n), b, m) is the CRC of a then b. */
uint32_t crc32_update(uint32_t crc, const void *p, size_t n);

#endif /* MCSIM_SIM_CRC32_H */
