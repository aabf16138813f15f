/*
 * The budget line of a chart: how much of a scheduling context's budget
 * was not used in the period before each instant, budget - (CPU time the
 * context paid in (t - period, t]). The recorded tables hold no refill
 * state, but this quantity follows from the slices alone, and it is the
 * one the kernel bounds: seL4's sporadic servers never let a context use
 * more than its budget in any window of its period, so the line reaches 0
 * only where the context is, or is about to be, throttled (and dips below
 * it by at most one kernel entry).
 */
#ifndef MCSIM_CLI_CHART_BUDGET_H
#define MCSIM_CLI_CHART_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "chart_query.h"

/* A stretch of CPU time a context paid for, [start, end). */
struct chart_usage {
    int64_t start, end;
};

/*
 * The points of the line over [from, to] (from < to) of a context with
 * `budget` and `period` (> 0) that paid for `usage` (n stretches sorted by
 * start, not overlapping; every stretch that ends after from - period must
 * be there). The line is exact: straight between consecutive points.
 * On success returns 0 and stores a malloc'd array in *pts (free it) and
 * its length in *n_pts (at least 2: from and to); -1 if out of memory.
 */
int chart_budget_line(const struct chart_usage *usage, size_t n, int64_t budget, int64_t period,
                      int64_t from, int64_t to, struct chart_point **pts, size_t *n_pts);

#endif /* MCSIM_CLI_CHART_BUDGET_H */
