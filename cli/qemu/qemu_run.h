/*
 * Running the image under QEMU: the command line of a deterministic run
 * (ARM-QEMU-NOTES.md: -icount shift=0,sleep=off, semihosting for the exit
 * status, the scenario blob through -device loader, the UART to a file)
 * and a child process with a time limit.
 */
#ifndef MCSIM_CLI_QEMU_RUN_H
#define MCSIM_CLI_QEMU_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "wire.h"

struct qemu_job {
    const char *qemu;     /* qemu-system-aarch64 */
    const char *image;    /* mcsim-qemu.elf */
    const char *blob;     /* the scenario blob */
    const char *uart_log; /* where the UART goes */
    const char *qemu_log; /* QEMU's own standard error */
    unsigned timeout_s;   /* wall-clock limit */
};

struct qemu_outcome {
    bool timed_out; /* killed at the limit */
    int status;     /* QEMU's exit status (the image's, through semihosting);
                       -1 if it died of a signal */
    double seconds; /* wall-clock time it took */
};

/* The blob's load address in guest memory (image/image.h). */
#define QEMU_BLOB_ADDR "0x48000000"

/* Run the job and wait for it (at most timeout_s, then kill it). 0, or -1
 * with a message in err when QEMU could not be started. */
int qemu_run(const struct qemu_job *job, struct qemu_outcome *out, char *err, size_t errlen);

/* The full path of `name` found in PATH (or `name` itself when it holds a
 * slash and exists), into buf. 0, or -1 when there is none. */
int qemu_find_program(const char *name, char *buf, size_t len);

/* Where a run's files go: a temporary directory, removed by
 * qemu_workdir_close, or the directory given (--keep), kept. */
struct qemu_workdir {
    char dir[4096];
    char blob[4200], uart[4200], qemu_log[4200];
    bool temporary;
};

/* 0, or -1 after printing why the directory cannot be made. */
int qemu_workdir_open(struct qemu_workdir *wd, const char *keep);
void qemu_workdir_close(struct qemu_workdir *wd);

/* Write the blob of `s` with run `flags` to `path`; *crc is its checksum
 * (which the image's HELLO frame echoes). 0, or -1 after printing why. */
int qemu_write_blob(const struct scenario *s, uint32_t flags, const char *path, uint32_t *crc);

/* What the image wrote to the UART: its records in order (the HELLO kept
 * apart), the END, and its console text. */
struct qemu_trace {
    struct wire_record *recs;
    size_t n, cap;
    struct wire_record hello, end;
    bool has_hello, has_end;
    char console[4096];
    size_t console_len;
    uint64_t bad;     /* frames whose CRC held but did not decode */
    uint64_t skipped; /* bytes neither in a frame nor console text */
};

/* Read and decode the UART output at `path` into t (zeroed first by the
 * caller). 0, or -1 when the file cannot be read or memory is short. */
int qemu_trace_read(struct qemu_trace *t, const char *path);

/* As qemu_trace_read, from the n bytes at buf (a UART output read
 * already, or made by a test or a fuzzer). 0, or -1 when memory is
 * short. */
int qemu_trace_decode(struct qemu_trace *t, const uint8_t *buf, size_t n);

/* Why the trace cannot be recorded as a run of the blob with checksum
 * blob_crc (no HELLO, another blob, a frame that does not decode, no END,
 * records dropped or missing), or NULL when it can. */
const char *qemu_trace_problem(const struct qemu_trace *t, uint32_t blob_crc);

/* Print the image's console text to standard error. */
void qemu_show_console(const struct qemu_trace *t);

void qemu_trace_release(struct qemu_trace *t);

#endif /* MCSIM_CLI_QEMU_RUN_H */
