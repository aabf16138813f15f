/*
 * The response-time bound of one thread (docs/analysis.md gives each
 * equation and its source). A job of thread i runs at level p = the lowest
 * priority of i and the servers it visits; in a window of length t the CPU
 * does only: i's work W, interference I_j(t) of every thread that can run
 * at p or above, the kernel's entries E K(t), the waits B of i's requests
 * behind another client's request whose context ran out, and i's own
 * throttling Theta. The q-th job of a busy window of i has the bound
 * w(q) - delta(q), w(q) the least fixed point of
 *     w = q (W + B) + Theta(q) + E K(w) + sum_j I_j(w).
 */
#include "analysis/analysis_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#define AN_MAX_JOBS 256u /* jobs of one busy window examined at most */

/* ------------------------------------------------------------ blocking */

/* How long handler h takes to answer one fault for a job at `level`. */
static cycles_t handler_latency(const struct an_ctx *c, uint32_t h, uint32_t level)
{
    const struct an_thread *t = &c->t[h];
    if (t->prio < level || !(t->rr || t->safe))
        return AN_INF;
    return an_mul(AN_FAULT_ENTRIES, c->e_max);
}

/* The wait behind client k's request on server s whose context runs out,
 * by the policy of the server where it runs out (issue 15: each policy its
 * own term): without a handler the server waits for k's refills, then
 * finishes the request; `reset` aborts it once the handler ran; an
 * emergency grant lets it finish (a second fault is handled as reset);
 * `inherit` finishes it on the highest queued client's context, which may
 * run out too. The request's rest is counted here even though the
 * interference of k's requests counts it as well (an overestimate). */
static cycles_t policy_wait(const struct an_ctx *c, uint32_t k, uint32_t s, uint32_t level,
                            uint32_t self, bool *idle)
{
    cycles_t r = an_request(c, s), worst = 0, w;
    uint32_t n;
    const struct an_reach *x = an_reach(c, s, &n);
    for (uint32_t y = 0; y < n; y++) {
        const struct an_thread *sv = &c->t[s = x[y].k];
        if (sv->handler == SCN_NONE && c->s->threads[s].timeout_endpoint != SCN_NONE)
            return AN_INF; /* a fault nobody answers: the server never resumes */
        switch (sv->handler == SCN_NONE ? POL_NONE : sv->policy) {
        case POL_NONE:
            w = an_add(r, an_throttle_time(c, k, r));
            *idle = true;
            break;
        case POL_RESET:
            w = handler_latency(c, sv->handler, level);
            break;
        case POL_EMERGENCY:
            w = an_add(r, an_mul(2, handler_latency(c, sv->handler, level)));
            break;
        case POL_INHERIT:
            /* with no client queued when the fault came, the server waits
             * for k's refills as with no handler (docs/scenario-format.md);
             * a client that queues later waits for them too */
            w = an_add(an_add(r, handler_latency(c, sv->handler, level)),
                       an_throttle_time(c, k, r));
            *idle = true;
            for (uint32_t p = 0; p < c->n; p++)
                if (p != k && p != self && an_visits(c, p, s) && !c->t[p].rr &&
                    (c->t[p].shape == SHAPE_OTHER || !c->t[p].safe)) {
                    w = an_add(w, an_throttle_time(c, p, r));
                    *idle = true;
                }
            break;
        default:
            w = AN_INF;
        }
        if (w > worst)
            worst = w;
    }
    return worst;
}

/* B: for each server one call of thread i to sv reaches, the longest
 * wait behind another client's request whose context can run out, once
 * per request the call makes there (*who: the client). */
cycles_t an_call_blocking(const struct an_ctx *c, uint32_t i, uint32_t sv, uint32_t level,
                          uint32_t *who, bool *idle)
{
    cycles_t b = 0;
    uint32_t n;
    const struct an_reach *x = an_reach(c, sv, &n);
    if (!c->mcs)
        return 0; /* classic: no budgets run out; queued requests are interference */
    for (uint32_t y = 0; y < n; y++) {
        uint32_t s = x[y].k;
        cycles_t worst = 0, w;
        for (uint32_t k = 0; k < c->n; k++) {
            const struct an_thread *o = &c->t[k];
            if (k == i)
                continue;
            if (o->shape == SHAPE_OTHER && o->may_call && !o->calls_known)
                return AN_INF; /* its requests are not modelled */
            /* a client whose program is not modelled is never shown
             * safe: its context may run out in any request */
            if (!an_visits(c, k, s) || o->rr ||
                (o->shape == SHAPE_DEVICE || o->shape == SHAPE_SERVE ? o->safe
                                                                      : o->shape != SHAPE_OTHER))
                continue;
            w = policy_wait(c, k, s, level, i, idle);
            if (w > worst) {
                worst = w;
                *who = k;
            }
        }
        b = an_add(b, an_mul(worst, x[y].m)); /* each of those requests may wait */
    }
    return b;
}

cycles_t an_blocking(const struct an_ctx *c, uint32_t i, uint32_t level, uint32_t *who,
                     bool *idle)
{
    const struct an_thread *t = &c->t[i];
    cycles_t b = 0;
    *who = SCN_NONE;
    *idle = false;
    for (uint32_t v = 0; v < t->n_visits; v++) {
        cycles_t w = an_call_blocking(c, i, t->visits[v], level, who, idle);
        if (w == AN_INF)
            return AN_INF;
        /* a background job's calls to one server: each may wait */
        b = an_add(b, an_mul(w, t->vmult[v] > 1 ? t->vmult[v] : 1));
    }
    return b;
}

/* ----------------------------------------------------------- the window */

static bool crit_ok(const struct an_ctx *c, uint32_t j)
{
    const struct an_thread *t = &c->t[j];
    if (an_has_streams(t))
        return an_serve_crit(c, j); /* a served thread (analysis_serve_link.c) */
    return t->shape == SHAPE_DEVICE && t->n_visits == 0 && t->bsends == 0 && t->acalls == 0 &&
           (!c->mcs || t->rr || t->safe);
}

/* The critical instant holds when nothing at the level can carry work in
 * or suspend: every such thread is a device thread without calls that
 * never runs out of budget, or a served thread of that kind whose
 * pending work is all visible (an_serve_crit), and no lower thread's
 * request reaches it. */
bool an_critical_instant(const struct an_ctx *c, uint32_t i, uint32_t level)
{
    if (c->t[i].n_visits > 0 || c->t[i].bsends > 0 || c->t[i].acalls > 0)
        return false;
    for (uint32_t j = 0; j < c->n; j++) {
        const struct an_thread *t = &c->t[j];
        if (j == i || (t->shape == SHAPE_SERVER && !t->ppc_ntfn))
            continue; /* a called PD's notified runs are not (an_serve_crit) */
        if (t->shape == SHAPE_HANDLER) {
            if (t->prio >= level && an_faults(c, j, 1) != 0)
                return false;
            continue;
        }
        if (t->prio >= level && !crit_ok(c, j))
            return false;
        if (t->prio < level && (t->may_call || t->shape == SHAPE_OTHER) &&
            an_request_reaches(c, j, level))
            return false;
        if (t->prio < level && t->shape == SHAPE_OTHER && t->may_call)
            return false;
    }
    return true;
}

/* Is thread i's job woken inside itself: after a blocking send, or by
 * the reply of an active server (its own or a served stream's call)?
 * Each such wake re-dates a sporadic context's refills
 * (refill_unblock_check), as a wake at the job's start does. */
static bool wakes_in_job(const struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    if (t->bsends > 0 || t->acalls > 0)
        return true;
    for (uint32_t m = 0; m < t->n_streams; m++)
        if (c->streams[t->stream_first + m].n_acalls > 0)
            return true;
    return false;
}

/*
 * w = base + need + Theta(need') + E K(w) + sum_j I_j(w), where need' adds
 * to the jobs' work the kernel entries of the window, which the context
 * may be charged for (the time up to an entry's clock reading goes to the
 * context that ran, the rest to the one that runs next: KERNEL-SEMANTICS.md
 * 8; the soundness test found a flooded context whose throttling needed
 * this). Theta(need') grows with w, so it is part of the one fixed point.
 */
cycles_t an_throttled_fixed_point(const struct an_win *w, cycles_t base, cycles_t need,
                                  bool throttles, cycles_t start, cycles_t *theta)
{
    struct an_win v = *w;
    *theta = 0;
    if (!an_old_episodes(w->c)) {
        /* the phase bound (an_throttle_time) holds whatever the context's
         * thread (or a client holding a server) does meanwhile: no refill
         * delays to add, for this context or for a client's in B */
        v.anchors = 0;
        v.anchor_extra = 0;
        return an_fixed_point(&v, an_add(need, base), start, need, throttles, theta);
    }
    /* the earlier episodes (a context may get an emergency grant): a
     * constant-bandwidth context's head moves to now at every switch-in
     * (B7), so its full list's tail is re-anchored after each preemption;
     * a sporadic one's head moves only by what it is charged, and at a
     * wake (after waiting in a server) */
    if (throttles && (!w->c->t[w->i].sporadic || wakes_in_job(w->c, w->i)))
        v.anchors++; /* a sporadic one's at a wake inside its job too */
    if (v.anchors > 0 || throttles)
        v.anchor_extra = base; /* the jobs' waits in servers: the context idles */
    return an_fixed_point(&v, an_add(need, base), start, need, throttles, theta);
}

/* The result of one busy-window analysis. */
struct an_busy {
    cycles_t bound;  /* max over q of w(q) - delta(q) */
    cycles_t w;      /* w(q) of the worst q */
    uint64_t q;      /* the worst job of the window */
    uint64_t jobs;   /* jobs in the window */
    bool lose;       /* a third arrival can come before a job's irq_ack */
    bool two;        /* the bound is two_jobs()'s */
    cycles_t theta;  /* the throttling in w */
    const char *why; /* no bound: why */
    bool overload;   /* no bound: the window has no end (an_overload_reason) */
};

/* ------------------------------------------------------------- results */

/* an_terms now, in the last pass, or when analysis_run knows this pass's
 * results are kept (struct an_ctx, `terms`). */
void an_keep_terms(const struct an_win *w, cycles_t b, uint32_t who, uint64_t q, cycles_t wq,
                   cycles_t theta, bool ahead, struct analysis_thread *out)
{
    struct an_pending *p = &w->c->pending[w->i];
    if (w->c->terms) {
        an_terms(w, b, who, q, wq, theta, ahead, out);
        return;
    }
    p->set = true;
    p->w = *w;
    p->b = b;
    p->who = who;
    p->q = q;
    p->wq = wq;
    p->theta = theta;
    p->ahead = ahead;
}

static void set_reason(struct analysis_thread *out, const char *fmt, const char *a)
{
    snprintf(out->reason, sizeof out->reason, fmt, a);
}

/* Servers and timeout handlers have no jobs; a handler's context safety
 * is learnt here for the blocking terms. */
static bool no_jobs(struct an_ctx *c, uint32_t i, struct analysis_thread *out)
{
    struct an_thread *t = &c->t[i];
    bool was = t->safe;
    out->verdict = ANALYSIS_NO_JOBS;
    if (t->shape == SHAPE_HANDLER) {
        t->safe = an_handler_never_runs_out(c, i);
        set_reason(out, "%s", "a timeout handler: its time is interference on the threads below");
    } else if (t->shape == SHAPE_SERVER) {
        set_reason(out, "%s", "a passive server: its time is charged to its callers' jobs");
    } else {
        set_reason(out, "%s", "no job steps");
    }
    return was != t->safe;
}

static void verdict(const struct scenario *s, uint32_t i, struct analysis_thread *out)
{
    (void)s;
    (void)i;
    if (out->bound == AN_INF)
        out->verdict = ANALYSIS_UNKNOWN;
    else if (!out->has_deadline || out->bound <= out->deadline)
        out->verdict = ANALYSIS_SCHEDULABLE;
    else
        out->verdict = ANALYSIS_UNSCHEDULABLE;
}

/*
 * One pending interrupt per line (SCENARIO-FORMAT.md "devices"): when a
 * job's interrupt arrives, at most the job before it is still in
 * progress (its own interrupt was delivered, the line is masked until its
 * irq_ack, later arrivals are lost). So a job ends within the time to do
 * two jobs from its arrival, whatever came before: a bound even where the
 * busy window of all arrivals has no end (floods, overruns), with the
 * interference of any window (carry-in included).
 */
static void two_jobs(const struct an_win *win, cycles_t b, struct an_busy *r)
{
    struct an_ctx *c = win->c;
    struct an_thread *t = &c->t[win->i];
    struct an_win w = *win;
    cycles_t need = an_mul(2, t->work), theta = 0, w2;
    w.crit = false;
    w.turn_need = need;
    w.turn_jobs = an_mul(2, an_wakes_per_job(t));
    w2 = an_throttled_fixed_point(&w, an_mul(2, b), need, !t->safe && c->mcs && !t->rr, 0, &theta);
    if (w2 < r->bound) {
        r->bound = w2;
        r->w = w2;
        r->q = 2;
        r->theta = theta;
        r->two = true;
        r->lose = r->lose || r->jobs == 0 || r->why != NULL || r->overload;
    }
}

/* The two-job bound of a phase (two_jobs), made when first read. */
struct an_two {
    const struct an_win *w;
    cycles_t b;
    bool made;
    struct an_busy r;
};

static const struct an_busy *two_made(struct an_two *x)
{
    if (!x->made) {
        memset(&x->r, 0, sizeof x->r);
        x->r.bound = AN_INF;
        two_jobs(x->w, x->b, &x->r);
        x->made = true;
    }
    return &x->r;
}

/* The busy window of the thread's own jobs; from its second job on it
 * gives up (no bound) once its bound passes the two-job one, since the
 * smaller is kept. Its first job's w(1) is never above that bound: each
 * term of the two jobs' fixed point is at least w(1)'s (twice the work
 * and blocking, carry-in rather than a critical instant, as many turns
 * or more), so its least fixed point is too. */
static void busy_window(const struct an_win *w, cycles_t b, bool throttles, struct an_two *two,
                        struct an_busy *r)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    cycles_t start = 0;
    memset(r, 0, sizeof *r);
    for (uint64_t q = 1;; q++) {
        cycles_t need = an_mul(q, t->work), theta;
        struct an_win v = *w;
        /* equal priorities' turns: each job's wake and server returns */
        v.turn_need = need;
        v.turn_jobs = an_mul(q, an_wakes_per_job(t));
        /* w(q) >= w(q - 1) + W + B: the base grows by that much */
        cycles_t wq = an_throttled_fixed_point(&v, an_mul(q, b), need, throttles, start, &theta);
        cycles_t dq = an_delta(&t->arr, q);
        if (wq == AN_INF) {
            r->bound = AN_INF;
            r->overload = true;
            return;
        }
        if (wq - (dq < wq ? dq : wq) >= r->bound || q == 1) {
            r->bound = wq - (dq < wq ? dq : wq);
            r->w = wq;
            r->q = q;
            r->theta = theta;
        }
        if (q > 1 && r->bound > two_made(two)->bound) {
            r->bound = AN_INF;
            r->overload = true;
            r->lose = true;
            return;
        }
        if (wq > an_delta(&t->arr, q + 2))
            r->lose = true;
        r->jobs = q;
        if (wq <= an_delta(&t->arr, q + 1))
            return;
        start = an_add(wq, an_add(t->work, b));
        if (q >= AN_MAX_JOBS) {
            r->bound = AN_INF;
            r->why = "the busy window holds more jobs than the analysis examines";
            return;
        }
    }
}

/* A phase's bound (`throttles`: with the context's own throttling): the
 * busy window, or the two-job bound if smaller. A window that ends with
 * its first job has the smaller (w(1), see busy_window): the two-job one
 * is then not made (the debug build makes it and checks). */
static void phase_bound(const struct an_win *w, cycles_t b, bool throttles, struct an_busy *r)
{
    struct an_two two = {w, b, false, {0}};
    busy_window(w, b, throttles, &two, r);
    if (r->bound == AN_INF)
        two_made(&two);
    assert(two.made || !two_made(&two)->two || two.r.bound >= r->bound);
    if (two.made && two.r.two && two.r.bound < r->bound)
        *r = two.r;
}

bool an_waits_unbounded(const struct an_ctx *c, cycles_t b, cycles_t sw, uint32_t rcv,
                        struct analysis_thread *out)
{
    if (b == AN_INF)
        set_reason(out, "%s", "unbounded waiting in a server: another client's request can "
                              "stop it for ever (a fault nobody answers, an unmodelled caller)");
    else if (sw == AN_INF)
        snprintf(out->reason, sizeof out->reason,
                 "its blocking send waits for %s to take the message, and one job of %s has "
                 "no bound at its level",
                 c->s->threads[rcv].name, c->s->threads[rcv].name);
    return b == AN_INF || sw == AN_INF;
}

/* The device thread's bound: first as if its context never runs out
 * (with the critical instant where it holds); if that cannot be shown,
 * with its throttling. */
static void device_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out)
{
    struct an_thread *t = &c->t[i];
    struct an_win w = {c, i, t->p_eff, false, false, 0, 0, 0, 0, false};
    struct an_busy r;
    uint32_t who, rcv;
    bool idle;
    cycles_t b = an_blocking(c, i, t->p_eff, &who, &idle), sw = an_send_wait(c, i, &rcv);
    if (an_waits_unbounded(c, b, sw, rcv, out)) {
        t->bound = AN_INF;
        return;
    }
    /* the wait for the receivers to take its messages is part of each
     * job's blocking: the CPU may idle or run lower threads meanwhile */
    b = an_add(b, sw);
    cycles_t unthrottled;
    w.crit = an_critical_instant(c, i, t->p_eff);
    w.idle = idle || sw > 0 || an_active_idles(c, i); /* a server it calls throttled */
    /* a client that may run out inside a server (no handler, inherit):
     * its refills can be delayed by the window's preemption too */
    w.anchors = idle ? 1 : 0;
    /* as if the context never ran out: the two-job bound caps the busy
     * window (the smaller of the two is kept, so the cap loses nothing) */
    t->safe = true;
    an_prep_hold(c); /* each phase's windows share their preparation */
    phase_bound(&w, b, false, &r);
    an_prep_drop(c);
    t->safe = r.bound != AN_INF && an_never_runs_out(&w, r.bound);
    unthrottled = r.bound;
    if (!t->safe && c->mcs && !t->rr) {
        w.crit = false;
        w.idle = true;
        an_prep_hold(c);
        phase_bound(&w, b, true, &r);
        cycles_t sb, sth;
        if (b == 0 && an_short_throttle(&w, &sb, &sth) && sb < r.bound) {
            memset(&r, 0, sizeof r);
            r.bound = r.w = sb;
            r.q = r.jobs = 1;
            r.theta = sth;
        }
        an_prep_drop(c);
    }
    t->bound = r.bound;
    out->may_throttle = !t->safe;
    out->may_lose_irq = r.lose || r.bound == AN_INF;
    if (r.bound == AN_INF) {
        if (r.overload && unthrottled != AN_INF)
            set_reason(out, "%s", AN_OWN_THROTTLING_UNBOUNDED);
        else if (r.overload)
            an_overload_reason(&w, out->reason, sizeof out->reason);
        else
            set_reason(out, "%s", r.why ? r.why : "no bound");
        return;
    }
    if (r.two)
        w.crit = false;
    w.turn_need = an_mul(r.q, t->work);
    w.turn_jobs = an_mul(r.q, an_wakes_per_job(t));
    an_keep_terms(&w, b, who, r.q, r.w, r.theta, r.two, out);
    out->worst_job = r.two ? 1 : r.q;
    out->later_release = r.w - r.bound;
    if (who != SCN_NONE && c->s->threads[who].criticality < c->s->threads[i].criticality)
        snprintf(out->reason, sizeof out->reason,
                 "depends on %s (less critical): its context can run out inside a server",
                 c->s->threads[who].name);
}

bool an_thread_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out)
{
    struct an_thread *t = &c->t[i];
    cycles_t old_bound = t->bound, old_lag = t->lag;
    bool old_safe = t->safe, changed, arrivals;
    const struct scn_thread *th = &c->s->threads[i];
    memset(out, 0, sizeof *out);
    out->thread = i;
    out->bound = AN_INF;
    out->has_deadline = th->has_deadline;
    out->deadline = th->deadline;
    if (c->mcs && !t->rr)
        t->safe = false; /* until this analysis proves it */
    if (t->has_sc && t->sporadic && !t->rr && c->mcs)
        t->lag = an_sporadic_lag(c, i);
    if ((t->shape == SHAPE_SERVER && !t->ppc_ntfn) || t->shape == SHAPE_HANDLER || !t->has_jobs)
        return no_jobs(c, i, out) || old_lag != t->lag;
    if (t->shape == SHAPE_OTHER && (t->background || t->bgjob)) {
        out->work = t->work;
        an_background_bound(c, i, out); /* analysis_bgjob.c */
        verdict(c->s, i, out);
        return old_lag != t->lag;
    }
    if (an_has_streams(t)) {
        /* several streams: arrivals from the senders' bounds as now known
         * (a called PD's notified runs: analysis_ppc.c adds its requests) */
        arrivals = an_serve_arrivals(c, i);
        an_serve_bound(c, i, out);
        if (out->verdict != ANALYSIS_NO_JOBS)
            verdict(c->s, i, out);
        return old_bound != t->bound || old_safe != t->safe || old_lag != t->lag || arrivals;
    }
    if (t->shape == SHAPE_OTHER) {
        set_reason(out, "program not modelled: %s", t->why_other);
        out->verdict = ANALYSIS_UNKNOWN;
        return old_lag != t->lag;
    }
    /* woken by a message: arrivals from the sender's bound as now known */
    arrivals = t->device == SCN_NONE && an_message_arrivals(c, i);
    out->work = t->work;
    device_bound(c, i, out);
    out->bound = t->bound;
    verdict(c->s, i, out);
    if (t->device == SCN_NONE && t->bound == AN_INF && t->arr.shift == AN_INF)
        snprintf(out->reason, sizeof out->reason,
                 "woken by %s, which has no bound: its releases are not bounded",
                 c->s->threads[t->sender].name);
    changed = old_bound != t->bound || old_safe != t->safe || old_lag != t->lag || arrivals;
    return changed;
}
