/*
 * What the random system-call generator knows of its world (kfuzz_int.h)
 * and how it turns a well-formed invocation into one the kernel can
 * perform. Everything is read from the kernel (kernel_inspect_*: states,
 * priorities, bindings of contexts) or learnt from the replies (which
 * slots of a scratch CNode hold a cap, which notification is bound), so
 * a guess may be wrong; the call then fails as any call may.
 */
#include "kfuzz_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "ktest_util.h"

#define W kfuzz_world
#define SCRATCH_SLOTS (1u << WORKER_CNODE_BITS)

int kfuzz_me(void)
{
    uint32_t id = ktest_current();

    return id >= WORKER_ID && id < WORKER_ID + N_WORKERS ? (int)(id - WORKER_ID) : -1;
}

/* The root slot behind `slot` of the CSpace worker w uses, 0 if none. */
static cptr_t root_of(int w, cptr_t slot)
{
    int o = w >= 0 ? W.cspace_of[w] : -1;

    return o >= 0 && slot < KS_COUNT ? W.source[o][slot] : 0;
}

/* The worker whose TCB root slot is `tcb`, -1 if none. */
static int worker_of(cptr_t tcb)
{
    for (unsigned i = 0; i < N_WORKERS; i++)
        if (tcb != 0 && W.worker_tcb[i] == tcb)
            return (int)i;
    return -1;
}

/* The trace id of the thread the context at root slot `sc` is bound
 * to, 0 if none. */
static uint32_t bound_to(cptr_t sc)
{
    return sc ? ktu_inspect_sc(sc).bound_trace_id : 0;
}

/* Whether worker t holds a context (any the world has). */
static bool has_context(int t)
{
    uint32_t id = WORKER_ID + (uint32_t)t;

    for (unsigned i = 0; i < N_WORKERS; i++)
        if (bound_to(W.source[i][KS_SC]) == id)
            return true;
    return bound_to(W.source[0][KS_SPARE_SC]) == id || bound_to(W.source[0][KS_BARE_SC]) == id;
}

/* A slot of worker w's scratch CNode that is full (or empty), drawn;
 * any slot if there is none. */
static uint64_t scratch_slot(const struct kfuzz_src *src, int w, bool full)
{
    uint32_t set = w >= 0 && W.cspace_of[w] >= 0 ? W.scratch[W.cspace_of[w]] : 0;
    unsigned n = 0, pick;

    if (!full)
        set = ~set & (SCRATCH_SLOTS - 1) & ~1u; /* slot 0 kept empty: CPtr 0 */
    for (unsigned i = 0; i < SCRATCH_SLOTS; i++)
        n += (set >> i) & 1u;
    if (n == 0)
        return kf_draw(src, SCRATCH_SLOTS);
    pick = (unsigned)kf_draw(src, n);
    for (unsigned i = 0; i < SCRATCH_SLOTS; i++)
        if (((set >> i) & 1u) && pick-- == 0)
            return i;
    return 0;
}

/* Whether worker w's scratch CNode has an empty slot (bar slot 0). */
static bool scratch_room(int w)
{
    int o = w >= 0 ? W.cspace_of[w] : -1;

    return o >= 0 && (~W.scratch[o] & (SCRATCH_SLOTS - 1) & ~1u) != 0;
}

/* Whether worker w's scratch CNode holds a cap (bar slot 0). */
static bool scratch_caps(int w)
{
    int o = w >= 0 ? W.cspace_of[w] : -1;

    return o >= 0 && (W.scratch[o] & ~1u) != 0;
}

/* Make *m a CNode_Delete of a full slot of worker w's scratch CNode. */
static void delete_one(const struct kfuzz_src *src, int w, struct ktest_msg *m)
{
    m->label = INV_CNODE_DELETE;
    m->mr[0] = scratch_slot(src, w, true);
    m->mr[1] = WORKER_CNODE_BITS;
    m->length = 2;
    m->n_extra = 0;
}

/* The MCP of the thread at root slot `tcb` (0 if none). */
static uint64_t mcp_of(cptr_t tcb)
{
    return tcb ? ktu_inspect(tcb).mcp : 0;
}

static void tcb_valid(const struct kfuzz_src *src, int w, struct ktest_msg *m, cptr_t *slot)
{
    int t;

    if ((m->label == INV_TCB_READ_REGISTERS || m->label == INV_TCB_WRITE_REGISTERS) &&
        worker_of(root_of(w, *slot)) == w)
        *slot = *slot == KS_TCB ? KS_NEXT_TCB : KS_TCB; /* not its own */
    t = worker_of(root_of(w, *slot));
    switch (m->label) {
    case INV_TCB_SET_PRIORITY:
    case INV_TCB_SET_MC_PRIORITY:
        m->mr[0] = kf_draw(src, mcp_of(root_of(w, m->extra[0])) + 1);
        break;
    case INV_TCB_SET_SCHED_PARAMS: {
        static const cptr_t scs[] = {KS_SC, KS_SPARE_SC, KS_BARE_SC};
        cptr_t pick = KS_NULL;
        bool holds = t >= 0 && has_context(t);

        m->mr[0] = kf_draw(src, mcp_of(root_of(w, m->extra[0])) + 1);
        m->mr[1] = kf_draw(src, mcp_of(root_of(w, m->extra[0])) + 1);
        /* its own context, or a free one if it has none */
        for (unsigned k = 0; W.scheduler == SCHED_MCS && t >= 0 && k < 3; k++) {
            uint32_t b = bound_to(root_of(w, scs[k]));
            if ((holds && b == WORKER_ID + (uint32_t)t) || (!holds && b == 0 && scs[k] != KS_BARE_SC))
                pick = scs[k];
        }
        m->extra[1] = pick;
        m->extra[2] = kf_chance(src, 50) ? KS_EP : KS_NULL; /* a timeout endpoint with Grant */
        break;
    }
    case INV_TCB_SET_TIMEOUT_ENDPOINT:
        m->extra[0] = KS_EP;
        break;
    case INV_TCB_CONFIGURE:
        m->mr[0] = 64 - WORKER_CNODE_BITS;
        m->extra[0] = KS_CSPACE;
        break;
    case INV_TCB_BIND_NOTIFICATION:
    case INV_TCB_UNBIND_NOTIFICATION: {
        bool taken = false; /* bound, or (as far as can be told) waited on */
        for (unsigned i = 0; i < N_WORKERS; i++)
            taken |= W.bound_ntfn[i] ||
                     ktu_inspect(W.worker_tcb[i]).state == KTU_ST_BLOCKED_ON_NOTIFICATION;
        if (t >= 0 && W.bound_ntfn[t])
            m->label = INV_TCB_UNBIND_NOTIFICATION;
        else if (!taken)
            m->label = INV_TCB_BIND_NOTIFICATION;
        else
            m->label = INV_TCB_SUSPEND + kf_draw(src, 2); /* Suspend or Resume */
        m->extra[0] = KS_NTFN; /* with Read */
        m->n_extra = m->label == INV_TCB_BIND_NOTIFICATION ? 1 : 0;
        break;
    }
    case INV_TCB_SET_TRACE_ID:
        if (t >= 0) /* its own: the trace id names the worker */
            m->mr[0] = WORKER_ID + (uint64_t)t;
        break;
    default:
        break;
    }
}

static void cnode_valid(const struct kfuzz_src *src, int w, struct ktest_msg *m)
{
    switch (m->label) {
    case INV_CNODE_REVOKE:
    case INV_CNODE_DELETE:
        m->mr[0] = scratch_slot(src, w, true);
        m->mr[1] = WORKER_CNODE_BITS;
        break;
    case INV_CNODE_ROTATE: {
        /* dest, pivot and src: an empty slot and two full ones */
        uint64_t pivot = scratch_slot(src, w, true), from = scratch_slot(src, w, true);
        for (unsigned k = 0; k < 4 && from == pivot; k++)
            from = scratch_slot(src, w, true);
        if (!scratch_room(w) || from == pivot || !scratch_caps(w)) {
            delete_one(src, w, m);
            break;
        }
        m->mr[0] = scratch_slot(src, w, false);
        m->mr[1] = m->mr[4] = m->mr[7] = WORKER_CNODE_BITS;
        m->mr[2] = m->mr[5] = 0;
        m->mr[3] = pivot;
        m->mr[6] = from;
        m->length = 8;
        m->extra[0] = m->extra[1] = KS_CNODE;
        m->n_extra = 2;
        break;
    }
    default: /* Copy, Mint, Move, Mutate: an empty destination, a full source */
        if (!scratch_room(w)) {
            delete_one(src, w, m);
            break;
        }
        m->mr[0] = scratch_slot(src, w, false);
        m->mr[1] = m->mr[3] = WORKER_CNODE_BITS;
        if (m->label == INV_CNODE_MUTATE)
            m->mr[4] = 0; /* its badge or guard: kept */
        if (scratch_caps(w)) {
            m->mr[2] = scratch_slot(src, w, true);
            break;
        }
        /* nothing to take there: copy one of its CSpace's caps in */
        static const uint64_t from[] = {KS_EP, KS_EP_WO, KS_NTFN, KS_NTFN_WO, KS_NEXT_TCB};
        if (m->label != INV_CNODE_MINT)
            m->label = INV_CNODE_COPY;
        m->length = m->label == INV_CNODE_MINT ? 6 : 5;
        m->extra[0] = KS_CSPACE;
        m->mr[2] = from[kf_draw(src, 5)];
        break;
    }
}

static void sc_valid(int w, struct ktest_msg *m, cptr_t *slot)
{
    static const cptr_t scs[] = {KS_SC, KS_SPARE_SC, KS_BARE_SC};
    uint32_t mine = WORKER_ID + (uint32_t)w, b = bound_to(root_of(w, *slot));
    int next = worker_of(root_of(w, KS_NEXT_TCB));

    if (b == mine) /* its own running context: take another */
        for (unsigned k = 0; k < 3; k++)
            if (bound_to(root_of(w, scs[k])) != mine) {
                *slot = scs[k];
                b = bound_to(root_of(w, *slot));
                break;
            }
    switch (m->label) {
    case INV_SC_BIND:
        if (b != 0)
            m->label = INV_SC_UNBIND;
        else if (next >= 0 && !has_context(next))
            m->extra[0] = KS_NEXT_TCB;
        else
            m->label = INV_SC_CONSUMED;
        break;
    case INV_SC_UNBIND_OBJECT:
        if (next >= 0 && b == WORKER_ID + (uint32_t)next)
            m->extra[0] = KS_NEXT_TCB;
        else
            m->label = b != 0 && b != mine ? INV_SC_UNBIND : INV_SC_CONSUMED;
        break;
    case INV_SC_YIELD_TO: {
        int to = (int)b - (int)WORKER_ID;
        if (b == 0 || b == mine || to < 0 || to >= (int)N_WORKERS ||
            ktu_inspect(W.worker_tcb[to]).prio > mcp_of(W.worker_tcb[w]))
            m->label = INV_SC_CONSUMED;
        break;
    }
    case INV_SC_UNBIND:
        if (b == mine)
            m->label = INV_SC_CONSUMED;
        break;
    default:
        break;
    }
    m->n_extra = m->label == INV_SC_BIND || m->label == INV_SC_UNBIND_OBJECT ? 1 : 0;
}

static void retype_valid(const struct kfuzz_src *src, int w, struct ktest_msg *m)
{
    uint64_t type = m->mr[0];

    if (type >= OBJ_COUNT || (type == OBJ_SCHED_CONTEXT && W.scheduler != SCHED_MCS))
        type = m->mr[0] = OBJ_ENDPOINT;
    switch (type) {
    case OBJ_CNODE:
        m->mr[1] = 1 + kf_draw(src, 4);
        break;
    case OBJ_UNTYPED:
        m->mr[1] = MCSIM_MIN_UNTYPED_BITS + kf_draw(src, 6);
        break;
    case OBJ_SCHED_CONTEXT:
        m->mr[1] = MCSIM_MIN_SC_BITS + kf_draw(src, 2);
        break;
    default:
        m->mr[1] = 0;
        break;
    }
    m->mr[4] = scratch_slot(src, w, false);
    m->mr[5] = 1;
}

void kfuzz_make_valid(const struct kfuzz_src *src, struct ktest_msg *m, cptr_t *slot)
{
    int w = kfuzz_me();

    if (w < 0 || W.cspace_of[w] < 0)
        return;
    switch (*slot) {
    case KS_TCB:
    case KS_NEXT_TCB:
        tcb_valid(src, w, m, slot);
        break;
    case KS_CNODE:
        cnode_valid(src, w, m);
        break;
    case KS_SC:
    case KS_SPARE_SC:
    case KS_BARE_SC:
        if (W.scheduler == SCHED_MCS)
            sc_valid(w, m, slot);
        break;
    case KS_UNTYPED:
        if (scratch_room(w))
            retype_valid(src, w, m);
        else { /* room first */
            *slot = KS_CNODE;
            delete_one(src, w, m);
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ learning */

static void set_slot(int w, uint64_t i, bool full)
{
    int o = W.cspace_of[w];

    if (o < 0 || i >= SCRATCH_SLOTS)
        return;
    if (full)
        W.scratch[o] |= 1u << i;
    else
        W.scratch[o] &= ~(1u << i);
}

void kfuzz_learn(int w, const struct ktest_msg *sent, cptr_t slot, uint64_t result)
{
    const uint64_t *mr = sent->mr;
    int t;

    if (w < 0 || W.cspace_of[w] < 0)
        return;
    t = worker_of(root_of(w, slot));
    if (slot == KS_UNTYPED && sent->label == INV_UNTYPED_RETYPE) {
        if (result == ERR_NONE || result == ERR_DELETE_FIRST)
            set_slot(w, mr[4], true);
        return;
    }
    if (slot == KS_CNODE) {
        if (result == ERR_DELETE_FIRST)
            set_slot(w, mr[0], true);
        if (result == ERR_FAILED_LOOKUP && sent->label >= INV_CNODE_COPY)
            set_slot(w, sent->label == INV_CNODE_ROTATE ? mr[6] : mr[2], false);
        if (result != ERR_NONE)
            return;
        switch (sent->label) {
        case INV_CNODE_DELETE:
            set_slot(w, mr[0], false);
            break;
        case INV_CNODE_COPY:
        case INV_CNODE_MINT:
            set_slot(w, mr[0], true);
            break;
        case INV_CNODE_MOVE:
        case INV_CNODE_MUTATE:
            set_slot(w, mr[2], false);
            set_slot(w, mr[0], true);
            break;
        case INV_CNODE_ROTATE: /* src to dest, pivot to src */
            set_slot(w, mr[3], false);
            set_slot(w, mr[6], true);
            set_slot(w, mr[0], true);
            break;
        default:
            break;
        }
        return;
    }
    if ((slot != KS_TCB && slot != KS_NEXT_TCB) || t < 0)
        return;
    if (sent->label == INV_TCB_CONFIGURE && result == ERR_NONE)
        W.cspace_of[t] = sent->n_extra == 1 && sent->extra[0] == KS_CSPACE &&
                                 sent->mr[0] == 64 - WORKER_CNODE_BITS
                             ? W.cspace_of[w]
                             : -1;
    if (sent->label == INV_TCB_BIND_NOTIFICATION && result == ERR_NONE)
        W.bound_ntfn[t] = sent->extra[0] == KS_NTFN;
    if (sent->label == INV_TCB_UNBIND_NOTIFICATION)
        W.bound_ntfn[t] = false; /* done, or there was none */
}
