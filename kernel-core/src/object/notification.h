/* Notifications. seL4: src/object/notification.c. */
#ifndef MCSIM_OBJECT_NOTIFICATION_H
#define MCSIM_OBJECT_NOTIFICATION_H

#include "kernel/structures.h"

/* Signal n with badge (seL4 sendSignal). Returns the thread the signal
 * woke, or NULL if it was left pending in the notification. */
struct tcb *ntfn_signal(struct notification *n, uint64_t badge);

/* A thread's Signal (Send, NBSend or Call on a notification cap with
 * Write): ntfn_signal, traced as TR_SIGNAL (thread = sender, object = the
 * notification, arg = badge, arg2 = trace id of the thread woken, TRACE_IDLE if none). */
void ntfn_send(struct tcb *sender, struct notification *n, uint64_t badge);

/* t receives on an endpoint while its bound notification n is Active: take
 * the signal instead (seL4 completeSignal). */
void ntfn_complete_signal(struct notification *n, struct tcb *t);

/* Wait or poll on n (seL4 receiveSignal). */
void ntfn_receive(struct tcb *t, struct notification *n, bool blocking);

/* Remove a waiting t (seL4 cancelSignal). */
void ntfn_cancel_signal(struct tcb *t, struct notification *n);

/* Notification deleted: cancel waiters, unbind TCB and context. */
void ntfn_finalise(struct notification *n);

void ntfn_bind_tcb(struct notification *n, struct tcb *t);
void ntfn_unbind_tcb(struct tcb *t);

/* t's priority changed while waiting: re-sort it. */
void ntfn_reorder(struct tcb *t);

/* A passive t woken through n takes n's context if no one holds it
 * (seL4 maybeDonateSchedContext). */
void ntfn_maybe_donate_sc(struct tcb *t, struct notification *n);

/* t blocks on n while running on n's context: give it back (seL4
 * maybeReturnSchedContext). */
void ntfn_maybe_return_sc(struct notification *n, struct tcb *t);

#endif /* MCSIM_OBJECT_NOTIFICATION_H */
