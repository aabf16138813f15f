/*
 * From a scenario to the analysis's model (analysis_int.h): which shape
 * each thread's program has, the work of one job, the servers it calls
 * (what they visit in turn: analysis_visits.c), the timeout policy of
 * each server, the longest kernel entry. A program
 * that is not one of the shapes docs/analysis.md lists is SHAPE_OTHER with
 * the rule it breaks: its jobs get no bound, and as an interferer only its
 * scheduling context can bound it.
 */
#include "analysis/analysis_int.h"

#include <stdlib.h>
#include <string.h>

/* The longest kernel entry of the cost model (KERNEL-SEMANTICS.md 8): one
 * entry decodes at most one system call or takes one interrupt, makes at
 * most two message transfers plus a fault message, one scheduling
 * decision, one timer programming, one classic tick. Every cost is
 * counted once, so this is an upper bound for any entry. */
static cycles_t longest_entry(const struct scn_costs *k)
{
    return k->entry + k->exit + k->syscall + k->irq + 3 * k->ipc + k->schedule +
           k->timer_program + k->tick;
}

void an_other(struct an_thread *t, const char *why)
{
    t->shape = SHAPE_OTHER;
    t->why_other = why;
    t->n_nest = 0; /* calls nothing the walks follow */
}

uint32_t an_server_on(const struct an_ctx *c, uint32_t ep)
{
    uint32_t found = SCN_NONE;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].shape == SHAPE_SERVER && c->t[i].endpoint == ep) {
            if (found != SCN_NONE)
                return SCN_NONE; /* two receivers: not modelled */
            found = i;
        }
    return found;
}

/* The single device signalling notification `n`, SCN_NONE if not exactly one. */
static uint32_t device_of(const struct scenario *s, uint32_t n)
{
    uint32_t found = SCN_NONE;
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (s->devices[d].notification == n) {
            if (found != SCN_NONE)
                return SCN_NONE;
            found = d;
        }
    return found;
}

/* Passive server: recv E; loop [compute | call ...; reply_recv E], its
 * calls to any servers, each call a request of that server. */
static void server_shape(const struct scenario *s, const struct scn_thread *th,
                         struct an_thread *t)
{
    const struct scn_step *p = an_step(s, th->prog_first), *loop;
    if (th->prog_count != 2 || p[0].kind != STEP_RECV || p[1].kind != STEP_LOOP) {
        an_other(t, "a passive thread that is not recv; loop [...; reply_recv]");
        return;
    }
    loop = &p[1];
    t->endpoint = p[0].object;
    for (uint32_t k = 0; k < loop->body_count; k++) {
        const struct scn_step *b = an_step(s, loop->body_first + k);
        bool last = k + 1 == loop->body_count;
        if (b->kind == STEP_COMPUTE && !last) {
            t->server_compute = an_add(t->server_compute, b->max);
        } else if (b->kind == STEP_CALL && !last && an_nest_call(t, b->object, 1, false)) {
            continue; /* an endpoint for now, a thread after link */
        } else if (!(last && b->kind == STEP_REPLY_RECV && b->object == t->endpoint)) {
            an_other(t, "a server loop other than compute/calls then reply_recv");
            return;
        }
    }
    t->shape = SHAPE_SERVER;
}

/* The job body: compute, call, signal, nbsend and send steps only (each
 * send is one kernel entry; the thread it wakes is modelled by
 * analysis_message.c, or is unmodelled and bounded as such; a blocking
 * send's wait is analysis_send.c's). */
static bool job_body(const struct scenario *s, const struct scn_step *job, struct an_thread *t)
{
    t->job_first = job->body_first;
    t->job_count = job->body_count;
    for (uint32_t k = 0; k < job->body_count; k++) {
        const struct scn_step *b = an_step(s, job->body_first + k);
        if (b->kind == STEP_COMPUTE) {
            t->compute_max = an_add(t->compute_max, b->max);
            t->compute_min = an_add(t->compute_min, b->min);
        } else if (b->kind == STEP_CALL && t->n_visits < AN_MAX_CALLS) {
            t->visits[t->n_visits++] = b->object; /* endpoint until linked */
        } else if (b->kind == STEP_SIGNAL || b->kind == STEP_NBSEND || b->kind == STEP_SEND) {
            t->sends++;
            t->bsends += b->kind == STEP_SEND;
        } else {
            return false;
        }
    }
    return true;
}

/* loop [wait N; job [...]] or loop [recv E; job [...]]: woken by a
 * message if analysis_message.c finds its one sender; until then other. */
static void message_shape(const struct scenario *s, const struct scn_step *b, struct an_thread *t)
{
    an_other(t, "woken by a message that no modelled thread's job sends (one signal or nbsend)");
    if (!job_body(s, &b[1], t)) {
        an_other(t, "a job with steps other than compute, call, signal, nbsend and send");
        return;
    }
    t->msg_object = b[0].object;
    t->by_endpoint = b[0].kind == STEP_RECV;
    t->serve_candidate = true; /* several senders: analysis_serve_link.c */
}

/* A Microkit driver's event loop (issue 17): serve on notification N only
 * (no endpoint), one handler, for the bit of D, the only device of N:
 * [compute / call ...; irq_ack D]. Each handler run is one job released
 * by D's interrupt: the device thread loop [wait N; job [...]; irq_ack D],
 * its acknowledgement inside the job (the work counts its entry alike). */
static void serve_shape(const struct scenario *s, uint32_t th, const struct scn_step *sv,
                        struct an_thread *t)
{
    const struct scn_step *h, *ack;
    struct scn_step job;
    if (an_serve_handlers(s, th, &h) != 1 || sv->ntfn == SCN_NONE ||
        h->kind != STEP_ON_NOTIFIED || h->body_count == 0) {
        an_other(t, "a serve loop with an endpoint, or a handler with a call or a wait");
        an_serve_candidate(s, th, t);
        return;
    }
    ack = an_step(s, h->body_first + h->body_count - 1);
    t->device = device_of(s, sv->ntfn);
    if (t->device == SCN_NONE || ack->kind != STEP_IRQ_ACK || ack->object != t->device ||
        h->count > SCN_MAX_BADGE_BIT || s->devices[t->device].badge != 1ull << h->count) {
        an_other(t, "a serve handler with a call or a wait");
        t->device = SCN_NONE;
        an_serve_candidate(s, th, t);
        return;
    }
    t->wait_ntfn = sv->ntfn;
    job = *h;
    job.body_count--;
    if (!job_body(s, &job, t)) {
        an_other(t, "a serve handler with steps other than compute, call, signal, nbsend and send");
        return;
    }
    t->shape = SHAPE_DEVICE;
    t->serve_candidate = true; /* if its notification is signalled too */
}

/* A background loop's one job step: the loop's steps are one `job` and
 * compute, call, signal, nbsend, send and yield steps outside it (none
 * that waits for a message); NULL if not. *plain: the loop is [job] or
 * [job, yield] (the equal-priority turns of analysis_equal.c count one
 * job, and two entries with the yield, per iteration). */
static const struct scn_step *background_job(const struct scenario *s, const struct scn_step *loop,
                                             bool *plain)
{
    const struct scn_step *job = NULL;
    for (uint32_t k = 0; k < loop->body_count; k++) {
        const struct scn_step *b = an_step(s, loop->body_first + k);
        if (b->kind == STEP_JOB && job == NULL)
            job = b;
        else if (b->kind != STEP_COMPUTE && b->kind != STEP_CALL && b->kind != STEP_SIGNAL &&
                 b->kind != STEP_NBSEND && b->kind != STEP_SEND && b->kind != STEP_YIELD)
            return NULL;
    }
    *plain = job == an_step(s, loop->body_first) &&
             (loop->body_count == 1 ||
              (loop->body_count == 2 && an_step(s, loop->body_first + 1)->kind == STEP_YIELD));
    return job;
}

/* A background thread: loop [job [compute / call / signal / nbsend / send
 * ...]], jobs back to back, each
 * released when its job step begins (SCENARIO-FORMAT.md "Jobs"), so one
 * at a time; or loop [job [...], yield], each job released when the thread
 * runs again after the yield, or at the refill it waited for (a budget
 * < period under mcs), with nothing of its own pending either. Steps
 * outside the job (compute, call, signal, nbsend, send, yield) run
 * between two jobs: the next is released when its job step begins (a
 * compute or system call in between drops the yield's time), still with
 * nothing of its own pending. A `start` only delays the loop: the first
 * job is released at the start (sim/uworld.c), the thread ready from then
 * on. Its own jobs get a bound (analysis_bgjob.c); as an interferer it is
 * always ready, and only its context bounds it (SHAPE_OTHER). */
static void background_shape(const struct scenario *s, const struct scn_step *job, bool plain,
                             struct an_thread *t)
{
    bool compute_only = true;
    an_other(t, "a background loop [job] (always ready)");
    for (uint32_t k = 0; k < job->body_count; k++)
        compute_only &= an_step(s, job->body_first + k)->kind == STEP_COMPUTE;
    if (!job_body(s, job, t))
        return;
    /* calls, sends or steps outside the job: its own jobs are
     * analysis_bgjob.c's, once its calls are known (an_bgjob_model) */
    t->background = compute_only && plain;
    t->bgjob = !t->background;
    t->work = t->compute_max;
}

/* Device thread: loop [wait N; job [...]; irq_ack D], D the only device of N. */
static void device_shape(const struct scenario *s, const struct scn_thread *th,
                         struct an_thread *t)
{
    const struct scn_step *loop = an_step(s, th->prog_first), *b, *job;
    bool plain;
    if (th->prog_count == 1 && loop->kind == STEP_SERVE) {
        serve_shape(s, (uint32_t)(th - s->threads), loop, t);
        return;
    }
    if (th->prog_count > 1 && loop[th->prog_count - 1].kind == STEP_SERVE) {
        an_other(t, "init steps before a serve loop other than one job of compute, call, signal "
                    "and nbsend");
        an_serve_candidate(s, (uint32_t)(th - s->threads), t); /* analysis_init.c */
        return;
    }
    if (th->prog_count == 1 && loop->kind == STEP_LOOP && !th->passive &&
        (job = background_job(s, loop, &plain)) != NULL) {
        background_shape(s, job, plain, t);
        t->yields = plain && loop->body_count == 2;
        return;
    }
    if (th->prog_count == 1 && loop->kind == STEP_LOOP && loop->body_count == 2 &&
        !th->passive && th->start == 0) {
        b = an_step(s, loop->body_first);
        if ((b[0].kind == STEP_WAIT || b[0].kind == STEP_RECV) && b[1].kind == STEP_JOB) {
            message_shape(s, b, t);
            return;
        }
    }
    if (th->prog_count != 1 || loop->kind != STEP_LOOP || loop->body_count != 3) {
        an_other(t, "not loop [wait; job [...]; irq_ack]");
        return;
    }
    b = an_step(s, loop->body_first);
    if (b[0].kind != STEP_WAIT || b[1].kind != STEP_JOB || b[2].kind != STEP_IRQ_ACK) {
        an_other(t, "not loop [wait; job [...]; irq_ack]");
        return;
    }
    t->device = device_of(s, b[0].object);
    t->wait_ntfn = b[0].object;
    if (!job_body(s, &b[1], t)) {
        an_other(t, "a job with steps other than compute, call, signal, nbsend and send");
        return;
    }
    /* woken by several devices, or signalled too: analysis_serve_link.c */
    t->serve_candidate = true;
    if (t->device == SCN_NONE || t->device != b[2].object) {
        an_other(t, "its notification is not signalled by exactly the device it acknowledges");
        t->device = SCN_NONE;
        t->msg_object = b[0].object;
        return;
    }
    t->shape = SHAPE_DEVICE;
}

/* True if the steps (bodies included) have a step of `kind`. */
static bool has_step(const struct scenario *s, uint32_t first, uint32_t count,
                     enum scn_step_kind kind)
{
    for (uint32_t k = 0; k < count; k++) {
        const struct scn_step *b = an_step(s, first + k);
        if (b->kind == kind)
            return true;
        if ((b->kind == STEP_LOOP || b->kind == STEP_REPEAT || b->kind == STEP_JOB ||
             b->kind == STEP_SERVE || b->kind == STEP_ON_NOTIFIED ||
             b->kind == STEP_ON_PROTECTED) &&
            has_step(s, b->body_first, b->body_count, kind))
            return true;
    }
    return false;
}

uint32_t an_passive_ntfn(const struct scenario *s, const struct scn_thread *th)
{
    const struct scn_step *sv;
    uint32_t n = SCN_NONE;
    if (!th->passive || th->prog_count != 1)
        return SCN_NONE;
    sv = an_step(s, th->prog_first);
    if (sv->kind == STEP_LOOP && sv->body_count == 3 &&
        an_step(s, sv->body_first)->kind == STEP_WAIT)
        n = an_step(s, sv->body_first)->object; /* loop [wait N; job; irq_ack] */
    else if (sv->kind == STEP_SERVE && (sv->object == SCN_NONE || an_ppc_notified_only(s, th)))
        n = sv->ntfn; /* an endpoint nothing calls: as if it had none */
    return n != SCN_NONE && s->notifications[n].sc.present ? n : SCN_NONE;
}

/* Its context: its own, or for a passive serve loop on a notification with
 * a context of its own, that one (seL4 maybeDonateSchedContext: every
 * handler runs on it, maybeReturnSchedContext gives it back at the next
 * wait; nothing else can hold it, the loop being its only waiter). */
static void context_of(const struct an_ctx *c, const struct scn_thread *th, struct an_thread *t)
{
    uint32_t n = an_passive_ntfn(c->s, th);
    const struct scn_context *sc = n != SCN_NONE ? &c->s->notifications[n].sc : &th->sc;
    t->prio = th->priority;
    t->has_sc = sc->present && (!th->passive || n != SCN_NONE);
    t->budget = sc->budget;
    t->period = sc->period;
    t->rr = t->has_sc && sc->budget == sc->period;
    t->sporadic = sc->sporadic;
    t->refills = 2 + sc->extra_refills;
}

static enum an_policy policy_of(const struct scn_step *h)
{
    switch (h->timeouts.action) {
    case TIMEOUT_RESET:
        return POL_RESET;
    case TIMEOUT_EMERGENCY_BUDGET:
        return POL_EMERGENCY;
    case TIMEOUT_INHERIT:
        return POL_INHERIT;
    }
    return POL_NONE;
}

/* A server's handler: the thread serving its timeout endpoint. */
static void link_handler(const struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    struct an_thread *t = &c->t[i];
    t->handler = SCN_NONE;
    t->policy = POL_NONE;
    if (s->threads[i].timeout_endpoint == SCN_NONE)
        return;
    for (uint32_t h = 0; h < c->n; h++) {
        const struct scn_step *p = an_step(s, s->threads[h].prog_first);
        if (c->t[h].shape == SHAPE_HANDLER &&
            p->timeouts.endpoint == s->threads[i].timeout_endpoint) {
            t->handler = h;
            t->policy = policy_of(p);
            t->grant = p->timeouts.emergency;
            return;
        }
    }
}

/* A job's calls to active servers (analysis_active.c) leave its visits:
 * each is one kernel entry and one wake of the job, the request the
 * server's own work; the caller must be below the server. */
static void active_calls(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    uint32_t kept = 0;
    if (t->shape != SHAPE_DEVICE && t->msg_object == SCN_NONE)
        return;
    for (uint32_t v = 0; v < t->n_visits; v++) {
        uint32_t sv = an_active_on(c, t->visits[v]);
        if (sv == SCN_NONE) {
            t->visits[kept++] = t->visits[v];
        } else if (c->t[sv].prio <= t->prio || sv == i) {
            an_other(t, "calls an active server not above its priority");
            t->msg_object = SCN_NONE;
            return;
        } else {
            t->acalls++;
        }
    }
    t->n_visits = kept;
}

/* Endpoints to server threads; clients of unmodelled endpoints are OTHER. */
static void link_calls(struct an_ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        struct an_thread *t = &c->t[i];
        for (uint32_t x = 0; t->shape == SHAPE_SERVER && x < t->n_nest; x++)
            if ((t->nest[x] = an_server_on(c, t->nest[x])) == SCN_NONE) {
                an_other(t, "calls an endpoint no modelled server receives on");
                t->n_nest = 0;
            }
    }
    for (uint32_t i = 0; i < c->n; i++) {
        struct an_thread *t = &c->t[i];
        bool linked;
        active_calls(c, i);
        linked = t->shape == SHAPE_DEVICE || t->msg_object != SCN_NONE;
        for (uint32_t v = 0; linked && v < t->n_visits; v++)
            if ((t->visits[v] = an_server_on(c, t->visits[v])) == SCN_NONE ||
                c->t[t->visits[v]].shape != SHAPE_SERVER) {
                an_other(t, "calls an endpoint no modelled server receives on");
                t->msg_object = SCN_NONE;
                linked = false;
            }
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].shape == SHAPE_SERVER)
            link_handler(c, i);
}

cycles_t an_request(const struct an_ctx *c, uint32_t k)
{
    cycles_t r = 0;
    uint32_t n;
    const struct an_reach *x = an_reach(c, k, &n);
    for (uint32_t v = 0; v < n; v++)
        r = an_add(r, an_mul(x[v].m, an_add(c->t[x[v].k].server_compute, an_mul(2, c->e_max))));
    return r;
}

/* W and p_eff of a device thread, once servers are linked. */
static void job_work(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    /* wait (or recv), irq_ack if woken by a device, each signal or nbsend */
    t->syscalls = (t->device != SCN_NONE ? 2 : 1) + t->sends + t->acalls;
    t->work = an_add(t->compute_max, an_mul(t->syscalls, c->e_max));
    t->p_eff = t->prio;
    for (uint32_t v = 0; v < t->n_visits; v++) {
        t->work = an_add(t->work, an_request(c, t->visits[v]));
        t->p_eff = an_reach_low(c, t->visits[v], t->p_eff);
    }
}

int an_model(struct an_ctx *c)
{
    const struct scenario *s = c->s;
    c->e_max = longest_entry(&s->costs);
    c->min_budget = scenario_min_budget(s);
    if (an_arrival_tables(c) != 0)
        return -1;
    for (uint32_t i = 0; i < c->n; i++) {
        const struct scn_thread *th = &s->threads[i];
        struct an_thread *t = &c->t[i];
        memset(t, 0, sizeof *t);
        t->bound = AN_INF;
        t->handler = SCN_NONE;
        t->device = SCN_NONE;
        t->sender = SCN_NONE;
        t->msg_object = SCN_NONE;
        t->wait_ntfn = SCN_NONE;
        context_of(c, th, t);
        /* each run of a serve loop's handler is a job */
        t->has_jobs = has_step(s, th->prog_first, th->prog_count, STEP_JOB) ||
                      has_step(s, th->prog_first, th->prog_count, STEP_ON_NOTIFIED) ||
                      has_step(s, th->prog_first, th->prog_count, STEP_ON_PROTECTED);
        t->may_call = has_step(s, th->prog_first, th->prog_count, STEP_CALL);
        if (th->prog_count == 1 && an_step(s, th->prog_first)->kind == STEP_HANDLE_TIMEOUTS)
            t->shape = SHAPE_HANDLER;
        else if (th->passive && th->prog_count == 1 &&
                 an_step(s, th->prog_first)->kind == STEP_SERVE &&
                 an_step(s, th->prog_first)->object != SCN_NONE && !an_ppc_notified_only(s, th))
            an_ppc_shape(c, i, t); /* protected procedures (analysis_ppc.c) */
        else if (an_passive_ntfn(s, th) != SCN_NONE)
            device_shape(s, th, t); /* on its notification's context, as if its own */
        else if (th->passive)
            server_shape(s, th, t);
        else if (th->timeout_endpoint != SCN_NONE)
            an_other(t, "a thread with a context and a timeout endpoint");
        else if (th->prog_count == 1 && an_step(s, th->prog_first)->kind == STEP_SERVE &&
                 an_step(s, th->prog_first)->object != SCN_NONE)
            an_active_shape(c, i, t); /* an active server (analysis_active.c) */
        else
            device_shape(s, th, t);
    }
    for (uint32_t i = 0; i < c->n; i++)
        an_background_shape(c, i); /* a loop whose sends wake others */
    link_calls(c);
    if (an_reach_build(c) != 0 || an_message_link(c) != 0)
        return -1;
    an_other_calls(c);
    for (uint32_t i = 0; i < c->n; i++)
        c->n_serve += an_has_streams(&c->t[i]);
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].shape == SHAPE_DEVICE) {
            job_work(c, i);
            if (c->t[i].device != SCN_NONE)
                c->t[i].arr = c->dev[c->t[i].device];
        }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].shape == SHAPE_DEVICE && c->t[i].device == SCN_NONE)
            an_message_arrivals(c, i); /* nothing known of the senders yet: no bound */
    return an_derive_visits(c);
}
