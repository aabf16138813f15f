/*
 * Refill fragmentation (fragment.h).
 */
#include "fragment.h"

#include <inttypes.h>
#include <stdlib.h>

#include "summary.h"

/* Per throttle of a thread's periodic context in run ?1 (?2: MIN_BUDGET):
 * the context, whether its list was full then, and the budget it left
 * unused in the period before. The refill state is the last row at or
 * before the throttle, in the context's last block starting there or
 * earlier or a later one; the slices paid are read from the blocks that
 * reach into the period. */
static const char fragment_sql[] =
    "SELECT c.thread_id, c.name, c.capacity, c.unused, c.budget FROM ("
    " SELECT t.thread_id, t.name, t.budget, f.count, f.capacity,"
    "  t.budget - (SELECT coalesce(sum(min(s.end_time, b.time)"
    "   - max(s.start_time, b.time - t.period)), 0) FROM run_slices s"
    "   WHERE s.run_id = ?1 AND s.sc_thread_id = t.thread_id AND s.block_end > b.time - t.period"
    "   AND s.block_start < b.time AND s.start_time < b.time"
    "   AND s.end_time > b.time - t.period) AS unused"
    " FROM run_budget_events b JOIN threads t ON t.run_id = b.run_id"
    "  AND t.thread_id = b.sc_thread_id"
    " JOIN run_refills f ON f.row = (SELECT r.row FROM run_refills r WHERE r.run_id = ?1"
    "   AND r.sc_thread_id = b.sc_thread_id AND r.time <= b.time AND r.block_start <= b.time"
    "   AND r.block_end >= (SELECT"
    "   coalesce(max(a.min_time), 0) FROM trace_blocks a WHERE a.run_id = ?1"
    "   AND a.tbl = 'refills' AND a.sc_thread_id = b.sc_thread_id AND a.min_time <= b.time)"
    "   ORDER BY r.time DESC, r.seq DESC LIMIT 1)"
    " WHERE b.run_id = ?1 AND b.kind = 'throttle' AND b.sc_thread_id IS NOT NULL"
    "  AND t.period > t.budget ORDER BY b.time, b.seq) c"
    " WHERE c.count = c.capacity AND c.unused >= ?2 ORDER BY c.thread_id";

int fragment_load(sqlite3 *db, int64_t run_id, uint64_t min_budget, struct fragment **out,
                  size_t *n, char *err, size_t err_len)
{
    sqlite3_stmt *st;
    struct fragment *v = NULL;
    size_t cap = 0;
    int rc;

    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db, fragment_sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, err_len, "mcsim: %s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (int64_t)min_budget);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        struct fragment *x = *n ? &v[*n - 1] : NULL;

        if (x == NULL || x->thread_id != id) {
            if (*n == cap) {
                struct fragment *g = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof *v);
                if (g == NULL) {
                    free(v);
                    sqlite3_finalize(st);
                    snprintf(err, err_len, "mcsim: out of memory");
                    return -1;
                }
                v = g;
            }
            x = &v[(*n)++];
            *x = (struct fragment){.thread_id = id};
            snprintf(x->name, sizeof x->name, "%s", (const char *)sqlite3_column_text(st, 1));
        }
        x->throttles++;
        x->capacity = sqlite3_column_int64(st, 2);
        if (sqlite3_column_int64(st, 3) > x->most_unused)
            x->most_unused = sqlite3_column_int64(st, 3);
        x->budget = sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v);
        *n = 0;
        snprintf(err, err_len, "mcsim: %s", sqlite3_errmsg(db));
        return -1;
    }
    *out = v;
    return 0;
}

void fragment_print(FILE *f, sqlite3 *db, int64_t run_id, uint64_t min_budget, uint64_t cpu_hz)
{
    struct fragment *v;
    size_t n;
    char err[256];

    if (fragment_load(db, run_id, min_budget, &v, &n, err, sizeof err) != 0) {
        fprintf(f, "(no fragmentation check: %s)\n", err);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char unused[32], budget[32];

        summary_format_time(unused, sizeof unused, (uint64_t)v[i].most_unused, cpu_hz);
        summary_format_time(budget, sizeof budget, (uint64_t)v[i].budget, cpu_hz);
        fprintf(f,
                "%s throttled %" PRId64 " time%s with unused budget: its %" PRId64
                " refills fragmented under preemption; see extra_refills (up to %s of its %s"
                " budget unused in the period before a throttle)\n",
                v[i].name, v[i].throttles, v[i].throttles == 1 ? "" : "s", v[i].capacity, unused,
                budget);
    }
    free(v);
}
