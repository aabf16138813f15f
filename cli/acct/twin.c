/*
 * The window checks fed in time order (twin.h).
 */
#include "twin.h"

#include <stdio.h>
#include <string.h>

int twin_init(struct twin *w, const struct scenario *s, const struct bwin_clock *clock,
              const struct twin_want *want)
{
    memset(w, 0, sizeof *w);
    if (want->budget) {
        if (bwin_init(&w->budget, clock, s->n_threads + 1, s->n_notifications) != 0)
            return -1;
        w->has_budget = true;
    }
    if (want->fragment) {
        if (tfrag_init(&w->frag, s->n_threads + 1, scenario_min_budget(s)) != 0) {
            twin_release(w);
            return -1;
        }
        w->has_frag = true;
    }
    return 0;
}

int twin_add_thread(struct twin *w, const struct bwin_def *d)
{
    int rc = w->has_budget ? bwin_add(&w->budget, d) : 0;

    if (rc == 0 && w->has_frag && d->period > d->budget)
        rc = tfrag_add(&w->frag, d->thread, d->name, d->budget, d->period);
    return rc;
}

int twin_add_notifications(struct twin *w, const struct scenario *s)
{
    int rc = 0;

    for (uint32_t i = 0; rc == 0 && w->has_budget && i < s->n_notifications; i++) {
        const struct scn_notification *n = &s->notifications[i];
        struct bwin_def d = {.thread = -1,
                             .ntfn = i,
                             .budget = (int64_t)n->sc.budget,
                             .period = (int64_t)n->sc.period,
                             .sporadic = n->sc.sporadic};

        if (!n->sc.present)
            continue;
        snprintf(d.name, sizeof d.name, "%s", n->name);
        rc = bwin_add(&w->budget, &d);
    }
    return rc;
}

int twin_init_scenario(struct twin *w, const struct scenario *s, cycles_t duration,
                       const struct twin_want *want)
{
    struct bwin_clock clock = {.duration = duration,
                               .allowance = want->allowance,
                               .cpu_hz = s->cpu_hz,
                               .timer_hz = s->timer_hz == 0 || s->timer_hz > s->cpu_hz
                                               ? s->cpu_hz
                                               : s->timer_hz};
    int rc = twin_init(w, s, &clock, want);

    for (uint32_t i = 0; rc == 0 && i < s->n_threads; i++) {
        const struct scn_thread *t = &s->threads[i];
        struct bwin_def d = {.thread = (int64_t)i + 1,
                             .budget = (int64_t)t->sc.budget,
                             .period = (int64_t)t->sc.period,
                             .sporadic = t->sc.sporadic};

        if (!t->sc.present)
            continue;
        snprintf(d.name, sizeof d.name, "%s", t->name);
        rc = twin_add_thread(w, &d);
    }
    if (rc == 0)
        rc = twin_add_notifications(w, s);
    if (rc != 0)
        twin_release(w);
    return rc;
}

void twin_release(struct twin *w)
{
    if (w->has_budget)
        bwin_release(&w->budget);
    if (w->has_frag)
        tfrag_release(&w->frag);
    w->has_budget = w->has_frag = false;
}

/* A row at `time`: at or after the last advance, or the order is broken. */
static bool in_order(struct twin *w, cycles_t time)
{
    if (time < w->now)
        w->unordered = true;
    return !w->unordered;
}

void twin_slice(struct twin *w, const struct sink_slice *r)
{
    if (!in_order(w, r->start))
        return;
    if (w->has_budget)
        bwin_slice(&w->budget, r);
    if (w->has_frag)
        tfrag_slice(&w->frag, r);
}

void twin_budget(struct twin *w, const struct sink_budget_event *r)
{
    if (r->kind == BUDGET_EMERGENCY && w->has_budget && in_order(w, r->time))
        bwin_grant(&w->budget, r->sc_thread, r->time, r->amount);
    else if (r->kind == BUDGET_THROTTLE && w->has_frag && in_order(w, r->time))
        tfrag_throttle(&w->frag, r->sc_thread, r->time);
}

void twin_refill(struct twin *w, const struct sink_refill *r)
{
    if (w->has_frag && in_order(w, r->time))
        tfrag_refill(&w->frag, r->sc_thread, r->time, r->count, r->max);
}

void twin_event(struct twin *w, const struct sink_event *r)
{
    if (w->has_budget && r->kind && strcmp(r->kind, "sporadic_unblock") == 0 &&
        in_order(w, r->time))
        bwin_unblock(&w->budget, r->object, r->time);
}

void twin_advance(struct twin *w, cycles_t time)
{
    if (time <= w->now || w->unordered)
        return;
    w->now = time;
    if (w->has_budget)
        bwin_advance(&w->budget, time);
    if (w->has_frag)
        tfrag_advance(&w->frag, time);
}

void twin_end(struct twin *w)
{
    if (w->unordered)
        return;
    if (w->has_budget)
        bwin_end(&w->budget);
    if (w->has_frag)
        tfrag_end(&w->frag);
}

bool twin_ok(const struct twin *w)
{
    return !w->unordered && !(w->has_budget && w->budget.failed) &&
           !(w->has_frag && w->frag.failed);
}
