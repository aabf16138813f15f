/*
 * TCB invocations and thread life cycle (seL4: src/object/tcb.c).
 *
 * Message layouts (MRs, extra caps):
 *   Configure          MR0 CSpace root guard data (0: keep); cap0 = CSpace root
 *   SetPriority        MR0 prio; cap0 = authority TCB
 *   SetMCPriority      MR0 mcp;  cap0 = authority TCB
 *   SetSchedParams     MR0 mcp, MR1 prio; cap0 = authority TCB,
 *                      cap1 = context (a null cap unbinds), cap2 = timeout
 *                      endpoint (a null cap clears it)
 *   SetTimeoutEndpoint cap0 = endpoint (or a null cap to clear)
 *   Suspend, Resume, UnbindNotification: nothing
 *   ReadRegisters      reply: MR0 pc, MR1.. x0..
 *   WriteRegisters     MR0 flags (bit 0: resume), MR1 pc, MR2.. x0..
 *   BindNotification   cap0 = notification (Read)
 *   SetTraceId         MR0 the id traces name the thread by (seL4's
 *                      debug name, seL4_DebugNameThread)
 * Restart resumes a thread at its saved pc; kernel paths that must make a
 * thread repeat its system call rewind the pc themselves
 * (hal_context_restart).
 */
#include "object/tcb.h"
#include "hal.h"
#include "kernel/ktrace.h"
#include "kernel/refill.h"
#include "kernel/sched.h"
#include "object/cnode.h"
#include "object/endpoint.h"
#include "object/notification.h"
#include "object/schedcontext.h"

static bool tcb_is_blocked(const struct tcb *t)
{
    return t->state == TS_BLOCKED_ON_RECEIVE || t->state == TS_BLOCKED_ON_SEND ||
           t->state == TS_BLOCKED_ON_REPLY || t->state == TS_BLOCKED_ON_NOTIFICATION;
}

static bool tcb_is_stopped(const struct tcb *t)
{
    return t->state == TS_INACTIVE || tcb_is_blocked(t);
}

/*
 * Cancel t's IPC, leaving it Inactive. A thread blocked in a system call
 * makes the call again when it is restarted (SEL4-MCS-REFERENCE.md 2.5:
 * seL4 keeps a blocked thread's restart pc at its call; only a Running
 * thread's is moved past it, updateRestartPC). Restart here resumes at
 * the saved pc, which is after the call, so it is rewound now. A thread
 * blocked delivering a timeout fault was not in a call: its pc is where
 * the fault found it.
 */
static void tcb_cancel_call(struct tcb *t)
{
    if (tcb_is_blocked(t) && t->fault == FAULT_NONE)
        hal_context_restart(&t->ctx);
    ep_cancel_ipc(t);
}

/* seL4 suspend: a pending YieldTo is forgotten, not answered
 * (schedContext_cancelYieldTo). */
void tcb_suspend(struct tcb *t)
{
    tcb_cancel_call(t);
    sched_set_state(t, TS_INACTIVE);
    sched_dequeue(t);
    sched_release_remove(t);
    sc_cancel_yield_to(t);
    ktrace(TR_SUSPEND, t, 0, 0, 0);
}

/* seL4 restart. */
void tcb_resume(struct tcb *t)
{
    if (!tcb_is_stopped(t))
        return;
    tcb_cancel_call(t);
    t->fault = FAULT_NONE;
    if (t->timeslice == 0)
        t->timeslice = ks.cfg.timeslice;
    sched_set_state(t, TS_RESTART);
    ktrace(TR_RESUME, t, 0, 0, 0);
    if (ks.cfg.scheduler == SCHED_MCS) {
        sc_unblock_if_sporadic(t->sc);
        sc_resume(t->sc);
    }
    if (sched_is_schedulable(t))
        sched_possible_switch_to(t);
}

void tcb_finalise(struct tcb *t)
{
    if (t->bound_ntfn)
        ntfn_unbind_tcb(t);
    if (t->sc)
        sc_unbind_tcb(t->sc);
    tcb_suspend(t);
    for (unsigned i = 0; i < TCB_SLOT_COUNT; i++) {
        if (t->slots[i].cap.type != CAP_NULL)
            cte_delete(&t->slots[i]);
    }
}

/* Replace the cap in one of the TCB's own slots by a copy of `src`'s. */
static void tcb_set_slot(struct tcb *t, enum tcb_slot slot, struct cte *src)
{
    struct cap copy;

    if (t->slots[slot].cap.type != CAP_NULL)
        cte_delete(&t->slots[slot]);
    if (src == NULL || cap_derive(src, &copy) != ERR_NONE || copy.type == CAP_NULL)
        return;
    cte_insert(copy, src, &t->slots[slot]);
}

static enum kerr auth_tcb(struct invocation *inv, struct tcb **auth)
{
    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    if (inv->extra[0]->cap.type != CAP_TCB) {
        inv_error_detail(1, 1, 0);
        return ERR_INVALID_CAPABILITY;
    }
    *auth = inv->extra[0]->cap.obj;
    return ERR_NONE;
}

/* seL4 checkPrio: a priority set through an authority TCB may not exceed
 * that TCB's MCP. */
static enum kerr check_prio(uint64_t prio, const struct tcb *auth)
{
    if (prio > auth->mcp || prio >= ks.cfg.num_priorities) {
        inv_error_detail(2, 0, auth->mcp);
        return ERR_RANGE;
    }
    return ERR_NONE;
}

static enum kerr decode_set_priority(struct invocation *inv, struct tcb *t, bool mcp)
{
    struct tcb *auth;
    enum kerr err;

    if (inv->length < 1)
        return ERR_TRUNCATED_MESSAGE;
    if ((err = auth_tcb(inv, &auth)) != ERR_NONE)
        return err;
    if ((err = check_prio(inv_mr(inv, 0), auth)) != ERR_NONE)
        return err;
    if (mcp)
        t->mcp = (uint8_t)inv_mr(inv, 0);
    else
        sched_set_priority(t, (uint8_t)inv_mr(inv, 0));
    return ERR_NONE;
}

/* A timeout or fault endpoint must let the kernel send (Write) and make
 * a reply (Grant or GrantReply); seL4 validFaultHandler. */
static bool valid_fault_handler(const struct cap *c)
{
    if (c->type == CAP_NULL)
        return true;
    return c->type == CAP_ENDPOINT && (c->rights & RIGHT_WRITE) &&
           (c->rights & (RIGHT_GRANT | RIGHT_GRANT_REPLY));
}

static enum kerr check_sc_for(const struct tcb *t, const struct cap *c)
{
    if (c->type == CAP_NULL)
        return t == ks.cur_thread && t->sc ? ERR_ILLEGAL_OPERATION : ERR_NONE;
    if (c->type != CAP_SCHED_CONTEXT) {
        inv_error_detail(1, 2, 0);
        return ERR_INVALID_CAPABILITY;
    }
    struct sched_context *sc = c->obj;
    if ((t->sc && t->sc != sc) || (sc->tcb && sc->tcb != t))
        return ERR_ILLEGAL_OPERATION;
    if (t->state >= TS_BLOCKED_ON_RECEIVE && t->state <= TS_BLOCKED_ON_NOTIFICATION &&
        !(sc_is_active(sc) && refill_ready(sc, ks.cur_time)))
        return ERR_ILLEGAL_OPERATION;
    return ERR_NONE;
}

static enum kerr decode_set_sched_params(struct invocation *inv, struct tcb *t)
{
    struct tcb *auth;
    enum kerr err;

    if (inv->length < 2 || inv->n_extra < 3)
        return ERR_TRUNCATED_MESSAGE;
    if ((err = auth_tcb(inv, &auth)) != ERR_NONE)
        return err;
    if ((err = check_prio(inv_mr(inv, 0), auth)) != ERR_NONE ||
        (err = check_prio(inv_mr(inv, 1), auth)) != ERR_NONE)
        return err;
    if ((err = check_sc_for(t, &inv->extra[1]->cap)) != ERR_NONE)
        return err;
    if (!valid_fault_handler(&inv->extra[2]->cap)) {
        inv_error_detail(1, 3, 0);
        return ERR_INVALID_CAPABILITY;
    }
    tcb_set_slot(t, TCB_SLOT_TIMEOUT_EP, inv->extra[2]);
    t->mcp = (uint8_t)inv_mr(inv, 0);
    sched_set_priority(t, (uint8_t)inv_mr(inv, 1));
    if (inv->extra[1]->cap.type == CAP_NULL && t->sc)
        sc_unbind_tcb(t->sc);
    else if (inv->extra[1]->cap.type == CAP_SCHED_CONTEXT && t->sc == NULL)
        sc_bind_tcb(inv->extra[1]->cap.obj, t);
    return ERR_NONE;
}

/* The CSpace root's guard comes with the call (seL4's cspace_root_data:
 * guard size in bits 0..5, guard above), so that a thread's CPtrs can be
 * plain slot numbers. */
static enum kerr decode_configure(struct invocation *inv, struct tcb *t)
{
    struct cap root;
    uint64_t data = inv_mr(inv, 0);

    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    root = inv->extra[0]->cap;
    if (root.type != CAP_CNODE) {
        inv_error_detail(1, 1, 0);
        return ERR_INVALID_CAPABILITY;
    }
    if (data != 0) {
        root.guard_bits = (uint8_t)(data & 63u);
        root.guard = data >> 6;
        if ((unsigned)root.guard_bits + root.size_bits > 64)
            return ERR_ILLEGAL_OPERATION;
    }
    if (t->slots[TCB_SLOT_CSPACE].cap.type != CAP_NULL)
        cte_delete(&t->slots[TCB_SLOT_CSPACE]);
    cte_insert(root, inv->extra[0], &t->slots[TCB_SLOT_CSPACE]);
    return ERR_NONE;
}

static enum kerr decode_set_timeout_ep(struct invocation *inv, struct tcb *t)
{
    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    if (!valid_fault_handler(&inv->extra[0]->cap)) {
        inv_error_detail(1, 1, 0);
        return ERR_INVALID_CAPABILITY;
    }
    tcb_set_slot(t, TCB_SLOT_TIMEOUT_EP, inv->extra[0]);
    return ERR_NONE;
}

static enum kerr decode_read_registers(struct invocation *inv, struct tcb *t)
{
    if (t == inv->caller)
        return ERR_ILLEGAL_OPERATION;
    inv_reply_mr(inv, 0, t->ctx.pc);
    for (unsigned i = 1; i < MSG_MAX_LENGTH; i++)
        inv_reply_mr(inv, i, t->ctx.x[i - 1]);
    inv_reply_length(inv, MSG_MAX_LENGTH);
    return ERR_NONE;
}

static enum kerr decode_write_registers(struct invocation *inv, struct tcb *t)
{
    if (inv->length < 2)
        return ERR_TRUNCATED_MESSAGE;
    if (t == inv->caller)
        return ERR_ILLEGAL_OPERATION;
    /* Stop a blocked thread first: the pc written replaces its call's. */
    if ((inv_mr(inv, 0) & 1u) && tcb_is_blocked(t))
        tcb_cancel_call(t);
    t->ctx.pc = inv_mr(inv, 1);
    for (unsigned i = 2; i < inv->length; i++)
        t->ctx.x[i - 2] = inv_mr(inv, i);
    if (inv_mr(inv, 0) & 1u)
        tcb_resume(t);
    return ERR_NONE;
}

static enum kerr decode_bind_notification(struct invocation *inv, struct tcb *t)
{
    struct notification *n;

    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    if (t->bound_ntfn)
        return ERR_ILLEGAL_OPERATION;
    /* seL4 decodeBindNotification: a cap that is not a notification, or
     * one without Read, is an IllegalOperation (not InvalidCapability). */
    if (inv->extra[0]->cap.type != CAP_NOTIFICATION || !(inv->extra[0]->cap.rights & RIGHT_READ))
        return ERR_ILLEGAL_OPERATION;
    n = inv->extra[0]->cap.obj;
    if (n->bound_tcb || n->state == NTFN_WAITING)
        return ERR_ILLEGAL_OPERATION;
    ntfn_bind_tcb(n, t);
    return ERR_NONE;
}

enum kerr tcb_decode(struct invocation *inv)
{
    struct tcb *t = inv->slot->cap.obj;

    switch (inv->label) {
    case INV_TCB_CONFIGURE:
        return decode_configure(inv, t);
    case INV_TCB_SET_PRIORITY:
        return decode_set_priority(inv, t, false);
    case INV_TCB_SET_MC_PRIORITY:
        return decode_set_priority(inv, t, true);
    case INV_TCB_SET_SCHED_PARAMS:
        return decode_set_sched_params(inv, t);
    case INV_TCB_SET_TIMEOUT_ENDPOINT:
        return decode_set_timeout_ep(inv, t);
    case INV_TCB_SUSPEND:
        tcb_suspend(t);
        return ERR_NONE;
    case INV_TCB_RESUME:
        tcb_resume(t);
        return ERR_NONE;
    case INV_TCB_READ_REGISTERS:
        return decode_read_registers(inv, t);
    case INV_TCB_WRITE_REGISTERS:
        return decode_write_registers(inv, t);
    case INV_TCB_BIND_NOTIFICATION:
        return decode_bind_notification(inv, t);
    case INV_TCB_UNBIND_NOTIFICATION:
        if (!t->bound_ntfn)
            return ERR_ILLEGAL_OPERATION;
        ntfn_unbind_tcb(t);
        return ERR_NONE;
    case INV_TCB_SET_TRACE_ID:
        if (inv->length < 1)
            return ERR_TRUNCATED_MESSAGE;
        t->trace_id = (uint32_t)inv_mr(inv, 0);
        return ERR_NONE;
    default:
        return ERR_ILLEGAL_OPERATION;
    }
}
