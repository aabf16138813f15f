/*
 * Threads with several job streams (docs/analysis.md, "Several senders
 * and serve loops"), the model: which threads are SHAPE_SERVE, their
 * streams (one per notified handler's badge bit, or one for a wait/recv
 * loop), each stream's sources (devices of the notification, send steps
 * of modelled jobs and handlers); per pass, each stream's flattened
 * arrivals are analysis_serve_arrivals.c's.
 */
#include "analysis/analysis_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct an_stream *streams(const struct an_ctx *c, const struct an_thread *t)
{
    return &c->streams[t->stream_first];
}

/* A handler's or a wait/recv loop's job body: compute, call, signal,
 * nbsend, and irq_ack of `acks` devices only (each call to a modelled
 * passive server: calls_ok). */
static bool body_ok(const struct scenario *s, uint32_t first, uint32_t count, bool acks)
{
    for (uint32_t k = 0; k < count; k++) {
        enum scn_step_kind kind = an_step(s, first + k)->kind;
        if (kind != STEP_COMPUTE && kind != STEP_SIGNAL && kind != STEP_NBSEND &&
            kind != STEP_CALL && !(acks && kind == STEP_IRQ_ACK))
            return false;
    }
    return true;
}

void an_serve_candidate(const struct scenario *s, uint32_t th, struct an_thread *t)
{
    const struct scn_thread *x = &s->threads[th];
    const struct scn_step *sv = an_step(s, x->prog_first + x->prog_count - 1);
    uint32_t first, count;
    if (t->msg_object != SCN_NONE) {
        t->serve_candidate = true; /* a wait/recv loop (analysis_model.c checked its job) */
        return;
    }
    if (!an_serve_init(s, x, &first, &count) || (x->passive && an_passive_ntfn(s, x) == SCN_NONE) ||
        x->start != 0 || sv->kind != STEP_SERVE ||
        (sv->object != SCN_NONE && !an_ppc_notified_only(s, x)) || sv->ntfn == SCN_NONE ||
        sv->body_count == 0)
        return;
    for (uint32_t k = 0; k < sv->body_count; k++) {
        const struct scn_step *h = an_step(s, sv->body_first + k);
        if (h->kind == STEP_ON_PROTECTED && sv->object != SCN_NONE)
            continue; /* an endpoint nothing calls (analysis_ppc.c): never runs */
        if (h->kind != STEP_ON_NOTIFIED || h->count > SCN_MAX_BADGE_BIT ||
            !body_ok(s, h->body_first, h->body_count, true))
            return;
    }
    t->serve_candidate = true;
    t->wait_ntfn = sv->ntfn;
}

static uint64_t dev_badge(const struct scenario *s, uint32_t d)
{
    return s->devices[d].badge ? s->devices[d].badge : (uint64_t)d + 1;
}

uint32_t an_steps_using(const struct scenario *s, enum scn_step_kind kind, uint32_t object)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->n_steps; k++)
        n += an_step(s, k)->kind == kind &&
             (kind == STEP_SERVE ? an_step(s, k)->ntfn : an_step(s, k)->object) == object;
    return n;
}

/* Is the candidate's object its own: a notification without a context,
 * with no other waiter, poller or serve loop; an endpoint nothing but
 * nbsend reaches (no call, send, other receive, timeout fault)? */
static bool object_own(const struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    const struct an_thread *t = &c->t[i];
    uint32_t o = t->msg_object != SCN_NONE ? t->msg_object : t->wait_ntfn;
    bool serve = t->msg_object == SCN_NONE;
    if (t->active && o == SCN_NONE)
        return true; /* an active server without a notification (analysis_active.c) */
    if (t->msg_object != SCN_NONE && t->by_endpoint) {
        for (uint32_t k = 0; k < s->n_threads; k++)
            if (s->threads[k].timeout_endpoint == o)
                return false;
        for (uint32_t k = 0; k < s->n_steps; k++)
            if (an_step(s, k)->kind == STEP_HANDLE_TIMEOUTS && an_step(s, k)->timeouts.endpoint == o)
                return false;
        return an_steps_using(s, STEP_RECV, o) == 1 && an_steps_using(s, STEP_REPLY_RECV, o) == 0 &&
               an_steps_using(s, STEP_CALL, o) == 0 && an_steps_using(s, STEP_SEND, o) == 0 &&
               an_steps_using(s, STEP_SERVE, o) == 0 && an_steps_using(s, STEP_NBSEND, o) > 0;
    }
    /* a context of its own only for a passive serve loop, which runs on it
     * (a called one too: analysis_ppc.c) */
    return (!s->notifications[o].sc.present ||
            (serve && (an_passive_ntfn(s, &s->threads[i]) == o || t->ppc))) &&
           an_steps_using(s, STEP_POLL, o) == 0 &&
           an_steps_using(s, STEP_WAIT, o) == (serve ? 0u : 1u) &&
           an_steps_using(s, STEP_SERVE, o) == (serve ? 1u : 0u);
}

/* The thread (and its stream, SCN_NONE for a SHAPE_DEVICE job) whose job or
 * handler holds step k; false if none that is modelled or a candidate. */
static bool holder(const struct an_ctx *c, uint32_t k, uint32_t *th, uint32_t *sm)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const struct an_thread *t = &c->t[i];
        if (t->shape == SHAPE_DEVICE && k >= t->job_first && k < t->job_first + t->job_count) {
            *th = i;
            *sm = SCN_NONE;
            return true;
        }
        if (!an_has_streams(t))
            continue;
        for (uint32_t m = 0; m < t->n_streams; m++) {
            const struct an_stream *st = &streams(c, t)[m];
            if (st->body_count > 0 && k >= st->body_first && k < st->body_first + st->body_count) {
                *th = i;
                *sm = m;
                return true;
            }
        }
    }
    return false;
}

/* The least compute before step k in the body that starts at `first`. */
static cycles_t before(const struct scenario *s, uint32_t first, uint32_t k)
{
    cycles_t m = 0;
    for (uint32_t x = first; x < k; x++)
        if (an_step(s, x)->kind == STEP_COMPUTE)
            m = an_add(m, an_step(s, x)->min);
    return m;
}

/* One run's work: the body's compute, its kernel entries, the receive,
 * and each call's request to a passive server (nested included, its call
 * and reply entries: it runs on and is charged to the thread's context,
 * as a device thread's), one entry per call to an active server. */
cycles_t an_serve_body_work(const struct an_ctx *c, uint32_t first, uint32_t count, uint32_t extra)
{
    cycles_t w = an_mul(1 + extra, c->e_max);
    for (uint32_t k = 0; k < count; k++) {
        const struct scn_step *b = an_step(c->s, first + k);
        w = an_add(w, b->kind == STEP_COMPUTE ? b->max
                      : b->kind == STEP_CALL && !an_active_call(c, b)
                          ? an_request(c, an_server_on(c, b->object))
                          : c->e_max);
    }
    return w;
}

int an_serve_grow(struct an_ctx *c, uint32_t ns, uint32_t nsrc)
{
    struct an_stream *st = realloc(c->streams, (size_t)(c->n_streams_all + ns + 1) * sizeof *st);
    if (!st)
        return -1;
    c->streams = st;
    struct an_source *sr = realloc(c->srcs, (size_t)(c->n_srcs + nsrc + 1) * sizeof *sr);
    if (!sr)
        return -1;
    c->srcs = sr;
    return 0;
}

struct an_stream *an_serve_new_stream(struct an_ctx *c, uint32_t bit, uint32_t first,
                                      uint32_t count, uint32_t extra)
{
    struct an_stream *st = &c->streams[c->n_streams_all++];
    *st = (struct an_stream){0};
    st->bit = bit;
    st->body_first = first;
    st->body_count = count;
    st->work = an_serve_body_work(c, first, count, extra);
    st->src_first = c->n_srcs;
    return st;
}

/* Does source step or device x (bits `badge`) feed stream `bit`? */
static bool feeds(uint64_t badge, uint32_t bit)
{
    if (bit == SCN_NONE)
        return true;
    if (bit == SCN_MAX_BADGE_BIT + 1)
        return badge == 0; /* a signal without a badge: a receive, no handler */
    return (badge >> bit) & 1u;
}

bool an_device_feeds(const struct scenario *s, uint32_t d, uint32_t bit)
{
    return feeds(dev_badge(s, d), bit);
}

bool an_device_fires(const struct scenario *s, uint32_t d, uint32_t o)
{
    return s->devices[d].notification == o &&
           !(s->devices[d].kind == ARRIVAL_AT && s->devices[d].at_count == 0);
}

static int add_stream(struct an_ctx *c, uint32_t i, uint32_t bit, uint32_t first, uint32_t count,
                      uint32_t extra_entries)
{
    const struct scenario *s = c->s;
    struct an_thread *t = &c->t[i];
    uint32_t o = t->msg_object != SCN_NONE ? t->msg_object : t->wait_ntfn, n = 0;
    enum scn_step_kind kind = t->msg_object != SCN_NONE && t->by_endpoint ? STEP_NBSEND
                                                                           : STEP_SIGNAL;
    bool endpoint = kind == STEP_NBSEND;
    struct an_stream *st;
    for (uint32_t d = 0; d < s->n_devices && !endpoint; d++)
        n += an_device_fires(s, d, o) && feeds(dev_badge(s, d), bit);
    for (uint32_t k = 0; k < s->n_steps; k++)
        if (an_step(s, k)->kind == kind && an_step(s, k)->object == o &&
            (endpoint || feeds(an_step(s, k)->badge, bit)))
            n += an_step_sources(c, k, false);
    if (n == 0)
        return 0; /* nothing releases it: it never runs */
    if (an_serve_grow(c, 1, n) != 0)
        return -1;
    st = an_serve_new_stream(c, bit, first, count, extra_entries);
    st->inf = true;
    for (uint32_t d = 0; d < s->n_devices && !endpoint; d++)
        if (an_device_fires(s, d, o) && feeds(dev_badge(s, d), bit)) {
            struct an_source *x = &c->srcs[c->n_srcs++];
            x->dev = d;
            x->sender = x->stream = SCN_NONE;
            x->step = SCN_NONE;
            x->cmin = 0;
            t->extra = t->msg_object == SCN_NONE ? 2 : 1; /* a serve loop's device bit */
        }
    for (uint32_t k = 0; k < s->n_steps; k++)
        if (an_step(s, k)->kind == kind && an_step(s, k)->object == o &&
            (endpoint || feeds(an_step(s, k)->badge, bit)))
            an_step_sources(c, k, true);
    st->n_src = c->n_srcs - st->src_first;
    t->n_streams++;
    return 0;
}

/* The streams of candidate i: one per badge bit with a handler or a
 * source (a bit nobody sets never runs), or the loop's one. */
static int make_streams(struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    struct an_thread *t = &c->t[i];
    const struct scn_thread *th = &s->threads[i];
    t->stream_first = c->n_streams_all;
    t->n_streams = 0;
    t->extra = 1;
    if (t->msg_object != SCN_NONE) {
        const struct scn_step *loop = an_step(s, th->prog_first);
        const struct scn_step *job = an_step(s, loop->body_first + 1);
        /* the wait (recv), and an irq_ack after the job */
        return add_stream(c, i, SCN_NONE, job->body_first, job->body_count,
                          loop->body_count == 3 ? 1 : 0);
    }
    const struct scn_step *sv = an_step(s, th->prog_first + th->prog_count - 1);
    if (t->active && an_active_streams(c, i) != 0)
        return -1; /* its calls (analysis_active.c) */
    for (uint32_t bit = 0; bit <= SCN_MAX_BADGE_BIT + 1 && t->wait_ntfn != SCN_NONE; bit++) {
        uint32_t first = 0, count = 0;
        for (uint32_t k = 0; k < sv->body_count; k++) {
            const struct scn_step *h = an_step(s, sv->body_first + k);
            if (h->kind == STEP_ON_NOTIFIED && h->count == bit) {
                first = h->body_first;
                count = h->body_count;
            }
        }
        if (add_stream(c, i, bit, first, count, 0) != 0)
            return -1;
    }
    return an_serve_add_init(c, i);
}

/* Every call step of a candidate's bodies goes to a modelled passive
 * server or to an active server strictly above the thread (its runs are
 * then interference on the handler, as on a device thread's job:
 * analysis_active.c), at most AN_MAX_CALLS per body. */
static bool calls_ok(const struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = &streams(c, t)[m];
        uint32_t n = 0;
        for (uint32_t k = st->body_first; k < st->body_first + st->body_count; k++) {
            const struct scn_step *b = an_step(c->s, k);
            uint32_t sv;
            if (b->kind != STEP_CALL)
                continue;
            if (++n > AN_MAX_CALLS)
                return false;
            if (an_active_call(c, b)) {
                sv = an_active_on(c, b->object);
                if (sv == i || c->t[sv].prio <= t->prio)
                    return false;
                continue;
            }
            sv = an_server_on(c, b->object);
            if (sv == SCN_NONE || c->t[sv].shape != SHAPE_SERVER)
                return false;
        }
    }
    return true;
}

/* The calls of each stream of i (calls_ok), their requests, the servers
 * the thread visits (each once: c->visits, its clients' blocking, faults
 * and requests), and its level p_eff: the lowest priority of it and of a
 * server its handlers reach (a request runs at its server's priority);
 * a call to an active server counted apart (n_acalls, acalls: an entry
 * and a wake; the server runs above the thread, on its own context);
 * false when more than AN_MAX_CALLS servers. */
static bool link_stream_calls(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    t->n_visits = 0;
    t->acalls = 0;
    t->p_eff = t->prio;
    for (uint32_t m = 0; m < t->n_streams; m++) {
        struct an_stream *st = &c->streams[t->stream_first + m];
        st->n_calls = 0;
        st->n_acalls = 0;
        st->requests = 0;
        for (uint32_t k = st->body_first; k < st->body_first + st->body_count && !st->calls; k++) {
            const struct scn_step *b = an_step(c->s, k);
            uint32_t sv, v;
            if (b->kind != STEP_CALL)
                continue;
            if (an_active_call(c, b)) {
                st->n_acalls++;
                t->acalls++;
                continue;
            }
            sv = an_server_on(c, b->object);
            st->call[st->n_calls++] = sv;
            st->requests = an_add(st->requests, an_request(c, sv));
            for (v = 0; v < t->n_visits && t->visits[v] != sv; v++)
                ;
            if (v == t->n_visits) {
                if (t->n_visits == AN_MAX_CALLS)
                    return false;
                t->visits[t->n_visits++] = sv;
            }
            t->p_eff = an_reach_low(c, sv, t->p_eff);
        }
    }
    return true;
}

/* Every irq_ack of a candidate's bodies acknowledges a device of its
 * notification (a wait loop's: the device it is woken by). */
static bool acks_ok(const struct an_ctx *c, uint32_t i)
{
    const struct scenario *s = c->s;
    const struct an_thread *t = &c->t[i];
    uint32_t o = t->msg_object != SCN_NONE ? t->msg_object : t->wait_ntfn;
    const struct scn_thread *th = &s->threads[i];
    const struct scn_step *p = an_step(s, th->prog_first + th->prog_count - 1);
    if (t->msg_object != SCN_NONE) {
        if (p->body_count != 3)
            return true;
        const struct scn_step *ack = an_step(s, p->body_first + 2);
        return ack->kind == STEP_IRQ_ACK && !t->by_endpoint &&
               s->devices[ack->object].notification == o;
    }
    for (uint32_t k = 0; k < p->body_count; k++) {
        const struct scn_step *h = an_step(s, p->body_first + k);
        for (uint32_t x = 0; x < h->body_count; x++) {
            const struct scn_step *b = an_step(s, h->body_first + x);
            if (b->kind == STEP_IRQ_ACK && s->devices[b->object].notification != o)
                return false;
        }
    }
    return true;
}

/* Resolve each send source to the thread and stream holding it: false if
 * one is not modelled. */
static bool resolve(struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = &streams(c, t)[m];
        for (uint32_t x = st->src_first; x < st->src_first + st->n_src; x++) {
            struct an_source *sr = &c->srcs[x];
            uint32_t th, sm, first;
            if (sr->dev != SCN_NONE)
                continue;
            if (!holder(c, sr->step, &th, &sm))
                return false; /* its own: arrivals unknown (source_comps) */
            sr->sender = th;
            sr->stream = sm;
            first = sm == SCN_NONE ? c->t[th].job_first : streams(c, &c->t[th])[sm].body_first;
            sr->cmin = before(c->s, first, sr->step);
        }
    }
    return true;
}

static void demote(struct an_thread *t, const char *why)
{
    t->shape = SHAPE_OTHER;
    t->why_other = why;
}

/* A passive PD both called and signalled (analysis_ppc.c checked its
 * handlers and its notification) gets the streams of its notified
 * handlers and stays a server for its callers, linked before. Its level:
 * the lowest priority its requests reach, as a run can wait for the
 * request in progress (an_serve_bound). */
static int ppc_streams(struct an_ctx *c, uint32_t i)
{
    struct an_thread *t = &c->t[i];
    if (!object_own(c, i)) {
        t->ppc_ntfn = t->ntfn_unlinked = true; /* no streams: no bound, its demand none */
        return 0;
    }
    if (make_streams(c, i) != 0)
        return -1;
    t->ppc_ntfn = true;
    t->p_eff = an_reach_low(c, i, t->prio);
    return 0;
}

int an_serve_link(struct an_ctx *c)
{
    /* every candidate still unmodelled gets its streams and becomes SERVE */
    for (uint32_t i = 0; i < c->n; i++) {
        struct an_thread *t = &c->t[i];
        if (t->serve_candidate && t->shape == SHAPE_SERVER && t->ppc && ppc_streams(c, i) != 0)
            return -1;
        /* a called PD left unmodelled (its calls) serves requests: never
         * a served thread of its notified handlers alone */
        if (!t->serve_candidate || t->shape != SHAPE_OTHER || t->background || t->ppc)
            continue;
        /* a wait/recv loop that link_calls left unmodelled (a call to no
         * modelled server, or to an active server not above it) */
        if (t->msg_object == SCN_NONE && !t->active &&
            an_step(c->s, c->s->threads[i].prog_first + c->s->threads[i].prog_count - 1)->kind !=
                STEP_SERVE)
            continue;
        if (!object_own(c, i)) {
            demote(t, "its notification (endpoint) has a context, or another receiver");
            continue;
        }
        if (!acks_ok(c, i)) {
            demote(t, "it acknowledges a device of another notification");
            continue;
        }
        if (t->bsends > 0) {
            demote(t, "a blocking send in the job of a thread of several senders");
            continue;
        }
        if (make_streams(c, i) != 0)
            return -1;
        if (!calls_ok(c, i) || !link_stream_calls(c, i)) {
            demote(t, "a handler calls an endpoint no modelled passive server, nor an active "
                      "server above it, receives on");
            t->n_visits = 0;
            continue;
        }
        /* no stream: nothing releases a handler, it never runs (no jobs) */
        t->shape = SHAPE_SERVE;
        t->device = SCN_NONE;
        t->sender = SCN_NONE;
    }
    /* ... then loses it while a source is in no modelled job (a called
     * PD stays a server: its runs' demand and bound are then none) */
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i].shape == SHAPE_SERVER && c->t[i].ppc_ntfn && !resolve(c, i))
            c->t[i].ntfn_unlinked = true;
    for (uint32_t round = 0; round <= c->n; round++) {
        bool changed = false;
        for (uint32_t i = 0; i < c->n; i++)
            if (c->t[i].shape == SHAPE_SERVE && !resolve(c, i)) {
                demote(&c->t[i], "woken by a message that no modelled thread's job sends");
                changed = true;
            }
        if (!changed)
            break;
    }
    return 0;
}

bool an_serve_receives(const struct an_ctx *c, const struct scn_step *b)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const struct an_thread *t = &c->t[i];
        if (!an_has_streams(t))
            continue;
        if (b->kind == STEP_NBSEND && t->msg_object == b->object && t->by_endpoint)
            return true;
        if (b->kind == STEP_SIGNAL && !t->by_endpoint &&
            (t->msg_object != SCN_NONE ? t->msg_object : t->wait_ntfn) == b->object)
            return true;
    }
    return false;
}

/* Why SERVE thread i cannot stay modelled (a source's holder was
 * demoted), NULL if it can. */
const char *an_serve_unlinked(const struct an_ctx *c, uint32_t i)
{
    const struct an_thread *t = &c->t[i];
    for (uint32_t m = 0; m < t->n_streams; m++) {
        const struct an_stream *st = &streams(c, t)[m];
        for (uint32_t x = st->src_first; x < st->src_first + st->n_src; x++) {
            const struct an_source *sr = &c->srcs[x];
            if (sr->dev == SCN_NONE &&
                (sr->stream == SCN_NONE ? c->t[sr->sender].shape != SHAPE_DEVICE
                                        : !an_has_streams(&c->t[sr->sender])))
                return "woken by a message of a thread that is not modelled";
        }
    }
    return NULL;
}

/*
 * The critical instant (an_critical_instant) needs every interferer at
 * the level to have nothing pending whenever the level is idle, and to
 * run its pending work whenever nothing above it runs: then its runs in
 * a window that starts at such an instant need events inside it, at most
 * eta_m(d) per stream (analysis_serve.c, runs()). A served thread never
 * suspends with work pending when it makes no call, serves no call and
 * is never throttled (classic, a round-robin context, or one proven never
 * to run out). Its pending work is its notification word (endpoint), the
 * batch in progress, and an interrupt held on a masked line: one that
 * arrived while the line was masked is delivered at the next irq_ack with
 * its arrival time. While the thread is blocked with an empty word, no
 * line of its notification holds one when every device of it is either
 * never acknowledged (masked for ever after its first delivery: its held
 * interrupt is never delivered) or acknowledged by the handler of a bit
 * of its own badge: each delivery sets that bit, the thread then takes it
 * and runs that handler, whose irq_ack unmasks the line before the thread
 * blocks again (an interrupt held meanwhile is delivered there and sets
 * the bit again). A wait loop acknowledges its device after every job.
 */
bool an_serve_crit(const struct an_ctx *c, uint32_t j)
{
    const struct scenario *s = c->s;
    const struct an_thread *t = &c->t[j];
    if (t->shape != SHAPE_SERVE || t->n_visits > 0 || t->acalls > 0 ||
        (c->mcs && !t->rr && !t->safe))
        return false;
    for (uint32_t m = 0; m < t->n_streams; m++)
        if (streams(c, t)[m].calls || streams(c, t)[m].once)
            return false; /* an active server's calls (overtaken, queued); an init */
    if (t->msg_object != SCN_NONE)
        return true;
    for (uint32_t d = 0; d < s->n_devices; d++) {
        bool acked = false, own = false;
        if (!an_device_fires(s, d, t->wait_ntfn))
            continue;
        for (uint32_t m = 0; m < t->n_streams; m++) {
            const struct an_stream *st = &streams(c, t)[m];
            for (uint32_t k = st->body_first; k < st->body_first + st->body_count; k++)
                if (an_step(s, k)->kind == STEP_IRQ_ACK && an_step(s, k)->object == d) {
                    acked = true;
                    own |= st->bit <= SCN_MAX_BADGE_BIT && feeds(dev_badge(s, d), st->bit);
                }
        }
        if (acked && !own)
            return false;
    }
    return true;
}
