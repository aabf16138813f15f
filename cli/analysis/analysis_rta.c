/*
 * Interference on a job (docs/analysis.md, "Interference"): what every
 * other thread, and the kernel, can run in a window of length d at or
 * above the job's level, bounded by the thread's demand and, under MCS,
 * by its scheduling context; and the fixed point of a busy window.
 */
#include "analysis/analysis_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#define AN_MAX_STEPS 2000u

/* ---------------------------------------------------------- interferers */

bool an_request_reaches(const struct an_ctx *c, uint32_t j, uint32_t level)
{
    return c->t[j].n_visits > 0 && c->t[j].chain_prio >= level;
}

bool an_visits_policy(const struct an_ctx *c, uint32_t j, enum an_policy p)
{
    return p == POL_INHERIT ? c->t[j].visits_inherit : c->t[j].visits_emergency;
}

/* Does j's context bound what it can be charged at all (an_supply below
 * is AN_INF otherwise)? Not under classic, nor for a round-robin context,
 * a sporadic one whose lag has no bound, or one whose job's requests may
 * run on other contexts (inherit: the job's demand counts them). */
bool an_supply_bounded(const struct an_ctx *c, uint32_t j)
{
    const struct an_thread *t = &c->t[j];
    if (!c->mcs || !t->has_sc || t->rr || (t->sporadic && t->lag == AN_INF))
        return false;
    return !an_visits_policy(c, j, POL_INHERIT) || t->shape == SHAPE_OTHER;
}

/* The most CPU time j's context is charged in any window of length d
 * (MCS): budget + one entry per period window for a constant-bandwidth
 * context (the kernel's guarantee, KERNEL-SEMANTICS.md 3); a sporadic one
 * catches up at most its lag (issue 19); emergency grants come on top.
 * AN_INF when nothing bounds it. */
cycles_t an_supply(const struct an_ctx *c, uint32_t j, cycles_t d)
{
    const struct an_thread *t = &c->t[j];
    cycles_t grants = 0, lag = t->sporadic ? t->lag : 0;
    if (d == AN_INF || !an_supply_bounded(c, j))
        return AN_INF;
    if (an_visits_policy(c, j, POL_INHERIT)) {
        /* a thread without jobs (an_supply_bounded) finishes a request on
         * another context only after its own ran out in it (one of its
         * context's events), and the request's rest is at most the whole
         * request */
        grants = an_mul(an_context_events(c, j, d), t->requests);
    }
    if (an_visits_policy(c, j, POL_EMERGENCY)) {
        /* a grant per request of a job to a server that grants them
         * (nested ones included; at least one per call), or per timeout
         * fault (one of its context's events) of a thread without jobs */
        cycles_t n = t->shape == SHAPE_OTHER ? an_context_events(c, j, d)
                     : an_has_streams(t)     ? an_serve_calls(c, j, SCN_NONE, d)
                                               : an_mul(an_add(an_eta(&t->arr, d), 2), t->grants);
        grants = an_add(grants, an_mul(n, c->max_grant));
    }
    return an_add(an_mul(an_ceil_div(an_add(d, lag), t->period), an_add(t->budget, c->e_max)),
                  grants);
}

/* The work of j's jobs that can run in a window of length d: with the
 * critical instant, the jobs released in it; otherwise also those
 * released before and still running (at most one running and one pending
 * interrupt per line, or those released within j's bound). */
static cycles_t demand(const struct an_win *w, uint32_t j, cycles_t d)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    cycles_t n, m;
    switch (t->shape) {
    case SHAPE_DEVICE:
        /* woken by the window's own thread (or a chain from it) */
        m = t->device == SCN_NONE ? an_message_jobs(w, j) : AN_INF;
        if (w->crit)
            n = an_eta(&t->arr, d);
        else
            n = an_add(an_eta(&t->arr, d), 2);
        if (!w->crit && t->bound != AN_INF && an_eta(&t->arr, an_add(d, t->bound)) < n)
            n = an_eta(&t->arr, an_add(d, t->bound));
        return an_mul(m < n ? m : n, t->work);
    case SHAPE_HANDLER:
        return an_mul(an_faults(c, j, d), an_mul(AN_FAULT_ENTRIES, c->e_max));
    case SHAPE_SERVER: /* a called PD's notified runs; its requests are its callers' */
        return t->ppc_ntfn ? an_serve_demand(w, j, d, true) : 0;
    case SHAPE_SERVE:
        return an_serve_demand(w, j, d, true); /* its streams' runs */
    case SHAPE_OTHER:
        break;
    }
    return AN_INF;
}

/* Interference of thread j on a job at w->level in a window of length d;
 * *limited says the context's budget was the smaller bound. */
cycles_t an_interference(const struct an_win *w, uint32_t j, cycles_t d, bool *limited)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    cycles_t dm, sp;
    *limited = false;
    if (j == w->i || (t->shape == SHAPE_SERVER && !t->ppc_ntfn) ||
        (w->no_sender && j == c->t[w->i].sender))
        return 0;
    if (an_equal_applies(w, j))
        return an_equal_turns(w, j, d); /* round robin at its priority */
    if (t->prio >= w->level) {
        dm = demand(w, j, d);
        sp = an_supply(c, j, d);
        *limited = sp < dm;
        return sp < dm ? sp : dm;
    }
    /* below the level: only its requests to servers at the level or above;
     * it cannot run to make one while the window keeps the CPU at the
     * level, so only the one in progress at the start, unless the job
     * waits on an idle CPU */
    if (t->shape == SHAPE_DEVICE && an_request_reaches(c, j, w->level))
        return an_mul(w->idle ? an_add(an_eta(&t->arr, d), 2) : 1, t->requests);
    if (t->shape == SHAPE_SERVE && an_request_reaches(c, j, w->level))
        return an_serve_requests(w, j, d); /* its handlers' calls */
    if (t->shape == SHAPE_OTHER && t->may_call && c->top_server >= w->level) {
        if (!t->calls_known)
            return AN_INF;
        if (!an_request_reaches(c, j, w->level))
            return 0;
        /* its requests run on its context (mcs): no more than it supplies */
        return w->idle ? an_supply(c, j, d) : t->requests;
    }
    return 0;
}

cycles_t an_kernel(const struct an_win *w, cycles_t d)
{
    return an_mul(an_kernel_entries(w, d), w->c->e_max);
}

/* Could thread j interfere with the window's job at all? (an_interference
 * is 0 for every d otherwise.) */
static bool may_interfere(const struct an_win *w, uint32_t j)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    if (j == w->i || (t->shape == SHAPE_SERVER && !t->ppc_ntfn) ||
        (w->no_sender && j == c->t[w->i].sender))
        return false;
    if (t->prio >= w->level)
        return true;
    if (t->shape == SHAPE_DEVICE || t->shape == SHAPE_SERVE)
        return an_request_reaches(c, j, w->level);
    return t->shape == SHAPE_OTHER && t->may_call && c->top_server >= w->level;
}

/* ------------------------------------------------------------ divergence */

/* Below 2^53 a cycle count converts to a double exactly. */
static double dbl(cycles_t x)
{
    return x < (UINT64_C(1) << 53) ? (double)x : 0.0;
}

/* A line under an_interference(w, j, d) (analysis_int.h): under the
 * demand (eta(d) W_j; the carried-in jobs add min(2, R_j / T) W_j, as
 * eta(d + R_j) >= (d + R_j + J) / T) and under the supply (ceil((d + L) /
 * T) (b + E) >= (d + L) (b + E) / T), the smaller intercept and the
 * smaller slope of the two; {0, 0} where none is known. */
static struct an_line line(const struct an_win *w, uint32_t j)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    struct an_line dm = {0.0, 0.0}, sp = {0.0, 0.0}, none = {0.0, 0.0}, r;
    bool dm_inf = false, sp_inf;
    if (j == w->i || t->shape == SHAPE_SERVER)
        return none;
    if (an_equal_applies(w, j))
        return none; /* round-robin turns: 0 is below them */
    if (t->prio < w->level) {
        if (t->shape == SHAPE_DEVICE && w->idle && an_request_reaches(c, j, w->level)) {
            r = an_arrival_line(&t->arr);
            r.a = (r.a + 2.0) * dbl(t->requests);
            r.s *= dbl(t->requests);
            return r;
        }
        return none;
    }
    if (t->shape == SHAPE_DEVICE && t->device == SCN_NONE && an_message_jobs(w, j) != AN_INF) {
        /* a constant number of jobs (an_message_jobs): 0 is below it */
        dm_inf = false;
    } else if (t->shape == SHAPE_DEVICE) {
        dm = an_arrival_line(&t->arr);
        if (!w->crit) {
            double carry = 2.0;
            if (t->bound != AN_INF && dm.s * dbl(t->bound) < carry)
                carry = dm.s * dbl(t->bound);
            dm.a += carry;
        }
        dm.a *= dbl(t->work);
        dm.s *= dbl(t->work);
    } else if (t->shape == SHAPE_OTHER) {
        dm_inf = true;
    }
    sp_inf = !an_supply_bounded(c, j) || an_supply(c, j, 1) == AN_INF;
    if (!sp_inf && t->period > 0) {
        double per = dbl(an_add(t->budget, c->e_max)) / (double)t->period;
        sp.s = per;
        sp.a = t->sporadic ? dbl(t->lag) * per : 0.0;
    }
    if (dm_inf)
        return sp_inf ? none : sp;
    if (sp_inf)
        return dm;
    r.a = dm.a < sp.a ? dm.a : sp.a;
    r.s = dm.s < sp.s ? dm.s : sp.s;
    return r;
}

/* ------------------------------------------------------------ preparation */

/* Busy windows of one thread's phase (a q-job window per q, its two-job
 * window, its short-throttle windows) have the same interferers, lines
 * and fast tables, made once per key while the threads' state is held. */
void an_prep_hold(struct an_ctx *c)
{
    assert(!c->prep.held);
    c->prep.held = true;
    c->prep.valid = false;
}

void an_prep_drop(struct an_ctx *c)
{
    c->prep.held = false;
    c->prep.valid = false;
}

static uint32_t interferers(const struct an_win *w)
{
    struct an_ctx *c = w->c;
    uint32_t n = 0;
    for (uint32_t j = 0; j < c->n; j++)
        if (may_interfere(w, j))
            c->ilist[n++] = j;
    return n;
}

uint32_t an_interferers(const struct an_win *w)
{
    w->c->prep.valid = false; /* c->ilist and c->fast are now this window's */
    return interferers(w);
}

static bool prep_same(const struct an_prep *p, const struct an_win *w)
{
    return p->i == w->i && p->level == w->level && p->crit == w->crit && p->idle == w->idle &&
           p->no_sender == w->no_sender && p->turns == (w->turn_jobs != 0);
}

/* The window's preparation: the one held for its key, or a new one with
 * its interferers (the rest made when first asked). */
static struct an_prep *prep_window(const struct an_win *w)
{
    struct an_prep *p = &w->c->prep;
    if (p->valid && prep_same(p, w)) {
        /* the debug build lists them again: the lines and the fast steps
         * made of them are then checked against the kept ones */
        assert(interferers(w) == p->n);
        return p;
    }
    p->valid = p->held;
    p->i = w->i;
    p->level = w->level;
    p->crit = w->crit;
    p->idle = w->idle;
    p->no_sender = w->no_sender;
    p->turns = w->turn_jobs != 0;
    p->n = interferers(w);
    p->lines = p->charged = false;
    p->fast = -1;
    p->n_solved = 0;
    return p;
}

/* The sums of the interferers' lines and the kernel's line. */
static void sum_lines(const struct an_win *w, uint32_t n, double *ia, double *is, struct an_line *k)
{
    const struct an_ctx *c = w->c;
    *k = an_kernel_line(w);
    *ia = *is = 0.0;
    for (uint32_t x = 0; x < n; x++) {
        struct an_line l = line(w, c->ilist[x]);
        *ia += l.a;
        *is += l.s;
    }
}

static void prep_lines(const struct an_win *w, struct an_prep *p)
{
    if (!p->lines) {
        sum_lines(w, p->n, &p->ia, &p->is, &p->k);
        p->lines = true;
        return;
    }
#ifndef NDEBUG
    double ia, is;
    struct an_line k;
    sum_lines(w, p->n, &ia, &is, &k);
    assert(ia == p->ia && is == p->is && k.a == p->k.a && k.s == p->k.s);
#endif
}

static struct an_line prep_charged(const struct an_win *w, struct an_prep *p)
{
    if (!p->charged) {
        p->kc = an_charged_line(w);
        p->charged = true;
    }
#ifndef NDEBUG
    struct an_line kc = an_charged_line(w);
    assert(kc.a == p->kc.a && kc.s == p->kc.s);
#endif
    return p->kc;
}

static bool prep_fast(const struct an_win *w, struct an_prep *p)
{
    if (p->fast < 0)
        p->fast = an_fast_begin(w, p->n); /* the debug build checks every fast step */
    return p->fast > 0;
}

/*
 * Where the fixed point of an_fixed_point can be (docs/analysis.md, "The
 * bound"): F(t) >= L(t) = A + S t, with
 *     S = (1 + anchors) (E k_s + sum_j s_j) + [throttles] (per episode / run) E c_s
 *     A = base + anchor_extra + (1 + anchors) (E k_a + sum_j a_j)
 *         + [throttles] episode (first - per + per (need + E c_a) / run)
 * (k and the j's the lines of K and I_j above, c that of the entries
 * Theta charges, an_charged_line; Theta = (first + per
 * floor(x / run)) episode >= episode (first - per + per x / run)). Every
 * fixed point of F is at
 * least base and at least the root of L (below it L(t) > t): when S >= 1
 * there is none, when the root is past the horizon none the iteration
 * can reach (it would end with AN_INF, past the horizon or its step
 * limit); otherwise it may start at the root. A and S are nonnegative
 * sums of a few hundred rounded terms (relative error far below 1e-12),
 * scaled down by 1e-9 before use. Returns AN_INF (no fixed point up to
 * the horizon) or a start not above the least fixed point.
 */
static cycles_t lower_start(const struct an_win *w, struct an_prep *p, cycles_t base, cycles_t need,
                            bool throttles)
{
    const struct an_ctx *c = w->c;
    const double down = 1.0 - 1e-9;
    struct an_line k, kc;
    double e = dbl(c->e_max), ia, is, a, s, root;
    double anchors = 1.0 + (double)w->anchors;
    struct an_episodes ep;
    if (c->horizon >= (UINT64_C(1) << 52) || base > c->horizon)
        return base; /* the iteration ends at once, or the doubles are not exact */
    prep_lines(w, p);
    k = p->k;
    ia = p->ia;
    is = p->is;
    s = anchors * (e * k.s + is);
    a = dbl(base) + dbl(w->anchor_extra) + anchors * (e * k.a + ia);
    if (throttles && an_throttle_episode(c, w->i, &ep) && ep.run > 0 && ep.episode != AN_INF) {
        /* (first + per floor(x / run)) episode >= episode (first - per + per x / run) */
        double per = (double)ep.per_run;
        kc = prep_charged(w, p);
        s += dbl(ep.episode) * per / (double)ep.run * e * kc.s;
        a += dbl(ep.episode) *
             ((double)ep.first - per + per * (dbl(need) + e * kc.a) / (double)ep.run);
    }
    a *= down;
    s *= down;
    if (s >= 1.0)
        return a + (s - 1.0) * dbl(base) > 1.0 ? AN_INF : base;
    root = a / (1.0 - s) * down;
    if (root > dbl(c->horizon) + 1.0)
        return AN_INF;
    return root > dbl(base) ? (cycles_t)root : base;
}

cycles_t an_step_sums(const struct an_win *w, uint32_t n, bool fast, cycles_t t, cycles_t *kernel)
{
    const struct an_ctx *c = w->c;
    cycles_t sum = 0;
    bool lim;
    if (fast) {
        sum = an_fast_sum(w, t, kernel);
#ifndef NDEBUG
        /* the debug build checks the fast sums against the generic ones */
        cycles_t check = 0;
        for (uint32_t x = 0; x < n; x++)
            check = an_add(check, an_interference(w, c->ilist[x], t, &lim));
        assert(*kernel == an_kernel(w, t) && sum == check);
#endif
        return sum;
    }
    *kernel = an_kernel(w, t);
    for (uint32_t x = 0; x < n && sum != AN_INF; x++)
        sum = an_add(sum, an_interference(w, c->ilist[x], t, &lim));
    return sum;
}

/* Is x the fixed point of window w from base with need and throttles? */
static bool solved_is(const struct an_solved *x, const struct an_win *w, cycles_t base,
                      cycles_t need, bool throttles)
{
    return x->base == base && x->need == need && x->throttles == throttles &&
           x->turn_need == w->turn_need && x->turn_jobs == w->turn_jobs &&
           x->anchors == w->anchors && x->anchor_extra == w->anchor_extra;
}

/* The held fixed point of the same window, base, need and throttles, if
 * it is not below `start`: every start from base up to the least fixed
 * point reaches it (below it each step grows t, F being nondecreasing),
 * and in no more steps than from a lower one. NULL if none. */
static const struct an_solved *solved_find(const struct an_prep *p, const struct an_win *w,
                                           cycles_t base, cycles_t start, cycles_t need,
                                           bool throttles)
{
    uint32_t n = p->n_solved < AN_SOLVED ? p->n_solved : AN_SOLVED;
    if (!p->valid)
        return NULL;
    for (uint32_t x = 0; x < n; x++)
        if (solved_is(&p->solved[x], w, base, need, throttles) && start <= p->solved[x].t)
            return &p->solved[x];
    return NULL;
}

static void solved_keep(struct an_prep *p, const struct an_win *w, cycles_t base, cycles_t need,
                        bool throttles, cycles_t t, cycles_t theta)
{
    struct an_solved *x;
    if (!p->valid)
        return;
    x = &p->solved[p->n_solved++ % AN_SOLVED];
    x->anchors = w->anchors;
    x->turn_need = w->turn_need;
    x->anchor_extra = w->anchor_extra;
    x->turn_jobs = w->turn_jobs;
    x->base = base;
    x->need = need;
    x->throttles = throttles;
    x->t = t;
    x->theta = theta;
}

/* The iteration of an_fixed_point from t (at least base). */
static cycles_t iterate(const struct an_win *w, struct an_prep *p, cycles_t base, cycles_t t,
                        cycles_t need, bool throttles, cycles_t *theta)
{
    struct an_ctx *c = w->c;
    cycles_t next, k, th = 0;
    uint32_t n = p->n;
    /* a fixed point that takes this many steps is treated as none: each
     * step grows t, so stopping early only loses a bound */
    bool fast = prep_fast(w, p);
    for (uint32_t steps = 0; t != AN_INF && t <= c->horizon && steps < AN_MAX_STEPS; steps++) {
        cycles_t sum = an_step_sums(w, n, fast, t, &k);
        th = throttles ? an_throttle_time(c, w->i,
                                          an_add(need, an_mul(an_charged_entries(w, t), c->e_max)))
                       : 0;
        next = an_add(an_add(an_add(base, th), k), sum);
        next = an_add(next, an_active_throttling(w, t, k, NULL));
        if ((w->anchors > 0 || w->anchor_extra > 0) && next != AN_INF) {
            /* refill delays: the window's preemption (next - base - th)
             * again per anchor, and the blocking */
            cycles_t extra = an_add(an_mul(w->anchors, next - base - th), w->anchor_extra);
            th = an_add(th, extra);
            next = an_add(next, extra);
        }
        if (next == t) {
            *theta = th;
            return t;
        }
        if (next < t) {
            /* a start above the least fixed point: begin again from base */
            t = base;
            continue;
        }
        t = next;
    }
    *theta = th;
    return AN_INF;
}

/* Least t >= base with t = base + Theta(need + E K_c(t)) + E K(t) +
 * all_interference(t) + the throttling of the active servers the job calls
 * (Theta only if `throttles`; K_c the entries that can be charged to the
 * context, an_charged_entries; an_active_throttling); AN_INF past the
 * horizon. Only the threads that may interfere are visited at each step. */
cycles_t an_fixed_point(const struct an_win *w, cycles_t base, cycles_t start, cycles_t need,
                        bool throttles, cycles_t *theta)
{
    cycles_t t = start > base ? start : base, next;
    struct an_prep *p = prep_window(w);
    const struct an_solved *x = solved_find(p, w, base, t, need, throttles);
    *theta = 0;
    if (x != NULL) {
#ifndef NDEBUG
        cycles_t th, r = iterate(w, p, base, t, need, throttles, &th);
        assert(r == x->t && th == x->theta);
#endif
        *theta = x->theta;
        return x->t;
    }
    next = lower_start(w, p, base, need, throttles);
    if (next == AN_INF)
        return AN_INF; /* *theta: not used without a bound */
    if (next > t)
        t = next;
    t = iterate(w, p, base, t, need, throttles, theta);
    if (t != AN_INF)
        solved_keep(p, w, base, need, throttles, t, *theta);
    return t;
}

/* ---------------------------------------------------------------- reasons */

/* Why nothing bounds an_interference(w, j, .) (it is AN_INF): what limits
 * j's time in no way. */
static const char *unbounded_why(const struct an_win *w, uint32_t j)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[j];
    if (t->prio < w->level)
        return "it calls a server at this priority or above and its calls are not modelled";
    if (!c->mcs)
        return "classic scheduling limits it by no budget";
    if (!t->has_sc)
        return "it has no scheduling context of its own";
    if (t->rr)
        return "its round-robin context limits it by no budget";
    if (t->sporadic && t->lag == AN_INF)
        return "its sporadic context's catching up has no bound";
    if (an_visits_policy(c, j, POL_INHERIT))
        return "its requests may finish on other contexts (timeout policy inherit)";
    return "nothing limits it";
}

void an_overload_reason(const struct an_win *w, char *buf, size_t len)
{
    const struct an_ctx *c = w->c;
    uint32_t n = an_interferers(w), first = SCN_NONE, count = 0, top = SCN_NONE;
    double e = dbl(c->e_max), share, top_share = 0.0;
    bool lim;
    for (uint32_t x = 0; x < n; x++) {
        uint32_t j = c->ilist[x];
        if (an_interference(w, j, 1, &lim) != AN_INF)
            continue;
        if (count++ == 0)
            first = j;
    }
    if (count > 0) {
        const struct an_thread *t = &c->t[first];
        char more[48] = "";
        if (count > 1)
            snprintf(more, sizeof more, "; nor that of %u more", count - 1);
        snprintf(buf, len, "overload: nothing bounds the interference of %s (%s%s): %s%s",
                 c->s->threads[first].name,
                 t->shape == SHAPE_OTHER && !t->background && !t->bgjob ? "program not modelled: "
                                                                          : "",
                 t->background || t->bgjob ? "a background loop: always ready"
                 : t->shape == SHAPE_OTHER ? t->why_other
                                           : "its demand",
                 unbounded_why(w, first),
                 more);
        return;
    }
    share = e * an_kernel_line(w).s;
    for (uint32_t x = 0; x < n; x++) {
        struct an_line l = line(w, c->ilist[x]);
        share += l.s;
        if (l.s > top_share) {
            top_share = l.s;
            top = c->ilist[x];
        }
    }
    if (share >= 1.0 && top != SCN_NONE) {
        snprintf(buf, len,
                 "overload: the threads that can run before its job and the kernel need %.1f%% "
                 "of the CPU in the long run (most: %s, %.1f%%)",
                 share * 100.0, c->s->threads[top].name, top_share * 100.0);
        return;
    }
    snprintf(buf, len, "%s", "overload: the busy window has no end below the horizon");
}
