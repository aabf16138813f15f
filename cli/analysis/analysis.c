/*
 * analysis_run(): the analysis of a whole scenario (analysis.h,
 * docs/analysis.md). Threads are analysed from the highest level down,
 * in passes: a pass uses what earlier ones learnt of the others (bounds,
 * contexts proven never to run out, sporadic lags). The first round
 * assumes every device thread's and handler's context never runs out
 * (each analysis proves its own or drops it) and counts only if a pass
 * changes nothing: that consistent outcome is sound by induction over
 * time (docs/analysis.md, "The bound"). If it does not settle, a second
 * round starts from knowing nothing, where every figure a pass produces
 * is a bound given figures that are bounds, so its passes may stop at
 * any time; they stop when nothing changes.
 */
#include "analysis/analysis_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <mcsim/bootinfo.h>

#define AN_PASSES 3
#define AN_PASSES_OPTIMISTIC 8

/* Fixed points past this many times the longest period, deadline or
 * arrival gap have no bound (overload). */
#define AN_HORIZON_PERIODS 1000u

static cycles_t horizon(const struct scenario *s)
{
    cycles_t h = 1;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        uint32_t n = an_passive_ntfn(s, &s->threads[i]);
        cycles_t t = n != SCN_NONE ? s->notifications[n].sc.period : s->threads[i].sc.period;
        if (t > h)
            h = t;
        if (s->threads[i].deadline > h)
            h = s->threads[i].deadline;
    }
    for (uint32_t d = 0; d < s->n_devices; d++) {
        const struct scn_device *v = &s->devices[d];
        cycles_t g = v->period > v->max ? v->period : v->max;
        if (v->every > g)
            g = v->every;
        if (g > h)
            h = g;
    }
    return an_mul(h, AN_HORIZON_PERIODS);
}

/* Descending level, then file order: higher levels first. */
static uint32_t *order(const struct an_ctx *c)
{
    uint32_t *o = malloc((c->n ? c->n : 1) * sizeof *o);
    if (!o)
        return NULL;
    for (uint32_t i = 0; i < c->n; i++)
        o[i] = i;
    for (uint32_t a = 1; a < c->n; a++)
        for (uint32_t b = a; b > 0; b--) {
            uint32_t x = o[b - 1], y = o[b];
            uint32_t px = c->t[x].shape == SHAPE_DEVICE || (c->t[x].shape == SHAPE_SERVE &&
                                                            c->t[x].n_visits > 0)
                              ? c->t[x].p_eff
                              : c->t[x].prio;
            uint32_t py = c->t[y].shape == SHAPE_DEVICE || (c->t[y].shape == SHAPE_SERVE &&
                                                            c->t[y].n_visits > 0)
                              ? c->t[y].p_eff
                              : c->t[y].prio;
            if (px >= py)
                break;
            o[b - 1] = y;
            o[b] = x;
        }
    return o;
}

static void count(struct analysis_result *r)
{
    for (uint32_t i = 0; i < r->n_threads; i++) {
        const struct analysis_thread *t = &r->threads[i];
        if (!t->has_deadline || t->verdict == ANALYSIS_NO_JOBS)
            continue;
        if (t->verdict == ANALYSIS_SCHEDULABLE)
            r->n_schedulable++;
        else if (t->verdict == ANALYSIS_UNSCHEDULABLE)
            r->n_unschedulable++;
        else
            r->n_unknown++;
    }
}

/*
 * Passes without repeating work: thread i's analysis reads, of what the
 * passes learn (an_thread: bound, safe, lag), the bounds of the other
 * threads at its level or above (their demand), the lags of those and of
 * threads whose requests reach its level (their supply, preemptions), and
 * under mcs any context's `safe` (kernel timer entries, blocking, faults,
 * the critical instant; its own in its lag); a message-woken thread also
 * its senders' bounds (its release jitter), a blocking sender what its
 * receivers' windows read (its wait, at their levels); the arrivals (shift) of
 * threads whose lags it reads, and under mcs of any thread; none of its own figures but that (it makes
 * them anew) and under classic no `safe`. Its result is a
 * function of these, so when none changed since its last analysis began,
 * analysing it again would give the same result: it is skipped. A new
 * read of another thread's figures must be added to unchanged() (debug builds
 * check every skip: check_skip).
 */
struct an_clock {
    uint64_t now;      /* analyses begun */
    uint64_t safe_at;  /* when a `safe` (or a shift) last changed */
    uint64_t *began;   /* per thread: `now` when its last analysis began, 0 none */
    uint64_t *bound_at, *lag_at; /* when its bound, its lag last changed */
};

static uint32_t level(const struct an_thread *t)
{
    return (t->shape == SHAPE_DEVICE || an_has_streams(t) || t->bgjob) && t->p_eff < t->prio
               ? t->p_eff
               : t->prio;
}

static bool unchanged(const struct an_ctx *c, const struct an_clock *k, uint32_t i)
{
    uint64_t b = k->began[i];
    /* a blocking sender's wait reads what its receivers' analyses read */
    uint32_t l = an_send_level(c, i, level(&c->t[i]));
    if (b == 0 || ((c->mcs || c->n_serve > 0) && k->safe_at >= b))
        return false;
    /* a thread of several streams (analysis_serve.c) reads its senders'
     * bounds at any level, and the runs of the threads sending to it (at
     * any level) are read wherever it interferes: with such threads, any
     * change of a bound analyses every thread again */
    if (c->n_serve > 0)
        for (uint32_t j = 0; j < c->n; j++)
            if (k->bound_at[j] >= b)
                return false;
    /* a message-woken thread's releases: its senders' bounds, at any level */
    for (uint32_t j = c->t[i].sender, d = 0; j != SCN_NONE && d <= c->n; j = c->t[j].sender, d++)
        if (k->bound_at[j] >= b || (c->t[j].bgsend && k->lag_at[j] >= b))
            return false; /* a background sender's rate: its lag */
    for (uint32_t j = 0; j < c->n; j++) {
        const struct an_thread *t = &c->t[j];
        bool above = t->prio >= l;
        if (j == i)
            continue;
        if (above && k->bound_at[j] >= b)
            return false;
        /* a lower thread's requests that reach the level: a device
         * thread's, or an unmodelled program's whose calls are known
         * (an_interference: its supply, which its lag bounds) */
        if (k->lag_at[j] >= b &&
            (above || ((t->shape == SHAPE_DEVICE || t->shape == SHAPE_SERVE || t->calls_known) &&
                       an_request_reaches(c, j, l))))
            return false;
    }
    return true;
}

#ifndef NDEBUG
/* Debug builds: a thread unchanged() skips, analysed anyway, gets the
 * figures it has; a read missing from unchanged() (a skip that keeps an
 * out-of-date bound, looser or unsound) stops the suite here. */
static void check_skip(struct an_ctx *c, uint32_t i)
{
    struct an_thread was = c->t[i];
    struct an_pending p = c->pending[i];
    bool terms = c->terms;
    struct analysis_thread *out = malloc(sizeof *out);
    if (out == NULL)
        return;
    c->terms = false;
    an_thread_bound(c, i, out);
    assert(c->t[i].bound == was.bound && c->t[i].safe == was.safe &&
           c->t[i].lag == was.lag && c->t[i].arr.shift == was.arr.shift);
    c->t[i] = was;
    c->pending[i] = p;
    c->terms = terms;
    free(out);
}
#endif

static void make_terms(struct an_ctx *c, uint32_t i, struct analysis_result *r)
{
    struct an_pending *p = &c->pending[i];
    if (p->set)
        an_terms(&p->w, p->b, p->who, p->q, p->wq, p->theta, p->ahead, &r->threads[i]);
    p->set = false;
}

/* Up to `most` passes over the threads in order `o`, until one (after
 * the first) changes nothing (then true: settled); each bound's terms
 * made once, for the figures it was made of. */
static bool passes(struct an_ctx *c, const uint32_t *o, struct an_clock *k,
                   struct analysis_result *r, int most)
{
    for (int pass = 0; pass < most; pass++) {
        bool changed = false;
        c->terms = pass == most - 1;
        for (uint32_t x = 0; x < c->n; x++) {
            uint32_t i = o[x];
            struct an_thread was = c->t[i];
            if (unchanged(c, k, i)) {
#ifndef NDEBUG
                check_skip(c, i);
#endif
                if (c->terms)
                    make_terms(c, i, r); /* its figures are those of now */
                continue;
            }
            k->began[i] = ++k->now;
            c->pending[i].set = false;
            if (an_thread_bound(c, i, &r->threads[i])) {
                changed = true;
                if (was.safe != c->t[i].safe)
                    k->safe_at = k->now;
                if (was.bound != c->t[i].bound)
                    k->bound_at[i] = k->now;
                if (was.lag != c->t[i].lag)
                    k->lag_at[i] = k->now;
                /* its arrivals (a message-woken thread's shift) are read
                 * wherever its lag is, and under mcs as a client's by the
                 * faults and the payments of its servers, at any level */
                if (was.arr.shift != c->t[i].arr.shift || was.arr.slag != c->t[i].arr.slag)
                    k->lag_at[i] = k->safe_at = k->now;
            }
        }
        if (!changed && pass > 0) {
            /* nothing changed: every pending composition was made of the
             * figures there are now */
            for (uint32_t i = 0; i < c->n; i++)
                make_terms(c, i, r);
            return true;
        }
    }
    return false;
}

static void ctx_release(struct an_ctx *c)
{
    free(c->reach);
    free(c->visits);
    free(c->hvisits);
    free(c->dev);
    free(c->ilist);
    free(c->timed);
    free(c->held);
    free(c->held_prio);
    free(c->hoff);
    free(c->hclients);
    free(c->hcount);
    free(c->spans);
    free(c->pending);
    free(c->streams);
    free(c->srcs);
    an_fast_release(c);
    free(c->t);
}

/* One round of passes; `optimistic`: assuming every device thread's and
 * handler's context never runs out until its analysis says otherwise. */
static int run(const struct scenario *s, uint8_t scheduler, struct analysis_result *r,
               bool optimistic, bool *settled)
{
    struct an_ctx c;
    struct an_clock k = {0, 0, NULL, NULL, NULL};
    uint32_t *o;
    memset(r, 0, sizeof *r);
    memset(&c, 0, sizeof c);
    c.s = s;
    c.sched = scheduler;
    c.mcs = scheduler == SCHED_MCS;
    c.n = s->n_threads;
    c.horizon = horizon(s);
    c.t = calloc(c.n ? c.n : 1, sizeof *c.t);
    c.ilist = calloc(c.n ? c.n : 1, sizeof *c.ilist);
    c.pending = calloc(c.n ? c.n : 1, sizeof *c.pending);
    r->threads = calloc(c.n ? c.n : 1, sizeof *r->threads);
    if (!c.t || !c.ilist || !c.pending || !r->threads) {
        free(c.t);
        free(c.ilist);
        free(c.pending);
        free(r->threads);
        r->threads = NULL;
        return -1;
    }
    r->scheduler = scheduler;
    r->n_threads = c.n;
    if (an_model(&c) != 0 || an_kernel_tables(&c) != 0 || an_fast_tables(&c) != 0) {
        ctx_release(&c);
        analysis_release(r);
        return -1;
    }
    for (uint32_t i = 0; i < c.n; i++) {
        c.t[i].lag = AN_INF;
        c.t[i].safe = !c.mcs || c.t[i].rr ||
                      (optimistic && (c.t[i].shape == SHAPE_DEVICE || c.t[i].shape == SHAPE_HANDLER));
    }
    if (!(o = order(&c))) {
        ctx_release(&c);
        analysis_release(r);
        return -1;
    }
    k.began = calloc(3 * (size_t)(c.n ? c.n : 1), sizeof *k.began);
    if (!k.began) {
        free(o);
        ctx_release(&c);
        analysis_release(r);
        return -1;
    }
    k.bound_at = k.began + (c.n ? c.n : 1);
    k.lag_at = k.bound_at + (c.n ? c.n : 1);
    *settled = passes(&c, o, &k, r, optimistic ? AN_PASSES_OPTIMISTIC : AN_PASSES);
    an_ppc_results(&c, r); /* from the callers' final bounds */
    free(k.began);
    free(o);
    ctx_release(&c);
    count(r);
    return 0;
}

/* The assuming round if it settles (its outcome is consistent, hence
 * sound), else the one that assumes nothing. */
int analysis_run(const struct scenario *s, uint8_t scheduler, struct analysis_result *r)
{
    bool settled;
    int rc = run(s, scheduler, r, true, &settled);
    /* under classic nothing is assumed: any pass's figures are bounds */
    if (rc != 0 || settled || scheduler != SCHED_MCS)
        return rc;
    analysis_release(r);
    return run(s, scheduler, r, false, &settled);
}
