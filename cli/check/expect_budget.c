/*
 * budget: respected (docs/scenario-format.md "Expectations"), from the slices
 * each context paid for: in every window [t, t + period) a constant-
 * bandwidth or round-robin context ran at most its budget + one kernel
 * entry + the emergency grants made in that window or in the period
 * before it (a grant is spent from when it is made until the server
 * answers the request, which may be after the window it was made in; a
 * grant may exceed the budget). A sporadic context
 * has no such bound (preempted while runnable, it catches up); seL4 gives
 * it one counted from each instant its refills were all dated then or
 * later (budget_sporadic, docs/kernel-semantics.md).
 *
 * Exact over all integer t, in one pass and constant memory. With
 * covered(x) = 1 when x lies in a slice of the context, paid(t + 1) -
 * paid(t) = covered(t + period) - covered(t): paid does not rise while t
 * is inside a slice and does not fall while t is in a gap, so its maximum
 * is at a slice start. Grants make the limit G(t) a step function: it
 * rises at g - period + 1 and falls at g + period + 1 for a grant at g; at
 * those points the excess paid - limit is at most that at g - period and
 * g + period + 1 respectively (paid moves by at most 1 a step, a grant is
 * at least 1), so slice starts plus g - period and g + period + 1 for
 * every grant are all the windows that need checking.
 *
 * Everything is counted in timer ticks, as the kernel counts: it holds
 * budgets, periods and grants as whole ticks (the root task hands it
 * hal_sim_ticks_at of the scenario's cycles, rounded down: on a timer
 * slower than the CPU a period of 1000.9us is one of 1000us) and charges a
 * context the ticks its clock advanced while it ran, so a slice [a, b) is
 * [tick(a), tick(b)) (tick(x): the tick instant x lies in) and a slice of
 * 180,598 cycles from mid-tick is charged 181 ticks of 1,000 cycles, one
 * of 81,824 cycles 81 (docs/kernel-semantics.md, "Timer precision"; found
 * by the property test, unit.property). A sporadic context's refills and
 * its grants are dated in ticks too. One kernel entry of E cycles spans at
 * most ceil(E x timer_hz / cpu_hz) ticks of the clock, its allowance.
 * Exact for any timer rate, 32,768 Hz (30,517.578 cycles a tick)
 * included; with timer_hz = cpu_hz a tick is a cycle and nothing changes.
 *
 * The context's slices are read once (its blocks, in no order), sorted
 * and summed (budget_series), and every window is a difference of two
 * sums: what was paid before its end less what was paid before its
 * start; its grants the same. Memory: two instants and a sum a slice of
 * the context being checked (the SQL sort they were read through before
 * held as much, and each slice was read twice and sorted twice: 206 M of
 * the 1,111 M instructions of a recorded run of bench/rm10.yaml).
 */
#include "expect_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uworld.h" /* BADGE_NTFN_BASE */

#include "hal_sim.h"

#include "db/db.h"

/* A context's slices, in no order (series_load sorts them): db.h,
 * DB_SLICES_PAID_BY. A notification's context pays for other threads
 * only. */
#define BUDGET_SLICES_OF_THREAD DB_SLICES_PAID_BY("start_time, end_time", "?2", "")
#define BUDGET_SLICES_OF_NOTIFICATION                                                              \
    "SELECT start_time, end_time FROM run_slices WHERE run_id = ?1 AND sc_thread_id IS NULL"       \
    " AND " DB_SLICES_DONATED " AND sc_notification = ?2"
#define BUDGET_GRANTS                                                                              \
    "SELECT time, amount FROM run_budget_events WHERE run_id = ?1 AND sc_thread_id = ?2"           \
    " AND kind = 'emergency' ORDER BY time"

/* One scheduling context: a thread's (thread >= 0) or a notification's. */
struct budget_ctx {
    char name[SCN_NAME_MAX];
    int64_t thread;
    int64_t badge; /* names the context in the events table */
    int64_t budget, period;
    bool sporadic;
    int64_t base; /* the limit without grants: budget + one entry */
};

/* The window of one context, or of all, with the largest excess: [start,
 * end); for a sporadic context, k periods from a wake-up (k = 0: one
 * window of a period). */
struct budget_window {
    bool any;
    struct budget_ctx ctx;
    int64_t start, end, k, paid, grants, excess;
};

struct budget_verdict {
    uint32_t contexts, over;
    struct budget_window worst;
};

/* Whether the check counts in ticks of a timer slower than the CPU;
 * otherwise a tick is a cycle. */
static bool budget_coarse(const struct expect_run *run)
{
    return run->timer_hz != 0 && run->timer_hz < run->cpu_hz;
}

/* Instant x as the kernel's clock reads it, the tick it lies in; and a
 * duration in cycles as the kernel holds it, whole ticks rounded down
 * (uplat_ticks): both are hal_sim_ticks_at. */
static int64_t budget_clock(const struct expect_run *run, int64_t x)
{
    if (!budget_coarse(run) || x <= 0)
        return x;
    return (int64_t)hal_sim_ticks_at((uint64_t)x, run->cpu_hz, run->timer_hz);
}

/* The ticks the clock can advance during one kernel entry of `cycles`:
 * an interval of E cycles holds at most ceil(E x timer_hz / cpu_hz) tick
 * boundaries. */
static int64_t budget_entry_ticks(const struct expect_run *run, cycles_t cycles)
{
    if (!budget_coarse(run))
        return (int64_t)cycles;
    return (int64_t)(((unsigned __int128)cycles * run->timer_hz + run->cpu_hz - 1) / run->cpu_hz);
}

/* Bind ?2 to the context: a thread id, or for slices a notification's
 * name; a notification's context has no recorded grants (NULL matches
 * nothing). */
static void budget_bind_ctx(sqlite3_stmt *st, const struct budget_ctx *ctx, bool slices)
{
    if (ctx->thread >= 0)
        sqlite3_bind_int64(st, 2, ctx->thread);
    else if (slices)
        sqlite3_bind_text(st, 2, ctx->name, -1, SQLITE_STATIC);
}

static void budget_consider_k(struct budget_window *w, const struct budget_ctx *ctx, int64_t t,
                              int64_t k, int64_t paid, int64_t grants)
{
    int64_t n = k > 0 ? k : 1;
    int64_t excess = paid - ((n - 1) * ctx->budget + ctx->base + grants);

    if (w->any && excess <= w->excess)
        return;
    *w = (struct budget_window){.any = true,
                                .ctx = *ctx,
                                .start = t,
                                .end = t + n * ctx->period,
                                .k = k,
                                .paid = paid,
                                .grants = grants,
                                .excess = excess};
}

static void budget_consider(struct budget_window *w, const struct budget_ctx *ctx, int64_t t,
                            int64_t paid, int64_t grants)
{
    budget_consider_k(w, ctx, t, 0, paid, grants);
}

/* ------------------------------------------------ series of slices and grants */

/* Rising sums over time: a context's slices (paid before each start) or
 * its grants (granted before each time), in time order. sum[i] is the
 * total of items 0..i-1; sum[n] the whole. */
struct budget_series {
    int64_t *at, *end, *sum;
    size_t n, cap;
};

static void series_release(struct budget_series *p)
{
    free(p->at);
    free(p->end);
    free(p->sum);
    memset(p, 0, sizeof *p);
}

static int series_push(struct expect_run *run, struct budget_series *p, int64_t at, int64_t end,
                       int64_t amount)
{
    if (p->n + 1 >= p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        int64_t *a = realloc(p->at, cap * sizeof *a), *e = a ? realloc(p->end, cap * sizeof *e) : NULL,
                *s = e ? realloc(p->sum, cap * sizeof *s) : NULL;

        if (a)
            p->at = a;
        if (e)
            p->end = e;
        if (!s) {
            snprintf(run->errmsg, run->errmsg_size, "mcsim: check: out of memory");
            return -1;
        }
        p->sum = s;
        p->cap = cap;
    }
    if (p->n == 0)
        p->sum[0] = 0;
    p->at[p->n] = at;
    p->end[p->n] = end;
    p->sum[p->n + 1] = p->sum[p->n] + amount;
    p->n++;
    return 0;
}

/* A slice's ends, a grant's time and amount, as read. */
struct budget_pair {
    int64_t a, b;
};

static int pair_cmp(const void *x, const void *y)
{
    const struct budget_pair *p = x, *q = y;

    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Whether v is in pair_cmp's order already: a context's slices come in
 * blocks by (thread, context), each in time order, so a context only its
 * own thread ran on is read sorted, and qsort's merge sort would cost
 * more than reading it (60 M instructions on bench/rm10.yaml). */
static bool pairs_sorted(const struct budget_pair *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (pair_cmp(&v[i - 1], &v[i]) > 0)
            return false;
    return true;
}

/* Load rows (a, b) of `sql` (?2 bound to the context), in ticks
 * (budget_clock): slices are (start, end), read in no order and sorted by
 * start (they do not overlap, so also by end); grants (time, amount), in
 * time order. */
static int series_load(struct expect_run *run, const char *sql, const struct budget_ctx *ctx,
                       bool slices, struct budget_series *p)
{
    sqlite3_stmt *st = expect_prepare(run, "%s", sql);
    struct budget_pair *v = NULL;
    size_t n = 0, cap = 0;
    bool row = true;
    int rc = st ? 0 : -1;

    if (st)
        budget_bind_ctx(st, ctx, slices);
    while (rc == 0 && (rc = expect_step(run, st, &row)) == 0 && row) {
        int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);

        if (n == cap) {
            struct budget_pair *grown = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v);

            if (!grown) {
                snprintf(run->errmsg, run->errmsg_size, "mcsim: check: out of memory");
                rc = -1;
                break;
            }
            v = grown;
        }
        v[n++] = (struct budget_pair){budget_clock(run, a), budget_clock(run, b)};
    }
    sqlite3_finalize(st);
    if (rc == 0 && slices && n > 1 && !pairs_sorted(v, n)) /* v is NULL when nothing was read */
        qsort(v, n, sizeof *v, pair_cmp);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = series_push(run, p, v[i].a, slices ? v[i].b : v[i].a,
                         slices ? v[i].b - v[i].a : v[i].b);
    free(v);
    return rc;
}

/* The total before t: of slices, what was paid in [0, t); of grants (end
 * = at), what was granted before t. */
static int64_t series_before(const struct budget_series *p, int64_t t)
{
    size_t lo = 0, hi = p->n;
    int64_t total;

    if (p->n == 0)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (p->at[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    total = p->sum[lo];
    if (lo > 0 && p->end[lo - 1] > t)
        total -= p->end[lo - 1] - t;
    return total;
}

/* When the kernel re-dated the context's refills from then on: a wake-up
 * of its thread (the sporadic_unblock events), and 0 (it was configured
 * after boot, so every refill is dated later). */
static int sporadic_anchors(struct expect_run *run, const struct budget_ctx *ctx,
                            struct budget_series *p)
{
    sqlite3_stmt *st = expect_prepare(run, "SELECT time FROM run_events WHERE run_id = ?1"
                                           " AND kind = 'sporadic_unblock' AND object = ?2"
                                           " ORDER BY time");
    bool row = true;
    int rc = st ? series_push(run, p, 0, 0, 0) : -1;

    if (st)
        sqlite3_bind_int64(st, 2, ctx->badge);
    while (rc == 0 && (rc = expect_step(run, st, &row)) == 0 && row)
        rc = series_push(run, p, budget_clock(run, sqlite3_column_int64(st, 0)), 0, 0);
    sqlite3_finalize(st);
    return rc;
}

/* What `ctx` paid (its slices) and, a thread's, was granted in the run. */
static int paid_and_granted(struct expect_run *run, const struct budget_ctx *ctx,
                            struct budget_series *slices, struct budget_series *grants)
{
    int rc = series_load(run,
                         ctx->thread >= 0 ? BUDGET_SLICES_OF_THREAD
                                          : BUDGET_SLICES_OF_NOTIFICATION,
                         ctx, true, slices);

    if (rc == 0 && ctx->thread >= 0)
        rc = series_load(run, BUDGET_GRANTS, ctx, false, grants);
    return rc;
}

/*
 * A sporadic context: from each instant a at which its refills were all
 * dated a or later, in every [a, a + k x period) it ran at most k x budget
 * + one kernel entry + the grants made there (docs/kernel-semantics.md,
 * "The sporadic guarantee"). Checked for each wake-up a up to the next
 * wake-up: k = 1, 2, ... while a + (k - 1) x period is before it.
 */
static int budget_sporadic(struct expect_run *run, const struct budget_ctx *ctx,
                           struct budget_window *w)
{
    struct budget_series slices = {0}, grants = {0}, anchors = {0};
    int rc = paid_and_granted(run, ctx, &slices, &grants);

    if (rc == 0)
        rc = sporadic_anchors(run, ctx, &anchors);
    for (size_t j = 0; rc == 0 && slices.n > 0 && j < anchors.n; j++) {
        int64_t a = anchors.at[j];
        int64_t stop =
            j + 1 < anchors.n ? anchors.at[j + 1] : budget_clock(run, (int64_t)run->duration);
        int64_t paid_a = series_before(&slices, a), granted_a = series_before(&grants, a);

        for (int64_t k = 1; a + (k - 1) * ctx->period < stop; k++) {
            int64_t t = a + k * ctx->period;

            budget_consider_k(w, ctx, a, k, series_before(&slices, t) - paid_a,
                              series_before(&grants, t) - granted_a);
        }
    }
    series_release(&slices);
    series_release(&grants);
    series_release(&anchors);
    return rc;
}

/*
 * Every window of a period of a constant-bandwidth or round-robin
 * context: from each slice start t, what was paid in [t, t + period) and
 * granted in [t - period, t + period); then the windows just before a
 * grant enters and just after it leaves (g - period and g + period + 1).
 */
static int budget_windows(struct expect_run *run, const struct budget_ctx *ctx,
                          struct budget_window *w)
{
    struct budget_series slices = {0}, grants = {0};
    int64_t period = ctx->period;
    int rc = paid_and_granted(run, ctx, &slices, &grants);

    for (size_t i = 0; rc == 0 && i < slices.n; i++) {
        int64_t t = slices.at[i];

        budget_consider(w, ctx, t, series_before(&slices, t + period) - slices.sum[i],
                        series_before(&grants, t + period) - series_before(&grants, t - period));
    }
    for (size_t g = 0; rc == 0 && g < grants.n; g++) {
        int64_t starts[2] = {grants.at[g] - period, grants.at[g] + period + 1};

        for (int i = 0; i < 2; i++) {
            int64_t t = starts[i], end = t + period;
            int64_t paid = series_before(&slices, end) - series_before(&slices, t);
            int64_t granted = series_before(&grants, end) - series_before(&grants, t - period);

            budget_consider(w, ctx, t, paid, granted);
        }
    }
    series_release(&slices);
    series_release(&grants);
    return rc;
}

static int budget_check_ctx(struct expect_run *run, struct budget_ctx *ctx,
                            struct budget_verdict *v)
{
    struct budget_window w = {0};
    int rc;

    ctx->base = ctx->budget + budget_entry_ticks(run, run->allowance);
    rc = ctx->sporadic ? budget_sporadic(run, ctx, &w) : budget_windows(run, ctx, &w);
    v->contexts++;
    v->over += w.any && w.excess > 0;
    if (w.any && (!v->worst.any || w.excess > v->worst.excess))
        v->worst = w;
    return rc;
}

/* A context parameter as the kernel holds it, in ticks. */
static int64_t budget_held(const struct expect_run *run, int64_t cycles)
{
    return budget_clock(run, cycles);
}

/* Contexts of threads, from the threads table (a passive thread has
 * none). */
static int budget_threads(struct expect_run *run, struct budget_verdict *v)
{
    sqlite3_stmt *st = expect_prepare(run, "SELECT thread_id, name, budget, period, sporadic"
                                           " FROM threads WHERE run_id = ?1 AND budget IS NOT NULL"
                                           " AND period IS NOT NULL ORDER BY thread_id");
    bool row = true;
    int rc = st ? 0 : -1;

    while (rc == 0 && (rc = expect_step(run, st, &row)) == 0 && row) {
        struct budget_ctx ctx = {
            .thread = sqlite3_column_int64(st, 0),
            .badge = sqlite3_column_int64(st, 0),
            .budget = budget_held(run, sqlite3_column_int64(st, 2)),
            .period = budget_held(run, sqlite3_column_int64(st, 3)),
            .sporadic = sqlite3_column_int(st, 4) != 0,
        };

        snprintf(ctx.name, sizeof ctx.name, "%s", (const char *)sqlite3_column_text(st, 1));
        rc = budget_check_ctx(run, &ctx, v);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Contexts of notifications, which the tables do not list: from the
 * scenario. NEEDSWORK: an emergency grant on a notification's context
 * cannot be told apart in budget_events (sc_thread_id is NULL), so none
 * is allowed for. */
static int budget_notifications(struct expect_run *run, struct budget_verdict *v)
{
    const struct scenario *s = run->s;

    for (uint32_t i = 0; i < s->n_notifications; i++) {
        const struct scn_notification *n = &s->notifications[i];
        struct budget_ctx ctx = {.thread = -1,
                                 .badge = BADGE_NTFN_BASE + (int64_t)i,
                                 .budget = budget_held(run, (int64_t)n->sc.budget),
                                 .period = budget_held(run, (int64_t)n->sc.period),
                                 .sporadic = n->sc.sporadic};

        if (!n->sc.present)
            continue;
        snprintf(ctx.name, sizeof ctx.name, "%s", n->name);
        if (budget_check_ctx(run, &ctx, v) != 0)
            return -1;
    }
    return 0;
}

/* "control ran 2.000121ms (2000121 cycles) in [0, 10ms), allowed 2.00012ms
 * (2000120 cycles: budget 2ms + entry 120ns)"; a sporadic context's: "s
 * ran 5ms (5000000 cycles) in [0, 50ms), 5 periods from when its refills
 * were dated, allowed 5ms (5000000 cycles: 5 x budget 1ms + entry 0)".
 * The figures are those compared, exact: in cycles at the run's cpu_hz,
 * or on a timer slower than the CPU in ticks at its timer_hz ("(3385
 * ticks)"; the times are the ticks' own, the entry its allowance in
 * whole ticks). */
static void budget_detail(struct expect_result *out, const struct budget_verdict *v,
                          const struct expect_run *run)
{
    const struct budget_window *w = &v->worst;
    uint64_t hz = budget_coarse(run) ? run->timer_hz : run->cpu_hz;
    const char *unit = budget_coarse(run) ? "ticks" : "cycles";
    char grants[48] = "", budget[64], periods[80] = "";
    char ran[32], from[32], to[32], allowed[32], b[32], entry[32];

    if (!w->any) {
        expect_detail(out, v->contexts ? "%u contexts, none ran" : "no scheduling contexts",
                      v->contexts);
        return;
    }
    if (w->grants) {
        char g[32];
        expect_fmt_time(g, sizeof g, w->grants, hz);
        snprintf(grants, sizeof grants, " + emergency %s", g);
    }
    expect_fmt_time(b, sizeof b, w->ctx.budget, hz);
    snprintf(budget, sizeof budget, "budget %s", b);
    if (w->k > 0) {
        snprintf(periods, sizeof periods, ", %lld period%s from when its refills were dated",
                 (long long)w->k, w->k == 1 ? "" : "s");
        snprintf(budget, sizeof budget, "%lld x budget %s", (long long)w->k, b);
    }
    expect_fmt_time(ran, sizeof ran, w->paid, hz);
    expect_fmt_time(from, sizeof from, w->start, hz);
    expect_fmt_time(to, sizeof to, w->end, hz);
    expect_fmt_time(allowed, sizeof allowed, w->paid - w->excess, hz);
    expect_fmt_time(entry, sizeof entry, budget_entry_ticks(run, run->allowance), hz);
    expect_detail(out,
                  "%u of %u contexts over budget; %s: %s ran %s (%lld %s) in [%s, %s)%s,"
                  " allowed %s (%lld %s: %s + entry %s%s)",
                  v->over, v->contexts, v->over ? "worst" : "tightest", w->ctx.name, ran,
                  (long long)w->paid, unit, from, to, periods, allowed,
                  (long long)(w->paid - w->excess), unit, budget, entry, grants);
}

int expect_budget(struct expect_run *run, struct expect_result *out)
{
    struct budget_verdict v = {0};

    if (budget_threads(run, &v) != 0 || budget_notifications(run, &v) != 0)
        return -1;
    out->passed = v.over == 0;
    budget_detail(out, &v, run);
    return 0;
}
