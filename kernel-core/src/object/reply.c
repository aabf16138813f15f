/*
 * Reply objects, call chains and scheduling-context donation along them.
 * SEL4-MCS-REFERENCE.md 4.5 (seL4: reply_push, reply_pop, reply_remove,
 * reply_remove_tcb, reply_unlink, doReplyTransfer).
 *
 * A context donated through a chain of Calls records the most recent reply
 * object in sc->reply; each reply points to the one below it (prev) and
 * the one above it (next); the top one has head_sc = the context.
 */
#include "object/reply.h"

#include "kernel/faults.h"
#include "kernel/ktrace.h"
#include "kernel/refill.h"
#include "kernel/sched.h"
#include "object/endpoint.h"
#include "object/schedcontext.h"

static bool is_mcs(void)
{
    return ks.cfg.scheduler == SCHED_MCS;
}

void reply_unlink(struct reply *reply, struct tcb *t)
{
    KASSERT(reply->tcb == t && t->reply == reply);
    reply->tcb = NULL;
    t->reply = NULL;
    sched_set_state(t, TS_INACTIVE);
}

/* Push reply on top of sc's call stack (seL4 reply_push). */
static void call_stack_push(struct sched_context *sc, struct reply *reply)
{
    struct reply *old = sc->reply;

    KASSERT(old == NULL || old->head_sc == sc);
    reply->prev = old;
    reply->next = NULL;
    reply->head_sc = sc;
    if (old != NULL) {
        old->next = reply;
        old->head_sc = NULL;
    }
    sc->reply = reply;
}

/*
 * The caller blocks on the reply; if it has a context, the callee has none
 * and donation is allowed, the context moves to the callee (B14) and the
 * reply becomes the head of its call stack. An active callee runs on its
 * own context; the caller keeps (but cannot use) its own.
 */
void reply_push(struct tcb *caller, struct tcb *callee, struct reply *reply, bool can_donate)
{
    struct sched_context *sc = caller->sc;

    KASSERT(reply->tcb == NULL && caller->reply == NULL);
    KASSERT(reply->prev == NULL && reply->next == NULL && reply->head_sc == NULL);
    reply->tcb = caller;
    caller->reply = reply;
    sched_set_state(caller, TS_BLOCKED_ON_REPLY);

    if (sc == NULL || callee->sc != NULL || !can_donate || !is_mcs())
        return;
    call_stack_push(sc, reply);
    sc_donate(sc, callee);
    ktrace(TR_DONATE, callee, ktrace_sc(sc), ktrace_id(caller), 0);
}

static void reply_clear_links(struct reply *reply)
{
    reply->prev = NULL;
    reply->next = NULL;
    reply->head_sc = NULL;
}

void reply_pop(struct reply *reply, struct tcb *t)
{
    struct sched_context *sc = reply->head_sc;
    struct reply *prev = reply->prev;

    KASSERT(reply->tcb == t && t->state == TS_BLOCKED_ON_REPLY);
    KASSERT(sc != NULL && sc->reply == reply);
    sc->reply = prev;
    if (prev != NULL) {
        prev->next = NULL;
        prev->head_sc = sc;
    }
    /* Only to a caller without a context: one that was given another while
     * it waited keeps that, and the donated one stays where it is. */
    if (t->sc == NULL) {
        struct tcb *from = sc->tcb;

        sc_donate(sc, t);
        ktrace(TR_SC_RETURN, t, ktrace_sc(sc), ktrace_id(from), 0);
    }
    reply_clear_links(reply);
    reply_unlink(reply, t);
}

void reply_remove(struct reply *reply, struct tcb *t)
{
    KASSERT(reply->tcb == t && t->state == TS_BLOCKED_ON_REPLY);
    if (reply->head_sc != NULL) {
        reply_pop(reply, t);
        return;
    }
    /* Not the head: the context is further up the chain and stays there;
     * the chain is broken on both sides (the manual's A->B->C example). */
    if (reply->next != NULL)
        reply->next->prev = NULL;
    if (reply->prev != NULL)
        reply->prev->next = NULL;
    reply_clear_links(reply);
    reply_unlink(reply, t);
}

void reply_remove_tcb(struct tcb *t)
{
    struct reply *reply = t->reply;

    KASSERT(t->state == TS_BLOCKED_ON_REPLY && reply != NULL);
    if (reply->head_sc != NULL)
        reply->head_sc->reply = NULL; /* the context is not returned */
    else if (reply->next != NULL)
        reply->next->prev = NULL;
    if (reply->prev != NULL) {
        reply->prev->next = NULL;
        reply->prev->head_sc = NULL;
    }
    reply_clear_links(reply);
    reply_unlink(reply, t);
}

/* ------------------------------------------------------------ the reply */

/* A normal reply: the message, and an error reply's abort trace. */
static void reply_deliver(struct tcb *sender, struct reply *reply, struct tcb *caller)
{
    ep_transfer(sender, caller, 0);
    sched_set_state(caller, TS_RUNNING);
    /* docs/kernel-semantics.md 5, `reset`: a timeout handler aborts the Call
     * of the client whose request it cancels with this label. */
    if (msginfo_label(sender->ctx.x[REG_INFO]) == FAULT_CALL_ABORTED_LABEL)
        ktrace(TR_CALL_ABORTED, caller, kobj_paddr(reply), ktrace_id(sender), 0);
}

/* The answer to a fault: Restart (label 0) or Inactive. Restart resumes
 * at the saved pc (object/tcb.c): where user code was interrupted, or the
 * system call whose entry raised the fault, which timing.c has already
 * rewound for re-execution. */
static void reply_fault(struct tcb *sender, struct tcb *caller)
{
    bool restart = fault_handle_reply(caller, sender);

    caller->fault = FAULT_NONE;
    sched_set_state(caller, restart ? TS_RESTART : TS_INACTIVE);
}

/*
 * The caller is runnable again (seL4 doReplyTransfer, last part): run it
 * if its context allows, else raise a timeout fault for it (a nested
 * server whose returned context is empty, TIMEOUTFAULT0003) unless the
 * fault just answered was one, else postpone it to its next refill.
 */
static void reply_schedule(struct tcb *caller, bool was_timeout)
{
    struct sched_context *sc = caller->sc;

    if (!thread_is_runnable(caller))
        return;
    if (!is_mcs() || sc == NULL) {
        sched_possible_switch_to(caller); /* MCS without a context: no-op */
        return;
    }
    if (refill_ready(sc, ks.cur_time) && refill_sufficient(sc, 0))
        sched_possible_switch_to(caller);
    else if (fault_has_timeout_handler(caller) && !was_timeout)
        fault_raise_timeout(caller, sc);
    else
        sched_postpone(caller);
}

void reply_transfer(struct tcb *sender, struct reply *reply, bool grant)
{
    struct tcb *caller = reply->tcb;
    bool was_timeout;

    (void)grant; /* NEEDSWORK: no capability transfer (see ep_transfer). */
    if (caller == NULL || caller->state != TS_BLOCKED_ON_REPLY)
        return;
    was_timeout = caller->fault == FAULT_TIMEOUT_PENDING;
    reply_remove(reply, caller);
    if (is_mcs())
        sc_unblock_if_sporadic(caller->sc);
    ktrace(TR_IPC_REPLY, sender, kobj_paddr(reply), ktrace_id(caller), 0);

    if (caller->fault == FAULT_NONE)
        reply_deliver(sender, reply, caller);
    else
        reply_fault(sender, caller);
    reply_schedule(caller, was_timeout);
}

void reply_finalise(struct reply *reply)
{
    struct tcb *t = reply->tcb;

    if (t == NULL)
        return;
    if (t->state == TS_BLOCKED_ON_REPLY) {
        reply_remove(reply, t);
    } else {
        KASSERT(t->state == TS_BLOCKED_ON_RECEIVE);
        ep_cancel_ipc(t);
    }
}
