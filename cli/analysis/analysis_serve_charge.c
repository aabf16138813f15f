/*
 * What a served thread's context can be charged in any window of its
 * period (docs/analysis.md, "Never runs out", served threads), for
 * an_never_runs_out (analysis_budget.c): the runs whose events fall in
 * the window and its runs' bound before it.
 */
#include "analysis/analysis_int.h"

/* No interrupt of device d is ever held on its masked line when a serve
 * loop's handler of d's own stream acknowledges it and d's arrivals are
 * more than r + E apart: by induction, each is delivered at once (its
 * arrival the stamp), the batch that takes it is released at most E later
 * (the kernel takes it after at most the entry in progress; the first
 * delivery since the receive before is no later), and that handler's run
 * acknowledges d within r of that release, before the next arrival. */
static bool never_held(const struct an_ctx *c, const struct an_stream *st, uint32_t d,
                       cycles_t r)
{
    bool acks = false;
    if (st->bit > SCN_MAX_BADGE_BIT)
        return false; /* a wait loop acknowledges after its job, outside r */
    for (uint32_t k = st->body_first; k < st->body_first + st->body_count; k++)
        acks |= an_step(c->s, k)->kind == STEP_IRQ_ACK && an_step(c->s, k)->object == d;
    return acks && an_delta(&c->dev[d], 2) > an_add(r, c->e_max);
}

/*
 * What served thread i's context can be charged in any window (x - T, x]
 * (T its period) when every run ends within r of its batch's release
 * (docs/analysis.md, "Never runs out", served threads): only runs that
 * end after x - T, whose batches are released after x - T - r. Each such
 * run has an event of its stream in (x - T - r, x] -- a signal (nbsend,
 * call) is made after the receive before its batch and is no earlier than
 * the batch's release, the first delivery since that receive -- but for
 * an interrupt delivered at an irq_ack with its arrival time while the
 * word already held an earlier signal: that arrival came after the
 * line's previous delivery, which is no earlier than the release of the
 * batch that took it, so only the first interrupt of each line in the
 * window can be older. Per stream at most eta_m(T + r) runs, plus one
 * per device of it when the thread has more than one source. *work their
 * work, *runs their number, *wakes their wakes (a receive, each return
 * from a server). False when a stream's events have no bound.
 */
bool an_serve_charge(const struct an_win *w, cycles_t r, cycles_t *work, uint64_t *runs,
                     uint64_t *wakes)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    uint32_t sources = 0;
    *work = 0;
    *runs = 0;
    *wakes = 0;
    for (uint32_t m = 0; m < t->n_streams; m++)
        sources += c->streams[t->stream_first + m].n_src;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = &c->streams[t->stream_first + m];
        uint64_t n = an_stream_eta(c, st, an_add(t->period, r));
        if (n == AN_INF || r == AN_INF)
            return false;
        for (uint32_t x = st->src_first; sources > 1 && x < st->src_first + st->n_src; x++)
            n = an_add(n, c->srcs[x].dev != SCN_NONE && !never_held(c, st, c->srcs[x].dev, r));
        *work = an_add(*work, an_mul(n, st->work));
        *runs = an_add(*runs, n);
        *wakes = an_add(*wakes, an_mul(n, an_run_wakes(st)));
    }
    return *work != AN_INF && *wakes != AN_INF;
}
