/*
 * Threads woken by a message (docs/analysis.md, "Arrivals"): a thread of
 * program loop [wait N; job [...]] whose notification N is signalled by
 * exactly one step of the whole scenario, in the job of a device thread or
 * of another message-woken thread (its sender), or loop [recv E; job
 * [...]] whose endpoint E is nbsent or sent to by exactly one such step
 * and used by nothing else. Its job is released at the signal's (the
 * send's) time (SCENARIO-FORMAT.md "Jobs"), which lies between the
 * sender's release plus the least compute before the step and the
 * sender's response bound: its releases are the sender's arrivals each
 * delayed by at most the sender's response jitter up to the step (shift),
 * a subsequence of them (signals OR together while pending; an nbsend to
 * a thread not waiting is dropped; a blocking send's message is always
 * taken, and its sender waits for that: analysis_send.c). Chains add up
 * their shifts.
 */
#include "analysis/analysis_int.h"

#include <stdio.h>

/* How many steps of the scenario are of `kind` on `object` (a serve step:
 * its endpoint, or with `ntfn` its notification); *at: the last one. */
static uint32_t steps_on(const struct scenario *s, enum scn_step_kind kind, uint32_t object,
                         bool ntfn, uint32_t *at)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->n_steps; k++) {
        const struct scn_step *b = an_step(s, k);
        if (b->kind == kind && (ntfn ? b->ntfn : b->object) == object) {
            n++;
            *at = k;
        }
    }
    return n;
}

/* The one step that sends to thread r's object, if nothing else uses it
 * (receives, calls, polls, a device, a context, timeout faults); SCN_NONE
 * otherwise. */
static uint32_t the_send(const struct an_ctx *c, uint32_t r)
{
    const struct scenario *s = c->s;
    const struct an_thread *t = &c->t[r];
    uint32_t o = t->msg_object, at = SCN_NONE, x;
    if (t->by_endpoint) {
        for (uint32_t k = 0; k < s->n_threads; k++)
            if (s->threads[k].timeout_endpoint == o)
                return SCN_NONE;
        for (uint32_t k = 0; k < s->n_steps; k++)
            if (an_step(s, k)->kind == STEP_HANDLE_TIMEOUTS && an_step(s, k)->timeouts.endpoint == o)
                return SCN_NONE;
        if (steps_on(s, STEP_RECV, o, false, &x) != 1 ||
            steps_on(s, STEP_REPLY_RECV, o, false, &x) != 0 ||
            steps_on(s, STEP_CALL, o, false, &x) != 0 ||
            steps_on(s, STEP_SERVE, o, false, &x) != 0 ||
            steps_on(s, STEP_SEND, o, false, &at) + steps_on(s, STEP_NBSEND, o, false, &at) != 1)
            return SCN_NONE;
        return at;
    }
    if (s->notifications[o].sc.present)
        return SCN_NONE;
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (s->devices[d].notification == o)
            return SCN_NONE;
    if (steps_on(s, STEP_WAIT, o, false, &x) != 1 || steps_on(s, STEP_POLL, o, false, &x) != 0 ||
        steps_on(s, STEP_SERVE, o, true, &x) != 0 ||
        steps_on(s, STEP_SIGNAL, o, false, &at) != 1)
        return SCN_NONE;
    return at;
}

/* The modelled thread whose job holds step k, SCN_NONE if none. */
static uint32_t job_holder(const struct an_ctx *c, uint32_t k)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const struct an_thread *t = &c->t[i];
        if (t->shape == SHAPE_DEVICE && k >= t->job_first && k < t->job_first + t->job_count)
            return i;
        if (an_background_holds(c, i, k))
            return i; /* a background sender's loop (analysis_background.c) */
    }
    return SCN_NONE;
}

/* The least time from the sender's release to step k of its job: the
 * least compute of the steps before it (a call's time may be 0). */
static cycles_t before(const struct an_ctx *c, uint32_t sender, uint32_t k)
{
    cycles_t m = 0;
    for (uint32_t x = c->t[sender].job_first; x < k; x++)
        if (an_step(c->s, x)->kind == STEP_COMPUTE)
            m = an_add(m, an_step(c->s, x)->min);
    return m;
}

static void demote(struct an_thread *t, const char *why)
{
    t->shape = SHAPE_OTHER;
    t->sender = SCN_NONE;
    t->why_other = why;
}

/* Why modelled thread i cannot stay modelled, NULL if it can: its sender
 * is not, its device's notification is signalled by a thread too, or a
 * signal or nbsend of its job goes to something other than a thread
 * woken by it alone (a serve loop, a server, a device thread would run
 * outside any job the analysis knows). */
static const char *unlinked(const struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    const struct an_thread *t = &c->t[i];
    uint32_t x;
    if (t->sender != SCN_NONE && c->t[t->sender].shape != SHAPE_DEVICE &&
        !c->t[t->sender].bgsend)
        return "woken by a message of a thread that is not modelled";
    if (t->shape == SHAPE_SERVE) /* its sources, then its calls to active servers */
        return an_serve_unlinked(c, i) ? an_serve_unlinked(c, i) : an_active_unlinked(c, i);
    if (an_active_unlinked(c, i) != NULL)
        return an_active_unlinked(c, i); /* its active server is not modelled */
    if (t->wait_ntfn != SCN_NONE && steps_on(s, STEP_SIGNAL, t->wait_ntfn, false, &x) != 0)
        return "its device's notification is signalled by a thread too";
    for (uint32_t k = t->job_first; k < t->job_first + t->job_count; k++) {
        const struct scn_step *b = an_step(s, k);
        bool found = false;
        if (b->kind != STEP_SIGNAL && b->kind != STEP_NBSEND && b->kind != STEP_SEND)
            continue;
        if (an_serve_receives(c, b))
            continue; /* to a thread of several streams (analysis_serve_link.c) */
        for (uint32_t r = 0; r < c->n && !found; r++)
            found = c->t[r].shape == SHAPE_DEVICE && c->t[r].sender == i &&
                    c->t[r].msg_object == b->object &&
                    c->t[r].by_endpoint == (b->kind != STEP_SIGNAL) &&
                    c->t[r].blocking == (b->kind == STEP_SEND);
        if (!found)
            return "its job signals or sends to a thread not modelled as woken by it alone";
    }
    return NULL;
}

/* A device thread whose notification a thread signals too is woken by
 * several sources: a candidate of analysis_serve_link.c (a wait loop's
 * notification becomes its message object). */
static void signalled_too(struct an_ctx *c)
{
    uint32_t x;
    for (uint32_t i = 0; i < c->n; i++) {
        struct an_thread *t = &c->t[i];
        const struct scn_step *p = an_step(c->s, c->s->threads[i].prog_first);
        if (t->shape != SHAPE_DEVICE || t->device == SCN_NONE || t->wait_ntfn == SCN_NONE ||
            steps_on(c->s, STEP_SIGNAL, t->wait_ntfn, false, &x) == 0)
            continue;
        demote(t, "its device's notification is signalled by a thread too");
        t->device = SCN_NONE;
        if (p->kind == STEP_LOOP) {
            t->msg_object = t->wait_ntfn;
            t->by_endpoint = false;
        }
    }
}

int an_message_link(struct an_ctx *c)
{
    /* promote, from the device threads down the chains */
    for (uint32_t round = 0; round <= c->n; round++) {
        bool changed = false;
        for (uint32_t r = 0; r < c->n; r++) {
            struct an_thread *t = &c->t[r];
            uint32_t at, sd;
            if (t->msg_object == SCN_NONE || t->shape != SHAPE_OTHER)
                continue;
            if ((at = the_send(c, r)) == SCN_NONE)
                continue;
            sd = job_holder(c, at);
            if (sd == SCN_NONE || sd == r)
                continue;
            t->shape = SHAPE_DEVICE;
            t->device = SCN_NONE;
            t->sender = sd;
            t->send_min = c->t[sd].bgsend ? 0 : before(c, sd, at);
            t->blocking = an_step(c->s, at)->kind == STEP_SEND; /* analysis_send.c */
            changed = true;
        }
        if (!changed)
            break;
    }
    signalled_too(c);
    if (an_serve_link(c) != 0)
        return -1;
    /* demote what sends where the analysis cannot follow, and its receivers */
    for (uint32_t round = 0; round <= c->n; round++) {
        bool changed = false;
        for (uint32_t i = 0; i < c->n; i++) {
            const char *why;
            if ((c->t[i].shape == SHAPE_DEVICE || c->t[i].shape == SHAPE_SERVE) &&
                (why = unlinked(c, i)) != NULL) {
                demote(&c->t[i], why);
                changed = true;
            }
        }
        if (!changed)
            break;
    }
    return 0;
}

bool an_message_arrivals(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    cycles_t shift = 0, old = t->arr.shift, old_lag = t->arr.slag;
    uint32_t j = i;
    for (uint32_t d = 0; c->t[j].sender != SCN_NONE && d <= c->n; d++) {
        uint32_t up = c->t[j].sender;
        cycles_t b = c->t[up].bound;
        if (c->t[up].bgsend) {
            j = up; /* its sends' own rate: released at them */
            break;
        }
        if (b == AN_INF)
            shift = AN_INF;
        else
            shift = an_add(shift, b > c->t[j].send_min ? b - c->t[j].send_min : 0);
        j = up;
    }
    if (c->t[j].bgsend) {
        /* a background sender's rate, with its context's lag as now known */
        c->t[j].arr.slag = c->t[j].sporadic ? c->t[j].lag : 0;
        t->arr = c->t[j].arr;
    } else if (c->t[j].device != SCN_NONE) {
        t->arr = c->dev[c->t[j].device];
    } else {
        return false; /* not reached: chains start at a device thread */
    }
    t->arr.shift = shift;
    return old != shift || old_lag != t->arr.slag;
}

/*
 * A receiver above its sender preempts it, so the sender's bound cannot
 * wait for the receiver's arrivals (they come from the sender's bound).
 * In the window of the sender's q jobs (turn_jobs / (1 + visits), set by
 * the busy window and the two-job bound), the receiver runs at most the
 * jobs unfinished at the window's start, one in progress and one pending
 * (at a release at most one job is unfinished, see above), and one per
 * message of those q jobs; a receiver further down the chain, 2 more per
 * link: its sender's messages in the window are at most that sender's
 * jobs that run there. AN_INF when j's chain does not start at the
 * window's thread.
 */
uint64_t an_message_jobs(const struct an_win *w, uint32_t j)
{
    const struct an_ctx *c = w->c;
    uint64_t n = 0;
    if (w->turn_jobs == 0)
        return AN_INF;
    for (uint32_t d = 0; d <= c->n && c->t[j].sender != SCN_NONE; d++) {
        n = an_add(n, 2);
        if (c->t[j].sender == w->i)
            return an_add(n, w->turn_jobs / an_wakes_per_job(&c->t[w->i]));
        j = c->t[j].sender;
    }
    return AN_INF;
}
