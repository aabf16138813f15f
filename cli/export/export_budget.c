/*
 * The remaining-budget counter of a thread's scheduling context, for the
 * Chrome trace. The database records what the context paid for (slices
 * with sc_thread_id = the thread) and what the kernel decided
 * (budget_events), not the refills themselves, so the counter is a model
 * anchored on the kernel's decisions, by these rules (also in the README):
 *
 * 1. At time 0 the context has its whole budget B.
 * 2. A slice paid by the context uses its length: the counter drops by it
 *    at the slice's end (never below 0).
 * 3. Periodic context (budget < period P): time used comes back one period
 *    after it was used, as seL4's sporadic server schedules a used refill
 *    one period after the refill it came from (up to B). This is what
 *    refills a context that is never throttled.
 * 4. `throttle` and `timeout_fault`: the kernel found nothing usable: the
 *    counter is 0 until the next `replenish`; what the model still had, and
 *    what comes back by rule 3 meanwhile, is held for that replenish.
 * 5. `replenish` with amount A: the kernel's figure wins: the counter is A,
 *    and of the time the model had yet to give back, the earliest is taken
 *    as given back by this replenish, so that the counter and what is still
 *    to come back add up to B again.
 * 6. Round-robin context (budget = period): used time moves to the back of
 *    the budget and the whole budget is back when it runs out, so the
 *    counter counts down from B and starts again at B when it reaches 0 or
 *    at an `exhausted` event (the MIN_BUDGET rule ended it early).
 * 7. `emergency` with amount G: the counter rises by G.
 * A sample is passed on only when the value changes, one per instant (the
 * last); between samples the value holds (a trace counter is a step
 * function), so during a slice the counter shows what the context had when
 * the slice began.
 *
 * Memory: the returns not yet due, at most one per slice (or part of one)
 * in the last period, not the whole run.
 */
#include "export_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"

struct ret {
    uint64_t due, amount;
};

struct model {
    const struct eb_context *c;
    bool rr;
    uint64_t r;    /* remaining: what the counter shows */
    struct ret *q; /* returns not yet due, by due time, from q[head] */
    size_t head, count, cap;
    uint64_t queued; /* sum of the queue's amounts */
    uint64_t parked; /* comes back at the next replenish (rule 4) */
    bool throttled;  /* between a throttle and the next replenish */
    bool emitted;    /* a sample was passed on; `last` is its value */
    uint64_t last;
    bool held; /* a sample is held back: a later one at the same time replaces it */
    uint64_t held_time, held_value;
    eb_emit_fn emit;
    void *ctx;
    int rc; /* emit's first non-zero value, or -1 out of memory */
};

/* Pass on the held sample unless it repeats the last value. */
static void flush(struct model *m)
{
    if (!m->held || m->rc != 0)
        return;
    m->held = false;
    if (m->emitted && m->last == m->held_value)
        return;
    m->emitted = true;
    m->last = m->held_value;
    m->rc = m->emit(m->ctx, m->held_time, m->held_value);
}

/* The counter is m->r from `time` on. Samples arrive in time order; of
 * several at one time only the last is passed on. */
static void sample(struct model *m, uint64_t time)
{
    if (m->held && m->held_time != time)
        flush(m);
    m->held = true;
    m->held_time = time;
    m->held_value = m->r;
}

static void push(struct model *m, uint64_t due, uint64_t amount)
{
    if (m->head > 0 && m->head + m->count == m->cap) {
        memmove(m->q, m->q + m->head, m->count * sizeof *m->q);
        m->head = 0;
    }
    if (m->head + m->count == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct ret *q = realloc(m->q, cap * sizeof *q);
        if (!q) {
            m->rc = -1;
            return;
        }
        m->q = q;
        m->cap = cap;
    }
    m->q[m->head + m->count++] = (struct ret){due, amount};
    m->queued += amount;
}

static void pop(struct model *m)
{
    m->queued -= m->q[m->head].amount;
    m->head++;
    m->count--;
}

/* Rule 3: every return due at or before `t`, one sample per due time. */
static void advance(struct model *m, uint64_t t)
{
    while (m->count > 0 && m->q[m->head].due <= t) {
        uint64_t due = m->q[m->head].due;
        while (m->count > 0 && m->q[m->head].due == due) {
            uint64_t a = m->q[m->head].amount;
            if (m->throttled)
                m->parked += a;
            else
                m->r = m->r + a > m->c->budget ? m->c->budget : m->r + a;
            pop(m);
        }
        sample(m, due);
    }
}

/* Use `len` cycles from `at`: what the counter had is scheduled back. */
static void use(struct model *m, uint64_t at, uint64_t len)
{
    uint64_t taken = len < m->r ? len : m->r;
    m->r -= taken;
    if (taken > 0)
        push(m, at + m->c->period, taken);
}

static void periodic_slice(struct model *m, uint64_t start, uint64_t end)
{
    uint64_t cur = start;
    advance(m, start);
    while (cur < end && m->rc == 0) {
        uint64_t next = end;
        if (m->count > 0 && m->q[m->head].due < end)
            next = m->q[m->head].due;
        use(m, cur, next - cur);
        if (next < end)
            advance(m, next);
        cur = next;
    }
    sample(m, end);
}

/* Rule 6. */
static void rr_slice(struct model *m, uint64_t start, uint64_t end)
{
    uint64_t len = end - start, b = m->c->budget;
    if (len < m->r)
        m->r -= len;
    else
        m->r = b - (len - m->r) % b;
    sample(m, end);
}

/* Rule 5: the counter becomes `amount`; the earliest of what was still to
 * come back is what this replenish gave. */
static void replenish(struct model *m, uint64_t amount)
{
    uint64_t b = m->c->budget, target;
    m->r = amount < b ? amount : b;
    target = b - m->r;
    if (m->parked + m->queued < target) {
        m->parked = target - m->queued;
        return;
    }
    while (m->parked + m->queued > target) {
        uint64_t excess = m->parked + m->queued - target;
        if (m->parked > 0) {
            uint64_t d = excess < m->parked ? excess : m->parked;
            m->parked -= d;
        } else if (m->q[m->head].amount <= excess) {
            pop(m);
        } else {
            m->q[m->head].amount -= excess;
            m->queued -= excess;
        }
    }
}

static void event(struct model *m, uint64_t time, const char *kind, uint64_t amount)
{
    if (!m->rr)
        advance(m, time);
    if (strcmp(kind, "emergency") == 0) {
        m->r += amount;
    } else if (m->rr) {
        if (strcmp(kind, "exhausted") == 0)
            m->r = m->c->budget;
    } else if (strcmp(kind, "throttle") == 0 || strcmp(kind, "timeout_fault") == 0) {
        m->parked += m->r;
        m->r = 0;
        m->throttled = true;
    } else if (strcmp(kind, "replenish") == 0) {
        m->throttled = false;
        replenish(m, amount);
    }
    sample(m, time);
}

static const char slices_sql[] =
    DB_SLICES_PAID_BY("start_time, end_time, seq, row", "?2", "") " ORDER BY start_time, 3, 4";
static const char events_sql[] = "SELECT time, kind, amount FROM run_budget_events"
                                 " WHERE run_id = ?1 AND sc_thread_id = ?2"
                                 " ORDER BY time, seq, row";

static int prepare(sqlite3 *db, const char *sql, int64_t run, int64_t thread, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(*st, 1, run);
    sqlite3_bind_int64(*st, 2, thread);
    return 0;
}

static uint64_t col(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);
    return v < 0 ? 0 : (uint64_t)v;
}

static void slice_part(struct model *m, uint64_t start, uint64_t end)
{
    if (end <= start)
        return;
    if (m->rr)
        rr_slice(m, start, end);
    else
        periodic_slice(m, start, end);
}

/* Merge the two streams in time order: an event before a slice that
 * starts when it happens (a replenish lets the thread run); an event in
 * the middle of a slice (a round-robin context renewed while its thread
 * runs on) splits it, so that samples stay in time order. */
static int run_model(struct model *m, sqlite3_stmt *sl, sqlite3_stmt *ev)
{
    int rs = sqlite3_step(sl), re = sqlite3_step(ev);
    uint64_t from = rs == SQLITE_ROW ? col(sl, 0) : 0; /* the slice's part not yet used */
    while (m->rc == 0 && (rs == SQLITE_ROW || re == SQLITE_ROW)) {
        if (re == SQLITE_ROW && (rs != SQLITE_ROW || col(ev, 0) <= from)) {
            const char *kind = (const char *)sqlite3_column_text(ev, 1);
            event(m, col(ev, 0), kind ? kind : "", col(ev, 2));
            re = sqlite3_step(ev);
        } else if (re == SQLITE_ROW && col(ev, 0) < col(sl, 1)) {
            slice_part(m, from, col(ev, 0));
            from = col(ev, 0);
        } else {
            slice_part(m, from, col(sl, 1));
            if ((rs = sqlite3_step(sl)) == SQLITE_ROW)
                from = col(sl, 0);
        }
    }
    if (m->rc != 0)
        return m->rc;
    if (rs != SQLITE_DONE || re != SQLITE_DONE)
        return -1;
    /* Returns after the last row still happen if they fall in the run. */
    if (!m->rr && m->c->duration > 0)
        advance(m, m->c->duration - 1);
    flush(m);
    return m->rc;
}

int eb_track(sqlite3 *db, int64_t run_id, const struct eb_context *c, eb_emit_fn emit, void *ctx)
{
    struct model m = {0};
    sqlite3_stmt *sl = NULL, *ev = NULL;
    int rc = -1;

    if (c->budget == 0 || c->period == 0)
        return 0;
    m.c = c;
    m.rr = c->budget >= c->period;
    m.r = c->budget;
    m.emit = emit;
    m.ctx = ctx;
    sample(&m, 0);
    if (prepare(db, slices_sql, run_id, c->thread_id, &sl) == 0 &&
        prepare(db, events_sql, run_id, c->thread_id, &ev) == 0)
        rc = run_model(&m, sl, ev);
    sqlite3_finalize(sl);
    sqlite3_finalize(ev);
    free(m.q);
    return rc;
}
