/*
 * Reading a context's budget line from the database (chart_budget.h):
 * its refill records of the window (the last one at or before its start,
 * then those inside), the CPU time it paid for from the first of them,
 * then chart_budget_line. The Gantt chart (chart_window.c) and the Chrome
 * trace's budget counter (cli/export/export_budget.c) both draw this.
 */
#include "chart_query_int.h"

#include <stdlib.h>

#include "chart_budget.h"
#include "db/db.h"

/* A context's slices (db.h). */
#define CONTEXT_SLICES(cond) DB_SLICES_PAID_BY("start_time, end_time", "?2", cond)

/* The refills of context ?2 of run ?1: the last record at or before ?3
 * (in the last block of the context's that starts there or earlier, or a
 * later one), then those in (?3, ?4), in the order recorded. */
#define REFILLS_SQL(cond)                                                                          \
    "SELECT time, head_time, head_amount FROM run_refills WHERE run_id = ?1"                       \
    " AND sc_thread_id = ?2" cond
static const char refills_before_sql[] = REFILLS_SQL(
    " AND block_end >= (SELECT coalesce(max(min_time), 0) FROM trace_blocks WHERE run_id = ?1"
    " AND tbl = 'refills' AND sc_thread_id = ?2 AND min_time <= ?3) AND time <= ?3"
    " ORDER BY time DESC, seq DESC LIMIT 1");
static const char refills_inside_sql[] =
    REFILLS_SQL(" AND block_end > ?3 AND block_start < ?4 AND time > ?3 AND time < ?4"
                " ORDER BY time, seq");
static const char usage_before_sql[] = WINDOW_BEFORE(CONTEXT_SLICES, "sc_thread_id");
static const char usage_inside_sql[] = WINDOW_INSIDE(CONTEXT_SLICES);

int chart_budget_open(sqlite3 *db, int64_t run_id, struct chart_budget_reader *q)
{
    q->rb = cq_prepare(db, refills_before_sql, run_id);
    q->ri = cq_prepare(db, refills_inside_sql, run_id);
    q->ub = cq_prepare(db, usage_before_sql, run_id);
    q->ui = cq_prepare(db, usage_inside_sql, run_id);
    return q->rb && q->ri && q->ub && q->ui ? 0 : -1;
}

void chart_budget_close(struct chart_budget_reader *q)
{
    sqlite3_finalize(q->rb);
    sqlite3_finalize(q->ri);
    sqlite3_finalize(q->ub);
    sqlite3_finalize(q->ui);
}

/* Append the stretches `st` returns that end after `after`. */
static int take_usage(sqlite3_stmt *st, int64_t after, struct chart_usage **u, size_t *n,
                      size_t *cap)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 1) <= after)
            continue;
        if (!grow_one(u, cap, *n, sizeof **u))
            return -2;
        (*u)[(*n)++] =
            (struct chart_usage){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static int take_refills(sqlite3_stmt *st, struct chart_refill **r, size_t *n, size_t *cap)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!grow_one(r, cap, *n, sizeof **r))
            return -2;
        (*r)[(*n)++] = (struct chart_refill){sqlite3_column_int64(st, 0),
                                             sqlite3_column_int64(st, 1),
                                             sqlite3_column_int64(st, 2)};
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

int chart_budget_read(struct chart_budget_reader *q, int64_t ctx, int64_t period, int64_t from,
                      int64_t to, struct chart_point **pts, size_t *n_pts)
{
    int64_t w[3] = {ctx, from, to};
    struct chart_refill *r = NULL;
    struct chart_usage *u = NULL;
    size_t nr = 0, capr = 0, n = 0, cap = 0;
    int rc;

    *pts = NULL;
    *n_pts = 0;
    cq_rebind(q->rb, 2, w);
    cq_rebind(q->ri, 3, w);
    rc = take_refills(q->rb, &r, &nr, &capr);
    if (rc == 0)
        rc = take_refills(q->ri, &r, &nr, &capr);
    if (rc == 0 && nr > 0) {
        int64_t v[3] = {ctx, from - period, to};
        if (r[0].time < v[1])
            v[1] = r[0].time;
        cq_rebind(q->ub, 2, v);
        cq_rebind(q->ui, 3, v);
        rc = take_usage(q->ub, v[1], &u, &n, &cap);
        if (rc == 0)
            rc = take_usage(q->ui, v[1], &u, &n, &cap);
        if (rc == 0 && chart_budget_line(r, nr, u, n, from, to, pts, n_pts) != 0)
            rc = -2;
    }
    free(r);
    free(u);
    return rc;
}
