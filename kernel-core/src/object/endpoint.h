/* Endpoints: send, receive, cancel. seL4: src/object/endpoint.c. */
#ifndef MCSIM_OBJECT_ENDPOINT_H
#define MCSIM_OBJECT_ENDPOINT_H

#include "kernel/structures.h"

/* Send from t (seL4 sendIPC). Classic ignores can_donate. The caller has
 * checked the cap's Write right; badge, grant and grant_reply come from
 * the cap. */
void ep_send(struct tcb *t, struct endpoint *ep, uint64_t badge, bool blocking, bool is_call,
             bool grant, bool grant_reply, bool can_donate);

/* Receive into t with optional reply object (seL4 receiveIPC); `ep_cap`
 * is the cap used (its rights and badge matter). */
void ep_receive(struct tcb *t, const struct cap *ep_cap, struct reply *reply, bool blocking);

/* Copy sender's message (or its pending fault's message) into receiver's
 * registers with `badge` in x0, and charge one IPC (seL4 doIPCTransfer).
 * Used by endpoints and by replies (badge 0). */
void ep_transfer(struct tcb *sender, struct tcb *receiver, uint64_t badge);

/* Take t out of whatever IPC it is blocked in (seL4 cancelIPC). Clears a
 * pending fault; t is left Inactive. */
void ep_cancel_ipc(struct tcb *t);

/* Cancel every thread queued on ep (endpoint deleted): Restart, or
 * Inactive if it was delivering a fault (seL4 cancelAllIPC). */
void ep_cancel_all(struct endpoint *ep);

/* t's priority changed while queued on an endpoint: re-sort it. */
void ep_reorder(struct tcb *t);

/* Priority-ordered insertion (MCS) or FIFO (classic) into an IPC queue. */
void ipc_queue_insert(struct tcb **head, struct tcb **tail, struct tcb *t);
void ipc_queue_remove(struct tcb **head, struct tcb **tail, struct tcb *t);

#endif /* MCSIM_OBJECT_ENDPOINT_H */
