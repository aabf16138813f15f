/*
 * The scenario blob: a scenario (scenario.h) and the options of one run,
 * serialised on the host for the ARM image, which QEMU loads next to it
 * (`-device loader`). Compact, versioned and checked: the image refuses a
 * blob with the wrong magic, version, length or checksum, or whose
 * content breaks the model's rules (an index out of range), so that what
 * it runs is exactly what the host meant. Portable: the encoder and the
 * decoder are one file, built for the host and for the image (no libc but
 * calloc, which the image provides).
 *
 * Layout (little-endian): a 16-byte header
 *     0  magic    "MCSB"
 *     4  version  u16 (BLOB_VERSION)
 *     6  header   u16 (16)
 *     8  length   u32, the whole blob, header included
 *    12  crc32    u32, CRC-32 of the whole blob with this field read as 0
 * then the body: the run flags, the scenario's scalars, the record counts
 * and every record, field by field (blob.c). Not carried: the scenario's
 * description, path and file text, which only the host uses.
 */
#ifndef MCSIM_SIM_BLOB_H
#define MCSIM_SIM_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

#define BLOB_MAGIC 0x4253434du /* "MCSB" */
#define BLOB_VERSION 1u
#define BLOB_HEADER_BYTES 16u
#define BLOB_MAX_BYTES (16u << 20)

/* What the QEMU image runs (its untyped memory and root CNode, its GIC
 * lines): fewer threads and lines than the simulator (scenario.h).
 * blob_decode refuses more; `mcsim qemu` says so before it starts. */
#define BLOB_MAX_THREADS 255
#define BLOB_IRQ_LINES 256

/* Run flags. */
#define BLOB_TRACE_FULL 0x1u /* record every kernel event (--trace full) */
#define BLOB_BENCH_IPC 0x2u  /* count instructions of each Call round trip */

enum blob_status {
    BLOB_OK = 0,
    BLOB_TOO_SHORT, /* fewer bytes than a header */
    BLOB_BAD_MAGIC,
    BLOB_BAD_VERSION,
    BLOB_BAD_LENGTH, /* the header's length is impossible or exceeds the bytes given */
    BLOB_BAD_CHECKSUM,
    BLOB_BAD_CONTENT, /* the checksum holds but the content does not parse or
                         breaks a rule of the model */
    BLOB_NO_MEMORY,
};

/* Serialise `s` with run `flags` into buf[0..cap). Returns the blob's size
 * in bytes; writes it only when buf is not NULL and cap is at least that
 * (call with NULL to learn the size). The scenario's seed, duration and
 * scheduler are the run's: apply command-line overrides first. */
size_t blob_encode(const struct scenario *s, uint32_t flags, void *buf, size_t cap);

/* Parse the blob at buf, of which `avail` bytes may be read (the blob may
 * be shorter: its header tells its length). On BLOB_OK, *s holds the
 * scenario (arrays from calloc; free with scenario_release) and *flags the
 * run flags; otherwise *s is zeroed and nothing is left allocated. */
enum blob_status blob_decode(const void *buf, size_t avail, struct scenario *s, uint32_t *flags);

/* A one-line description of a status, for error messages. */
const char *blob_status_text(enum blob_status st);

#endif /* MCSIM_SIM_BLOB_H */
