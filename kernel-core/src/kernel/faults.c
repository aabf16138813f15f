/*
 * Timeout faults, the only fault this kernel delivers (SEL4-MCS-REFERENCE.md
 * 6; seL4: handleTimeout, sendFaultIPC, handleFaultReply).
 *
 * NEEDSWORK: other faults (capability, VM, unknown syscall, user exception)
 * are not modelled: a failed lookup in a system call is reported as an
 * error in the caller's registers instead (see syscall.c).
 */
#include "kernel/faults.h"

#include "kernel/ktrace.h"
#include "object/endpoint.h"

/* seL4 validTimeoutHandler: the TCB's timeout slot holds an endpoint cap
 * (it was checked for Write and Grant/GrantReply when installed). */
bool fault_has_timeout_handler(const struct tcb *t)
{
    return t->slots[TCB_SLOT_TIMEOUT_EP].cap.type == CAP_ENDPOINT;
}

/*
 * t (normally the running thread, e.g. a passive server on a client's
 * context) exhausted sc: it sends the fault message on its timeout endpoint
 * as if by Call, without donation, and keeps sc (B16). The message is fixed
 * now: MR0 = sc's badge, MR1 = the ticks sc consumed since they were last
 * reported, which reading resets (seL4 reads it when the message is
 * transferred; nothing runs on the exhausted sc in between).
 */
void fault_raise_timeout(struct tcb *t, struct sched_context *sc)
{
    const struct cap *ep_cap = &t->slots[TCB_SLOT_TIMEOUT_EP].cap;
    uint64_t consumed = sc->consumed;

    KASSERT(fault_has_timeout_handler(t) && t->fault == FAULT_NONE);
    sc->consumed = 0;
    t->fault = FAULT_TIMEOUT_PENDING;
    t->fault_badge = sc->badge;
    t->fault_consumed = consumed;
    ktrace(TR_TIMEOUT_FAULT, t, ktrace_sc(sc), consumed, 0);
    ep_send(t, ep_cap->obj, ep_cap->badge, true, false, (ep_cap->rights & RIGHT_GRANT) != 0,
            (ep_cap->rights & RIGHT_GRANT_REPLY) != 0, false);
}

/*
 * The handler answered t's timeout fault: label 0 restarts t, anything
 * else leaves it inactive (seL4 handleFaultReply, seL4_Fault_Timeout).
 * NEEDSWORK: seL4 also copies the reply's registers (seL4_TimeoutReply_*)
 * into t's context; the register-only ABI has 8 MRs and no layout for
 * them, so a handler that wants t to resume elsewhere uses
 * TCB_WriteRegisters.
 */
bool fault_handle_reply(struct tcb *t, struct tcb *replier)
{
    KASSERT(t->fault == FAULT_TIMEOUT_PENDING);
    return msginfo_label(replier->ctx.x[REG_INFO]) == 0;
}
