/*
 * Random system calls against the kernel test bench (kfuzz.h). The world
 * is fixed; what varies is each call, and every choice is one draw, so
 * the same draws make the same calls (a fuzzer's input replays exactly).
 */
#include "kfuzz_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "ktest.h"
#include "ktest_util.h"

#define SENTINEL_ID 99u
#define M 20000u /* the bench's MIN_BUDGET, ticks */
#define MS 1000000u
#define ALARM_LINE 7u

struct kfuzz_world kfuzz_world;
#define W kfuzz_world

static uint64_t draw(const struct kfuzz_src *src, uint64_t n)
{
    return kf_draw(src, n);
}

static uint64_t pick(const struct kfuzz_src *src, const uint64_t *values, unsigned n)
{
    return values[draw(src, n)];
}

static bool chance(const struct kfuzz_src *src, unsigned percent)
{
    return kf_chance(src, percent);
}

/* ------------------------------------------------------------ the world */

static void must(enum kerr e, const char *what)
{
    if (e != ERR_NONE)
        fail_msg("kfuzz_setup: %s failed with error %d", what, e);
}

/* Mint root slot `src` into worker w's slot; remembered for repairs. */
static enum kerr mint(unsigned w, unsigned slot)
{
    uint64_t mrs[6] = {slot, WORKER_CNODE_BITS, W.source[w][slot], 64, W.rights[w][slot],
                       W.badge[w][slot]};
    cptr_t root = ROOT_CNODE;

    return ktest_invoke(W.worker_cnode[w], INV_CNODE_MINT, 6, mrs, &root, 1, NULL);
}

static void put(unsigned w, unsigned slot, cptr_t src, uint64_t rights, uint64_t badge)
{
    W.source[w][slot] = src;
    W.rights[w][slot] = rights;
    W.badge[w][slot] = badge;
    must(mint(w, slot), "CNode_Mint");
}

static cptr_t retype(enum object_type type, unsigned bits)
{
    return ktest_retype(type, bits);
}

/* A worker's CNode cap names a scratch CNode, not its CSpace: CNode_Copy,
 * Move, Delete and the rest shuffle caps there (some caps to start with)
 * and Retype puts objects there, while the CSpace keeps its layout. */
static void fill_scratch(cptr_t scratch, unsigned i)
{
    const cptr_t caps[] = {W.ep[0], W.ntfn[0], W.ep[1], W.ntfn[1],
                           W.worker_tcb[(i + 2) % N_WORKERS]};

    for (unsigned k = 0; k < KTU_NELEM(caps); k++) {
        uint64_t mrs[6] = {1 + k, WORKER_CNODE_BITS, caps[k], 64, RIGHTS_ALL, k};
        cptr_t root = ROOT_CNODE;

        must(ktest_invoke(scratch, INV_CNODE_MINT, 6, mrs, &root, 1, NULL), "CNode_Mint");
    }
}

static void build_worker(unsigned i, cptr_t spare_sc, cptr_t bare_sc)
{
    cptr_t untyped = retype(OBJ_UNTYPED, 14);
    cptr_t tcb = W.worker_tcb[i], sc = 0;
    cptr_t cnode = W.worker_cnode[i] = retype(OBJ_CNODE, WORKER_CNODE_BITS);
    cptr_t scratch = retype(OBJ_CNODE, WORKER_CNODE_BITS);
    cptr_t reply = retype(OBJ_REPLY, 0);
    uint64_t guard = 64 - WORKER_CNODE_BITS; /* guard 0 of 60 bits */
    uint64_t prio[2] = {10 * (i + 1) + 5, 10 * (i + 1)};
    cptr_t caps[3] = {ROOT_TCB, 0, ROOT_NULL};

    if (W.scheduler == SCHED_MCS) {
        sc = retype(OBJ_SCHED_CONTEXT, 8);
        ktu_configure(sc, (i + 1) * MS, i == 0 ? 1 * MS : 10 * MS, i, 10 + i, i & 1);
        caps[1] = sc;
    }
    must(ktest_invoke(tcb, INV_TCB_CONFIGURE, 1, &guard, &cnode, 1, NULL), "TCB_Configure");
    must(ktest_invoke(tcb, INV_TCB_SET_SCHED_PARAMS, 2, prio, caps, 3, NULL), "SetSchedParams");
    put(i, KS_TCB, tcb, RIGHTS_ALL, 0);
    put(i, KS_CNODE, scratch, RIGHTS_ALL, 0);
    fill_scratch(scratch, i);
    if (sc)
        put(i, KS_SC, sc, RIGHTS_ALL, 0);
    put(i, KS_REPLY, reply, RIGHTS_ALL, 0);
    put(i, KS_EP, W.ep[0], RIGHTS_ALL, 0);
    put(i, KS_EP_WO, W.ep[1], RIGHT_WRITE, 100 + i);
    put(i, KS_NTFN, W.ntfn[0], RIGHTS_ALL, 0);
    put(i, KS_NTFN_WO, W.ntfn[1], RIGHT_WRITE, 1u << i);
    put(i, KS_NEXT_TCB, W.worker_tcb[(i + 1) % N_WORKERS], RIGHTS_ALL, 0);
    if (spare_sc)
        put(i, KS_SPARE_SC, spare_sc, RIGHTS_ALL, 0);
    if (bare_sc)
        put(i, KS_BARE_SC, bare_sc, RIGHTS_ALL, 0);
    put(i, KS_SCHED_CONTROL, ROOT_SCHED_CONTROL, RIGHTS_ALL, 0);
    put(i, KS_UNTYPED, untyped, RIGHTS_ALL, 0);
    put(i, KS_CSPACE, cnode, RIGHTS_ALL, 0);
}

void kfuzz_setup(uint8_t scheduler)
{
    cptr_t spare_sc = 0, bare_sc = 0;

    memset(&W, 0, sizeof W);
    W.scheduler = scheduler;
    ktu_boot(scheduler);
    W.root_ctx = ktest_context();
    for (unsigned i = 0; i < 2; i++) {
        W.ep[i] = retype(OBJ_ENDPOINT, 0);
        W.ntfn[i] = retype(OBJ_NOTIFICATION, 0);
    }
    if (scheduler == SCHED_MCS) {
        spare_sc = retype(OBJ_SCHED_CONTEXT, 8);
        ktu_configure(spare_sc, 2 * MS, 4 * MS, 0, 50, 0);
        bare_sc = retype(OBJ_SCHED_CONTEXT, 8);
    }
    for (unsigned i = 0; i < N_WORKERS; i++)
        W.worker_tcb[i] = ktest_thread(10 + i, 0, 0, 0, NULL);
    for (unsigned i = 0; i < N_WORKERS; i++) {
        build_worker(i, spare_sc, bare_sc);
        W.cspace_of[i] = (int)i;
        W.scratch[i] = 0x3eu; /* fill_scratch: slots 1..5 */
    }
    W.sentinel = ktest_thread(SENTINEL_ID, 40, 3 * MS, 7 * MS, &W.sentinel_sc);
    W.sentinel_was = ktu_inspect(W.sentinel);
    if (W.sentinel_sc)
        W.sentinel_sc_was = ktu_inspect_sc(W.sentinel_sc);
    W.alarm = ktu_irq_notification(ALARM_LINE, &W.alarm_handler);
    for (unsigned i = 0; i < N_WORKERS; i++)
        ktu_resume(W.worker_tcb[i]);
    ktest_syscall(SYS_WAIT, W.alarm, 0, 0, NULL);
}

static bool same_thread(const struct kinspect_thread *a, const struct kinspect_thread *b)
{
    return a->state == b->state && a->prio == b->prio && a->mcp == b->mcp &&
           a->sc_badge == b->sc_badge && a->queued == b->queued &&
           a->in_release_queue == b->in_release_queue;
}

static bool same_sc(const struct kinspect_sc *a, const struct kinspect_sc *b)
{
    if (a->budget != b->budget || a->period != b->period || a->consumed != b->consumed ||
        a->badge != b->badge || a->n_refills != b->n_refills ||
        a->bound_trace_id != b->bound_trace_id)
        return false;
    for (uint32_t i = 0; i < a->n_refills && i < 32; i++)
        if (a->refills[i].time != b->refills[i].time ||
            a->refills[i].amount != b->refills[i].amount)
            return false;
    return true;
}

bool kfuzz_sentinel_intact(const char **what)
{
    struct kinspect_thread t = ktu_inspect(W.sentinel);
    struct kinspect_sc s;

    if (!same_thread(&t, &W.sentinel_was)) {
        *what = "the sentinel thread";
        return false;
    }
    if (W.sentinel_sc && (s = ktu_inspect_sc(W.sentinel_sc), !same_sc(&s, &W.sentinel_sc_was))) {
        *what = "the sentinel's context";
        return false;
    }
    return true;
}

/* ------------------------------------------------- one worker's call */

static const uint64_t label_tcb[] = {
    INV_TCB_READ_REGISTERS, INV_TCB_WRITE_REGISTERS, INV_TCB_CONFIGURE,
    INV_TCB_SET_PRIORITY,   INV_TCB_SET_MC_PRIORITY, INV_TCB_SET_SCHED_PARAMS,
    INV_TCB_SET_TIMEOUT_ENDPOINT, INV_TCB_SUSPEND, INV_TCB_RESUME,
    INV_TCB_BIND_NOTIFICATION, INV_TCB_UNBIND_NOTIFICATION, INV_TCB_SET_TRACE_ID};
static const uint64_t label_cnode[] = {INV_CNODE_REVOKE, INV_CNODE_DELETE, INV_CNODE_COPY,
                                       INV_CNODE_MINT,   INV_CNODE_MOVE,   INV_CNODE_MUTATE,
                                       INV_CNODE_ROTATE};
static const uint64_t label_sc[] = {INV_SC_BIND, INV_SC_UNBIND, INV_SC_UNBIND_OBJECT,
                                    INV_SC_CONSUMED, INV_SC_YIELD_TO};

/* Slots holding caps of a kind, for extra caps and targets. */
static const uint64_t slots_tcb[] = {KS_TCB, KS_NEXT_TCB};
static const uint64_t slots_sc[] = {KS_SC, KS_SPARE_SC, KS_BARE_SC};
static const uint64_t slots_ntfn[] = {KS_NTFN, KS_NTFN_WO};
static const uint64_t slots_ep[] = {KS_EP, KS_EP_WO};

/* A slot: nearly always one of the CNode's, sometimes anything. */
static uint64_t any_slot(const struct kfuzz_src *src)
{
    static const uint64_t odd[] = {KS_COUNT, 1u << 20, UINT64_MAX};

    return chance(src, 95) ? draw(src, KS_COUNT) : pick(src, odd, 3);
}

static uint64_t a_prio(const struct kfuzz_src *src)
{
    return chance(src, 90) ? draw(src, 61) : draw(src, 300);
}

/* A budget or period: a valid one nearly always (at least MIN_BUDGET). */
static uint64_t a_duration(const struct kfuzz_src *src)
{
    static const uint64_t d[] = {M, 100000, 1 * MS, 2 * MS, 5 * MS, 10 * MS, 0, M - 1,
                                 (uint64_t)1 << 61};
    return chance(src, 90) ? pick(src, d, 6) : pick(src, d, 9);
}

static unsigned tcb_args(const struct kfuzz_src *src, uint64_t label, uint64_t *mr, cptr_t *ex,
                         unsigned *n_ex)
{
    switch (label) {
    case INV_TCB_READ_REGISTERS:
        mr[0] = 0;
        mr[1] = draw(src, 40);
        return 2;
    case INV_TCB_WRITE_REGISTERS:
        mr[0] = draw(src, 2);
        mr[1] = 0; /* pc: the bench's threads have no program */
        return 2 + (unsigned)draw(src, 3);
    case INV_TCB_CONFIGURE:
        mr[0] = chance(src, 90) ? 64 - WORKER_CNODE_BITS : draw(src, 70);
        ex[(*n_ex)++] = chance(src, 90) ? KS_CSPACE : any_slot(src);
        return 1;
    case INV_TCB_SET_PRIORITY:
    case INV_TCB_SET_MC_PRIORITY:
        mr[0] = a_prio(src);
        ex[(*n_ex)++] = pick(src, slots_tcb, 2);
        return 1;
    case INV_TCB_SET_SCHED_PARAMS:
        mr[0] = a_prio(src);
        mr[1] = a_prio(src);
        ex[(*n_ex)++] = pick(src, slots_tcb, 2);
        ex[(*n_ex)++] = W.scheduler == SCHED_MCS && chance(src, 70) ? pick(src, slots_sc, 3)
                                                                     : KS_NULL;
        ex[(*n_ex)++] = W.scheduler == SCHED_MCS && chance(src, 50) ? pick(src, slots_ep, 2)
                                                                     : KS_NULL;
        return 2;
    case INV_TCB_SET_TIMEOUT_ENDPOINT:
        ex[(*n_ex)++] = chance(src, 80) ? pick(src, slots_ep, 2) : any_slot(src);
        return 0;
    case INV_TCB_BIND_NOTIFICATION:
        ex[(*n_ex)++] = pick(src, slots_ntfn, 2);
        return 0;
    case INV_TCB_SET_TRACE_ID:
        mr[0] = 10 + draw(src, N_WORKERS);
        return 1;
    default:
        return 0;
    }
}

static unsigned cnode_args(const struct kfuzz_src *src, uint64_t label, uint64_t *mr,
                           cptr_t *ex, unsigned *n_ex)
{
    uint64_t depth = chance(src, 90) ? WORKER_CNODE_BITS : draw(src, 70);

    mr[0] = chance(src, 50) ? draw(src, 6) : any_slot(src); /* 1..5 start filled */
    mr[1] = depth;
    if (label == INV_CNODE_REVOKE || label == INV_CNODE_DELETE)
        return 2;
    ex[(*n_ex)++] = KS_CNODE;
    mr[2] = chance(src, 70) ? 1 + draw(src, 5) : any_slot(src);
    mr[3] = depth;
    mr[4] = draw(src, 16);                       /* rights */
    mr[5] = chance(src, 70) ? 0 : draw(src, 1000); /* badge or guard */
    if (label == INV_CNODE_ROTATE) {
        mr[4] = any_slot(src);
        mr[5] = depth;
        mr[6] = draw(src, 1000);
        mr[7] = draw(src, 1000);
        return 8;
    }
    if (label == INV_CNODE_COPY)
        return 5;
    if (label == INV_CNODE_MOVE)
        return 4;
    return 6;
}

static unsigned sc_args(const struct kfuzz_src *src, uint64_t label, cptr_t *ex, unsigned *n_ex)
{
    if (label == INV_SC_BIND || label == INV_SC_UNBIND_OBJECT)
        ex[(*n_ex)++] = chance(src, 70) ? pick(src, slots_tcb, 2) : pick(src, slots_ntfn, 2);
    return 0;
}

/* An invocation of a cap in `slot` (its intended kind) as the worker. */
static void invocation(const struct kfuzz_src *src, struct ktest_msg *m, cptr_t *cap)
{
    static const uint64_t objects[] = {KS_TCB,      KS_NEXT_TCB, KS_CNODE,         KS_SC,
                                       KS_SPARE_SC, KS_BARE_SC,  KS_SCHED_CONTROL, KS_UNTYPED};
    /* under classic there are no contexts: the first three objects only */
    unsigned n_objects = W.scheduler == SCHED_MCS ? KTU_NELEM(objects) : 3;
    cptr_t slot = chance(src, 95) ? pick(src, objects, n_objects) : draw(src, KS_COUNT);
    bool well_formed = chance(src, 90);

    m->n_extra = 0;
    m->length = 0;
    switch (slot) {
    case KS_TCB:
    case KS_NEXT_TCB:
        m->label = pick(src, label_tcb, KTU_NELEM(label_tcb));
        if (m->label == INV_TCB_CONFIGURE && chance(src, 80)) /* loses its CSpace */
            m->label = pick(src, label_tcb, KTU_NELEM(label_tcb));
        if (W.scheduler != SCHED_MCS && m->label == INV_TCB_SET_TIMEOUT_ENDPOINT)
            m->label = INV_TCB_SET_PRIORITY; /* MCS only */
        m->length = tcb_args(src, m->label, m->mr, m->extra, &m->n_extra);
        break;
    case KS_CNODE:
        m->label = pick(src, label_cnode, KTU_NELEM(label_cnode));
        m->length = cnode_args(src, m->label, m->mr, m->extra, &m->n_extra);
        break;
    case KS_SC:
    case KS_SPARE_SC:
    case KS_BARE_SC:
        m->label = pick(src, label_sc, KTU_NELEM(label_sc));
        m->length = sc_args(src, m->label, m->extra, &m->n_extra);
        break;
    case KS_SCHED_CONTROL:
        m->label = INV_SCHED_CONTROL_CONFIGURE_FLAGS;
        m->mr[0] = a_duration(src);
        m->mr[1] = a_duration(src);
        if (m->mr[0] > m->mr[1] && chance(src, 90)) { /* budget <= period */
            uint64_t b = m->mr[0];
            m->mr[0] = m->mr[1];
            m->mr[1] = b;
        }
        m->mr[2] = draw(src, 7);
        m->mr[3] = draw(src, 100);
        m->mr[4] = draw(src, 2);
        m->length = 5;
        m->extra[m->n_extra++] = chance(src, 90) ? pick(src, slots_sc, 3) : any_slot(src);
        break;
    case KS_UNTYPED: {
        static const uint64_t types[] = {OBJ_TCB, OBJ_ENDPOINT, OBJ_NOTIFICATION, OBJ_REPLY,
                                         OBJ_SCHED_CONTEXT, OBJ_CNODE, OBJ_UNTYPED, OBJ_COUNT};
        m->label = INV_UNTYPED_RETYPE;
        m->mr[0] = pick(src, types, KTU_NELEM(types));
        m->mr[1] = chance(src, 80) ? draw(src, 9) : draw(src, 70);
        m->mr[2] = 0;
        m->mr[3] = 0;
        m->mr[4] = draw(src, 1u << WORKER_CNODE_BITS);
        m->mr[5] = 1 + draw(src, 2);
        m->length = 6;
        m->extra[m->n_extra++] = KS_CNODE;
        break;
    }
    default:
        m->label = draw(src, INV_COUNT + 2);
        m->length = (unsigned)draw(src, 4);
        break;
    }
    if (well_formed)
        kfuzz_make_valid(src, m, &slot);
    else { /* one thing wrong, or random */
        m->label = chance(src, 50) ? m->label : draw(src, INV_COUNT + 2);
        m->length = (unsigned)draw(src, MSG_MAX_LENGTH + 1);
        if (m->n_extra > 0)
            m->extra[draw(src, m->n_extra)] = any_slot(src);
        for (unsigned i = 0; i < m->length; i++)
            if (chance(src, 30))
                m->mr[i] = src->draw(src->ctx, UINT64_MAX);
    }
    *cap = chance(src, 97) ? slot : any_slot(src);
}

/* Any other system call: IPC on the endpoints, notifications and reply. */
static void ipc_call(const struct kfuzz_src *src, enum syscall *sys, cptr_t *cap, cptr_t *reply,
                     cptr_t *srcp, struct ktest_msg *m)
{
    static const uint64_t sends[] = {KS_EP, KS_EP_WO, KS_NTFN, KS_NTFN_WO, KS_REPLY};
    static const uint64_t recvs[] = {KS_EP, KS_NTFN, KS_EP_WO};

    *sys = (enum syscall)draw(src, SYS_YIELD + 2); /* an unknown number too */
    *cap = chance(src, 95) ? pick(src, sends, 5) : any_slot(src);
    *reply = KS_REPLY;
    *srcp = pick(src, recvs, 3);
    if (*sys == SYS_RECV || *sys == SYS_NB_RECV || *sys == SYS_WAIT || *sys == SYS_NB_WAIT)
        *cap = pick(src, recvs, 3);
    if (*sys == SYS_REPLY_RECV)
        *cap = pick(src, recvs, 3);
    m->label = draw(src, 4);
    m->length = (unsigned)draw(src, 3);
    m->n_extra = 0;
}

static void worker_step(const struct kfuzz_src *src, struct kfuzz_stats *st)
{
    struct user_context *me = ktest_context();
    struct ktest_msg m;
    enum syscall sys = SYS_CALL;
    cptr_t cap, reply = 0, srcp = 0;
    bool is_invocation = chance(src, 92);

    struct ktest_msg sent;
    int w = kfuzz_me();

    memset(&m, 0, sizeof m);
    if (is_invocation)
        invocation(src, &m, &cap);
    else
        ipc_call(src, &sys, &cap, &reply, &srcp, &m);
    sent = m;
    ktest_syscall(sys, cap, reply, srcp, &m);
    st->calls++;
    if (!is_invocation || cap >= KS_COUNT || cap == KS_NULL)
        return;
    kfuzz_learn(w, &sent, cap, ktest_context() != me ? ERR_NONE : m.label);
    st->invocations++;
    if (ktest_context() != me || m.label == ERR_NONE)
        st->performed++;
    else
        st->refused++;
}

/* ------------------------------------------------- the root task's turn */

/* An invocation by the root task during the run, which may lose the CPU
 * to a worker a timer interrupt released: false then (stop there). */
static bool root_call(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs, cptr_t extra,
                      struct kfuzz_stats *st)
{
    struct ktest_msg m = {.label = label, .length = len, .n_extra = extra ? 1u : 0u};

    for (unsigned i = 0; i < len; i++)
        m.mr[i] = mrs[i];
    m.extra[0] = extra;
    ktest_syscall(SYS_CALL, cap, 0, 0, &m);
    st->calls++;
    st->root_calls++;
    return ktest_context() == W.root_ctx;
}

/* Give worker w back its CSpace and any cap it lost (moved, deleted):
 * without repairs the workers' calls drift to empty slots. */
static void repair(unsigned w, struct kfuzz_stats *st)
{
    uint64_t guard = 64 - WORKER_CNODE_BITS;
    cptr_t cnode = W.worker_cnode[w];

    if (!root_call(W.worker_tcb[w], INV_TCB_CONFIGURE, 1, &guard, cnode, st))
        return;
    W.cspace_of[w] = (int)w;
    /* its own context back, if nothing holds it and it holds none */
    if (W.scheduler == SCHED_MCS && ktu_inspect(W.worker_tcb[w]).sc_badge == 0 &&
        ktu_inspect_sc(W.source[w][KS_SC]).bound_trace_id == 0 &&
        !root_call(W.source[w][KS_SC], INV_SC_BIND, 0, NULL, W.worker_tcb[w], st))
        return;
    for (unsigned slot = 1; slot < KS_COUNT; slot++) {
        uint64_t mrs[6] = {slot, WORKER_CNODE_BITS, W.source[w][slot], 64, W.rights[w][slot],
                           W.badge[w][slot]};

        /* DeleteFirst where the cap is still there */
        if (W.source[w][slot] != 0 && !root_call(cnode, INV_CNODE_MINT, 6, mrs, ROOT_CNODE, st))
            return;
    }
}

/* The root task, woken by its alarm: wake a worker, repair one's CSpace,
 * or signal; then it acknowledges the alarm and waits for the next. */
static void root_step(const struct kfuzz_src *src, struct kfuzz_stats *st)
{
    unsigned w = (unsigned)draw(src, N_WORKERS);
    cptr_t tcb = W.worker_tcb[w];
    struct ktest_msg m = {.length = 1};
    bool running = true;

    unsigned what = (unsigned)draw(src, 7);

    if (W.interrupted < N_WORKERS && W.cspace_of[W.interrupted] < 0)
        what = 1; /* a worker that cannot reach its caps: repair it first */
    switch (what) {
    case 0:
    case 4:
    case 5: /* break what every blocked worker waits for */
        for (unsigned k = 0; running && k < N_WORKERS; k++) {
            uint32_t state;

            tcb = W.worker_tcb[(w + k) % N_WORKERS];
            state = ktu_inspect(tcb).state;
            if (state != KTU_ST_RUNNING && state != KTU_ST_RESTART &&
                root_call(tcb, INV_TCB_SUSPEND, 0, NULL, 0, st))
                running = root_call(tcb, INV_TCB_RESUME, 0, NULL, 0, st);
        }
        break;
    case 1:
    case 2: /* the worker the alarm interrupted first: it may have lost its CSpace */
        repair(W.interrupted, st);
        W.interrupted = w;
        break;
    case 3:
        ktest_syscall(SYS_NB_SEND, W.ep[0], 0, 0, &m);
        st->calls++;
        st->root_calls++;
        break;
    default:
        ktest_syscall(SYS_SEND, W.ntfn[draw(src, 2)], 0, 0, &m);
        st->calls++;
        st->root_calls++;
        break;
    }
    if (running && ktest_context() == W.root_ctx &&
        root_call(W.alarm_handler, INV_IRQ_ACK, 0, NULL, 0, st)) {
        ktest_syscall(SYS_WAIT, W.alarm, 0, 0, NULL);
        st->calls++;
        st->root_calls++;
    }
}

void kfuzz_step(const struct kfuzz_src *src, struct kfuzz_stats *st)
{
    struct user_context *cur = ktest_context();

    ktest_trace_clear();
    if (cur == NULL) { /* every worker blocked or throttled: time passes */
        st->idle++;
        ktest_run(1 + draw(src, 5 * MS));
        if (ktest_context() == NULL)
            ktest_irq(ALARM_LINE);
    } else if (cur == W.root_ctx) {
        root_step(src, st);
    } else if (chance(src, 1) || (kfuzz_me() >= 0 && W.cspace_of[kfuzz_me()] < 0)) {
        for (unsigned i = 0; i < N_WORKERS; i++)
            if (ktu_inspect(W.worker_tcb[i]).state == KTU_ST_RUNNING &&
                ktest_current() == 10 + i)
                W.interrupted = i;
        ktest_irq(ALARM_LINE);
    } else {
        if (chance(src, 20)) /* the worker computes a while */
            ktest_run(1 + draw(src, 100000));
        if (ktest_context() == cur)
            worker_step(src, st);
    }
}
