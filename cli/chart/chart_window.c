/*
 * Reading the rows of a chart's window (chart_query_window). Slices of a
 * thread never overlap, so the only slice that starts before the window
 * and reaches into it is the thread's last one starting before `from`:
 * one indexed look-up and one indexed range per thread, whatever the
 * length of the run.
 */
#include "chart_query_int.h"

#include <stdlib.h>
#include <string.h>

#include "chart_budget.h"
#include "db/db.h"

/* The context that paid for the slice in the current row of `st`
 * (columns 2: sc_thread_id, 3: sc_notification). */
static int set_payer(struct chart_data *d, struct chart_slice *s, sqlite3_stmt *st)
{
    s->payer = CHART_PAYER_OWN;
    s->payer_thread = s->ntfn = -1;
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        const char *name = (const char *)sqlite3_column_text(st, 3);
        for (size_t i = 0; i < d->n_ntfns; i++)
            if (strcmp(d->ntfns[i], name) == 0)
                s->ntfn = (int)i;
        if (s->ntfn < 0) {
            char **slot = CQ_PUSH(d, ntfns);
            size_t len = strlen(name) + 1;
            if (slot == NULL || (*slot = malloc(len)) == NULL)
                return -1;
            memcpy(*slot, name, len);
            s->ntfn = (int)d->n_ntfns - 1;
        }
        s->payer = CHART_PAYER_NTFN;
    } else if (sqlite3_column_type(st, 2) != SQLITE_NULL &&
               sqlite3_column_int64(st, 2) != d->threads[s->thread].id) {
        s->payer = CHART_PAYER_DONATED;
        s->payer_thread = cq_thread_index(d, sqlite3_column_int64(st, 2));
    }
    return 0;
}

/* Append the slices `st` returns for thread `ti` that end after `from`. */
static int take_slices(struct chart_data *d, sqlite3_stmt *st, size_t ti)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 1) <= d->from)
            continue;
        struct chart_slice *s = CQ_PUSH(d, slices);
        if (s == NULL)
            return -2;
        s->thread = ti;
        s->start = sqlite3_column_int64(st, 0);
        s->end = sqlite3_column_int64(st, 1);
        if (set_payer(d, s, st) != 0)
            return -2;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* A thread's slices and whom they were paid by. */
#define THREAD_SLICES(cond)                                                                        \
    "SELECT start_time, end_time, sc_thread_id, sc_notification FROM run_slices"                   \
    " WHERE run_id = ?1 AND thread_id = ?2" cond

/* Prepare the window's statements; returns 0, or -1 with either NULL. */
static int prepare_window(sqlite3 *db, const char *const sql[2], int64_t run_id,
                          sqlite3_stmt **before, sqlite3_stmt **inside)
{
    *before = cq_prepare(db, sql[0], run_id);
    *inside = cq_prepare(db, sql[1], run_id);
    return *before && *inside ? 0 : -1;
}

/* Finalize the statements of prepare_window; the walk's result `rc` (0,
 * -1 an SQL error, -2 out of memory) as a chart status. */
static enum chart_status end_window(sqlite3 *db, sqlite3_stmt *before, sqlite3_stmt *inside, int rc,
                                    char *err, size_t errlen)
{
    sqlite3_finalize(before);
    sqlite3_finalize(inside);
    if (rc == -2)
        return cq_oom(err, errlen);
    return rc ? cq_sql_fail(db, err, errlen) : CHART_OK;
}

static enum chart_status read_slices(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    static const char *const sql[2] = {WINDOW_BEFORE(THREAD_SLICES, "thread_id"),
                                       WINDOW_INSIDE(THREAD_SLICES)};
    sqlite3_stmt *b, *in;
    int rc = prepare_window(db, sql, d->run.run_id, &b, &in);

    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        int64_t v[3] = {d->threads[i].id, d->from, d->to};
        if (!d->threads[i].wanted)
            continue;
        cq_rebind(b, 2, v);
        cq_rebind(in, 3, v);
        if ((rc = take_slices(d, b, i)) == 0)
            rc = take_slices(d, in, i);
    }
    return end_window(db, b, in, rc, err, errlen);
}

static int64_t longest_deadline(const struct chart_data *d)
{
    int64_t m = 0;
    for (size_t i = 0; i < d->n_threads; i++) {
        if (d->threads[i].deadline > m)
            m = d->threads[i].deadline;
        if (d->threads[i].period > m)
            m = d->threads[i].period;
    }
    return m;
}

static bool in_window(const struct chart_data *d, int64_t t)
{
    return t >= d->from && t < d->to;
}

static bool job_in_window(const struct chart_data *d, const struct chart_job *j)
{
    return in_window(d, j->release) || in_window(d, j->deadline) || in_window(d, j->finish);
}

/* The columns both job queries read. */
#define JOB_COLUMNS "SELECT thread_id, job, release_time, deadline_time, finish_time, missed "

static int take_jobs(struct chart_data *d, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ti = cq_thread_index(d, sqlite3_column_int64(st, 0));
        struct chart_job j = {.job = sqlite3_column_int64(st, 1),
                              .release = sqlite3_column_int64(st, 2),
                              .deadline = cq_column_or(st, 3, -1),
                              .finish = cq_column_or(st, 4, -1),
                              .missed = sqlite3_column_int(st, 5) != 0};
        struct chart_job *slot;
        if (ti < 0 || !d->threads[ti].wanted || !job_in_window(d, &j))
            continue;
        if ((slot = CQ_PUSH(d, jobs)) == NULL)
            return -2;
        j.thread = (size_t)ti;
        *slot = j;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Jobs released in the window, or earlier with a deadline in it (released
 * at most the longest relative deadline before it), then the jobs released
 * before that which finish in the window (late ones: their blocks cannot
 * be told apart, so that query reads the run's earlier jobs). */
static enum chart_status read_jobs(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *near = cq_prepare(
        db,
        JOB_COLUMNS "FROM run_jobs WHERE run_id = ?1 AND block_end >= ?2 AND block_start < ?3 "
                    "AND release_time >= ?2 AND release_time < ?3 ORDER BY release_time, thread_id",
        d->run.run_id);
    sqlite3_stmt *late = cq_prepare(
        db,
        JOB_COLUMNS "FROM run_jobs WHERE run_id = ?1 AND block_start < ?2 AND release_time < ?2 "
                    "AND finish_time >= ?3 AND finish_time < ?4 ORDER BY release_time, thread_id",
        d->run.run_id);
    int64_t lookback = d->from - longest_deadline(d), v[3] = {lookback, d->to, d->to};
    int rc = near && late ? 0 : -1;

    if (rc == 0) {
        cq_rebind(near, 2, v);
        rc = take_jobs(d, near);
    }
    if (rc == 0 && lookback > 0) {
        v[1] = d->from;
        cq_rebind(late, 3, v);
        rc = take_jobs(d, late);
    }
    sqlite3_finalize(near);
    sqlite3_finalize(late);
    if (rc == -2)
        return cq_oom(err, errlen);
    return rc ? cq_sql_fail(db, err, errlen) : CHART_OK;
}

/* The Calls of the drawn threads aborted in the window. */
static enum chart_status read_aborts(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = cq_prepare(db,
                                  "SELECT thread_id, time FROM run_events WHERE run_id = ?1 AND "
                                  "kind = 'call_aborted' AND block_end >= ?2 AND block_start < ?3 "
                                  "AND time >= ?2 AND time < ?3 ORDER BY time, seq",
                                  d->run.run_id);
    int64_t v[2] = {d->from, d->to};
    int rc;

    if (st == NULL)
        return cq_sql_fail(db, err, errlen);
    cq_rebind(st, 2, v);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ti = cq_thread_index(d, sqlite3_column_int64(st, 0));
        struct chart_abort *a;
        if (ti < 0 || !d->threads[ti].wanted)
            continue;
        if ((a = CQ_PUSH(d, aborts)) == NULL) {
            sqlite3_finalize(st);
            return cq_oom(err, errlen);
        }
        *a = (struct chart_abort){.thread = (size_t)ti, .time = sqlite3_column_int64(st, 1)};
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CHART_OK : cq_sql_fail(db, err, errlen);
}

static int budget_kind(const char *k, enum chart_budget_kind *out)
{
    static const char *const names[CHART_BUDGET_KINDS] = {"exhausted", "replenish", "timeout_fault",
                                                          "emergency"};
    for (int i = 0; i < CHART_BUDGET_KINDS; i++)
        if (strcmp(k, names[i]) == 0) {
            *out = (enum chart_budget_kind)i;
            return 0;
        }
    return -1;
}

static int take_events(struct chart_data *d, sqlite3_stmt *st, size_t ti)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        enum chart_budget_kind kind;
        struct chart_budget_event *e;
        if (budget_kind((const char *)sqlite3_column_text(st, 1), &kind) != 0)
            continue;
        if ((e = CQ_PUSH(d, events)) == NULL)
            return -2;
        e->thread = ti;
        e->time = sqlite3_column_int64(st, 0);
        e->kind = kind;
        e->amount = sqlite3_column_int64(st, 2);
        e->payer_thread = cq_thread_index(d, cq_column_or(st, 3, -1));
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static enum chart_status read_events(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = cq_prepare(db,
                                  "SELECT time, kind, amount, sc_thread_id FROM run_budget_events "
                                  "WHERE run_id = ?1 AND thread_id = ?2 AND block_end >= ?3 AND "
                                  "block_start < ?4 AND time >= ?3 AND time < ?4 AND "
                                  "kind <> 'throttle' ORDER BY time, seq, row",
                                  d->run.run_id);
    int rc = st ? 0 : -1;

    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        int64_t v[3] = {d->threads[i].id, d->from, d->to};
        if (!d->threads[i].wanted)
            continue;
        cq_rebind(st, 3, v);
        rc = take_events(d, st, i);
    }
    sqlite3_finalize(st);
    if (rc == -2)
        return cq_oom(err, errlen);
    return rc ? cq_sql_fail(db, err, errlen) : CHART_OK;
}

/* The throttles of one context that reach into the window: the last one
 * before it and those in it, each with the next replenish of the same
 * context. ?2 names the context: its owner's thread id, or for a
 * notification's context (no owner) the thread that runs on it; ctx, ctx_r
 * and ctx_a say so of the tables aliased b, r and a.
 * Only the blocks that can hold the rows are read: the last throttle
 * before the window is no earlier than the last block of throttles that
 * starts before it, and the next replenish at or after a time is in the
 * first block of the context's replenishes that ends there or later (one
 * key, whose blocks follow each other in time: db_schema.c). */
#define LAST_THROTTLE_BLOCK(ctx_a)                                                                 \
    "(SELECT coalesce(max(a.min_time), 0) FROM trace_blocks a WHERE a.run_id = ?1"                 \
    " AND a.tbl = 'budget_events' AND a.kind = 'throttle' AND " ctx_a " AND a.min_time < ?3)"
#define LAST_THROTTLE(ctx, ctx_a)                                                                  \
    "(SELECT coalesce(max(time), -1) FROM run_budget_events b WHERE b.run_id = ?1 AND " ctx        \
    " AND b.kind = 'throttle' AND b.block_end >= " LAST_THROTTLE_BLOCK(                            \
        ctx_a) " AND b.block_start < ?3 AND b.time < ?3)"
#define NEXT_REPLENISH(ctx_r, ctx_a)                                                               \
    "(SELECT min(r.time) FROM run_budget_events r WHERE r.run_id = ?1 AND " ctx_r                  \
    " AND r.kind = 'replenish' AND r.block_end = (SELECT"                                          \
    " min(a.max_time) FROM trace_blocks a WHERE a.run_id = ?1 AND a.tbl = 'budget_events'"         \
    " AND " ctx_a " AND a.kind = 'replenish' AND a.max_time >= b.time) AND r.time >= b.time)"
#define THROTTLE_SQL(ctx, ctx_r, ctx_a)                                                            \
    "SELECT b.thread_id, b.time, " NEXT_REPLENISH(                                                 \
        ctx_r,                                                                                     \
        ctx_a) " FROM run_budget_events b"                                                         \
               " WHERE b.run_id = ?1 AND " ctx " AND b.kind = 'throttle'"                          \
               " AND b.block_end >= " LAST_THROTTLE(ctx, ctx_a) " AND b.time >= " LAST_THROTTLE(   \
                   ctx, ctx_a) " AND b.block_start < ?4 AND b.time < ?4 ORDER BY b.time"

static const char throttle_sql[] =
    THROTTLE_SQL("b.sc_thread_id = ?2", "r.sc_thread_id = ?2", "a.sc_thread_id = ?2");
static const char ntfn_throttle_sql[] = THROTTLE_SQL("b.sc_thread_id IS NULL AND b.thread_id = ?2",
                                                     "r.sc_thread_id IS NULL AND r.thread_id = ?2",
                                                     "a.sc_thread_id IS NULL AND a.thread_id = ?2");

static int take_throttles(struct chart_data *d, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ti = cq_thread_index(d, cq_column_or(st, 0, -1));
        int64_t start = sqlite3_column_int64(st, 1);
        int64_t end = cq_column_or(st, 2, (int64_t)d->run.duration);
        struct chart_throttle *t;
        if (ti < 0 || !d->threads[ti].wanted || end <= d->from || end <= start)
            continue;
        if ((t = CQ_PUSH(d, throttles)) == NULL)
            return -2;
        *t = (struct chart_throttle){.thread = (size_t)ti, .start = start, .end = end};
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The throttles of every thread's own context, then of the notification
 * contexts the drawn threads ran on. */
static enum chart_status read_throttles(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *own = cq_prepare(db, throttle_sql, d->run.run_id);
    sqlite3_stmt *ntfn = cq_prepare(db, ntfn_throttle_sql, d->run.run_id);
    int rc = own && ntfn ? 0 : -1;

    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        int64_t v[3] = {d->threads[i].id, d->from, d->to};
        if (d->threads[i].budget >= 0) {
            cq_rebind(own, 3, v);
            rc = take_throttles(d, own);
        }
        if (rc == 0 && d->threads[i].wanted) {
            cq_rebind(ntfn, 3, v);
            rc = take_throttles(d, ntfn);
        }
    }
    sqlite3_finalize(own);
    sqlite3_finalize(ntfn);
    if (rc == -2)
        return cq_oom(err, errlen);
    return rc ? cq_sql_fail(db, err, errlen) : CHART_OK;
}

static enum chart_status read_irqs(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    sqlite3_stmt *st =
        cq_prepare(db,
                   "SELECT arrival, delivered, lost FROM run_irqs WHERE run_id = ?1 AND "
                   "device = ?2 AND block_end >= ?3 AND block_start < ?4 AND "
                   "arrival >= ?3 AND arrival < ?4 ORDER BY arrival",
                   d->run.run_id);
    int rc = st ? SQLITE_DONE : SQLITE_ERROR;

    for (size_t i = 0; rc == SQLITE_DONE && i < d->n_devices; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 2, d->devices[i].name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, d->from);
        sqlite3_bind_int64(st, 4, d->to);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            struct chart_irq *q = CQ_PUSH(d, irqs);
            if (q == NULL) {
                sqlite3_finalize(st);
                return cq_oom(err, errlen);
            }
            *q = (struct chart_irq){.device = i,
                                    .arrival = sqlite3_column_int64(st, 0),
                                    .delivered = cq_column_or(st, 1, -1),
                                    .lost = sqlite3_column_int(st, 2) != 0};
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CHART_OK : cq_sql_fail(db, err, errlen);
}

/* ---- budget lines (chart_budget_read.c) ---- */

static bool has_line(const struct chart_data *d, const struct chart_thread *t)
{
    return t->wanted && strcmp(d->run.scheduler, "mcs") == 0 && !t->passive && t->budget > 0 &&
           t->period > t->budget;
}

static enum chart_status read_lines(sqlite3 *db, struct chart_data *d, char *err, size_t errlen)
{
    struct chart_budget_reader q;
    int rc = chart_budget_open(db, d->run.run_id, &q);

    for (size_t i = 0; rc == 0 && i < d->n_threads; i++) {
        const struct chart_thread *t = &d->threads[i];
        struct chart_point *pts;
        struct chart_line *line;
        size_t n;

        if (!has_line(d, t))
            continue;
        rc = chart_budget_read(&q, t->id, t->period, d->from, d->to, &pts, &n);
        if (rc != 0 || n == 0)
            continue;
        if ((line = CQ_PUSH(d, lines)) == NULL) {
            free(pts);
            rc = -2;
            continue;
        }
        line->thread = i;
        line->budget = t->budget;
        line->pts = pts;
        line->n = n;
    }
    chart_budget_close(&q);
    if (rc == -2)
        return cq_oom(err, errlen);
    return rc ? cq_sql_fail(db, err, errlen) : CHART_OK;
}

/* ---- rows ---- */

static bool ran(const struct chart_data *d, size_t ti)
{
    for (size_t i = 0; i < d->n_slices; i++)
        if (d->slices[i].thread == ti)
            return true;
    return false;
}

/* Threads in priority order (as read), then devices by line. The root
 * task only if it did something in the window or was asked for. */
static enum chart_status lay_out_rows(struct chart_data *d, char *err, size_t errlen)
{
    for (size_t i = 0; i < d->n_threads; i++) {
        struct chart_thread *t = &d->threads[i];
        struct chart_row *r;
        if (!t->wanted || (t->id == 0 && !t->named && !ran(d, i)))
            continue;
        if ((r = CQ_PUSH(d, rows)) == NULL)
            return cq_oom(err, errlen);
        *r = (struct chart_row){.device = false, .index = i};
        t->row = (int)d->n_rows - 1;
    }
    for (size_t i = 0; i < d->n_devices; i++) {
        struct chart_row *r = CQ_PUSH(d, rows);
        if (r == NULL)
            return cq_oom(err, errlen);
        *r = (struct chart_row){.device = true, .index = i};
        d->devices[i].row = (int)d->n_rows - 1;
    }
    return CHART_OK;
}

enum chart_status chart_query_window(sqlite3 *db, struct chart_data *d, int64_t from, int64_t to,
                                     char *err, size_t errlen)
{
    enum chart_status (*const readers[])(sqlite3 *, struct chart_data *, char *, size_t) = {
        read_slices, read_jobs, read_aborts, read_events, read_throttles, read_irqs, read_lines};
    enum chart_status st = CHART_OK;

    d->from = from;
    d->to = to;
    for (size_t i = 0; st == CHART_OK && i < sizeof readers / sizeof readers[0]; i++)
        st = readers[i](db, d, err, errlen);
    return st == CHART_OK ? lay_out_rows(d, err, errlen) : st;
}
