/*
 * Endpoints driven through real system calls on the kernel test bench
 * (ktest.h): the priority-ordered queue (B17, B18) and classic FIFO, the
 * message transfer, Call corners (B25), the Write right, lookup errors as
 * this kernel reports them (kernel/syscall.c), and deleting an endpoint
 * with threads queued on it.
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
#define SERVER_ID 10u
#define LABEL 0x42u

/* The current thread (trace id `who`) Calls ep with MR0 = tag and blocks. */
static void call_and_block(uint32_t who, cptr_t ep, uint64_t tag)
{
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {tag}};

    assert_int_equal(ktest_current(), who);
    assert_int_not_equal(ktest_syscall(SYS_CALL, ep, 0, 0, &m), who);
}

/* Five callers of priorities 249..253 (index i has 249 + i, trace id
 * 100 + i) Call in `order`; the server then receives them one by one,
 * reusing its reply object. Returns the MR0 tags in reception order. */
static void five_callers(uint8_t scheduler, const unsigned order[5], uint64_t got[5])
{
    cptr_t c[5];
    cptr_t ep, reply, server;

    ktu_boot(scheduler);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    server = ktest_thread(SERVER_ID, 10, 10 * MS, 10 * MS, NULL);
    for (unsigned i = 0; i < 5; i++)
        c[i] = ktest_thread(100 + i, (uint8_t)(249 + i), 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    for (unsigned k = 0; k < 5; k++) {
        assert_int_equal(ktu_resume(c[order[k]]), 100 + order[k]);
        call_and_block(100 + order[k], ep, order[k]);
        assert_int_equal(ktest_current(), KTU_ROOT_ID);
        assert_int_equal(ktu_inspect(c[order[k]]).state, KTU_ST_BLOCKED_ON_SEND);
    }
    assert_int_equal(ktu_resume(server), SERVER_ID);
    ktest_trace_clear();
    for (unsigned k = 0; k < 5; k++) {
        struct ktest_msg m = {0};

        assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, &m), SERVER_ID);
        assert_int_equal(m.label, LABEL);
        assert_int_equal(m.length, 1);
        assert_int_equal(m.badge, 0);
        got[k] = m.mr[0];
        assert_int_equal(ktu_inspect(c[got[k]]).state, KTU_ST_BLOCKED_ON_REPLY);
        /* A Recv into a reply object still holding a caller leaves that
         * caller inactive (docs/kernel-semantics.md 4). */
        if (k > 0)
            assert_int_equal(ktu_inspect(c[got[k - 1]]).state, KTU_ST_INACTIVE);
    }
}

/* B17: received 253, 252, 251, 250, 249 whatever the call order. */
static void test_endpoint_b17_priority_order(void **state)
{
    static const unsigned order[5] = {2, 0, 4, 1, 3};
    uint64_t got[5];
    const struct ktest_trace *recv[8];

    (void)state;
    five_callers(SCHED_MCS, order, got);
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(got[k], 4 - k);
    /* The sender of each message, in arg. */
    assert_int_equal(ktu_records(TR_IPC_RECV, SERVER_ID, recv, 8), 5);
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(recv[k]->arg, 104 - k);
}

/* B17 under classic: the same queue is FIFO, received in call order. */
static void test_endpoint_classic_fifo(void **state)
{
    static const unsigned order[5] = {2, 0, 4, 1, 3};
    uint64_t got[5];

    (void)state;
    five_callers(SCHED_CLASSIC, order, got);
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(got[k], order[k]);
}

/* A fresh kernel with endpoint ep, reply object `reply`, a server
 * (SERVER_ID, priority 10, not resumed) and n <= 4 senders t[i] (trace id
 * 100 + i, priority prios[i]) that Call ep in index order with tag i and
 * block; the root runs at priority 5. */
struct queue {
    cptr_t ep, reply, server, t[4];
};

static void queue_senders(struct queue *q, const uint8_t *prios, unsigned n)
{
    ktu_boot(SCHED_MCS);
    q->ep = ktest_retype(OBJ_ENDPOINT, 0);
    q->reply = ktest_retype(OBJ_REPLY, 0);
    q->server = ktest_thread(SERVER_ID, 10, 10 * MS, 10 * MS, NULL);
    for (unsigned i = 0; i < n; i++)
        q->t[i] = ktest_thread(100 + i, prios[i], 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(ktu_resume(q->t[i]), 100 + i);
        call_and_block(100 + i, q->ep, i);
    }
}

/* The server runs and receives n messages; their tags in order. */
static void drain(const struct queue *q, uint64_t *got, unsigned n)
{
    assert_int_equal(ktu_resume(q->server), SERVER_ID);
    for (unsigned k = 0; k < n; k++) {
        struct ktest_msg m = {0};

        assert_int_equal(ktest_syscall(SYS_RECV, q->ep, q->reply, 0, &m), SERVER_ID);
        got[k] = m.mr[0];
    }
}

/* Equal priorities come out FIFO; a higher one queued last overtakes. */
static void test_endpoint_equal_prio_fifo(void **state)
{
    static const uint8_t prios[4] = {100, 100, 100, 150};
    struct queue q;
    uint64_t got[4];

    (void)state;
    queue_senders(&q, prios, 4);
    drain(&q, got, 4);
    assert_int_equal(got[0], 3);
    assert_int_equal(got[1], 0);
    assert_int_equal(got[2], 1);
    assert_int_equal(got[3], 2);
}

/* B18: a queued caller raised above all others is received first, one
 * lowered below all others last, at once (SCHED0008). */
static void test_endpoint_b18_reorder(void **state)
{
    static const uint8_t prios[3] = {100, 110, 120};
    struct queue q;
    uint64_t got[3];

    (void)state;
    queue_senders(&q, prios, 3);
    /* queue now 2 (120), 1 (110), 0 (100) */
    assert_int_equal(ktu_set_prio(q.t[0], ROOT_TCB, 200), KTU_ROOT_ID);
    assert_int_equal(ktu_set_prio(q.t[2], ROOT_TCB, 50), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(q.t[0]).state, KTU_ST_BLOCKED_ON_SEND);
    drain(&q, got, 3);
    assert_int_equal(got[0], 0);
    assert_int_equal(got[1], 1);
    assert_int_equal(got[2], 2);
}

/* The server blocks in Recv first; `sender` then sends to it. */
static void server_waits(cptr_t server, cptr_t ep, cptr_t reply)
{
    assert_int_equal(ktu_resume(server), SERVER_ID);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(server).state, KTU_ST_BLOCKED_ON_RECEIVE);
}

/* Label, length and MRs arrive as sent, the badge of the cap used in x0;
 * a length above 8 is cut to 8 and extra caps are never transferred. */
static void test_endpoint_message_transfer(void **state)
{
    struct ktest_msg m = {.label = 0x1234, .length = 8, .n_extra = 1, .extra = {ROOT_TCB}};
    cptr_t ep, reply, server, badged;
    struct user_context *ctx;

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    server = ktest_thread(SERVER_ID, 100, 10 * MS, 10 * MS, NULL);
    badged = ktu_mint(ep, RIGHTS_ALL, 0xbeef);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    server_waits(server, ep, reply);
    for (unsigned i = 0; i < 8; i++)
        m.mr[i] = 0x100 + i;
    /* Send (not Call): the root keeps nothing waiting; the server runs. */
    assert_int_equal(ktest_syscall(SYS_SEND, badged, 0, 0, &m), SERVER_ID);
    ctx = ktest_context();
    assert_int_equal(ctx->x[REG_CAP], 0xbeef);
    assert_int_equal(msginfo_label(ctx->x[REG_INFO]), 0x1234);
    assert_int_equal(msginfo_length(ctx->x[REG_INFO]), 8);
    assert_int_equal(msginfo_extra_caps(ctx->x[REG_INFO]), 0);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(ctx->x[REG_MR0 + i], 0x100 + i);
    assert_int_equal(ktu_inspect(server).state, KTU_ST_RUNNING);
    assert_int_equal(ktest_trace_count_kind(TR_IPC_SEND, KTU_ROOT_ID), 1);
    assert_int_equal(ktest_trace_count_kind(TR_IPC_RECV, SERVER_ID), 1);

    /* A length above the maximum is cut to the maximum. */
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), KTU_ROOT_ID);
    m.length = 100;
    assert_int_equal(ktest_syscall(SYS_SEND, ep, 0, 0, &m), SERVER_ID);
    assert_int_equal(msginfo_length(ktest_context()->x[REG_INFO]), 8);
    assert_int_equal(ktest_context()->x[REG_CAP], 0);
}

/* B25: Call on a cap without Grant or GrantReply to a receiver waiting
 * with a reply object: the message is delivered and the caller is left
 * Inactive; the same for a Call to a thread waiting with Wait. */
static void test_endpoint_b25_call_without_grant(void **state)
{
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {7}};
    cptr_t ep, reply, server, client, no_grant;

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    server = ktest_thread(SERVER_ID, 100, 10 * MS, 10 * MS, NULL);
    client = ktest_thread(20, 50, 10 * MS, 10 * MS, NULL);
    no_grant = ktu_mint(ep, RIGHT_WRITE | RIGHT_READ, 0);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    server_waits(server, ep, reply);
    assert_int_equal(ktu_resume(client), 20);
    assert_int_equal(ktest_syscall(SYS_CALL, no_grant, 0, 0, &m), SERVER_ID);
    assert_int_equal(ktu_inspect(client).state, KTU_ST_INACTIVE);
    assert_int_equal(ktest_context()->x[REG_MR0], 7);

    /* The server now Waits (no reply object); a full-rights Call. */
    assert_int_equal(ktest_syscall(SYS_WAIT, ep, 0, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(client), 20);
    m.mr[0] = 8;
    assert_int_equal(ktest_syscall(SYS_CALL, ep, 0, 0, &m), SERVER_ID);
    assert_int_equal(ktu_inspect(client).state, KTU_ST_INACTIVE);
    assert_int_equal(ktest_context()->x[REG_MR0], 8);
}

/* Without Write: Call answers InvalidCapability (MR0 = 0, the invoked
 * cap); Send and NBSend do nothing and report nothing, as in seL4. */
static void test_endpoint_no_write_right(void **state)
{
    cptr_t ep, read_only, server, reply;
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {5}};

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    server = ktest_thread(SERVER_ID, 100, 10 * MS, 10 * MS, NULL);
    read_only = ktu_mint(ep, RIGHT_READ, 0);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    server_waits(server, ep, reply);

    assert_int_equal(ktest_syscall(SYS_CALL, read_only, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.mr[0], 0);

    m = (struct ktest_msg){.label = LABEL, .length = 1, .mr = {5}};
    assert_int_equal(ktest_syscall(SYS_SEND, read_only, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, LABEL); /* x1 untouched */
    assert_int_equal(ktest_syscall(SYS_NB_SEND, read_only, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, LABEL);
    assert_int_equal(ktu_inspect(server).state, KTU_ST_BLOCKED_ON_RECEIVE);
    assert_int_equal(ktest_trace_count_kind(TR_IPC_SEND, UINT32_MAX), 0);
}

/* NBSend with no receiver drops the message; NBRecv with nothing queued
 * returns at once with badge 0. */
static void test_endpoint_nb_send_dropped(void **state)
{
    cptr_t ep, badged, reply;
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {5}};

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    badged = ktu_mint(ep, RIGHTS_ALL, 9);
    assert_int_equal(ktest_syscall(SYS_NB_SEND, badged, 0, 0, &m), KTU_ROOT_ID);
    m = (struct ktest_msg){.label = 3};
    assert_int_equal(ktest_syscall(SYS_NB_RECV, badged, reply, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.badge, 0);
    assert_int_equal(m.label, 3); /* seL4: only the badge register says so */
    assert_int_equal(ktest_trace_count_kind(TR_IPC_RECV, UINT32_MAX), 0);
}

/* Lookup failures end the call with the error in x1 (a cap fault in
 * seL4): label = code, MR0 = the CPtr, MR1 = 1 in the receive phase. */
static void test_endpoint_lookup_errors(void **state)
{
    cptr_t ep, empty, reply;
    const cptr_t bad = (cptr_t)1 << 63; /* guard mismatch in the root CNode */
    struct ktest_msg m = {0};

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    empty = ktest_alloc_slot();

    /* A null cap in a Call: seL4's decode error, InvalidCapability(0). */
    assert_int_equal(ktest_syscall(SYS_CALL, empty, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.mr[0], 0);

    /* A failed walk: reported even for Send. */
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_SEND, bad, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_FAILED_LOOKUP);
    assert_int_equal(m.length, 2);
    assert_int_equal(m.mr[0], bad);
    assert_int_equal(m.mr[1], 0);

    /* Receive phase: an empty source, a source that is no endpoint, a
     * reply slot that is no reply cap. */
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_RECV, empty, reply, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], empty);
    assert_int_equal(m.mr[1], 1);
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_RECV, ROOT_TCB, reply, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], ROOT_TCB);
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_RECV, ep, ep, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], ep);
    assert_int_equal(m.mr[1], 1);

    /* An endpoint cap without Read cannot receive. */
    cptr_t write_only = ktu_mint(ep, RIGHT_WRITE, 0);
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_NB_RECV, write_only, reply, 0, &m), KTU_ROOT_ID);
    assert_int_equal(m.label, ERR_INVALID_CAPABILITY);
    assert_int_equal(m.mr[0], write_only);
}

/* Deleting the last cap to an endpoint restarts every queued thread: it
 * makes its system call again (pc rewound) when it next runs; the reply
 * objects it waited with are free again. */
static void test_endpoint_delete_restarts_queued(void **state)
{
    cptr_t ep, r1, r2, a, b;
    uint64_t pc_a, pc_b;

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    r1 = ktest_retype(OBJ_REPLY, 0);
    r2 = ktest_retype(OBJ_REPLY, 0);
    a = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    b = ktest_thread(101, 90, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(a), 100);
    pc_a = ktest_context()->pc;
    assert_int_equal(ktest_syscall(SYS_RECV, ep, r1, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(b), 101);
    pc_b = ktest_context()->pc;
    assert_int_equal(ktest_syscall(SYS_RECV, ep, r2, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(a).state, KTU_ST_BLOCKED_ON_RECEIVE);
    assert_int_equal(ktu_inspect(b).state, KTU_ST_BLOCKED_ON_RECEIVE);

    assert_int_equal(ktu_call(ROOT_CNODE, INV_CNODE_DELETE, 2, (uint64_t[]){ep, 64}, NULL, 0), 100);
    /* a (prio 100) runs at once, b (prio 90) waits in Restart. */
    assert_int_equal(ktest_context()->pc, pc_a);
    assert_int_equal(ktu_inspect(a).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(b).state, KTU_ST_RESTART);

    /* r1 is no longer bound to a: a new endpoint can be received on with
     * it, and a Call through it works. */
    cptr_t ep2 = ktest_retype(OBJ_ENDPOINT, 0);
    assert_int_equal(ktest_syscall(SYS_RECV, ep2, r1, 0, NULL), 101);
    assert_int_equal(ktest_context()->pc, pc_b);
    {
        struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {77}};
        assert_int_equal(ktest_syscall(SYS_CALL, ep2, 0, 0, &m), 100);
    }
    assert_int_equal(ktu_inspect(b).state, KTU_ST_BLOCKED_ON_REPLY);
    assert_int_equal(ktest_context()->x[REG_MR0], 77);
}

/* A passive server S (prio 200) that reached its Recv on ep. */
static cptr_t passive_server(cptr_t ep, cptr_t reply, cptr_t *s_sc)
{
    cptr_t s = ktest_thread(SERVER_ID, 200, 10 * MS, 10 * MS, s_sc);

    ktu_make_passive(s, SERVER_ID, *s_sc, SYS_RECV, ep, reply);
    return s;
}

/* B22 (IPC0017): NBSend to a passive receiver: it takes the message but
 * gets no context and does not run; later senders block (the endpoint is
 * no longer receiving); once S's context is bound again, S runs and
 * takes both. */
static void test_endpoint_b22_send_to_passive(void **state)
{
    cptr_t ep, reply, s, s_sc, t, u, v;
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {1}};

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    t = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    u = ktest_thread(90, 90, 10 * MS, 10 * MS, NULL);
    v = ktest_thread(80, 80, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    s = passive_server(ep, reply, &s_sc);
    ktest_trace_clear();

    assert_int_equal(ktu_resume(t), 100);
    assert_int_equal(ktest_syscall(SYS_NB_SEND, ep, 0, 0, &m), 100);
    assert_int_equal(ktu_inspect(s).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(s).sc_badge, 0);
    assert_false(ktu_inspect(s).queued);
    assert_int_equal(ktest_trace_count_kind(TR_DONATE, UINT32_MAX), 0);
    /* t stops; u and v Send and block. */
    assert_int_equal(
        ktest_syscall(SYS_CALL, t, 0, 0, &(struct ktest_msg){.label = INV_TCB_SUSPEND}),
        KTU_ROOT_ID);
    assert_int_equal(ktu_resume(u), 90);
    m.mr[0] = 2;
    assert_int_equal(ktest_syscall(SYS_SEND, ep, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(v), 80);
    m.mr[0] = 3;
    assert_int_equal(ktest_syscall(SYS_SEND, ep, 0, 0, &m), KTU_ROOT_ID);
    assert_int_equal(ktu_inspect(u).state, KTU_ST_BLOCKED_ON_SEND);
    assert_int_equal(ktu_inspect(v).state, KTU_ST_BLOCKED_ON_SEND);
    assert_int_equal(ktest_run(5 * MS), KTU_ROOT_ID);
    assert_int_equal(ktest_trace_count_kind(TR_SWITCH, SERVER_ID), 0);

    /* Bind S's context: S runs with t's message, then takes u's and v's. */
    assert_int_equal(ktu_call(s_sc, INV_SC_BIND, 0, NULL, &s, 1), SERVER_ID);
    assert_int_equal(ktest_context()->x[REG_MR0], 1);
    m = (struct ktest_msg){0};
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, &m), SERVER_ID);
    assert_int_equal(m.mr[0], 2);
    assert_int_equal(ktu_inspect(u).state, KTU_ST_RUNNING);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, &m), SERVER_ID);
    assert_int_equal(m.mr[0], 3);
    assert_int_equal(ktu_inspect(v).state, KTU_ST_RUNNING);
}

/* NBSendRecv to a passive receiver donates the sender's context with the
 * message (data-flow donation, 4.3): it does not come back by itself. */
static void test_endpoint_nb_send_recv_donates(void **state)
{
    cptr_t ep, ep2, reply, reply2, s, s_sc, t;
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {5}};
    const struct ktest_trace *d;

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    ep2 = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    reply2 = ktest_retype(OBJ_REPLY, 0);
    t = ktest_thread(100, 100, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    s = passive_server(ep, reply, &s_sc);
    assert_int_equal(ktu_resume(t), 100);
    ktest_trace_clear();
    /* NBSend to ep, then Recv on ep2 (x11) with reply2 (x10). */
    assert_int_equal(ktest_syscall(SYS_NB_SEND_RECV, ep, reply2, ep2, &m), SERVER_ID);
    assert_int_equal(ktest_context()->x[REG_MR0], 5);
    assert_int_equal(ktu_inspect(s).sc_badge, 100);
    assert_int_equal(ktu_inspect(t).sc_badge, 0);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_BLOCKED_ON_RECEIVE);
    d = ktu_last_record(TR_DONATE);
    assert_non_null(d);
    assert_int_equal(d->thread, SERVER_ID);
    assert_int_equal(d->object, 100);
    assert_int_equal(d->arg, 100);
    /* S answers t with a plain Send on ep2: the context stays with S. */
    assert_int_equal(ktest_syscall(SYS_SEND, ep2, 0, 0, NULL), SERVER_ID);
    assert_int_equal(ktu_inspect(t).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(t).sc_badge, 0);
}

/* The send phase of NBSendRecv may not invoke a TCB (InvalidCapability,
 * not reported: it is no Call); the receive phase still happens. Here the
 * refused invocation is the root's own Suspend. */
static void test_endpoint_first_phase_refuses_tcb(void **state)
{
    cptr_t ep, reply, u;
    struct ktest_msg m = {.label = INV_TCB_SUSPEND};

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    u = ktest_thread(90, 90, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(u), 90);
    assert_int_equal(ktest_syscall(SYS_SEND, ep, 0, 0,
                                   &(struct ktest_msg){.label = LABEL, .length = 1, .mr = {6}}),
                     KTU_ROOT_ID);
    assert_int_equal(ktest_syscall(SYS_NB_SEND_RECV, ROOT_TCB, reply, ep, &m), 90);
    /* u was released by the root's receive (u prio 90 > root 5). */
    assert_int_equal(ktu_inspect(u).state, KTU_ST_RUNNING);
    assert_int_equal(ktu_inspect(ROOT_TCB).state, KTU_ST_RUNNING);
    assert_int_equal(m.label, LABEL);
    assert_int_equal(m.mr[0], 6);
}

/* NBSendWait: NBSend to x0, then Wait on x10 (no reply object). */
static void test_endpoint_nb_send_wait(void **state)
{
    cptr_t ep, reply, ntfn, s;
    struct ktest_msg m = {.label = LABEL, .length = 1, .mr = {11}};

    (void)state;
    ktu_boot(SCHED_MCS);
    ep = ktest_retype(OBJ_ENDPOINT, 0);
    reply = ktest_retype(OBJ_REPLY, 0);
    ntfn = ktest_retype(OBJ_NOTIFICATION, 0);
    s = ktest_thread(SERVER_ID, 10, 10 * MS, 10 * MS, NULL);
    assert_int_equal(ktu_root_lower(5), KTU_ROOT_ID);
    assert_int_equal(ktu_resume(s), SERVER_ID);
    assert_int_equal(ktest_syscall(SYS_RECV, ep, reply, 0, NULL), KTU_ROOT_ID);
    assert_int_equal(ktest_syscall(SYS_NB_SEND_WAIT, ep, ntfn, 0, &m), SERVER_ID);
    assert_int_equal(ktest_context()->x[REG_MR0], 11);
    assert_int_equal(ktu_inspect(ROOT_TCB).state, KTU_ST_BLOCKED_ON_NOTIFICATION);
    /* S (10) signals: the root (5) is woken but S keeps the CPU. */
    assert_int_equal(ktest_syscall(SYS_SEND, ntfn, 0, 0, NULL), SERVER_ID);
    assert_int_equal(ktu_inspect(ROOT_TCB).state, KTU_ST_RUNNING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint_b17_priority_order),
        cmocka_unit_test(test_endpoint_classic_fifo),
        cmocka_unit_test(test_endpoint_equal_prio_fifo),
        cmocka_unit_test(test_endpoint_b18_reorder),
        cmocka_unit_test(test_endpoint_message_transfer),
        cmocka_unit_test(test_endpoint_b25_call_without_grant),
        cmocka_unit_test(test_endpoint_no_write_right),
        cmocka_unit_test(test_endpoint_nb_send_dropped),
        cmocka_unit_test(test_endpoint_lookup_errors),
        cmocka_unit_test(test_endpoint_delete_restarts_queued),
        cmocka_unit_test(test_endpoint_b22_send_to_passive),
        cmocka_unit_test(test_endpoint_nb_send_recv_donates),
        cmocka_unit_test(test_endpoint_first_phase_refuses_tcb),
        cmocka_unit_test(test_endpoint_nb_send_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
