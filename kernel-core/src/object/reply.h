/* Reply objects, call chains and donation. seL4: src/object/reply.c and
 * doReplyTransfer. */
#ifndef MCSIM_OBJECT_REPLY_H
#define MCSIM_OBJECT_REPLY_H

#include "kernel/structures.h"

/* caller called callee, which received with `reply`: block the caller on
 * the reply and donate its context if allowed (seL4 reply_push). */
void reply_push(struct tcb *caller, struct tcb *callee, struct reply *reply, bool can_donate);

/* Take the chain-head reply, on which t waits, out of its call chain,
 * returning the context to t if t has none (seL4 reply_pop). t is left
 * Inactive. */
void reply_pop(struct reply *reply, struct tcb *t);

/* Take the reply, on which t waits, out of its call chain (seL4
 * reply_remove): the chain head is popped (the context goes back to t if
 * t has none, as reply_pop); a reply further down is cut out, breaking the
 * chain on both sides. t is left Inactive. Used when the reply object is
 * deleted and by reply_transfer. */
void reply_remove(struct reply *reply, struct tcb *t);

/* Cancel a BlockedOnReply t's wait (cancelIPC, or a Recv into its reply
 * object): unlink it from the chain WITHOUT returning the context (a head
 * just clears the context's call stack). t is left Inactive. */
void reply_remove_tcb(struct tcb *t);

/* Break the link between a reply object and the thread recorded in it
 * (a receiver that waited with it); t is left Inactive (seL4
 * reply_unlink). */
void reply_unlink(struct reply *reply, struct tcb *t);

/* Reply from `sender` through `reply` (seL4 doReplyTransfer): a no-op
 * unless a caller waits on it; otherwise the caller gets the message (or
 * its fault is answered) and, if it can run on its context, is scheduled. */
void reply_transfer(struct tcb *sender, struct reply *reply, bool grant);

/* Reply object deleted: a caller waiting on it is removed from its chain
 * (reply_remove), a receiver waiting with it has its receive cancelled. */
void reply_finalise(struct reply *reply);

#endif /* MCSIM_OBJECT_REPLY_H */
