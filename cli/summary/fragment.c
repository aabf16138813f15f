/*
 * Refill fragmentation (fragment.h).
 *
 * One ordered pass per throttled periodic context, reading each of its
 * tables once through its own blocks (trace_blocks_by_context):
 * 1. its throttles in time order, merged with its refill records in time
 *    order: at each throttle the last record before its time (the list as
 *    the entry that throttled found it, not as that entry's own charge
 *    left it) says whether the list was full; the full ones are kept
 *    (per-context memory: one entry per such throttle);
 * 2. the slices it paid for, in start order, from the first kept
 *    throttle's period on: each slice adds its overlap to the windows
 *    (throttle - period, throttle) it meets. Windows are ordered and a
 *    slice meets only those whose throttle lies in (start, end + period),
 *    so the pass is linear in the rows read.
 */
#include "fragment.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "summary.h"

/* The periodic contexts of run ?1, by thread id. */
static const char contexts_sql[] = "SELECT thread_id, name, budget, period FROM threads"
                                   " WHERE run_id = ?1 AND period > budget ORDER BY thread_id";
static const char throttles_sql[] = "SELECT time FROM run_budget_events WHERE run_id = ?1"
                                    " AND sc_thread_id = ?2 AND kind = 'throttle'"
                                    " ORDER BY time, seq";
/* The records before the last throttle ?3. */
static const char refills_sql[] = "SELECT time, count, capacity FROM run_refills"
                                  " WHERE run_id = ?1 AND sc_thread_id = ?2 AND block_start < ?3"
                                  " AND time < ?3 ORDER BY time, seq";
/* The slices paid that reach into (?3, ?4): the first window's start and
 * the last throttle. */
static const char slices_sql[] = "SELECT start_time, end_time FROM run_slices"
                                 " WHERE run_id = ?1 AND sc_thread_id = ?2 AND block_end > ?3"
                                 " AND block_start < ?4 AND end_time > ?3 AND start_time < ?4"
                                 " ORDER BY start_time";

/* A throttle with the list full: its time, the capacity, what was paid in
 * the period before it. */
struct full {
    int64_t time, capacity, paid;
};

struct pass {
    sqlite3_stmt *throttles, *refills, *slices;
    struct full *v;
    size_t n, cap;
};

static void bind(sqlite3_stmt *st, int64_t run_id, int64_t ctx, int64_t a, int64_t b)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, ctx);
    if (sqlite3_bind_parameter_count(st) >= 3)
        sqlite3_bind_int64(st, 3, a);
    if (sqlite3_bind_parameter_count(st) >= 4)
        sqlite3_bind_int64(st, 4, b);
}

/* Append a throttle at `time` to p->v; -2 out of memory. */
static int keep(struct pass *p, int64_t time)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        struct full *g = realloc(p->v, cap * sizeof *g);
        if (g == NULL)
            return -2;
        p->v = g;
        p->cap = cap;
    }
    p->v[p->n++] = (struct full){time, 0, 0};
    return 0;
}

/* Step 1: p->v = the throttles of context `ctx` with its list full.
 * Returns 0, -1 on an SQL error, -2 out of memory. */
static int full_throttles(struct pass *p, int64_t run_id, int64_t ctx)
{
    int rc;
    size_t kept = 0;
    bool have = false; /* a record before the throttle */
    int64_t count = 0, capacity = 0;

    p->n = 0;
    bind(p->throttles, run_id, ctx, 0, 0);
    while ((rc = sqlite3_step(p->throttles)) == SQLITE_ROW)
        if (keep(p, sqlite3_column_int64(p->throttles, 0)) != 0)
            return -2;
    if (rc != SQLITE_DONE)
        return -1;
    if (p->n == 0)
        return 0;
    bind(p->refills, run_id, ctx, p->v[p->n - 1].time, 0);
    rc = sqlite3_step(p->refills);
    for (size_t i = 0; i < p->n; i++) {
        for (; rc == SQLITE_ROW && sqlite3_column_int64(p->refills, 0) < p->v[i].time;
             rc = sqlite3_step(p->refills)) {
            have = true;
            count = sqlite3_column_int64(p->refills, 1);
            capacity = sqlite3_column_int64(p->refills, 2);
        }
        if (have && count == capacity)
            p->v[kept++] = (struct full){p->v[i].time, capacity, 0};
    }
    p->n = kept;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* Step 2: each kept throttle's paid, over (time - period, time). */
static int paid_before(struct pass *p, int64_t run_id, int64_t ctx, int64_t period)
{
    size_t lo = 0; /* the first window not yet behind the slices */
    int rc;

    bind(p->slices, run_id, ctx, p->v[0].time - period, p->v[p->n - 1].time);
    while ((rc = sqlite3_step(p->slices)) == SQLITE_ROW) {
        int64_t s = sqlite3_column_int64(p->slices, 0), e = sqlite3_column_int64(p->slices, 1);

        while (lo < p->n && p->v[lo].time <= s) /* starts only grow */
            lo++;
        for (size_t i = lo; i < p->n && p->v[i].time - period < e; i++) {
            int64_t a = p->v[i].time - period, b = p->v[i].time;
            p->v[i].paid += (e < b ? e : b) - (s > a ? s : a);
        }
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Context ctx's diagnosis into *x (x->throttles 0: nothing to say). */
static int diagnose(struct pass *p, int64_t run_id, int64_t ctx, int64_t budget, int64_t period,
                    uint64_t min_budget, struct fragment *x)
{
    int rc = full_throttles(p, run_id, ctx);

    if (rc != 0 || p->n == 0 || (rc = paid_before(p, run_id, ctx, period)) != 0)
        return rc;
    for (size_t i = 0; i < p->n; i++) {
        int64_t unused = budget - p->v[i].paid;
        if (unused < (int64_t)min_budget)
            continue;
        x->throttles++;
        x->capacity = p->v[i].capacity;
        if (unused > x->most_unused)
            x->most_unused = unused;
    }
    x->budget = budget;
    return 0;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    return sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK ? st : NULL;
}

int fragment_load(sqlite3 *db, int64_t run_id, uint64_t min_budget, struct fragment **out,
                  size_t *n, char *err, size_t err_len)
{
    struct pass p = {0};
    sqlite3_stmt *ctxs = prepare(db, contexts_sql);
    struct fragment *v = NULL;
    size_t cap = 0;
    int rc = -1, rs = SQLITE_ERROR;

    *out = NULL;
    *n = 0;
    p.throttles = prepare(db, throttles_sql);
    p.refills = prepare(db, refills_sql);
    p.slices = prepare(db, slices_sql);
    if (ctxs && p.throttles && p.refills && p.slices) {
        rc = 0;
        sqlite3_bind_int64(ctxs, 1, run_id);
    }
    while (rc == 0 && (rs = sqlite3_step(ctxs)) == SQLITE_ROW) {
        struct fragment x = {.thread_id = sqlite3_column_int64(ctxs, 0)};

        rc = diagnose(&p, run_id, x.thread_id, sqlite3_column_int64(ctxs, 2),
                      sqlite3_column_int64(ctxs, 3), min_budget, &x);
        if (rc != 0 || x.throttles == 0)
            continue;
        if (*n == cap) {
            struct fragment *g = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof *v);
            if (g == NULL) {
                rc = -2;
                continue;
            }
            v = g;
        }
        snprintf(x.name, sizeof x.name, "%s", (const char *)sqlite3_column_text(ctxs, 1));
        v[(*n)++] = x;
    }
    if (rc == 0 && rs != SQLITE_DONE)
        rc = -1;
    if (rc != 0) {
        snprintf(err, err_len, "mcsim: %s", rc == -2 ? "out of memory" : sqlite3_errmsg(db));
        free(v);
        v = NULL;
        *n = 0;
    }
    sqlite3_finalize(ctxs);
    sqlite3_finalize(p.throttles);
    sqlite3_finalize(p.refills);
    sqlite3_finalize(p.slices);
    free(p.v);
    *out = v;
    return rc == 0 ? 0 : -1;
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
