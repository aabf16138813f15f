/* Endpoints: send, receive, cancel. seL4: src/object/endpoint.c. */
#ifndef MCSIM_OBJECT_ENDPOINT_H
#define MCSIM_OBJECT_ENDPOINT_H

#include "kernel/structures.h"

/* Send from t (seL4 sendIPC). */
void ep_send(struct tcb *t, struct endpoint *ep, uint64_t badge, bool blocking, bool is_call,
             bool grant, bool grant_reply, bool can_donate);

/* Receive into t with optional reply object (seL4 receiveIPC); `ep_cap`
 * is the cap used (its rights and badge matter). */
void ep_receive(struct tcb *t, const struct cap *ep_cap, struct reply *reply, bool blocking);

/* Take t out of whatever IPC it is blocked in (seL4 cancelIPC). */
void ep_cancel_ipc(struct tcb *t);

/* Cancel every thread queued on ep (endpoint deleted). */
void ep_cancel_all(struct endpoint *ep);

/* t's priority changed while queued on an endpoint: re-sort it. */
void ep_reorder(struct tcb *t);

/* Priority-ordered insertion (MCS) or FIFO (classic) into an IPC queue. */
void ipc_queue_insert(struct tcb **head, struct tcb **tail, struct tcb *t);
void ipc_queue_remove(struct tcb **head, struct tcb **tail, struct tcb *t);

#endif /* MCSIM_OBJECT_ENDPOINT_H */
