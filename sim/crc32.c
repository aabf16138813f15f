/*
 * CRC-32, table-driven (crc32.h). The table is built on first use: the
 * image has no initialised data worth the 1 KiB, and the host does not care.
 */
#include "crc32.h"

#include <stdbool.h>

static uint32_t table[256];
static bool table_ready;

static void build_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    table_ready = true;
}

uint32_t crc32_update(uint32_t crc, const void *p, size_t n)
{
    const uint8_t *b = p;

    if (!table_ready)
        build_table();
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *b++) & 0xffu] ^ (crc >> 8);
    return ~crc;
}
