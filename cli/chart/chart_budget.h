/*
 * The budget line of a chart: the budget the kernel's refill list holds
 * for a scheduling context at each instant, read from the `refills` table
 * (the head refill whenever the kernel changed the list) and the CPU time
 * the context paid since. Between two changes of the list the head's
 * amount is what the context can run before its budget expires: 0 while
 * the head lies in the future (the context is throttled until then), the
 * head's amount from its time on, less the time paid since (the kernel
 * charges lazily, at the next change, which the following record shows).
 * So the line reaches 0 exactly where the kernel found the head used up,
 * and shows nothing available while the context waits for its refill.
 */
#ifndef MCSIM_CLI_CHART_BUDGET_H
#define MCSIM_CLI_CHART_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "chart_query.h"

/* A stretch of CPU time a context paid for, [start, end). */
struct chart_usage {
    int64_t start, end;
};

/* The context's head refill from `time` on (a row of `refills`). */
struct chart_refill {
    int64_t time, head_time, head_amount;
};

/*
 * The points of the line over [from, to] (from < to) of a context whose
 * refill list changed at rf (n_rf records in the order recorded, the
 * first at or before from if there is one) and that paid for `usage` (n
 * stretches sorted by start, not overlapping, every one that ends after
 * the first record). The line is exact: straight between consecutive
 * points, vertical where two points share a time; it starts at the first
 * record (or from). On success returns 0 and stores a malloc'd array in
 * *pts (free it) and its length in *n_pts (0 when there is no record
 * before to); -1 if out of memory.
 */
int chart_budget_line(const struct chart_refill *rf, size_t n_rf, const struct chart_usage *usage,
                      size_t n, int64_t from, int64_t to, struct chart_point **pts, size_t *n_pts);

/* The statements that read budget lines of one run (chart_budget_read.c). */
struct chart_budget_reader {
    sqlite3_stmt *rb, *ri, *ub, *ui; /* refills, usage: before and inside the window */
};

/* Prepare them for run `run_id` of db: 0, or -1 (an SQL error on db);
 * close them in either case. */
int chart_budget_open(sqlite3 *db, int64_t run_id, struct chart_budget_reader *q);
void chart_budget_close(struct chart_budget_reader *q);

/*
 * The budget line over [from, to] (from < to) of the periodic context of
 * thread `ctx` (its period `period`), as chart_budget_line draws it from
 * the run's `refills` rows and the slices the context paid for. Returns
 * 0 with a malloc'd *pts (free it) of *n_pts points, both NULL/0 when no
 * refill was recorded before `to` (a round-robin context, a run recorded
 * before schema version 4); -1 on an SQL error, -2 out of memory.
 */
int chart_budget_read(struct chart_budget_reader *q, int64_t ctx, int64_t period, int64_t from,
                      int64_t to, struct chart_point **pts, size_t *n_pts);

#endif /* MCSIM_CLI_CHART_BUDGET_H */
