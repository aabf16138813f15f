/*
 * Refills of scheduling contexts (kernel/refill.c and the charging in
 * kernel/timing.c), driven through real system calls on the kernel test
 * bench (ktest.h: zero kernel costs, 1 GHz, MIN_BUDGET 20 us): every
 * schedule of SEL4-MCS-REFERENCE.md 10 that is about refills (B2, B7-B13,
 * r01) with its exact slices and refill lists (time, amount), and
 * refill_update on reconfiguring a runnable thread's context (3.2).
 *
 * Threads "spin" by letting simulated time pass while they are current; a
 * thread that must wake at a given instant waits on a notification that a
 * device line signals (ktest_irq), and blocks again with Wait. The root
 * task (trace id 1) builds everything at time 0 and then drops to priority
 * 1, where it is the background thread of every schedule.
 *
 * Longer than 600 lines: every schedule is written out in full, slice by
 * slice and refill by refill as the reference gives it, and those tables
 * are most of the file; splitting them would only part cases of one rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest_util.h"

#define MS 1000000u /* ticks: the bench's timer runs at 1 GHz */
#define US 1000u
#define LINE 3u /* the device line that wakes threads */

/* The current thread suspends itself: no reply is written (its registers
 * keep the call's message); returns who runs next. */
static uint32_t suspend_self(cptr_t tcb)
{
    struct ktest_msg m = {.label = INV_TCB_SUSPEND};
    uint32_t me = ktest_current();
    uint32_t next = ktest_syscall(SYS_CALL, tcb, 0, 0, &m);

    assert_int_not_equal(next, me);
    assert_int_equal(m.label, INV_TCB_SUSPEND);
    assert_int_equal(ktu_inspect(tcb).state, KTU_ST_INACTIVE);
    return next;
}

/* The device line fires now: `who` is woken and runs. */
static void fire(uint32_t who)
{
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), who);
}

/* The current thread `who` acks the line and waits on n again. */
static void ack_and_wait(uint32_t who, cptr_t handler, cptr_t n)
{
    assert_int_equal(ktest_current(), who);
    assert_int_equal(ktest_invoke(handler, INV_IRQ_ACK, 0, NULL, NULL, 0, NULL), ERR_NONE);
    assert_int_not_equal(ktu_wait(n), who);
}

/* ------------------------------------------------------------------ B7 */

#define H_ID 10u
#define Q_ID 11u
#define E_ID 20u
#define L_ID 30u
#define R KTU_ROOT_ID

/* B7: H (100, 2/10) is runnable from 0 while X (200) spins in [0,5) and
 * then blocks forever. Constant bandwidth re-anchors H's window when H is
 * switched in at 5; sporadic keeps it anchored at the release, 0. */
struct b7_case {
    uint64_t flags;
    struct kinspect_refill at7; /* H's single refill after its first run */
    struct ktu_slice want[7];
};

static const struct b7_case b7_cases[] = {
    {0,
     {15 * MS, 2 * MS},
     {{E_ID, 0, 5 * MS},
      {H_ID, 5 * MS, 7 * MS},
      {R, 7 * MS, 15 * MS},
      {H_ID, 15 * MS, 17 * MS},
      {R, 17 * MS, 25 * MS},
      {H_ID, 25 * MS, 27 * MS},
      {R, 27 * MS, 30 * MS}}},
    {SC_FLAG_SPORADIC,
     {10 * MS, 2 * MS},
     {{E_ID, 0, 5 * MS},
      {H_ID, 5 * MS, 7 * MS},
      {R, 7 * MS, 10 * MS},
      {H_ID, 10 * MS, 12 * MS},
      {R, 12 * MS, 20 * MS},
      {H_ID, 20 * MS, 22 * MS},
      {R, 22 * MS, 30 * MS}}},
};

/* One test per row of b7_cases. */
static void run_b7(void **state)
{
    const struct b7_case *c = *state;
    cptr_t h_sc, h, x, never;

    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 2 * MS, 10 * MS, &h_sc);
    assert_int_equal(ktu_configure(h_sc, 2 * MS, 10 * MS, 0, H_ID, c->flags), KTU_ROOT_ID);
    x = ktest_thread(E_ID, 200, 10 * MS, 10 * MS, NULL);
    never = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_resume(h);
    ktu_resume(x);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), E_ID);
    ktu_run_to(5 * MS);
    assert_int_equal(ktu_wait(never), H_ID);
    ktu_run_to(7 * MS);
    ktu_expect_refills(h_sc, &c->at7, 1);
    ktu_run_to(30 * MS);
    ktu_expect_schedule(c->want, KTU_NELEM(c->want));
}

/* --------------------------------------------------------------- B8, B9 */

/* H (100, 4/10, extra_refills 0) spins; E (200) runs [1,3) once. */
struct b8_case {
    uint64_t flags;
    struct kinspect_refill at3[2], at6[2]; /* H's refills when E blocks, after H's charge */
    unsigned n_at6;
    struct ktu_slice want[12];
    unsigned n_want;
};

static const struct b8_case b8_cases[] = {
    /* B8, constant bandwidth: switched in at 3 the head moves to {3,3};
     * at 6 it goes whole to {13,3}: the split persists. */
    {0,
     {{3 * MS, 3 * MS}, {10 * MS, 1 * MS}},
     {{10 * MS, 1 * MS}, {13 * MS, 3 * MS}},
     2,
     {{H_ID, 0, 1 * MS},
      {E_ID, 1 * MS, 3 * MS},
      {H_ID, 3 * MS, 6 * MS},
      {R, 6 * MS, 10 * MS},
      {H_ID, 10 * MS, 11 * MS},
      {R, 11 * MS, 13 * MS},
      {H_ID, 13 * MS, 16 * MS},
      {R, 16 * MS, 20 * MS},
      {H_ID, 20 * MS, 21 * MS},
      {R, 21 * MS, 23 * MS},
      {H_ID, 23 * MS, 26 * MS},
      {R, 26 * MS, 30 * MS}},
     12},
    /* B9, sporadic: no unblock check at switch-in; at 6 the head {1,3}
     * moves to {11,3} and merges with the tail {10,1}. */
    {SC_FLAG_SPORADIC,
     {{1 * MS, 3 * MS}, {10 * MS, 1 * MS}},
     {{10 * MS, 4 * MS}},
     1,
     {{H_ID, 0, 1 * MS},
      {E_ID, 1 * MS, 3 * MS},
      {H_ID, 3 * MS, 6 * MS},
      {R, 6 * MS, 10 * MS},
      {H_ID, 10 * MS, 14 * MS},
      {R, 14 * MS, 20 * MS},
      {H_ID, 20 * MS, 24 * MS},
      {R, 24 * MS, 30 * MS}},
     8},
};

/* One test per row of b8_cases. */
static void run_b8(void **state)
{
    const struct b8_case *c = *state;
    cptr_t h_sc, h, e, n, handler;

    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
    assert_int_equal(ktu_configure(h_sc, 4 * MS, 10 * MS, 0, H_ID, c->flags), KTU_ROOT_ID);
    e = ktest_thread(E_ID, 200, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, &handler);
    ktu_resume(h);
    ktu_resume(e);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), E_ID);
    assert_int_equal(ktu_wait(n), H_ID);
    ktu_run_to(1 * MS);
    fire(E_ID);
    /* The preemption commits H's 1 ms: used {10,1} at the tail. */
    KTU_REFILLS(h_sc, {1 * MS, 3 * MS}, {10 * MS, 1 * MS});
    ktu_run_to(3 * MS);
    ack_and_wait(E_ID, handler, n);
    assert_int_equal(ktest_current(), H_ID);
    ktu_expect_refills(h_sc, c->at3, 2);
    ktu_run_to(6 * MS);
    ktu_expect_refills(h_sc, c->at6, c->n_at6);
    assert_true(ktu_inspect(h).in_release_queue);
    ktu_run_to(30 * MS);
    ktu_expect_schedule(c->want, c->n_want);
}

/* ----------------------------------------------------------------- B10 */

/* B10: a lower-priority thread released at 1 by the timer makes the kernel
 * commit H's 1 ms ({1,3},{10,1}); at 4 the whole head is charged, {11,3}
 * merges into {10,1}: {10,4}, no fragment. L gets its release at 1 by
 * yielding its 0.5/1 context at 0, and suspends itself when it first runs. */
static void test_refill_b10_no_fragment(void **state)
{
    cptr_t h_sc, l_sc, h, l;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
    l = ktest_thread(L_ID, 50, 500 * US, 1 * MS, &l_sc);
    ktu_resume(l);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), L_ID);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    KTU_REFILLS(l_sc, {1 * MS, 500 * US});
    assert_true(ktu_inspect(l).in_release_queue);
    assert_int_equal(ktu_resume(h), H_ID);

    ktu_run_to(1 * MS);
    assert_int_equal(ktest_current(), H_ID);
    assert_true(ktu_inspect(l).queued);
    KTU_REFILLS(h_sc, {1 * MS, 3 * MS}, {10 * MS, 1 * MS});
    ktu_run_to(4 * MS);
    KTU_REFILLS(h_sc, {10 * MS, 4 * MS});
    assert_int_equal(ktest_current(), L_ID);
    assert_int_equal(suspend_self(l), KTU_ROOT_ID);
    ktu_run_to(20 * MS);
    KTU_REFILLS(h_sc, {20 * MS, 4 * MS});
    KTU_SCHEDULE({H_ID, 0, 4 * MS}, {R, 4 * MS, 10 * MS}, {H_ID, 10 * MS, 14 * MS},
                 {R, 14 * MS, 20 * MS});
}

/* ----------------------------------------------------------------- B11 */

/* B11: H (100, 4/10) spins; E (200) preempts in [1,2) and [3,4). At 3
 * the used 1 ms has no free slot with extra_refills 0: the tail {10,1} is
 * delayed to {11,2}. With extra_refills 2 it gets its own slot. */
struct b11_case {
    uint64_t extra;
    struct kinspect_refill at3[3];
    unsigned n_at3;
    struct ktu_slice want[18];
    unsigned n_want;
};

static const struct b11_case b11_cases[] = {
    {0,
     {{3 * MS, 2 * MS}, {11 * MS, 2 * MS}},
     2,
     {{H_ID, 0, 1 * MS},
      {E_ID, 1 * MS, 2 * MS},
      {H_ID, 2 * MS, 3 * MS},
      {E_ID, 3 * MS, 4 * MS},
      {H_ID, 4 * MS, 6 * MS},
      {R, 6 * MS, 11 * MS},
      {H_ID, 11 * MS, 13 * MS},
      {R, 13 * MS, 14 * MS},
      {H_ID, 14 * MS, 16 * MS},
      {R, 16 * MS, 21 * MS},
      {H_ID, 21 * MS, 23 * MS},
      {R, 23 * MS, 24 * MS},
      {H_ID, 24 * MS, 26 * MS},
      {R, 26 * MS, 30 * MS}},
     14},
    {2,
     {{3 * MS, 2 * MS}, {10 * MS, 1 * MS}, {12 * MS, 1 * MS}},
     3,
     {{H_ID, 0, 1 * MS},
      {E_ID, 1 * MS, 2 * MS},
      {H_ID, 2 * MS, 3 * MS},
      {E_ID, 3 * MS, 4 * MS},
      {H_ID, 4 * MS, 6 * MS},
      {R, 6 * MS, 10 * MS},
      {H_ID, 10 * MS, 11 * MS},
      {R, 11 * MS, 12 * MS},
      {H_ID, 12 * MS, 13 * MS},
      {R, 13 * MS, 14 * MS},
      {H_ID, 14 * MS, 16 * MS},
      {R, 16 * MS, 20 * MS},
      {H_ID, 20 * MS, 21 * MS},
      {R, 21 * MS, 22 * MS},
      {H_ID, 22 * MS, 23 * MS},
      {R, 23 * MS, 24 * MS},
      {H_ID, 24 * MS, 26 * MS},
      {R, 26 * MS, 30 * MS}},
     18},
};

/* One test per row of b11_cases. */
static void run_b11(void **state)
{
    const struct b11_case *c = *state;
    cptr_t h_sc, h, e, n, handler;

    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
    assert_int_equal(ktu_configure(h_sc, 4 * MS, 10 * MS, c->extra, H_ID, 0), KTU_ROOT_ID);
    e = ktest_thread(E_ID, 200, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, &handler);
    ktu_resume(h);
    ktu_resume(e);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), E_ID);
    assert_int_equal(ktu_wait(n), H_ID);
    ktu_run_to(1 * MS);
    fire(E_ID);
    ktu_run_to(2 * MS);
    ack_and_wait(E_ID, handler, n);
    KTU_REFILLS(h_sc, {2 * MS, 3 * MS}, {10 * MS, 1 * MS});
    ktu_run_to(3 * MS);
    fire(E_ID);
    ktu_expect_refills(h_sc, c->at3, c->n_at3);
    ktu_run_to(4 * MS);
    ack_and_wait(E_ID, handler, n);
    ktu_run_to(30 * MS);
    ktu_expect_schedule(c->want, c->n_want);
}

/* ----------------------------------------------------------------- B12 */

/* The one trace record of `kind` for `thread`; fails if not exactly one. */
static const struct ktest_trace *only_record(uint32_t kind, uint32_t thread)
{
    const struct ktest_trace *r;
    unsigned n = ktu_records(kind, thread, &r, 1);

    if (n != 1)
        fail_msg("%u records of kind %u for thread %u, expected one", n, kind, thread);
    return r;
}

/* B12: H (4000/10000 us) makes a system call at 3990 us with 10 us < M
 * left: the call is not performed, the 3990 us are charged, the 10 us left
 * fold into the next refill ({9990, 4000}), H is throttled in Restart with
 * its pc rewound, and makes the call again at 9990 us with 4000 us. */
static void test_refill_b12_min_budget_deferral(void **state)
{
    cptr_t h_sc, h;
    uint64_t pc;
    struct ktest_msg m = {.label = INV_SC_CONSUMED};
    const struct ktest_trace *r;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4000 * US, 10000 * US, &h_sc);
    ktu_resume(h);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), H_ID);
    ktu_run_to(3990 * US);
    pc = ktest_context()->pc;
    assert_int_equal(ktest_syscall(SYS_CALL, h_sc, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, INV_SC_CONSUMED); /* not performed: no reply */
    KTU_REFILLS(h_sc, {9990 * US, 4000 * US});
    assert_int_equal(ktu_inspect(h).state, KTU_ST_RESTART);
    assert_true(ktu_inspect(h).in_release_queue);
    r = only_record(TR_RESTART, H_ID);
    assert_int_equal(r->time, 3990 * US);
    r = only_record(TR_EXHAUSTED, H_ID);
    assert_int_equal(r->time, 3990 * US);
    assert_int_equal(r->arg, 3990 * US);
    r = only_record(TR_THROTTLE, H_ID);
    assert_int_equal(r->arg, 9990 * US);
    assert_int_equal(ktest_trace_count_kind(TR_SYSCALL, H_ID), 1);

    assert_int_equal(ktu_run_to(9990 * US), H_ID);
    assert_int_equal(ktest_context()->pc, pc); /* rewound: the call is made again */
    m = (struct ktest_msg){.label = INV_SC_CONSUMED};
    assert_int_equal(ktest_syscall(SYS_CALL, h_sc, 0, 0, &m), H_ID);
    assert_int_equal(m.label, ERR_NONE);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.mr[0], 3990 * US);
    assert_int_equal(ktu_inspect(h).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_run_to(13990 * US - 1), H_ID);
    assert_int_equal(ktu_run_to(13990 * US), KTU_ROOT_ID);
    KTU_REFILLS(h_sc, {19990 * US, 4000 * US});
    KTU_SCHEDULE({H_ID, 0, 3990 * US}, {R, 3990 * US, 9990 * US}, {H_ID, 9990 * US, 13990 * US});
}

/* ----------------------------------------------------------------- B13 */

/* B13: H (5/10) alone at its priority yields at 1: the whole head refill
 * is charged, H runs again at 10 with its full 5 ms, and Consumed reports
 * the true 1 ms, then 0. */
static void test_refill_b13_yield_periodic(void **state)
{
    cptr_t h_sc, h;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 5 * MS, 10 * MS, &h_sc);
    ktu_resume(h);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), H_ID);
    ktu_run_to(1 * MS);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    KTU_REFILLS(h_sc, {10 * MS, 5 * MS});
    assert_true(ktu_inspect(h).in_release_queue);
    assert_int_equal(ktu_run_to(10 * MS), H_ID);
    assert_int_equal(ktu_consumed(h_sc), 1 * MS);
    assert_int_equal(ktu_consumed(h_sc), 0);
    ktu_run_to(20 * MS);
    KTU_SCHEDULE({H_ID, 0, 1 * MS}, {R, 1 * MS, 10 * MS}, {H_ID, 10 * MS, 15 * MS},
                 {R, 15 * MS, 20 * MS});
}

/* ----------------------------------------------------------------- r01 */

/* r01 (3.5): B8's setup with E running [1,8): switched in at 8, H's head
 * {1,3} moves to {8,3} and absorbs {10,1}: H runs [8,12) in one piece, and
 * the equal-priority Q (round robin 20/20) only from 12; H's release at 18
 * does not preempt Q (B5). */
static void test_refill_r01_unblock_merge(void **state)
{
    cptr_t h_sc, h, q, e, n, handler;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
    q = ktest_thread(Q_ID, 100, 20 * MS, 20 * MS, NULL);
    e = ktest_thread(E_ID, 200, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, &handler);
    ktu_resume(q);
    ktu_resume(h);
    ktu_resume(e);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), E_ID);
    assert_int_equal(ktu_wait(n), H_ID);
    ktu_run_to(1 * MS);
    fire(E_ID);
    ktu_run_to(8 * MS);
    assert_int_equal(ktu_wait(n), H_ID);
    KTU_REFILLS(h_sc, {8 * MS, 4 * MS});
    ktu_run_to(30 * MS);
    KTU_SCHEDULE({H_ID, 0, 1 * MS}, {E_ID, 1 * MS, 8 * MS}, {H_ID, 8 * MS, 12 * MS},
                 {Q_ID, 12 * MS, 30 * MS});
    KTU_REFILLS(h_sc, {18 * MS, 4 * MS});
    assert_true(ktu_inspect(h).queued);
}

/* ------------------------------------------- unblock: wake vs switch-in */

/*
 * 3.5: a sporadic context's unblock check runs when its thread is woken,
 * a constant-bandwidth one's when it is switched in. H (100, 4/10) runs
 * [0,1) and waits; {1,3},{10,1}. At 8 it is woken while E (200, 1/8,
 * released at 8) runs until 9. Sporadic: at 8 the head moves to 8 and
 * absorbs {10,1}; H runs [9,13) and is due again at 18. Constant
 * bandwidth: nothing at 8; at 9 the head moves to 9 (merging); due at 19.
 */
struct wake_case {
    uint64_t flags;
    struct kinspect_refill at8[2];
    unsigned n_at8;
    struct kinspect_refill at13;
};

static const struct wake_case wake_cases[] = {
    {SC_FLAG_SPORADIC, {{8 * MS, 4 * MS}}, 1, {18 * MS, 4 * MS}},
    {0, {{1 * MS, 3 * MS}, {10 * MS, 1 * MS}}, 2, {19 * MS, 4 * MS}},
};

static void test_refill_unblock_at_wake_or_switch_in(void **state)
{
    (void)state;
    for (unsigned i = 0; i < KTU_NELEM(wake_cases); i++) {
        const struct wake_case *c = &wake_cases[i];
        cptr_t h_sc, h, e, n, handler;

        ktu_boot(SCHED_MCS);
        h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
        assert_int_equal(ktu_configure(h_sc, 4 * MS, 10 * MS, 0, H_ID, c->flags), KTU_ROOT_ID);
        e = ktest_thread(E_ID, 200, 1 * MS, 8 * MS, NULL);
        n = ktu_irq_notification(LINE, &handler);
        ktu_resume(h);
        ktu_resume(e);
        assert_int_equal(ktu_root_lower(1), E_ID);
        assert_int_equal(ktu_yield(), H_ID); /* E due at 8 */
        ktu_run_to(1 * MS);
        assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
        KTU_REFILLS(h_sc, {1 * MS, 3 * MS}, {10 * MS, 1 * MS});
        assert_int_equal(ktu_run_to(8 * MS), E_ID);
        fire(E_ID);
        assert_true(ktu_inspect(h).queued);
        ktu_expect_refills(h_sc, c->at8, c->n_at8);
        assert_int_equal(ktu_run_to(9 * MS), H_ID);
        assert_int_equal(ktu_run_to(13 * MS - 1), H_ID);
        assert_int_equal(ktu_run_to(13 * MS), KTU_ROOT_ID);
        ktu_expect_refills(h_sc, &c->at13, 1);
    }
}

/* ------------------------------------------------------------------ B2 */

/* B2: A and B (100, round robin 10/10), A first. A blocks at 3; B runs
 * with its full 10; A, woken at 8, goes to the tail behind B and then has
 * only the 7 ms it did not use. */
static void test_refill_b2_rr_cumulative(void **state)
{
    cptr_t a_sc, a, b, n, handler;

    (void)state;
    ktu_boot(SCHED_MCS);
    a = ktest_thread(H_ID, 100, 10 * MS, 10 * MS, &a_sc);
    b = ktest_thread(Q_ID, 100, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, &handler);
    ktu_resume(b);
    ktu_resume(a);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), H_ID);
    ktu_run_to(3 * MS);
    assert_int_equal(ktu_wait(n), Q_ID);
    /* Round robin commit: the 3 ms used move from the head to the tail. */
    KTU_REFILLS(a_sc, {0, 7 * MS}, {0, 3 * MS});
    ktu_run_to(8 * MS);
    fire(Q_ID);
    assert_true(ktu_inspect(a).queued);
    ktu_run_to(30 * MS);
    KTU_SCHEDULE({H_ID, 0, 3 * MS}, {Q_ID, 3 * MS, 13 * MS}, {H_ID, 13 * MS, 20 * MS},
                 {Q_ID, 20 * MS, 30 * MS});
    /* Expired at 20: the whole budget is back at the head. */
    KTU_REFILLS(a_sc, {0, 10 * MS}, {0, 0});
}

/* ------------------------------------------------------- refill_update */

/*
 * Reconfiguring the context of a runnable thread keeps its head (moved to
 * now if ready, cut to the new budget), drops the rest, and schedules any
 * increase at head.time + the new period (3.2 refill_update); a round
 * robin configuration starts afresh. H (4/10) runs [0,3) and is preempted
 * by the root, woken at 3: its refills are then {3,1},{10,3}.
 */
struct update_case {
    uint64_t budget, period;
    struct kinspect_refill want[2];
    unsigned n;
    uint64_t next_stop; /* when H, resumed at 3, stops */
};

static const struct update_case update_cases[] = {
    {6 * MS, 20 * MS, {{3 * MS, 1 * MS}, {23 * MS, 5 * MS}}, 2, 4 * MS},
    {500 * US, 5 * MS, {{3 * MS, 500 * US}}, 1, 3500 * US},
    {4 * MS, 8 * MS, {{3 * MS, 1 * MS}, {11 * MS, 3 * MS}}, 2, 4 * MS},
    {2 * MS, 2 * MS, {{3 * MS, 2 * MS}, {3 * MS, 0}}, 2, 5 * MS},
};

static void test_refill_update_runnable(void **state)
{
    (void)state;
    for (unsigned i = 0; i < KTU_NELEM(update_cases); i++) {
        const struct update_case *c = &update_cases[i];
        cptr_t h_sc, h, n, handler;

        ktu_boot(SCHED_MCS);
        h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
        n = ktu_irq_notification(LINE, &handler);
        ktu_resume(h);
        assert_int_equal(ktu_wait(n), H_ID);
        ktu_run_to(3 * MS);
        fire(KTU_ROOT_ID);
        KTU_REFILLS(h_sc, {3 * MS, 1 * MS}, {10 * MS, 3 * MS});
        assert_int_equal(ktu_configure(h_sc, c->budget, c->period, 0, H_ID, 0), KTU_ROOT_ID);
        ktu_expect_refills(h_sc, c->want, c->n);
        assert_true(ktu_inspect(h).queued);
        ktest_trace_clear();
        assert_int_equal(ktu_wait(n), H_ID);
        ktu_run_to(c->next_stop - 1);
        assert_int_equal(ktest_current(), H_ID);
        ktu_run_to(c->next_stop);
        if (c->budget == c->period)
            assert_int_equal(ktest_current(), H_ID); /* round robin: never throttled */
        else
            assert_int_not_equal(ktest_current(), H_ID);
    }
}

/* A thread waiting in the release queue is runnable too: its head (not
 * ready) keeps its time; the increase follows one new period later, and
 * the thread stays throttled until its head is due. */
static void test_refill_update_throttled(void **state)
{
    cptr_t h_sc, h, n, handler;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
    n = ktu_irq_notification(LINE, &handler);
    ktu_resume(h);
    assert_int_equal(ktu_wait(n), H_ID);
    ktu_run_to(5 * MS);
    assert_int_equal(ktest_current(), TRACE_IDLE);
    KTU_REFILLS(h_sc, {10 * MS, 4 * MS});
    fire(KTU_ROOT_ID);
    assert_int_equal(ktu_configure(h_sc, 6 * MS, 20 * MS, 0, H_ID, 0), KTU_ROOT_ID);
    KTU_REFILLS(h_sc, {10 * MS, 4 * MS}, {30 * MS, 2 * MS});
    assert_true(ktu_inspect(h).in_release_queue);
    assert_int_equal(ktu_inspect(h).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_wait(n), TRACE_IDLE);
    assert_int_equal(ktu_run_to(10 * MS), H_ID);
}

/* A context whose thread is not runnable (or that has none) starts
 * afresh: one refill (now, budget); round robin adds an empty tail. */
static void test_refill_new_when_not_runnable(void **state)
{
    cptr_t h_sc, h, free_sc;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, &h_sc);
    free_sc = ktest_retype(OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS);
    ktu_resume(h);
    assert_int_equal(ktu_root_lower(1), H_ID);
    ktu_run_to(3 * MS);
    assert_int_equal(suspend_self(h), KTU_ROOT_ID);
    KTU_REFILLS(h_sc, {3 * MS, 1 * MS}, {10 * MS, 3 * MS});
    ktu_run_to(4 * MS);
    assert_int_equal(ktu_configure(h_sc, 6 * MS, 20 * MS, 0, H_ID, 0), KTU_ROOT_ID);
    KTU_REFILLS(h_sc, {4 * MS, 6 * MS});
    assert_int_equal(ktu_configure(free_sc, 2 * MS, 7 * MS, 0, 5, 0), KTU_ROOT_ID);
    KTU_REFILLS(free_sc, {4 * MS, 2 * MS});
    assert_int_equal(ktu_configure(free_sc, 3 * MS, 3 * MS, 4, 5, 0), KTU_ROOT_ID);
    KTU_REFILLS(free_sc, {4 * MS, 3 * MS}, {4 * MS, 0});
    assert_int_equal(ktu_inspect(h).state, KTU_ST_INACTIVE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTU_TEST_CASE(test_refill_b7_constant_bandwidth_window, run_b7, &b7_cases[0]),
        KTU_TEST_CASE(test_refill_b7_sporadic_window, run_b7, &b7_cases[1]),
        KTU_TEST_CASE(test_refill_b8_cb_fragmentation, run_b8, &b8_cases[0]),
        KTU_TEST_CASE(test_refill_b9_sporadic_merge, run_b8, &b8_cases[1]),
        cmocka_unit_test(test_refill_b10_no_fragment),
        KTU_TEST_CASE(test_refill_b11_full_buffer_delays_tail, run_b11, &b11_cases[0]),
        KTU_TEST_CASE(test_refill_b11_extra_refills_2, run_b11, &b11_cases[1]),
        cmocka_unit_test(test_refill_b12_min_budget_deferral),
        cmocka_unit_test(test_refill_b13_yield_periodic),
        cmocka_unit_test(test_refill_r01_unblock_merge),
        cmocka_unit_test(test_refill_unblock_at_wake_or_switch_in),
        cmocka_unit_test(test_refill_b2_rr_cumulative),
        cmocka_unit_test(test_refill_update_runnable),
        cmocka_unit_test(test_refill_update_throttled),
        cmocka_unit_test(test_refill_new_when_not_runnable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
