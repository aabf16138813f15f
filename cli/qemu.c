/*
 * mcsim qemu: run a scenario on the real kernel image under QEMU (AArch64
 * virt, -icount shift=0: one instruction is one nanosecond), record the
 * run into the same tables as `mcsim run` with runs.hal = 'qemu', check
 * the expectations. The scenario goes to the image as a blob
 * (sim/blob.h); the image's records come back as UART frames
 * (sim/wire.h), decoded by cli/qemu/frame.c and recorded by sim/replay.c.
 * Exit status as `mcsim run`: 0, 1, 2 (bad usage or input, no QEMU or no
 * image), 3 (the run failed: the image's error, a timeout, a damaged
 * trace).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mcsim/bootinfo.h>

#include "blob.h"
#include "commands.h"
#include "db/db.h"
#include "util/diag.h"
#include "check/expect.h"
#include "qemu/frame.h"
#include "load/load.h"
#include "qemu/qemu_run.h"
#include "replay.h"
#include "runcmd/runcmd.h"
#include "summary/summary.h"
#include "util/units.h"
#include "util/version.h"

const char cmd_qemu_usage[] =
    "usage: mcsim qemu SCENARIO [-o DB] [--image ELF] [--qemu PATH] [--timeout S]\n"
    "                  [--seed N] [--duration D] [--scheduler mcs|classic]\n"
    "                  [--trace sched|full] [--bench-ipc] [--keep DIR] [--quiet]\n"
    "\n"
    "Run a scenario on the kernel image under QEMU (qemu-system-aarch64 -M virt,\n"
    "-icount shift=0: one guest instruction is one nanosecond), record the run\n"
    "with hal 'qemu' and check its expectations, as `mcsim run` does.\n"
    "\n"
    "  -o DB                    the database to append the run to (default: mcsim.db)\n"
    "  --image ELF              the image (default: $MCSIM_QEMU_IMAGE, else\n"
    "                           build/aarch64-qemu/mcsim-qemu.elf beside this mcsim's\n"
    "                           build directory; preset aarch64-qemu builds it)\n"
    "  --qemu PATH              qemu-system-aarch64 to use (default: from PATH;\n"
    "                           Debian package qemu-system-arm)\n"
    "  --timeout S              wall-clock limit of the QEMU run in seconds (default 300)\n"
    "  --seed, --duration, --scheduler, --trace   as for `mcsim run`\n"
    "  --bench-ipc              count the instructions of every Call round trip and\n"
    "                           print them (kernel and all)\n"
    "  --keep DIR               keep the blob, the UART output and QEMU's log in DIR\n"
    "  --quiet                  print only failed expectations and errors\n"
    "\n"
    "Exit status: 0 if every expectation held, 1 if one failed, 2 for bad usage,\n"
    "bad input or a missing QEMU or image, 3 if the run failed.\n";

/* The common options, and qemu's own. */
struct qemu_args {
    struct runcmd_args common;
    const char *image, *qemu, *timeout, *keep;
    bool bench_ipc;
};

static int bad_usage(const char *fmt, const char *arg)
{
    return diag_usage("qemu", fmt, arg);
}

static int parse_args(int argc, char **argv, struct qemu_args *a)
{
    const struct runcmd_option own[] = {
        {"--image", &a->image, NULL},         {"--qemu", &a->qemu, NULL},
        {"--timeout", &a->timeout, NULL},     {"--keep", &a->keep, NULL},
        {"--bench-ipc", NULL, &a->bench_ipc},
    };

    memset(a, 0, sizeof *a);
    return runcmd_parse("qemu", argc, argv, own, sizeof own / sizeof own[0], &a->common);
}

static int apply_overrides(const struct runcmd_args *a, struct scenario *s)
{
    char why[200];

    if (a->seed && !runcmd_seed(a->seed, &s->seed))
        return bad_usage("--seed takes a whole number, not '%s'", a->seed);
    if (a->duration) {
        uint64_t cycles = 0;
        if (!units_parse_cycles(a->duration, s->cpu_hz, &cycles, why, sizeof why) || cycles == 0)
            return bad_usage("--duration '%s': not a duration above 0", a->duration);
        s->duration = cycles;
    }
    if (runcmd_scheduler("qemu", a, s) != 0)
        return 2;
    return 0;
}

/* ------------------------------------------------------------ finding things */

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The default image: $MCSIM_QEMU_IMAGE, else the aarch64-qemu preset's
 * build directory beside this program's (build/X/mcsim ->
 * build/aarch64-qemu/mcsim-qemu.elf). */
static int find_image(const struct qemu_args *a, char *buf, size_t len)
{
    const char *env = getenv("MCSIM_QEMU_IMAGE");
    char self[4096];
    ssize_t n;

    if (a->image) {
        snprintf(buf, len, "%s", a->image);
        return is_file(buf) ? 0 : -1;
    }
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return is_file(buf) ? 0 : -1;
    }
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        char *slash;
        self[n] = 0;
        for (int up = 0; up < 2 && (slash = strrchr(self, '/')); up++)
            *slash = 0;
        snprintf(buf, len, "%s/aarch64-qemu/mcsim-qemu.elf", self);
        if (is_file(buf))
            return 0;
    }
    snprintf(buf, len, "build/aarch64-qemu/mcsim-qemu.elf");
    return is_file(buf) ? 0 : -1;
}

static int find_tools(const struct qemu_args *a, char *image, char *qemu, size_t len)
{
    if (qemu_find_program(a->qemu ? a->qemu : "qemu-system-aarch64", qemu, len) != 0) {
        fprintf(stderr,
                "mcsim: qemu: %s not found: install the Debian package qemu-system-arm "
                "(apt-get install qemu-system-arm) or give --qemu PATH\n",
                a->qemu ? a->qemu : "qemu-system-aarch64");
        return 2;
    }
    if (find_image(a, image, len) != 0) {
        fprintf(stderr,
                "mcsim: qemu: no image %s: build it with the aarch64-qemu preset "
                "(cmake --preset aarch64-qemu && cmake --build --preset aarch64-qemu; "
                "needs gcc-aarch64-linux-gnu) or give --image ELF\n",
                image);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------ the run */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The instructions of each Call round trip the image measured. */
static void print_bench(const struct qemu_trace *t)
{
    uint32_t *el1 = calloc(t->n + 1, sizeof *el1), *all = calloc(t->n + 1, sizeof *all);
    size_t n = 0;

    for (size_t i = 0; el1 && all && i < t->n; i++) {
        if (t->recs[i].type == WIRE_BENCH) {
            el1[n] = t->recs[i].u.bench.el1_insns;
            all[n++] = t->recs[i].u.bench.all_insns;
        }
    }
    if (n == 0) {
        printf("IPC: no Call round trip was measured\n");
    } else {
        qsort(el1, n, sizeof *el1, cmp_u32);
        qsort(all, n, sizeof *all, cmp_u32);
        printf("IPC Call + reply round trips: %zu\n"
               "  kernel instructions (EL1: both system calls, entry to exit): "
               "min %u, median %u, max %u\n"
               "  all instructions (svc to return, the server's user code included): "
               "min %u, median %u, max %u\n",
               n, el1[0], el1[n / 2], el1[n - 1], all[0], all[n / 2], all[n - 1]);
    }
    free(el1);
    free(all);
}

static int record(const struct qemu_args *a, const struct scenario *s, const struct qemu_trace *t)
{
    struct db *db;
    struct eng_result r;
    struct eng_options o = {
        .seed = s->seed,
        .duration = s->duration,
        .scheduler = s->scheduler,
        .trace_full = a->common.trace_full,
        .version = mcsim_build_version,
    };
    int status;

    if ((status = runcmd_open_db(&a->common, s, &db, &o.sink)) != 0)
        return status;
    replay_run(s, &o, "qemu", t->hello.u.hello.tick_hz, t->recs, t->n, &r);
    if (r.status != ENG_OK) {
        fprintf(stderr, "mcsim: qemu: %s%s%s\n",
                r.status == ENG_SINK_ERROR ? "recording failed: " : "the run failed: ", r.error,
                r.status == ENG_SINK_ERROR ? db_errmsg(db) : "");
        db_close(db);
        return 3;
    }
    status = runcmd_report("qemu", &a->common, db, s, &r);
    db_close(db);
    return status;
}

/* Run QEMU and read its trace. 0, or the exit status to give. */
static int run_qemu(const struct qemu_args *a, const struct qemu_job *job, uint32_t blob_crc,
                    struct qemu_trace *t)
{
    struct qemu_outcome out;
    char err[256];
    const char *problem;

    if (qemu_run(job, &out, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    if (qemu_trace_read(t, job->uart_log) != 0) {
        fprintf(stderr, "mcsim: qemu: cannot read the UART output %s\n", job->uart_log);
        return 3;
    }
    if (out.timed_out) {
        qemu_show_console(t);
        fprintf(stderr, "mcsim: qemu: QEMU did not finish within %u s (--timeout)\n",
                job->timeout_s);
        return 3;
    }
    if (out.status == 2 && !t->has_hello) {
        qemu_show_console(t);
        fprintf(stderr, "mcsim: qemu: the image refused the scenario blob\n");
        return 2;
    }
    problem = qemu_trace_problem(t, blob_crc);
    if (problem || (out.status != 0 && t->end.u.end.status == WIRE_END_OK)) {
        qemu_show_console(t);
        fprintf(stderr, "mcsim: qemu: %s (QEMU exit status %d; see %s)\n",
                problem ? problem : "QEMU failed", out.status, job->qemu_log);
        return 3;
    }
    if (!a->common.quiet)
        fprintf(stderr,
                "mcsim: qemu: %zu records in %.2f s of wall-clock time; %" PRIu64
                " instructions at EL1 on the timeline, %" PRIu64
                " of them in kernel entries (the rest: the device model, the trace"
                " writer, the idle loop)\n",
                t->n, out.seconds, t->end.u.end.kernel_insns, t->end.u.end.entry_insns);
    return 0;
}

static int run(const struct qemu_args *a, struct scenario *s)
{
    char image[4096], qemu[4096];
    struct qemu_workdir wd = {0};
    struct qemu_trace t = {0};
    uint32_t crc = 0, flags = (a->common.trace_full ? BLOB_TRACE_FULL : 0) |
                              (a->bench_ipc ? BLOB_BENCH_IPC : 0);
    unsigned long timeout = 300;
    int status;

    if (a->timeout) {
        char *end;
        timeout = strtoul(a->timeout, &end, 10);
        if (*end || timeout == 0)
            return bad_usage("--timeout takes a whole number of seconds above 0, not '%s'",
                             a->timeout);
    }
    if ((status = find_tools(a, image, qemu, sizeof image)) != 0)
        return status;
    if (qemu_workdir_open(&wd, a->keep) != 0)
        return 3;
    struct qemu_job job = {.qemu = qemu,
                           .image = image,
                           .blob = wd.blob,
                           .uart_log = wd.uart,
                           .qemu_log = wd.qemu_log,
                           .timeout_s = (unsigned)timeout};
    status = qemu_write_blob(s, flags, wd.blob, &crc) != 0 ? 3 : run_qemu(a, &job, crc, &t);
    if (status == 0)
        status = record(a, s, &t);
    if (status <= 1 && a->bench_ipc)
        print_bench(&t);
    qemu_trace_release(&t);
    if (status <= 1)
        qemu_workdir_close(&wd);
    else if (wd.temporary)
        fprintf(stderr, "mcsim: qemu: the run's files are in %s\n", wd.dir);
    return status;
}

/* The QEMU image runs fewer threads and interrupt lines than the
 * simulator (blob.h): a scenario past them is refused here, at the thread
 * or device in question, rather than by the image. */
static int fits_image(const struct scenario *s)
{
    int status = 0;

    if (s->n_threads > BLOB_MAX_THREADS) {
        const struct scn_thread *t = &s->threads[BLOB_MAX_THREADS];
        fprintf(stderr,
                "%s:%u:%u: error: thread '%s' is one too many for the QEMU image, which runs "
                "at most %d threads (the simulator, 'mcsim run', runs up to %d)\n",
                s->path, (unsigned)t->loc.line, (unsigned)t->loc.col, t->name, BLOB_MAX_THREADS,
                SCN_MAX_THREADS);
        status = 2;
    }
    for (uint32_t i = 0; i < s->n_devices; i++) {
        const struct scn_device *d = &s->devices[i];
        if (d->irq < BLOB_IRQ_LINES)
            continue;
        fprintf(stderr,
                "%s:%u:%u: error: irq %u of device '%s' is past the QEMU image's lines, 0 to %d "
                "(the simulator, 'mcsim run', has lines up to %d)\n",
                s->path, (unsigned)d->loc.line, (unsigned)d->loc.col, (unsigned)d->irq, d->name,
                BLOB_IRQ_LINES - 1, SCN_IRQ_LINES - 1);
        status = 2;
    }
    return status;
}

int cmd_qemu(int argc, char **argv)
{
    struct qemu_args a;
    struct scenario s;
    int status;

    if ((status = parse_args(argc, argv, &a)) != 0)
        return status;
    if ((status = runcmd_load(&a.common, &s)) != 0)
        return status;
    status = fits_image(&s);
    if (status == 0)
        status = apply_overrides(&a.common, &s);
    if (status == 0)
        status = runcmd_runnable(&a.common, &s);
    if (status == 0)
        status = run(&a, &s);
    scenario_release(&s);
    return status;
}
