/*
 * The accounting of a recorded run (tacc.h) from its tables: each of the
 * run's trace tables read once, through its run_* view, and fed to the
 * accumulator as the sink's rows were. The aborted calls go first, so
 * every job meets them all; budget events in time order.
 */
#include "tacc_scan.h"

#include <stdio.h>
#include <string.h>

static cycles_t col_time(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? SINK_NO_TIME
                                                      : (cycles_t)sqlite3_column_int64(st, i);
}

static uint32_t col_thread(sqlite3_stmt *st, int i)
{
    sqlite3_int64 v = sqlite3_column_int64(st, i);

    if (sqlite3_column_type(st, i) == SQLITE_NULL || v < 0 || v >= SINK_NO_THREAD)
        return SINK_NO_THREAD;
    return (uint32_t)v;
}

static enum sink_budget_kind budget_kind(const unsigned char *k)
{
    static const char *const names[] = {
        [BUDGET_EXHAUSTED] = "exhausted", [BUDGET_THROTTLE] = "throttle",
        [BUDGET_REPLENISH] = "replenish", [BUDGET_TIMEOUT_FAULT] = "timeout_fault",
        [BUDGET_EMERGENCY] = "emergency",
    };

    for (size_t i = 0; k && i < sizeof names / sizeof names[0]; i++)
        if (strcmp((const char *)k, names[i]) == 0)
            return (enum sink_budget_kind)i;
    return BUDGET_EXHAUSTED; /* counted by nothing */
}

static void feed_event(struct tacc *a, sqlite3_stmt *st)
{
    tacc_event(a, &(struct sink_event){.thread = col_thread(st, 0),
                                       .time = col_time(st, 1),
                                       .kind = "call_aborted"});
}

static void feed_job(struct tacc *a, sqlite3_stmt *st)
{
    tacc_job(a, &(struct sink_job){.thread = col_thread(st, 0),
                                   .release = col_time(st, 1),
                                   .start = col_time(st, 2),
                                   .finish = col_time(st, 3),
                                   .deadline = col_time(st, 4),
                                   .response = col_time(st, 5),
                                   .missed = sqlite3_column_int64(st, 6) == 1});
}

static void feed_slice(struct tacc *a, sqlite3_stmt *st)
{
    tacc_slice(a, &(struct sink_slice){.thread = col_thread(st, 0),
                                       .sc_thread = col_thread(st, 1),
                                       .start = col_time(st, 2),
                                       .end = col_time(st, 3)});
}

static void feed_budget(struct tacc *a, sqlite3_stmt *st)
{
    tacc_budget(a, &(struct sink_budget_event){.thread = col_thread(st, 0),
                                               .sc_thread = col_thread(st, 1),
                                               .time = col_time(st, 2),
                                               .kind = budget_kind(sqlite3_column_text(st, 3))});
}

static void feed_irq(struct tacc *a, sqlite3_stmt *st)
{
    tacc_irq(a, &(struct sink_irq){.arrival = col_time(st, 0),
                                   .delivered = col_time(st, 1),
                                   .lost = sqlite3_column_int64(st, 2) == 1,
                                   .handler = col_thread(st, 3),
                                   .handler_start = col_time(st, 4)});
}

static const struct {
    const char *sql;
    void (*feed)(struct tacc *a, sqlite3_stmt *st);
} scans[] = {
    {"SELECT thread_id, time FROM run_events WHERE run_id = ?1 AND kind = 'call_aborted'"
     " ORDER BY time",
     feed_event},
    {"SELECT thread_id, release_time, start_time, finish_time, deadline_time, response, missed"
     " FROM run_jobs WHERE run_id = ?1",
     feed_job},
    {"SELECT thread_id, sc_thread_id, start_time, end_time FROM run_slices WHERE run_id = ?1",
     feed_slice},
    {"SELECT thread_id, sc_thread_id, time, kind FROM run_budget_events WHERE run_id = ?1"
     " AND kind IN ('throttle', 'replenish', 'timeout_fault', 'emergency') ORDER BY time, seq",
     feed_budget},
    {"SELECT arrival, delivered, lost, handler, handler_start FROM run_irqs WHERE run_id = ?1",
     feed_irq},
};

int tacc_scan(sqlite3 *db, int64_t run_id, uint32_t n_threads, cycles_t duration, struct tacc *a,
              char *err, size_t err_len)
{
    if (tacc_init(a, n_threads, duration) != 0) {
        snprintf(err, err_len, "mcsim: out of memory");
        return -1;
    }
    for (size_t i = 0; i < sizeof scans / sizeof scans[0]; i++) {
        sqlite3_stmt *st;
        int rc;

        if (sqlite3_prepare_v2(db, scans[i].sql, -1, &st, NULL) != SQLITE_OK) {
            snprintf(err, err_len, "mcsim: %s", sqlite3_errmsg(db));
            tacc_release(a);
            return -1;
        }
        sqlite3_bind_int64(st, 1, run_id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            scans[i].feed(a, st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) {
            snprintf(err, err_len, "mcsim: %s", sqlite3_errmsg(db));
            tacc_release(a);
            return -1;
        }
    }
    tacc_end(a);
    if (a->failed) {
        snprintf(err, err_len, "mcsim: out of memory");
        tacc_release(a);
        return -1;
    }
    return 0;
}
