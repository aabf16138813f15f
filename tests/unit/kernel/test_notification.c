/*
 * Notifications driven through real system calls on the kernel test bench
 * (ktest.h): badge OR-ing, Poll, priority-ordered waiters, a bound
 * notification delivered to a thread receiving on an endpoint, the
 * notification's context lent to passive waiters (B23), the rights and
 * binding checks, and deleting a notification with waiters.
 *
 * The root task (trace id 1) builds everything, then drops to priority 5
 * so that each thread it resumes runs at once and, when that thread
 * blocks, the root runs again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest_util.h"

#define MS 1000000u /* ticks: the bench's timer runs at 1 GHz */

/* Signal (Send on a notification cap) as the current thread. */
static uint32_t signal(cptr_t ntfn)
{
    return ktest_syscall(SYS_SEND, ntfn, 0, 0, NULL);
}

/* Undelivered signals OR their badges; Poll takes the word and leaves
 * the notification idle; Poll with nothing pending gives badge 0. */
static void test_notification_badge_or_and_poll(void **state)
{
    cptr_t n, b1, b4;
    const struct ktest_trace *sig[3];

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    b1 = ktu_mint(n, RIGHTS_ALL, 0x1);
    b4 = ktu_mint(n, RIGHTS_ALL, 0x4);
    assert_int_equal(ktu_poll(n), 0);
    ktest_trace_clear();
    assert_int_equal(signal(b1), KTU_ROOT_ID);
    assert_int_equal(signal(b4), KTU_ROOT_ID);
    assert_int_equal(signal(b1), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SIGNAL, KTU_ROOT_ID), 3);
    assert_true(ktu_records(TR_SIGNAL, UINT32_MAX, sig, 3) >= 2);
    assert_int_equal(sig[1]->arg, 0x4);
    assert_int_equal(sig[1]->arg2, TRACE_IDLE); /* nobody woken */
    assert_int_equal(ktu_poll(n), 0x5);
    assert_int_equal(ktu_poll(n), 0);
    /* Wait on an active notification returns at once. */
    assert_int_equal(signal(b4), KTU_ROOT_ID);
    {
        struct ktest_msg m = {0};
        assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, &m), KTU_ROOT_ID);
        assert_int_equal(m.badge, 0x4);
    }
}

/* arg2 (the thread woken) of the last TR_SIGNAL record. */
static uint64_t last_signal_woke(void)
{
    const struct ktest_trace *r = ktu_last_record(TR_SIGNAL);

    if (r == NULL)
        fail_msg("no signal traced");
    return r->arg2;
}

/* Waiters are woken highest priority first, one per signal, FIFO among
 * equals; each gets the signal's badge. */
static void test_notification_priority_waiters(void **state)
{
    static const uint8_t prio[4] = {100, 120, 110, 120};
    cptr_t n, badged, t[4];
    const unsigned want[4] = {1, 3, 2, 0};

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    badged = ktu_mint(n, RIGHTS_ALL, 0x30);
    for (unsigned i = 0; i < 4; i++)
        t[i] = ktest_thread(100 + i, prio[i], 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(ktu_resume(t[i]), 100 + i);
        assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
        assert_int_equal(ktu_inspect(t[i]).state, KTU_ST_BLOCKED_ON_NOTIFICATION);
    }
    for (unsigned k = 0; k < 4; k++) {
        uint32_t woken = 100 + want[k];

        /* The woken thread (prio >= 100) preempts the root (5). */
        assert_int_equal(signal(badged), woken);
        assert_int_equal(ktest_context()->x[REG_CAP], 0x30);
        assert_int_equal(ktu_inspect(t[want[k]]).state, KTU_ST_RUNNING);
        assert_int_equal(last_signal_woke(), woken);
        /* It stops for good (Suspend itself), the root runs again. */
        assert_int_equal(ktest_syscall(SYS_CALL, t[want[k]], 0, 0,
                                       &(struct ktest_msg){.label = INV_TCB_SUSPEND}),
                         KTU_ROOT_ID);
    }
}

/* Notification n, a cap `badged` to it, endpoint ep, reply object `reply`
 * and thread s (trace id and priority 100) bound to n, not resumed. */
struct bound {
    cptr_t n, badged, ep, reply, s;
};

static void bound_world(struct bound *b, uint64_t badge)
{
    ktu_boot(SCHED_MCS);
    b->n = ktest_retype(OBJ_NOTIFICATION, 0);
    b->badged = ktu_mint(b->n, RIGHTS_ALL, badge);
    b->ep = ktest_retype(OBJ_ENDPOINT, 0);
    b->reply = ktest_retype(OBJ_REPLY, 0);
    b->s = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktest_invoke(b->s, INV_TCB_BIND_NOTIFICATION, 0, NULL, &b->n, 1, NULL),
                     ERR_NONE);
}

/* A thread bound to a notification and receiving on an endpoint is woken
 * by a signal (badge in x0, its reply object freed); a signal pending
 * before its Recv is taken at once; while it waits for a reply a signal
 * is kept pending. */
static void test_notification_bound_receiver(void **state)
{
    struct bound b;
    struct ktest_msg m = {0};

    (void)state;
    bound_world(&b, 0x10);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(b.s), 100);
    assert_int_equal(ktest_syscall(SYS_RECV, b.ep, b.reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(b.s).state, KTU_ST_BLOCKED_ON_RECEIVE);

    assert_int_equal(signal(b.badged), 100);
    assert_int_equal(ktest_context()->x[REG_CAP], 0x10);
    assert_int_equal(ktu_inspect(b.s).state, KTU_ST_RUNNING);
    assert_int_equal(last_signal_woke(), 100);
    /* It left the endpoint's queue and its reply object: the root's
     * NBSend finds no receiver, and the reply object takes a new Recv. */
    assert_int_equal(ktest_syscall(SYS_NB_RECV, b.ep, b.reply, 0, &m), 100);
    assert_int_equal(m.badge, 0);
    assert_int_equal(ktest_syscall(SYS_RECV, b.ep, b.reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktest_syscall(SYS_NB_SEND, b.ep, 0, 0,
                                   &(struct ktest_msg){.label = 3, .length = 1, .mr = {4}}),
                     100);
    assert_int_equal(ktest_context()->x[REG_MR0], 4);
}

/* A signal pending before the bound thread's Recv is taken at once. */
static void test_notification_bound_pending_first(void **state)
{
    struct bound b;
    struct ktest_msg m = {0};

    (void)state;
    bound_world(&b, 0x20);
    assert_int_equal(signal(b.badged), KTU_ROOT_ID);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(b.s), 100);
    assert_int_equal(ktest_syscall(SYS_RECV, b.ep, b.reply, 0, &m), 100);
    assert_int_equal(m.badge, 0x20);
    assert_int_equal(ktu_inspect(b.s).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_poll(b.n), 0);
}

/* A bound thread waiting for a reply is not interrupted: the signal stays
 * pending in the notification. */
static void test_notification_bound_caller_not_interrupted(void **state)
{
    struct bound b;
    cptr_t server;

    (void)state;
    bound_world(&b, 0x8);
    server = ktest_thread(50, 50, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(server), 50);
    assert_int_equal(ktest_syscall(SYS_RECV, b.ep, b.reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(b.s), 100);
    assert_int_equal(ktest_syscall(SYS_CALL, b.ep, 0, 0, NULL), 50);
    assert_int_equal(ktu_inspect(b.s).state, KTU_ST_BLOCKED_ON_REPLY);
    /* The server (50) signals s's notification: s keeps waiting. */
    assert_int_equal(signal(b.badged), 50);
    assert_int_equal(ktu_inspect(b.s).state, KTU_ST_BLOCKED_ON_REPLY);
    assert_int_equal(last_signal_woke(), TRACE_IDLE);
    /* Replied to, s receives on the endpoint: the pending signal first. */
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, b.ep, b.reply, 0, NULL), 100);
    {
        struct ktest_msg m = {0};
        assert_int_equal(ktest_syscall(SYS_RECV, b.ep, ktest_retype(OBJ_REPLY, 0), 0, &m), 100);
        assert_int_equal(m.badge, 0x8);
    }
}

/* B23: a passive handler runs on the notification's context when
 * signalled and gives it back when it waits again; a second passive
 * waiter woken while the first holds the context gets none and does not
 * run (INTERRUPT0002, 0005). */
static void test_notification_b23_lent_context(void **state)
{
    cptr_t n, h, h_sc, h2, h2_sc, n_sc;
    const struct ktest_trace *r;

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    h = ktest_thread(200, 200, 10 * MS, 10 * MS, &h_sc);
    h2 = ktest_thread(190, 190, 10 * MS, 10 * MS, &h2_sc);
    n_sc = h_sc;
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    ktu_make_passive(h, 200, h_sc, SYS_WAIT, n, 0);
    ktu_make_passive(h2, 190, h2_sc, SYS_WAIT, n, 0);
    assert_int_equal(ktu_call(n_sc, INV_SC_BIND, 0, NULL, &n, 1), KTU_ROOT_ID);

    ktest_trace_clear();
    assert_int_equal(signal(n), 200);
    assert_int_equal(ktu_inspect(h).sc_badge, 200);
    r = ktu_last_record(TR_DONATE);
    assert_non_null(r);
    assert_int_equal(r->thread, 200);
    assert_int_equal(r->object, 200);
    assert_int_equal(r->arg, 0);

    /* h signals n again: h2 is woken but gets no context. */
    assert_int_equal(signal(n), 200);
    assert_int_equal(ktu_inspect(h2).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(h2).sc_badge, 0);
    assert_false(ktu_inspect(h2).queued);

    /* h waits again: the context goes back to n; h2 still cannot run. */
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(h).sc_badge, 0);
    assert_int_equal(ktu_inspect(h).state, KTU_ST_BLOCKED_ON_NOTIFICATION);
    assert_int_equal(ktu_inspect_sc(n_sc).bound_trace_id, 0);
    assert_int_equal(ktest_run(5 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, 190), 0);

    /* The next signal lends it to h again. */
    assert_int_equal(signal(n), 200);
    assert_int_equal(ktu_inspect(h).sc_badge, 200);
}

/* A passive server bound to a notification that lends it a context (the
 * restart context of sim/timeouts.c): woken through it, it runs on that
 * context; its blocking Recv on an endpoint where a client is queued gives
 * the context back first (seL4 receiveIPC: maybeReturnSchedContext before
 * the endpoint's queue is looked at), so the client's Call donates the
 * client's own context. */
static void test_notification_lent_context_returned_before_caller(void **state)
{
    cptr_t n, n_sc, ep, reply, s, s_sc, c;
    struct ktest_msg call = {.label = 0, .length = 1, .mr = {9}};
    const struct ktest_trace *r;

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    s = ktest_thread(200, 200, 10 * MS, 10 * MS, &s_sc);
    c = ktest_thread(50, 50, 5 * MS, 10 * MS, NULL);
    n_sc = ktest_retype(OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS);
    assert_int_equal(ktu_configure(n_sc, 10 * MS, 10 * MS, 0, 77, 0), KTU_ROOT_ID);
    assert_int_equal(ktest_invoke(s, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n, 1, NULL), ERR_NONE);
    assert_int_equal(ktu_call(n_sc, INV_SC_BIND, 0, NULL, &n, 1), KTU_ROOT_ID);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    /* s waits on its own bound notification, passive: its context is not
     * the notification's, so it keeps it until the root unbinds it */
    ktu_make_passive(s, 200, s_sc, SYS_WAIT, n, 0);
    assert_int_equal(ktu_resume(c), 50);
    assert_int_equal(ktest_syscall(SYS_CALL, ep, 0, 0, &call), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(c).state, KTU_ST_BLOCKED_ON_SEND);

    ktest_trace_clear();
    assert_int_equal(signal(n), 200);
    assert_int_equal(ktu_inspect(s).sc_badge, 77);
    assert_int_equal(ktu_inspect_sc(n_sc).bound_trace_id, 200);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), 200);
    assert_int_equal(ktest_context()->x[REG_MR0], 9);
    assert_int_equal(ktu_inspect(s).sc_badge, 50);
    assert_int_equal(ktu_inspect_sc(n_sc).bound_trace_id, 0);
    assert_int_equal(ktu_inspect(c).state, KTU_ST_BLOCKED_ON_REPLY);
    assert_int_equal(ktu_inspect(c).sc_badge, 0);
    r = ktu_last_record(TR_DONATE);
    assert_non_null(r);
    assert_int_equal(r->thread, 200);
    assert_int_equal(r->object, 50);
    assert_int_equal(r->arg, 50);
}

/* Signal needs Write (a Call without it answers InvalidCapability 0);
 * Wait needs Read; a notification bound to another thread cannot be
 * waited on (seL4: a cap fault; here the error in x1). */
static void test_notification_rights_and_binding(void **state)
{
    cptr_t n, read_only, write_only, other;
    struct ktest_msg m = {0};

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    read_only = ktu_mint(n, RIGHT_READ, 0);
    write_only = ktu_mint(n, RIGHT_WRITE, 0);
    other = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);

    assert_int_equal(ktest_syscall(SYS_CALL, read_only, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.mr[0], 0);
    assert_int_equal(ktu_poll(n), 0);

    /* Call on a notification with Write signals and succeeds, empty. */
    m = (struct ktest_msg){.label = 9, .length = 2};
    assert_int_equal(ktest_syscall(SYS_CALL, write_only, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_NONE);
    assert_int_equal(m.length, 0);

    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_WAIT, write_only, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], write_only);
    assert_int_equal(m.mr[1], 1);

    assert_int_equal(ktest_invoke(other, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n, 1, NULL),
                     ERR_NONE);
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_NB_WAIT, n, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], n);
}

/* Deleting the notification restarts its waiters (their Wait is made
 * again when they run: pc rewound). */
static void test_notification_delete_restarts_waiters(void **state)
{
    cptr_t n, a;
    uint64_t pc;

    (void)state;
    ktu_boot(SCHED_MCS);
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    a = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(a), 100);
    pc = ktest_context()->pc;
    assert_int_equal(ktu_wait(n), KTU_ROOT_ID);
    assert_int_equal(ktu_call(ROOT_CNODE, INV_CNODE_DELETE, 2, (uint64_t[]){n, 64}, NULL, 0), 100);
    assert_int_equal(ktest_context()->pc, pc);
    assert_int_equal(ktu_inspect(a).state, KTU_ST_RUNNING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notification_badge_or_and_poll),
        cmocka_unit_test(test_notification_priority_waiters),
        cmocka_unit_test(test_notification_bound_receiver),
        cmocka_unit_test(test_notification_bound_pending_first),
        cmocka_unit_test(test_notification_bound_caller_not_interrupted),
        cmocka_unit_test(test_notification_b23_lent_context),
        cmocka_unit_test(test_notification_lent_context_returned_before_caller),
        cmocka_unit_test(test_notification_rights_and_binding),
        cmocka_unit_test(test_notification_delete_restarts_waiters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
