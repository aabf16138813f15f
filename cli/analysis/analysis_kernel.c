/*
 * Kernel work that belongs to no job (docs/analysis.md, "Kernel"): the
 * entries that can fall in a window of length d whatever runs, each
 * costing at most the longest entry E. The kernel is not preemptible, so
 * one entry already in progress when a job is released delays it too.
 */
#include "analysis/analysis_int.h"

/* Timer entries of one context in d: a context that may run out of budget
 * is charged, throttled, replenished and may have a system call refused
 * (MIN_BUDGET) at most three times per refill per period; a round-robin
 * one expires at most once per budget it runs. A context proven never to
 * run out takes no timer interrupt of its own. */
static uint64_t timer_entries(const struct an_ctx *c, const struct scn_context *sc, bool safe,
                              cycles_t d)
{
    if (!sc->present)
        return 0;
    if (sc->budget == sc->period)
        return an_add(an_ceil_div(d, sc->budget), 1);
    if (safe)
        return 0;
    (void)c;
    return an_mul(3u * (2u + sc->extra_refills), an_add(an_ceil_div(d, sc->period), 1));
}

uint64_t an_kernel_entries(const struct an_ctx *c, cycles_t d)
{
    const struct scenario *s = c->s;
    uint64_t n = 1; /* one entry in progress at the release */
    struct an_arrivals a;
    for (uint32_t k = 0; k < s->n_devices; k++) {
        an_arrivals_of(s, k, &a);
        n = an_add(n, an_eta(&a, d));
    }
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (s->threads[k].start > 0)
            n = an_add(n, 2); /* the root task's start timer and resume */
    if (!c->mcs)
        return an_add(n, an_add(an_ceil_div(d, s->tick ? s->tick : 1), 1));
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (!s->threads[k].passive)
            n = an_add(n, timer_entries(c, &s->threads[k].sc,
                                        c->t[k].safe && c->t[k].shape != SHAPE_OTHER, d));
    for (uint32_t k = 0; k < s->n_notifications; k++)
        n = an_add(n, timer_entries(c, &s->notifications[k].sc, false, d));
    return n;
}

uint64_t an_faults(const struct an_ctx *c, uint32_t h, cycles_t d)
{
    uint64_t n = 0;
    if (!c->mcs)
        return 0; /* classic: no timeout faults */
    for (uint32_t j = 0; j < c->n; j++) {
        const struct an_thread *t = &c->t[j];
        uint32_t v = c->hvisits[(size_t)j * c->n + h];
        if (t->shape == SHAPE_OTHER && t->may_call && c->top_server > 0)
            return AN_INF; /* its calls are not modelled */
        if (v == 0 || t->rr || t->safe)
            continue;
        n = an_add(n, an_mul(v, an_add(an_eta(&t->arr, d), 2)));
    }
    return n;
}
