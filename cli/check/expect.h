/*
 * Expectations (docs/scenario-format.md "Expectations"), evaluated from a
 * recorded run alone: every verdict is made from the run's accounting
 * (acct/tacc.h: deadlines, max_response, count, and the progress
 * guarantee) or its checks over windows of time (acct/twin.h: budget:
 * respected), each accumulated from the run's rows, as `mcsim run`
 * recorded them or from one scan of the tables (`mcsim check DB`, any time
 * later): one implementation, fed two ways, that agree (unit.tacc).
 * The scenario supplies only the expectations themselves, notification
 * contexts (budget: respected) and which threads wait on a device's
 * notification (count of irq with a thread filter).
 *
 * Verdicts are recorded by expect_record, directly in SQL rather than
 * through the sink's `expectation` op, because a verdict may be "not
 * applicable" (expectations.applicable = 0), which sink_expectation
 * cannot carry.
 */
#ifndef MCSIM_CLI_EXPECT_H
#define MCSIM_CLI_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "scenario.h"

#define EXPECT_DETAIL_MAX 320

/* The verdict on one expectation. */
struct expect_result {
    bool applicable;                /* false: a `scheduler:` qualifier names the other
                                       scheduler, or budget: respected under classic */
    bool passed;                    /* meaningful when applicable; true when not */
    char detail[EXPECT_DETAIL_MAX]; /* one line, no newline */
};

/*
 * The allowance of one kernel entry in a budget window, in cycles: entry +
 * syscall + 2 x ipc + schedule + timer_program + exit of the cost model
 * (the kernel's worst path, which a context may overrun by once: the
 * kernel notices exhaustion only at its next entry).
 */
cycles_t expect_entry_allowance(const struct scn_costs *costs);

/*
 * Evaluate every expectation of `s` against run `run_id` of `db`, writing
 * s->n_expects verdicts to out[0 .. s->n_expects). `s` must be the
 * scenario the run was recorded from (its threads are the run's threads,
 * thread_id = index + 1). `entry_allowance` is what budget: respected
 * grants beyond the budget per window (expect_entry_allowance). Rows
 * written but not committed on the same connection are seen. Nothing is
 * written. Returns 0, or -1 with "mcsim: DB: message" in errmsg when the
 * run does not exist or a query fails (out is then incomplete).
 */
int expect_evaluate(sqlite3 *db, int64_t run_id, const struct scenario *s, cycles_t entry_allowance,
                    struct expect_result *out, char *errmsg, size_t errmsg_size);

/*
 * The same from `acc`, the run's accounting accumulated as it was recorded
 * (acct/tacc_sink.h: `mcsim run`) or scanned by the caller; with acc NULL
 * (expect_evaluate) from one scan of the run's tables (tacc_scan), made
 * when the first expectation other than budget: respected needs it.
 * db NULL: a run not recorded (`mcsim run --seeds`), evaluated from `acc`
 * alone (its window checks too, for budget: respected), the run's
 * scheduler, duration and clocks the scenario's.
 */
struct tacc;
int expect_evaluate_acc(sqlite3 *db, int64_t run_id, const struct scenario *s,
                        cycles_t entry_allowance, const struct tacc *acc,
                        struct expect_result *out, char *errmsg, size_t errmsg_size);

/*
 * Record the verdicts in the `expectations` table for run_id, replacing
 * any the run had (so that re-checking a run is idempotent): idx is the
 * position in the scenario's `expect` list from 0, text the expectation as
 * written, passed 1 and applicable 0 for one that does not apply. Joins a
 * transaction open on `db` (a sink's batch) or commits on its own. Returns
 * 0, or -1 with "mcsim: DB: message" in errmsg, having written nothing.
 */
int expect_record(sqlite3 *db, int64_t run_id, const struct scenario *s,
                  const struct expect_result *r, char *errmsg, size_t errmsg_size);

/*
 * Store the verdicts of the run most recently begun through db's sink
 * (deferred: db_defer_finish) and mark it finished, in one transaction,
 * after its write-ahead log is moved into the file (db_unlog). Returns 0,
 * or -1 with the error in err and, when the environment failed (a full
 * disk, a locked file: exit 4), *advice what to do (else NULL); the run
 * then stays finished = 0.
 */
struct db;
int expect_store(struct db *db, const struct scenario *s, const struct expect_result *r,
                 char *err, size_t err_len, const char **advice);

/*
 * Print one verdict a line to f, in the scenario's order:
 * "PASS  deadlines: met, criticality: hi  (detail)", "FAIL  ...",
 * "N/A   ...".
 */
void expect_print(FILE *f, const struct scenario *s, const struct expect_result *r);

/* Print the verdict on one expectation, as expect_print does. */
void expect_print_one(FILE *f, const struct scn_expect *e, const struct expect_result *r);

/* The progress guarantee of the run whose accounting is `a` (acct/tacc.h,
 * of scenario `s`): passed unless a thread had its system call restarted
 * SINK_PROGRESS_RESTARTS times in a row (a no_progress event); the detail
 * names the first such thread, its context's budget, what a kernel entry
 * consumed and MIN_BUDGET. */
void expect_progress(const struct tacc *a, const struct scenario *s, struct expect_result *out);

/* The number of verdicts that apply and failed: the run's exit status is
 * 1 when it is not 0. */
uint32_t expect_failures(const struct scenario *s, const struct expect_result *r);

#endif /* MCSIM_CLI_EXPECT_H */
