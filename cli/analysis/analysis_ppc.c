/*
 * Protected procedures (docs/analysis.md, "Protected procedures"): a
 * Microkit PD serving calls is a thread whose program is a `serve` step
 * with an endpoint. A passive one runs each call's `protected` handler on
 * the caller's donated context at its own priority, and the next receive
 * (seL4_ReplyRecv) answers it: the passive server of `recv E; loop [...;
 * reply_recv E]` (SHAPE_SERVER), its request the longest handler. Its
 * notified handlers never run when nothing signals its notification (no
 * device of it fires, no signal step names it). When it is signalled and
 * no step calls its endpoint, its protected handlers never run: it is the
 * passive serve loop on its notification's context (an_ppc_notified_only,
 * analysis_model.c's an_passive_ntfn). Signalled and called, its notified
 * handlers are job streams on the notification's context (notified_why,
 * analysis_serve_link.c), and it stays a server for its callers.
 *
 * Each handler run is a job of the server (SCENARIO-FORMAT.md "Event
 * loops": released when the call was sent, completed at the handler's
 * last step, before the reply). The call is a step of a caller's job, and
 * the handler ends before the reply returns to that job, so the server's
 * job lies inside the caller's: its response is at most the caller's
 * bound less the caller's least compute (done before the call or after
 * the reply: a device or message-woken thread's compute_min). Nested
 * calls alike: the job of a server called by a server lies
 * inside the outer request, inside the first caller's job.
 */
#include "analysis/analysis_int.h"

#include <stdio.h>
#include <string.h>

/* Nothing but this serve loop uses endpoint ep: no other receiver, no
 * send or nbsend (only calls reach it), no timeout faults. */
bool an_endpoint_own(const struct scenario *s, uint32_t ep)
{
    uint32_t serves = 0;
    for (uint32_t k = 0; k < s->n_steps; k++) {
        const struct scn_step *b = an_step(s, k);
        serves += b->kind == STEP_SERVE && b->object == ep;
        if (b->kind == STEP_HANDLE_TIMEOUTS && b->timeouts.endpoint == ep)
            return false;
    }
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (s->threads[k].timeout_endpoint == ep)
            return false;
    return serves == 1 && an_steps_using(s, STEP_RECV, ep) == 0 &&
           an_steps_using(s, STEP_REPLY_RECV, ep) == 0 && an_steps_using(s, STEP_SEND, ep) == 0 &&
           an_steps_using(s, STEP_NBSEND, ep) == 0;
}

/* Nothing signals notification n: no device of it fires, no signal step
 * names it (its notified handlers never run). */
static bool never_signalled(const struct scenario *s, uint32_t n)
{
    if (n == SCN_NONE)
        return true;
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (an_device_fires(s, d, n))
            return false;
    return an_steps_using(s, STEP_SIGNAL, n) == 0;
}

/* One protected handler: compute, calls (into *calls: the endpoints
 * and how many times each, as for a recv server), signal and nbsend (one
 * kernel entry each); its request time without the nested servers' into
 * *r; false if it has another step or too many calls. */
static bool handler(const struct an_ctx *c, const struct scn_step *h, cycles_t *r,
                    struct an_thread *calls)
{
    *r = 0;
    calls->n_nest = 0;
    for (uint32_t k = 0; k < h->body_count; k++) {
        const struct scn_step *b = an_step(c->s, h->body_first + k);
        if (b->kind == STEP_COMPUTE)
            *r = an_add(*r, b->max);
        else if (b->kind == STEP_SIGNAL || b->kind == STEP_NBSEND)
            *r = an_add(*r, c->e_max);
        else if (b->kind != STEP_CALL || !an_nest_call(calls, b->object, 1, false))
            return false;
    }
    return true;
}

/*
 * Why the notified handlers of a called passive PD whose notification is
 * signalled are not modelled (NULL: they are). Each must be compute,
 * signal, nbsend and irq_ack steps, every irq_ack of a device of the
 * handler's own bit: then whenever the PD is in its receive with nothing
 * in its word and no batch in progress, no interrupt is held for a later
 * delivery, so from the last such instant before a run's release the PD
 * takes no call (seL4 receiveIPC takes a pending signal first) and runs
 * at most the request in progress then (docs/analysis.md, "Called and
 * signalled"). No call: a notified run never waits in another server.
 * Under mcs its notification must have a round-robin context (Microkit's
 * default budget = period): a run on it is never throttled, so a caller
 * queued behind it waits only while it runs.
 */
static const char *notified_why(const struct an_ctx *c, const struct scn_step *sv)
{
    const struct scenario *s = c->s;
    const struct scn_context *sc = &s->notifications[sv->ntfn].sc;
    if (c->mcs && (!sc->present || sc->budget != sc->period))
        return "a called passive PD whose signalled notification has no round-robin context "
               "(notified handlers on a context that may run out)";
    for (uint32_t k = 0; k < sv->body_count; k++) {
        const struct scn_step *h = an_step(s, sv->body_first + k);
        if (h->kind != STEP_ON_NOTIFIED)
            continue;
        if (h->count > SCN_MAX_BADGE_BIT)
            return "a called passive PD with a notified handler of no badge bit";
        for (uint32_t x = 0; x < h->body_count; x++) {
            const struct scn_step *b = an_step(s, h->body_first + x);
            if (b->kind == STEP_IRQ_ACK &&
                (s->devices[b->object].notification != sv->ntfn ||
                 !an_device_feeds(s, b->object, h->count)))
                return "a called passive PD whose notified handler acknowledges a device of "
                       "another bit or notification";
            if (b->kind != STEP_COMPUTE && b->kind != STEP_SIGNAL && b->kind != STEP_NBSEND &&
                b->kind != STEP_IRQ_ACK)
                return "a called passive PD whose notified handler calls or waits (only "
                       "compute, signal, nbsend and irq_ack are modelled)";
        }
    }
    return NULL;
}

/* Its notified runs' context: the notification's (Microkit binds the
 * passive PD's budget and period there; seL4 maybeDonateSchedContext at
 * a signal's wake or completeSignal, maybeReturnSchedContext at a receive
 * that finds no signal). */
static void ntfn_context(const struct scn_context *sc, struct an_thread *t)
{
    t->has_sc = sc->present;
    t->budget = sc->budget;
    t->period = sc->period;
    t->rr = t->has_sc && sc->budget == sc->period;
    t->sporadic = sc->sporadic;
    t->refills = 2 + sc->extra_refills;
}

bool an_ppc_notified_only(const struct scenario *s, const struct scn_thread *th)
{
    const struct scn_step *sv = an_step(s, th->prog_first);
    return th->passive && th->prog_count == 1 && th->timeout_endpoint == SCN_NONE &&
           sv->kind == STEP_SERVE && sv->object != SCN_NONE && an_endpoint_own(s, sv->object) &&
           an_steps_using(s, STEP_CALL, sv->object) == 0 && !never_signalled(s, sv->ntfn);
}

uint32_t an_serve_handlers(const struct scenario *s, uint32_t th, const struct scn_step **h)
{
    const struct scn_step *sv = an_step(s, s->threads[th].prog_first);
    uint32_t n = 0;
    *h = NULL;
    if (sv->object != SCN_NONE && !an_ppc_notified_only(s, &s->threads[th]))
        return 0;
    for (uint32_t k = 0; k < sv->body_count; k++) {
        const struct scn_step *x = an_step(s, sv->body_first + k);
        if (x->kind == STEP_ON_PROTECTED && sv->object != SCN_NONE)
            continue; /* never runs */
        if (n++ == 0)
            *h = x;
    }
    return n;
}

void an_ppc_shape(const struct an_ctx *c, uint32_t th, struct an_thread *t)
{
    const struct scenario *s = c->s;
    const struct scn_thread *x = &s->threads[th];
    const struct scn_step *sv = an_step(s, x->prog_first);
    if (x->timeout_endpoint != SCN_NONE) {
        an_other(t, "a serve loop with an endpoint and a timeout endpoint");
        return;
    }
    if (!an_endpoint_own(s, sv->object)) {
        an_other(t, "a serve loop whose endpoint has another receiver, a send or timeout faults");
        return;
    }
    if (!never_signalled(s, sv->ntfn)) {
        const char *why = notified_why(c, sv);
        if (why != NULL) {
            an_other(t, why);
            return;
        }
        /* its notified handlers: streams on N's context (an_serve_link) */
        t->serve_candidate = true;
        t->wait_ntfn = sv->ntfn;
        ntfn_context(&s->notifications[sv->ntfn].sc, t);
    }
    t->endpoint = sv->object;
    t->n_nest = 0;
    t->server_compute = 0;
    for (uint32_t k = 0; k < sv->body_count; k++) {
        const struct scn_step *h = an_step(s, sv->body_first + k);
        struct an_thread calls;
        bool ok;
        cycles_t r;
        if (h->kind != STEP_ON_PROTECTED)
            continue; /* a notified handler: never runs */
        ok = handler(c, h, &r, &calls);
        /* per server the most calls of any handler, each running its
         * request (an_request): the longest handler's time and the most
         * calls of each, an overestimate when they are different handlers */
        for (uint32_t y = 0; ok && y < calls.n_nest; y++)
            ok = an_nest_call(t, calls.nest[y], calls.nest_calls[y], true);
        if (!ok) {
            an_other(t, "a protected handler with steps other than compute, signal, nbsend "
                     "and calls (to at most 8 servers, 8 calls each)");
            return;
        }
        if (r > t->server_compute)
            t->server_compute = r;
    }
    t->ppc = true;
    t->shape = SHAPE_SERVER;
}

/* Does any step of thread j's program (bodies included) call endpoint ep? */
static bool calls(const struct scenario *s, uint32_t first, uint32_t count, uint32_t ep)
{
    for (uint32_t k = 0; k < count; k++) {
        const struct scn_step *b = an_step(s, first + k);
        if (b->kind == STEP_CALL && b->object == ep)
            return true;
        if (b->body_count > 0 && calls(s, b->body_first, b->body_count, ep))
            return true;
    }
    return false;
}

/* Server t calls server k (linked). */
static bool calls_server(const struct an_thread *t, uint32_t k)
{
    for (uint32_t x = 0; x < t->n_nest; x++)
        if (t->nest[x] == k)
            return true;
    return false;
}

/* Every caller of server k is known: a thread that visits it (c->visits,
 * nested chains included), or a modelled server whose own callers are
 * all known. */
static bool callers_known(const struct an_ctx *c, uint32_t k, uint32_t depth)
{
    const struct scenario *s = c->s;
    if (depth > c->n)
        return false;
    for (uint32_t j = 0; j < c->n; j++) {
        const struct scn_thread *th = &s->threads[j];
        if (j == k || !calls(s, th->prog_first, th->prog_count, c->t[k].endpoint))
            continue;
        if (c->t[j].shape == SHAPE_SERVER && calls_server(&c->t[j], k)) {
            if (!callers_known(c, j, depth + 1))
                return false;
        } else if (!an_visits(c, j, k)) {
            return false;
        }
    }
    return true;
}

/* The job of ppc server k: its request, bounded by the worst final bound
 * of a thread whose job visits it. */
static void ppc_job(const struct an_ctx *c, uint32_t k, struct analysis_result *r)
{
    struct analysis_thread *out = &r->threads[k];
    const struct scn_thread *th = &c->s->threads[k];
    uint32_t worst = SCN_NONE;
    memset(out, 0, sizeof *out);
    out->thread = k;
    out->bound = AN_INF;
    out->has_deadline = th->has_deadline;
    out->deadline = th->deadline;
    if (!callers_known(c, k, 0)) {
        out->verdict = ANALYSIS_UNKNOWN;
        out->work = an_request(c, k);
        snprintf(out->reason, sizeof out->reason, "%s",
                 "its jobs are requests of callers whose programs are not modelled");
        return;
    }
    for (uint32_t j = 0; j < c->n; j++) {
        cycles_t b = r->threads[j].bound;
        if (j == k || c->t[j].shape == SHAPE_SERVER || !an_visits(c, j, k))
            continue;
        /* the caller computes at least compute_min of its own around its calls */
        if (b != AN_INF && c->t[j].shape == SHAPE_DEVICE)
            b = b > c->t[j].compute_min ? b - c->t[j].compute_min : 0;
        if (worst == SCN_NONE || b > out->bound) {
            worst = j;
            out->bound = b;
        }
    }
    if (worst == SCN_NONE) {
        /* its callers are servers nothing reaches, or none */
        out->verdict = ANALYSIS_NO_JOBS;
        snprintf(out->reason, sizeof out->reason, "%s",
                 "nothing calls it: its protected handlers never run");
        return;
    }
    out->work = an_request(c, k);
    for (uint32_t j = 0; j < c->n; j++)
        if (j != k && c->t[j].shape != SHAPE_SERVER && an_visits(c, j, k))
            out->may_throttle |= r->threads[j].may_throttle;
    if (out->bound == AN_INF) {
        out->verdict = ANALYSIS_UNKNOWN;
        snprintf(out->reason, sizeof out->reason,
                 "its jobs are requests of %s, which has no bound", c->s->threads[worst].name);
        return;
    }
    out->n_terms = 1;
    out->terms[0].kind = TERM_OWN;
    out->terms[0].thread = worst;
    out->terms[0].cycles = out->bound;
    snprintf(out->terms[0].text, sizeof out->terms[0].text,
             "within a job of its caller %s, less its own least compute",
             c->s->threads[worst].name);
    out->worst_job = 1;
    out->verdict = !out->has_deadline || out->bound <= out->deadline ? ANALYSIS_SCHEDULABLE
                                                                     : ANALYSIS_UNSCHEDULABLE;
}

/* A PD both called and signalled has two kinds of jobs: its requests
 * (ppc_job, inside its callers' jobs) and its notified runs (its streams'
 * bound, `runs`, from the passes): its bound is the larger, none when
 * either has none (that one's reason), and only one kind when the other
 * never runs. */
static void both_jobs(const struct analysis_thread *runs, struct analysis_thread *out)
{
    cycles_t work = runs->work > out->work ? runs->work : out->work;
    if (runs->verdict == ANALYSIS_NO_JOBS)
        return;
    if (out->verdict == ANALYSIS_NO_JOBS || runs->bound == AN_INF ||
        (out->bound != AN_INF && runs->bound > out->bound)) {
        bool throttle = out->may_throttle && out->verdict != ANALYSIS_NO_JOBS;
        *out = *runs;
        out->may_throttle |= throttle;
    } else {
        out->may_throttle |= runs->may_throttle;
        out->may_lose_irq |= runs->may_lose_irq;
    }
    out->work = work;
}

void an_ppc_results(const struct an_ctx *c, struct analysis_result *r)
{
    for (uint32_t k = 0; k < c->n; k++) {
        struct analysis_thread runs = r->threads[k];
        if (c->t[k].shape != SHAPE_SERVER || !c->t[k].ppc)
            continue;
        ppc_job(c, k, r);
        if (c->t[k].ppc_ntfn)
            both_jobs(&runs, &r->threads[k]);
    }
}
