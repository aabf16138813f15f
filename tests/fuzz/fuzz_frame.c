/*
 * libFuzzer target: the decoder of a QEMU run's UART output (cli/frame.h)
 * on any bytes: finding frames among console text and damaged bytes,
 * checking their CRCs and decoding their payloads. A decoded record,
 * encoded again, must decode to a record that encodes to the same bytes
 * (booleans and a FAIL text are normalised by the first decode).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qemu/frame.h"

static void text(void *ctx, const char *bytes, size_t n)
{
    size_t *seen = ctx;
    for (size_t i = 0; i < n; i++)
        *seen += (unsigned char)bytes[i] != 0;
}

static void round_trip(const struct wire_record *rec)
{
    uint8_t a[WIRE_OVERHEAD + WIRE_MAX_PAYLOAD], b[WIRE_OVERHEAD + WIRE_MAX_PAYLOAD];
    struct frame_reader r;
    struct frame f;
    struct wire_record again;
    size_t na = frame_encode(rec, a), nb;

    frame_reader_init(&r, a, na);
    if (frame_next(&r, &f) != 1 || r.pos != na || frame_decode(&f, &again) != 0)
        abort(); /* an encoded record is not one good frame */
    nb = frame_encode(&again, b);
    if (na != nb || memcmp(a, b, na) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct frame_reader r;
    struct frame f;
    struct wire_record rec;
    size_t seen = 0;

    frame_reader_init(&r, data, size);
    r.text = text;
    r.text_ctx = &seen;
    while (frame_next(&r, &f)) {
        if (frame_decode(&f, &rec) == 0)
            round_trip(&rec);
    }
    if (r.pos != size || seen + r.skipped > size)
        abort(); /* bytes read twice, or left unread */
    return 0;
}
