/*
 * The remaining-budget counter of a thread's periodic scheduling context,
 * for the Chrome trace: the kernel's own budget state, the Gantt chart's
 * budget line (cli/chart/chart_budget.h, read by chart_budget_read from
 * the `refills` table and the slices the context paid for) sampled at its
 * corners. At each corner the counter takes the line's value there (of
 * several at one instant, the last); a trace counter holds its value until
 * the next sample, so during a slice it shows what the context had when
 * the slice began and drops to what is left at its end. It is 0 while the
 * head refill lies in the future (the context is throttled until then).
 *
 * Contexts without refill records have no counter: round-robin contexts
 * (budget = period; the kernel does not record their lists, which move at
 * every charge, and they are never throttled), and every context of a run
 * recorded before schema version 4.
 *
 * Memory: the context's refill records and paid stretches inside the
 * window (chart_budget_read), one context at a time.
 */
#include "export_int.h"

#include <stdbool.h>
#include <stdlib.h>

#include "chart/chart_budget.h"

int eb_track(sqlite3 *db, int64_t run_id, const struct eb_context *c, eb_emit_fn emit, void *ctx)
{
    struct chart_budget_reader q;
    struct chart_point *p = NULL;
    size_t n = 0;
    uint64_t last = 0;
    bool emitted = false;
    int rc = -1;

    if (c->budget == 0 || c->period <= c->budget || c->from >= c->to)
        return 0;
    if (chart_budget_open(db, run_id, &q) == 0)
        rc = chart_budget_read(&q, c->thread_id, (int64_t)c->period, (int64_t)c->from,
                               (int64_t)c->to, &p, &n);
    chart_budget_close(&q);
    for (size_t i = 0; rc == 0 && i < n && p[i].time < (int64_t)c->to; i++) {
        uint64_t v = p[i].left < 0 ? 0 : (uint64_t)p[i].left; /* an overrun shows as 0 */

        if (i + 1 < n && p[i + 1].time == p[i].time)
            continue; /* the last at an instant holds from it on */
        if (emitted && v == last)
            continue;
        rc = emit(ctx, (uint64_t)p[i].time, v);
        emitted = true;
        last = v;
    }
    free(p);
    return rc == -2 ? -1 : rc;
}
