/*
 * TCB invocations (object/tcb.c) through real system calls on the kernel
 * test bench (ktest.h: zero kernel costs, 1 GHz, MIN_BUDGET 20 us):
 * priorities against the authority's MCP (B27, SEL4-MCS-REFERENCE.md 2.6),
 * SetSchedParams and SetTimeoutEndpoint checks, Suspend and Resume (B19;
 * a thread stopped in a system call makes it again, 2.5; a pending
 * YieldTo is cancelled), Read/WriteRegisters, Bind/UnbindNotification,
 * and setPriority's effect on queues (B18, head insertion, lowering one's
 * own priority).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest.h"

#define MS 1000000u
#define S 1000000000ull
#define ROOT_ID 1u
#define LINE 3u
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum {
    ST_INACTIVE = 0,
    ST_RUNNING,
    ST_RESTART,
    ST_BLOCKED_ON_RECEIVE,
    ST_BLOCKED_ON_SEND,
    ST_BLOCKED_ON_REPLY,
    ST_BLOCKED_ON_NOTIFICATION,
};

/* ------------------------------------------------------------- helpers */

static void boot(void)
{
    struct ktest_msg m = {.label = INV_TCB_SET_TRACE_ID, .length = 1, .mr = {ROOT_ID}};

    ktest_boot(NULL);
    assert_int_equal(ktest_syscall(SYS_CALL, ROOT_TCB, 0, 0, &m), ROOT_ID);
    assert_int_equal(m.label, ERR_NONE);
}

static uint32_t invoke_msg(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                           const cptr_t *extra, unsigned n_extra, struct ktest_msg *m)
{
    *m = (struct ktest_msg){.label = label, .length = len, .n_extra = n_extra};
    for (unsigned i = 0; i < len; i++)
        m->mr[i] = mrs[i];
    for (unsigned i = 0; i < n_extra; i++)
        m->extra[i] = extra[i];
    return ktest_syscall(SYS_CALL, cap, 0, 0, m);
}

/* An invocation that must succeed; returns who runs afterwards. */
static uint32_t call(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                     const cptr_t *extra, unsigned n_extra)
{
    struct ktest_msg m;
    uint32_t next = invoke_msg(cap, label, len, mrs, extra, n_extra, &m);

    assert_int_equal(m.label, ERR_NONE);
    return next;
}

/* An invocation that must fail with err and n_detail words [d0, d1]. */
static void fails(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                  const cptr_t *extra, unsigned n_extra, enum kerr err, unsigned n_detail,
                  uint64_t d0, uint64_t d1)
{
    struct ktest_msg m;
    uint32_t me = ktest_current();

    assert_int_equal(invoke_msg(cap, label, len, mrs, extra, n_extra, &m), me);
    if (m.label != err || m.length != n_detail || (n_detail > 0 && m.mr[0] != d0) ||
        (n_detail > 1 && m.mr[1] != d1))
        fail_msg("label %llu: expected error %d detail %u [%llu, %llu], got %llu detail %u "
                 "[%llu, %llu]",
                 (unsigned long long)label, err, n_detail, (unsigned long long)d0,
                 (unsigned long long)d1, (unsigned long long)m.label, m.length,
                 (unsigned long long)m.mr[0], (unsigned long long)m.mr[1]);
}

static uint32_t resume(cptr_t tcb)
{
    return call(tcb, INV_TCB_RESUME, 0, NULL, NULL, 0);
}

static uint32_t suspend(cptr_t tcb)
{
    return call(tcb, INV_TCB_SUSPEND, 0, NULL, NULL, 0);
}

/* SetPriority(tcb, auth, prio) as the current thread; returns who runs. */
static uint32_t set_prio(cptr_t tcb, cptr_t auth, uint64_t prio)
{
    return call(tcb, INV_TCB_SET_PRIORITY, 1, &prio, &auth, 1);
}

static uint32_t root_lower(uint64_t prio)
{
    return set_prio(ROOT_TCB, ROOT_TCB, prio);
}

static uint32_t wait_on(cptr_t n)
{
    return ktest_syscall(SYS_WAIT, n, 0, 0, NULL);
}

static uint32_t run_to(uint64_t t)
{
    assert_true(t >= ktest_now());
    return ktest_run(t - ktest_now());
}

static struct kinspect_thread inspect(cptr_t tcb)
{
    struct kinspect_thread t;

    assert_int_equal(kernel_inspect_thread(tcb, &t), 0);
    return t;
}

static struct kinspect_sc inspect_sc(cptr_t sc)
{
    struct kinspect_sc s;

    assert_int_equal(kernel_inspect_sc(sc, &s), 0);
    return s;
}

static cptr_t mint(cptr_t src, uint64_t rights, uint64_t badge)
{
    cptr_t dest = ktest_alloc_slot();
    uint64_t mrs[] = {dest, 64, src, 64, rights, badge};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(ktest_invoke(ROOT_CNODE, INV_CNODE_MINT, 6, mrs, &root, 1, NULL), ERR_NONE);
    return dest;
}

static cptr_t irq_notification(void)
{
    cptr_t n = ktest_retype(OBJ_NOTIFICATION, 0);
    cptr_t h = ktest_alloc_slot();
    uint64_t mrs[3] = {LINE, h, 64};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(ktest_invoke(ROOT_IRQ_CONTROL, INV_IRQ_CONTROL_GET, 3, mrs, &root, 1, NULL),
                     ERR_NONE);
    assert_int_equal(ktest_invoke(h, INV_IRQ_SET_NOTIFICATION, 0, NULL, &n, 1, NULL), ERR_NONE);
    return n;
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
    boot();
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    v = ktest_thread(11, 50, 0, 0, NULL);
    auths[A_T] = t;
    auths[A_ROOT] = ROOT_TCB;
    auths[A_W] = ktest_thread(12, 20, 0, 0, NULL);
    auths[A_EP] = ktest_retype(OBJ_ENDPOINT, 0);
    auths[A_NONE] = 0;
    resume(t);
    assert_int_equal(root_lower(1), 10);
    for (unsigned i = 0; i < NELEM(prio_cases); i++) {
        const struct prio_case *c = &prio_cases[i];
        struct ktest_msg m;

        assert_int_equal(invoke_msg(v, c->label, c->len, &c->value, &auths[c->auth],
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
        if (inspect(v).prio != c->prio_after || inspect(v).mcp != c->mcp_after)
            fail_msg("%s: expected prio %u mcp %u, got %u %u", c->what, c->prio_after, c->mcp_after,
                     inspect(v).prio, inspect(v).mcp);
    }
}

/* ----------------------------------------------------------- SetSchedParams */

/* A thread (prio 150) blocked on notification n, its context unbound. */
static cptr_t blocked_without_sc(uint32_t id, cptr_t n)
{
    cptr_t sc;
    cptr_t t = ktest_thread(id, 150, 1 * MS, 10 * MS, &sc);

    assert_int_equal(resume(t), id);
    assert_int_equal(wait_on(n), ROOT_ID);
    assert_int_equal(call(sc, INV_SC_UNBIND, 0, NULL, NULL, 0), ROOT_ID);
    return t;
}

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

    fails(objs[c->target], INV_TCB_SET_SCHED_PARAMS, c->len, mrs, caps, c->n_caps, c->want,
          c->n_detail, c->d0, c->d1);
}

static uint32_t ssp_ok(cptr_t target, uint64_t mcp, uint64_t prio, cptr_t sc, cptr_t tep)
{
    uint64_t mrs[2] = {mcp, prio};
    cptr_t caps[3] = {ROOT_TCB, sc, tep};

    return call(target, INV_TCB_SET_SCHED_PARAMS, 2, mrs, caps, 3);
}

static void test_tcb_set_sched_params(void **state)
{
    cptr_t o[O_COUNT];

    (void)state;
    boot();
    root_lower(100);
    o[O_NTFN] = ktest_retype(OBJ_NOTIFICATION, 0);
    o[O_T3] = blocked_without_sc(13, o[O_NTFN]);
    o[O_T1] = ktest_thread(10, 100, 1 * MS, 10 * MS, &o[O_SC1]);
    o[O_T2] = ktest_thread(11, 100, 0, 0, NULL);
    o[O_W] = ktest_thread(12, 100, 0, 0, NULL);
    o[O_ROOT] = ROOT_TCB;
    o[O_ROOT_SC] = ROOT_SC;
    o[O_SC_FREE] = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    call(ROOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, 5,
         (uint64_t[5]){1 * MS, 10 * MS, 0, 99, 0}, &o[O_SC_FREE], 1);
    o[O_SC_UNCONF] = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    o[O_EP] = ktest_retype(OBJ_ENDPOINT, 0);
    o[O_EP_NO_WRITE] = mint(o[O_EP], RIGHT_READ | RIGHT_GRANT | RIGHT_GRANT_REPLY, 0);
    o[O_NULL] = 0;

    for (unsigned i = 0; i < NELEM(ssp_errors); i++)
        ssp(o, &ssp_errors[i]);
    /* Nothing changed. */
    assert_int_equal(inspect(o[O_T2]).prio, 100);
    assert_int_equal(inspect(o[O_T2]).mcp, 100);
    assert_int_equal(inspect(o[O_T2]).sc_badge, 0);
    assert_int_equal(inspect_sc(o[O_SC1]).bound_trace_id, 10);
    assert_int_equal(inspect_sc(o[O_SC_FREE]).bound_trace_id, 0);
    assert_int_equal(inspect(ROOT_TCB).prio, 100);

    /* The context the target has already: no change of binding. */
    ssp_ok(o[O_T1], 110, 120, o[O_SC1], 0);
    assert_int_equal(inspect(o[O_T1]).prio, 120);
    assert_int_equal(inspect(o[O_T1]).mcp, 110);
    assert_int_equal(inspect_sc(o[O_SC1]).bound_trace_id, 10);
    ssp_ok(ROOT_TCB, 255, 100, ROOT_SC, 0);
    /* Bind, unbind. */
    ssp_ok(o[O_T2], 100, 100, o[O_SC_FREE], o[O_EP]);
    assert_int_equal(inspect_sc(o[O_SC_FREE]).bound_trace_id, 11);
    ssp_ok(o[O_T1], 100, 100, 0, 0);
    assert_int_equal(inspect(o[O_T1]).sc_badge, 0);
    assert_int_equal(inspect_sc(o[O_SC1]).bound_trace_id, 0);
    /* A released context to a blocked thread. */
    ssp_ok(o[O_T3], 150, 150, o[O_SC1], 0);
    assert_int_equal(inspect_sc(o[O_SC1]).bound_trace_id, 13);
    assert_int_equal(inspect(o[O_T3]).state, ST_BLOCKED_ON_NOTIFICATION);
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
    boot();
    t = ktest_thread(10, 100, 2 * MS, 10 * MS, NULL);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    for (unsigned i = 0; i < NELEM(tep_cases); i++) {
        const struct tep_case *c = &tep_cases[i];
        cptr_t cap = 0;
        struct ktest_msg m;

        if (c->kind == TEP_EP)
            cap = mint(ep, c->rights, 0);
        else if (c->kind == TEP_NTFN)
            cap = ntfn;
        invoke_msg(t, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &cap, c->kind == TEP_NONE ? 0 : 1, &m);
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
    boot();
    h = ktest_thread(10, 100, 2 * MS, 10 * MS, NULL);
    h2 = ktest_thread(11, 100, 2 * MS, 10 * MS, NULL);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    call(h, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &ep, 1);
    call(h2, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &ep, 1);
    call(h2, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &null_cap, 1);
    resume(h);
    assert_int_equal(root_lower(1), 10);
    assert_int_equal(run_to(2 * MS), ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_TIMEOUT_FAULT, 10), 1);
    assert_int_equal(inspect(h).state, ST_BLOCKED_ON_SEND);
    assert_int_equal(resume(h2), 11);
    assert_int_equal(run_to(4 * MS), ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_TIMEOUT_FAULT, 11), 0);
    assert_true(inspect(h2).in_release_queue);
}

/* ------------------------------------------------------ Suspend, Resume */

/* B19: P (1 s / 600 s, our priority) runs once, yields (its head moves to
 * 600 s). Ten rounds of Suspend, Resume and our own Yield cannot give it
 * budget back: it never runs again before 600 s. Both flavours. */
static void run_b19(uint64_t flags)
{
    cptr_t p, p_sc;
    struct kinspect_sc s;

    boot();
    assert_int_equal(root_lower(100), ROOT_ID);
    p = ktest_thread(10, 100, 1 * S, 600 * S, &p_sc);
    call(ROOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, 5,
         (uint64_t[5]){1 * S, 600 * S, 0, 10, flags}, &p_sc, 1);
    ktest_trace_clear();
    assert_int_equal(resume(p), ROOT_ID); /* equal priority: to the tail */
    assert_int_equal(ktest_syscall(SYS_YIELD, 0, 0, 0, NULL), 10);
    run_to(1 * MS);
    assert_int_equal(ktest_syscall(SYS_YIELD, 0, 0, 0, NULL), ROOT_ID);
    s = inspect_sc(p_sc);
    assert_int_equal(s.n_refills, 1);
    assert_int_equal(s.refills[0].time, 600 * S);
    assert_int_equal(s.refills[0].amount, 1 * S);
    for (unsigned i = 0; i < 10; i++) {
        run_to((2 + i) * MS);
        assert_int_equal(suspend(p), ROOT_ID);
        assert_int_equal(inspect(p).state, ST_INACTIVE);
        assert_false(inspect(p).in_release_queue);
        assert_int_equal(resume(p), ROOT_ID);
        assert_int_equal(inspect(p).state, ST_RESTART);
        assert_true(inspect(p).in_release_queue);
        assert_int_equal(ktest_syscall(SYS_YIELD, 0, 0, 0, NULL), ROOT_ID);
        s = inspect_sc(p_sc);
        assert_int_equal(s.n_refills, 1);
        assert_int_equal(s.refills[0].time, 600 * S);
        assert_int_equal(s.refills[0].amount, 1 * S);
    }
    run_to(599 * S);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, 10), 1);
    assert_int_equal(ktest_trace_count_kind(TR_SUSPEND, 10), 10);
    assert_int_equal(ktest_trace_count_kind(TR_RESUME, 10), 11);
}

static void test_tcb_b19_suspend_resume_no_budget(void **state)
{
    (void)state;
    run_b19(0);
}

static void test_tcb_b19_suspend_resume_no_budget_sporadic(void **state)
{
    (void)state;
    run_b19(SC_FLAG_SPORADIC);
}

/* Suspend takes a thread off whatever queue it is in; Resume of a thread
 * that is not stopped does nothing; a thread that is Running but not
 * current, suspended and resumed, goes on where it was. */
static void test_tcb_suspend_resume_queues(void **state)
{
    cptr_t a, b, c;
    uint64_t out[MSG_MAX_LENGTH];

    (void)state;
    boot();
    a = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    b = ktest_thread(11, 150, 1 * MS, 10 * MS, NULL);
    c = ktest_thread(12, 150, 10 * MS, 10 * MS, NULL);
    ktest_trace_clear();
    assert_int_equal(resume(a), ROOT_ID);
    assert_true(inspect(a).queued);
    assert_int_equal(suspend(a), ROOT_ID);
    assert_false(inspect(a).queued);
    assert_int_equal(inspect(a).state, ST_INACTIVE);
    assert_int_equal(resume(a), ROOT_ID);
    assert_int_equal(resume(a), ROOT_ID); /* Restart: not stopped, no-op */
    assert_int_equal(ktest_trace_count_kind(TR_RESUME, 10), 2);
    assert_int_equal(ktest_trace_count_kind(TR_SUSPEND, 10), 1);
    assert_int_equal(inspect(a).state, ST_RESTART);
    assert_true(inspect(a).queued);

    /* B waits in the release queue: suspended, it is not released. */
    assert_int_equal(root_lower(120), ROOT_ID);
    assert_int_equal(resume(b), 11);
    assert_int_equal(ktest_syscall(SYS_YIELD, 0, 0, 0, NULL), ROOT_ID);
    assert_true(inspect(b).in_release_queue);
    assert_int_equal(suspend(b), ROOT_ID);
    assert_false(inspect(b).in_release_queue);
    assert_int_equal(inspect(b).state, ST_INACTIVE);
    assert_int_equal(run_to(10 * MS), ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_REPLENISH, 11), 0);

    /* C lowers itself below the root: Running, queued, not current. */
    assert_int_equal(resume(c), 12);
    assert_int_equal(set_prio(c, c, 100), ROOT_ID);
    assert_int_equal(ktest_invoke(c, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, out), ERR_NONE);
    assert_int_equal(suspend(c), ROOT_ID);
    assert_false(inspect(c).queued);
    assert_int_equal(resume(c), ROOT_ID);
    assert_true(inspect(c).queued);
    assert_int_equal(root_lower(1), 12); /* at the head of 100, before A */
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
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    w = ktest_thread(10, 150, 10 * MS, 10 * MS, NULL);
    r = ktest_thread(11, 150, 10 * MS, 10 * MS, NULL);
    assert_int_equal(root_lower(100), ROOT_ID);
    assert_int_equal(resume(w), 10);
    pc_w = ktest_context()->pc;
    assert_int_equal(wait_on(n), ROOT_ID);
    assert_int_equal(resume(r), 11);
    pc_r = ktest_context()->pc;
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), ROOT_ID);

    assert_int_equal(suspend(w), ROOT_ID);
    assert_int_equal(inspect(w).state, ST_INACTIVE);
    assert_int_equal(resume(w), 10);
    assert_int_equal(ktest_context()->pc, pc_w);
    assert_int_equal(wait_on(n), ROOT_ID); /* made again: blocked again */
    assert_int_equal(inspect(w).state, ST_BLOCKED_ON_NOTIFICATION);

    assert_int_equal(resume(r), 11); /* blocked is stopped: restarted */
    assert_int_equal(ktest_context()->pc, pc_r);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), ROOT_ID);
    assert_int_equal(inspect(r).state, ST_BLOCKED_ON_RECEIVE);
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
    boot();
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 100, 10 * MS, 10 * MS, &u_sc);
    h = ktest_thread(20, 200, 10 * MS, 10 * MS, NULL);
    n = irq_notification();
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    resume(u);
    resume(t);
    resume(h);
    assert_int_equal(root_lower(1), 20);
    assert_int_equal(wait_on(n), 10);
    run_to(1 * MS);
    assert_int_equal(
        ktest_syscall(SYS_CALL, u_sc, 0, 0, &(struct ktest_msg){.label = INV_SC_YIELD_TO}), 11);
    run_to(2 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), 20);
    assert_int_equal(suspend(t), 20);
    assert_int_equal(inspect_sc(u_sc).consumed, 1 * MS);
    assert_int_equal(ktest_invoke(t, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, out), ERR_NONE);
    assert_int_equal(out[1 + REG_INFO], msginfo_make(ERR_NONE, 0, 0));
    assert_int_equal(resume(t), 20);
    assert_int_equal(wait_on(never), 10); /* T before U: resumed at the head */
    assert_int_equal(ktest_context()->x[REG_INFO], msginfo_make(ERR_NONE, 0, 0));
    assert_int_equal(inspect_sc(u_sc).consumed, 1 * MS);
    assert_int_equal(inspect(u).state, ST_RUNNING);
}

/* --------------------------------------------------------- registers */

static void test_tcb_read_write_registers(void **state)
{
    cptr_t t, n;
    uint64_t out[MSG_MAX_LENGTH];
    uint64_t w[8] = {0, 0x40, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15};

    (void)state;
    boot();
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    call(t, INV_TCB_WRITE_REGISTERS, 8, w, NULL, 0);
    assert_int_equal(inspect(t).state, ST_INACTIVE);
    {
        struct ktest_msg m;
        invoke_msg(t, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, &m);
        assert_int_equal(m.label, ERR_NONE);
        assert_int_equal(m.length, 8);
        memcpy(out, m.mr, sizeof out);
    }
    assert_int_equal(out[0], 0x40);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(out[1 + i], 0x10 + i);
    assert_int_equal(out[7], 0);

    fails(ROOT_TCB, INV_TCB_READ_REGISTERS, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    fails(ROOT_TCB, INV_TCB_WRITE_REGISTERS, 2, w, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    fails(t, INV_TCB_WRITE_REGISTERS, 1, w, NULL, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0);

    /* Flag bit 0 resumes the thread, at the pc written. */
    call(t, INV_TCB_WRITE_REGISTERS, 2, (uint64_t[2]){1, 0x80}, NULL, 0);
    assert_int_equal(inspect(t).state, ST_RESTART);
    assert_true(inspect(t).queued);
    assert_int_equal(root_lower(1), 10);
    assert_int_equal(ktest_context()->pc, 0x80);
    assert_int_equal(ktest_context()->x[0], 0x10);

    /* A thread blocked in a call and resumed by WriteRegisters runs at the
     * pc written, not at its call. */
    assert_int_equal(wait_on(n), ROOT_ID);
    call(t, INV_TCB_WRITE_REGISTERS, 2, (uint64_t[2]){1, 0x90}, NULL, 0);
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
    boot();
    t1 = ktest_thread(10, 100, 0, 0, NULL);
    t2 = ktest_thread(11, 100, 0, 0, NULL);
    w = ktest_thread(12, 150, 1 * MS, 10 * MS, NULL);
    n1 = ktest_retype(OBJ_NOTIFICATION, 0);
    n2 = ktest_retype(OBJ_NOTIFICATION, 0);
    n3 = ktest_retype(OBJ_NOTIFICATION, 0);
    n_no_read = mint(n2, RIGHT_WRITE, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    assert_int_equal(root_lower(100), ROOT_ID);
    assert_int_equal(resume(w), 12);
    assert_int_equal(wait_on(n3), ROOT_ID);

    fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, NULL, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0);
    fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &ep, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n_no_read, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n3, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    fails(t1, INV_TCB_UNBIND_NOTIFICATION, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    call(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n1, 1);
    fails(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n2, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    fails(t2, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n1, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    call(t1, INV_TCB_UNBIND_NOTIFICATION, 0, NULL, NULL, 0);
    call(t2, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n1, 1);
    call(t1, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n2, 1);
}

/* --------------------------------------------------------- priorities */

/* B18: threads blocked receiving on an endpoint (Wait) or waiting on a
 * notification are re-sorted when their priority changes: queued as 120,
 * 110, 100; 100 raised to 200 and 120 lowered to 50; they are woken in
 * the order 200, 110, 50. */
static void run_b18(bool endpoint)
{
    static const uint8_t prios[3] = {100, 110, 120};
    cptr_t x[3], obj, parked;
    uint32_t order[3];

    boot();
    obj = endpoint ? ktest_retype(OBJ_ENDPOINT, 0) : ktest_retype(OBJ_NOTIFICATION, 0);
    parked = ktest_retype(OBJ_NOTIFICATION, 0);
    for (unsigned i = 0; i < 3; i++)
        x[i] = ktest_thread(100 + i, prios[i], 10 * MS, 10 * MS, NULL);
    assert_int_equal(root_lower(5), ROOT_ID);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(resume(x[i]), 100 + i);
        assert_int_equal(wait_on(obj), ROOT_ID);
    }
    set_prio(x[0], ROOT_TCB, 200);
    set_prio(x[2], ROOT_TCB, 50);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(inspect(x[i]).state,
                         endpoint ? ST_BLOCKED_ON_RECEIVE : ST_BLOCKED_ON_NOTIFICATION);
    for (unsigned k = 0; k < 3; k++) {
        order[k] = ktest_syscall(SYS_SEND, obj, 0, 0, &(struct ktest_msg){.length = 0});
        assert_int_equal(wait_on(parked), ROOT_ID);
    }
    assert_int_equal(order[0], 100);
    assert_int_equal(order[1], 101);
    assert_int_equal(order[2], 102);
}

static void test_tcb_b18_reorder_endpoint(void **state)
{
    (void)state;
    run_b18(true);
}

static void test_tcb_b18_reorder_notification(void **state)
{
    (void)state;
    run_b18(false);
}

/* Lowering one's own priority puts one at the head of the new queue: T
 * keeps running unless a queued thread is above its new priority. A
 * queued thread whose priority changes goes to the head of its new queue
 * too (X ahead of U at 60). */
static void test_tcb_lower_own_priority(void **state)
{
    cptr_t t, u, x, never;

    (void)state;
    boot();
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 60, 10 * MS, 10 * MS, NULL);
    x = ktest_thread(12, 80, 10 * MS, 10 * MS, NULL);
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    resume(u);
    resume(x);
    resume(t);
    assert_int_equal(root_lower(1), 10);
    assert_int_equal(set_prio(x, t, 60), 10);
    assert_int_equal(set_prio(t, t, 80), 10);
    assert_int_equal(set_prio(t, t, 60), 10);
    assert_int_equal(inspect(t).prio, 60);
    assert_int_equal(set_prio(t, t, 59), 12);
    assert_int_equal(wait_on(never), 11);
    assert_int_equal(wait_on(never), 10);
}

/* Raising a queued thread above the current one makes it run at once;
 * lowering itself to the priority of the thread it preempted keeps it
 * running (head), one below gives the CPU back. */
static void test_tcb_raise_queued_priority(void **state)
{
    cptr_t t, u;

    (void)state;
    boot();
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 60, 10 * MS, 10 * MS, NULL);
    resume(u);
    resume(t);
    assert_int_equal(root_lower(1), 10);
    assert_int_equal(set_prio(u, ROOT_TCB, 150), 11);
    assert_true(inspect(t).queued);
    assert_int_equal(set_prio(u, ROOT_TCB, 100), 11);
    assert_int_equal(set_prio(u, ROOT_TCB, 99), 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcb_b27_mcp),
        cmocka_unit_test(test_tcb_set_sched_params),
        cmocka_unit_test(test_tcb_set_timeout_endpoint_checks),
        cmocka_unit_test(test_tcb_set_timeout_endpoint_effect),
        cmocka_unit_test(test_tcb_b19_suspend_resume_no_budget),
        cmocka_unit_test(test_tcb_b19_suspend_resume_no_budget_sporadic),
        cmocka_unit_test(test_tcb_suspend_resume_queues),
        cmocka_unit_test(test_tcb_resume_remakes_blocked_call),
        cmocka_unit_test(test_tcb_suspend_cancels_yield_to),
        cmocka_unit_test(test_tcb_read_write_registers),
        cmocka_unit_test(test_tcb_bind_notification_errors),
        cmocka_unit_test(test_tcb_b18_reorder_endpoint),
        cmocka_unit_test(test_tcb_b18_reorder_notification),
        cmocka_unit_test(test_tcb_lower_own_priority),
        cmocka_unit_test(test_tcb_raise_queued_priority),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
