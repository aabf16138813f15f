/*
 * The summary `mcsim run` prints after the verdicts: kernel work, cycles
 * per scheduling decision and interrupt latency (the run_stats view), jobs
 * and misses per criticality (releases lost and aborted jobs counted as
 * missed), throttles, timeout faults, interrupts delivered and lost, and
 * the per-thread accounting of tstats.h. Computed from the recorded tables
 * of the run.
 */
#ifndef MCSIM_CLI_SUMMARY_H
#define MCSIM_CLI_SUMMARY_H

#include <stdio.h>

#include <sqlite3.h>

#include "engine.h"
#include "scenario.h"
#include "acct/tacc.h"

/* Print the summary of run `run_id` (recorded from `s`, with engine result
 * `r`, in the database file `db_path`), its accounting `acc` accumulated
 * as it was recorded (tacc_sink.h), or, NULL, read from the tables
 * (tacc_scan.h). Query errors are printed as a note; the summary is
 * informative only. */
void summary_print(FILE *f, sqlite3 *db, int64_t run_id, const struct scenario *s,
                   const struct eng_result *r, const char *db_path, const struct tacc *acc);

/* Format a duration in cycles in the largest readable unit (s, ms, us, ns,
 * or cycles below a nanosecond's worth), exactly to 3 decimals at most. */
void summary_format_time(char *buf, size_t len, uint64_t cycles, uint64_t cpu_hz);

#endif /* MCSIM_CLI_SUMMARY_H */
