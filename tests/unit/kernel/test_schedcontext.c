/*
 * SchedContext invocations and SchedControl_ConfigureFlags
 * (object/schedcontext.c) through real system calls on the kernel test
 * bench (ktest.h: zero kernel costs, 1 GHz, MIN_BUDGET 20 us = 20000
 * ticks): every check of ConfigureFlags in the order of
 * SEL4-MCS-REFERENCE.md 3.2 with its error detail (B24), what configuring
 * does, the error cases of Bind, Unbind and UnbindObject (3.7), B20 (a
 * thread without a usable context never runs; Bind or Configure makes it
 * run), YieldTo (B27, B28) and Consumed.
 *
 * Durations are ticks (mcsim/abi.h), so error details are in ticks too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest_util.h"

#define MS 1000000u
#define US 1000u
#define M 20000u                       /* MIN_BUDGET of the bench */
#define MAX_PERIOD ((uint64_t)1 << 60) /* kernel's limit (schedcontext.c MAX_PERIOD_TICKS) */
#define LINE 3u

/* ------------------------------------------------------------- helpers */

static uint32_t bind(cptr_t sc, cptr_t obj)
{
    return ktu_call(sc, INV_SC_BIND, 0, NULL, &obj, 1);
}

static void expect_refill(cptr_t sc, unsigned i, uint64_t time, uint64_t amount)
{
    struct kinspect_sc s = ktu_inspect_sc(sc);

    assert_true(i < s.n_refills);
    if (s.refills[i].time != time || s.refills[i].amount != amount)
        fail_msg("refill %u: expected {%llu,%llu}, got {%llu,%llu} (ticks)", i,
                 (unsigned long long)time, (unsigned long long)amount,
                 (unsigned long long)s.refills[i].time, (unsigned long long)s.refills[i].amount);
}

/* ------------------------------------------------------ ConfigureFlags */

enum target { T_SC8, T_SC9, T_TCB, T_NONE };

struct cfg_case {
    const char *what;
    enum target target;
    unsigned len;
    uint64_t budget, period, extra;
    enum kerr want;
    unsigned n_detail;
    uint64_t d0, d1;
};

/* B24 and 3.2, in the reference's order: message length, budget and period
 * ranges, budget <= period, the target's type, extra_refills against the
 * size (2^8 bytes hold 8 refills: at most 6 extra; 2^9 hold 24: 22). */
static const struct cfg_case cfg_errors[] = {
    {"4 MRs", T_SC8, 4, 5 * MS, 5 * MS, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0},
    {"no target cap", T_NONE, 5, 5 * MS, 5 * MS, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0},
    {"budget 0", T_SC8, 5, 0, 5 * MS, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"budget 0, period 0", T_SC8, 5, 0, 0, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"budget 1 us", T_SC8, 5, 1 * US, 5 * MS, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"budget M - 1", T_SC8, 5, M - 1, 5 * MS, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"budget above max", T_SC8, 5, MAX_PERIOD + 1, MAX_PERIOD, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"period M - 1", T_SC8, 5, M, M - 1, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"period above max", T_SC8, 5, 1 * MS, MAX_PERIOD + 1, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"budget > period", T_SC8, 5, 5 * MS, 1 * MS, 0, ERR_RANGE, 2, M, 1 * MS},
    {"target a TCB", T_TCB, 5, 5 * MS, 5 * MS, 0, ERR_INVALID_CAPABILITY, 1, 1, 0},
    {"target a TCB, budget 0", T_TCB, 5, 0, 5 * MS, 0, ERR_RANGE, 2, M, MAX_PERIOD},
    {"target a TCB, budget > period", T_TCB, 5, 5 * MS, 1 * MS, 0, ERR_RANGE, 2, M, 1 * MS},
    {"target a TCB, extra 100", T_TCB, 5, 1 * MS, 10 * MS, 100, ERR_INVALID_CAPABILITY, 1, 1, 0},
    {"extra 7 on 2^8", T_SC8, 5, 1 * MS, 10 * MS, 7, ERR_RANGE, 2, 0, 6},
    {"extra 23 on 2^9", T_SC9, 5, 1 * MS, 10 * MS, 23, ERR_RANGE, 2, 0, 22},
    {"extra 7 on 2^8, budget > period", T_SC8, 5, 5 * MS, 1 * MS, 7, ERR_RANGE, 2, M, 1 * MS},
};

static const struct cfg_case cfg_ok[] = {
    {"budget M, period 5 ms", T_SC8, 5, M, 5 * MS, 0, ERR_NONE, 0, 0, 0},
    {"5 ms / 5 ms", T_SC8, 5, 5 * MS, 5 * MS, 0, ERR_NONE, 0, 0, 0},
    {"extra 6 on 2^8", T_SC8, 5, 1 * MS, 10 * MS, 6, ERR_NONE, 0, 0, 0},
    {"extra 22 on 2^9", T_SC9, 5, 1 * MS, 10 * MS, 22, ERR_NONE, 0, 0, 0},
    {"max / max", T_SC9, 5, MAX_PERIOD, MAX_PERIOD, 0, ERR_NONE, 0, 0, 0},
};

static void run_cfg_case(const struct cfg_case *c, const cptr_t *targets)
{
    uint64_t mrs[5] = {c->budget, c->period, c->extra, 7, 0};
    struct ktest_msg m;

    ktu_invoke_msg(ROOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, c->len, mrs,
                   &targets[c->target], c->target == T_NONE ? 0 : 1, &m);
    assert_int_equal(ktest_current(), KTU_ROOT_ID);
    ktu_expect_reply(c->what, &m, c->want, c->n_detail, c->d0, c->d1);
}

static void test_schedcontext_configure_checks(void **state)
{
    cptr_t targets[4];

    (void)state;
    ktu_boot(SCHED_MCS);
    targets[T_SC8] = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    targets[T_SC9] = ktest_retype(OBJ_SCHED_CONTEXT, 9);
    targets[T_TCB] = ktest_retype(OBJ_TCB, 0);
    targets[T_NONE] = 0;
    for (unsigned i = 0; i < KTU_NELEM(cfg_errors); i++)
        run_cfg_case(&cfg_errors[i], targets);
    /* Nothing was changed by a refused call. */
    assert_int_equal(ktu_inspect_sc(targets[T_SC8]).n_refills, 0);
    assert_int_equal(ktu_inspect_sc(targets[T_SC8]).budget, 0);
    assert_int_equal(ktu_inspect_sc(targets[T_SC9]).n_refills, 0);
    for (unsigned i = 0; i < KTU_NELEM(cfg_ok); i++)
        run_cfg_case(&cfg_ok[i], targets);
    /* A wrong label on SchedControl. */
    ktu_fails(ROOT_SCHED_CONTROL, INV_SC_BIND, 5, (uint64_t[5]){0}, &targets[T_SC8], 1,
              ERR_ILLEGAL_OPERATION, 0, 0, 0);
}

/* Configure starts afresh at now when the thread is not runnable:
 * periodic {now, budget}; round robin (budget == period) also an empty
 * tail and period 0; badge stored. Reconfiguring the current thread's
 * own context commits the time it used first. */
static void test_schedcontext_configure_effect(void **state)
{
    cptr_t sc;
    struct kinspect_sc s;

    (void)state;
    ktu_boot(SCHED_MCS);
    sc = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    ktu_run_to(5 * MS);
    ktu_configure(sc, 2 * MS, 7 * MS, 0, 0x55, 0);
    s = ktu_inspect_sc(sc);
    assert_int_equal(s.budget, 2 * MS);
    assert_int_equal(s.period, 7 * MS);
    assert_int_equal(s.badge, 0x55);
    assert_int_equal(s.n_refills, 1);
    expect_refill(sc, 0, 5 * MS, 2 * MS);
    assert_int_equal(s.bound_trace_id, 0);

    ktu_configure(sc, 3 * MS, 3 * MS, 0, 0x66, 0);
    s = ktu_inspect_sc(sc);
    assert_int_equal(s.period, 0);
    assert_int_equal(s.badge, 0x66);
    assert_int_equal(s.n_refills, 2);
    expect_refill(sc, 0, 5 * MS, 3 * MS);
    expect_refill(sc, 1, 5 * MS, 0);

    /* The root's own context: 5 ms are charged to it, then it starts afresh. */
    assert_int_equal(ktu_inspect_sc(ROOT_SC).consumed, 0);
    assert_int_equal(ktu_configure(ROOT_SC, 10 * MS, 10 * MS, 0, 1, 0), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect_sc(ROOT_SC).consumed, 5 * MS);
    expect_refill(ROOT_SC, 0, 5 * MS, 10 * MS);
    expect_refill(ROOT_SC, 1, 5 * MS, 0);
}

/* ----------------------------------------------------------- Bind errors */

/* A context configured and then unbound from a thread that used it up:
 * its head is due at 10 ms. P (prio 200) runs at 0, yields, and is unbound
 * and left runnable without a context. */
static cptr_t spent_context(cptr_t *p_out)
{
    cptr_t sc;
    cptr_t p = ktest_thread(40, 200, 1 * MS, 10 * MS, &sc);

    assert_int_equal(ktu_resume(p), KTU_ROOT_ID); /* root 255 */
    assert_int_equal(ktu_root_lower(100), 40);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    assert_int_equal(ktu_call(sc, INV_SC_UNBIND_OBJECT, 0, NULL, &p, 1), KTU_ROOT_ID);
    expect_refill(sc, 0, 10 * MS, 1 * MS);
    *p_out = p;
    return sc;
}

/* 3.7 Bind(tcb): the context already has a thread; the thread already has
 * a context; the thread is blocked and the context is not released
 * (inactive, or its head not due). */
static void test_schedcontext_bind_tcb_errors(void **state)
{
    cptr_t p, t_free, t_bound, sc_bound, sc_free, sc_unconf, sc_spent, t_blocked, sc_blocked, n, ep;

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    sc_spent = spent_context(&p);
    /* t_blocked (prio 150) is blocked on n, with no context. */
    t_blocked = ktest_thread(41, 150, 1 * MS, 10 * MS, &sc_blocked);
    ktu_make_passive(t_blocked, 41, sc_blocked, SYS_WAIT, n, 0);
    t_free = ktest_thread(42, 50, 0, 0, NULL);
    t_bound = ktest_thread(43, 50, 1 * MS, 10 * MS, &sc_bound);
    sc_free = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    ktu_configure(sc_free, 1 * MS, 10 * MS, 0, 44, 0);
    sc_unconf = ktest_retype(OBJ_SCHED_CONTEXT, 8);

    ktu_fails(sc_bound, INV_SC_BIND, 0, NULL, &t_free, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_free, INV_SC_BIND, 0, NULL, &t_bound, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_unconf, INV_SC_BIND, 0, NULL, &t_blocked, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_spent, INV_SC_BIND, 0, NULL, &t_blocked, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_free, INV_SC_BIND, 0, NULL, NULL, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0);
    ktu_fails(sc_free, INV_SC_BIND, 0, NULL, &ep, 1, ERR_INVALID_CAPABILITY, 1, 1, 0);
    assert_int_equal(ktu_inspect_sc(sc_free).bound_trace_id, 0);
    assert_int_equal(ktu_inspect_sc(sc_unconf).bound_trace_id, 0);

    /* Released context to a blocked thread: allowed; it stays blocked. */
    assert_int_equal(bind(sc_free, t_blocked), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect_sc(sc_free).bound_trace_id, 41);
    assert_int_equal(ktu_inspect(t_blocked).state, KTU_ST_BLOCKED_ON_NOTIFICATION);
    /* An unconfigured context to an inactive thread: allowed. */
    assert_int_equal(bind(sc_unconf, t_free), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect_sc(sc_unconf).bound_trace_id, 42);
    assert_int_equal(ktu_inspect(t_free).state, KTU_ST_INACTIVE);
    /* A context not due to a runnable thread: it waits for the head. */
    assert_int_equal(ktu_inspect(p).state, KTU_ST_RUNNING);
    assert_int_equal(bind(sc_spent, p), KTU_ROOT_ID);
    assert_true(ktu_inspect(p).in_release_queue);
    assert_int_equal(ktu_run_to(10 * MS - 1), KTU_ROOT_ID);
    assert_int_equal(ktu_run_to(10 * MS), 40);
}

/* Bind(notification): the context already has one; the notification
 * already has a context. A context may be bound to a thread and a
 * notification at once. */
static void test_schedcontext_bind_ntfn_errors(void **state)
{
    cptr_t n1, n2, n3, sc_x, sc_y, sc_t;

    (void)state;
    ktu_boot(SCHED_MCS);
    n1 = ktest_retype(OBJ_NOTIFICATION, 0);
    n2 = ktest_retype(OBJ_NOTIFICATION, 0);
    n3 = ktest_retype(OBJ_NOTIFICATION, 0);
    sc_x = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    sc_y = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    ktest_thread(43, 50, 1 * MS, 10 * MS, &sc_t);
    bind(sc_x, n1);
    ktu_fails(sc_x, INV_SC_BIND, 0, NULL, &n2, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_y, INV_SC_BIND, 0, NULL, &n1, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    bind(sc_y, n2);
    bind(sc_t, n3);
    assert_int_equal(ktu_inspect_sc(sc_t).bound_trace_id, 43);

    /* UnbindObject(notification) only for the one bound. */
    ktu_fails(sc_x, INV_SC_UNBIND_OBJECT, 0, NULL, &n2, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_call(sc_x, INV_SC_UNBIND_OBJECT, 0, NULL, &n1, 1);
    ktu_fails(sc_x, INV_SC_UNBIND_OBJECT, 0, NULL, &n1, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    bind(sc_x, n1); /* both free again */
    /* Unbind drops the notification too: sc_y and n2 are free again. */
    ktu_call(sc_y, INV_SC_UNBIND, 0, NULL, NULL, 0);
    ktu_fails(sc_x, INV_SC_BIND, 0, NULL, &n2, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    bind(sc_y, n2);
    /* Unbind of a context bound to a thread and a notification drops both. */
    ktu_call(sc_t, INV_SC_UNBIND, 0, NULL, NULL, 0);
    assert_int_equal(ktu_inspect_sc(sc_t).bound_trace_id, 0);
    bind(sc_t, n3); /* n3 was freed with it */
}

/* 3.7 UnbindObject(tcb): only the thread that holds the context, and not
 * the current thread; Unbind: not while the current thread holds it. */
static void test_schedcontext_unbind_errors(void **state)
{
    cptr_t t, t_other, sc_t, ep, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    t = ktest_thread(43, 50, 1 * MS, 10 * MS, &sc_t);
    t_other = ktest_thread(44, 50, 0, 0, NULL);

    ktu_fails(sc_t, INV_SC_UNBIND_OBJECT, 0, NULL, &t_other, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(ROOT_SC, INV_SC_UNBIND_OBJECT, 0, NULL, (cptr_t[]){ROOT_TCB}, 1,
              ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_t, INV_SC_UNBIND_OBJECT, 0, NULL, &n, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_t, INV_SC_UNBIND_OBJECT, 0, NULL, &ep, 1, ERR_INVALID_CAPABILITY, 1, 1, 0);
    ktu_fails(sc_t, INV_SC_UNBIND_OBJECT, 0, NULL, NULL, 0, ERR_TRUNCATED_MESSAGE, 0, 0, 0);
    ktu_fails(ROOT_SC, INV_SC_UNBIND, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_t, INV_TCB_SUSPEND, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    assert_int_equal(ktu_inspect_sc(ROOT_SC).bound_trace_id, KTU_ROOT_ID);
    assert_int_equal(ktu_inspect_sc(sc_t).bound_trace_id, 43);

    /* A queued thread unbound leaves the ready queue and does not run. */
    assert_int_equal(ktu_resume(t), KTU_ROOT_ID);
    assert_true(ktu_inspect(t).queued);
    assert_int_equal(ktu_call(sc_t, INV_SC_UNBIND_OBJECT, 0, NULL, &t, 1), KTU_ROOT_ID);
    assert_false(ktu_inspect(t).queued);
    assert_int_equal(ktu_inspect(t).sc_badge, 0);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_RESTART);
    assert_int_equal(ktu_inspect_sc(sc_t).bound_trace_id, 0);
    assert_int_equal(ktu_root_lower(10), KTU_ROOT_ID);
    /* Bound again it runs at once; as the current thread it cannot unbind
     * its own context either way. */
    assert_int_equal(bind(sc_t, t), 43);
    ktu_fails(sc_t, INV_SC_UNBIND, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(sc_t, INV_SC_UNBIND_OBJECT, 0, NULL, &t, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    assert_int_equal(ktu_inspect_sc(sc_t).bound_trace_id, 43);
}

/* ------------------------------------------------------------------ B20 */

/* B20: a thread resumed without a usable context is in Restart but never
 * runs; Bind or Configure later makes it run if its priority permits.
 * The root runs at 50. */
enum b20_kind { NO_SC, UNCONFIGURED_SC, DELETED_SC };

struct b20_case {
    enum b20_kind kind;
    uint8_t prio;
    bool runs;
};

static const struct b20_case b20_cases[] = {
    {NO_SC, 100, true},
    {UNCONFIGURED_SC, 100, true},
    {DELETED_SC, 100, true},
    {NO_SC, 40, false},
};

/* One test per row of b20_cases. */
static void run_b20(void **state)
{
    const struct b20_case *c = *state;
    cptr_t t = 0, sc = 0;
    uint32_t next;

    ktu_boot(SCHED_MCS);
    assert_int_equal(ktu_root_lower(50), KTU_ROOT_ID);
    switch (c->kind) {
    case NO_SC:
        t = ktest_thread(10, c->prio, 0, 0, NULL);
        break;
    case UNCONFIGURED_SC:
        t = ktest_thread(10, c->prio, 0, 0, NULL);
        sc = ktest_retype(OBJ_SCHED_CONTEXT, 8);
        assert_int_equal(bind(sc, t), KTU_ROOT_ID);
        break;
    case DELETED_SC:
        t = ktest_thread(10, c->prio, 2 * MS, 10 * MS, &sc);
        assert_int_equal(ktu_slot_op(INV_CNODE_DELETE, sc), ERR_NONE);
        sc = 0;
        break;
    }
    ktest_trace_clear();
    assert_int_equal(ktu_resume(t), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_RESTART);
    assert_false(ktu_inspect(t).queued);
    assert_false(ktu_inspect(t).in_release_queue);
    assert_int_equal(ktu_run_to(5 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, 10), 0);

    if (c->kind == UNCONFIGURED_SC) {
        next = ktu_configure(sc, 2 * MS, 10 * MS, 0, 10, 0);
    } else {
        sc = ktest_retype(OBJ_SCHED_CONTEXT, 8);
        ktu_configure(sc, 2 * MS, 10 * MS, 0, 10, 0);
        next = bind(sc, t);
    }
    if (c->runs) {
        assert_int_equal(next, 10);
        assert_int_equal(ktu_inspect(t).state, KTU_ST_RUNNING);
    } else {
        assert_int_equal(next, KTU_ROOT_ID);
        assert_true(ktu_inspect(t).queued);
        assert_int_equal(ktu_inspect(t).state, KTU_ST_RESTART);
    }
}

/* --------------------------------------------------------------- YieldTo */

/* B28: T (100) yields to U (100, runnable): U runs next, T queued
 * directly behind it (ahead of W, queued before); when T runs again its
 * call returns U's consumed time, 3 ms, and U's count is reset. */
static void test_schedcontext_b28_yield_to_equal(void **state)
{
    cptr_t t, u, w, u_sc, never;
    struct ktest_msg m = {.label = INV_SC_YIELD_TO};
    struct user_context *ctx;

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 100, 10 * MS, 10 * MS, &u_sc);
    w = ktest_thread(12, 100, 10 * MS, 10 * MS, NULL);
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_resume(w);
    ktu_resume(u);
    ktu_resume(t); /* queue: T, U, W */
    assert_int_equal(ktu_root_lower(1), 10);
    ktu_run_to(1 * MS);
    assert_int_equal(ktest_syscall(SYS_CALL, u_sc, 0, 0, &m), 11);
    assert_true(ktu_inspect(t).queued);
    ktu_run_to(4 * MS);
    assert_int_equal(ktu_wait(never), 10);
    ctx = ktest_context();
    assert_int_equal(msginfo_label(ctx->x[REG_INFO]), ERR_NONE);
    assert_int_equal(msginfo_length(ctx->x[REG_INFO]), 1);
    assert_int_equal(ctx->x[REG_MR0], 3 * MS);
    assert_int_equal(ktu_inspect_sc(u_sc).consumed, 0);
    assert_int_equal(ktu_wait(never), 12);
}

/* B28: U (90) is below T (100): U goes to the head of the 90 queue (ahead
 * of X) and T continues at once; the reply is U's consumed time (2 ms,
 * what U really used before it yielded), which is reset. */
static void test_schedcontext_b28_yield_to_lower(void **state)
{
    cptr_t t, u, x, u_sc, n, never;
    struct ktest_msg m = {.label = INV_SC_YIELD_TO};

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(11, 90, 10 * MS, 10 * MS, &u_sc);
    x = ktest_thread(12, 90, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, NULL);
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_resume(t);
    ktu_resume(x);
    ktu_resume(u); /* 90: U, X */
    assert_int_equal(ktu_root_lower(1), 10);
    assert_int_equal(ktu_wait(n), 11);
    ktu_run_to(2 * MS);
    assert_int_equal(ktu_yield(), 12); /* 90: X, U */
    ktu_run_to(3 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), 10);
    assert_int_equal(ktu_inspect_sc(u_sc).consumed, 2 * MS);
    assert_int_equal(ktest_syscall(SYS_CALL, u_sc, 0, 0, &m), 10);
    assert_int_equal(m.label, ERR_NONE);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.mr[0], 2 * MS);
    assert_int_equal(ktu_inspect_sc(u_sc).consumed, 0);
    assert_int_equal(ktu_wait(never), 11);
}

/* YieldTo errors (3.7, B27): the context has no thread; its thread is the
 * caller; its thread's priority is above the caller's MCP (150 > 100).
 * With an MCP of 200 the same call is allowed and U (150) runs. */
static void test_schedcontext_yield_to_errors(void **state)
{
    cptr_t t, t_sc, u, u_sc, sc_free, mcp_auth;
    uint64_t mcp = 200;

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 10 * MS, 10 * MS, &t_sc);
    u = ktest_thread(11, 150, 10 * MS, 10 * MS, &u_sc);
    sc_free = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    ktu_configure(sc_free, 1 * MS, 10 * MS, 0, 5, 0);
    ktu_resume(t);
    assert_int_equal(ktu_root_lower(1), 10);
    ktu_fails(sc_free, INV_SC_YIELD_TO, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(t_sc, INV_SC_YIELD_TO, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    ktu_fails(u_sc, INV_SC_YIELD_TO, 0, NULL, NULL, 0, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    /* U is not even runnable: the MCP check comes first. Now raise T's
     * MCP (authority: the root's TCB) and resume U. */
    mcp_auth = ROOT_TCB;
    assert_int_equal(ktest_invoke(t, INV_TCB_SET_MC_PRIORITY, 1, &mcp, &mcp_auth, 1, NULL),
                     ERR_NONE);
    /* U not runnable: returns at once with U's consumed (0). */
    assert_int_equal(ktu_call(u_sc, INV_SC_YIELD_TO, 0, NULL, NULL, 0), 10);
    assert_int_equal(ktu_resume(u), 11); /* 150 > 100 */
}

/* --------------------------------------------------------------- Consumed */

/* Consumed returns the time charged to the context since the last read
 * and resets it; time is charged when the context is switched out. */
static void test_schedcontext_consumed_resets(void **state)
{
    cptr_t h, h_sc, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(10, 100, 4 * MS, 10 * MS, &h_sc);
    n = ktu_irq_notification(LINE, NULL);
    ktu_resume(h);
    assert_int_equal(ktu_wait(n), 10);
    ktu_run_to(3 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect_sc(h_sc).consumed, 3 * MS);
    assert_int_equal(ktu_consumed(h_sc), 3 * MS);
    assert_int_equal(ktu_consumed(h_sc), 0);
    assert_int_equal(ktu_inspect_sc(h_sc).consumed, 0);
    /* H runs 1 ms more and exhausts at 4: charged 1 ms. */
    assert_int_equal(ktu_wait(n), 10);
    assert_int_equal(ktu_run_to(4 * MS), TRACE_IDLE);
    assert_int_equal(ktu_inspect_sc(h_sc).consumed, 1 * MS);
}


/* ----------------------------------------- an unconfigured context (issue 19) */

/* T is started by TCB_WriteRegisters (resume), then bound to a context
 * that was never configured, then yielded to. seL4 (schedContext_resume,
 * isSchedulable): a context with no refills is not schedulable, so
 * nothing is postponed and YieldTo returns at once with the context's
 * consumed time, 0. The kernel must not treat the context as having
 * refills (it once asserted sc->count > 0 here). */
static void test_schedcontext_yield_to_unconfigured(void **state)
{
    uint64_t regs[2] = {1, 0x1000}; /* resume, pc */
    cptr_t t, sc;
    struct ktest_msg m;

    (void)state;
    ktu_boot(SCHED_MCS);
    t = ktest_thread(10, 100, 0, 0, NULL);
    sc = ktest_retype(OBJ_SCHED_CONTEXT, 8);
    assert_int_equal(ktu_call(t, INV_TCB_WRITE_REGISTERS, 2, regs, NULL, 0), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_RESTART);
    assert_int_equal(bind(sc, t), KTU_ROOT_ID);
    assert_int_equal(ktu_invoke_msg(sc, INV_SC_YIELD_TO, 0, NULL, NULL, 0, &m), KTU_ROOT_ID);
    ktu_expect_reply("YieldTo an unconfigured context", &m, ERR_NONE, 1, 0, 0);
    assert_false(ktu_inspect(t).queued);
    assert_false(ktu_inspect(t).in_release_queue);
    assert_int_equal(ktu_inspect_sc(sc).n_refills, 0);
}

/* Under classic there are no scheduling contexts: as in seL4 built without
 * MCS, SchedContext is not an object type, so Untyped_Retype refuses it
 * (InvalidArgument, argument 0) and the rest of that sequence cannot be
 * made. */
static void test_schedcontext_classic_has_none(void **state)
{
    uint64_t regs[2] = {1, 0x1000};
    cptr_t t, root = ROOT_CNODE, slot;

    (void)state;
    ktu_boot(SCHED_CLASSIC);
    t = ktest_thread(10, 100, 0, 0, NULL);
    assert_int_equal(ktu_call(t, INV_TCB_WRITE_REGISTERS, 2, regs, NULL, 0), KTU_ROOT_ID);
    slot = ktest_alloc_slot();
    {
        uint64_t mrs[6] = {OBJ_SCHED_CONTEXT, 8, 0, 0, slot, 1};
        ktu_fails(KTEST_UNTYPED, INV_UNTYPED_RETYPE, 6, mrs, &root, 1, ERR_INVALID_ARGUMENT, 1, 0,
                  0);
    }
    assert_false(ktu_occupied(slot));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedcontext_configure_checks),
        cmocka_unit_test(test_schedcontext_configure_effect),
        cmocka_unit_test(test_schedcontext_bind_tcb_errors),
        cmocka_unit_test(test_schedcontext_bind_ntfn_errors),
        cmocka_unit_test(test_schedcontext_unbind_errors),
        KTU_TEST_CASE(test_schedcontext_b20_no_sc, run_b20, &b20_cases[0]),
        KTU_TEST_CASE(test_schedcontext_b20_unconfigured_sc, run_b20, &b20_cases[1]),
        KTU_TEST_CASE(test_schedcontext_b20_deleted_sc, run_b20, &b20_cases[2]),
        KTU_TEST_CASE(test_schedcontext_b20_lower_prio_waits, run_b20, &b20_cases[3]),
        cmocka_unit_test(test_schedcontext_b28_yield_to_equal),
        cmocka_unit_test(test_schedcontext_b28_yield_to_lower),
        cmocka_unit_test(test_schedcontext_yield_to_errors),
        cmocka_unit_test(test_schedcontext_consumed_resets),
        cmocka_unit_test(test_schedcontext_yield_to_unconfigured),
        cmocka_unit_test(test_schedcontext_classic_has_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
