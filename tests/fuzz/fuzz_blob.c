/*
 * libFuzzer target: the scenario blob decoder (sim/blob.h), which the ARM
 * image runs on whatever it is given. The input is decoded twice: as it
 * is, and with its header's length and CRC made right, so that mutations
 * reach the body's parser instead of stopping at the checksum. A blob
 * that decodes must encode back to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "crc32.h"

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void decode(const uint8_t *buf, size_t size)
{
    struct scenario s;
    uint32_t flags;

    if (blob_decode(buf, size, &s, &flags) != BLOB_OK)
        return;
    size_t n = blob_encode(&s, flags, NULL, 0);
    uint8_t *again = malloc(n);
    if (again) {
        blob_encode(&s, flags, again, n);
        if (n > size || memcmp(again, buf, n) != 0)
            abort(); /* decode and encode disagree on what the blob says */
    }
    free(again);
    scenario_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *fixed;

    decode(data, size);
    if (size < BLOB_HEADER_BYTES || size > BLOB_MAX_BYTES || !(fixed = malloc(size)))
        return 0;
    memcpy(fixed, data, size);
    put32(fixed, BLOB_MAGIC);
    fixed[4] = BLOB_VERSION & 0xff;
    fixed[5] = BLOB_VERSION >> 8;
    fixed[6] = BLOB_HEADER_BYTES;
    fixed[7] = 0;
    put32(fixed + 8, (uint32_t)size);
    put32(fixed + 12, 0);
    put32(fixed + 12, crc32_update(0, fixed, size));
    decode(fixed, size);
    free(fixed);
    return 0;
}
