/*
 * The progress guarantee (docs/kernel-semantics.md, "The MIN_BUDGET
 * rule"): no thread had its system call restarted SINK_PROGRESS_RESTARTS times
 * in a row. Such a thread's context cannot pay for one kernel entry and
 * keep MIN_BUDGET (seL4/microkit #285): the kernel restarts the same call
 * forever, as seL4 does, and the run reports it as a no_progress event
 * (sim/recorder.c), which this reads.
 */
#include "expect.h"

#include <stdio.h>

#include "sink.h"

#define PROGRESS_EVENTS                                                                            \
    "SELECT e.time, t.name, e.object, e.arg, (SELECT count(*) FROM run_events c"                   \
    " WHERE c.run_id = e.run_id AND c.kind = 'no_progress')"                                       \
    " FROM run_events e JOIN threads t ON t.run_id = e.run_id AND t.thread_id = e.thread_id"       \
    " WHERE e.run_id = ?1 AND e.kind = 'no_progress' ORDER BY e.time, e.seq LIMIT 1"

int expect_progress(sqlite3 *db, int64_t run_id, const struct scenario *s,
                    struct expect_result *out)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, PROGRESS_EVENTS, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    out->applicable = true;
    out->passed = rc != SQLITE_ROW;
    if (rc == SQLITE_ROW)
        snprintf(out->detail, sizeof out->detail,
                 "%lld thread%s stuck; first %s from %lld on: its system call restarted %d"
                 " times in a row (MIN_BUDGET rule: budget %lld - %lld cycles a kernel entry"
                 " consumed < MIN_BUDGET %llu)",
                 (long long)sqlite3_column_int64(st, 4),
                 sqlite3_column_int64(st, 4) == 1 ? "" : "s",
                 (const char *)sqlite3_column_text(st, 1), (long long)sqlite3_column_int64(st, 0),
                 SINK_PROGRESS_RESTARTS, (long long)sqlite3_column_int64(st, 3),
                 (long long)sqlite3_column_int64(st, 2),
                 (unsigned long long)scenario_min_budget(s));
    else
        snprintf(out->detail, sizeof out->detail,
                 "no system call restarted %d times in a row", SINK_PROGRESS_RESTARTS);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
