/* The inspection API of mcsim/kernel.h: read-only views of objects named
 * by a slot of the root task's CNode, for tests and end-of-run records. */
#include <mcsim/kernel.h>

#include "kernel/refill.h"
#include "kernel/structures.h"

/* NULL for a slot outside the root CNode, or when no kernel has booted
 * (a replay records another platform's kernel: this one has no root
 * CNode, and indexing its absent table is undefined behaviour). */
static struct cte *root_cte(uint64_t slot)
{
    if (ks.cfg.root_mem == NULL || slot >= (1u << ks.cfg.root_cnode_bits))
        return NULL;
    return &((struct cte *)ks.cfg.root_mem)[slot];
}

int kernel_inspect_sc(uint64_t root_slot, struct kinspect_sc *out)
{
    struct cte *c = root_cte(root_slot);
    struct sched_context *sc;

    if (!c || c->cap.type != CAP_SCHED_CONTEXT)
        return -1;
    sc = c->cap.obj;
    kmemset(out, 0, sizeof *out);
    out->budget = sc->budget;
    out->period = sc->period;
    out->consumed = sc->consumed;
    out->badge = sc->badge;
    out->bound_trace_id = sc->tcb ? sc->tcb->trace_id : 0;
    if (!sc_is_active(sc))
        return 0;
    for (unsigned i = 0; i < sc->count && i < 32; i++) {
        const struct refill *r = &sc->refills[(sc->head + i) % sc->refill_max];
        out->refills[i].time = r->time;
        out->refills[i].amount = r->amount;
        out->n_refills++;
    }
    return 0;
}

int kernel_inspect_thread(uint64_t root_slot, struct kinspect_thread *out)
{
    struct cte *c = root_cte(root_slot);
    struct tcb *t;

    if (!c || c->cap.type != CAP_TCB)
        return -1;
    t = c->cap.obj;
    out->state = t->state;
    out->prio = t->prio;
    out->mcp = t->mcp;
    out->sc_badge = t->sc ? t->sc->badge : 0;
    out->queued = t->queued;
    out->in_release_queue = t->in_release_queue;
    return 0;
}
