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

#include <stdio.h>
#include <string.h>

#define AN_MAX_JOBS 4096u /* jobs of one busy window examined at most */

/* ------------------------------------------------------------- budgets */

/* What a context loses besides its jobs' work: MIN_BUDGET (a remainder
 * below it is folded into the next refill, a system call with less is
 * refused, B12) twice, one kernel entry, and for a context that may get an
 * emergency grant the refills the reconfiguration moves (sim/timeouts.c:
 * refill_update schedules the rest one period later). */
static cycles_t margin(const struct an_ctx *c, uint32_t k)
{
    const struct an_thread *t = &c->t[k];
    cycles_t m = an_add(an_mul(2, c->min_budget), c->e_max);
    if (an_visits_policy(c, k, POL_EMERGENCY))
        m = an_add(m, t->budget);
    return m;
}

/*
 * Theta: the longest thread k's context can keep it throttled while it
 * needs `need` cycles. At a throttle at x the refills not yet due hold at
 * least b - m and lie, disjoint, in (x, x + T]: each refill ends at most T
 * after the consumption it replaces ended (seL4 refill_budget_check and
 * schedule_used; also after a full list's merge), so the throttled time
 * in (x, x + T] is at most c = T - b + m, and before the next throttle the
 * context runs at least b - m - MIN_BUDGET. Hence at most
 * 1 + floor(need / (b - m - MIN_BUDGET)) episodes of c.
 */
cycles_t an_throttle_time(const struct an_ctx *c, uint32_t k, cycles_t need)
{
    const struct an_thread *t = &c->t[k];
    cycles_t m = margin(c, k), run;
    if (!c->mcs || !t->has_sc || t->rr)
        return 0;
    if (need == AN_INF || t->budget <= an_add(m, c->min_budget))
        return AN_INF;
    run = t->budget - m - c->min_budget;
    return an_mul(an_add(1, need / run), t->period - t->budget + m);
}

/* ------------------------------------------------------------ blocking */

/* How long handler h takes to answer one fault for a job at `level`. */
static cycles_t handler_latency(const struct an_ctx *c, uint32_t h, uint32_t level)
{
    const struct an_thread *t = &c->t[h];
    if (t->prio < level || !(t->rr || t->safe))
        return AN_INF;
    return an_mul(AN_FAULT_ENTRIES, c->e_max);
}

/* The wait, beyond the request's own execution, behind client k's request
 * on server s whose context runs out: by the policy of the server where it
 * runs out (issue 15: each policy its own term). */
static cycles_t policy_wait(const struct an_ctx *c, uint32_t k, uint32_t s, uint32_t level,
                            uint32_t self)
{
    cycles_t r = an_request(c, s), worst = 0, w;
    for (uint32_t d = 0; s != SCN_NONE && d <= c->n; s = c->t[s].nested, d++) {
        const struct an_thread *sv = &c->t[s];
        if (sv->handler == SCN_NONE && c->s->threads[s].timeout_endpoint != SCN_NONE)
            return AN_INF; /* a fault nobody answers: the server never resumes */
        switch (sv->handler == SCN_NONE ? POL_NONE : sv->policy) {
        case POL_NONE: /* the server waits for k's refills */
            w = an_throttle_time(c, k, r);
            break;
        case POL_RESET: /* the request is aborted after the handler ran */
            w = handler_latency(c, sv->handler, level);
            break;
        case POL_EMERGENCY: /* a grant; a second fault is handled as reset */
            w = an_mul(2, handler_latency(c, sv->handler, level));
            break;
        case POL_INHERIT: /* the highest queued client pays; if its context
                             runs out too, the server waits for its refills */
            w = handler_latency(c, sv->handler, level);
            for (uint32_t p = 0; p < c->n; p++)
                if (p != k && p != self && c->t[p].shape == SHAPE_DEVICE && an_visits(c, p, s) &&
                    !c->t[p].safe)
                    w = an_add(w, an_throttle_time(c, p, r));
            break;
        default:
            w = AN_INF;
        }
        if (w > worst)
            worst = w;
    }
    return worst;
}

/* B: for each server thread i visits, the longest wait behind another
 * client's request whose context can run out (*who: the client). */
static cycles_t blocking(const struct an_ctx *c, uint32_t i, uint32_t level, uint32_t *who)
{
    const struct an_thread *t = &c->t[i];
    cycles_t b = 0;
    *who = SCN_NONE;
    if (!c->mcs)
        return 0; /* classic: no budgets run out; queued requests are interference */
    for (uint32_t v = 0; v < t->n_visits; v++)
        for (uint32_t s = t->visits[v], d = 0; s != SCN_NONE && d <= c->n;
             s = c->t[s].nested, d++) {
            cycles_t worst = 0, w;
            for (uint32_t k = 0; k < c->n; k++) {
                const struct an_thread *o = &c->t[k];
                if (k == i)
                    continue;
                if (o->shape == SHAPE_OTHER && o->may_call)
                    return AN_INF; /* its requests are not modelled */
                if (o->shape != SHAPE_DEVICE || !an_visits(c, k, s) || o->rr || o->safe)
                    continue;
                w = policy_wait(c, k, s, level, i);
                if (w > worst) {
                    worst = w;
                    *who = k;
                }
            }
            b = an_add(b, worst);
        }
    return b;
}

/* ----------------------------------------------------------- the window */

static bool crit_ok(const struct an_ctx *c, uint32_t j)
{
    const struct an_thread *t = &c->t[j];
    return t->shape == SHAPE_DEVICE && t->n_visits == 0 && (!c->mcs || t->rr || t->safe);
}

/* The critical instant holds when nothing at the level can carry work in
 * or suspend: every such thread is a device thread without calls that
 * never runs out of budget, and no lower thread's request reaches it. */
static bool critical_instant(const struct an_ctx *c, uint32_t i, uint32_t level)
{
    if (c->t[i].n_visits > 0)
        return false;
    for (uint32_t j = 0; j < c->n; j++) {
        const struct an_thread *t = &c->t[j];
        if (j == i || t->shape == SHAPE_SERVER)
            continue;
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

/* The result of one busy-window analysis. */
struct an_busy {
    cycles_t bound;  /* max over q of w(q) - delta(q) */
    cycles_t w;      /* w(q) of the worst q */
    uint64_t q;      /* the worst job of the window */
    uint64_t jobs;   /* jobs in the window */
    bool lose;       /* a third arrival can come before a job's irq_ack */
    const char *why; /* no bound: why */
};

static void busy_window(const struct an_win *w, cycles_t b, bool throttles, struct an_busy *r)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    memset(r, 0, sizeof *r);
    for (uint64_t q = 1;; q++) {
        cycles_t need = an_mul(q, t->work);
        cycles_t theta = throttles ? an_throttle_time(c, w->i, need) : 0;
        cycles_t wq = an_fixed_point(w, an_add(an_add(need, an_mul(q, b)), theta));
        cycles_t dq = an_delta(&t->arr, q);
        if (wq == AN_INF) {
            r->bound = AN_INF;
            r->why = "overload: the busy window has no end below the horizon";
            return;
        }
        if (wq - (dq < wq ? dq : wq) >= r->bound || q == 1) {
            r->bound = wq - (dq < wq ? dq : wq);
            r->w = wq;
            r->q = q;
        }
        if (wq > an_delta(&t->arr, q + 2))
            r->lose = true;
        r->jobs = q;
        if (wq <= an_delta(&t->arr, q + 1))
            return;
        if (q >= AN_MAX_JOBS) {
            r->bound = AN_INF;
            r->why = "the busy window holds more jobs than the analysis examines";
            return;
        }
    }
}

/* ---------------------------------------------------------- own budget */

/* Kernel entries that can preempt (switch away from) a job of i in d:
 * each makes its context a new refill (constant bandwidth, B8). */
static uint64_t preemptions(const struct an_win *w, cycles_t d)
{
    const struct an_ctx *c = w->c;
    uint64_t n = 0;
    for (uint32_t j = 0; j < c->n; j++) {
        const struct an_thread *t = &c->t[j];
        if (j == w->i || t->shape == SHAPE_SERVER)
            continue;
        if (t->shape == SHAPE_HANDLER && t->prio >= w->level)
            n = an_add(n, an_faults(c, j, d));
        else if (t->shape == SHAPE_OTHER && t->prio >= w->level)
            return AN_INF;
        else if (t->shape == SHAPE_DEVICE &&
                 (t->prio >= w->level || an_request_reaches(c, j, w->level))) {
            n = an_add(n, an_add(an_eta(&t->arr, d), 2));
            if (t->has_sc && !t->rr && !t->safe)
                n = an_add(n, an_mul(3u * t->refills, an_add(an_ceil_div(d, t->period), 1)));
        }
    }
    return n;
}

/* Requests of others that i's context may pay for (inherit) in d. */
static cycles_t payments(const struct an_ctx *c, uint32_t i, cycles_t d)
{
    cycles_t p = 0;
    for (uint32_t s = 0; s < c->n; s++) {
        if (c->t[s].shape != SHAPE_SERVER || c->t[s].policy != POL_INHERIT ||
            c->t[s].handler == SCN_NONE || !an_visits(c, i, s))
            continue;
        for (uint32_t k = 0; k < c->n; k++) {
            const struct an_thread *o = &c->t[k];
            if (k == i || !an_visits(c, k, s))
                continue;
            if (o->shape != SHAPE_DEVICE)
                return AN_INF;
            if (!o->safe && !o->rr)
                p = an_add(p, an_mul(an_add(an_eta(&o->arr, d), 2), an_request(c, s)));
        }
    }
    return p;
}

/*
 * Is i's context proven never to run out, given jobs with bound r? Then
 * the refills not yet due at any time x are consumption of (x - T, x]
 * (no refill list overflow: the refills a window needs fit in the list),
 * and that consumption stays below b - m: one job per period takes W' and
 * the previous job at most its own W' or the time it was kept from
 * running; more frequent jobs take W' each.
 */
static bool never_runs_out(const struct an_win *w, cycles_t r)
{
    const struct an_ctx *c = w->c;
    const struct an_thread *t = &c->t[w->i];
    cycles_t own, cons, x, per_job, jobs;
    if (!c->mcs || t->rr)
        return true;
    own = an_add(an_add(t->work, an_kernel(w, r)), payments(c, w->i, r));
    per_job = an_add(1, t->n_visits);
    if (!t->sporadic)
        per_job = an_add(per_job, preemptions(w, r));
    jobs = an_eta(&t->arr, an_add(t->period, r));
    if (an_mul(jobs, per_job) > t->refills - 1)
        return false; /* the list may overflow and delay a refill */
    x = r > t->work ? r - t->work : 0;
    if (an_delta(&t->arr, 2) >= t->period && r <= an_delta(&t->arr, 2))
        cons = an_add(own, own < x ? own : x);
    else
        cons = an_mul(jobs, own);
    return an_add(cons, margin(c, w->i)) <= t->budget;
}

/* A handler's context runs out only if the faults of two periods need
 * more than its budget. */
static bool handler_never_runs_out(const struct an_ctx *c, uint32_t h)
{
    const struct an_thread *t = &c->t[h];
    if (!c->mcs || t->rr)
        return true;
    cycles_t need = an_mul(an_faults(c, h, an_mul(2, t->period)),
                           an_mul(AN_FAULT_ENTRIES, c->e_max));
    return an_add(need, margin(c, h)) <= t->budget;
}

/* How far a sporadic context's refills can lag behind now: the busy
 * period at its priority with the context as a periodic task (b, T);
 * within it the thread has been starved of at most that much. */
static cycles_t sporadic_lag(const struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    struct an_win w = {(struct an_ctx *)c, i, t->prio, false};
    cycles_t l = t->budget, next;
    while (l <= c->horizon) {
        next = an_add(an_mul(an_ceil_div(l, t->period), t->budget), an_all_interference(&w, l));
        if (next == l)
            return l;
        l = next;
    }
    return AN_INF;
}

/* ------------------------------------------------------------- results */

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
        t->safe = handler_never_runs_out(c, i);
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

/* The device thread's bound: first as if its context never runs out
 * (with the critical instant where it holds); if that cannot be shown,
 * with its throttling. */
static void device_bound(struct an_ctx *c, uint32_t i, struct analysis_thread *out)
{
    struct an_thread *t = &c->t[i];
    struct an_win w = {c, i, t->p_eff, false};
    struct an_busy r;
    uint32_t who;
    cycles_t b = blocking(c, i, t->p_eff, &who);
    if (b == AN_INF) {
        t->bound = AN_INF;
        set_reason(out, "%s", "unbounded waiting in a server: another client's request can "
                              "stop it for ever (a fault nobody answers, an unmodelled caller)");
        return;
    }
    w.crit = critical_instant(c, i, t->p_eff);
    busy_window(&w, b, false, &r);
    t->safe = r.bound != AN_INF && never_runs_out(&w, r.bound);
    if (!t->safe && c->mcs && !t->rr) {
        w.crit = false;
        busy_window(&w, b, true, &r);
    }
    t->bound = r.bound;
    out->may_throttle = !t->safe;
    out->may_lose_irq = r.lose || r.bound == AN_INF;
    if (r.bound == AN_INF) {
        set_reason(out, "%s", r.why ? r.why : "no bound");
        return;
    }
    an_terms(&w, b, who, r.q, r.w, !t->safe, out);
    out->worst_job = r.q;
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
    bool old_safe = t->safe, changed;
    const struct scn_thread *th = &c->s->threads[i];
    memset(out, 0, sizeof *out);
    out->thread = i;
    out->bound = AN_INF;
    out->has_deadline = th->has_deadline;
    out->deadline = th->deadline;
    if (t->has_sc && t->sporadic && !t->rr && c->mcs)
        t->lag = sporadic_lag(c, i);
    if (t->shape == SHAPE_SERVER || t->shape == SHAPE_HANDLER || !t->has_jobs)
        return no_jobs(c, i, out) || old_lag != t->lag;
    if (t->shape == SHAPE_OTHER) {
        set_reason(out, "program not modelled: %s", t->why_other);
        out->verdict = ANALYSIS_UNKNOWN;
        return old_lag != t->lag;
    }
    out->work = t->work;
    device_bound(c, i, out);
    out->bound = t->bound;
    verdict(c->s, i, out);
    changed = old_bound != t->bound || old_safe != t->safe || old_lag != t->lag;
    return changed;
}
