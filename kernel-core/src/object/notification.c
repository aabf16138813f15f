/*
 * Notifications: a word of signal bits, a priority-ordered queue of
 * waiters, an optional bound thread and an optional context lent to
 * passive waiters. SEL4-MCS-REFERENCE.md 5 (seL4: sendSignal,
 * receiveSignal, completeSignal, cancelSignal, cancelAllSignals,
 * maybeDonateSchedContext, maybeReturnSchedContext).
 */
#include "object/notification.h"

#include "hal.h"

#include "kernel/ktrace.h"
#include "kernel/sched.h"
#include "object/endpoint.h"
#include "object/schedcontext.h"

static bool is_mcs(void)
{
    return ks.cfg.scheduler == SCHED_MCS;
}

/* ---------------------------------------------------------- the context */

/*
 * A passive t woken through n borrows n's context unless another thread
 * holds it (B23, INTERRUPT0005); schedContext_resume then postpones t if
 * the head refill is not ready or not sufficient. The sporadic unblock
 * check is the callers' (seL4 16: maybeDonateSchedContext no longer runs
 * it for every kind of context, SEL4-MCS-REFERENCE.md 3.5).
 */
void ntfn_maybe_donate_sc(struct tcb *t, struct notification *n)
{
    struct sched_context *sc = n->sc;

    if (!is_mcs() || t->sc != NULL || sc == NULL || sc->tcb != NULL)
        return;
    sc_donate(sc, t);
    ktrace(TR_DONATE, t, ktrace_sc(sc), 0, 0);
    sc_resume(sc);
}

/* t waits on n again while running on n's context: it gives it back and
 * becomes passive (the current thread must then not run on). */
void ntfn_maybe_return_sc(struct notification *n, struct tcb *t)
{
    struct sched_context *sc = n->sc;

    if (!is_mcs() || sc == NULL || sc != t->sc)
        return;
    t->sc = NULL;
    sc->tcb = NULL;
    if (t == ks.cur_thread)
        sched_reschedule_required();
}

/* A thread woken by a signal: the notification's context if it is passive,
 * the sporadic unblock check, and the CPU if it can run (seL4
 * MCS_DO_IF_SC). */
static void ntfn_wake(struct tcb *t, struct notification *n, uint64_t badge)
{
    sched_set_state(t, TS_RUNNING);
    t->ctx.x[REG_CAP] = badge;
    ntfn_maybe_donate_sc(t, n);
    if (!sched_is_schedulable(t))
        return;
    if (is_mcs())
        sc_unblock_if_sporadic(t->sc);
    sched_possible_switch_to(t);
}

/* ---------------------------------------------------------------- signal */

static void ntfn_set_active(struct notification *n, uint64_t badge)
{
    n->state = NTFN_ACTIVE;
    n->word = badge;
}

/* Idle: the bound thread takes the signal if it waits on an endpoint (not
 * if it waits for a reply: a Call is not interrupted); else it is kept. */
static struct tcb *ntfn_signal_idle(struct notification *n, uint64_t badge)
{
    struct tcb *t = n->bound_tcb;

    if (t == NULL || t->state != TS_BLOCKED_ON_RECEIVE) {
        ntfn_set_active(n, badge);
        return NULL;
    }
    ep_cancel_ipc(t);
    ntfn_wake(t, n, badge);
    return t;
}

/* Waiting: the head waiter (highest priority) gets the whole badge. */
static struct tcb *ntfn_signal_waiting(struct notification *n, uint64_t badge)
{
    struct tcb *t = n->head;

    KASSERT(t != NULL && t->blocked_on == n);
    ipc_queue_remove(&n->head, &n->tail, t);
    t->blocked_on = NULL;
    if (n->head == NULL)
        n->state = NTFN_IDLE;
    ntfn_wake(t, n, badge);
    return t;
}

struct tcb *ntfn_signal(struct notification *n, uint64_t badge)
{
    switch (n->state) {
    case NTFN_IDLE:
        return ntfn_signal_idle(n, badge);
    case NTFN_WAITING:
        return ntfn_signal_waiting(n, badge);
    default:
        n->word |= badge; /* undelivered signals OR together */
        return NULL;
    }
}

void ntfn_send(struct tcb *sender, struct notification *n, uint64_t badge)
{
    struct tcb *woken = ntfn_signal(n, badge);

    ktrace(TR_SIGNAL, sender, kobj_paddr(n), badge, woken ? ktrace_id(woken) : TRACE_IDLE);
}

/* --------------------------------------------------------------- receive */

/* Take the pending word; a passive receiver borrows n's context. */
void ntfn_complete_signal(struct notification *n, struct tcb *t)
{
    KASSERT(n->state == NTFN_ACTIVE);
    t->ctx.x[REG_CAP] = n->word;
    n->word = 0;
    n->state = NTFN_IDLE;
    ntfn_maybe_donate_sc(t, n);
    if (is_mcs())
        sc_unblock_if_sporadic(t->sc);
}

void ntfn_receive(struct tcb *t, struct notification *n, bool blocking)
{
    if (n->state == NTFN_ACTIVE) {
        ntfn_complete_signal(n, t);
        return;
    }
    if (!blocking) {
        t->ctx.x[REG_CAP] = 0; /* Poll found nothing: badge 0 */
        return;
    }
    sched_set_state(t, TS_BLOCKED_ON_NOTIFICATION);
    t->blocked_on = n;
    ipc_queue_insert(&n->head, &n->tail, t);
    n->state = NTFN_WAITING;
    ntfn_maybe_return_sc(n, t);
}

/* ---------------------------------------------------------------- cancel */

void ntfn_cancel_signal(struct tcb *t, struct notification *n)
{
    KASSERT(n->state == NTFN_WAITING && t->blocked_on == n);
    ipc_queue_remove(&n->head, &n->tail, t);
    t->blocked_on = NULL;
    if (n->head == NULL)
        n->state = NTFN_IDLE;
    sched_set_state(t, TS_INACTIVE);
}

/* Every waiter re-executes its Wait when it next runs (seL4
 * cancelAllSignals). */
static void ntfn_cancel_all(struct notification *n)
{
    struct tcb *t = n->head;

    if (n->state != NTFN_WAITING)
        return;
    n->state = NTFN_IDLE;
    n->head = NULL;
    n->tail = NULL;
    while (t != NULL) {
        struct tcb *next = t->q_next; /* links reused by the ready queue */

        t->q_next = NULL;
        t->q_prev = NULL;
        t->blocked_on = NULL;
        hal_context_restart(&t->ctx); /* Restart alone keeps the pc */
        sched_set_state(t, TS_RESTART);
        if (is_mcs())
            sc_unblock_if_sporadic(t->sc);
        sched_possible_switch_to(t);
        t = next;
    }
    sched_reschedule_required();
}

void ntfn_finalise(struct notification *n)
{
    if (n->sc != NULL)
        sc_unbind_ntfn(n->sc);
    if (n->bound_tcb != NULL)
        ntfn_unbind_tcb(n->bound_tcb);
    ntfn_cancel_all(n);
}

void ntfn_bind_tcb(struct notification *n, struct tcb *t)
{
    KASSERT(n->bound_tcb == NULL && t->bound_ntfn == NULL);
    n->bound_tcb = t;
    t->bound_ntfn = n;
}

void ntfn_unbind_tcb(struct tcb *t)
{
    struct notification *n = t->bound_ntfn;

    if (n == NULL)
        return;
    n->bound_tcb = NULL;
    t->bound_ntfn = NULL;
}

void ntfn_reorder(struct tcb *t)
{
    struct notification *n = t->blocked_on;

    KASSERT(t->state == TS_BLOCKED_ON_NOTIFICATION);
    ipc_queue_remove(&n->head, &n->tail, t);
    ipc_queue_insert(&n->head, &n->tail, t);
}
