/*
 * The invariant checker (DESIGN.md "Kernel fidelity"): every ready thread
 * is schedulable and in exactly the queue of its priority, the bitmap
 * matches the queues, the release queue is ordered, every context's
 * refills sum to its budget and stay ordered, and the derivation tree's
 * links are consistent. Read-only, but for where it goes on in the root
 * CNode of a large system (check_root_cnode).
 */
#include "kernel/invariants.h"
#include "kernel/refill.h"
#include "kernel/relq.h"
#include "kernel/sched.h"

const char *invariants_check_sc(struct sched_context *sc)
{
    ticks_t sum = 0;

    if (!sc_is_active(sc))
        return NULL;
    if (sc->count == 0 || sc->count > sc->refill_max)
        return "refill count out of range";
    for (unsigned i = 0; i < sc->count; i++) {
        unsigned idx = (sc->head + i) % sc->refill_max;
        const struct refill *r = &sc->refills[idx];
        sum += r->amount;
        if (i + 1 < sc->count && !sc_is_round_robin(sc)) {
            const struct refill *n = &sc->refills[(idx + 1) % sc->refill_max];
            if (r->time + r->amount > n->time)
                return "refills overlap or are out of order";
        }
    }
    if (sum != sc->budget)
        return "refills do not sum to the budget";
    if (!sc_is_round_robin(sc) && refill_head(sc)->amount < sched_min_budget())
        return "head refill below MIN_BUDGET";
    return NULL;
}

static const char *check_ready_queues(void)
{
    for (unsigned p = 0; p < NUM_PRIORITIES; p++) {
        struct ready_queue *q = &ks.ready[p];
        bool bit = (ks.bitmap_l2[p / 64] >> (p % 64)) & 1u;
        if (bit != (q->head != NULL))
            return "ready bitmap does not match the queues";
        for (struct tcb *t = q->head; t; t = t->q_next) {
            if (!t->queued || t->prio != p)
                return "a queued thread is in the wrong queue";
            if (!sched_is_schedulable(t))
                return "a ready thread is not schedulable (no budget or not runnable)";
            if (t->q_next && t->q_next->q_prev != t)
                return "ready queue links broken";
            if (t == ks.cur_thread)
                return "the current thread is also queued";
        }
    }
    for (unsigned i = 0; i < NUM_PRIORITIES / 64; i++) {
        if (((ks.bitmap_l1 >> i) & 1u) != (ks.bitmap_l2[i] != 0))
            return "bitmap levels disagree";
    }
    return NULL;
}

static const char *check_release_queue(void)
{
    for (struct tcb *t = ks.release_head; t; t = t->q_next) {
        if (!t->in_release_queue || t->queued)
            return "release queue flags wrong";
        if (!sc_is_active(t->sc))
            return "a released thread has no active context";
        if (t->q_next && t->q_next->q_prev != t)
            return "release queue links broken";
    }
    return relq_check();
}

static const char *check_current(void)
{
    struct tcb *t = ks.cur_thread;

    if (t == &ks.idle)
        return NULL;
    if (!sched_is_schedulable(t))
        return "the current thread cannot run";
    if (ks.cfg.scheduler == SCHED_MCS) {
        if (ks.cur_sc != t->sc)
            return "the current context is not the current thread's";
        if (!refill_ready(t->sc, ks.cur_time))
            return "the current thread runs before its refill is due";
        return invariants_check_sc(t->sc);
    }
    return NULL;
}

/* Caps in the root CNode: derivation links consistent, every context
 * well formed. All of them after every entry with the default root CNode
 * (ROOT_CNODE_BITS); a larger one (a system of thousands of threads) is
 * checked CHECK_SLOTS_LARGE slots an entry, in turn, so that a debug run of it
 * stays linear in its entries and still visits every slot. */
#define CHECK_SLOTS (1u << ROOT_CNODE_BITS)
#define CHECK_SLOTS_LARGE 512u

static const char *check_root_cnode(void)
{
    struct cte *cnode = (struct cte *)ks.cfg.root_mem;
    unsigned n = 1u << ks.cfg.root_cnode_bits;
    unsigned first = 0;

    if (n > CHECK_SLOTS) {
        first = ks.check_cursor;
        ks.check_cursor = (first + CHECK_SLOTS_LARGE) & (n - 1);
        n = CHECK_SLOTS_LARGE;
    }
    for (unsigned k = 0; k < n; k++) {
        struct cte *c = &cnode[(first + k) & ((1u << ks.cfg.root_cnode_bits) - 1)];
        const char *why;
        if (c->cap.type == CAP_NULL)
            continue;
        if (c->mdb.next && c->mdb.next->mdb.prev != c)
            return "derivation tree: next/prev links disagree";
        if (c->mdb.prev && c->mdb.prev->mdb.next != c)
            return "derivation tree: prev/next links disagree";
        if (c->cap.type == CAP_SCHED_CONTEXT && (why = invariants_check_sc(c->cap.obj)))
            return why;
    }
    return NULL;
}

bool kernel_check_invariants(const char **what)
{
    const char *why = check_ready_queues();

    if (!why)
        why = check_release_queue();
    if (!why)
        why = check_current();
    if (!why)
        why = check_root_cnode();
    if (what)
        *what = why;
    return why == NULL;
}
