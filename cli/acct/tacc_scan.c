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

static void feed_event(struct tacc *a, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    tacc_event(a, &(struct sink_event){.thread = col_thread(st, 0),
                                       .time = col_time(st, 1),
                                       .kind = (const char *)sqlite3_column_text(st, 2),
                                       .seq = (uint64_t)sqlite3_column_int64(st, 3),
                                       .object = (uint64_t)sqlite3_column_int64(st, 4),
                                       .arg = (uint64_t)sqlite3_column_int64(st, 5)});
}

static void feed_job(struct tacc *a, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    tacc_job(a, &(struct sink_job){.thread = col_thread(st, 0),
                                   .job = (uint32_t)sqlite3_column_int64(st, 7),
                                   .release = col_time(st, 1),
                                   .start = col_time(st, 2),
                                   .finish = col_time(st, 3),
                                   .deadline = col_time(st, 4),
                                   .response = col_time(st, 5),
                                   .missed = sqlite3_column_int64(st, 6) == 1});
}

static void feed_slice(struct tacc *a, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    tacc_slice(a, &(struct sink_slice){.thread = col_thread(st, 0),
                                       .sc_thread = col_thread(st, 1),
                                       .start = col_time(st, 2),
                                       .end = col_time(st, 3)});
}

static void feed_budget(struct tacc *a, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    tacc_budget(a, &(struct sink_budget_event){.thread = col_thread(st, 0),
                                               .sc_thread = col_thread(st, 1),
                                               .time = col_time(st, 2),
                                               .kind = budget_kind(sqlite3_column_text(st, 3))});
}

/* The index of the device named `name` in s (n_devices if none). */
static uint32_t device_index(const struct scenario *s, const unsigned char *name)
{
    uint32_t i = 0;

    while (s && name && i < s->n_devices && strcmp(s->devices[i].name, (const char *)name) != 0)
        i++;
    return s && name ? i : UINT32_MAX;
}

static void feed_irq(struct tacc *a, const struct scenario *s, sqlite3_stmt *st)
{
    tacc_irq(a, &(struct sink_irq){.device = device_index(s, sqlite3_column_text(st, 5)),
                                   .arrival = col_time(st, 0),
                                   .delivered = col_time(st, 1),
                                   .lost = sqlite3_column_int64(st, 2) == 1,
                                   .handler = col_thread(st, 3),
                                   .handler_start = col_time(st, 4)});
}

static const struct {
    const char *sql;
    void (*feed)(struct tacc *a, const struct scenario *s, sqlite3_stmt *st);
} scans[] = {
    {"SELECT thread_id, time, kind, seq, object, arg FROM run_events WHERE run_id = ?1"
     " AND kind IN ('preempt', 'call_aborted', 'no_progress') ORDER BY time, seq",
     feed_event},
    {"SELECT thread_id, release_time, start_time, finish_time, deadline_time, response, missed,"
     " job FROM run_jobs WHERE run_id = ?1",
     feed_job},
    {"SELECT thread_id, sc_thread_id, start_time, end_time FROM run_slices WHERE run_id = ?1",
     feed_slice},
    {"SELECT thread_id, sc_thread_id, time, kind FROM run_budget_events WHERE run_id = ?1"
     " AND kind IN ('throttle', 'replenish', 'timeout_fault', 'emergency') ORDER BY time, seq",
     feed_budget},
    {"SELECT arrival, delivered, lost, handler, handler_start, device FROM run_irqs"
     " WHERE run_id = ?1",
     feed_irq},
};

int tacc_scan(sqlite3 *db, int64_t run_id, uint32_t n_threads, const struct scenario *s,
              cycles_t duration, struct tacc *a, char *err, size_t err_len)
{
    if (tacc_init(a, n_threads, s ? s->n_devices : 0, duration) != 0) {
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
            scans[i].feed(a, s, st);
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

/* ------------------------------------------------ the window checks (twin.h) */

/* One table read in time order: its rows' instants (a slice's start). */
struct cursor {
    sqlite3_stmt *st;
    int rc;
    void (*feed)(struct twin *w, const struct scenario *s, sqlite3_stmt *st);
};

static uint32_t ntfn_index(const struct scenario *s, const unsigned char *name)
{
    for (uint32_t i = 0; name && i < s->n_notifications; i++)
        if (strcmp(s->notifications[i].name, (const char *)name) == 0)
            return i;
    return SINK_NO_THREAD;
}

static void win_slice(struct twin *w, const struct scenario *s, sqlite3_stmt *st)
{
    twin_slice(w, &(struct sink_slice){.thread = col_thread(st, 1),
                                       .sc_thread = col_thread(st, 2),
                                       .sc_notification = ntfn_index(s, sqlite3_column_text(st, 3)),
                                       .start = col_time(st, 0),
                                       .end = col_time(st, 4)});
}

static void win_budget(struct twin *w, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    twin_budget(w, &(struct sink_budget_event){.thread = col_thread(st, 1),
                                               .sc_thread = col_thread(st, 2),
                                               .time = col_time(st, 0),
                                               .kind = budget_kind(sqlite3_column_text(st, 3)),
                                               .amount = (uint64_t)sqlite3_column_int64(st, 4)});
}

static void win_refill(struct twin *w, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    twin_refill(w, &(struct sink_refill){.sc_thread = col_thread(st, 1),
                                         .time = col_time(st, 0),
                                         .count = (uint32_t)sqlite3_column_int64(st, 2),
                                         .max = (uint32_t)sqlite3_column_int64(st, 3)});
}

static void win_event(struct twin *w, const struct scenario *s, sqlite3_stmt *st)
{
    (void)s;
    twin_event(w, &(struct sink_event){.time = col_time(st, 0),
                                       .kind = "sporadic_unblock",
                                       .object = (uint64_t)sqlite3_column_int64(st, 1)});
}

/* The contexts as the threads table records them (a notification's from
 * the scenario: the tables do not list them). */
static int win_contexts(sqlite3 *db, int64_t run_id, const struct scenario *s, struct twin *w)
{
    sqlite3_stmt *st;
    int rc = 0, step;

    if (sqlite3_prepare_v2(db,
                           "SELECT thread_id, name, budget, period, sporadic FROM threads"
                           " WHERE run_id = ?1 AND budget IS NOT NULL AND period IS NOT NULL"
                           " ORDER BY thread_id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct bwin_def d = {.thread = sqlite3_column_int64(st, 0),
                             .budget = sqlite3_column_int64(st, 2),
                             .period = sqlite3_column_int64(st, 3),
                             .sporadic = sqlite3_column_int(st, 4) != 0};

        snprintf(d.name, sizeof d.name, "%s", (const char *)sqlite3_column_text(st, 1));
        rc = twin_add_thread(w, &d);
    }
    sqlite3_finalize(st);
    if (rc == 0 && step != SQLITE_DONE)
        return -1;
    return rc == 0 ? twin_add_notifications(w, s) : rc;
}

int twin_scan(sqlite3 *db, int64_t run_id, const struct scenario *s, const struct bwin_clock *clock,
              const struct twin_want *want, struct twin *w, char *err, size_t err_len)
{
    static const char *const sql[] = {
        "SELECT start_time, thread_id, sc_thread_id, sc_notification, end_time FROM run_slices"
        " WHERE run_id = ?1 ORDER BY start_time, end_time",
        "SELECT time, thread_id, sc_thread_id, kind, amount FROM run_budget_events"
        " WHERE run_id = ?1 AND kind IN (?2, ?3) ORDER BY time, seq",
        "SELECT time, sc_thread_id, count, capacity FROM run_refills WHERE run_id = ?1"
        " ORDER BY time, seq",
        "SELECT time, object FROM run_events WHERE run_id = ?1 AND kind = 'sporadic_unblock'"
        " ORDER BY time, seq",
    };
    static void (*const feed[])(struct twin *, const struct scenario *, sqlite3_stmt *) = {
        win_slice, win_budget, win_refill, win_event};
    struct cursor c[4] = {{0}};
    size_t n = 0;
    int rc = -1;

    if (twin_init(w, s, clock, want) != 0) {
        snprintf(err, err_len, "mcsim: out of memory");
        return -1;
    }
    if (win_contexts(db, run_id, s, w) != 0)
        goto out;
    for (size_t i = 0; i < 4; i++) {
        if ((i == 2 && !want->fragment) || (i == 3 && !want->budget))
            continue;
        if (sqlite3_prepare_v2(db, sql[i], -1, &c[n].st, NULL) != SQLITE_OK)
            goto out;
        sqlite3_bind_int64(c[n].st, 1, run_id);
        if (i == 1) {
            sqlite3_bind_text(c[n].st, 2, want->budget ? "emergency" : "", -1, SQLITE_STATIC);
            sqlite3_bind_text(c[n].st, 3, want->fragment ? "throttle" : "", -1, SQLITE_STATIC);
        }
        c[n].feed = feed[i];
        c[n].rc = sqlite3_step(c[n].st);
        n++;
    }
    /* merged by instant: each row fed after every row before it */
    for (;;) {
        size_t k = n;

        for (size_t i = 0; i < n; i++)
            if (c[i].rc == SQLITE_ROW &&
                (k == n || sqlite3_column_int64(c[i].st, 0) < sqlite3_column_int64(c[k].st, 0)))
                k = i;
        if (k == n)
            break;
        twin_advance(w, col_time(c[k].st, 0));
        c[k].feed(w, s, c[k].st);
        c[k].rc = sqlite3_step(c[k].st);
    }
    rc = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].rc != SQLITE_DONE)
            rc = -1;
    if (rc == 0)
        twin_end(w);
out:
    for (size_t i = 0; i < 4; i++)
        sqlite3_finalize(c[i].st);
    if (rc != 0 || !twin_ok(w)) {
        snprintf(err, err_len, "mcsim: %s", rc != 0 ? sqlite3_errmsg(db) : "out of memory");
        twin_release(w);
        return -1;
    }
    return 0;
}
