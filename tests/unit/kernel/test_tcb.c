/*
 * TCB invocations (object/tcb.c) through real system calls on the kernel
 * test bench (ktest.h: zero kernel costs, 1 GHz, MIN_BUDGET 20 us):
 * priorities against the authority's MCP (B27, SEL4-MCS-REFERENCE.md 2.6),
 * SetSchedParams and SetTimeoutEndpoint checks, Suspend and Resume (B19;
 * a thread stopped in a system call makes it again, 2.5; a pending
 * YieldTo is cancelled), Read/WriteRegisters, Bind/UnbindNotification,
 * and setPriority's effect on queues (B18, head insertion, lowering one's
 * own priority).
 *
 * Longer than 600 lines: it is the one test file of the TCB object, and
 * each invocation's checks are given in full as tables (seL4's order of
 * checks, each with its error detail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest_util.h"

#define MS 1000000u
#define S 1000000000ull
#define LINE 3u

/* ------------------------------------------------------------- helpers */

static uint32_t suspend(cptr_t tcb)
{
    return ktu_call(tcb, INV_TCB_SUSPEND, 0, NULL, NULL, 0);
}

/* --------------------------------------------------------------- B27 MCP */

/* Invoked by T (prio and MCP 100) on V (prio 50, MCP 50, inactive); the
 * authority W has MCP 20. The authority's MCP bounds the new value; the
 * invoker's and the target's do not matter. */
enum auth { A_T, A_ROOT, A_W, A_EP, A_NONE };

struct prio_case {
    const char *what;
    uint64_t label;
    unsigned len;
    uint64_t value;
    enum auth auth;
    enum kerr want;
    uint64_t max;                  /* RangeError detail [0, max] */
    uint8_t prio_after, mcp_after; /* V's */
};

static const struct prio_case prio_cases[] = {
    {"prio = MCP", INV_TCB_SET_PRIORITY, 1, 100, A_T, ERR_NONE, 0, 100, 50},
    {"prio MCP + 1", INV_TCB_SET_PRIORITY, 1, 101, A_T, ERR_RANGE, 100, 100, 50},
    {"prio 255", INV_TCB_SET_PRIORITY, 1, 255, A_T, ERR_RANGE, 100, 100, 50},
    {"mcp = MCP", INV_TCB_SET_MC_PRIORITY, 1, 100, A_T, ERR_NONE, 0, 100, 100},
    {"mcp MCP + 1", INV_TCB_SET_MC_PRIORITY, 1, 101, A_T, ERR_RANGE, 100, 100, 100},
    {"authority the root", INV_TCB_SET_PRIORITY, 1, 200, A_ROOT, ERR_NONE, 0, 200, 100},
    {"authority MCP 20: 21", INV_TCB_SET_PRIORITY, 1, 21, A_W, ERR_RANGE, 20, 200, 100},
    {"authority MCP 20: 20", INV_TCB_SET_PRIORITY, 1, 20, A_W, ERR_NONE, 0, 20, 100},
    {"authority MCP 20: mcp 0", INV_TCB_SET_MC_PRIORITY, 1, 0, A_W, ERR_NONE, 0, 20, 0},
    {"authority an endpoint", INV_TCB_SET_PRIORITY, 1, 1, A_EP, ERR_INVALID_CAPABILITY, 0, 20, 0},
    {"no authority", INV_TCB_SET_PRIORITY, 1, 1, A_NONE, ERR_TRUNCATED_MESSAGE, 0, 20, 0},
    {"no value", INV_TCB_SET_MC_PRIORITY, 0, 1, A_T, ERR_TRUNCATED_MESSAGE, 0, 20, 0},
};

static void test_tcb_b27_mcp(void **state)
{
    cptr_t t, v, auths[5];

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    v = ktest_thread(11, 50, 0, 0, NULL);
    auths[A_T] = t;
    auths[A_ROOT] = ROOT_TCB;
    auths[A_W] = ktest_thread(12, 20, 0, 0, NULL);
    auths[A_EP] = ktest_retype(OBJ_ENDPOINT, 0);
    auths[A_NONE] = 0;
    ktu_resume(t);
    assert_int_equal(ktu_root_lower(1), 10);
    for (unsigned i = 0; i < KTU_NELEM(prio_cases); i++) {
        const struct prio_case *c = &prio_cases[i];
        struct ktest_msg m;

        assert_int_equal(ktu_invoke_msg(v, c->label, c->len, &c->value, &auths[c->auth],
                                        c->auth == A_NONE ? 0 : 1, &m),
                         10);
        if (m.label != c->want)
            fail_msg("%s: expected error %d, got %llu", c->what, c->want,
                     (unsigned long long)m.label);
        if (c->want == ERR_RANGE) {
            assert_int_equal(m.length, 2);
            assert_int_equal(m.mr[0], 0);
            assert_int_equal(m.mr[1], c->max);
        } else if (c->want == ERR_INVALID_CAPABILITY) {
            assert_int_equal(m.length, 1);
            assert_int_equal(m.mr[0], 1);
        }
        if (ktu_inspect(v).prio != c->prio_after || ktu_inspect(v).mcp != c->mcp_after)
            fail_msg("%s: expected prio %u mcp %u, got %u %u", c->what, c->prio_after, c->mcp_after,
                     ktu_inspect(v).prio, ktu_inspect(v).mcp);
    }
}

/* ----------------------------------------------------------- SetSchedParams */

enum obj {
    O_T1,
    O_T2,
    O_T3,
    O_ROOT,
    O_W,
    O_SC1,
    O_SC_FREE,
    O_SC_UNCONF,
    O_ROOT_SC,
    O_EP,
    O_EP_NO_WRITE,
    O_NTFN,
    O_NULL,
    O_COUNT
};

struct ssp_case {
    const char *what;
    enum obj target;
    unsigned len, n_caps;
    uint64_t mcp, prio;
    enum obj auth, sc, tep;
    enum kerr want;
    unsigned n_detail;
    uint64_t d0, d1;
};

/* 2.6 in seL4's order: message, authority type, MCP, priority, context
 * (type, bound elsewhere, target has another, blocked target without a
 * released context, unbinding the current thread), timeout endpoint. */
static const struct ssp_case ssp_errors[] = {
    {"1 MR", O_T2, 1, 3, 10, 10, O_ROOT, O_NULL, O_NULL, ERR_TRUNCATED_MESSAGE, 0, 0, 0},
    {"2 caps", O_T2, 2, 2, 10, 10, O_ROOT, O_NULL, O_NULL, ERR_TRUNCATED_MESSAGE, 0, 0, 0},
    {"authority an endpoint", O_T2, 2, 3, 10, 10, O_EP, O_NULL, O_NULL, ERR_INVALID_CAPABILITY, 1,
     1, 0},
    {"mcp above the authority's", O_T2, 2, 3, 101, 10, O_W, O_NULL, O_NULL, ERR_RANGE, 2, 0, 100},
    {"prio above the authority's", O_T2, 2, 3, 10, 101, O_W, O_NULL, O_NULL, ERR_RANGE, 2, 0, 100},
    {"context an endpoint", O_T2, 2, 3, 10, 10, O_ROOT, O_EP, O_NULL, ERR_INVALID_CAPABILITY, 1, 2,
     0},
    {"context bound elsewhere", O_T2, 2, 3, 10, 10, O_ROOT, O_SC1, O_NULL, ERR_ILLEGAL_OPERATION, 0,
     0, 0},
    {"target has another context", O_T1, 2, 3, 10, 10, O_ROOT, O_SC_FREE, O_NULL,
     ERR_ILLEGAL_OPERATION, 0, 0, 0},
    {"blocked target, unconfigured context", O_T3, 2, 3, 10, 10, O_ROOT, O_SC_UNCONF, O_NULL,
     ERR_ILLEGAL_OPERATION, 0, 0, 0},
    {"no context for the current thread", O_ROOT, 2, 3, 255, 255, O_ROOT, O_NULL, O_NULL,
     ERR_ILLEGAL_OPERATION, 0, 0, 0},
    {"timeout endpoint without Write", O_T2, 2, 3, 10, 10, O_ROOT, O_NULL, O_EP_NO_WRITE,
     ERR_INVALID_CAPABILITY, 1, 3, 0},
    {"timeout endpoint a notification", O_T2, 2, 3, 10, 10, O_ROOT, O_NULL, O_NTFN,
     ERR_INVALID_CAPABILITY, 1, 3, 0},
};

static void ssp(const cptr_t *objs, const struct ssp_case *c)
{
    uint64_t mrs[2] = {c->mcp, c->prio};
    cptr_t caps[3] = {objs[c->auth], objs[c->sc], objs[c->tep]};

    ktu_fails(objs[c->target], INV_TCB_SET_SCHED_PARAMS, c->len, mrs, caps, c->n_caps, c->want,
              c->n_detail, c->d0, c->d1);
}

static uint32_t ssp_ok(cptr_t target, uint64_t mcp, uint64_t prio, cptr_t sc, cptr_t tep)
{
    uint64_t mrs[2] = {mcp, prio};
    cptr_t caps[3] = {ROOT_TCB, sc, tep};

    return ktu_call(target, INV_TCB_SET_SCHED_PARAMS, 2, mrs, caps, 3);
}

static void test_tcb_set_sched_params(void **state)
{
    cptr_t o[O_COUNT], t3_sc;

    (void)state;
    ktu_boot(SCHED_MCS);
    ktu_root_lower(100);
    o[O_NTFN] = ktest_retype(OBJ_NOTIFICATION, 0);
    /* T3 (prio 150) is blocked on the notification, its context unbound. */
    o[O_T3] = ktest_thread(13, 150, 1 * MS, 10 * MS, &t3_sc);
    ktu_make_passive(o[O_T3], 13, t3_sc, SYS_WAIT, o[O_NTFN], 0);
    o[O_T1] = ktest_thread(10, 100, 1 * MS, 10 * MS, &o[O_SC1]);
    o[O_T2] = ktest_thread(11, 100, 0, 0, NULL);
    o[O_W] = ktest_thread(12, 100, 0, 0, NULL);
    o[O_ROOT] = ROOT_TCB;
    o[O_ROOT_SC] = ROOT_SC;
    o[O_SC_FREE] = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    ktu_configure(o[O_SC_FREE], 1 * MS, 10 * MS, 0, 99, 0);
    o[O_SC_UNCONF] = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    o[O_EP] = ktest_retype(OBJ_ENDPOINT, 0);
    o[O_EP_NO_WRITE] = ktu_mint(o[O_EP], RIGHT_READ | RIGHT_GRANT | RIGHT_GRANT_REPLY, 0);
    o[O_NULL] = 0;

    for (unsigned i = 0; i < KTU_NELEM(ssp_errors); i++)
        ssp(o, &ssp_errors[i]);
    /* Nothing changed. */
    assert_int_equal(ktu_inspect(o[O_T2]).prio, 100);
    assert_int_equal(ktu_inspect(o[O_T2]).mcp, 100);
    assert_int_equal(ktu_inspect(o[O_T2]).sc_badge, 0);
    assert_int_equal(ktu_inspect_sc(o[O_SC1]).bound_trace_id, 10);
    assert_int_equal(ktu_inspect_sc(o[O_SC_FREE]).bound_trace_id, 0);
    assert_int_equal(ktu_inspect(ROOT_TCB).prio, 100);

    /* The context the target has already: no change of binding. */
    ssp_ok(o[O_T1], 110, 120, o[O_SC1], 0);
    assert_int_equal(ktu_inspect(o[O_T1]).prio, 120);
    assert_int_equal(ktu_inspect(o[O_T1]).mcp, 110);
    assert_int_equal(ktu_inspect_sc(o[O_SC1]).bound_trace_id, 10);
    ssp_ok(ROOT_TCB, 255, 100, ROOT_SC, 0);
    /* Bind, unbind. */
    ssp_ok(o[O_T2], 100, 100, o[O_SC_FREE], o[O_EP]);
    assert_int_equal(ktu_inspect_sc(o[O_SC_FREE]).bound_trace_id, 11);
    ssp_ok(o[O_T1], 100, 100, 0, 0);
    assert_int_equal(ktu_inspect(o[O_T1]).sc_badge, 0);
    assert_int_equal(ktu_inspect_sc(o[O_SC1]).bound_trace_id, 0);
    /* A released context to a blocked thread. */
    ssp_ok(o[O_T3], 150, 150, o[O_SC1], 0);
    assert_int_equal(ktu_inspect_sc(o[O_SC1]).bound_trace_id, 13);
    assert_int_equal(ktu_inspect(o[O_T3]).state, KTU_ST_BLOCKED_ON_NOTIFICATION);
}

/* ------------------------------------------------------ SetTimeoutEndpoint */

/* The endpoint must let the kernel send (Write) and make a reply (Grant
 * or GrantReply); a null cap clears it (seL4 validFaultHandler). */
enum tep_kind { TEP_EP, TEP_NTFN, TEP_NULL, TEP_NONE };

struct tep_case {
    const char *what;
    enum tep_kind kind;
    uint64_t rights; /* of the endpoint cap (TEP_EP) */
    enum kerr want;
};

static const struct tep_case tep_cases[] = {
    {"all rights", TEP_EP, RIGHTS_ALL, ERR_NONE},
    {"Write Grant", TEP_EP, RIGHT_WRITE | RIGHT_GRANT, ERR_NONE},
    {"Write GrantReply", TEP_EP, RIGHT_WRITE | RIGHT_GRANT_REPLY, ERR_NONE},
    {"Write only", TEP_EP, RIGHT_WRITE, ERR_INVALID_CAPABILITY},
    {"no Write", TEP_EP, RIGHT_READ | RIGHT_GRANT | RIGHT_GRANT_REPLY, ERR_INVALID_CAPABILITY},
    {"a notification", TEP_NTFN, 0, ERR_INVALID_CAPABILITY},
    {"no cap", TEP_NONE, 0, ERR_TRUNCATED_MESSAGE},
    {"a null cap (clears)", TEP_NULL, 0, ERR_NONE},
};

static void test_tcb_set_timeout_endpoint_checks(void **state)
{
    cptr_t t, ep, ntfn;

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 2 * MS, 10 * MS, NULL);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    for (unsigned i = 0; i < KTU_NELEM(tep_cases); i++) {
        const struct tep_case *c = &tep_cases[i];
        cptr_t cap = 0;
        struct ktest_msg m;

        if (c->kind == TEP_EP)
            cap = ktu_mint(ep, c->rights, 0);
        else if (c->kind == TEP_NTFN)
            cap = ntfn;
        ktu_invoke_msg(t, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &cap, c->kind == TEP_NONE ? 0 : 1,
                       &m);
        if (m.label != c->want)
            fail_msg("%s: expected error %d, got %llu", c->what, c->want,
                     (unsigned long long)m.label);
        if (c->want == ERR_INVALID_CAPABILITY) {
            assert_int_equal(m.length, 1);
            assert_int_equal(m.mr[0], 1);
        }
    }
}

/* With a timeout endpoint the thread's budget expiry raises a timeout
 * fault (it blocks sending it); once cleared it is just throttled. */
static void test_tcb_set_timeout_endpoint_effect(void **state)
{
    cptr_t h, h2, ep;
    cptr_t null_cap = 0;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(10, 100, 2 * MS, 10 * MS, NULL);
    h2 = ktest_thread(11, 100, 2 * MS, 10 * MS, NULL);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    ktu_call(h, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &ep, 1);
    ktu_call(h2, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &ep, 1);
    ktu_call(h2, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &null_cap, 1);
    ktu_resume(h);
    assert_int_equal(ktu_root_lower(1), 10);
    assert_int_equal(ktu_run_to(2 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_TIMEOUT_FAULT, 10), 1);
    assert_int_equal(ktu_inspect(h).state, KTU_ST_BLOCKED_ON_SEND);
    assert_int_equal(ktu_resume(h2), 11);
    assert_int_equal(ktu_run_to(4 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_TIMEOUT_FAULT, 11), 0);
    assert_true(ktu_inspect(h2).in_release_queue);
}

/* ------------------------------------------------------ Suspend, Resume */

/* B19: P (1 s / 600 s, our priority) runs once, yields (its head moves to
 * 600 s). Ten rounds of Suspend, Resume and our own Yield cannot give it
 * budget back: it never runs again before 600 s. Both flavours. */
static const uint64_t b19_flags[] = {0, SC_FLAG_SPORADIC};

/* One test per flavour in b19_flags. */
static void run_b19(void **state)
{
    const uint64_t flags = *(const uint64_t *)*state;
    cptr_t p, p_sc;

    ktu_boot(SCHED_MCS);
    assert_int_equal(ktu_root_lower(100), KTU_ROOT_ID);
    p = ktest_thread(10, 100, 1 * S, 600 * S, &p_sc);
    ktu_configure(p_sc, 1 * S, 600 * S, 0, 10, flags);
    ktest_trace_clear();
    assert_int_equal(ktu_resume(p), KTU_ROOT_ID); /* equal priority: to the tail */
    assert_int_equal(ktu_yield(), 10);
    ktu_run_to(1 * MS);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    KTU_REFILLS(p_sc, {600 * S, 1 * S});
    for (unsigned i = 0; i < 10; i++) {
        ktu_run_to((2 + i) * MS);
        assert_int_equal(suspend(p), KTU_ROOT_ID);
        assert_int_equal(ktu_inspect(p).state, KTU_ST_INACTIVE);
        assert_false(ktu_inspect(p).in_release_queue);
        assert_int_equal(ktu_resume(p), KTU_ROOT_ID);
        assert_int_equal(ktu_inspect(p).state, KTU_ST_RESTART);
        assert_true(ktu_inspect(p).in_release_queue);
        assert_int_equal(ktu_yield(), KTU_ROOT_ID);
        KTU_REFILLS(p_sc, {600 * S, 1 * S});
    }
    ktu_run_to(599 * S);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, 10), 1);
    assert_int_equal(ktest_trace_count_kind(TR_SUSPEND, 10), 10);
    assert_int_equal(ktest_trace_count_kind(TR_RESUME, 10), 11);
}

/* Suspend takes a thread off whatever queue it is in; Resume of a thread
 * that is not stopped does nothing; a thread that is Running but not
 * current, suspended and resumed, goes on where it was. */
static void test_tcb_suspend_resume_queues(void **state)
{
    cptr_t a, b, c;
    uint64_t out[MSG_MAX_LENGTH];

    (void)state;
    ktu_boot(SCHED_MCS);
    a = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    b = ktest_thread(11, 150, 1 * MS, 10 * MS, NULL);
    c = ktest_thread(12, 150, 10 * MS, 10 * MS, NULL);
    ktest_trace_clear();
    assert_int_equal(ktu_resume(a), KTU_ROOT_ID);
    assert_true(ktu_inspect(a).queued);
    assert_int_equal(suspend(a), KTU_ROOT_ID);
    assert_false(ktu_inspect(a).queued);
    assert_int_equal(ktu_inspect(a).state, KTU_ST_INACTIVE);
    assert_int_equal(ktu_resume(a), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(a), KTU_ROOT_ID); /* Restart: not stopped, no-op */
    assert_int_equal(ktest_trace_count_kind(TR_RESUME, 10), 2);
    assert_int_equal(ktest_trace_count_kind(TR_SUSPEND, 10), 1);
    assert_int_equal(ktu_inspect(a).state, KTU_ST_RESTART);
    assert_true(ktu_inspect(a).queued);

    /* B waits in the release queue: suspended, it is not released. */
    assert_int_equal(ktu_root_lower(120), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(b), 11);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    assert_true(ktu_inspect(b).in_release_queue);
    assert_int_equal(suspend(b), KTU_ROOT_ID);
    assert_false(ktu_inspect(b).in_release_queue);
    assert_int_equal(ktu_inspect(b).state, KTU_ST_INACTIVE);
    assert_int_equal(ktu_run_to(10 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_REPLENISH, 11), 0);

    /* C lowers itself below the root: Running, queued, not current. */
    assert_int_equal(ktu_resume(c), 12);
    assert_int_equal(ktu_set_prio(c, c, 100), KTU_ROOT_ID);
    assert_int_equal(ktest_invoke(c, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, out), ERR_NONE);
    assert_int_equal(suspend(c), KTU_ROOT_ID);
    assert_false(ktu_inspect(c).queued);
    assert_int_equal(ktu_resume(c), KTU_ROOT_ID);
    assert_true(ktu_inspect(c).queued);
    assert_int_equal(ktu_root_lower(1), 12); /* at the head of 100, before A */
    assert_int_equal(ktest_context()->pc, out[0]);
}

/*
 * A thread stopped in a system call makes the call again when resumed
 * (2.5: Restart rewinds the pc; seL4 keeps the restart pc at the call),
 * whether it was suspended first or resumed directly. W, blocked in Wait
 * on n, and R, blocked in Recv on ep.
 */
static void test_tcb_resume_remakes_blocked_call(void **state)
{
    cptr_t w, r, n, ep, reply;
    uint64_t pc_w, pc_r;

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    w = ktest_thread(10, 150, 10 * MS, 10 * MS, NULL);
    r = ktest_thread(11, 150, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(100), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(w), 10);
    pc_w = ktest_context()->pc;
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(r), 11);
    pc_r = ktest_context()->pc;
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), KTU_ROOT_ID);

    assert_int_equal(suspend(w), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(w).state, KTU_ST_INACTIVE);
    assert_int_equal(ktu_resume(w), 10);
    assert_int_equal(ktest_context()->pc, pc_w);
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID); /* made again: blocked again */
    assert_int_equal(ktu_inspect(w).state, KTU_ST_BLOCKED_ON_NOTIFICATION);

    assert_int_equal(ktu_resume(r), 11); /* blocked is stopped: restarted */
    assert_int_equal(ktest_context()->pc, pc_r);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(r).state, KTU_ST_BLOCKED_ON_RECEIVE);
    /* The endpoint still works: a Send reaches R. */
    assert_int_equal(
        ktest_syscall(SYS_SEND, ep, 0, 0, &(struct ktest_msg){.label = 7, .length = 1, .mr = {42}}),
        11);
    assert_int_equal(ktest_context()->x[REG_MR0], 42);
}

/* Suspend cancels a pending YieldTo (seL4 schedContext_cancelYieldTo): the
 * yielder gets no consumed-time reply, and the context's count is not
 * reset. T yields to U at 1; H preempts U at 2 (U's 1 ms is charged) and
 * suspends T. */
static void test_tcb_suspend_cancels_yield_to(void **state)
{
    cptr_t t, u, u_sc, h, n, never;
    uint64_t out[MSG_MAX_LENGTH];

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 100, 10 * MS, 10 * MS, &u_sc);
    h = ktest_thread(20, 200, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, NULL);
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_resume(u);
    ktu_resume(t);
    ktu_resume(h);
    assert_int_equal(ktu_root_lower(1), 20);
    assert_int_equal(ktu_wait(n), 10);
    ktu_run_to(1 * MS);
    assert_int_equal(
        ktest_syscall(SYS_CALL, u_sc, 0, 0, &(struct ktest_msg){.label = INV_SC_YIELD_TO}), 11);
    ktu_run_to(2 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), 20);
    assert_int_equal(suspend(t), 20);
    assert_int_equal(ktu_inspect_sc(u_sc).consumed, 1 * MS);
    assert_int_equal(ktest_invoke(t, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, out), ERR_NONE);
    assert_int_equal(out[1 + REG_INFO], msginfo_make(ERR_NONE, 0, 0));
    assert_int_equal(ktu_resume(t), 20);
    assert_int_equal(ktu_wait(never), 10); /* T before U: resumed at the head */
    assert_int_equal(ktest_context()->x[REG_INFO], msginfo_make(ERR_NONE, 0, 0));
    assert_int_equal(ktu_inspect_sc(u_sc).consumed, 1 * MS);
    assert_int_equal(ktu_inspect(u).state, KTU_ST_RUNNING);
}

/* --------------------------------------------------------- registers */

static void test_tcb_read_write_registers(void **state)
{
    cptr_t t, n;
    uint64_t out[MSG_MAX_LENGTH];
    uint64_t w[8] = {0, 0x40, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15};

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_call(t, INV_TCB_WRITE_REGISTERS, 8, w, NULL, 0);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_INACTIVE);
    {
        struct ktest_msg m;
        ktu_invoke_msg(t, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, &m);
        assert_int_equal(m.label, ERR_NONE);
        assert_int_equal(m.length, 8);
        memcpy(out, m.mr, sizeof out);
    }
    assert_int_equal(out[0], 0x40);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(out[1 + i], 0x10 + i);
    assert_int_equal(out[7], 0);

    ktu_fails(ROOT_TCB, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(ROOT_TCB, INV_TCB_WRITE_REGISTERS, 2, w, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(t, INV_TCB_WRITE_REGISTERS, 1, w, NULL, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0);

    /* Flag bit 0 resumes the thread, at the pc written. */
    ktu_call(t, INV_TCB_WRITE_REGISTERS, 2, (uint64_t[2]){1, 0x80}, NULL, 0);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_RESTART);
    assert_true(ktu_inspect(t).queued);
    assert_int_equal(ktu_root_lower(1), 10);
    assert_int_equal(ktest_context()->pc, 0x80);
    assert_int_equal(ktest_context()->x[0], 0x10);

    /* A thread blocked in a call and resumed by WriteRegisters runs at the
     * pc written, not at its call. */
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
    ktu_call(t, INV_TCB_WRITE_REGISTERS, 2, (uint64_t[2]){1, 0x90}, NULL, 0);
    assert_int_equal(ktest_current(), 10);
    assert_int_equal(ktest_context()->pc, 0x90);
}

/* ------------------------------------------------------ notifications */

/* seL4 decodeBindNotification: the thread already bound, the cap not a
 * notification, the cap without Read, the notification bound to another
 * thread or with waiters: IllegalOperation; no cap: TruncatedMessage. */
static void test_tcb_bind_notification_errors(void **state)
{
    cptr_t t1, t2, w, n1, n2, n3, n_no_read, ep;

    (void)state;
    ktu_boot(SCHED_MCS);
    t1 = ktest_thread(10, 100, 0, 0, NULL);
    t2 = ktest_thread(11, 100, 0, 0, NULL);
    w = ktest_thread(12, 150, 1 * MS, 10 * MS, NULL);
    n1 = ktest_retype(OBJ_NOTIFICATION, 0);
    n2 = ktest_retype(OBJ_NOTIFICATION, 0);
    n3 = ktest_retype(OBJ_NOTIFICATION, 0);
    n_no_read = ktu_mint(n2, RIGHT_WRITE, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    assert_int_equal(ktu_root_lower(100), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(w), 12);
    assert_int_equal(ktu_wait(n3), KTU_ROOT_ID);

    ktu_fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, NULL, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0);
    ktu_fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &ep, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n_no_read, 1, ERR_ILLEGAL_OPERATION, 0, 0,
              0);
    ktu_fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n3, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(t1, INV_TCB_UNBIND_NOTIFICATION, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_call(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n1, 1);
    ktu_fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n2, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(t2, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n1, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_call(t1, INV_TCB_UNBIND_NOTIFICATION, 0, NULL, NULL, 0);
    ktu_call(t2, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n1, 1);
    ktu_call(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n2, 1);
}

/* --------------------------------------------------------- priorities */

/* B18: threads blocked receiving on an endpoint (Wait) or waiting on a
 * notification are re-sorted when their priority changes: queued as 120,
 * 110, 100; 100 raised to 200 and 120 lowered to 50; they are woken in
 * the order 200, 110, 50. */
static const bool b18_on_endpoint[] = {true, false};

/* One test per object kind in b18_on_endpoint. */
static void run_b18(void **state)
{
    const bool endpoint = *(const bool *)*state;
    static const uint8_t prios[3] = {100, 110, 120};
    cptr_t x[3], obj, parked;
    uint32_t order[3];

    ktu_boot(SCHED_MCS);
    obj = endpoint ? ktest_retype(OBJ_ENDPOINT, 0) : ktest_retype(OBJ_NOTIFICATION, 0);
    parked = ktest_retype(OBJ_NOTIFICATION, 0);
    for (unsigned i = 0; i < 3; i++)
        x[i] = ktest_thread(100 + i, prios[i], 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(ktu_resume(x[i]), 100 + i);
        assert_int_equal(ktu_wait(obj), KTU_ROOT_ID);
    }
    ktu_set_prio(x[0], ROOT_TCB, 200);
    ktu_set_prio(x[2], ROOT_TCB, 50);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(ktu_inspect(x[i]).state,
                         endpoint ? KTU_ST_BLOCKED_ON_RECEIVE : KTU_ST_BLOCKED_ON_NOTIFICATION);
    for (unsigned k = 0; k < 3; k++) {
        order[k] = ktest_syscall(SYS_SEND, obj, 0, 0, &(struct ktest_msg){.length = 0});
        assert_int_equal(ktu_wait(parked), KTU_ROOT_ID);
    }
    assert_int_equal(order[0], 100);
    assert_int_equal(order[1], 101);
    assert_int_equal(order[2], 102);
}

/* Lowering one's own priority puts one at the head of the new queue: T
 * keeps running unless a queued thread is above its new priority. A
 * queued thread whose priority changes goes to the head of its new queue
 * too (X ahead of U at 60). */
static void test_tcb_lower_own_priority(void **state)
{
    cptr_t t, u, x, never;

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 60, 10 * MS, 10 * MS, NULL);
    x = ktest_thread(12, 80, 10 * MS, 10 * MS, NULL);
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_resume(u);
    ktu_resume(x);
    ktu_resume(t);
    assert_int_equal(ktu_root_lower(1), 10);
    assert_int_equal(ktu_set_prio(x, t, 60), 10);
    assert_int_equal(ktu_set_prio(t, t, 80), 10);
    assert_int_equal(ktu_set_prio(t, t, 60), 10);
    assert_int_equal(ktu_inspect(t).prio, 60);
    assert_int_equal(ktu_set_prio(t, t, 59), 12);
    assert_int_equal(ktu_wait(never), 11);
    assert_int_equal(ktu_wait(never), 10);
}

/* Raising a queued thread above the current one makes it run at once;
 * lowering itself to the priority of the thread it preempted keeps it
 * running (head), one below gives the CPU back. */
static void test_tcb_raise_queued_priority(void **state)
{
    cptr_t t, u;

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 60, 10 * MS, 10 * MS, NULL);
    ktu_resume(u);
    ktu_resume(t);
    assert_int_equal(ktu_root_lower(1), 10);
    assert_int_equal(ktu_set_prio(u, ROOT_TCB, 150), 11);
    assert_true(ktu_inspect(t).queued);
    assert_int_equal(ktu_set_prio(u, ROOT_TCB, 100), 11);
    assert_int_equal(ktu_set_prio(u, ROOT_TCB, 99), 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcb_b27_mcp),
        cmocka_unit_test(test_tcb_set_sched_params),
        cmocka_unit_test(test_tcb_set_timeout_endpoint_checks),
        cmocka_unit_test(test_tcb_set_timeout_endpoint_effect),
        KTU_TEST_CASE(test_tcb_b19_suspend_resume_no_budget, run_b19, &b19_flags[0]),
        KTU_TEST_CASE(test_tcb_b19_suspend_resume_no_budget_sporadic, run_b19, &b19_flags[1]),
        cmocka_unit_test(test_tcb_suspend_resume_queues),
        cmocka_unit_test(test_tcb_resume_remakes_blocked_call),
        cmocka_unit_test(test_tcb_suspend_cancels_yield_to),
        cmocka_unit_test(test_tcb_read_write_registers),
        cmocka_unit_test(test_tcb_bind_notification_errors),
        KTU_TEST_CASE(test_tcb_b18_reorder_endpoint, run_b18, &b18_on_endpoint[0]),
        KTU_TEST_CASE(test_tcb_b18_reorder_notification, run_b18, &b18_on_endpoint[1]),
        cmocka_unit_test(test_tcb_lower_own_priority),
        cmocka_unit_test(test_tcb_raise_queued_priority),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
