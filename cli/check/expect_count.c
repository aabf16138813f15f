/*
 * count expectations (expect.h): how often an event happened, from the
 * run's accounting (acct/tacc.h: each kind counted as the table that
 * records it holds it).
 */
#include "expect_int.h"

#include <stdio.h>

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
 * irq / irq_lost: of one device, or of every device. With a thread filter,
 * the interrupts of the devices whose notification the thread waits on.
 * NEEDSWORK: that is "the thread woken" only while one thread waits on
 * each device's notification; telling which of several waiters a signal
 * woke needs the engine to record it in the irqs table.
 */
static int64_t expect_count_irqs(const struct expect_run *run, const struct tacc *a,
                                 const struct scn_expect *e)
{
    const struct scenario *s = run->s;
    bool lost = e->event == EV_IRQ_LOST;
    int64_t n = 0;

    if (e->thread == SCN_NONE && e->device == SCN_NONE)
        return lost ? a->irqs_lost : a->irqs_delivered;
    for (uint32_t d = 0; d < s->n_devices && d < a->n_devices; d++) {
        if ((e->device != SCN_NONE && d != e->device) ||
            (e->thread != SCN_NONE &&
             !expect_steps_wait(s, s->threads[e->thread].prog_first,
                                s->threads[e->thread].prog_count, s->devices[d].notification, 0)))
            continue;
        n += lost ? a->dev[d].lost : a->dev[d].delivered;
    }
    return n;
}

/* Budget events or events of a kind, failed jobs (a release lost with its
 * interrupt is one) or jobs given (not the releases lost), of the thread
 * the expectation names or of any. */
static int64_t expect_count_rows(const struct tacc *a, const struct scn_expect *e)
{
    uint32_t id = e->thread == SCN_NONE ? 0 : e->thread + 1;
    uint32_t last = e->thread == SCN_NONE ? a->n : id + 1;
    int64_t n = 0;

    if (e->event != EV_DEADLINE_MISS && e->event != EV_JOB)
        return e->thread == SCN_NONE ? a->counted[e->event]
               : id < a->n           ? a->t[id].counted[e->event]
                                     : 0;
    for (uint32_t i = id; i < last && i < a->n; i++)
        n += e->event == EV_JOB ? a->t[i].jobs : a->t[i].failed + a->t[i].lost;
    return n;
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
    const struct tacc *a = expect_acc(run);
    int64_t n;

    if (!a)
        return -1;
    n = e->event == EV_IRQ || e->event == EV_IRQ_LOST ? expect_count_irqs(run, a, e)
                                                      : expect_count_rows(a, e);
    out->passed = (!e->has_at_least || (n >= 0 && (uint64_t)n >= e->at_least)) &&
                  (!e->has_at_most || (uint64_t)n <= e->at_most);
    expect_count_detail(run, e, n, out);
    return 0;
}
