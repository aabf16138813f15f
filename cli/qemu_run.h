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

struct qemu_job {
    const char *qemu;      /* qemu-system-aarch64 */
    const char *image;     /* mcsim-qemu.elf */
    const char *blob;      /* the scenario blob */
    const char *uart_log;  /* where the UART goes */
    const char *qemu_log;  /* QEMU's own standard error */
    unsigned timeout_s;    /* wall-clock limit */
};

struct qemu_outcome {
    bool timed_out;        /* killed at the limit */
    int status;            /* QEMU's exit status (the image's, through semihosting);
                              -1 if it died of a signal */
    double seconds;        /* wall-clock time it took */
};

/* The blob's load address in guest memory (image/image.h). */
#define QEMU_BLOB_ADDR "0x48000000"

/* Run the job and wait for it (at most timeout_s, then kill it). 0, or -1
 * with a message in err when QEMU could not be started. */
int qemu_run(const struct qemu_job *job, struct qemu_outcome *out, char *err, size_t errlen);

/* The full path of `name` found in PATH (or `name` itself when it holds a
 * slash and exists), into buf. 0, or -1 when there is none. */
int qemu_find_program(const char *name, char *buf, size_t len);

#endif /* MCSIM_CLI_QEMU_RUN_H */
