/*
 * The layout of a thread's CNode (program.h, struct program_slots): its
 * own objects numbered for it alone, a timeout handler's server and
 * thread slots, the badged capabilities.
 */
#include <stdlib.h>
#include <string.h>

#include "program.h"

struct collect {
    const struct scenario *s;
    struct program_slots *ps;
    uint32_t cap;
    uint32_t n_badged;
    int failed;
};

/* Insert key into the ascending, duplicate-free list. */
static void add_object(struct collect *c, enum program_object kind, uint32_t i)
{
    struct program_slots *ps = c->ps;
    uint32_t key = (uint32_t)kind << PROGRAM_OBJECT_SHIFT | i, k = ps->n_objects;

    while (k > 0 && ps->objects[k - 1] > key)
        k--;
    if (k > 0 && ps->objects[k - 1] == key)
        return;
    if (ps->n_objects == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 8;
        uint32_t *o = realloc(ps->objects, cap * sizeof *o);
        if (o == NULL) {
            c->failed = 1;
            return;
        }
        ps->objects = o;
        c->cap = cap;
    }
    memmove(&ps->objects[k + 1], &ps->objects[k], (ps->n_objects - k) * sizeof *ps->objects);
    ps->objects[k] = key;
    ps->n_objects++;
}

/* The objects a step names through a capability of the thread's own (a
 * badged step has its own capability instead). */
static void collect_step(void *ctx, uint32_t step)
{
    struct collect *c = ctx;
    const struct scn_step *st = &c->s->steps[step];

    if (st->badge != 0) {
        c->n_badged++;
        return;
    }
    switch (st->kind) {
    case STEP_CALL:
    case STEP_SEND:
    case STEP_NBSEND:
    case STEP_RECV:
    case STEP_REPLY_RECV:
        add_object(c, POBJ_ENDPOINT, st->object);
        break;
    case STEP_SIGNAL:
    case STEP_WAIT:
    case STEP_POLL:
        add_object(c, POBJ_NOTIFICATION, st->object);
        break;
    case STEP_IRQ_ACK:
        add_object(c, POBJ_DEVICE, st->object);
        break;
    case STEP_HANDLE_TIMEOUTS:
        add_object(c, POBJ_ENDPOINT, st->timeouts.endpoint);
        break;
    case STEP_SERVE: /* receives on its endpoint, or waits on its notification */
        if (st->object != SCN_NONE)
            add_object(c, POBJ_ENDPOINT, st->object);
        else if (st->ntfn != SCN_NONE)
            add_object(c, POBJ_NOTIFICATION, st->ntfn);
        break;
    default:
        break;
    }
}

int program_slots_init(const struct scenario *s, uint32_t ti, struct program_slots *out)
{
    struct collect c = {.s = s, .ps = out};

    memset(out, 0, sizeof *out);
    program_visit(s, ti, collect_step, &c);
    if (c.failed) {
        program_slots_release(out);
        return -1;
    }
    out->servers = TSLOT_OBJECTS + out->n_objects;
    out->badged = out->servers;
    if (program_timeout_action(s, ti) >= 0) {
        out->threads = program_slot_server(s, out->servers, s->n_threads, 0);
        if (out->threads < TSLOT_THREAD)
            out->threads = TSLOT_THREAD;
        out->badged = out->threads + 2 * (cptr_t)s->n_threads;
    }
    out->end = out->badged + c.n_badged;
    out->cnode_bits = THREAD_CNODE_MIN_BITS;
    while (((cptr_t)1 << out->cnode_bits) < out->end)
        out->cnode_bits++;
    return 0;
}

void program_slots_release(struct program_slots *ps)
{
    free(ps->objects);
    memset(ps, 0, sizeof *ps);
}

cptr_t program_slot_object(const struct program_slots *ps, enum program_object kind, uint32_t i)
{
    uint32_t key = (uint32_t)kind << PROGRAM_OBJECT_SHIFT | i, lo = 0, hi = ps->n_objects;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ps->objects[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ps->n_objects && ps->objects[lo] == key ? TSLOT_OBJECTS + lo : 0;
}

cptr_t program_slot_server(const struct scenario *s, cptr_t first, uint32_t si,
                           enum server_cap which)
{
    uint32_t k = 0;

    for (uint32_t j = 0; j < si; j++)
        k += s->threads[j].timeout_endpoint != SCN_NONE;
    return first + SERVER_CAPS * k + which;
}

unsigned program_cnode_bits(const struct scenario *s, uint32_t ti)
{
    struct program_slots ps;

    if (program_slots_init(s, ti, &ps) != 0)
        return 0;
    unsigned bits = ps.cnode_bits;
    program_slots_release(&ps);
    return bits;
}

struct badged_rank {
    const struct scenario *s;
    uint32_t step, k;
    bool found;
};

static void badged_rank_fn(void *ctx, uint32_t step)
{
    struct badged_rank *r = ctx;
    if (r->found || r->s->steps[step].badge == 0)
        return;
    if (step == r->step)
        r->found = true;
    else
        r->k++;
}

cptr_t program_slot_badged(const struct scenario *s, const struct program_slots *ps, uint32_t ti,
                           uint32_t step)
{
    struct badged_rank r = {s, step, 0, false};
    program_visit(s, ti, badged_rank_fn, &r);
    return ps->badged + r.k;
}
