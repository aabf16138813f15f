/*
 * A context's own budget (docs/analysis.md, "The refill rules used",
 * "Never runs out", "Own throttling"): when a thread's context is proven
 * never to run out, and how long it can keep its thread throttled
 * otherwise; a sporadic context's lag for the interference it causes.
 */
#include "analysis/analysis_int.h"

/* What a context loses besides its jobs' work: MIN_BUDGET (a remainder
 * below it is folded into the next refill, a system call with less is
 * refused, B12) twice, one kernel entry, and for a context that may get an
 * emergency grant the refills the reconfiguration moves (sim/timeouts.c:
 * refill_update schedules the rest one period later). */
static cycles_t margin(const struct an_ctx *c, uint32_t k, bool may_run_out)
{
    const struct an_thread *t = &c->t[k];
    cycles_t m = an_add(an_mul(2, c->min_budget), c->e_max);
    if (may_run_out && an_visits_policy(c, k, POL_EMERGENCY))
        m = an_add(m, t->budget);
    return m;
}

/*
 * Theta, thread k's own throttling while its context is charged `need`
 * cycles (docs/analysis.md, "Own throttling", where the proofs are):
 * (first + per floor(need / run)) episodes of `episode` cycles.
 *
 * The phase bound (since 2026-12-04, session 9): call x a throttle, a
 * commit after which the head refill is not due (an exhaustion, seL4
 * charge_entire_head_refill, or a remainder below MIN_BUDGET folded into
 * the next refill, merge_nonoverlapping_head_refill). Every refill ends at
 * most T after the head time left by the commit that last moved it, and
 * only the tail is ever moved later (schedule_used, list full). After x
 * every refill but the tail keeps its time or moves earlier (after a fold
 * the list is not full, so no refill present at x moves later at all);
 * the tail holds at most the exhausted head and the overrun, a, charged in
 * the one commit at x. The other refills, F >= b - a of budget, end by Z
 * <= x + T - a (a fold: F = b, Z <= x + T): until the thread has been
 * charged F - MIN_BUDGET since x, the refills ending by Z, or the due
 * head, hold what of F it has not been charged (a fold that moves a
 * remainder out of them leaves it charged F - MIN_BUDGET), so it is
 * throttled at most Z - x - F <= T - b in all (a phase). The next throttle
 * after that begins the next phase; two consecutive phases' charges add
 * up to b - MIN_BUDGET. In a window where the context is charged N: the
 * phase in progress at its start and at most 2 + 2 floor(N / (b -
 * MIN_BUDGET)) begun in it. No preemption enters (the old episodes' P).
 *
 * A context that may get an emergency grant keeps the earlier episodes
 * (2 + floor(need / (b - m - MIN_BUDGET))) (2T - b + m + E) plus the
 * refill delays the window's preemption adds (an_throttled_fixed_point):
 * the grant's refill_update breaks the sum of the refills.
 */
cycles_t an_throttle_time(const struct an_ctx *c, uint32_t k, cycles_t need)
{
    struct an_episodes ep;
    if (!an_throttle_episode(c, k, &ep))
        return 0;
    if (need == AN_INF || ep.run == 0)
        return AN_INF;
    return an_mul(an_add(ep.first, an_mul(ep.per_run, need / ep.run)), ep.episode);
}

/* Does a context of the scenario keep the earlier episodes (it may get an
 * emergency grant)? Then every window keeps the refill delays. */
bool an_old_episodes(const struct an_ctx *c)
{
    for (uint32_t k = 0; k < c->n; k++)
        if (c->t[k].has_sc && an_visits_policy(c, k, POL_EMERGENCY))
            return true;
    return false;
}

bool an_throttle_episode(const struct an_ctx *c, uint32_t k, struct an_episodes *ep)
{
    const struct an_thread *t = &c->t[k];
    cycles_t m = margin(c, k, true);
    ep->run = 0;
    ep->episode = AN_INF;
    ep->first = 2;
    ep->per_run = 1;
    if (!c->mcs || !t->has_sc || t->rr)
        return false;
    if (!an_visits_policy(c, k, POL_EMERGENCY)) {
        ep->run = t->budget > c->min_budget ? t->budget - c->min_budget : 0;
        ep->episode = t->period > t->budget ? t->period - t->budget : 0;
        ep->first = 3;
        ep->per_run = 2;
        return true;
    }
    if (t->budget <= an_add(m, c->min_budget))
        return true;
    ep->run = t->budget - m - c->min_budget;
    ep->episode = an_add(an_mul(2, t->period) - t->budget, an_add(m, c->e_max));
    return true;
}


/* One tick of the kernel's clock in cycles (the kernel holds budgets,
 * periods and refill times in whole ticks). */
static cycles_t tick_cycles(const struct an_ctx *c)
{
    uint64_t hz = c->s->timer_hz;
    if (hz == 0 || hz >= c->s->cpu_hz)
        return 1;
    return an_ceil_div(c->s->cpu_hz, hz);
}

/*
 * Another context x's timer entries that can be taken while this one runs
 * (docs/analysis.md, "What a window charges", where the proof is): the
 * timer is programmed at every switch of context for the running one's
 * budget end or the release queue's head, so they are x's releases from
 * the release queue only, each ending a distinct wait of x (a postponement
 * whose head refill is not yet due). The refills of x alive at a wait's
 * start are at most n = 2 + extra_refills, every wait ends (pop or fold)
 * the head refill it waited for, and a refill made later starts at least
 * T - MIN_BUDGET after that wait's head time: so the heads of n + 1 waits
 * lie at least T - MIN_BUDGET apart. Rounding to ticks costs two ticks. The
 * count n (ceil(d / gap) + 1) is used when it is below 3 n (ceil(d / T) +
 * 1) for every d (3 gap >= T), and not when an emergency grant
 * (refill_update) may rewrite a list.
 */
cycles_t an_release_gap(const struct an_ctx *c, const struct scn_context *sc)
{
    cycles_t lose = an_add(c->min_budget, an_mul(2, tick_cycles(c)));
    if (!sc->present || sc->budget >= sc->period || sc->period <= lose)
        return 0;
    if (an_mul(3, sc->period - lose) < sc->period)
        return 0;
    return sc->period - lose;
}

/* ---------------------------------------------------------- own budget */

/* Kernel entries that can preempt (switch away from) a job of i in d:
 * each makes its context a new refill (constant bandwidth, B8). A lower
 * thread's request can start, and later preempt i, only while i waits on
 * an idle CPU (w->idle). */
static uint64_t preemptions(const struct an_win *w, cycles_t d)
{
    const struct an_ctx *c = w->c;
    uint64_t n = 0;
    for (uint32_t j = 0; j < c->n; j++) {
        const struct an_thread *t = &c->t[j];
        if (j == w->i || (t->shape == SHAPE_SERVER && !t->ppc_ntfn))
            continue;
        /* a fault is raised while the server that faults runs, so i is not
         * running then, and its handler does not split i's consumption */
        if (t->shape == SHAPE_HANDLER)
            continue;
        if (t->shape == SHAPE_OTHER && t->prio >= w->level) {
            /* a client that blocks only in its calls (to servers above
             * it) takes the CPU from i only after its context's events,
             * once at its start, and once at the window's start */
            if (!t->only_calls)
                return AN_INF;
            n = an_add(n, an_add(an_context_events(c, j, d), 2));
        } else if (t->shape == SHAPE_OTHER && t->calls_known && w->idle &&
                   an_request_reaches(c, j, w->level)) {
            return AN_INF; /* may start any number of requests meanwhile */
        } else if (t->shape == SHAPE_DEVICE &&
                 (t->prio >= w->level ||
                  (w->idle && an_request_reaches(c, j, w->level)))) {
            cycles_t jobs = an_add(an_eta(&t->arr, d), 2), sp = an_supply(c, j, d);
            /* a context that limits it runs at most its supply's worth of jobs */
            if (sp != AN_INF && t->compute_min > 0 &&
                an_add(sp / t->compute_min, 2) < jobs)
                jobs = an_add(sp / t->compute_min, 2);
            /* woken at its release and again after each blocking send */
            n = an_add(n, an_mul(jobs, an_add(1, t->bsends)));
            if (t->has_sc && !t->rr && !t->safe)
                n = an_add(n, an_mul(3u * t->refills, an_add(an_ceil_div(d, t->period), 1)));
        } else if (an_has_streams(t) &&
                   (t->prio >= w->level || (w->idle && an_request_reaches(c, j, w->level)))) {
            /* a wake per batch, at most one per run */
            n = an_add(n, an_serve_demand(w, j, d, false));
            if (t->has_sc && !t->rr && !t->safe)
                n = an_add(n, an_mul(3u * t->refills, an_add(an_ceil_div(d, t->period), 1)));
        }
    }
    return n;
}

/* Requests of others that i's context may pay for (inherit) in d. */
static cycles_t payments(const struct an_win *w, cycles_t d)
{
    const struct an_ctx *c = w->c;
    uint32_t i = w->i;
    cycles_t p = 0;
    for (uint32_t s = 0; s < c->n; s++) {
        if (c->t[s].shape != SHAPE_SERVER || c->t[s].policy != POL_INHERIT ||
            c->t[s].handler == SCN_NONE || !an_visits(c, i, s))
            continue;
        for (uint32_t k = 0; k < c->n; k++) {
            const struct an_thread *o = &c->t[k];
            if (k == i || !an_visits(c, k, s))
                continue;
            if (o->shape == SHAPE_OTHER && !o->rr) {
                /* no jobs: each payment follows an event of its context */
                p = an_add(p, an_mul(o->prio < w->level && !w->idle ? 1
                                                                    : an_context_events(c, k, d),
                                     an_request(c, s)));
                continue;
            }
            if (o->shape != SHAPE_DEVICE)
                return AN_INF;
            if (!o->safe && !o->rr) /* a lower client: only its request in progress */
                p = an_add(p, an_mul(o->prio < w->level && !w->idle
                                         ? 1
                                         : an_add(an_eta(&o->arr, d), 2),
                                     an_request(c, s)));
        }
    }
    return p;
}

/*
 * The whole budget in one refill at every job's start (docs/analysis.md,
 * "Never runs out", proof there): a device thread without server visits
 * whose jobs are released at least T apart and done (blocked in `wait`)
 * before the next release, each charged own <= b - slack. By induction
 * over jobs: job k starts with one refill (s, b); charges are made at
 * most T after the consumption they record, so the refills its
 * consumption makes lie in [s + T, f + T) (f its end; a full list's
 * tail too), and the head keeps b - own >= slack (never exhausted, never
 * below MIN_BUDGET). At job k + 1's first run the head is due and
 * seL4's refill_unblock_check moves it to now and merges every refill
 * that starts before its end, one after another: all of them when f + T
 * <= s' + b (constant bandwidth: at the switch-in, B7) -- a sporadic
 * context's charges are contiguous (preemption moves no head), so its
 * one used refill starts at its wake + T and merges at the next wake if
 * that refill starts before b - own after it: the wake's latency is at
 * most the kernel's own busy period; one with a blocking send is woken
 * again inside its job (its refills re-dated then, as a constant-bandwidth
 * one's at a switch-in), so it gets the constant-bandwidth condition,
 * whose refills lie in [s + T, f + T) all the same. The slack covers
 * MIN_BUDGET (the head must keep it at every call), the start-up's first
 * entry and the clock's ticks.
 */
static bool fresh_each_job(const struct an_win *w, cycles_t r, cycles_t own)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    cycles_t d2 = an_delta(&t->arr, 2);
    cycles_t slack = an_add(an_add(c->min_budget, an_mul(3, c->e_max)),
                            an_mul(2, tick_cycles(c)));
    if (t->shape != SHAPE_DEVICE || t->n_visits > 0 || t->acalls > 0 || r == AN_INF)
        return false;
    if (d2 < t->period || r >= d2 || an_add(own, slack) > t->budget)
        return false;
    if (t->sporadic && t->bsends == 0) {
        /* the wake comes when the kernel gets to the interrupt: after at
         * most the kernel's own busy period (entries only), lat */
        cycles_t lat = c->e_max, next;
        for (uint32_t k = 0; k < 64; k++, lat = next) {
            next = an_kernel(w, lat);
            if (next <= lat || next > t->period)
                break;
        }
        if (an_kernel(w, lat) > lat)
            return false;
        return an_add(an_add(an_add(own, c->min_budget), lat), an_mul(2, tick_cycles(c))) <=
               an_add(t->budget, d2 - t->period);
    }
    return an_add(an_add(r, t->period), slack) <= an_add(d2, t->budget);
}

/*
 * A served thread (docs/analysis.md, "Never runs out", served threads):
 * the charge of any window (x - T, x] is that of the runs that end after
 * x - T (an_serve_charge), the kernel's entries while they run (those of
 * the window, which may have idle time, or of each run's own window) and
 * what it may pay for others; its chunks one per wake, and for a
 * constant-bandwidth context one per return from a preemption.
 */
static bool serve_never_runs_out(const struct an_win *w, cycles_t r)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    struct an_win v = *w;
    cycles_t work, k, x;
    uint64_t runs, wakes, chunks, p;
    if (!an_serve_charge(w, r, &work, &runs, &wakes))
        return false;
    v.idle = true;
    v.crit = false;
    v.turn_jobs = wakes ? wakes : 1;
    k = an_kernel(&v, t->period);
    if ((x = an_mul(runs, an_kernel(w, r))) < k)
        k = x;
    chunks = an_add(1, wakes);
    if (!t->sporadic) {
        p = preemptions(&v, t->period);
        if ((x = an_mul(runs, preemptions(w, r))) < p)
            p = x;
        chunks = an_add(chunks, p);
    }
    if (chunks > t->refills - 1)
        return false;
    return an_add(an_add(an_add(work, k), payments(&v, t->period)), margin(c, w->i, false)) <=
           t->budget;
}

/*
 * Is i's context proven never to run out, given jobs with bound r? Then
 * the refills not yet due at any time x are consumption of (x - T, x]
 * (no refill list overflow: the refills a window needs fit in the list),
 * and that consumption stays below b - m: one job per period takes W' and
 * the previous job at most its own W' or the time it was kept from
 * running; more frequent jobs take W' each.
 */
bool an_never_runs_out(const struct an_win *w, cycles_t r)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    cycles_t own, cons, x, per_job, jobs;
    bool one_per_period;
    if (!c->mcs || t->rr)
        return true;
    if (an_has_streams(t))
        return serve_never_runs_out(w, r);
    own = an_add(an_add(t->work, an_kernel(w, r)), payments(w, r));
    if (fresh_each_job(w, r, own))
        return true;
    per_job = an_wakes_per_job(t);
    if (!t->sporadic)
        per_job = an_add(per_job, preemptions(w, r));
    jobs = an_eta(&t->arr, an_add(t->period, r));
    x = r > t->work ? r - t->work : 0;
    one_per_period = an_delta(&t->arr, 2) >= t->period && r <= an_delta(&t->arr, 2);
    /* The list may overflow (and delay a refill, seL4 schedule_used) only
     * if more chunks than it holds are not yet due at a commit. With one
     * chunk per job and one job per period, the previous job's chunk is
     * still not due at this job's only commit (its end) only if it started
     * later than this job's least compute after its release. */
    if (an_mul(jobs, per_job) > t->refills - 1 &&
        !(per_job == 1 && one_per_period && x <= t->compute_min))
        return false;
    if (one_per_period)
        cons = an_add(own, own < x ? own : x);
    else
        cons = an_mul(jobs, own);
    return an_add(cons, margin(c, w->i, false)) <= t->budget;
}

/*
 * The short throttle (docs/analysis.md, "Own throttling", the short
 * throttle, where the proof is): a constant-bandwidth device thread
 * without server visits, one job per period, whose two jobs may need a
 * little more than its budget. With b' = b - m and own the most a job is
 * charged, e = 2 own - b' > 0 and 2 e <= own: while no refill is ever
 * delayed (the list never full, counted as in an_never_runs_out plus the
 * exhaustions: 1 + floor(e / MIN_BUDGET) per job), a throttle of job k + 1
 * at offset tau needs the previous job to have been charged less than e
 * by offset tau, which it is by L(e) (it cannot be throttled before it is
 * charged own - e >= e), and leaves at most e of work: every job ends
 * within max(L(W), 2 L(e)), L(x) the least fixed point of x + E K(t) +
 * sum_j I_j(t) with work carried in. Iterated from L(W) while the bound
 * grows (own counts the kernel entries of the bound's window). *theta:
 * what the bound has beyond W, K and the interference at it.
 */
bool an_short_throttle(const struct an_win *win, cycles_t *bound, cycles_t *theta)
{
    const struct an_ctx *c = win->c;
    const struct an_thread *t = &c->t[win->i];
    struct an_win v = *win;
    cycles_t d2 = an_delta(&t->arr, 2), d3 = an_delta(&t->arr, 3), m, bp, lw, b, next = 0;
    cycles_t own = 0, e = 0, le, th, k, sum;
    uint64_t per_job, jobs;
    uint32_t round, n;
    if (!c->mcs || !t->has_sc || t->rr || t->sporadic || t->shape != SHAPE_DEVICE ||
        t->n_visits > 0 || t->acalls > 0 || t->bsends > 0 || d2 < t->period)
        return false;
    m = margin(c, win->i, false);
    if (t->budget <= m)
        return false;
    bp = t->budget - m;
    v.crit = false;
    v.idle = true;
    v.anchors = 0;
    v.anchor_extra = 0;
    v.turn_need = t->work;
    v.turn_jobs = an_wakes_per_job(t);
    lw = an_fixed_point(&v, t->work, 0, t->work, false, &th);
    if (lw == AN_INF)
        return false;
    b = lw;
    for (round = 0; round < 32; round++, b = next) {
        own = an_add(t->work, an_kernel(&v, b));
        if (an_mul(2, own) <= bp)
            return false; /* it never throttles, if anything: the rules above */
        e = an_mul(2, own) - bp;
        if (an_mul(2, e) > own)
            return false;
        le = an_fixed_point(&v, e, 0, e, false, &th);
        if (le == AN_INF)
            return false;
        next = an_mul(2, le) > lw ? an_mul(2, le) : lw;
        if (next <= b || next >= d2)
            break;
    }
    /* the hypothesis b: every job within it, done before the next release,
     * the one before the previous job all due by then, no refill delayed */
    if (next > b || b >= d2 || an_add(b, t->period) > d3)
        return false;
    per_job = an_add(an_add(an_wakes_per_job(t), preemptions(&v, b)),
                     an_add(1, e / (c->min_budget ? c->min_budget : 1)));
    jobs = an_eta(&t->arr, an_add(t->period, b));
    if (an_mul(jobs, per_job) > t->refills - 1)
        return false;
    n = an_interferers(&v);
    sum = an_step_sums(&v, n, false, next, &k);
    sum = an_add(an_add(sum, k), t->work);
    *bound = next;
    *theta = sum < next ? next - sum : 0;
    return true;
}

/* A handler's context runs out only if the faults of two periods need
 * more than its budget. */
bool an_handler_never_runs_out(const struct an_ctx *c, uint32_t h)
{
    const struct an_thread *t = &c->t[h];
    if (!c->mcs || t->rr)
        return true;
    cycles_t need = an_mul(an_faults(c, h, an_mul(2, t->period)),
                           an_mul(AN_FAULT_ENTRIES, c->e_max));
    return an_add(need, margin(c, h, false)) <= t->budget;
}

/* How far a sporadic context's refills can lag behind now: the busy
 * period at its priority with the context as a periodic task (b, T);
 * within it the thread has been starved of at most that much. */
cycles_t an_sporadic_lag(const struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    struct an_win w = {(struct an_ctx *)c, i, t->prio, false, true, 0, 0, 0, 0, false};
    cycles_t l = t->budget, next, k, sum;
    uint32_t n = an_interferers(&w);
    bool fast = an_fast_begin(&w, n);
    while (l <= c->horizon) {
        sum = an_step_sums(&w, n, fast, l, &k);
        next = an_add(an_add(an_mul(an_ceil_div(l, t->period), t->budget), k), sum);
        if (next == l)
            return l;
        l = next;
    }
    return AN_INF;
}
