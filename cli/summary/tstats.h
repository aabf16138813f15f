/*
 * The MCS accounting of one run, per thread, from its recorded tables: what
 * the summary of `mcsim run`, `mcsim check` and `mcsim stats` print, one
 * definition for all three (docs: README "Per-thread accounting").
 *
 * - jobs: the thread's jobs (the jobs table) plus its releases lost: a
 *   device's interrupt lost while the line was masked (irqs.lost, whose
 *   handler is the thread waiting on the device's notification) is a job
 *   that never ran;
 * - missed: jobs that missed their deadline (DB_JOB_MISSED_SQL), jobs
 *   whose call was aborted (DB_JOB_ABORTED_SQL: they did not do their
 *   work), and the releases lost;
 * - worst, mean, p50/p90/p99 response: over the finished jobs;
 * - cpu: the time the thread ran (its slices, whoever paid);
 * - charged: the time its context paid for (its own slices on it and those
 *   of the threads it was donated to: a passive server's work is charged
 *   to its client);
 * - throttles, throttled: the throttle events of its context and the time
 *   from each to the context's next replenish (or the end of the run);
 * - timeout_faults, grants: timeout faults raised on its context, and
 *   emergency budgets granted to it; aborted_calls: its calls ended by
 *   an error reply (call_aborted).
 * Times are cycles of the run (cpu_hz); a value that does not exist (no
 * finished job) is -1. The figures are accumulated row by row (tacc.h):
 * from one scan of each recorded table, or, in `mcsim run`, from the rows
 * as they were recorded.
 */
#ifndef MCSIM_CLI_TSTATS_H
#define MCSIM_CLI_TSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "db/db.h"
#include "acct/tacc.h"

struct tstats {
    int64_t thread_id;
    char name[64];
    char criticality[64];
    int64_t priority;
    int64_t jobs, missed, lost, aborted_jobs;
    int64_t worst, mean, p50, p90, p99;
    int64_t cpu, charged, throttles, throttled;
    int64_t timeout_faults, grants, aborted_calls;
};

/* The run's figures: its cpu_hz and duration, and one tstats per scenario
 * thread (thread_id 1, 2, ...), in a malloc'd array. */
struct tstats_run {
    int64_t run_id;
    uint64_t cpu_hz, duration;
    struct tstats *threads;
    size_t n;
};

/*
 * Compute the accounting of run `run_id` of `db` (a connection with the
 * run_* views) into *out, the response percentiles -1 (not loaded).
 * Returns 0, or -1 with "mcsim: why" in err (an SQL error, no such run,
 * out of memory). Release with tstats_release.
 */
int tstats_load(sqlite3 *db, int64_t run_id, struct tstats_run *out, char *err, size_t err_len);

/* The same with the figures taken from `acc`, the run's rows accumulated
 * as they were recorded (tacc_sink.h: `mcsim run`), the threads' names
 * and the run's cpu_hz and duration from the tables; acc NULL: from the
 * tables too (tacc_scan, as tstats_load). */
int tstats_from(sqlite3 *db, int64_t run_id, const struct tacc *acc, struct tstats_run *out,
                char *err, size_t err_len);

/*
 * Load the response percentiles p50/p90/p99 of r's threads (-1 where no
 * job finished): a sort of each thread's responses, which only `mcsim
 * stats` prints. Returns 0, or -1 with "mcsim: why" in err; r stays
 * loaded either way (tstats_release).
 */
int tstats_percentiles(sqlite3 *db, struct tstats_run *r, char *err, size_t err_len);

void tstats_release(struct tstats_run *r);

/*
 * Print the per-thread table of `r` to f, times in units (summary_format_time),
 * one line per thread under a header line, each line indented by two spaces.
 */
void tstats_print_table(FILE *f, const struct tstats_run *r);

#endif /* MCSIM_CLI_TSTATS_H */
