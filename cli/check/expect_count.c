/*
 * count expectations (expect.h): how often an event happened, each kind
 * counted in the table that records it.
 */
#include "expect_int.h"

#include <stdio.h>

#include "db/db.h"

static const char *const expect_event_name[EV_COUNT] = {
#define X(id, name) [id] = name,
    SCN_COUNT_EVENTS(X)
#undef X
};

/* Whether the program steps[first .. first + count) of a thread, or a body
 * nested in it, waits on notification `ntfn`. */
static bool expect_steps_wait(const struct scenario *s, uint32_t first, uint32_t count,
                              uint32_t ntfn, unsigned depth)
{
    for (uint32_t i = first; i < first + count && i < s->n_steps; i++) {
        const struct scn_step *step = &s->steps[i];
        bool body = step->kind == STEP_JOB || step->kind == STEP_LOOP || step->kind == STEP_REPEAT;

        if (step->kind == STEP_WAIT && step->object == ntfn)
            return true;
        if (body && depth < 64 &&
            expect_steps_wait(s, step->body_first, step->body_count, ntfn, depth + 1))
            return true;
    }
    return false;
}

/*
 * Interrupts of one device, or of every device (device NULL), taken or
 * lost.
 */
static int expect_count_device(struct expect_run *run, const char *device, bool lost, int64_t *n)
{
    sqlite3_stmt *st = expect_prepare(run,
                                      "SELECT count(*) FROM run_irqs WHERE run_id = ?1"
                                      " AND (?2 IS NULL OR device = ?2) AND %s",
                                      lost ? "lost = 1" : "delivered IS NOT NULL");

    if (!st)
        return -1;
    if (device)
        sqlite3_bind_text(st, 2, device, -1, SQLITE_STATIC);
    return expect_query_int(run, st, n);
}

/*
 * irq / irq_lost. With a thread filter, the interrupts of the devices
 * whose notification the thread waits on.
 * NEEDSWORK: that is "the thread woken" only while one thread waits on
 * each device's notification; telling which of several waiters a signal
 * woke needs the engine to record it in the irqs table.
 */
static int expect_count_irqs(struct expect_run *run, const struct scn_expect *e, int64_t *n)
{
    const struct scenario *s = run->s;
    const struct scn_thread *t;

    *n = 0;
    if (e->thread == SCN_NONE)
        return expect_count_device(run, e->device == SCN_NONE ? NULL : s->devices[e->device].name,
                                   e->event == EV_IRQ_LOST, n);
    t = &s->threads[e->thread];
    for (uint32_t d = 0; d < s->n_devices; d++) {
        int64_t k;

        if ((e->device != SCN_NONE && d != e->device) ||
            !expect_steps_wait(s, t->prog_first, t->prog_count, s->devices[d].notification, 0))
            continue;
        if (expect_count_device(run, s->devices[d].name, e->event == EV_IRQ_LOST, &k) != 0)
            return -1;
        *n += k;
    }
    return 0;
}

/* Rows of budget_events or events of a kind, or jobs, for ?3 = the thread
 * it happened to (-1: any). */
static int expect_count_rows(struct expect_run *run, const struct scn_expect *e, int64_t *n)
{
    const char *sql;
    sqlite3_stmt *st;

#define LOST_RELEASES                                                                              \
    "(SELECT count(*) FROM run_irqs i WHERE i.run_id = ?1 AND i.lost = 1"                          \
    " AND i.handler IS NOT NULL AND (?3 < 0 OR i.handler = ?3))"
    switch (e->event) {
    case EV_THROTTLE:
    case EV_REPLENISH:
    case EV_TIMEOUT_FAULT:
    case EV_EMERGENCY:
        sql = "SELECT count(*) FROM run_budget_events WHERE run_id = ?1 AND kind = ?2"
              " AND (?3 < 0 OR thread_id = ?3)";
        break;
    case EV_PREEMPT:
    case EV_CALL_ABORTED:
        sql = "SELECT count(*) FROM run_events WHERE run_id = ?1 AND kind = ?2"
              " AND " DB_EVENTS_SCHED_KINDS " AND (?3 < 0 OR thread_id = ?3)";
        break;
    /* a release lost with its interrupt is a failed job */
    case EV_DEADLINE_MISS:
        sql = "SELECT count(*) + " LOST_RELEASES " FROM run_jobs j WHERE j.run_id = ?1 AND "
              EXPECT_MISSED_SQL " AND (?3 < 0 OR j.thread_id = ?3)";
        break;
    default: /* EV_JOB: the jobs the thread was given (not the releases lost) */
        sql =
            "SELECT count(*) FROM run_jobs j WHERE j.run_id = ?1 AND (?3 < 0 OR j.thread_id = ?3)";
        break;
    }
    if (!(st = expect_prepare(run, "%s", sql)))
        return -1;
    if (e->event == EV_DEADLINE_MISS || e->event == EV_JOB)
        sqlite3_bind_int64(st, 2, (sqlite3_int64)run->duration);
    else
        sqlite3_bind_text(st, 2, expect_event_name[e->event], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, e->thread == SCN_NONE ? -1 : (int64_t)e->thread + 1);
    return expect_query_int(run, st, n);
}

/* "throttle of net_driver: 12 (at least 1)" */
static void expect_count_detail(const struct expect_run *run, const struct scn_expect *e, int64_t n,
                                struct expect_result *out)
{
    char who[EXPECT_WHO_MAX] = "", bound[64] = "no bound";
    const struct scenario *s = run->s;

    if (e->device != SCN_NONE && e->thread != SCN_NONE)
        snprintf(who, sizeof who, " of %s waking %s", s->devices[e->device].name,
                 expect_thread_name(run, e->thread));
    else if (e->device != SCN_NONE)
        snprintf(who, sizeof who, " of %s", s->devices[e->device].name);
    else if (e->thread != SCN_NONE)
        snprintf(who, sizeof who, " %s %s",
                 e->event == EV_IRQ || e->event == EV_IRQ_LOST ? "waking" : "of",
                 expect_thread_name(run, e->thread));
    if (e->has_at_least && e->has_at_most)
        snprintf(bound, sizeof bound, "between %llu and %llu", (unsigned long long)e->at_least,
                 (unsigned long long)e->at_most);
    else if (e->has_at_least)
        snprintf(bound, sizeof bound, "at least %llu", (unsigned long long)e->at_least);
    else if (e->has_at_most)
        snprintf(bound, sizeof bound, "at most %llu", (unsigned long long)e->at_most);
    expect_detail(out, "%s%s: %lld (%s)", expect_event_name[e->event], who, (long long)n, bound);
}

int expect_count(struct expect_run *run, const struct scn_expect *e, struct expect_result *out)
{
    int64_t n;
    bool irq = e->event == EV_IRQ || e->event == EV_IRQ_LOST;

    if ((irq ? expect_count_irqs(run, e, &n) : expect_count_rows(run, e, &n)) != 0)
        return -1;
    out->passed = (!e->has_at_least || (n >= 0 && (uint64_t)n >= e->at_least)) &&
                  (!e->has_at_most || (uint64_t)n <= e->at_most);
    expect_count_detail(run, e, n, out);
    return 0;
}
