/*
 * mcsim runs: one line per run of a database (issue 14), read-only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "db/db.h"
#include "summary/summary.h"

const char cmd_runs_usage[] =
    "usage: mcsim runs DB\n"
    "\n"
    "List the runs a database holds, one line each: its id, scenario, scheduler,\n"
    "seed, duration, hal (sim or qemu), whether it finished, and its verdict\n"
    "(passed: every applicable expectation held; failed N of M; '-' for a run\n"
    "that did not finish). Nothing is written.\n"
    "\n"
    "Exit status: 0, 2 for bad usage or a file that is not an mcsim database.\n";

static const char runs_sql[] =
    "SELECT r.run_id, r.scenario, r.scheduler, r.seed, r.duration, r.cpu_hz, r.hal, r.finished,"
    " (SELECT count(*) FROM expectations e WHERE e.run_id = r.run_id AND e.applicable = 1),"
    " (SELECT count(*) FROM expectations e WHERE e.run_id = r.run_id AND e.applicable = 1"
    "  AND e.passed = 0)"
    " FROM runs r ORDER BY r.run_id";

static void verdict(char *buf, size_t n, int finished, int64_t applicable, int64_t failed)
{
    if (!finished)
        snprintf(buf, n, "-");
    else if (failed)
        snprintf(buf, n, "failed %" PRId64 " of %" PRId64, failed, applicable);
    else
        snprintf(buf, n, "passed");
}

static int list(sqlite3 *db, const char *path)
{
    sqlite3_stmt *st;
    int rc, n = 0;

    if (sqlite3_prepare_v2(db, runs_sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mcsim: %s: %s\n", path, sqlite3_errmsg(db));
        return 2;
    }
    printf("%4s  %-20s %-9s %20s %10s %-4s %-8s %s\n", "run", "scenario", "scheduler", "seed",
           "duration", "hal", "finished", "verdict");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char dur[32], v[48];
        int64_t cycles = sqlite3_column_int64(st, 4), hz = sqlite3_column_int64(st, 5);

        summary_format_time(dur, sizeof dur, cycles > 0 ? (uint64_t)cycles : 0,
                            hz > 0 ? (uint64_t)hz : 1);
        verdict(v, sizeof v, sqlite3_column_int(st, 7), sqlite3_column_int64(st, 8),
                sqlite3_column_int64(st, 9));
        printf("%4lld  %-20s %-9s %20llu %10s %-4s %-8s %s\n",
               (long long)sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
               (const char *)sqlite3_column_text(st, 2),
               (unsigned long long)sqlite3_column_int64(st, 3), dur,
               (const char *)sqlite3_column_text(st, 6), sqlite3_column_int(st, 7) ? "yes" : "no",
               v);
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "mcsim: %s: %s\n", path, sqlite3_errmsg(db));
        return 2;
    }
    if (n >= 2)
        printf("compare two runs: mcsim diff %s --run A --run B; per thread: mcsim stats %s "
               "--run N\n",
               path, path);
    return 0;
}

int cmd_runs(int argc, char **argv)
{
    char err[DB_ERRMSG_MAX];
    sqlite3 *db;
    int status;

    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "mcsim: runs: %s\n(see 'mcsim help runs')\n",
                argc < 2 ? "no database given" : argc > 2 ? "only one database may be given"
                                                          : "no options but --help");
        return 2;
    }
    if (db_open_read(argv[1], &db, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    status = list(db, argv[1]);
    sqlite3_close(db);
    return status;
}
