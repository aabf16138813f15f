/*
 * The host's decoder of a QEMU run's UART output (sim/wire.h): finds the
 * frames in the byte stream, checks each one's CRC, passes the text
 * between them on as the guest's console output, and decodes payloads
 * into wire records.
 */
#ifndef MCSIM_CLI_FRAME_H
#define MCSIM_CLI_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* One frame as it was on the wire (CRC checked). */
struct frame {
    uint8_t type;
    uint8_t len;
    uint8_t payload[WIRE_MAX_PAYLOAD];
};

struct frame_reader {
    const uint8_t *buf;
    size_t len, pos;
    uint64_t frames;  /* good frames returned */
    uint64_t skipped; /* bytes skipped that were neither a frame nor console text
                         (a damaged frame, or stray bytes) */
    /* where console text goes (may be NULL): bytes outside frames, as met */
    void (*text)(void *ctx, const char *bytes, size_t n);
    void *text_ctx;
};

/* Read frames from buf[0..len). */
void frame_reader_init(struct frame_reader *r, const void *buf, size_t len);

/* The next good frame: 1, and *f filled; 0 at the end of the bytes. A
 * sync pair that starts no good frame (a bad CRC, a frame cut short) is
 * skipped one byte at a time; printable text and newlines in between go
 * to the text callback, other bytes count as skipped. */
int frame_next(struct frame_reader *r, struct frame *f);

/* The payload length of a frame of `type`: its fixed length, -2 for a
 * FAIL (any length up to WIRE_MAX_PAYLOAD), -1 for no type. */
int frame_payload_len(unsigned type);

/* Decode a frame's payload. 0, or -1 when the type is unknown or the
 * length is not the type's. */
int frame_decode(const struct frame *f, struct wire_record *out);

/* Encode a record as a frame into buf (at least WIRE_OVERHEAD +
 * WIRE_MAX_PAYLOAD bytes): the inverse of frame_decode, for tests and
 * tools. Returns the frame's length in bytes. */
size_t frame_encode(const struct wire_record *rec, uint8_t *buf);

#endif /* MCSIM_CLI_FRAME_H */
