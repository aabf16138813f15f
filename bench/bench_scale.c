/*
 * mcsim_scale: how the simulator's speed holds up with the number of
 * threads, and how it compares with SimSo on a rate-monotonic set. Not a
 * test: it prints figures (times are CPU time, see cpu_s; they still depend
 * on the machine and its load; run
 * bench/callgrind.sh for instruction counts, which do not).
 *
 *   mcsim_scale [--threads N,N,...] [--repeat N] [--rm-only | --scale-only]
 *   mcsim_scale --once rm|periodic|devices [N [DURATION]]
 *   mcsim_scale --yaml periodic|devices N [DURATION]
 *
 * (a) the 10-task RM set (bench/rm10.yaml, U = 0.8, 10 s simulated):
 *     unrecorded (the null sink, eng_run alone) and recorded (the whole
 *     `mcsim run` process: load, record to a fresh SQLite file, check,
 *     summary), in jobs per second and as a multiple of SimSo's. SimSo is
 *     not installed here (it is no Debian or npm package): its figure is
 *     the one measured when issue 18 was filed, on this machine, on the
 *     same set: mcsim's 4.3 M jobs/s were 680 x SimSo 0.8.2, so SimSo
 *     simulates about 6,300 jobs/s (SIMSO_JOBS_PER_S).
 * (b) scaling: N threads in two forms, generated here, unrecorded:
 *     periodic: each thread on its own context computes 2us a job then
 *         yields, released by its refill (period N x 5us x 1..4), so
 *         every job passes through the release queue;
 *     devices: each thread waits for its device's interrupt (one device
 *         per thread up to 1,024, period min(N, 1024) x 5us x 1..4),
 *         computes 2us and acknowledges it.
 *     Kernel entries per CPU second, ns per entry, and the ratio
 *     to the 10-thread run of the same form, all in one invocation. The
 *     periods grow with N so that the simulated load, and the entries per
 *     simulated second, stay about the same.
 * --once runs one case once, for callgrind (bench/callgrind.sh), and
 * prints its kernel entries and jobs; --yaml prints a scaling scenario
 * (to run it with mcsim, or measure its memory).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "engine.h"
#include "load/load.h"
#include "null_sink.h"
#include "util/diag.h"
#include "util/strbuf.h"

#define SIMSO_JOBS_PER_S 6300.0

enum form { FORM_PERIODIC, FORM_DEVICES };
static const char *const form_names[] = {"periodic", "devices"};

/* CPU time of this process: on a machine shared with other work, wall
 * time measures the others as much as mcsim (the fastest of several runs
 * still varied by a factor of two), CPU time much less. */
static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU time (user + system) of the children waited for so far. */
static double children_cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

/* Thread i's (or device i's) period in us: n x 5us x (1..4). */
static unsigned period_us(unsigned n, unsigned i)
{
    return n * 5u * (1u + i % 4u);
}

/* The scenario of `form` with n threads, as YAML. */
static void scale_yaml(enum form form, unsigned n, const char *duration, struct strbuf *o)
{
    unsigned devices = form == FORM_DEVICES ? (n < 1024 ? n : 1024) : 0;

    sb_printf(o, "mcsim: 1\nname: scale_%s_%u\nseed: 1\nduration: %s\ncriticality: [lo]\n",
                  form_names[form], n, duration);
    if (devices) {
        sb_printf(o, "notifications: [");
        for (unsigned i = 0; i < devices; i++)
            sb_printf(o, "%sn%u", i ? ", " : "", i);
        sb_printf(o, "]\ndevices:\n");
        for (unsigned i = 0; i < devices; i++)
            sb_printf(o, "  d%u: {irq: %u, notification: n%u, arrivals: {periodic: %uus}}\n",
                          i, i, i, period_us(devices, i));
    }
    sb_printf(o, "threads:\n");
    for (unsigned i = 0; i < n; i++) {
        unsigned d = devices ? i % devices : 0;
        sb_printf(o, "  t%u:\n    priority: %u\n    criticality: lo\n", i, 1 + i % 250);
        if (form == FORM_PERIODIC)
            sb_printf(o, "    budget: 3us\n    period: %uus\n    program:\n"
                             "      - loop:\n          - job: [{compute: 2us}]\n"
                             "          - yield\n",
                          period_us(n, i));
        else
            sb_printf(o, "    budget: 5us\n    period: %uus\n    program:\n"
                             "      - loop:\n          - wait: n%u\n"
                             "          - job: [{compute: 2us}]\n          - irq_ack: d%u\n",
                          period_us(devices, d), d, d);
    }
}

static int load_text(const char *name, const char *text, size_t len, struct scenario *s)
{
    struct diag d;
    int rc;

    diag_init(&d);
    rc = load_scenario_text(name, text, len, s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    return rc;
}

struct measure {
    uint64_t entries, jobs;
    double wall; /* CPU seconds (see cpu_s) */
};

/* Unrecorded runs of s: the fastest of `repeat`. */
static int run_null(const struct scenario *s, unsigned repeat, struct measure *m)
{
    for (unsigned i = 0; i < repeat; i++) {
        struct eng_options o;
        struct eng_result r;
        memset(&o, 0, sizeof o);
        o.seed = s->seed;
        o.duration = s->duration;
        o.scheduler = s->scheduler;
        o.version = MCSIM_VERSION;
        o.sink = null_sink(); /* unrecorded: engine.h */
        double t0 = cpu_s();
        eng_run(s, &o, &r);
        double wall = cpu_s() - t0;
        if (r.status != ENG_OK) {
            fprintf(stderr, "mcsim_scale: %s: %s\n", s->name, r.error);
            return -1;
        }
        if (i == 0 || wall < m->wall)
            *m = (struct measure){.entries = r.kernel_entries, .jobs = r.jobs, .wall = wall};
    }
    return 0;
}

/* The whole `mcsim run SCENARIO -o FILE --quiet` process, the fastest of
 * `repeat`, each into a fresh file; jobs counted in the file. */
static int run_recorded(const char *scenario, unsigned repeat, struct measure *m)
{
    char dir[] = "/tmp/mcsim-scale-XXXXXX", db[64], cmd[1024];

    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "mcsim_scale: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(db, sizeof db, "%s/run.db", dir);
    for (unsigned i = 0; i < repeat; i++) {
        remove(db);
        snprintf(cmd, sizeof cmd, "'%s' run '%s' -o '%s' --quiet > /dev/null", MCSIM_BIN_PATH,
                 scenario, db);
        double t0 = children_cpu_s();
        int st = system(cmd);
        double wall = children_cpu_s() - t0;
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "mcsim_scale: '%s' failed\n", cmd);
            remove(db);
            rmdir(dir);
            return -1;
        }
        if (i == 0 || wall < m->wall)
            m->wall = wall;
    }
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'SELECT count(*) FROM jobs'", db);
    FILE *p = popen(cmd, "r");
    unsigned long long jobs = 0;
    if (p == NULL || fscanf(p, "%llu", &jobs) != 1)
        fprintf(stderr, "mcsim_scale: cannot count the jobs of %s\n", db);
    if (p)
        pclose(p);
    m->jobs = jobs;
    remove(db);
    rmdir(dir);
    return 0;
}

static int load_file(const char *path, struct scenario *s)
{
    struct diag d;
    int rc;

    diag_init(&d);
    rc = load_scenario(path, s, &d);
    diag_print(&d, stderr);
    diag_release(&d);
    return rc;
}

static int rm_set(unsigned repeat)
{
    struct scenario s;
    struct measure u = {0}, r = {0};

    if (load_file(MCSIM_RM10, &s) != 0)
        return -1;
    int rc = run_null(&s, repeat, &u);
    scenario_release(&s);
    if (rc == 0)
        rc = run_recorded(MCSIM_RM10, repeat, &r);
    if (rc != 0)
        return -1;
    printf("10-task RM set (%s, 10 s simulated), fastest of %u:\n", MCSIM_RM10, repeat);
    printf("  unrecorded (eng_run, null sink): %llu jobs, %llu kernel entries in %.4f CPU s: "
           "%.2f M jobs/s = %.0f x SimSo, %.2f M entries/s, %.1f ns per entry\n",
           (unsigned long long)u.jobs, (unsigned long long)u.entries, u.wall,
           (double)u.jobs / u.wall / 1e6, (double)u.jobs / u.wall / SIMSO_JOBS_PER_S,
           (double)u.entries / u.wall / 1e6, u.wall * 1e9 / (double)u.entries);
    printf("  recorded (the whole 'mcsim run' process): %llu jobs in %.4f CPU s: %.0f k jobs/s = "
           "%.0f x SimSo\n",
           (unsigned long long)r.jobs, r.wall, (double)r.jobs / r.wall / 1e3,
           (double)r.jobs / r.wall / SIMSO_JOBS_PER_S);
    printf("  (SimSo: %.0f jobs/s, the figure of issue 18 on this machine; not installed here)\n",
           SIMSO_JOBS_PER_S);
    printf("  targets: unrecorded >= 1000 x SimSo: %s; recorded >= 200 x SimSo: %s\n",
           (double)u.jobs / u.wall >= 1000 * SIMSO_JOBS_PER_S ? "met" : "MISSED",
           (double)r.jobs / r.wall >= 200 * SIMSO_JOBS_PER_S ? "met" : "MISSED");
    return 0;
}

static int scale_one(enum form form, unsigned n, const char *duration, unsigned repeat,
                     struct measure *m)
{
    struct strbuf y;
    struct scenario s;
    char name[64];
    int rc;

    memset(&y, 0, sizeof y);
    scale_yaml(form, n, duration, &y);
    snprintf(name, sizeof name, "scale_%s_%u.yaml", form_names[form], n);
    rc = y.failed ? -1 : load_text(name, y.buf, y.len, &s);
    sb_release(&y);
    if (rc != 0)
        return -1;
    rc = run_null(&s, repeat, m);
    scenario_release(&s);
    return rc;
}

/* Entries per second of a scaling case: over the whole of eng_run, and
 * over the run alone (less the CPU time of the same system run for 1ms:
 * the set-up and the boot, where the root task builds the system, and
 * 1/2000 of the run). */
static int scaling(const unsigned *ns, unsigned n_ns, unsigned repeat)
{
    printf("\nscaling, unrecorded, fastest of %u (2 s simulated each; boot: the same system "
           "run for 1ms):\n",
           repeat);
    printf("%-9s %7s %10s %9s %8s %11s %9s %8s %11s %9s %8s\n", "form", "threads", "entries",
           "jobs", "boot s", "entries/s", "ns/entry", "vs first", "run only/s", "ns/entry",
           "vs first");
    for (int f = FORM_PERIODIC; f <= FORM_DEVICES; f++) {
        double first = 0, first_run = 0;
        for (unsigned i = 0; i < n_ns; i++) {
            struct measure m = {0}, boot = {0};
            if (scale_one((enum form)f, ns[i], "2s", repeat, &m) != 0 ||
                scale_one((enum form)f, ns[i], "1ms", repeat, &boot) != 0)
                return -1;
            double rate = (double)m.entries / m.wall;
            double run = m.wall > boot.wall ? m.wall - boot.wall : m.wall;
            double run_rate = (double)m.entries / run;
            if (i == 0) {
                first = rate;
                first_run = run_rate;
            }
            printf("%-9s %7u %10llu %9llu %8.3f %9.2fM %9.1f %8.2f %9.2fM %9.1f %8.2f\n",
                   form_names[f], ns[i], (unsigned long long)m.entries,
                   (unsigned long long)m.jobs, boot.wall, rate / 1e6, 1e9 / rate, rate / first,
                   run_rate / 1e6, 1e9 / run_rate, run_rate / first_run);
        }
    }
    printf("  target: entries/s at 1,000 threads >= 0.7 x those at 10, both forms\n");
    return 0;
}

/* --once: one run of one case, for callgrind, which counts eng_run. */
static int once(const char *what, unsigned n, const char *duration)
{
    struct measure m = {0};
    int rc;

    if (strcmp(what, "rm") == 0) {
        struct scenario s;
        if (load_file(MCSIM_RM10, &s) != 0)
            return 2;
        rc = run_null(&s, 1, &m);
        scenario_release(&s);
    } else if (strcmp(what, "periodic") == 0 || strcmp(what, "devices") == 0) {
        rc = scale_one(strcmp(what, "periodic") == 0 ? FORM_PERIODIC : FORM_DEVICES, n, duration,
                       1, &m);
    } else {
        return 2;
    }
    if (rc != 0)
        return 3;
    printf("%s %u: %llu kernel entries, %llu jobs\n", what, n, (unsigned long long)m.entries,
           (unsigned long long)m.jobs);
    return 0;
}

static const char usage_text[] =
    "usage: mcsim_scale [--threads N,N,...] [--repeat N] [--rm-only | --scale-only]\n"
    "       mcsim_scale --once rm|periodic|devices [N [DURATION]]\n"
    "       mcsim_scale --yaml periodic|devices N [DURATION]\n";

int main(int argc, char **argv)
{
    unsigned ns[16] = {10, 100, 1000, 4000}, n_ns = 4, repeat = 3;
    bool rm = true, scale = true;

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--yaml") == 0 && v && i + 2 < argc) {
            struct strbuf y;
            memset(&y, 0, sizeof y);
            scale_yaml(strcmp(v, "devices") == 0 ? FORM_DEVICES : FORM_PERIODIC,
                       (unsigned)strtoul(argv[i + 2], NULL, 10), i + 3 < argc ? argv[i + 3] : "2s",
                       &y);
            fputs(sb_str(&y), stdout);
            sb_release(&y);
            return y.failed ? 3 : 0;
        }
        if (strcmp(argv[i], "--once") == 0 && v)
            return once(v, i + 2 < argc ? (unsigned)strtoul(argv[i + 2], NULL, 10) : 10,
                        i + 3 < argc ? argv[i + 3] : "2s");
        if (strcmp(argv[i], "--repeat") == 0 && v) {
            repeat = (unsigned)strtoul(v, NULL, 10);
            i++;
        } else if (strcmp(argv[i], "--threads") == 0 && v) {
            char *p = argv[++i];
            for (n_ns = 0; *p && n_ns < 16; n_ns++) {
                ns[n_ns] = (unsigned)strtoul(p, &p, 10);
                if (*p == ',')
                    p++;
            }
        } else if (strcmp(argv[i], "--rm-only") == 0) {
            scale = false;
        } else if (strcmp(argv[i], "--scale-only") == 0) {
            rm = false;
        } else {
            fputs(usage_text, stderr);
            return 2;
        }
    }
    if (repeat == 0 || n_ns == 0) {
        fputs(usage_text, stderr);
        return 2;
    }
    for (unsigned i = 0; i < n_ns; i++) {
        if (ns[i] == 0 || ns[i] > 4096) {
            fputs("mcsim_scale: threads are 1 to 4096\n", stderr);
            return 2;
        }
    }
    if (rm && rm_set(repeat) != 0)
        return 3;
    if (scale && scaling(ns, n_ns, repeat) != 0)
        return 3;
    return 0;
}
