/*
 * Endpoints: the rendezvous of Send/Call and Recv, the wait queues shared
 * with notifications, and cancelling a blocked IPC. Follows
 * SEL4-MCS-REFERENCE.md 4.2-4.4 (seL4: sendIPC, receiveIPC, cancelIPC,
 * cancelAllIPC, doIPCTransfer).
 */
#include "object/endpoint.h"

#include "hal.h"

#include "kernel/faults.h"
#include "kernel/ktrace.h"
#include "kernel/sched.h"
#include "object/notification.h"
#include "object/reply.h"
#include "object/schedcontext.h"

static bool is_mcs(void)
{
    return ks.cfg.scheduler == SCHED_MCS;
}

/* ------------------------------------------------------------ wait queues */

/*
 * MCS: ordered by priority, highest first; a new thread goes after the
 * last one of priority >= its own, so equals stay FIFO (seL4: tcbEPAppend
 * of MCS builds, B17). Classic: plain FIFO. The links are the ones the
 * ready and release queues use, so t must be in none of them.
 */
void ipc_queue_insert(struct tcb **head, struct tcb **tail, struct tcb *t)
{
    struct tcb *before = *tail;

    KASSERT(!t->queued && !t->in_release_queue);
    if (is_mcs()) {
        while (before != NULL && before->prio < t->prio)
            before = before->q_prev;
    }
    t->q_prev = before;
    if (before == NULL) {
        t->q_next = *head;
        *head = t;
    } else {
        t->q_next = before->q_next;
        before->q_next = t;
    }
    if (t->q_next == NULL)
        *tail = t;
    else
        t->q_next->q_prev = t;
}

void ipc_queue_remove(struct tcb **head, struct tcb **tail, struct tcb *t)
{
    if (t->q_prev == NULL)
        *head = t->q_next;
    else
        t->q_prev->q_next = t->q_next;
    if (t->q_next == NULL)
        *tail = t->q_prev;
    else
        t->q_next->q_prev = t->q_prev;
    t->q_next = NULL;
    t->q_prev = NULL;
}

/* Take t off ep's queue; an emptied queue leaves the endpoint Idle. */
static void ep_dequeue(struct endpoint *ep, struct tcb *t)
{
    KASSERT(ep->state != EP_IDLE && t->blocked_on == ep);
    ipc_queue_remove(&ep->head, &ep->tail, t);
    t->blocked_on = NULL;
    if (ep->head == NULL)
        ep->state = EP_IDLE;
}

static void ep_enqueue(struct endpoint *ep, struct tcb *t, enum ep_state state)
{
    t->blocked_on = ep;
    ipc_queue_insert(&ep->head, &ep->tail, t);
    ep->state = state;
}

/* ---------------------------------------------------------- the transfer */

/*
 * seL4 doIPCTransfer / doFaultTransfer. A pending timeout fault sends the
 * fault message (label FAULT_TIMEOUT, MR0 = the context's badge, MR1 = the
 * ticks it consumed, B16) instead of the sender's registers.
 * NEEDSWORK: no capability transfer. Messages travel in registers only
 * (mcsim/abi.h) and nothing in the simulator passes capabilities by IPC,
 * so the grant right only decides whether a reply object may be used, and
 * the receiver's message info always reports 0 extra caps.
 */
void ep_transfer(struct tcb *sender, struct tcb *receiver, uint64_t badge)
{
    uint64_t *dst = receiver->ctx.x;

    if (sender->fault == FAULT_TIMEOUT_PENDING) {
        dst[REG_INFO] = msginfo_make(FAULT_TIMEOUT, 0, TIMEOUT_LENGTH);
        dst[REG_MR0 + TIMEOUT_DATA] = sender->fault_badge;
        dst[REG_MR0 + TIMEOUT_CONSUMED] = sender->fault_consumed;
    } else {
        uint64_t info = sender->ctx.x[REG_INFO];
        unsigned len = msginfo_length(info);

        /* seL4 messageInfoFromWord: a longer length is cut to the maximum. */
        if (len > MSG_MAX_LENGTH)
            len = MSG_MAX_LENGTH;
        for (unsigned i = 0; i < len; i++)
            dst[REG_MR0 + i] = sender->ctx.x[REG_MR0 + i];
        dst[REG_INFO] = msginfo_make(msginfo_label(info), 0, len);
    }
    dst[REG_CAP] = badge;
    hal_account(COST_IPC);
}

static void trace_transfer(struct tcb *sender, struct tcb *receiver, struct endpoint *ep)
{
    ktrace(TR_IPC_SEND, sender, kobj_paddr(ep), ktrace_id(receiver), 0);
    ktrace(TR_IPC_RECV, receiver, kobj_paddr(ep), ktrace_id(sender), 0);
}

/* A plain (non-call) send with donation allowed gives the sender's context
 * to a receiver without one and it does not come back by itself (seL4
 * sendIPC, the NBSendRecv / NBSendWait "data-flow" donation). */
static void donate_data_flow(struct tcb *sender, struct tcb *receiver)
{
    struct sched_context *sc = sender->sc;

    if (sc == NULL || receiver->sc != NULL)
        return;
    sc_donate(sc, receiver);
    ktrace(TR_DONATE, receiver, ktrace_sc(sc), ktrace_id(sender), 0);
}

/* ------------------------------------------------------------------ send */

static void ep_block_sender(struct tcb *t, struct endpoint *ep, uint64_t badge, bool is_call,
                            bool grant, bool grant_reply, bool can_donate)
{
    t->ipc_badge = badge;
    t->ipc_is_call = is_call;
    t->ipc_grant = grant;
    t->ipc_grant_reply = grant_reply;
    t->ipc_can_donate = can_donate;
    sched_set_state(t, TS_BLOCKED_ON_SEND);
    ep_enqueue(ep, t, EP_SEND);
}

/*
 * seL4 sendIPC, SEL4-MCS-REFERENCE.md 4.3. With a receiver waiting, the
 * head receiver (highest priority) takes the message; a Call (or a fault
 * message) blocks the sender on the receiver's reply object if the cap has
 * Grant or GrantReply and the receiver gave one, else leaves it Inactive
 * (B25).
 */
void ep_send(struct tcb *t, struct endpoint *ep, uint64_t badge, bool blocking, bool is_call,
             bool grant, bool grant_reply, bool can_donate)
{
    struct tcb *r;
    struct reply *reply;

    if (!is_mcs())
        can_donate = false; /* classic: no contexts, no donation */
    if (ep->state != EP_RECV) {
        if (blocking)
            ep_block_sender(t, ep, badge, is_call, grant, grant_reply, can_donate);
        return; /* NBSend with no receiver: the message is dropped */
    }

    r = ep->head;
    ep_dequeue(ep, r);
    ep_transfer(t, r, badge);
    trace_transfer(t, r, ep);
    reply = r->reply;
    if (reply != NULL)
        reply_unlink(reply, r);

    if (is_call || t->fault != FAULT_NONE) {
        if (reply != NULL && (grant || grant_reply))
            reply_push(t, r, reply, can_donate);
        else
            sched_set_state(t, TS_INACTIVE);
    } else if (can_donate) {
        donate_data_flow(t, r);
    }

    sched_set_state(r, TS_RUNNING);
    if (is_mcs())
        sc_unblock_if_sporadic(r->sc);
    sched_possible_switch_to(r);
}

/* --------------------------------------------------------------- receive */

static void ep_block_receiver(struct tcb *t, struct endpoint *ep, struct reply *reply)
{
    sched_set_state(t, TS_BLOCKED_ON_RECEIVE);
    t->reply = reply;
    if (reply != NULL)
        reply->tcb = t;
    ep_enqueue(ep, t, EP_RECV);
}

/* The head sender's message goes to t (seL4 receiveIPC, EPState_Send). */
static void ep_take_sender(struct tcb *t, struct endpoint *ep, struct reply *reply)
{
    struct tcb *s = ep->head;

    ep_dequeue(ep, s);
    ep_transfer(s, t, s->ipc_badge);
    trace_transfer(s, t, ep);
    if (is_mcs())
        sc_unblock_if_sporadic(s->sc);

    if (s->ipc_is_call || s->fault != FAULT_NONE) {
        if ((s->ipc_grant || s->ipc_grant_reply) && reply != NULL) {
            /* A timeout fault is delivered without donation (B16): the
             * faulting thread keeps its exhausted context. */
            bool can_donate = is_mcs() && s->sc != NULL && s->fault != FAULT_TIMEOUT_PENDING;

            reply_push(s, t, reply, can_donate);
        } else {
            sched_set_state(s, TS_INACTIVE);
        }
        return;
    }
    sched_set_state(s, TS_RUNNING);
    sched_possible_switch_to(s);
}

/*
 * seL4 receiveIPC, SEL4-MCS-REFERENCE.md 4.4. The rights of ep_cap were
 * checked by the caller (Read); a reply object still holding another
 * thread cancels that thread's IPC first (its context is not returned).
 */
void ep_receive(struct tcb *t, const struct cap *ep_cap, struct reply *reply, bool blocking)
{
    struct endpoint *ep = ep_cap->obj;
    struct notification *bound = t->bound_ntfn;

    if (reply != NULL && reply->tcb != NULL && reply->tcb != t)
        ep_cancel_ipc(reply->tcb);

    /* A bound notification's pending signal comes first (4.4 steps 2-3). */
    if (bound != NULL && bound->state == NTFN_ACTIVE) {
        ntfn_complete_signal(bound, t);
        return;
    }
    if (bound != NULL && blocking)
        ntfn_maybe_return_sc(bound, t);

    if (ep->state == EP_SEND) {
        ep_take_sender(t, ep, reply);
    } else if (blocking) {
        ep_block_receiver(t, ep, reply);
    } else {
        /* seL4 doNBRecvFailedTransfer: only the badge register says so. */
        t->ctx.x[REG_CAP] = 0;
    }
}

/* ---------------------------------------------------------------- cancel */

/* seL4 cancelIPC: also clears any pending fault (MCS). */
void ep_cancel_ipc(struct tcb *t)
{
    t->fault = FAULT_NONE;
    switch (t->state) {
    case TS_BLOCKED_ON_SEND:
    case TS_BLOCKED_ON_RECEIVE:
        ep_dequeue(t->blocked_on, t);
        if (t->reply != NULL)
            reply_unlink(t->reply, t);
        sched_set_state(t, TS_INACTIVE);
        break;
    case TS_BLOCKED_ON_NOTIFICATION:
        ntfn_cancel_signal(t, t->blocked_on);
        break;
    case TS_BLOCKED_ON_REPLY:
        reply_remove_tcb(t);
        break;
    default:
        break;
    }
}

/* One thread of a deleted endpoint: it re-executes its system call when it
 * next runs, unless it was delivering a fault (seL4 cancelAllIPC). Restart
 * alone resumes at the saved pc here (object/tcb.c), so the pc is rewound. */
static void ep_restart_cancelled(struct tcb *t)
{
    t->blocked_on = NULL;
    t->q_next = NULL;
    t->q_prev = NULL;
    if (t->reply != NULL)
        reply_unlink(t->reply, t);
    if (t->fault != FAULT_NONE) {
        sched_set_state(t, TS_INACTIVE);
        return;
    }
    hal_context_restart(&t->ctx);
    sched_set_state(t, TS_RESTART);
    if (is_mcs())
        sc_unblock_if_sporadic(t->sc);
    sched_possible_switch_to(t);
}

void ep_cancel_all(struct endpoint *ep)
{
    struct tcb *t = ep->head;

    if (ep->state == EP_IDLE)
        return;
    ep->state = EP_IDLE;
    ep->head = NULL;
    ep->tail = NULL;
    while (t != NULL) {
        /* The links are reused by the ready queue: read next first. */
        struct tcb *next = t->q_next;

        ep_restart_cancelled(t);
        t = next;
    }
    sched_reschedule_required();
}

/* B18: a queued thread whose priority changed is re-sorted at once. */
void ep_reorder(struct tcb *t)
{
    struct endpoint *ep = t->blocked_on;

    KASSERT(t->state == TS_BLOCKED_ON_SEND || t->state == TS_BLOCKED_ON_RECEIVE);
    ipc_queue_remove(&ep->head, &ep->tail, t);
    ipc_queue_insert(&ep->head, &ep->tail, t);
}
