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

#include "ktest.h"

#define MS 1000000u /* ticks: the bench's timer runs at 1 GHz */
#define ROOT_ID 1u

/* enum thread_state of kernel-core/src/kernel/structures.h. */
enum {
    ST_INACTIVE = 0,
    ST_RUNNING,
    ST_RESTART,
    ST_BLOCKED_ON_RECEIVE,
    ST_BLOCKED_ON_SEND,
    ST_BLOCKED_ON_REPLY,
    ST_BLOCKED_ON_NOTIFICATION,
};

static struct kinspect_thread inspect(cptr_t tcb)
{
    struct kinspect_thread t;

    assert_int_equal(kernel_inspect_thread(tcb, &t), 0);
    return t;
}

static void boot(void)
{
    struct ktest_msg m = {.label = INV_TCB_SET_TRACE_ID, .length = 1, .mr = {ROOT_ID}};

    ktest_boot(NULL);
    assert_int_equal(ktest_syscall(SYS_CALL, ROOT_TCB, 0, 0, &m), ROOT_ID);
    assert_int_equal(m.label, ERR_NONE);
}

/* Invoke as the current thread, which may lose the CPU; returns who runs. */
static uint32_t call_invoke(cptr_t cap, uint64_t label, unsigned len, const uint64_t *mrs,
                            const cptr_t *extra, unsigned n_extra)
{
    struct ktest_msg m = {.label = label, .length = len, .n_extra = n_extra};

    for (unsigned i = 0; i < len; i++)
        m.mr[i] = mrs[i];
    for (unsigned i = 0; i < n_extra; i++)
        m.extra[i] = extra[i];
    uint32_t next = ktest_syscall(SYS_CALL, cap, 0, 0, &m);
    assert_int_equal(m.label, ERR_NONE);
    return next;
}

static void root_lower(void)
{
    uint64_t prio = 5;
    cptr_t auth = ROOT_TCB;

    assert_int_equal(call_invoke(ROOT_TCB, INV_TCB_SET_PRIORITY, 1, &prio, &auth, 1), ROOT_ID);
}

static uint32_t resume(cptr_t tcb)
{
    return call_invoke(tcb, INV_TCB_RESUME, 0, NULL, NULL, 0);
}

static cptr_t mint(cptr_t src, uint64_t rights, uint64_t badge)
{
    cptr_t dest = ktest_alloc_slot();
    uint64_t mrs[] = {dest, 64, src, 64, rights, badge};
    cptr_t root = ROOT_CNODE;

    assert_int_equal(ktest_invoke(ROOT_CNODE, INV_CNODE_MINT, 6, mrs, &root, 1, NULL), ERR_NONE);
    return dest;
}

/* Signal (Send on a notification cap) as the current thread. */
static uint32_t signal(cptr_t ntfn)
{
    return ktest_syscall(SYS_SEND, ntfn, 0, 0, NULL);
}

static uint64_t poll(cptr_t ntfn)
{
    struct ktest_msg m = {0};

    assert_int_equal(ktest_syscall(SYS_NB_WAIT, ntfn, 0, 0, &m), ktest_current());
    return m.badge;
}

/* Undelivered signals OR their badges; Poll takes the word and leaves
 * the notification idle; Poll with nothing pending gives badge 0. */
static void test_notification_badge_or_and_poll(void **state)
{
    cptr_t n, b1, b4;
    const struct ktest_trace *r;

    (void)state;
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    b1 = mint(n, RIGHTS_ALL, 0x1);
    b4 = mint(n, RIGHTS_ALL, 0x4);
    assert_int_equal(poll(n), 0);
    ktest_trace_clear();
    assert_int_equal(signal(b1), ROOT_ID);
    assert_int_equal(signal(b4), ROOT_ID);
    assert_int_equal(signal(b1), ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SIGNAL, ROOT_ID), 3);
    r = NULL;
    for (unsigned i = 0, k = 0; i < ktest_trace_count(); i++) {
        if (ktest_trace_get(i)->kind == TR_SIGNAL && k++ == 1)
            r = ktest_trace_get(i);
    }
    assert_non_null(r);
    assert_int_equal(r->arg, 0x4);
    assert_int_equal(r->arg2, 0); /* nobody woken */
    assert_int_equal(poll(n), 0x5);
    assert_int_equal(poll(n), 0);
    /* Wait on an active notification returns at once. */
    assert_int_equal(signal(b4), ROOT_ID);
    {
        struct ktest_msg m = {0};
        assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, &m), ROOT_ID);
        assert_int_equal(m.badge, 0x4);
    }
}

/* arg2 (the thread woken) of the last TR_SIGNAL record. */
static uint64_t last_signal_woke(void)
{
    for (unsigned i = ktest_trace_count(); i-- > 0;) {
        if (ktest_trace_get(i)->kind == TR_SIGNAL)
            return ktest_trace_get(i)->arg2;
    }
    fail_msg("no signal traced");
    return 0;
}

/* Waiters are woken highest priority first, one per signal, FIFO among
 * equals; each gets the signal's badge. */
static void test_notification_priority_waiters(void **state)
{
    static const uint8_t prio[4] = {100, 120, 110, 120};
    cptr_t n, badged, t[4];
    const unsigned want[4] = {1, 3, 2, 0};

    (void)state;
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    badged = mint(n, RIGHTS_ALL, 0x30);
    for (unsigned i = 0; i < 4; i++)
        t[i] = ktest_thread(100 + i, prio[i], 10 * MS, 10 * MS, NULL);
    root_lower();
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(resume(t[i]), 100 + i);
        assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, NULL), ROOT_ID);
        assert_int_equal(inspect(t[i]).state, ST_BLOCKED_ON_NOTIFICATION);
    }
    for (unsigned k = 0; k < 4; k++) {
        uint32_t woken = 100 + want[k];

        /* The woken thread (prio >= 100) preempts the root (5). */
        assert_int_equal(signal(badged), woken);
        assert_int_equal(ktest_context()->x[REG_CAP], 0x30);
        assert_int_equal(inspect(t[want[k]]).state, ST_RUNNING);
        assert_int_equal(last_signal_woke(), woken);
        /* It stops for good (Suspend itself), the root runs again. */
        assert_int_equal(ktest_syscall(SYS_CALL, t[want[k]], 0, 0,
                                       &(struct ktest_msg){.label = INV_TCB_SUSPEND}),
                         ROOT_ID);
    }
}

/* A thread bound to a notification and receiving on an endpoint is woken
 * by a signal (badge in x0, its reply object freed); a signal pending
 * before its Recv is taken at once; while it waits for a reply a signal
 * is kept pending. */
static void test_notification_bound_receiver(void **state)
{
    cptr_t n, badged, ep, reply, s;
    struct ktest_msg m = {0};

    (void)state;
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    badged = mint(n, RIGHTS_ALL, 0x10);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    s = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktest_invoke(s, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n, 1, NULL), ERR_NONE);
    root_lower();
    assert_int_equal(resume(s), 100);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), ROOT_ID);
    assert_int_equal(inspect(s).state, ST_BLOCKED_ON_RECEIVE);

    assert_int_equal(signal(badged), 100);
    assert_int_equal(ktest_context()->x[REG_CAP], 0x10);
    assert_int_equal(inspect(s).state, ST_RUNNING);
    assert_int_equal(last_signal_woke(), 100);
    /* It left the endpoint's queue and its reply object: the root's
     * NBSend finds no receiver, and the reply object takes a new Recv. */
    assert_int_equal(ktest_syscall(SYS_NB_RECV, ep, reply, 0, &m), 100);
    assert_int_equal(m.badge, 0);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), ROOT_ID);
    assert_int_equal(ktest_syscall(SYS_NB_SEND, ep, 0, 0,
                                   &(struct ktest_msg){.label = 3, .length = 1, .mr = {4}}),
                     100);
    assert_int_equal(ktest_context()->x[REG_MR0], 4);
}

/* A signal pending before the bound thread's Recv is taken at once. */
static void test_notification_bound_pending_first(void **state)
{
    cptr_t n, badged, ep, reply, s;
    struct ktest_msg m = {0};

    (void)state;
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    badged = mint(n, RIGHTS_ALL, 0x20);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    s = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktest_invoke(s, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n, 1, NULL), ERR_NONE);
    assert_int_equal(signal(badged), ROOT_ID);
    root_lower();
    assert_int_equal(resume(s), 100);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, &m), 100);
    assert_int_equal(m.badge, 0x20);
    assert_int_equal(inspect(s).state, ST_RUNNING);
    assert_int_equal(poll(n), 0);
}

/* A bound thread waiting for a reply is not interrupted: the signal stays
 * pending in the notification. */
static void test_notification_bound_caller_not_interrupted(void **state)
{
    cptr_t n, b8, ep, s, server, reply;

    (void)state;
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    b8 = mint(n, RIGHTS_ALL, 0x8);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    s = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    server = ktest_thread(50, 50, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktest_invoke(s, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n, 1, NULL), ERR_NONE);
    root_lower();
    assert_int_equal(resume(server), 50);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), ROOT_ID);
    assert_int_equal(resume(s), 100);
    assert_int_equal(ktest_syscall(SYS_CALL, ep, 0, 0, NULL), 50);
    assert_int_equal(inspect(s).state, ST_BLOCKED_ON_REPLY);
    /* The server (50) signals s's notification: s keeps waiting. */
    assert_int_equal(signal(b8), 50);
    assert_int_equal(inspect(s).state, ST_BLOCKED_ON_REPLY);
    assert_int_equal(last_signal_woke(), 0);
    /* Replied to, s receives on the endpoint: the pending signal first. */
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, ep, reply, 0, NULL), 100);
    {
        struct ktest_msg m = {0};
        assert_int_equal(ktest_syscall(SYS_RECV, ep, ktest_retype(OBJ_REPLY, 0), 0, &m), 100);
        assert_int_equal(m.badge, 0x8);
    }
}

/* Make `h` passive: it runs to its Wait on n on its own context, which
 * the root then unbinds. */
static void make_passive_waiter(cptr_t h, uint32_t id, cptr_t h_sc, cptr_t n)
{
    assert_int_equal(resume(h), id);
    assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, NULL), ROOT_ID);
    assert_int_equal(call_invoke(h_sc, INV_SC_UNBIND, 0, NULL, NULL, 0), ROOT_ID);
    assert_int_equal(inspect(h).sc_badge, 0);
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
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    h = ktest_thread(200, 200, 10 * MS, 10 * MS, &h_sc);
    h2 = ktest_thread(190, 190, 10 * MS, 10 * MS, &h2_sc);
    n_sc = h_sc;
    root_lower();
    make_passive_waiter(h, 200, h_sc, n);
    make_passive_waiter(h2, 190, h2_sc, n);
    assert_int_equal(call_invoke(n_sc, INV_SC_BIND, 0, NULL, &n, 1), ROOT_ID);

    ktest_trace_clear();
    assert_int_equal(signal(n), 200);
    assert_int_equal(inspect(h).sc_badge, 200);
    r = NULL;
    for (unsigned i = 0; i < ktest_trace_count(); i++) {
        if (ktest_trace_get(i)->kind == TR_DONATE)
            r = ktest_trace_get(i);
    }
    assert_non_null(r);
    assert_int_equal(r->thread, 200);
    assert_int_equal(r->object, 200);
    assert_int_equal(r->arg, 0);

    /* h signals n again: h2 is woken but gets no context. */
    assert_int_equal(signal(n), 200);
    assert_int_equal(inspect(h2).state, ST_RUNNING);
    assert_int_equal(inspect(h2).sc_badge, 0);
    assert_false(inspect(h2).queued);

    /* h waits again: the context goes back to n; h2 still cannot run. */
    assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, NULL), ROOT_ID);
    assert_int_equal(inspect(h).sc_badge, 0);
    assert_int_equal(inspect(h).state, ST_BLOCKED_ON_NOTIFICATION);
    {
        struct kinspect_sc sc;
        assert_int_equal(kernel_inspect_sc(n_sc, &sc), 0);
        assert_int_equal(sc.bound_trace_id, 0);
    }
    assert_int_equal(ktest_run(5 * MS), ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, 190), 0);

    /* The next signal lends it to h again. */
    assert_int_equal(signal(n), 200);
    assert_int_equal(inspect(h).sc_badge, 200);
}

/* Signal needs Write (a Call without it answers InvalidCapability 0);
 * Wait needs Read; a notification bound to another thread cannot be
 * waited on (seL4: a cap fault; here the error in x1). */
static void test_notification_rights_and_binding(void **state)
{
    cptr_t n, read_only, write_only, other;
    struct ktest_msg m = {0};

    (void)state;
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    read_only = mint(n, RIGHT_READ, 0);
    write_only = mint(n, RIGHT_WRITE, 0);
    other = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);

    assert_int_equal(ktest_syscall(SYS_CALL, read_only, 0, 0, &m), ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.mr[0], 0);
    assert_int_equal(poll(n), 0);

    /* Call on a notification with Write signals and succeeds, empty. */
    m = (struct ktest_msg){.label = 9, .length = 2};
    assert_int_equal(ktest_syscall(SYS_CALL, write_only, 0, 0, &m), ROOT_ID);
    assert_int_equal(m.label, ERR_NONE);
    assert_int_equal(m.length, 0);

    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_WAIT, write_only, 0, 0, &m), ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], write_only);
    assert_int_equal(m.mr[1], 1);

    assert_int_equal(ktest_invoke(other, INV_TCB_BIND_NOTIFICATION, 0, NULL, &n, 1, NULL),
                     ERR_NONE);
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_NB_WAIT, n, 0, 0, &m), ROOT_ID);
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
    boot();
    n = ktest_retype(OBJ_NOTIFICATION, 0);
    a = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    root_lower();
    assert_int_equal(resume(a), 100);
    pc = ktest_context()->pc;
    assert_int_equal(ktest_syscall(SYS_WAIT, n, 0, 0, NULL), ROOT_ID);
    {
        uint64_t mrs[] = {n, 64};
        assert_int_equal(call_invoke(ROOT_CNODE, INV_CNODE_DELETE, 2, mrs, NULL, 0), 100);
    }
    assert_int_equal(ktest_context()->pc, pc);
    assert_int_equal(inspect(a).state, ST_RUNNING);
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
        cmocka_unit_test(test_notification_rights_and_binding),
        cmocka_unit_test(test_notification_delete_restarts_waiters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
