/* Reply objects, call chains and donation. seL4: src/object/reply.c and
 * doReplyTransfer. */
#ifndef MCSIM_OBJECT_REPLY_H
#define MCSIM_OBJECT_REPLY_H

#include "kernel/structures.h"

/* caller called callee, which received with `reply`: block the caller on
 * the reply and donate its context if allowed (seL4 reply_push). */
void reply_push(struct tcb *caller, struct tcb *callee, struct reply *reply, bool can_donate);

/* Take the reply out of its call chain, returning the context to the
 * caller if the reply was the chain head (seL4 reply_pop). */
void reply_pop(struct reply *reply, struct tcb *t);

/* Take the reply out of the chain without returning the context (seL4
 * reply_remove); used when a caller's wait is cancelled. */
void reply_remove(struct reply *reply, struct tcb *t);

/* Unlink a caller's reply object (cancelIPC of a BlockedOnReply thread). */
void reply_remove_tcb(struct tcb *t);

/* Reply from `sender` through `reply` (seL4 doReplyTransfer). */
void reply_transfer(struct tcb *sender, struct reply *reply, bool grant);

/* Reply object deleted. */
void reply_finalise(struct reply *reply);

#endif /* MCSIM_OBJECT_REPLY_H */
