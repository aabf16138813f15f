/*
 * Reply objects, call chains and scheduling-context donation, driven
 * through real system calls on the kernel test bench (ktest.h): B14
 * (passive server on donated time), B21 (Send on the reply returns the
 * context), nested chains, stale replies, deleting a reply object, and
 * timeout faults (B16) with the `reset` abort of a client's Call.
 *
 * The root task (trace id 1) builds everything, then drops to priority 5
 * so that each thread it resumes runs at once and, when that thread
 * blocks, the root runs again. Contexts are named by their badge, which
 * ktest_thread makes the thread's trace id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <mcsim/trace.h>

#include "ktest_util.h"

#define MS 1000000u /* ticks: the bench's timer runs at 1 GHz */
#define C_ID 50u    /* client, priority 50 */
#define S_ID 200u   /* passive server, priority 200 */
#define T_ID 250u   /* timeout handler, priority 250 */
#define W_ID 100u   /* a bystander, priority 100 */

/* The B14 world on a fresh kernel: endpoint ep, reply object `reply`,
 * server S (prio 200) and client C (prio 50, c_budget/10 ms), neither
 * resumed yet. */
struct world {
    cptr_t ep, reply, s, s_sc, c, c_sc;
};

static void make_world(struct world *w, uint64_t c_budget)
{
    ktu_boot(SCHED_MCS);
    w->ep = ktest_retype(OBJ_ENDPOINT, 0);
    w->reply = ktest_retype(OBJ_REPLY, 0);
    w->s = ktest_thread(S_ID, 200, 10 * MS, 10 * MS, &w->s_sc);
    w->c = ktest_thread(C_ID, 50, c_budget, 10 * MS, &w->c_sc);
}

/* S runs to its Recv and loses its context (SchedContext_Unbind): it is
 * passive. Then C Calls S: the message arrives, C's context moves to S,
 * S runs. */
static void client_calls_passive_server(struct world *w)
{
    struct ktest_msg m = {.label = 0x11, .length = 1, .mr = {0xc0ffee}};

    ktu_make_passive(w->s, S_ID, w->s_sc, SYS_RECV, w->ep, w->reply);
    assert_int_equal(ktu_resume(w->c), C_ID);
    ktest_trace_clear();
    assert_int_equal(ktest_syscall(SYS_CALL, w->ep, 0, 0, &m), S_ID);
    assert_int_equal(ktest_context()->x[REG_MR0], 0xc0ffee);
    assert_int_equal(ktu_inspect(w->s).sc_badge, C_ID);
    assert_int_equal(ktu_inspect(w->c).sc_badge, 0);
    assert_int_equal(ktu_inspect(w->c).state, KTU_ST_BLOCKED_ON_REPLY);
    assert_int_equal(ktest_trace_count_kind(TR_DONATE, S_ID), 1);
}

/* B14: S runs on C's context at its own priority 200 (a prio-100 thread
 * woken at 1 waits), replies at 3 with ReplyRecv: C gets the context
 * back, the prio-100 thread runs first, C then runs [3,5) and is
 * throttled until 10 having used its 5 ms. */
static void test_reply_b14_donation(void **state)
{
    struct world w;
    const struct ktest_trace *ev[8];
    cptr_t ntfn, wt;

    (void)state;
    make_world(&w, 5 * MS);
    ntfn = ktu_irq_notification(3, NULL);
    wt = ktest_thread(W_ID, 100, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(wt), W_ID);
    assert_int_equal(ktu_wait(ntfn), KTU_ROOT_ID);
    client_calls_passive_server(&w);

    assert_int_equal(ktest_run(1 * MS), S_ID);
    assert_true(ktest_irq(3));
    assert_int_equal(ktest_current(), S_ID); /* W (100) does not preempt S (200) */
    assert_int_equal(ktu_inspect(wt).state, KTU_ST_RUNNING);
    assert_int_equal(ktest_run(2 * MS), S_ID);
    assert_int_equal(ktest_now(), 3 * MS);

    {
        struct ktest_msg m = {.label = 0, .length = 1, .mr = {42}};
        assert_int_equal(ktest_syscall(SYS_REPLY_RECV, w.ep, w.reply, 0, &m), W_ID);
    }
    assert_int_equal(ktu_inspect(w.c).sc_badge, C_ID);
    assert_int_equal(ktu_inspect(w.c).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(w.s).state, KTU_ST_BLOCKED_ON_RECEIVE);
    assert_int_equal(ktu_inspect(w.s).sc_badge, 0);
    assert_int_equal(ktu_records(TR_SC_RETURN, UINT32_MAX, ev, 8), 1);
    assert_int_equal(ev[0]->thread, C_ID);
    assert_int_equal(ev[0]->object, C_ID);
    assert_int_equal(ev[0]->arg, S_ID);
    assert_int_equal(ev[0]->time, 3 * MS);

    /* W gets out of the way: C resumes with the reply in its registers. */
    assert_int_equal(ktu_wait(ntfn), C_ID);
    assert_int_equal(ktest_context()->x[REG_MR0], 42);
    assert_int_equal(msginfo_label(ktest_context()->x[REG_INFO]), 0);
    assert_int_equal(ktest_run(2 * MS), KTU_ROOT_ID);
    assert_true(ktu_inspect(w.c).in_release_queue);
    assert_int_equal(ktu_records(TR_THROTTLE, UINT32_MAX, ev, 8), 1);
    assert_int_equal(ev[0]->thread, C_ID);
    assert_int_equal(ev[0]->time, 5 * MS);
    assert_int_equal(ev[0]->arg, 10 * MS);
    assert_int_equal(ktest_run(5 * MS), C_ID);
}

/* B21: S answers with Send on the reply object: C resumes with its
 * context; S stays Running without one and never runs again. */
static void test_reply_b21_send_returns_sc(void **state)
{
    struct world w;
    struct ktest_msg m = {.label = 0, .length = 1, .mr = {9}};

    (void)state;
    make_world(&w, 5 * MS);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    client_calls_passive_server(&w);
    assert_int_equal(ktest_run(1 * MS), S_ID);
    assert_int_equal(ktest_syscall(SYS_SEND, w.reply, 0, 0, &m), C_ID);
    assert_int_equal(ktest_context()->x[REG_MR0], 9);
    assert_int_equal(ktu_inspect(w.c).sc_badge, C_ID);
    assert_int_equal(ktu_inspect(w.s).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(w.s).sc_badge, 0);
    assert_false(ktu_inspect(w.s).queued);
    /* C blocks for good: only the root (prio 5) can run, not S. */
    ktest_trace_clear();
    assert_int_equal(ktest_syscall(SYS_RECV, w.ep, w.reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktest_run(20 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, S_ID), 0);
}

/* A calls passive B, which calls passive C: the context moves along the
 * chain and comes back reply by reply. */
static void test_reply_nested_chain(void **state)
{
    cptr_t ep_b, ep_c, r_b, r_c, a, b, c, b_sc, c_sc;

    (void)state;
    ktu_boot(SCHED_MCS);
    ep_b = ktest_retype(OBJ_ENDPOINT, 0);
    ep_c = ktest_retype(OBJ_ENDPOINT, 0);
    r_b = ktest_retype(OBJ_REPLY, 0);
    r_c = ktest_retype(OBJ_REPLY, 0);
    a = ktest_thread(60, 60, 5 * MS, 10 * MS, NULL);
    b = ktest_thread(150, 150, 1 * MS, 10 * MS, &b_sc);
    c = ktest_thread(160, 160, 1 * MS, 10 * MS, &c_sc);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(b), 150);
    assert_int_equal(ktest_syscall(SYS_RECV, ep_b, r_b, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(c), 160);
    assert_int_equal(ktest_syscall(SYS_RECV, ep_c, r_c, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_call(b_sc, INV_SC_UNBIND, 0, NULL, NULL, 0), KTU_ROOT_ID);
    assert_int_equal(ktu_call(c_sc, INV_SC_UNBIND, 0, NULL, NULL, 0), KTU_ROOT_ID);

    assert_int_equal(ktu_resume(a), 60);
    assert_int_equal(ktest_syscall(SYS_CALL, ep_b, 0, 0, NULL), 150);
    assert_int_equal(ktest_syscall(SYS_CALL, ep_c, 0, 0, NULL), 160);
    assert_int_equal(ktu_inspect(c).sc_badge, 60);
    assert_int_equal(ktu_inspect(b).sc_badge, 0);
    assert_int_equal(ktu_inspect(b).state, KTU_ST_BLOCKED_ON_REPLY);
    /* C replies: back to B (B had none); B replies: back to A. */
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, ep_c, r_c, 0, NULL), 150);
    assert_int_equal(ktu_inspect(b).sc_badge, 60);
    assert_int_equal(ktu_inspect(c).sc_badge, 0);
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, ep_b, r_b, 0, NULL), 60);
    assert_int_equal(ktu_inspect(a).sc_badge, 60);
    assert_int_equal(ktu_inspect(b).state, KTU_ST_BLOCKED_ON_RECEIVE);
    assert_int_equal(ktest_trace_count_kind(TR_SC_RETURN, 150), 1);
    assert_int_equal(ktest_trace_count_kind(TR_SC_RETURN, 60), 1);
}

/* Reusing the reply object for a new Recv while the caller still waits
 * on it: the caller is left Inactive and its context is NOT returned
 * (the server keeps running on it). */
static void test_reply_stale_caller_keeps_nothing(void **state)
{
    struct world w;

    (void)state;
    make_world(&w, 5 * MS);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    client_calls_passive_server(&w);
    /* NBRecv with the same reply object: cancels C, nothing queued. */
    assert_int_equal(ktest_syscall(SYS_NB_RECV, w.ep, w.reply, 0, NULL), S_ID);
    assert_int_equal(ktu_inspect(w.c).state, KTU_ST_INACTIVE);
    assert_int_equal(ktu_inspect(w.c).sc_badge, 0);
    assert_int_equal(ktu_inspect(w.s).sc_badge, C_ID);
    /* A later Send on the reply object does nothing. */
    assert_int_equal(ktest_syscall(SYS_SEND, w.reply, 0, 0, NULL), S_ID);
    assert_int_equal(ktu_inspect(w.s).sc_badge, C_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SC_RETURN, UINT32_MAX), 0);
}

/* Deleting the reply object a caller waits on returns the context to the
 * caller (SCHED_CONTEXT_0009); the caller's Call never completes: it is
 * left Inactive, as by any cancelled IPC (seL4 reply_remove). */
static void test_reply_delete_returns_sc(void **state)
{
    struct world w;
    cptr_t ntfn;

    (void)state;
    make_world(&w, 5 * MS);
    ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    client_calls_passive_server(&w);
    /* S blocks elsewhere holding C's context: the root runs. */
    assert_int_equal(ktu_wait(ntfn), KTU_ROOT_ID);
    assert_int_equal(ktu_call(ROOT_CNODE, INV_CNODE_DELETE, 2, (uint64_t[]){w.reply, 64}, NULL, 0),
                     KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(w.c).sc_badge, C_ID);
    assert_int_equal(ktu_inspect(w.c).state, KTU_ST_INACTIVE);
    assert_int_equal(ktu_inspect(w.s).sc_badge, 0);
    assert_int_equal(ktest_trace_count_kind(TR_SC_RETURN, C_ID), 1);
}

/* ------------------------------------------------------ timeout faults */

struct tf_world {
    struct world w;
    cptr_t faults, badged_faults, t, t_reply;
    uint64_t s_pc; /* S's pc while it serves C */
};

/* B16: C 2/10, passive S with a timeout endpoint, handler T (prio 250)
 * waiting on it with its own reply object. C calls at 0. */
static void tf_setup(struct tf_world *f)
{
    make_world(&f->w, 2 * MS);
    f->faults = ktest_retype(OBJ_ENDPOINT, 0);
    f->t_reply = ktest_retype(OBJ_REPLY, 0);
    f->t = ktest_thread(T_ID, 250, 10 * MS, 10 * MS, NULL);
    f->badged_faults = ktu_mint(f->faults, RIGHTS_ALL, 0x77);
    assert_int_equal(
        ktest_invoke(f->w.s, INV_TCB_SET_TIMEOUT_ENDPOINT, 0, NULL, &f->badged_faults, 1, NULL),
        ERR_NONE);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(f->t), T_ID);
    assert_int_equal(ktest_syscall(SYS_RECV, f->faults, f->t_reply, 0, NULL), KTU_ROOT_ID);
    client_calls_passive_server(&f->w);
    f->s_pc = ktest_context()->pc;
}

/* At 2 the handler receives label 5, MR0 = C's badge, MR1 = 2 ms consumed,
 * x0 = its endpoint cap's badge; S waits on T's reply holding C's empty
 * context; C still waits on S. */
static void tf_expect_fault(struct tf_world *f)
{
    struct user_context *ctx;
    const struct ktest_trace *ev[4];

    assert_int_equal(ktest_run(2 * MS), T_ID);
    ctx = ktest_context();
    assert_int_equal(msginfo_label(ctx->x[REG_INFO]), FAULT_TIMEOUT);
    assert_int_equal(msginfo_length(ctx->x[REG_INFO]), TIMEOUT_LENGTH);
    assert_int_equal(ctx->x[REG_MR0 + TIMEOUT_DATA], C_ID);
    assert_int_equal(ctx->x[REG_MR0 + TIMEOUT_CONSUMED], 2 * MS);
    assert_int_equal(ctx->x[REG_CAP], 0x77);
    assert_int_equal(ktu_inspect(f->w.s).state, KTU_ST_BLOCKED_ON_REPLY);
    assert_int_equal(ktu_inspect(f->w.s).sc_badge, C_ID);
    assert_int_equal(ktu_inspect(f->w.c).state, KTU_ST_BLOCKED_ON_REPLY);
    assert_int_equal(ktu_records(TR_TIMEOUT_FAULT, UINT32_MAX, ev, 4), 1);
    assert_int_equal(ev[0]->thread, S_ID);
    assert_int_equal(ev[0]->object, C_ID);
    assert_int_equal(ev[0]->arg, 2 * MS);
    assert_int_equal(ev[0]->time, 2 * MS);
    /* Reading the consumed time reset it; C's single refill moved one
     * period on. */
    assert_int_equal(ktu_inspect_sc(f->w.c_sc).consumed, 0);
    KTU_REFILLS(f->w.c_sc, {10 * MS, 2 * MS});
}

/* B16 `reset`: T first aborts C's Call through S's reply object (label
 * FAULT_CALL_ABORTED_LABEL): C gets its empty context back and is
 * postponed to 10; then T stops S with a non-zero fault reply. */
static void test_reply_b16_timeout_fault_reset(void **state)
{
    struct tf_world f;
    const struct ktest_trace *ev[4];
    struct ktest_msg abort_msg = {.label = FAULT_CALL_ABORTED_LABEL};
    struct ktest_msg stop = {.label = 1};

    (void)state;
    tf_setup(&f);
    tf_expect_fault(&f);
    ktest_trace_clear();
    assert_int_equal(ktest_syscall(SYS_SEND, f.w.reply, 0, 0, &abort_msg), T_ID);
    assert_int_equal(ktu_inspect(f.w.c).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(f.w.c).sc_badge, C_ID);
    assert_true(ktu_inspect(f.w.c).in_release_queue);
    assert_int_equal(ktu_inspect(f.w.s).sc_badge, 0);
    assert_int_equal(ktu_records(TR_CALL_ABORTED, UINT32_MAX, ev, 4), 1);
    assert_int_equal(ev[0]->thread, C_ID);
    assert_int_equal(ev[0]->time, 2 * MS);
    assert_int_equal(ktu_records(TR_THROTTLE, UINT32_MAX, ev, 4), 1);
    assert_int_equal(ev[0]->thread, C_ID);
    assert_int_equal(ev[0]->arg, 10 * MS);

    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, f.faults, f.t_reply, 0, &stop), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(f.w.s).state, KTU_ST_INACTIVE);
    assert_int_equal(ktest_run(8 * MS - 1), KTU_ROOT_ID);
    assert_int_equal(ktest_run(1), C_ID);
    assert_int_equal(ktest_now(), 10 * MS);
    assert_int_equal(msginfo_label(ktest_context()->x[REG_INFO]), FAULT_CALL_ABORTED_LABEL);
}

/* Label 0 restarts S; its (C's) context is still empty, so S is
 * postponed to C's refill at 10 (no second timeout fault on a timeout
 * reply) and continues there, on C's context. */
static void test_reply_timeout_fault_restart(void **state)
{
    struct tf_world f;
    struct ktest_msg go_on = {.label = 0};

    (void)state;
    tf_setup(&f);
    tf_expect_fault(&f);
    ktest_trace_clear();
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, f.faults, f.t_reply, 0, &go_on), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(f.w.s).state, KTU_ST_RESTART);
    assert_true(ktu_inspect(f.w.s).in_release_queue);
    assert_int_equal(ktest_trace_count_kind(TR_TIMEOUT_FAULT, UINT32_MAX), 0);
    assert_int_equal(ktest_run(8 * MS), S_ID);
    assert_int_equal(ktest_now(), 10 * MS);
    assert_int_equal(ktu_inspect(f.w.s).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(f.w.s).sc_badge, C_ID);
    /* S continues where user code was interrupted: not rewound. */
    assert_int_equal(ktest_context()->pc, f.s_pc);
    /* It finishes the request: C gets its context back and runs. */
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, f.w.ep, f.w.reply, 0, NULL), C_ID);
    assert_int_equal(ktu_inspect(f.w.c).sc_badge, C_ID);
}

/*
 * What `inherit` builds on (sim/timeouts.c). While S waits on the fault,
 * T takes C's context off S (UnbindObject: S is blocked, not current) and
 * binds another, ready one (B's) to S; Bind of C's empty context to the
 * blocked S is refused. The fault reply restarts S on B's context, charged
 * to it. When S answers C with Send on its reply object, C's context,
 * still at the head of the call chain though bound to nobody, goes back
 * to C (seL4 reply_pop), which is postponed to its refill at 10; S keeps
 * B's context and runs on.
 */
static void test_reply_unbound_context_returns_to_caller(void **state)
{
    struct tf_world f;
    struct ktest_msg go_on = {.label = 0}, answer = {.label = 0, .length = 1, .mr = {7}};
    const struct ktest_trace *ev[4];
    cptr_t b_sc;

    (void)state;
    tf_setup(&f);
    tf_expect_fault(&f);
    b_sc = ktest_retype(OBJ_SCHED_CONTEXT, MCSIM_MIN_SC_BITS);
    assert_int_equal(ktu_configure(b_sc, 3 * MS, 10 * MS, 0, W_ID, 0), T_ID);
    assert_int_equal(ktu_call(f.w.c_sc, INV_SC_UNBIND_OBJECT, 0, NULL, &f.w.s, 1), T_ID);
    assert_int_equal(ktu_inspect(f.w.s).sc_badge, 0);
    assert_int_equal(ktu_inspect_sc(f.w.c_sc).bound_trace_id, 0);
    ktu_fails(f.w.c_sc, INV_SC_BIND, 0, NULL, &f.w.s, 1, ERR_ILLEGAL_OPERATION, 0, 0, 0);
    assert_int_equal(ktu_call(b_sc, INV_SC_BIND, 0, NULL, &f.w.s, 1), T_ID);
    assert_int_equal(ktu_inspect(f.w.s).sc_badge, W_ID);

    ktest_trace_clear();
    assert_int_equal(ktest_syscall(SYS_REPLY_RECV, f.faults, f.t_reply, 0, &go_on), S_ID);
    assert_int_equal(ktest_run(1 * MS), S_ID);
    assert_int_equal(ktu_records(TR_SWITCH, UINT32_MAX, ev, 4), 1);
    assert_int_equal(ev[0]->thread, S_ID);
    assert_int_equal(ev[0]->object, W_ID);
    assert_int_equal(ktest_syscall(SYS_SEND, f.w.reply, 0, 0, &answer), S_ID);
    assert_int_equal(ktu_inspect(f.w.c).sc_badge, C_ID);
    assert_int_equal(ktu_inspect(f.w.c).state, KTU_ST_RUNNING);
    assert_true(ktu_inspect(f.w.c).in_release_queue);
    assert_int_equal(ktu_inspect(f.w.s).sc_badge, W_ID);
    assert_int_equal(ktu_records(TR_SC_RETURN, UINT32_MAX, ev, 4), 1);
    assert_int_equal(ev[0]->thread, C_ID);
    assert_int_equal(ev[0]->object, C_ID);
    assert_int_equal(ev[0]->arg, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_b14_donation),
        cmocka_unit_test(test_reply_b21_send_returns_sc),
        cmocka_unit_test(test_reply_nested_chain),
        cmocka_unit_test(test_reply_stale_caller_keeps_nothing),
        cmocka_unit_test(test_reply_delete_returns_sc),
        cmocka_unit_test(test_reply_b16_timeout_fault_reset),
        cmocka_unit_test(test_reply_timeout_fault_restart),
        cmocka_unit_test(test_reply_unbound_context_returns_to_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
