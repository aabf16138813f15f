/* SchedContext invocations and binding. seL4: src/object/schedcontext.c. */
#ifndef MCSIM_OBJECT_SCHEDCONTEXT_H
#define MCSIM_OBJECT_SCHEDCONTEXT_H

#include "kernel/invocation.h"

enum kerr sc_decode(struct invocation *inv);

/* Bind sc to t (both unbound) and make t runnable if it can be. */
void sc_bind_tcb(struct sched_context *sc, struct tcb *t);
/* Unbind sc from its thread (off every scheduler queue). */
void sc_unbind_tcb(struct sched_context *sc);

/* Move sc to `to` (donation along a call, or return along a reply). */
void sc_donate(struct sched_context *sc, struct tcb *to);

/* Bind/unbind a notification. */
void sc_bind_ntfn(struct sched_context *sc, struct notification *n);
void sc_unbind_ntfn(struct sched_context *sc);

/* If sc's thread is runnable but sc's head refill is not ready or not
 * sufficient, postpone it (seL4 schedContext_resume). */
void sc_resume(struct sched_context *sc);

/* Sporadic contexts: the unblock check when the thread goes from blocked
 * to runnable and sc is not the current context (docs/kernel-semantics.md 3). */
void sc_unblock_if_sporadic(struct sched_context *sc);

/* Complete a pending YieldTo to sc. */
void sc_complete_yield_to(struct tcb *yielder);

/* Forget a pending YieldTo of `yielder` without replying to it and
 * without resetting the context's consumed time (seL4
 * schedContext_cancelYieldTo, used by suspend). */
void sc_cancel_yield_to(struct tcb *yielder);

/* Finalise a context whose last cap is deleted. */
void sc_finalise(struct sched_context *sc);

/* SchedControl_ConfigureFlags. */
enum kerr schedcontrol_decode(struct invocation *inv);

#endif /* MCSIM_OBJECT_SCHEDCONTEXT_H */
