/*
 * The scheduler (kernel/sched.c, kernel/timing.c) driven through real
 * system calls on the kernel test bench (ktest.h: zero kernel costs, 1 GHz,
 * MIN_BUDGET 20 us): the run orders of SEL4-MCS-REFERENCE.md 10 about
 * queues (B1, B3-B6), the release queue's order, the one-shot timer
 * (TR_TIMER: deadline = the earlier of the running context's budget end
 * and the first release; not reprogrammed when unchanged), and the
 * classic scheduler's tick, timeslice and yield (section 8).
 *
 * Threads "spin" while simulated time passes; a thread that must wake at a
 * given instant waits on a notification signalled by a device line. The
 * root task (trace id 1) builds everything at time 0, then drops to
 * priority 1 and is the background thread of every schedule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "hal_sim.h"
#include "ktest_util.h"

#define MS 1000000u /* ticks: the bench's timer runs at 1 GHz */
#define US 1000u
#define R KTU_ROOT_ID
#define LINE 3u

/* The thread ids of the records of `kind` at time `t`, in order. */
static unsigned records_at(uint32_t kind, uint64_t t, uint32_t *out, unsigned max)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        const struct ktest_trace *r = ktest_trace_get(i);
        if (r->kind == kind && r->time == t && n < max)
            out[n++] = r->thread;
    }
    return n;
}

#define A_ID 10u
#define B_ID 11u
#define C_ID 12u
#define H_ID 20u

/* ------------------------------------------------------------------ B1 */

/* B1: A and B (100, round robin 10/10), both spin, A first. */
static void setup_b1(cptr_t *a_sc)
{
    cptr_t a, b;

    ktu_boot(SCHED_MCS);
    a = ktest_thread(A_ID, 100, 10 * MS, 10 * MS, a_sc);
    b = ktest_thread(B_ID, 100, 10 * MS, 10 * MS, NULL);
    ktu_resume(b);
    ktu_resume(a); /* head insertion: A before B */
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), A_ID);
}

static void test_sched_b1_rr_rotation(void **state)
{
    (void)state;
    setup_b1(NULL);
    ktu_run_to(40 * MS);
    KTU_SCHEDULE({A_ID, 0, 10 * MS}, {B_ID, 10 * MS, 20 * MS}, {A_ID, 20 * MS, 30 * MS},
                 {B_ID, 30 * MS, 40 * MS});
    assert_int_equal(ktest_trace_count_kind(TR_THROTTLE, UINT32_MAX), 0);
}

/* B1 yield: A yields at 3: B runs its 10, then A its full 10 again; A's
 * context reports the 3 ms it really used. */
static void test_sched_b1_rr_yield(void **state)
{
    cptr_t a_sc;
    struct kinspect_sc s;

    (void)state;
    setup_b1(&a_sc);
    ktu_run_to(3 * MS);
    assert_int_equal(ktu_yield(), B_ID);
    s = ktu_inspect_sc(a_sc);
    assert_int_equal(s.n_refills, 2);
    assert_int_equal(s.refills[0].amount, 10 * MS);
    assert_int_equal(s.refills[1].amount, 0);
    assert_int_equal(s.consumed, 3 * MS);
    ktu_run_to(33 * MS);
    KTU_SCHEDULE({A_ID, 0, 3 * MS}, {B_ID, 3 * MS, 13 * MS}, {A_ID, 13 * MS, 23 * MS},
                 {B_ID, 23 * MS, 33 * MS});
}

/* A round robin thread alone at its priority that yields continues at
 * once (2.7). */
static void test_sched_rr_yield_alone(void **state)
{
    cptr_t a;

    (void)state;
    ktu_boot(SCHED_MCS);
    a = ktest_thread(A_ID, 100, 10 * MS, 10 * MS, NULL);
    ktu_resume(a);
    assert_int_equal(ktu_root_lower(1), A_ID);
    ktu_run_to(4 * MS);
    assert_int_equal(ktu_yield(), A_ID);
    assert_true(!ktu_inspect(a).queued);
    /* Full budget again from 4: the next expiry is at 14, not 10. */
    ktest_trace_clear();
    ktu_run_to(14 * MS - 1);
    assert_int_equal(ktest_trace_count_kind(TR_EXHAUSTED, A_ID), 0);
    ktu_run_to(14 * MS);
    assert_int_equal(ktest_trace_count_kind(TR_EXHAUSTED, A_ID), 1);
}

/* ------------------------------------------------------------------ B3 */

/* B3: H (200, 2/10) periodic, L (100, round robin) spins. */
static void test_sched_b3_periodic(void **state)
{
    cptr_t h, l;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 200, 2 * MS, 10 * MS, NULL);
    l = ktest_thread(A_ID, 100, 10 * MS, 10 * MS, NULL);
    ktu_resume(l);
    ktu_resume(h);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), H_ID);
    ktu_run_to(30 * MS);
    KTU_SCHEDULE({H_ID, 0, 2 * MS}, {A_ID, 2 * MS, 10 * MS}, {H_ID, 10 * MS, 12 * MS},
                 {A_ID, 12 * MS, 20 * MS}, {H_ID, 20 * MS, 22 * MS}, {A_ID, 22 * MS, 30 * MS});
    assert_int_equal(ktest_trace_count_kind(TR_THROTTLE, H_ID), 3);
    assert_int_equal(ktest_trace_count_kind(TR_PREEMPT, A_ID), 3); /* at 10, 20, 30 */
}

/* ------------------------------------------------------------------ B4 */

/* B4: L1, L2 (100, round robin 10/10), L1 running; H (200) wakes at 4 and
 * blocks at 6: L1, preempted, keeps its place at the head with its 6 ms. */
static void test_sched_b4_preempted_keeps_place(void **state)
{
    cptr_t l1, l2, h, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    l1 = ktest_thread(A_ID, 100, 10 * MS, 10 * MS, NULL);
    l2 = ktest_thread(B_ID, 100, 10 * MS, 10 * MS, NULL);
    h = ktest_thread(H_ID, 200, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, NULL);
    ktu_resume(l2);
    ktu_resume(l1);
    ktu_resume(h);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), H_ID);
    assert_int_equal(ktu_wait(n), A_ID);
    ktu_run_to(4 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), H_ID);
    assert_true(ktu_inspect(l1).queued);
    ktu_run_to(6 * MS);
    assert_int_equal(ktu_wait(n), A_ID);
    ktu_run_to(32 * MS);
    KTU_SCHEDULE({A_ID, 0, 4 * MS}, {H_ID, 4 * MS, 6 * MS}, {A_ID, 6 * MS, 12 * MS},
                 {B_ID, 12 * MS, 22 * MS}, {A_ID, 22 * MS, 32 * MS});
}

/* ------------------------------------------------------------------ B5 */

/* B5: L1 runs, L3 is queued, L2 (all 100) is woken at 2: L2 does not
 * preempt L1 and goes to the tail, behind L3. */
static void test_sched_b5_equal_prio_wake_goes_to_tail(void **state)
{
    cptr_t l1, l2, l3, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    l1 = ktest_thread(A_ID, 100, 10 * MS, 10 * MS, NULL);
    l2 = ktest_thread(B_ID, 100, 10 * MS, 10 * MS, NULL);
    l3 = ktest_thread(C_ID, 100, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, NULL);
    ktu_resume(l3);
    ktu_resume(l1);
    ktu_resume(l2);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), B_ID);
    assert_int_equal(ktu_wait(n), A_ID);
    ktu_run_to(2 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), A_ID);
    assert_true(ktu_inspect(l2).queued);
    assert_int_equal(ktest_trace_count_kind(TR_PREEMPT, A_ID), 0);
    ktu_run_to(40 * MS);
    KTU_SCHEDULE({A_ID, 0, 10 * MS}, {C_ID, 10 * MS, 20 * MS}, {B_ID, 20 * MS, 30 * MS},
                 {A_ID, 30 * MS, 40 * MS});
}

/* A wake-up of a strictly higher priority preempts at once. */
static void test_sched_higher_prio_wake_preempts(void **state)
{
    cptr_t l, h, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    l = ktest_thread(A_ID, 100, 10 * MS, 10 * MS, NULL);
    h = ktest_thread(H_ID, 101, 10 * MS, 10 * MS, NULL);
    n = ktu_irq_notification(LINE, NULL);
    ktu_resume(l);
    ktu_resume(h);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), H_ID);
    assert_int_equal(ktu_wait(n), A_ID);
    ktu_run_to(2 * MS);
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), H_ID);
    assert_int_equal(ktest_trace_count_kind(TR_PREEMPT, A_ID), 1);
    assert_true(ktu_inspect(l).queued);
}

/* ------------------------------------------------------------------ B6 */

/* B6: n threads of priority 150 (CB 1/10) inserted in the release queue in
 * order A, B(, C), all due at 10; background root. They are released in
 * insertion order, each goes to the head: they run in reverse. */
struct b6_case {
    unsigned n;
    struct ktu_slice want[5];
    unsigned n_want;
};

static const struct b6_case b6_cases[] = {
    {2,
     {{R, 0, 10 * MS}, {B_ID, 10 * MS, 11 * MS}, {A_ID, 11 * MS, 12 * MS}, {R, 12 * MS, 20 * MS}},
     4},
    {3,
     {{R, 0, 10 * MS},
      {C_ID, 10 * MS, 11 * MS},
      {B_ID, 11 * MS, 12 * MS},
      {A_ID, 12 * MS, 13 * MS},
      {R, 13 * MS, 20 * MS}},
     5},
};

static void test_sched_b6_lifo_release(void **state)
{
    (void)state;
    for (unsigned k = 0; k < KTU_NELEM(b6_cases); k++) {
        const struct b6_case *c = &b6_cases[k];
        cptr_t t[3];
        uint32_t ids[3];

        ktu_boot(SCHED_MCS);
        for (unsigned i = 0; i < c->n; i++)
            t[i] = ktest_thread(A_ID + i, 150, 1 * MS, 10 * MS, NULL);
        for (unsigned i = c->n; i-- > 0;)
            ktu_resume(t[i]);
        ktest_trace_clear();
        assert_int_equal(ktu_root_lower(1), A_ID);
        for (unsigned i = 0; i < c->n; i++) {
            assert_int_equal(ktest_current(), A_ID + i);
            ktu_yield(); /* charged whole: due again at 10 */
        }
        assert_int_equal(ktest_current(), KTU_ROOT_ID);
        ktu_run_to(20 * MS);
        ktu_expect_schedule(c->want, c->n_want);
        /* Released in insertion order. */
        assert_int_equal(records_at(TR_REPLENISH, 10 * MS, ids, 3), c->n);
        for (unsigned i = 0; i < c->n; i++)
            assert_int_equal(ids[i], A_ID + i);
    }
}

/* ------------------------------------------------------- release queue */

/* The release queue is ordered by release time; equal times keep their
 * insertion order. D (100, 1/5), then A, B, C (150, 151, 152, 1/10) run
 * one after the other at 0 and yield: D is due at 5, the others at 10 in
 * the order A, B, C. D, charged again at 6, is due at 10 as well: after
 * them. The TR_REPLENISH records show the order of release; the highest
 * priority still runs first. */
static void test_sched_release_queue_order(void **state)
{
    static const uint32_t want_ids[] = {H_ID, A_ID, B_ID, C_ID, H_ID, H_ID, C_ID};
    static const uint64_t want_times[] = {5 * MS,  10 * MS, 10 * MS, 10 * MS,
                                          10 * MS, 18 * MS, 20 * MS};
    cptr_t t[3], d;
    unsigned n = 0;

    (void)state;
    ktu_boot(SCHED_MCS);
    for (unsigned i = 0; i < 3; i++)
        t[i] = ktest_thread(A_ID + i, (uint8_t)(150 + i), 1 * MS, 10 * MS, NULL);
    d = ktest_thread(H_ID, 100, 1 * MS, 5 * MS, NULL);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(d), H_ID);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(ktu_resume(t[i]), A_ID + i);
        assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    }
    ktu_run_to(20 * MS);
    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        const struct ktest_trace *r = ktest_trace_get(i);
        if (r->kind != TR_REPLENISH)
            continue;
        if (n >= KTU_NELEM(want_ids) || r->thread != want_ids[n] || r->time != want_times[n])
            fail_msg("release %u: expected thread %u at %llu us, got thread %u at %llu us", n,
                     n < KTU_NELEM(want_ids) ? want_ids[n] : 0,
                     (unsigned long long)(n < KTU_NELEM(want_ids) ? want_times[n] / US : 0),
                     r->thread, (unsigned long long)(r->time / US));
        n++;
    }
    assert_int_equal(n, KTU_NELEM(want_ids));
    KTU_SCHEDULE({R, 0, 5 * MS}, {H_ID, 5 * MS, 6 * MS}, {R, 6 * MS, 10 * MS},
                 {C_ID, 10 * MS, 11 * MS}, {B_ID, 11 * MS, 12 * MS}, {A_ID, 12 * MS, 13 * MS},
                 {H_ID, 13 * MS, 14 * MS}, {R, 14 * MS, 18 * MS}, {H_ID, 18 * MS, 19 * MS},
                 {R, 19 * MS, 20 * MS});
}

/* ----------------------------------------------------------------- timer */

struct timer_rec {
    uint64_t at, deadline;
};

static void expect_timers(const struct timer_rec *want, unsigned n_want)
{
    unsigned n = 0;
    bool same = true;

    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        const struct ktest_trace *r = ktest_trace_get(i);
        if (r->kind != TR_TIMER)
            continue;
        if (n >= n_want || r->time != want[n].at || r->arg != want[n].deadline)
            same = false;
        n++;
    }
    if (!same || n != n_want) {
        print_error("expected TR_TIMER (at, deadline):");
        for (unsigned i = 0; i < n_want; i++)
            print_error(" (%llu,%llu)", (unsigned long long)(want[i].at / US),
                        (unsigned long long)(want[i].deadline / US));
        print_error(" (us)\nactual:  ");
        for (unsigned i = 0; i < ktest_trace_count(); i++) {
            const struct ktest_trace *r = ktest_trace_get(i);
            if (r->kind == TR_TIMER)
                print_error(" (%llu,%llu)", (unsigned long long)(r->time / US),
                            (unsigned long long)(r->arg / US));
        }
        print_error(" (us)\n");
        fail_msg("timer programming differs");
    }
}

/* The timer is set to the earlier of the running context's budget end and
 * the first release, and only when that changes. H (100, 4/10) spins; P
 * (150, 1/3) yields each time it runs. The deadline the platform holds
 * matches the last record. */
static void test_sched_timer_programming(void **state)
{
    static const struct timer_rec want[] = {
        {0, 1 * MS},        /* P switched in: its budget end */
        {0, 3 * MS},        /* P throttled, H runs: P's release (3) before H's end (4) */
        {3 * MS, 4 * MS},   /* P released and runs: 3 + 1 */
                            /* P yields at 3, H runs to 3 + 1: unchanged, no record */
        {4 * MS, 6 * MS},   /* H throttled, root runs: P's release */
        {6 * MS, 7 * MS},   /* P runs */
        {6 * MS, 9 * MS},   /* P yields: its release at 9 before H's at 10 */
        {9 * MS, 10 * MS},  /* P runs: its end (10) = H's release (10) */
                            /* P yields at 9, root: H's release, 10: unchanged */
        {10 * MS, 12 * MS}, /* H runs: P's release (12) before H's end (14) */
    };
    cptr_t h, p;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 4 * MS, 10 * MS, NULL);
    p = ktest_thread(A_ID, 150, 1 * MS, 3 * MS, NULL);
    ktu_resume(h);
    ktu_resume(p);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), A_ID);
    assert_int_equal(ktu_yield(), H_ID);
    assert_int_equal(hal_sim_timer_cycle(), 3 * MS);
    assert_int_equal(ktu_run_to(3 * MS), A_ID);
    assert_int_equal(ktu_yield(), H_ID);
    assert_int_equal(hal_sim_timer_cycle(), 4 * MS);
    assert_int_equal(ktu_run_to(4 * MS), KTU_ROOT_ID);
    assert_int_equal(ktu_run_to(6 * MS), A_ID);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    assert_int_equal(ktu_run_to(9 * MS), A_ID);
    assert_int_equal(ktu_yield(), KTU_ROOT_ID);
    assert_int_equal(hal_sim_timer_cycle(), 10 * MS);
    assert_int_equal(ktu_run_to(10 * MS), H_ID);
    assert_int_equal(hal_sim_timer_cycle(), 12 * MS);
    expect_timers(want, KTU_NELEM(want));
}

/* With nothing to run and nothing to release the timer is left unarmed;
 * the first release arms it. */
static void test_sched_timer_idle(void **state)
{
    cptr_t h, n;

    (void)state;
    ktu_boot(SCHED_MCS);
    h = ktest_thread(H_ID, 100, 2 * MS, 10 * MS, NULL);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ktu_resume(h);
    ktest_trace_clear();
    assert_int_equal(ktu_wait(n), H_ID); /* the root blocks for good */
    assert_int_equal(hal_sim_timer_cycle(), 2 * MS);
    assert_int_equal(ktu_run_to(2 * MS), TRACE_IDLE);
    assert_int_equal(hal_sim_timer_cycle(), 10 * MS);
    assert_int_equal(ktu_run_to(10 * MS), H_ID);
    assert_int_equal(ktu_wait(n), TRACE_IDLE);
    assert_int_equal(hal_sim_timer_cycle(), HAL_SIM_NEVER);
    ktu_run_to(50 * MS);
    /* H's zero-length run at 10 merges the idle time around it. */
    KTU_SCHEDULE({H_ID, 0, 2 * MS}, {TRACE_IDLE, 2 * MS, 50 * MS});
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, H_ID), 2);
}

/* ---------------------------------------------------------------- classic */

/* Classic (section 8): A and B (100) spin; a 2 ms tick; a timeslice of 5
 * ticks; at its end the thread goes to the tail with a fresh slice. */
static void setup_classic(void)
{
    cptr_t a, b;

    ktu_boot(SCHED_CLASSIC);
    a = ktest_thread(A_ID, 100, 0, 0, NULL);
    b = ktest_thread(B_ID, 100, 0, 0, NULL);
    ktu_resume(b);
    ktu_resume(a);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), A_ID);
}

static void test_sched_classic_timeslice(void **state)
{
    unsigned n = 0;

    (void)state;
    setup_classic();
    ktu_run_to(30 * MS);
    KTU_SCHEDULE({A_ID, 0, 10 * MS}, {B_ID, 10 * MS, 20 * MS}, {A_ID, 20 * MS, 30 * MS});
    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        const struct ktest_trace *r = ktest_trace_get(i);
        if (r->kind != TR_TICK)
            continue;
        n++;
        assert_int_equal(r->time, n * 2 * MS);
    }
    assert_int_equal(n, 15);
    assert_int_equal(ktest_trace_count_kind(TR_TIMER, UINT32_MAX), 0);
}

/* Classic yield: A yields at 3 with 4 ticks left: to the tail, its slice
 * not reset; B gets its 5 ticks (ticks at 4..12), A then its 4 ([12,20)). */
static void test_sched_classic_yield(void **state)
{
    (void)state;
    setup_classic();
    ktu_run_to(3 * MS);
    assert_int_equal(ktu_yield(), B_ID);
    ktu_run_to(30 * MS);
    KTU_SCHEDULE({A_ID, 0, 3 * MS}, {B_ID, 3 * MS, 12 * MS}, {A_ID, 12 * MS, 20 * MS},
                 {B_ID, 20 * MS, 30 * MS});
}

/* Classic: only a running thread's slice counts down; a blocked thread
 * keeps what it had; a thread without a context runs. */
static void test_sched_classic_blocked_keeps_slice(void **state)
{
    cptr_t a, b, n;

    (void)state;
    ktu_boot(SCHED_CLASSIC);
    a = ktest_thread(A_ID, 100, 0, 0, NULL);
    b = ktest_thread(B_ID, 100, 0, 0, NULL);
    n = ktu_irq_notification(LINE, NULL);
    ktu_resume(b);
    ktu_resume(a);
    ktest_trace_clear();
    assert_int_equal(ktu_root_lower(1), A_ID);
    ktu_run_to(5 * MS); /* ticks at 2, 4: A has 3 left */
    assert_int_equal(ktu_wait(n), B_ID);
    ktu_run_to(9 * MS); /* ticks at 6, 8: B has 3 left */
    assert_true(ktest_irq(LINE));
    assert_int_equal(ktest_current(), B_ID);
    /* B: ticks 10, 12 -> 1, 14 expires; A: 16, 18 -> 1, 20 expires. */
    ktu_run_to(30 * MS);
    KTU_SCHEDULE({A_ID, 0, 5 * MS}, {B_ID, 5 * MS, 14 * MS}, {A_ID, 14 * MS, 20 * MS},
                 {B_ID, 20 * MS, 30 * MS});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sched_b1_rr_rotation),
        cmocka_unit_test(test_sched_b1_rr_yield),
        cmocka_unit_test(test_sched_rr_yield_alone),
        cmocka_unit_test(test_sched_b3_periodic),
        cmocka_unit_test(test_sched_b4_preempted_keeps_place),
        cmocka_unit_test(test_sched_b5_equal_prio_wake_goes_to_tail),
        cmocka_unit_test(test_sched_higher_prio_wake_preempts),
        cmocka_unit_test(test_sched_b6_lifo_release),
        cmocka_unit_test(test_sched_release_queue_order),
        cmocka_unit_test(test_sched_timer_programming),
        cmocka_unit_test(test_sched_timer_idle),
        cmocka_unit_test(test_sched_classic_timeslice),
        cmocka_unit_test(test_sched_classic_yield),
        cmocka_unit_test(test_sched_classic_blocked_keeps_slice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
