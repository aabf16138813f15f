/*
 * Compiling a thread's steps to interpreter instructions (program.h).
 */
#include "program.h"

#include <stdlib.h>
#include <string.h>

struct builder {
    const struct scenario *s;
    uint32_t ti;
    struct program *p;
    uint32_t cap_ops;
    uint32_t cap_rngs;
    int failed;
};

static struct op *emit(struct builder *b, uint8_t kind, uint32_t step)
{
    if (b->p->n_ops == b->cap_ops) {
        uint32_t cap = b->cap_ops ? b->cap_ops * 2 : 16;
        struct op *ops = realloc(b->p->ops, cap * sizeof *ops);
        if (ops == NULL) {
            b->failed = 1;
            static struct op sink;
            return &sink;
        }
        b->p->ops = ops;
        b->cap_ops = cap;
    }
    struct op *op = &b->p->ops[b->p->n_ops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->step = step;
    op->rng = UINT32_MAX;
    return op;
}

static uint32_t new_rng(struct builder *b, uint32_t step)
{
    if (b->p->n_rngs == b->cap_rngs) {
        uint32_t cap = b->cap_rngs ? b->cap_rngs * 2 : 4;
        uint32_t *r = realloc(b->p->rng_steps, cap * sizeof *r);
        if (r == NULL) {
            b->failed = 1;
            return 0;
        }
        b->p->rng_steps = r;
        b->cap_rngs = cap;
    }
    b->p->rng_steps[b->p->n_rngs] = step;
    return b->p->n_rngs++;
}

static void compile_steps(struct builder *b, uint32_t first, uint32_t count);
static void compile_serve(struct builder *b, uint32_t idx);

static void compile_ipc(struct builder *b, const struct scn_step *st, uint32_t idx, uint8_t kind)
{
    struct op *op = emit(b, kind, idx);
    op->a = st->object;
    if (st->badge != 0) {
        op->cap = program_slot_badged(b->s, &b->p->slots, b->ti, idx);
        return;
    }
    switch (kind) {
    case OP_SIGNAL:
    case OP_WAIT:
    case OP_POLL:
        op->cap = program_slot_object(&b->p->slots, POBJ_NOTIFICATION, st->object);
        break;
    case OP_IRQ_ACK:
        op->cap = program_slot_object(&b->p->slots, POBJ_DEVICE, st->object);
        break;
    case OP_REPLY:
        break;
    default:
        op->cap = program_slot_object(&b->p->slots, POBJ_ENDPOINT, st->object);
        break;
    }
}

/*
 * A serve step: its receive, the dispatch on the badge, a jump table of
 * SERVE_TABLE entries (a channel without a handler goes back to the
 * dispatch, as a Microkit PD ignores it) and each handler as one job that
 * ends by going back to the dispatch.
 */
static void compile_serve(struct builder *b, uint32_t idx)
{
    const struct scn_step *st = &b->s->steps[idx];
    uint32_t locals = b->p->n_locals, recv, disp, table;
    struct op *op;

    b->p->n_locals += SERVE_LOCALS;
    op = emit(b, OP_SERVE_RECV, idx); /* the first receive (a passive thread's start) */
    op->max = 1;
    disp = b->p->n_ops;
    emit(b, OP_SERVE_DISPATCH, idx);
    recv = b->p->n_ops;
    emit(b, OP_SERVE_RECV, idx);
    emit(b, OP_JUMP, idx)->a = disp;
    table = b->p->n_ops;
    for (uint32_t k = 0; k < SERVE_TABLE; k++)
        emit(b, OP_JUMP, idx)->a = disp;
    for (uint32_t h = 0; h < st->body_count; h++) {
        const struct scn_step *hs = &b->s->steps[st->body_first + h];
        uint32_t entry = table + hs->count + (hs->kind == STEP_ON_PROTECTED ? SERVE_CHANNELS : 0);
        if (!b->failed)
            b->p->ops[entry].a = b->p->n_ops;
        emit(b, OP_JOB_BEGIN, st->body_first + h);
        compile_steps(b, hs->body_first, hs->body_count);
        emit(b, OP_JOB_END, st->body_first + h);
        emit(b, OP_JUMP, st->body_first + h)->a = disp;
    }
    for (uint32_t i = disp - 1; !b->failed && i < table; i++) {
        op = &b->p->ops[i];
        if (op->kind == OP_SERVE_RECV) {
            op->b = locals;
            op->a = st->ntfn;
            op->min = st->object != SCN_NONE;
            op->cap = st->object != SCN_NONE
                          ? program_slot_object(&b->p->slots, POBJ_ENDPOINT, st->object)
                          : program_slot_object(&b->p->slots, POBJ_NOTIFICATION, st->ntfn);
        } else if (op->kind == OP_SERVE_DISPATCH) {
            op->a = locals;
            op->b = table;
            op->min = recv;
        }
    }
}

static void compile_step(struct builder *b, uint32_t idx)
{
    const struct scn_step *st = &b->s->steps[idx];
    struct op *op;
    uint32_t start;

    switch (st->kind) {
    case STEP_COMPUTE:
        op = emit(b, OP_COMPUTE, idx);
        op->min = st->min;
        op->max = st->max;
        if (st->min < st->max)
            op->rng = new_rng(b, idx);
        break;
    case STEP_JOB:
        emit(b, OP_JOB_BEGIN, idx);
        compile_steps(b, st->body_first, st->body_count);
        emit(b, OP_JOB_END, idx);
        break;
    case STEP_LOOP:
        start = b->p->n_ops;
        compile_steps(b, st->body_first, st->body_count);
        emit(b, OP_JUMP, idx)->a = start;
        break;
    case STEP_REPEAT:
        if (st->count == 0)
            break;
        op = emit(b, OP_REPEAT_INIT, idx);
        op->a = b->p->n_locals++;
        op->b = st->count;
        start = b->p->n_ops;
        compile_steps(b, st->body_first, st->body_count);
        op = emit(b, OP_REPEAT_NEXT, idx);
        op->a = b->p->n_locals - 1;
        op->b = start;
        break;
    case STEP_YIELD:
        emit(b, OP_YIELD, idx);
        break;
    case STEP_CALL:
        compile_ipc(b, st, idx, OP_CALL);
        break;
    case STEP_SEND:
        compile_ipc(b, st, idx, OP_SEND);
        break;
    case STEP_NBSEND:
        compile_ipc(b, st, idx, OP_NBSEND);
        break;
    case STEP_RECV:
        compile_ipc(b, st, idx, OP_RECV);
        break;
    case STEP_REPLY:
        compile_ipc(b, st, idx, OP_REPLY);
        break;
    case STEP_REPLY_RECV:
        compile_ipc(b, st, idx, OP_REPLY_RECV);
        break;
    case STEP_SIGNAL:
        compile_ipc(b, st, idx, OP_SIGNAL);
        break;
    case STEP_WAIT:
        compile_ipc(b, st, idx, OP_WAIT);
        break;
    case STEP_POLL:
        compile_ipc(b, st, idx, OP_POLL);
        break;
    case STEP_IRQ_ACK:
        compile_ipc(b, st, idx, OP_IRQ_ACK);
        break;
    case STEP_SERVE:
        compile_serve(b, idx);
        break;
    case STEP_ON_NOTIFIED:
    case STEP_ON_PROTECTED:
        break; /* compiled by compile_serve */
    case STEP_HANDLE_TIMEOUTS:
        op = emit(b, OP_TIMEOUTS, idx);
        op->cap = program_slot_object(&b->p->slots, POBJ_ENDPOINT, st->timeouts.endpoint);
        op->a = st->timeouts.action;
        op->b = st->timeouts.endpoint;
        op->min = st->timeouts.emergency;
        break;
    }
}

static void compile_steps(struct builder *b, uint32_t first, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        compile_step(b, first + i);
}

/* A passive server's first receive also tells whoever started it that it
 * has reached it (docs/kernel-semantics.md 4: NBSendRecv to the initialiser). */
static void mark_passive_start(struct program *p)
{
    if (p->n_ops == 0)
        return;
    if (p->ops[0].kind == OP_SERVE_RECV)
        return; /* its first receive is marked (max = 1) */
    if (p->ops[0].kind == OP_RECV)
        p->ops[0].kind = OP_INIT_RECV;
    else if (p->ops[0].kind == OP_WAIT)
        p->ops[0].kind = OP_INIT_WAIT;
}

int program_compile(const struct scenario *s, uint32_t ti, bool mcs, struct program *out)
{
    const struct scn_thread *t = &s->threads[ti];
    struct builder b = {.s = s, .ti = ti, .p = out};

    memset(out, 0, sizeof *out);
    if (program_slots_init(s, ti, &out->slots) != 0)
        return -1;
    compile_steps(&b, t->prog_first, t->prog_count);
    emit(&b, OP_EXIT, t->prog_count ? t->prog_first : 0);
    if (mcs && t->passive)
        mark_passive_start(out);
    else
        for (uint32_t i = 0; i < out->n_ops; i++)
            if (out->ops[i].kind == OP_SERVE_RECV)
                out->ops[i].max = 0;
    if (b.failed) {
        program_release(out);
        return -1;
    }
    return 0;
}

void program_release(struct program *p)
{
    free(p->ops);
    free(p->rng_steps);
    program_slots_release(&p->slots);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------- capability needs */

typedef void (*step_visit_fn)(const struct scn_step *st, void *ctx);

static void visit_steps(const struct scenario *s, uint32_t first, uint32_t count,
                        step_visit_fn fn, void *ctx)
{
    for (uint32_t i = 0; i < count; i++) {
        const struct scn_step *st = &s->steps[first + i];
        fn(st, ctx);
        if (st->kind == STEP_JOB || st->kind == STEP_LOOP || st->kind == STEP_REPEAT ||
            st->kind == STEP_SERVE || st->kind == STEP_ON_NOTIFIED ||
            st->kind == STEP_ON_PROTECTED)
            visit_steps(s, st->body_first, st->body_count, fn, ctx);
    }
}

struct rights_query {
    enum scn_step_kind kinds[4];
    unsigned rights[4];
    unsigned n;
    uint32_t object;
    unsigned result;
};

static void rights_visit(const struct scn_step *st, void *ctx)
{
    struct rights_query *q = ctx;
    if (st->badge != 0)
        return; /* a capability of its own (program_slot_badged) */
    /* serve receives on its endpoint, or waits on its notification */
    if (st->kind == STEP_SERVE && st->object == q->object &&
        (q->kinds[0] == STEP_CALL || q->kinds[0] == STEP_REPLY_RECV))
        q->result |= RIGHT_READ;
    if (st->kind == STEP_SERVE && st->object == SCN_NONE && st->ntfn == q->object &&
        q->kinds[0] == STEP_SIGNAL)
        q->result |= RIGHT_READ;
    for (unsigned k = 0; k < q->n; k++) {
        if (st->kind == q->kinds[k] && st->object == q->object)
            q->result |= q->rights[k];
    }
    if (st->kind == STEP_HANDLE_TIMEOUTS && q->kinds[0] == STEP_CALL &&
        st->timeouts.endpoint == q->object)
        q->result |= RIGHT_READ;
}

static unsigned query_rights(const struct scenario *s, uint32_t ti, struct rights_query *q)
{
    const struct scn_thread *t = &s->threads[ti];
    visit_steps(s, t->prog_first, t->prog_count, rights_visit, q);
    return q->result;
}

unsigned program_endpoint_rights(const struct scenario *s, uint32_t ti, uint32_t i)
{
    struct rights_query q = {
        .kinds = {STEP_CALL, STEP_SEND, STEP_NBSEND, STEP_RECV},
        .rights = {RIGHT_WRITE | RIGHT_GRANT_REPLY, RIGHT_WRITE, RIGHT_WRITE, RIGHT_READ},
        .n = 4,
        .object = i,
    };
    unsigned r = query_rights(s, ti, &q);
    struct rights_query q2 = {.kinds = {STEP_REPLY_RECV}, .rights = {RIGHT_READ}, .n = 1,
                              .object = i};
    return r | query_rights(s, ti, &q2);
}

unsigned program_notification_rights(const struct scenario *s, uint32_t ti, uint32_t i)
{
    struct rights_query q = {
        .kinds = {STEP_SIGNAL, STEP_WAIT, STEP_POLL},
        .rights = {RIGHT_WRITE, RIGHT_READ, RIGHT_READ},
        .n = 3,
        .object = i,
    };
    return query_rights(s, ti, &q);
}

bool program_uses_device(const struct scenario *s, uint32_t ti, uint32_t i)
{
    struct rights_query q = {.kinds = {STEP_IRQ_ACK}, .rights = {1}, .n = 1, .object = i};
    return query_rights(s, ti, &q) != 0;
}

int program_timeout_action(const struct scenario *s, uint32_t ti)
{
    const struct scn_thread *t = &s->threads[ti];
    for (uint32_t i = t->prog_first; i < t->prog_first + t->prog_count; i++) {
        if (s->steps[i].kind == STEP_HANDLE_TIMEOUTS)
            return (int)s->steps[i].timeouts.action;
    }
    return -1;
}

bool program_handles_timeouts(const struct scenario *s, uint32_t ti, uint32_t ep)
{
    const struct scn_thread *t = &s->threads[ti];
    for (uint32_t i = t->prog_first; i < t->prog_first + t->prog_count; i++) {
        /* handle_timeouts serves forever, so it is a top-level step */
        if (s->steps[i].kind == STEP_HANDLE_TIMEOUTS && s->steps[i].timeouts.endpoint == ep)
            return true;
    }
    return false;
}

bool program_has_timeout_handler(const struct scenario *s, uint32_t si)
{
    uint32_t ep = s->threads[si].timeout_endpoint;

    if (ep == SCN_NONE)
        return false;
    for (uint32_t h = 0; h < s->n_threads; h++) {
        if (program_handles_timeouts(s, h, ep))
            return true;
    }
    return false;
}

int program_inherit_handler(const struct scenario *s, uint32_t si)
{
    uint32_t ep = s->threads[si].timeout_endpoint;

    if (ep == SCN_NONE)
        return -1;
    for (uint32_t h = 0; h < s->n_threads; h++) {
        if (program_handles_timeouts(s, h, ep))
            return program_timeout_action(s, h) == TIMEOUT_INHERIT ? (int)h : -1;
    }
    return -1;
}

int program_done_handler(const struct scenario *s, uint32_t si)
{
    uint32_t ep = s->threads[si].timeout_endpoint;

    if (ep == SCN_NONE)
        return -1;
    for (uint32_t h = 0; h < s->n_threads; h++) {
        if (program_handles_timeouts(s, h, ep)) {
            int action = program_timeout_action(s, h);
            return action == TIMEOUT_INHERIT || action == TIMEOUT_EMERGENCY_BUDGET ? (int)h : -1;
        }
    }
    return -1;
}

uint32_t program_server_rank(const struct scenario *s, uint32_t si)
{
    uint32_t k = 0;

    for (uint32_t j = 0; j < si; j++)
        k += s->threads[j].timeout_endpoint == s->threads[si].timeout_endpoint;
    return k;
}

int program_server_of_rank(const struct scenario *s, uint32_t ep, uint32_t k)
{
    for (uint32_t j = 0; j < s->n_threads; j++) {
        if (s->threads[j].timeout_endpoint == ep && k-- == 0)
            return (int)j;
    }
    return -1;
}

unsigned program_done_shift(const struct scenario *s)
{
    unsigned shift = 8;

    while (((uint64_t)1 << shift) <= s->n_threads)
        shift++;
    return shift;
}

bool program_endpoint_lendable(const struct scenario *s, uint32_t ep)
{
    for (uint32_t si = 0; si < s->n_threads; si++) {
        if ((program_endpoint_rights(s, si, ep) & RIGHT_READ) && !program_handles_timeouts(s, si, ep) &&
            program_inherit_handler(s, si) >= 0)
            return true;
    }
    return false;
}

/* ------------------------------------------------------- badged capabilities */

struct visit_all {
    const struct scenario *s;
    void (*fn)(void *ctx, uint32_t step);
    void *ctx;
};

static void visit_all_fn(const struct scn_step *st, void *ctx)
{
    struct visit_all *v = ctx;
    v->fn(v->ctx, (uint32_t)(st - v->s->steps));
}

void program_visit(const struct scenario *s, uint32_t ti, void (*fn)(void *ctx, uint32_t step),
                   void *ctx)
{
    struct visit_all v = {s, fn, ctx};
    visit_steps(s, s->threads[ti].prog_first, s->threads[ti].prog_count, visit_all_fn, &v);
}

unsigned program_badged_rights(const struct scn_step *st)
{
    return st->kind == STEP_CALL ? RIGHT_WRITE | RIGHT_GRANT_REPLY : RIGHT_WRITE;
}
