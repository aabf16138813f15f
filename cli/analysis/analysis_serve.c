/*
 * Threads with several job streams (docs/analysis.md, "Several senders
 * and serve loops"), the bounds. A SHAPE_SERVE thread takes what its
 * notification (endpoint) holds in one receive, a *batch*, and runs one
 * handler per badge bit in it, lowest first (a wait/recv loop: one job).
 * Every handler run of a batch is released when the notification was
 * first signalled since the previous receive (sim/interp.c): the batch's
 * release. Each run needs a distinct event of its stream (an interrupt
 * delivered, a signal, an nbsend taken; signals OR together and a bit
 * runs once per batch, an nbsend to a thread not waiting is dropped).
 *
 *  - Batches ahead: at a batch's release at most the previous batch is
 *    unfinished (its receive came before the release), or, in a serve
 *    loop with a device bit, the two before it (an interrupt that arrived
 *    while its line was masked is delivered, with its arrival time, at an
 *    irq_ack of the previous batch). So a run ends within `extra + 1`
 *    batches of work (each bit at most once per batch), whatever the
 *    arrivals: the bound even where the senders have none.
 *  - Busy window: from the last instant t0 before the release r at which
 *    the thread had nothing pending, the runs of stream m before the
 *    batch are at most eta_m(x) + extra - 1 (x = r - t0; events before r
 *    belong to earlier batches but for one batch ahead) and at most
 *    eta_m(w) (every run in [t0, t0 + w) needs an event there), the batch
 *    itself one more: w(x) = sum_m min(eta_m(x) + extra, eta_m(w)) W_m +
 *    Theta + E K(w) + sum_j I_j(w), and the bound is max over x of w(x) -
 *    x, x in [0, L) (L the busy period: own demand sum_m eta_m(L) W_m),
 *    the maximum at x = 0 or just after an event (x = delta(q) + 1).
 */
#include "analysis/analysis_int.h"

#include <stdio.h>
#include <string.h>

#define SERVE_MAX_POINTS 512u /* offsets x examined at most */
#define SERVE_MAX_DEPTH 16u   /* sender links followed at most */

static const struct an_stream *stream(const struct an_ctx *c, uint32_t j, uint32_t m)
{
    return &c->streams[c->t[j].stream_first + m];
}

/* A component's arrival curve: its device's, delayed by its shift. */
static struct an_arrivals comp_curve(const struct an_ctx *c, const struct an_comp *k)
{
    struct an_arrivals a = c->dev[k->dev];
    a.shift = k->shift;
    return a;
}

uint64_t an_stream_eta(const struct an_ctx *c, const struct an_stream *st, cycles_t d)
{
    uint64_t n = 0;
    if (st->once)
        return d > 0; /* an init: one run, at the start */
    if (st->inf)
        return AN_INF;
    for (uint32_t k = 0; k < st->n_comp; k++) {
        struct an_arrivals a = comp_curve(c, &st->comps[k]);
        n = an_add(n, an_eta(&a, d));
    }
    return n;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a < b ? a : b;
    return m < c ? m : c;
}

static uint64_t runs(const struct an_win *w, uint32_t j, uint32_t m, cycles_t d, uint32_t depth,
                     bool crit);

/* Sends of thread s's job (stream m of a SHAPE_SERVE s) in a window of
 * length d of w->i's analysis: at most the runs of it there. */
static uint64_t sends(const struct an_win *w, uint32_t s, uint32_t m, cycles_t d, uint32_t depth)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[s];
    uint64_t n, x;
    if (depth > SERVE_MAX_DEPTH)
        return AN_INF;
    if (s == w->i) {
        /* the window's own runs: turn_jobs (a device thread's jobs times
         * its returns from servers; a SHAPE_SERVE thread's runs), and
         * stream m's runs in any window of length d by its own curve and
         * bound (an active server's calls from its handlers; its sources
         * not followed: they may lead back here) */
        n = w->turn_jobs == 0         ? AN_INF
            : an_has_streams(t)     ? w->turn_jobs
                                      : w->turn_jobs / an_wakes_per_job(t);
        if (an_has_streams(t) && m != SCN_NONE &&
            (x = runs(w, s, m, d, SERVE_MAX_DEPTH + 1, false)) < n)
            n = x;
        return n;
    }
    if (t->shape != SHAPE_DEVICE && !an_has_streams(t))
        return AN_INF; /* a called PD's source no longer modelled */
    if (an_has_streams(t))
        return runs(w, s, m, d, depth, false); /* a sender may be below the level */
    /* a device thread: one in progress and one pending, its arrivals */
    n = an_add(an_eta(&t->arr, d), 2);
    if (t->bound != AN_INF && (x = an_eta(&t->arr, an_add(d, t->bound))) < n)
        n = x;
    if (t->device == SCN_NONE && t->sender != SCN_NONE) {
        x = an_add(2, sends(w, t->sender, SCN_NONE, d, depth + 1));
        if (x < n)
            n = x;
    }
    return n;
}

/* Runs of stream m of SHAPE_SERVE thread j in a window of length d: one
 * in progress and one pending at the start, then one per event (of the
 * stream's curve, or counted at its sources: an interrupt, or a send of
 * a job that runs in the window), or those of events within j's bound
 * before the window. */
static uint64_t runs(const struct an_win *w, uint32_t j, uint32_t m, cycles_t d, uint32_t depth,
                     bool crit)
{
    const struct an_ctx *c = w->c;
    const struct an_stream *st = stream(c, j, m);
    /* with the critical instant j has nothing pending at the window's
     * start (an_serve_crit): no run in progress or pending then */
    uint64_t a = an_add(an_stream_eta(c, st, d), crit ? 0 : 2), b = AN_INF;
    uint64_t e = st->calls || crit ? 0 : 2;
    if (st->once)
        return d > 0; /* an init runs once */
    if (c->t[j].bound != AN_INF && !st->inf)
        b = an_stream_eta(c, st, an_add(d, c->t[j].bound));
    if (depth > SERVE_MAX_DEPTH)
        return a < b ? a : b;
    for (uint32_t x = st->src_first; x < st->src_first + st->n_src && e != AN_INF; x++) {
        const struct an_source *sr = &c->srcs[x];
        e = an_add(e, sr->dev != SCN_NONE ? an_eta(&c->dev[sr->dev], d)
                                          : sends(w, sr->sender, sr->stream, d, depth + 1));
    }
    return min3(a, b, e);
}

/* The critical instant (an_critical_instant) counts only the work a
 * window's demand counts (weighted); the wakes own throttling counts are
 * those of any window. */
cycles_t an_serve_demand(const struct an_win *w, uint32_t j, cycles_t d, bool weighted)
{
    const struct an_ctx *c = w->c;
    cycles_t sum = 0;
    if (c->t[j].ntfn_unlinked)
        return AN_INF; /* a called PD's notified runs: a source in no modelled job */
    for (uint32_t m = 0; m < c->t[j].n_streams && sum != AN_INF; m++) {
        uint64_t n = runs(w, j, m, d, 0, weighted && w->crit);
        sum = an_add(sum, weighted ? an_mul(n, stream(c, j, m)->work) : n);
    }
    return sum;
}

/* A thread below the level cannot run to start a request while the
 * window keeps the CPU at the level: the one in progress at its start
 * (its requests, the longest of a run's at most), or, while the job may
 * wait on an idle CPU, every run's (as a lower device thread's). */
cycles_t an_serve_requests(const struct an_win *w, uint32_t j, cycles_t d)
{
    const struct an_ctx *c = w->c;
    cycles_t sum = 0;
    if (!w->idle)
        return c->t[j].requests;
    for (uint32_t m = 0; m < c->t[j].n_streams && sum != AN_INF; m++)
        if (stream(c, j, m)->n_calls > 0)
            sum = an_add(sum, an_mul(runs(w, j, m, d, 0, false), stream(c, j, m)->requests));
    return sum;
}

/* How many requests stream st's calls make to servers of handler h
 * (nested ones included, each as often as it is called), or for
 * SCN_NONE the emergency grants they can get (an_grants). */
static uint64_t calls_to(const struct an_ctx *c, const struct an_stream *st, uint32_t h)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < st->n_calls; k++) {
        uint32_t m;
        const struct an_reach *x = an_reach(c, st->call[k], &m);
        for (uint32_t y = 0; y < m; y++)
            if (h == SCN_NONE ? y == 0 : c->t[x[y].k].handler == h)
                n = an_add(n, h == SCN_NONE ? an_grants(c, st->call[k]) : x[y].m);
    }
    return n;
}

uint64_t an_serve_calls(const struct an_ctx *c, uint32_t j, uint32_t h, cycles_t d)
{
    const struct an_thread *t = &c->t[j];
    uint64_t sum = 0;
    for (uint32_t m = 0; m < t->n_streams && sum != AN_INF; m++) {
        const struct an_stream *st = stream(c, j, m);
        uint64_t k = calls_to(c, st, h), n;
        if (k == 0)
            continue;
        if (st->once) {
            sum = an_add(sum, k); /* an init runs once */
            continue;
        }
        /* one run in progress and one bit pending, then one per event; or
         * the events within its bound before the window */
        n = an_add(an_stream_eta(c, st, d), 2);
        if (t->bound != AN_INF && !st->inf && an_stream_eta(c, st, an_add(d, t->bound)) < n)
            n = an_stream_eta(c, st, an_add(d, t->bound));
        sum = an_add(sum, an_mul(n, k));
    }
    return sum;
}

/* ------------------------------------------------------------ the bound */

/* The own work of a window: per stream min(eta_m(x) + extra, eta_m(w)) runs
 * (x = AN_INF: eta_m(w) only, the busy period); *n the wakes of its runs
 * (each run's, and each return from a server), *blk their waits behind
 * other clients in servers (B_m per run). */
static cycles_t own_work(const struct an_ctx *c, uint32_t i, cycles_t x, cycles_t w, uint64_t *n,
                         cycles_t *blk)
{
    const struct an_thread *t = &c->t[i];
    cycles_t sum = 0, none = 0, none_b = 0;
    uint64_t none_n = 0;
    *n = 0;
    *blk = 0;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = stream(c, i, m);
        uint64_t r = an_stream_eta(c, st, w);
        if (x != AN_INF) {
            uint64_t k = an_add(an_stream_eta(c, st, x), t->extra);
            if (k < r)
                r = k;
        }
        if (r == 0) {
            none = st->work > none ? st->work : none;
            none_b = st->block > none_b ? st->block : none_b;
            none_n = an_run_wakes(st) > none_n ? an_run_wakes(st) : none_n;
        }
        *n = an_add(*n, an_mul(r, an_run_wakes(st)));
        *blk = an_add(*blk, an_mul(r, st->block));
        sum = an_add(sum, an_mul(r, st->work));
    }
    /* the run bounded is one of them: at least one of its stream's (the
     * worst stream counted none yet; its work, wait and wakes each the
     * largest of such streams') */
    *n = an_add(*n, none_n);
    /* a called PD: the request in progress, once (an_serve_bound) */
    *blk = an_add(an_add(*blk, none_b), t->ntfn_block);
    return an_add(sum, none);
}

/* The least w with w = own(x, w) + Theta + E K(w) + sum_j I_j(w): the
 * fixed point for a constant own work, again while the own work grows
 * (each is nondecreasing in w, so this ends at the least common one);
 * `start` at most that. AN_INF past the horizon. */
static cycles_t window(struct an_win *w, cycles_t x, bool throttles, cycles_t start,
                       cycles_t *own, cycles_t *block, cycles_t *theta)
{
    const struct an_ctx *c = w->c;
    cycles_t t = start;
    for (uint32_t round = 0; round < SERVE_MAX_POINTS; round++) {
        uint64_t n;
        cycles_t blk, base = own_work(c, w->i, x, t, &n, &blk), next;
        if (base == AN_INF || n == AN_INF || blk == AN_INF)
            return AN_INF;
        w->turn_need = base;
        w->turn_jobs = n ? n : 1;
        next = an_throttled_fixed_point(w, blk, base, throttles, t, theta);
        if (next == AN_INF)
            return AN_INF;
        if (next <= t) {
            /* a fixed point for own work `base` >= own(x, next) and waits
             * `blk`: a bound (F(next) <= next), and its parts add up to it */
            *own = base;
            *block = blk;
            return next;
        }
        t = next;
    }
    return AN_INF;
}

/* Batches ahead: (extra + 1) x every stream's work and waits, any
 * arrivals, work carried in by the others. An init runs before the first
 * receive: what is ahead is `extra` batches or the init and extra - 1
 * batches, at most extra x the larger of a batch and the init. */
static cycles_t ahead(const struct an_win *win, bool throttles, cycles_t *own, cycles_t *block,
                      cycles_t *theta, uint64_t *jobs)
{
    const struct an_ctx *c = win->c;
    const struct an_thread *t = &c->t[win->i];
    struct an_win w = *win;
    cycles_t all = 0, blk = 0, iw = 0, ib = 0;
    uint64_t wakes = 0, iwakes = 0;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = stream(c, win->i, m);
        if (st->once) {
            iw = st->work;
            ib = st->block;
            iwakes = an_run_wakes(st);
            continue;
        }
        all = an_add(all, st->work);
        blk = an_add(blk, st->block);
        wakes = an_add(wakes, an_run_wakes(st));
    }
    *own = an_add(all, an_mul(t->extra, all > iw ? all : iw));
    *block = an_add(an_add(blk, an_mul(t->extra, blk > ib ? blk : ib)), t->ntfn_block);
    w.crit = false;
    w.turn_need = *own;
    w.turn_jobs = an_add(wakes, an_mul(t->extra, wakes > iwakes ? wakes : iwakes));
    *jobs = w.turn_jobs;
    return an_throttled_fixed_point(&w, *block, *own, throttles, 0, theta);
}

/* The offsets x at which some stream's count of events grows (delta(q) +
 * 1 of each component), below `limit`, ascending; 0 first. Returns their
 * number, or SERVE_MAX_POINTS + 1 when there are more. */
static uint32_t points(const struct an_ctx *c, uint32_t i, cycles_t limit, cycles_t *p)
{
    const struct an_thread *t = &c->t[i];
    uint32_t n = 1;
    p[0] = 0;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = stream(c, i, m);
        for (uint32_t k = 0; k < st->n_comp; k++) {
            struct an_arrivals a = comp_curve(c, &st->comps[k]);
            for (uint64_t q = 1;; q++) {
                cycles_t d = an_delta(&a, q);
                if (d == AN_INF || an_add(d, 1) >= limit)
                    break;
                if (n == SERVE_MAX_POINTS)
                    return SERVE_MAX_POINTS + 1;
                p[n++] = d + 1;
            }
        }
    }
    /* insertion sort: a few hundred at most */
    for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a; b > 0 && p[b - 1] > p[b]; b--) {
            cycles_t x = p[b - 1];
            p[b - 1] = p[b];
            p[b] = x;
        }
    return n;
}

/* Does thread i serve calls (an active server's streams of calls,
 * analysis_active.c)? A call waits behind any number of batches. */
static bool serves_calls(const struct an_ctx *c, uint32_t i)
{
    for (uint32_t m = 0; m < c->t[i].n_streams; m++)
        if (stream(c, i, m)->calls)
            return true;
    return false;
}

struct serve_result {
    cycles_t bound, w, own, block, theta, x;
    struct an_win win;
    bool ahead;
};

/* The busy window's bound, max over x of w(x) - x; AN_INF if the busy
 * period has no end or too many offsets. */
static void busy(const struct an_win *win, bool throttles, struct serve_result *r)
{
    cycles_t p[SERVE_MAX_POINTS + 1];
    struct an_win w = *win;
    cycles_t own, block, theta, l, start = 0;
    uint32_t n;
    r->bound = AN_INF;
    l = window(&w, AN_INF, throttles, 0, &own, &block, &theta);
    if (l == AN_INF)
        return;
    if (serves_calls(w.c, w.i)) {
        /* an active server (analysis_active.c): a run can be overtaken by
         * runs released after it (a signal is received before a queued
         * call, a higher caller's call before a lower one's), so a run
         * ends within the busy period, nothing less */
        *r = (struct serve_result){l, l, own, block, theta, 0, w, false};
        return;
    }
    n = points(w.c, w.i, l, p);
    if (n > SERVE_MAX_POINTS)
        return;
    for (uint32_t k = 0; k < n; k++) {
        cycles_t wx;
        if (k > 0 && p[k] == p[k - 1])
            continue;
        w = *win;
        wx = window(&w, p[k], throttles, start, &own, &block, &theta);
        if (wx == AN_INF) {
            r->bound = AN_INF;
            return;
        }
        start = wx; /* w(x) grows with x */
        if (k == 0 || wx - (p[k] < wx ? p[k] : wx) > r->bound || r->bound == AN_INF) {
            r->bound = wx - (p[k] < wx ? p[k] : wx);
            r->w = wx;
            r->x = wx - r->bound;
            r->own = own;
            r->block = block;
            r->theta = theta;
            r->win = w;
            r->ahead = false;
        }
    }
}

/* Each stream's wait per run behind other clients in servers, at the
 * thread's level (an_call_blocking per call); *who the client of the
 * longest, *idle whether the CPU may idle meanwhile. False when one has no
 * bound. */
static bool stream_blocking(struct an_ctx *c, uint32_t i, uint32_t *who, bool *idle)
{
    struct an_thread *t = &c->t[i];
    cycles_t worst = 0;
    *who = SCN_NONE;
    *idle = false;
    t->ntfn_block = 0;
    if (t->ppc_ntfn) {
        /* a called PD's notified run waits for the request in progress,
         * on its caller's context: its wait behind each client that may
         * run out there, and in the servers it reaches (the request's
         * execution is that caller's interference: its demand, or a lower
         * one's request in progress) */
        t->ntfn_block = an_call_blocking(c, i, i, t->p_eff, who, idle);
        if (t->ntfn_block == AN_INF)
            return false;
        worst = t->ntfn_block;
    }
    for (uint32_t m = 0; m < t->n_streams; m++) {
        struct an_stream *st = &c->streams[t->stream_first + m];
        st->block = 0;
        for (uint32_t k = 0; k < st->n_calls; k++) {
            uint32_t k_who = SCN_NONE;
            cycles_t b = an_call_blocking(c, i, st->call[k], t->p_eff, &k_who, idle);
            if (b == AN_INF)
                return false;
            st->block = an_add(st->block, b);
            if (b > worst) {
                worst = b;
                *who = k_who;
            }
        }
    }
    return true;
}

/* The smaller of the two bounds, with or without own throttling (the CPU
 * may idle while a wait may be for a refill: its own, or a client's that
 * ran out inside a server, `idle`). */
static void attempt(struct an_ctx *c, uint32_t i, bool throttles, bool idle, uint64_t wakes,
                    struct serve_result *r, struct an_win *base)
{
    const struct an_thread *t = &c->t[i];
    /* its level: the lowest priority its handlers' requests run at */
    struct an_win w = {c, i, t->p_eff, false, false, 0, 0, 0, 0, false};
    struct serve_result b;
    cycles_t own = 0, block = 0, theta = 0;
    uint64_t jobs = an_mul(t->extra + 1, wakes);
    w.idle = throttles || idle || an_active_idles(c, i); /* a server it calls throttled */
    /* a client that may run out inside a server: its refills can be
     * delayed by the window's preemption too (as a device thread's) */
    w.anchors = (throttles && !t->sporadic ? 1 : 0) + (idle ? 1 : 0);
    memset(r, 0, sizeof *r);
    r->win = w;
    /* batches ahead: not for an active server, whose calls can wait behind
     * any number of batches */
    r->bound = serves_calls(c, i) ? AN_INF : ahead(&w, throttles, &own, &block, &theta, &jobs);
    r->w = r->bound;
    r->own = own;
    r->block = block;
    r->theta = theta;
    r->ahead = true;
    r->win.turn_need = own;
    r->win.turn_jobs = jobs;
    /* a called PD's run may find a request in progress: work carried in */
    w.crit = !t->ppc_ntfn && an_critical_instant(c, i, t->p_eff);
    busy(&w, throttles, &b);
    if (b.bound < r->bound)
        *r = b;
    *base = w;
}

void an_serve_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out)
{
    struct an_thread *t = &c->t[i];
    struct serve_result r;
    struct an_win w;
    bool throttles = c->mcs && t->has_sc && !t->rr, idle;
    cycles_t own = 0, block = 0, theta = 0;
    uint32_t who;
    uint64_t wakes = 0;
    t->work = 0;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        if (stream(c, i, m)->work > t->work)
            t->work = stream(c, i, m)->work;
        wakes = an_add(wakes, an_run_wakes(stream(c, i, m)));
    }
    out->work = t->work;
    t->safe = !throttles;
    if (t->ntfn_unlinked) {
        t->bound = AN_INF;
        out->verdict = ANALYSIS_UNKNOWN;
        snprintf(out->reason, sizeof out->reason, "%s",
                 "its notified handlers are woken by a thread that is not modelled, or its "
                 "notification has another receiver");
        return;
    }
    if (t->n_streams == 0) {
        t->bound = AN_INF;
        out->verdict = ANALYSIS_NO_JOBS;
        snprintf(out->reason, sizeof out->reason, "%s",
                 "nothing releases its jobs: no device of its notification, no signal to it");
        return;
    }
    if (!stream_blocking(c, i, &who, &idle)) {
        t->bound = AN_INF;
        an_waits_unbounded(c, AN_INF, 0, SCN_NONE, out);
        return;
    }
    if (throttles) {
        /* as if its context never ran out, kept when that is then proven
         * (by induction over time: docs/analysis.md, "Never runs out") */
        t->safe = true;
        attempt(c, i, false, idle, wakes, &r, &w);
        t->safe = r.bound != AN_INF && an_never_runs_out(&r.win, r.bound);
        throttles = !t->safe;
        if (throttles)
            attempt(c, i, true, idle, wakes, &r, &w);
    } else {
        attempt(c, i, false, idle, wakes, &r, &w);
    }
    t->bound = r.bound;
    out->bound = r.bound;
    out->may_throttle = throttles;
    out->may_lose_irq = true; /* a signal may merge, an nbsend be dropped */
    if (r.bound == AN_INF) {
        if (throttles && !serves_calls(c, i) &&
            ahead(&w, false, &own, &block, &theta, &wakes) != AN_INF)
            snprintf(out->reason, sizeof out->reason, "%s", AN_OWN_THROTTLING_UNBOUNDED);
        else
            an_overload_reason(&w, out->reason, sizeof out->reason);
        return;
    }
    t->serve_own = r.own;
    an_keep_terms(&r.win, r.block, who, 1, r.w, r.theta, r.ahead, out);
    out->worst_job = 1;
    out->later_release = r.x;
    if (who != SCN_NONE && r.block > 0 &&
        c->s->threads[who].criticality < c->s->threads[i].criticality)
        snprintf(out->reason, sizeof out->reason,
                 "depends on %s (less critical): its context can run out inside a server",
                 c->s->threads[who].name);
}
