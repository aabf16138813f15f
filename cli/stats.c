/*
 * mcsim stats: the per-thread accounting of a recorded run (tstats.h),
 * with response-time percentiles, as a table, CSV or JSON (issue 14).
 * Read-only. CSV and JSON give times as exact decimal nanoseconds (a
 * column's unit is in its name; integers at 1 GHz), empty or null where a
 * value does not exist (no finished job).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "db/db.h"
#include "util/decimal.h"
#include "util/diag.h"
#include "export/export.h"
#include "summary/summary.h"
#include "summary/tstats.h"

const char cmd_stats_usage[] =
    "usage: mcsim stats DB [--run N] [--format table|csv|json]\n"
    "\n"
    "Print the per-thread accounting of a recorded run, as the summary of\n"
    "`mcsim run` has it, with response-time percentiles: jobs (releases lost\n"
    "with their interrupt included), missed (deadline misses, jobs whose call\n"
    "was aborted, releases lost), lost, aborted calls, response p50/p90/p99/\n"
    "max and mean over the finished jobs (nearest rank), CPU time run, time\n"
    "charged to its context, throttles and time throttled, timeout faults,\n"
    "emergency grants. Nothing is written.\n"
    "\n"
    "  --run N        the run (default: the latest finished run)\n"
    "  --format F     table (default; times in ns/us/ms/s), csv or json (times as\n"
    "                 exact decimal nanoseconds, in columns named *_ns)\n"
    "\n"
    "Exit status: 0, 2 for bad usage or input.\n";

enum stats_format { FMT_TABLE, FMT_CSV, FMT_JSON };

struct stats_args {
    const char *db;
    int64_t run;
    enum stats_format format;
};

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mcsim: stats: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'mcsim help stats')\n");
    return 2;
}

static int parse_args(int argc, char **argv, struct stats_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--run") == 0 || strcmp(argv[i], "--format") == 0) {
            const char *opt = argv[i];
            char *end;

            if (++i >= argc)
                return usage_error("option '%s' needs a value", opt);
            if (strcmp(opt, "--run") == 0) {
                a->run = strtoll(argv[i], &end, 10);
                if (*end || end == argv[i] || a->run < 1)
                    return usage_error("--run takes a run id (1, 2, ...), not '%s'", argv[i]);
            } else if (strcmp(argv[i], "table") == 0) {
                a->format = FMT_TABLE;
            } else if (strcmp(argv[i], "csv") == 0) {
                a->format = FMT_CSV;
            } else if (strcmp(argv[i], "json") == 0) {
                a->format = FMT_JSON;
            } else {
                return usage_error("--format takes table, csv or json, not '%s'", argv[i]);
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return diag_unknown_option("stats", argv[i], cmd_stats_usage);
        } else if (a->db == NULL) {
            a->db = argv[i];
        } else {
            return usage_error("only one database may be given (also got '%s')", argv[i]);
        }
    }
    return a->db ? 0 : usage_error("no database given%s", "");
}

/* Exact decimal nanoseconds, or `none` for a value that does not exist. */
static const char *ns(char *buf, size_t n, int64_t cycles, uint64_t cpu_hz, const char *none)
{
    if (cycles < 0)
        return none;
    dec_ratio(buf, n, (uint64_t)cycles, 1000000000u, cpu_hz, DEC_MAX_FRACTION);
    return buf;
}

/* The time columns of a thread, in order, and their names. */
#define STATS_TIMES(t)                                                                             \
    {(t)->p50, (t)->p90, (t)->p99, (t)->worst, (t)->mean, (t)->cpu, (t)->charged, (t)->throttled}
static const char *const time_names[] = {
    "response_p50_ns", "response_p90_ns", "response_p99_ns", "response_max_ns",
    "response_mean_ns", "cpu_ns",         "charged_ns",      "throttled_ns"};
#define N_TIMES (sizeof time_names / sizeof time_names[0])

static void print_csv(const struct tstats_run *r)
{
    printf("thread,priority,criticality,jobs,missed,lost,aborted_calls,aborted_jobs,throttles,"
           "timeout_faults,emergency_grants");
    for (size_t k = 0; k < N_TIMES; k++)
        printf(",%s", time_names[k]);
    printf("\n");
    for (size_t i = 0; i < r->n; i++) {
        const struct tstats *t = &r->threads[i];
        int64_t times[N_TIMES] = STATS_TIMES(t);
        char b[DEC_BUF];

        printf("%s,%" PRId64 ",%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
               ",%" PRId64 ",%" PRId64 ",%" PRId64,
               t->name, t->priority, t->criticality, t->jobs, t->missed, t->lost,
               t->aborted_calls, t->aborted_jobs, t->throttles, t->timeout_faults, t->grants);
        for (size_t k = 0; k < N_TIMES; k++)
            printf(",%s", ns(b, sizeof b, times[k], r->cpu_hz, ""));
        printf("\n");
    }
}

static void print_json(const struct tstats_run *r)
{
    printf("{\"run\": %" PRId64 ", \"cpu_hz\": %" PRIu64 ", \"threads\": [", r->run_id, r->cpu_hz);
    for (size_t i = 0; i < r->n; i++) {
        const struct tstats *t = &r->threads[i];
        int64_t times[N_TIMES] = STATS_TIMES(t);
        char b[DEC_BUF];

        /* names and levels are identifiers of the scenario: no quoting needed */
        printf("%s\n  {\"thread\": \"%s\", \"priority\": %" PRId64 ", \"criticality\": \"%s\","
               " \"jobs\": %" PRId64 ", \"missed\": %" PRId64 ", \"lost\": %" PRId64
               ", \"aborted_calls\": %" PRId64 ", \"aborted_jobs\": %" PRId64
               ", \"throttles\": %" PRId64 ", \"timeout_faults\": %" PRId64
               ", \"emergency_grants\": %" PRId64,
               i ? "," : "", t->name, t->priority, t->criticality, t->jobs, t->missed, t->lost,
               t->aborted_calls, t->aborted_jobs, t->throttles, t->timeout_faults, t->grants);
        for (size_t k = 0; k < N_TIMES; k++)
            printf(", \"%s\": %s", time_names[k], ns(b, sizeof b, times[k], r->cpu_hz, "null"));
        printf("}");
    }
    printf("\n]}\n");
}

static const char *unit(char *buf, size_t n, int64_t cycles, uint64_t cpu_hz)
{
    if (cycles < 0)
        return "-";
    summary_format_time(buf, n, (uint64_t)cycles, cpu_hz);
    return buf;
}

static void print_table(const struct tstats_run *r, const char *path)
{
    printf("run %" PRId64 " of %s, responses over finished jobs:\n", r->run_id, path);
    printf("  %-16s %6s %6s %5s %7s %10s %10s %10s %10s %10s\n", "thread", "jobs", "missed",
           "lost", "aborted", "p50", "p90", "p99", "max", "mean");
    for (size_t i = 0; i < r->n; i++) {
        const struct tstats *t = &r->threads[i];
        char b[5][32];

        printf("  %-16s %6" PRId64 " %6" PRId64 " %5" PRId64 " %7" PRId64
               " %10s %10s %10s %10s %10s\n",
               t->name, t->jobs, t->missed, t->lost, t->aborted_calls,
               unit(b[0], 32, t->p50, r->cpu_hz), unit(b[1], 32, t->p90, r->cpu_hz),
               unit(b[2], 32, t->p99, r->cpu_hz), unit(b[3], 32, t->worst, r->cpu_hz),
               unit(b[4], 32, t->mean, r->cpu_hz));
    }
    printf("and the MCS accounting:\n");
    tstats_print_table(stdout, r);
}

int cmd_stats(int argc, char **argv)
{
    struct stats_args a;
    struct tstats_run r;
    char err[DB_ERRMSG_MAX];
    sqlite3 *db;
    int64_t run_id;
    bool finished;
    int status;

    if ((status = parse_args(argc, argv, &a)) != 0)
        return status;
    if (db_open_read(a.db, &db, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (export_find_run(db, a.db, a.run, &run_id, &finished, err, sizeof err) != 0 ||
        tstats_load(db, run_id, &r, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        sqlite3_close(db);
        return 2;
    }
    if (tstats_percentiles(db, &r, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        tstats_release(&r);
        sqlite3_close(db);
        return 2;
    }
    if (!finished)
        fprintf(stderr, "mcsim: stats: note: run %" PRId64 " is unfinished: figures of what "
                        "was recorded\n",
                run_id);
    if (a.format == FMT_CSV)
        print_csv(&r);
    else if (a.format == FMT_JSON)
        print_json(&r);
    else
        print_table(&r, a.db);
    tstats_release(&r);
    sqlite3_close(db);
    return 0;
}
