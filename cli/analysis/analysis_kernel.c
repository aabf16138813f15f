/*
 * Kernel work that belongs to no job (docs/analysis.md, "Kernel"): the
 * entries that can fall in a window of length d whatever runs, each
 * costing at most the longest entry E. The kernel is not preemptible, so
 * one entry already in progress when a job is released delays it too.
 */
#include "analysis/analysis_int.h"

#include <stdlib.h>

/* Timer entries of one context in d: a context that may run out of budget
 * is charged, throttled, replenished and may have a system call refused
 * (MIN_BUDGET) at most three times per refill per period; a round-robin
 * one expires at most once per budget it runs. A context proven never to
 * run out takes no timer interrupt of its own. */
static uint64_t timer_entries(const struct an_ctx *c, const struct scn_context *sc, bool safe,
                              cycles_t d, bool other)
{
    cycles_t gap;
    if (!sc->present)
        return 0;
    if (sc->budget == sc->period)
        return an_add(an_ceil_div(d, sc->budget), 1);
    if (safe)
        return 0;
    /* charged to another context: its releases only (an_release_gap) */
    if (other && (gap = an_release_gap(c, sc)) > 0)
        return an_mul(2u + sc->extra_refills, an_add(an_ceil_div(d, gap), 1));
    return an_mul(3u * (2u + sc->extra_refills), an_add(an_ceil_div(d, sc->period), 1));
}

bool an_context_still(const struct an_win *w, uint32_t k)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[k];
    if (w->idle || t->prio >= w->level || k == w->i)
        return false;
    if (t->shape == SHAPE_OTHER && t->may_call && !t->calls_known)
        return c->top_server < w->level;
    return !an_request_reaches(c, k, w->level);
}

enum an_timers an_context_timers(const struct an_win *w, uint32_t k, bool *safe)
{
    const struct an_ctx *c = w->c;
    const struct scn_context *sc = &c->s->threads[k].sc;
    *safe = c->t[k].safe && c->t[k].shape != SHAPE_OTHER;
    if (*safe && sc->budget != sc->period)
        return AN_TIMERS_NONE; /* no timer entries of its own */
    return an_context_still(w, k) ? AN_TIMERS_ONE : AN_TIMERS_ALL;
}

/* A round-robin context's timer fires only while it is the running one:
 * the timer is programmed at every switch of context for the running
 * context's budget end or the release queue's head (seL4 setNextInterrupt,
 * kernel-core sched_set_next_interrupt), and a round-robin context is
 * never in the release queue (its head refill is always due). So none of
 * its entries is taken while another context runs. */
static bool other_rr(const struct scn_context *sc, bool own)
{
    return sc->present && sc->budget == sc->period && !own;
}

/* The notification whose context thread i runs on (a passive loop's), or
 * SCN_NONE: that context is i's own. */
static uint32_t own_ntfn(const struct an_win *w)
{
    return an_passive_ntfn(w->c->s, &w->c->s->threads[w->i]);
}

/* K(d), or with `charged` only the entries that can be taken while i's
 * context is the running one (an_charged_entries): another context's
 * timer then fires only for its releases (an_release_gap), none for a
 * round-robin one. */
static uint64_t entries(const struct an_win *w, cycles_t d, bool charged)
{
    const struct an_ctx *c = w->c;
    const struct scenario *s = c->s;
    bool rel = charged && !an_old_episodes(c);
    uint32_t own = charged ? own_ntfn(w) : SCN_NONE;
    uint64_t n = an_add(c->k_fixed, an_held_entries(w)); /* in progress, late starts, held */
    for (uint32_t k = 0; k < s->n_devices; k++)
        n = an_add(n, an_eta(&c->dev[k], d));
    if (!c->mcs)
        return an_add(n, an_add(an_ceil_div(d, s->tick ? s->tick : 1), 1));
    for (uint32_t x = 0; x < c->n_timed; x++) {
        uint32_t k = c->timed[x];
        bool safe;
        enum an_timers m = an_context_timers(w, k, &safe);
        if (charged && other_rr(&s->threads[k].sc, k == w->i))
            continue;
        if (m != AN_TIMERS_NONE)
            n = an_add(n, m == AN_TIMERS_ONE
                              ? 1
                              : timer_entries(c, &s->threads[k].sc, safe, d, rel && k != w->i));
    }
    for (uint32_t k = 0; k < s->n_notifications; k++)
        if (!charged || !other_rr(&s->notifications[k].sc, k == own))
            n = an_add(n, timer_entries(c, &s->notifications[k].sc, false, d, rel && k != own));
    return n;
}

uint64_t an_kernel_entries(const struct an_win *w, cycles_t d)
{
    return entries(w, d, false);
}

uint64_t an_charged_entries(const struct an_win *w, cycles_t d)
{
    return entries(w, d, true);
}

/* The line of a context's timer entries: ceil(d / x) + 1 >= d / x + 1. */
static void timer_line(const struct an_ctx *c, const struct scn_context *sc, bool safe,
                       bool other, struct an_line *l)
{
    cycles_t gap;
    if (!sc->present || sc->budget == 0 || sc->period == 0)
        return; /* no entries, or none that the line knows of: 0 is below */
    if (sc->budget == sc->period) {
        l->s += 1.0 / (double)sc->budget;
        l->a += 1.0;
    } else if (!safe && other && (gap = an_release_gap(c, sc)) > 0) {
        l->s += (2.0 + sc->extra_refills) / (double)gap;
        l->a += 2.0 + sc->extra_refills;
    } else if (!safe) {
        l->s += 3.0 * (2.0 + sc->extra_refills) / (double)sc->period;
        l->a += 3.0 * (2.0 + sc->extra_refills);
    }
}

/* The constant entries' and the devices' part of an_kernel_line, the
 * same every time (an_kernel_tables keeps it). */
static struct an_line devices_line(const struct an_ctx *c)
{
    struct an_line l = {(double)c->k_fixed, 0.0};
    for (uint32_t k = 0; k < c->s->n_devices; k++) {
        struct an_line d = an_arrival_line(&c->dev[k]);
        l.a += d.a;
        l.s += d.s;
    }
    return l;
}

static struct an_line kernel_line(const struct an_win *w, bool charged)
{
    const struct an_ctx *c = w->c;
    const struct scenario *s = c->s;
    struct an_line l = c->k_dev_line;
    bool rel = charged && !an_old_episodes(c);
    uint32_t own = charged ? own_ntfn(w) : SCN_NONE;
    l.a += (double)an_held_entries(w);
    if (!c->mcs) {
        l.s += 1.0 / (double)(s->tick ? s->tick : 1);
        l.a += 1.0;
        return l;
    }
    for (uint32_t x = 0; x < c->n_timed; x++) {
        uint32_t k = c->timed[x];
        bool safe;
        enum an_timers m = an_context_timers(w, k, &safe);
        if (charged && other_rr(&s->threads[k].sc, k == w->i))
            continue;
        if (m == AN_TIMERS_ONE)
            l.a += 1.0;
        else if (m == AN_TIMERS_ALL)
            timer_line(c, &s->threads[k].sc, safe, rel && k != w->i, &l);
    }
    for (uint32_t k = 0; k < s->n_notifications; k++)
        if (!charged || !other_rr(&s->notifications[k].sc, k == own))
            timer_line(c, &s->notifications[k].sc, false, rel && k != own, &l);
    return l;
}

struct an_line an_kernel_line(const struct an_win *w)
{
    return kernel_line(w, false);
}

struct an_line an_charged_line(const struct an_win *w)
{
    return kernel_line(w, true);
}

uint64_t an_context_events(const struct an_ctx *c, uint32_t k, cycles_t d)
{
    const struct an_thread *t = &c->t[k];
    if (!t->has_sc || t->rr)
        return 0;
    return an_mul(3u * t->refills, an_add(an_ceil_div(d, t->period), 1));
}

uint64_t an_faults(const struct an_ctx *c, uint32_t h, cycles_t d)
{
    uint64_t n = 0;
    if (!c->mcs)
        return 0; /* classic: no timeout faults */
    if (c->other_calls)
        return AN_INF; /* calls of a thread whose program is not modelled */
    for (uint32_t x = c->hoff[h]; x < c->hoff[h + 1]; x++) {
        const struct an_thread *t = &c->t[c->hclients[x]];
        if (t->rr)
            continue; /* a round-robin context raises no timeout fault */
        if (t->shape == SHAPE_OTHER) /* no jobs to count: its context's events */
            n = an_add(n, an_context_events(c, c->hclients[x], d));
        else if (t->shape == SHAPE_SERVE && !t->safe) /* its runs' calls (analysis_serve.c) */
            n = an_add(n, an_serve_calls(c, c->hclients[x], h, d));
        else if (!t->safe)
            n = an_add(n, an_mul(c->hcount[x], an_add(an_eta(&t->arr, d), 2)));
    }
    return n;
}

/*
 * An interrupt held on a masked line (docs/analysis.md, "Kernel K(d)"):
 * hal-sim, like the GIC under seL4, keeps one interrupt pending on a
 * masked line and delivers it when an irq_ack unmasks the line, with a
 * kernel entry of its own there. An arrival before a window can so enter
 * the kernel inside it, one per line (a second arrival while it is held
 * is lost; a later delivery needs an arrival after the one before). A
 * line nobody acknowledges stays masked after its first delivery and
 * holds nothing that is ever delivered. The delivery wakes the thread
 * waiting on the line's notification; when that is a device thread whose
 * own irq_ack is the line's only one, it runs at the delivery (it is the
 * one acknowledging) and nothing is preempted.
 */
static uint8_t held_line(const struct an_ctx *c, uint32_t d)
{
    uint32_t acks = an_steps_using(c->s, STEP_IRQ_ACK, d);
    if (acks == 0)
        return AN_HELD_NEVER;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].shape == SHAPE_DEVICE && c->t[i].device == d && acks == 1) {
            c->held_prio[d] = c->t[i].prio;
            return AN_HELD_OWN;
        }
    return AN_HELD_WAKES;
}

/*
 * Held deliveries in window w. A window that starts at a quiet instant of
 * its level (w->crit, the critical instant: every thread at the level or
 * above is a device thread or a served thread with nothing pending, no
 * lower request reaches it) has none on a line of its own device thread
 * at or above the level: that thread is blocked in its wait then, after
 * the irq_ack that ended its last job (a delivery since would have left
 * it a job pending), so the line is unmasked and holds nothing. A device
 * thread below the level does not run in the busy window, so its irq_ack
 * can be only the entry in progress at the window's start: one delivery
 * for all such lines. A line acknowledged elsewhere is counted always.
 */
uint64_t an_held_entries(const struct an_win *w)
{
    const struct an_ctx *c = w->c;
    uint64_t n = 0;
    bool below = false;
    if (!w->crit)
        return c->k_held;
    for (uint32_t d = 0; d < c->s->n_devices; d++) {
        if (c->held[d] == AN_HELD_WAKES)
            n++;
        else if (c->held[d] == AN_HELD_OWN && c->held_prio[d] < w->level)
            below = true;
    }
    return n + below;
}

int an_kernel_tables(struct an_ctx *c)
{
    const struct scenario *s = c->s;
    uint32_t m = 0;
    c->k_fixed = 1; /* one entry in progress at the release */
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (s->threads[k].start > 0)
            c->k_fixed = an_add(c->k_fixed, 2); /* the root task's start timer and resume */
    c->held = calloc(s->n_devices ? s->n_devices : 1, sizeof *c->held);
    c->held_prio = calloc(s->n_devices ? s->n_devices : 1, sizeof *c->held_prio);
    if (!c->held || !c->held_prio)
        return -1;
    for (uint32_t d = 0; d < s->n_devices; d++)
        c->held[d] = held_line(c, d);
    c->k_held = 0;
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (c->held[d] != AN_HELD_NEVER)
            c->k_held++;
    c->timed = calloc(c->n ? c->n : 1, sizeof *c->timed);
    c->hoff = calloc((size_t)c->n + 1, sizeof *c->hoff);
    for (uint32_t h = 0; h < c->n; h++)
        for (uint32_t j = 0; j < c->n; j++)
            m += c->hvisits[(size_t)j * c->n + h] != 0;
    c->hclients = calloc(m ? m : 1, sizeof *c->hclients);
    c->hcount = calloc(m ? m : 1, sizeof *c->hcount);
    if (!c->timed || !c->hoff || !c->hclients || !c->hcount)
        return -1;
    for (uint32_t k = 0; k < c->n; k++) {
        const struct scn_thread *th = &s->threads[k];
        if (!th->passive && th->sc.present)
            c->timed[c->n_timed++] = k;
        if (c->t[k].shape == SHAPE_OTHER && c->t[k].may_call && !c->t[k].calls_known &&
            c->top_server > 0)
            c->other_calls = true;
    }
    m = 0;
    for (uint32_t h = 0; h < c->n; h++) {
        c->hoff[h] = m;
        for (uint32_t j = 0; j < c->n; j++) {
            uint32_t v = c->hvisits[(size_t)j * c->n + h];
            if (v != 0) {
                c->hclients[m] = j;
                c->hcount[m++] = v;
            }
        }
    }
    c->hoff[c->n] = m;
    c->k_dev_line = devices_line(c);
    return 0;
}
