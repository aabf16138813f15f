/*
 * Active servers (docs/analysis.md, "Active servers"): a Microkit PD with a
 * scheduling context of its own that serves protected procedures, a thread
 * with a context whose program is a `serve` step with an endpoint.
 *
 * seL4 (src/object/endpoint.c sendIPC, receiveIPC; reply.c, kernel-core's
 * reply_push): a call donates the caller's context only to a receiver
 * without one. An active server runs each request on its own context at
 * its own priority; the caller is blocked on the reply object (or queued
 * on the endpoint, by priority under mcs, FIFO under classic) until the
 * server's ReplyRecv answers it. The server's receive takes a pending
 * signal of its bound notification before a queued call.
 *
 * So the server is a thread of several job streams (analysis_serve.c): one
 * per notified bit (its notification's devices and signals) and one per
 * call badge, whose sources are the `call` steps in the callers' jobs (a
 * run is released at the call's send time and ends at the handler's last
 * step). A caller strictly below the server waits for its reply while
 * the server, or something above it, runs: the whole of the server's
 * demand is interference on the caller, which counts its own requests
 * through its own jobs' calls (analysis_serve.c, sends()), so each call is
 * one kernel entry of the caller's job and one wake. While a call is
 * queued or served the server has work pending, so it is ready unless its
 * context is throttled (under mcs, budget < period): the caller's window
 * adds the server's throttled time in it, its phase bound (Own
 * throttling) for what the server's context can be charged there, and
 * the CPU may idle meanwhile (an_active_throttling; docs/analysis.md,
 * "Active servers with a budget below their period").
 */
#include "analysis/analysis_int.h"

#include <stdio.h>

/* A handler's steps: compute, signal, nbsend and (`acks`) irq_ack only. */
static bool body_ok(const struct scenario *s, const struct scn_step *h, bool acks)
{
    for (uint32_t k = 0; k < h->body_count; k++) {
        enum scn_step_kind kind = an_step(s, h->body_first + k)->kind;
        if (kind != STEP_COMPUTE && kind != STEP_SIGNAL && kind != STEP_NBSEND &&
            !(acks && kind == STEP_IRQ_ACK))
            return false;
    }
    return true;
}

/* Every call to ep carries a protected badge (SCN_CALL_BADGE | K, K a
 * channel a handler may have). */
static bool calls_badged(const struct scenario *s, uint32_t ep)
{
    for (uint32_t k = 0; k < s->n_steps; k++) {
        const struct scn_step *b = an_step(s, k);
        if (b->kind == STEP_CALL && b->object == ep &&
            (!(b->badge & SCN_CALL_BADGE) || (b->badge & ~SCN_CALL_BADGE) > SCN_MAX_BADGE_BIT))
            return false;
    }
    return true;
}

void an_active_shape(const struct an_ctx *c, uint32_t th, struct an_thread *t)
{
    const struct scenario *s = c->s;
    const struct scn_thread *x = &s->threads[th];
    const struct scn_step *sv = an_step(s, x->prog_first + x->prog_count - 1);
    an_other(t, "an active serve loop with an endpoint whose callers are not all modelled");
    if (x->prog_count != 1 || x->start != 0) {
        an_other(t, "an active serve loop with an endpoint after init steps or a late start");
        return;
    }
    if (x->timeout_endpoint != SCN_NONE) {
        an_other(t, "a serve loop with an endpoint and a timeout endpoint");
        return;
    }
    if (!an_endpoint_own(s, sv->object) || !calls_badged(s, sv->object)) {
        an_other(t, "a serve loop whose endpoint has another receiver, a send, timeout faults "
                    "or an unbadged call");
        return;
    }
    if (c->mcs && !t->has_sc && an_steps_using(s, STEP_CALL, sv->object) > 0) {
        an_other(t, "an active server without a context of its own");
        return;
    }
    for (uint32_t k = 0; k < sv->body_count; k++) {
        const struct scn_step *h = an_step(s, sv->body_first + k);
        bool notified = h->kind == STEP_ON_NOTIFIED;
        if (h->count > SCN_MAX_BADGE_BIT || !body_ok(s, h, notified)) {
            an_other(t, "an active serve loop with a handler that calls or waits");
            return;
        }
    }
    t->active = true;
    t->endpoint = sv->object;
    t->wait_ntfn = sv->ntfn;
    t->serve_candidate = true; /* analysis_serve_link.c makes its streams */
}

bool an_active_call(const struct an_ctx *c, const struct scn_step *b)
{
    return b->kind == STEP_CALL && an_server_on(c, b->object) == SCN_NONE &&
           an_active_on(c, b->object) != SCN_NONE;
}

uint32_t an_active_on(const struct an_ctx *c, uint32_t ep)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].active && c->t[i].endpoint == ep &&
            (c->t[i].shape == SHAPE_SERVE || c->t[i].shape == SHAPE_OTHER))
            return i;
    return SCN_NONE;
}

/* The protected handler of channel k, NULL if none (a call with no
 * handler is answered at once: a receive and nothing else). */
static const struct scn_step *handler_of(const struct scenario *s, uint32_t th, uint64_t k)
{
    const struct scn_thread *x = &s->threads[th];
    const struct scn_step *sv = an_step(s, x->prog_first + x->prog_count - 1);
    for (uint32_t h = 0; h < sv->body_count; h++) {
        const struct scn_step *b = an_step(s, sv->body_first + h);
        if (b->kind == STEP_ON_PROTECTED && b->count == k)
            return b;
    }
    return NULL;
}

int an_active_streams(struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    struct an_thread *t = &c->t[i];
    for (uint64_t k = 0; k <= SCN_MAX_BADGE_BIT; k++) {
        uint32_t n = 0;
        for (uint32_t x = 0; x < s->n_steps; x++)
            n += an_step(s, x)->kind == STEP_CALL && an_step(s, x)->object == t->endpoint &&
                 an_step(s, x)->badge == (SCN_CALL_BADGE | k);
        if (n == 0)
            continue; /* nobody calls it: it never runs */
        if (an_serve_grow(c, 1, n) != 0)
            return -1;
        const struct scn_step *h = handler_of(s, i, k);
        /* the handler and the ReplyRecv that answers it and receives */
        struct an_stream *st = an_serve_new_stream(c, SCN_NONE, h ? h->body_first : 0,
                                                   h ? h->body_count : 0, 0);
        st->calls = true;
        st->inf = true;
        for (uint32_t x = 0; x < s->n_steps; x++)
            if (an_step(s, x)->kind == STEP_CALL && an_step(s, x)->object == t->endpoint &&
                an_step(s, x)->badge == (SCN_CALL_BADGE | k)) {
                struct an_source *src = &c->srcs[c->n_srcs++];
                *src = (struct an_source){SCN_NONE, SCN_NONE, SCN_NONE, x, 0};
            }
        st->n_src = c->n_srcs - st->src_first;
        t->n_streams++;
    }
    return 0;
}

/* Does a call in steps [first, first + count) go to an active server
 * that is not modelled? */
static bool calls_unmodelled(const struct an_ctx *c, uint32_t first, uint32_t count)
{
    for (uint32_t k = first; k < first + count; k++) {
        const struct scn_step *b = an_step(c->s, k);
        uint32_t sv;
        if (b->kind == STEP_CALL && (sv = an_active_on(c, b->object)) != SCN_NONE &&
            c->t[sv].shape != SHAPE_SERVE)
            return true;
    }
    return false;
}

const char *an_active_unlinked(const struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    bool bad = false;
    if (t->acalls == 0)
        return NULL;
    if (t->shape != SHAPE_SERVE)
        bad = calls_unmodelled(c, t->job_first, t->job_count);
    for (uint32_t m = 0; t->shape == SHAPE_SERVE && m < t->n_streams && !bad; m++) {
        const struct an_stream *st = &c->streams[t->stream_first + m];
        bad = calls_unmodelled(c, st->body_first, st->body_count);
    }
    return bad ? "calls an active server that is not modelled" : NULL;
}

/* ------------------------------------------ servers that may throttle */

/* Under mcs, may active server sv be throttled with a call pending: a
 * context with budget < period not proven never to run out? */
static bool may_throttle(const struct an_ctx *c, uint32_t sv)
{
    const struct an_thread *t = &c->t[sv];
    return c->mcs && t->has_sc && !t->rr && !t->safe;
}

/* The active servers that may throttle called by the steps [first, first
 * + count) (one call each), added to out[0 .. *n) once each. */
static void called_in(const struct an_ctx *c, uint32_t first, uint32_t count, uint32_t *out,
                      uint32_t *n)
{
    for (uint32_t k = first; k < first + count; k++) {
        const struct scn_step *b = an_step(c->s, k);
        uint32_t sv, x;
        if (b->kind != STEP_CALL || (sv = an_active_on(c, b->object)) == SCN_NONE ||
            !may_throttle(c, sv))
            continue;
        for (x = 0; x < *n && out[x] != sv; x++)
            ;
        if (x == *n && *n < AN_MAX_CALLS)
            out[(*n)++] = sv;
    }
}

/* The active servers thread i's jobs (a served thread's runs) call that
 * may throttle: their number, into out. */
static uint32_t throttling_servers(const struct an_ctx *c, uint32_t i, uint32_t *out)
{
    const struct an_thread *t = &c->t[i];
    uint32_t n = 0;
    if (t->acalls == 0)
        return 0;
    if (t->shape != SHAPE_SERVE) {
        called_in(c, t->job_first, t->job_count, out, &n);
        return n;
    }
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = &c->streams[t->stream_first + m];
        called_in(c, st->body_first, st->body_count, out, &n);
    }
    return n;
}

bool an_active_idles(const struct an_ctx *c, uint32_t i)
{
    uint32_t sv[AN_MAX_CALLS];
    return throttling_servers(c, i, sv) > 0;
}

/*
 * While a call of the window's job is queued on the endpoint of active
 * server sv or served, sv has work pending (it receives a queued call at
 * its ReplyRecv, and it blocks in its receive only with nothing queued),
 * so it is ready, and at a priority above the job's, unless its context
 * is throttled (no timeout endpoint: an exhausted budget throttles it).
 * Every other instant of the job's wait is sv or a thread above it
 * running (their interference), or the kernel. sv's throttled time in
 * any window is its phase bound Theta_sv(N) for what its context is
 * charged there, N at most its supply (budget per period) and at most
 * its runs' work, the window's kernel entries and one entry per run (the
 * rest of the entry that switches to it: KERNEL-SEMANTICS.md 8).
 */
cycles_t an_active_throttling(const struct an_win *win, cycles_t d, cycles_t kernel,
                              uint32_t *who)
{
    const struct an_ctx *c = win->c;
    struct an_win w = *win;
    uint32_t sv[AN_MAX_CALLS], n = throttling_servers(c, win->i, sv);
    cycles_t sum = 0, most = 0;
    w.crit = false; /* the charge of any window, carried-in runs included */
    if (who)
        *who = SCN_NONE;
    for (uint32_t x = 0; x < n && sum != AN_INF; x++) {
        cycles_t runs = an_serve_demand(&w, sv[x], d, false);
        cycles_t need = an_add(an_serve_demand(&w, sv[x], d, true),
                               an_add(kernel, an_mul(runs, c->e_max)));
        cycles_t supply = an_supply(c, sv[x], d), th;
        th = an_throttle_time(c, sv[x], supply < need ? supply : need);
        sum = an_add(sum, th);
        if (who && th > most) {
            most = th;
            *who = sv[x];
        }
    }
    return sum;
}
