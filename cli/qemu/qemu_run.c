/*
 * Spawning QEMU with a time limit and reading what it wrote (qemu_run.h).
 * The UART goes to a file (`-serial file:`) so that the binary frames
 * arrive byte for byte; QEMU's own messages go to another file, shown
 * when the run fails.
 */
#define _POSIX_C_SOURCE 200809L
#include "qemu_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blob.h"
#include "frame.h"
#include "util/grow.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int qemu_find_program(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    struct stat st;

    if (strchr(name, '/')) {
        if (stat(name, &st) != 0 || !(st.st_mode & S_IXUSR))
            return -1;
        snprintf(buf, len, "%s", name);
        return 0;
    }
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(buf, len, "%.*s/%s", (int)n, p, name);
        if (n > 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR))
            return 0;
        p += n + (colon != NULL);
    }
    return -1;
}

static _Noreturn void child(const struct qemu_job *job)
{
    char serial[4200], loader[4200];
    int null = open("/dev/null", O_RDONLY);
    int log = open(job->qemu_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    snprintf(serial, sizeof serial, "file:%s", job->uart_log);
    snprintf(loader, sizeof loader, "loader,file=%s,addr=%s,force-raw=on", job->blob,
             QEMU_BLOB_ADDR);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
    }
    char *argv[] = {(char *)job->qemu,
                    "-M",
                    "virt",
                    "-cpu",
                    "cortex-a53",
                    "-m",
                    "256M",
                    "-display",
                    "none",
                    "-monitor",
                    "none",
                    "-nic",
                    "none",
                    "-serial",
                    serial,
                    "-semihosting",
                    "-icount",
                    "shift=0,align=off,sleep=off",
                    "-kernel",
                    (char *)job->image,
                    "-device",
                    loader,
                    NULL};
    execv(job->qemu, argv);
    fprintf(stderr, "mcsim: qemu: cannot run %s: %s\n", job->qemu, strerror(errno));
    _exit(127);
}

int qemu_run(const struct qemu_job *job, struct qemu_outcome *out, char *err, size_t errlen)
{
    double start = now_s();
    int wstatus = 0;
    pid_t pid, done;

    memset(out, 0, sizeof *out);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "mcsim: qemu: cannot start QEMU: %s", strerror(errno));
        return -1;
    }
    if (pid == 0)
        child(job);
    for (;;) {
        done = waitpid(pid, &wstatus, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            snprintf(err, errlen, "mcsim: qemu: waiting for QEMU: %s", strerror(errno));
            return -1;
        }
        if (now_s() - start > job->timeout_s) {
            out->timed_out = true;
            kill(pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            break;
        }
        nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
    out->seconds = now_s() - start;
    out->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    return 0;
}

/* ------------------------------------------------------------ the run's files */

int qemu_workdir_open(struct qemu_workdir *wd, const char *keep)
{
    if (keep) {
        snprintf(wd->dir, sizeof wd->dir, "%s", keep);
        if (mkdir(keep, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "mcsim: qemu: --keep %s: %s\n", keep, strerror(errno));
            return -1;
        }
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(wd->dir, sizeof wd->dir, "%s/mcsim-qemu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(wd->dir) == NULL) {
            fprintf(stderr, "mcsim: qemu: cannot make a temporary directory: %s\n",
                    strerror(errno));
            return -1;
        }
        wd->temporary = true;
    }
    snprintf(wd->blob, sizeof wd->blob, "%s/scenario.bin", wd->dir);
    snprintf(wd->uart, sizeof wd->uart, "%s/uart.bin", wd->dir);
    snprintf(wd->qemu_log, sizeof wd->qemu_log, "%s/qemu.log", wd->dir);
    return 0;
}

void qemu_workdir_close(struct qemu_workdir *wd)
{
    if (!wd->temporary)
        return;
    unlink(wd->blob);
    unlink(wd->uart);
    unlink(wd->qemu_log);
    rmdir(wd->dir);
}

static int write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "mcsim: qemu: cannot write %s: %s\n", path, strerror(errno));
    return ok ? 0 : -1;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0;

    *n = 0;
    if (f == NULL)
        return NULL;
    for (;;) {
        if (*n == cap) {
            uint8_t *b = realloc(buf, cap ? 2 * cap : 1 << 16);
            if (b == NULL)
                break;
            buf = b;
            cap = cap ? 2 * cap : 1 << 16;
        }
        size_t got = fread(buf + *n, 1, cap - *n, f);
        if (got == 0)
            break;
        *n += got;
    }
    fclose(f);
    return buf;
}

int qemu_write_blob(const struct scenario *s, uint32_t flags, const char *path, uint32_t *crc)
{
    size_t size = blob_encode(s, flags, NULL, 0);
    uint8_t *buf;
    int rc;

    if (size > BLOB_MAX_BYTES) {
        fprintf(stderr, "mcsim: qemu: the scenario is too large for the image (%zu bytes)\n", size);
        return -1;
    }
    buf = malloc(size);
    if (buf == NULL)
        return -1;
    blob_encode(s, flags, buf, size);
    *crc = (uint32_t)buf[12] | (uint32_t)buf[13] << 8 | (uint32_t)buf[14] << 16 |
           (uint32_t)buf[15] << 24;
    rc = write_file(path, buf, size);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------ the UART output */

static void console_text(void *ctx, const char *bytes, size_t n)
{
    struct qemu_trace *t = ctx;
    for (size_t i = 0; i < n && t->console_len + 1 < sizeof t->console; i++)
        t->console[t->console_len++] = bytes[i];
    t->console[t->console_len] = 0;
}

static int trace_add(struct qemu_trace *t, const struct wire_record *r)
{
    if (!grow_one(&t->recs, &t->cap, t->n, sizeof *t->recs))
        return -1;
    t->recs[t->n++] = *r;
    return 0;
}

int qemu_trace_decode(struct qemu_trace *t, const uint8_t *buf, size_t n)
{
    struct frame_reader fr;
    struct frame f;
    struct wire_record r;

    frame_reader_init(&fr, buf, n);
    fr.text = console_text;
    fr.text_ctx = t;
    while (frame_next(&fr, &f)) {
        if (frame_decode(&f, &r) != 0) {
            t->bad++;
            continue;
        }
        if (r.type == WIRE_HELLO) {
            t->hello = r;
            t->has_hello = true;
            continue;
        }
        if (r.type == WIRE_END) {
            t->end = r;
            t->has_end = true;
        }
        if (trace_add(t, &r) != 0)
            return -1;
    }
    t->skipped = fr.skipped;
    return 0;
}

void qemu_show_console(const struct qemu_trace *t)
{
    if (t->console_len)
        fprintf(stderr, "%s%s", t->console, t->console[t->console_len - 1] == '\n' ? "" : "\n");
}

const char *qemu_trace_problem(const struct qemu_trace *t, uint32_t blob_crc)
{
    if (!t->has_hello)
        return "the image wrote no trace (no HELLO frame)";
    if (t->hello.u.hello.version != WIRE_VERSION)
        return "the image writes another version of the wire format";
    if (t->hello.u.hello.blob_crc != blob_crc)
        return "the trace is of another scenario blob";
    if (t->bad)
        return "the trace holds frames that do not decode";
    if (!t->has_end)
        return "the trace ends without an END frame (cut short)";
    if (t->end.u.end.dropped)
        return "the image's trace buffer overflowed: records were dropped";
    if (t->end.u.end.records + 1 != t->n && t->end.u.end.status == WIRE_END_OK)
        return "frames are missing from the trace";
    return NULL;
}

int qemu_trace_read(struct qemu_trace *t, const char *path)
{
    size_t n;
    uint8_t *buf = read_file(path, &n);
    int rc = buf ? qemu_trace_decode(t, buf, n) : -1;

    free(buf);
    return rc;
}

void qemu_trace_release(struct qemu_trace *t)
{
    free(t->recs);
    memset(t, 0, sizeof *t);
}
