/*
 * The soundness test's thread classes (sound_shapes.h): predicates over a
 * scenario's programs, one per shape the generator's knobs make.
 */
#include "sound_shapes.h"

/* The first step of thread i's loop, NULL if its program is not a loop. */
static const struct scn_step *loop_head(const struct scenario *s, uint32_t i)
{
    const struct scn_step *p = &s->steps[s->threads[i].prog_first];
    if (s->threads[i].prog_count != 1 || p->kind != STEP_LOOP || p->body_count == 0)
        return NULL;
    return &s->steps[p->body_first];
}

/* Woken by a message: loop [wait N; job] with no device on N, or loop [recv E; job]. */
static bool by_message(const struct scenario *s, uint32_t i)
{
    const struct scn_step *b = loop_head(s, i);
    if (!b || (b->kind != STEP_WAIT && b->kind != STEP_RECV))
        return false;
    for (uint32_t d = 0; b->kind == STEP_WAIT && d < s->n_devices; d++)
        if (s->devices[d].notification == b->object)
            return false;
    return true;
}

/* A serve loop (its program is one serve step), with an endpoint (`ppc`)
 * or without. */
static bool serve_loop(const struct scenario *s, uint32_t i, bool ppc)
{
    const struct scn_step *p = &s->steps[s->threads[i].prog_first];
    return s->threads[i].prog_count == 1 && p->kind == STEP_SERVE &&
           (p->object != SCN_NONE) == ppc;
}

/* Woken by a message that two or more steps send. */
static bool several_senders(const struct scenario *s, uint32_t i)
{
    const struct scn_step *b = loop_head(s, i);
    uint32_t n = 0;
    if (!by_message(s, i))
        return false;
    for (uint32_t k = 0; k < s->n_steps; k++)
        n += s->steps[k].object == b->object &&
             (b->kind == STEP_WAIT ? s->steps[k].kind == STEP_SIGNAL
                                   : s->steps[k].kind == STEP_NBSEND);
    return n >= 2;
}

/* Steps of `kind` on `object` in the scenario. */
static uint32_t uses(const struct scenario *s, enum scn_step_kind kind, uint32_t object)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->n_steps; k++)
        n += s->steps[k].kind == kind && s->steps[k].object == object;
    return n;
}

/* A passive serve loop with an endpoint no step calls (ntfnep_share). */
static bool ntfn_ep(const struct scenario *s, uint32_t i)
{
    return s->threads[i].passive && serve_loop(s, i, true) &&
           uses(s, STEP_CALL, s->steps[s->threads[i].prog_first].object) == 0;
}

/* A passive serve loop with an endpoint that is called and a notification
 * a device interrupts (ppc_signalled). */
static bool called_signalled(const struct scenario *s, uint32_t i)
{
    const struct scn_step *sv = &s->steps[s->threads[i].prog_first];
    if (!s->threads[i].passive || !serve_loop(s, i, true) || sv->ntfn == SCN_NONE ||
        uses(s, STEP_CALL, sv->object) == 0)
        return false;
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (s->devices[d].notification == sv->ntfn)
            return true;
    return false;
}

/* The endpoint of a serve loop with a protected handler that calls twice
 * (twice_share), SCN_NONE if thread i is none. */
static uint32_t twice_ep(const struct scenario *s, uint32_t i)
{
    const struct scn_step *sv = &s->steps[s->threads[i].prog_first];
    if (!serve_loop(s, i, true))
        return SCN_NONE;
    for (uint32_t h = sv->body_first; h < sv->body_first + sv->body_count; h++) {
        uint32_t calls = 0;
        for (uint32_t k = 0; k < s->steps[h].body_count; k++)
            calls += s->steps[s->steps[h].body_first + k].kind == STEP_CALL;
        if (s->steps[h].kind == STEP_ON_PROTECTED && calls >= 2)
            return sv->object;
    }
    return SCN_NONE;
}

/* Steps [first, first + count) (bodies included) call an endpoint
 * other than *ep (the first call's, SCN_NONE before it). */
static bool calls_other(const struct scenario *s, uint32_t first, uint32_t count, uint32_t *ep)
{
    for (uint32_t k = first; k < first + count; k++) {
        const struct scn_step *b = &s->steps[k];
        if (b->kind == STEP_CALL && *ep != SCN_NONE && b->object != *ep)
            return true;
        if (b->kind == STEP_CALL)
            *ep = b->object;
        if (b->body_count > 0 && calls_other(s, b->body_first, b->body_count, ep))
            return true;
    }
    return false;
}

/* The endpoint of a passive server (recv loop or serve loop with an
 * endpoint) that calls two different servers (two_share), else SCN_NONE. */
static uint32_t two_ep(const struct scenario *s, uint32_t i)
{
    const struct scn_thread *th = &s->threads[i];
    const struct scn_step *p = &s->steps[th->prog_first];
    uint32_t ep = SCN_NONE;
    if (!th->passive || (p->kind != STEP_RECV && !serve_loop(s, i, true)))
        return SCN_NONE;
    return calls_other(s, th->prog_first, th->prog_count, &ep) ? p->object : SCN_NONE;
}

/* Steps [first, first + count) (bodies included) call endpoint ep. */
static bool calls_ep(const struct scenario *s, uint32_t first, uint32_t count, uint32_t ep)
{
    for (uint32_t k = first; k < first + count; k++)
        if ((s->steps[k].kind == STEP_CALL && s->steps[k].object == ep) ||
            (s->steps[k].body_count > 0 &&
             calls_ep(s, s->steps[k].body_first, s->steps[k].body_count, ep)))
            return true;
    return false;
}

/* Thread i is such a server, or a step of its program calls one. */
static bool two(const struct scenario *s, uint32_t i)
{
    const struct scn_thread *th = &s->threads[i];
    if (two_ep(s, i) != SCN_NONE)
        return true;
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (two_ep(s, k) != SCN_NONE &&
            calls_ep(s, th->prog_first, th->prog_count, two_ep(s, k)))
            return true;
    return false;
}

/* Thread i is such a serve loop, or its job calls one. */
static bool twice(const struct scenario *s, uint32_t i)
{
    const struct scn_step *b = loop_head(s, i);
    if (twice_ep(s, i) != SCN_NONE)
        return true;
    for (uint32_t k = 0; b && b->kind == STEP_WAIT && k < s->n_threads; k++) {
        const struct scn_step *job = b + 1;
        uint32_t ep = twice_ep(s, k);
        for (uint32_t x = job->body_first; ep != SCN_NONE && x < job->body_first + job->body_count;
             x++)
            if (s->steps[x].kind == STEP_CALL && s->steps[x].object == ep)
                return true;
    }
    return false;
}

/* Woken by a blocking send: loop [recv E; job] with a send to E. */
static bool by_send(const struct scenario *s, uint32_t i)
{
    const struct scn_step *b = loop_head(s, i);
    return b && b->kind == STEP_RECV && uses(s, STEP_SEND, b->object) > 0;
}

/* Steps [first, first + count), bodies included, have a step of `kind`
 * (a blocking send, a call). */
static bool has_kind(const struct scenario *s, uint32_t first, uint32_t count,
                     enum scn_step_kind kind)
{
    for (uint32_t k = first; k < first + count; k++)
        if (s->steps[k].kind == kind ||
            (s->steps[k].body_count > 0 &&
             has_kind(s, s->steps[k].body_first, s->steps[k].body_count, kind)))
            return true;
    return false;
}

/* Its program makes a blocking send. */
static bool sends_blocking(const struct scenario *s, uint32_t i)
{
    return has_kind(s, s->threads[i].prog_first, s->threads[i].prog_count, STEP_SEND);
}

/* Thread i is a background loop (loop [job [...]] or with a yield after
 * the job) whose job calls (`call`; with an `object`, and also signals,
 * nbsends or sends to it), or calls or sends (!call). */
static bool bg_job(const struct scenario *s, uint32_t i, bool call, uint32_t object)
{
    const struct scn_step *b = loop_head(s, i);
    bool calls = false, sends = false;
    if (!b || b->kind != STEP_JOB)
        return false;
    for (uint32_t k = b->body_first; k < b->body_first + b->body_count; k++) {
        const struct scn_step *x = &s->steps[k];
        calls |= x->kind == STEP_CALL;
        sends |= (x->kind == STEP_SIGNAL || x->kind == STEP_NBSEND || x->kind == STEP_SEND) &&
                 (object == SCN_NONE || x->object == object);
    }
    return call ? calls && (object == SCN_NONE || sends) : calls || sends;
}

/* A background loop (its loop's first step a job) with a start or a step
 * outside its job other than a yield right after it. */
static bool bg_shape(const struct scenario *s, uint32_t i)
{
    const struct scn_step *b = loop_head(s, i), *loop = &s->steps[s->threads[i].prog_first];
    if (!b || b->kind != STEP_JOB)
        return false;
    return s->threads[i].start > 0 || loop->body_count > 2 ||
           (loop->body_count == 2 && s->steps[loop->body_first + 1].kind != STEP_YIELD);
}

/* Woken by a message sent in the job of a background loop that calls. */
static bool by_bg_caller(const struct scenario *s, uint32_t i)
{
    const struct scn_step *b = loop_head(s, i);
    if (!by_message(s, i))
        return false;
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (k != i && bg_job(s, k, true, b->object))
            return true;
    return false;
}

/* Another thread at its priority is always ready (loop [job ...]). */
static bool beside_ready(const struct scenario *s, uint32_t i)
{
    for (uint32_t k = 0; k < s->n_threads; k++) {
        const struct scn_step *b = loop_head(s, k);
        if (k != i && s->threads[k].priority == s->threads[i].priority && b &&
            b->kind == STEP_JOB)
            return true;
    }
    return false;
}

/* The endpoint of an active serve loop (a context of its own) whose
 * budget is below its period (active_above; `any`: whatever its
 * context), else SCN_NONE. */
static uint32_t active_ep(const struct scenario *s, uint32_t i, bool any)
{
    const struct scn_thread *th = &s->threads[i];
    if (th->passive || !serve_loop(s, i, true) || !th->sc.present ||
        (!any && th->sc.budget >= th->sc.period))
        return SCN_NONE;
    return s->steps[th->prog_first].object;
}

/* Thread i is an active server with a budget below its period, or its
 * program calls one. */
static bool active_below(const struct scenario *s, uint32_t i)
{
    const struct scn_thread *th = &s->threads[i];
    if (active_ep(s, i, false) != SCN_NONE)
        return true;
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (active_ep(s, k, false) != SCN_NONE &&
            calls_ep(s, th->prog_first, th->prog_count, active_ep(s, k, false)))
            return true;
    return false;
}

/* A serve loop or thread of several senders whose handlers call an
 * active server. */
static bool served_active(const struct scenario *s, uint32_t i)
{
    const struct scn_thread *th = &s->threads[i];
    if (!serve_loop(s, i, false) && !several_senders(s, i))
        return false;
    for (uint32_t k = 0; k < s->n_threads; k++)
        if (active_ep(s, k, true) != SCN_NONE &&
            calls_ep(s, th->prog_first, th->prog_count, active_ep(s, k, true)))
            return true;
    return false;
}

/* The classes that combine predicates. */
static bool is_message(const struct scenario *s, uint32_t i) { return by_message(s, i); }
static bool is_serve(const struct scenario *s, uint32_t i) { return serve_loop(s, i, false); }

static bool is_ppc(const struct scenario *s, uint32_t i)
{
    return !ntfn_ep(s, i) && serve_loop(s, i, true);
}

static bool is_passive(const struct scenario *s, uint32_t i)
{
    return s->threads[i].passive && !serve_loop(s, i, true) &&
           s->steps[s->threads[i].prog_first].kind != STEP_RECV;
}

static bool is_bg_job(const struct scenario *s, uint32_t i) { return bg_job(s, i, false, SCN_NONE); }

static bool is_srvcall(const struct scenario *s, uint32_t i)
{
    return (serve_loop(s, i, false) || several_senders(s, i)) &&
           has_kind(s, s->threads[i].prog_first, s->threads[i].prog_count, STEP_CALL);
}

static bool is_init(const struct scenario *s, uint32_t i)
{
    return s->threads[i].prog_count > 1 &&
           s->steps[s->threads[i].prog_first + s->threads[i].prog_count - 1].kind == STEP_SERVE;
}

const struct sound_class sound_classes[] = {
    {"woken by a message", is_message},
    {"beside an always-ready thread of their priority", beside_ready},
    {"serve loops", is_serve},
    {"woken by several senders", several_senders},
    {"blocking senders", sends_blocking},
    {"woken by a blocking send", by_send},
    {"serving protected procedures (serve with an endpoint)", is_ppc},
    {"passive handlers on their notification's context", is_passive},
    {"passive serve loops with an endpoint nothing calls", ntfn_ep},
    {"protected handlers calling a server twice, and their callers", twice},
    {"servers calling two different servers, and their callers", two},
    {"background jobs that call or send", is_bg_job},
    {"woken by a background caller", by_bg_caller},
    {"background loops with a start or steps outside their job", bg_shape},
    {"serve loops or threads of several senders whose handlers call", is_srvcall},
    {"serve loops after init steps", is_init},
    {"active servers with a budget below their period, and their callers",
     active_below},
    {"serve loops or threads of several senders calling an active server", served_active},
    {"passive servers called and interrupted", called_signalled},
};

const size_t sound_n_classes = sizeof sound_classes / sizeof sound_classes[0];
