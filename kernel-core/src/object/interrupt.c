/*
 * IRQControl, IRQHandler and interrupt delivery (SEL4-MCS-REFERENCE.md 7;
 * seL4: decodeIRQControlInvocation, decodeIRQHandlerInvocation,
 * handleInterrupt). A user line is masked when it is taken and stays
 * masked until IRQHandler_Ack (B26); the platform keeps at most one
 * pending interrupt per masked line (hal.h).
 */
#include "object/interrupt.h"

#include "hal.h"

#include "kernel/cspace.h"
#include "kernel/ktrace.h"
#include "kernel/sched.h"
#include "object/cnode.h"
#include "object/notification.h"

/* --------------------------------------------------------------- control */

/* seL4 Arch_checkIRQ, with the kernel timer's line reserved: the brief of
 * this kernel makes it a RangeError (seL4 reports RevokeFirst, the timer
 * line being in state IRQTimer). */
static enum kerr irq_check_line(uint64_t line)
{
    if (line >= ks.cfg.num_irqs || line >= MAX_IRQS || line == ks.cfg.timer_irq) {
        inv_error_detail(2, 0, ks.cfg.num_irqs - 1);
        return ERR_RANGE;
    }
    return ERR_NONE;
}

static void irq_control_get(struct invocation *inv, uint32_t line, struct cte *dest)
{
    struct cap cap = {0};

    cap.type = CAP_IRQ_HANDLER;
    cap.irq = line;
    ks.irqs[line].state = IRQ_SIGNAL;
    ks.irqs[line].masked = 0;
    hal_irq_unmask(line);
    cte_insert(cap, inv->slot, dest);
}

/* IRQControl_Get(irq, index, depth; extra cap 0 = destination CNode):
 * checks in seL4's order, then an IRQHandler cap is inserted as a
 * revocable child of IRQControl and the line is unmasked. */
enum kerr irq_control_decode(struct invocation *inv)
{
    struct cte *dest;
    uint64_t line;
    enum kerr e;

    if (inv->label != INV_IRQ_CONTROL_GET)
        return ERR_ILLEGAL_OPERATION;
    if (inv->length < 3 || inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    line = inv_mr(inv, 0);
    e = irq_check_line(line);
    if (e != ERR_NONE)
        return e;
    if (ks.irqs[line].state != IRQ_INACTIVE)
        return ERR_REVOKE_FIRST;
    e = cspace_lookup_from(&inv->extra[0]->cap, inv_mr(inv, 1), (unsigned)inv_mr(inv, 2), &dest);
    if (e != ERR_NONE)
        return e;
    if (dest->cap.type != CAP_NULL)
        return ERR_DELETE_FIRST;
    irq_control_get(inv, (uint32_t)line, dest);
    return ERR_NONE;
}

/* --------------------------------------------------------------- handler */

static void irq_ack(uint32_t line)
{
    ks.irqs[line].masked = 0;
    hal_irq_unmask(line);
}

/* The handler's slot holds a copy of the notification cap, a child of the
 * one given, replacing any earlier one (seL4 invokeIRQHandler_SetIRQHandler:
 * cteDeleteOne, then cteInsert). */
static void irq_set_notification(uint32_t line, struct cte *ntfn_slot)
{
    struct cte *slot = &ks.irqs[line].handler;

    cte_delete(slot);
    cte_insert(ntfn_slot->cap, ntfn_slot, slot);
}

static enum kerr irq_decode_set_notification(struct invocation *inv, uint32_t line)
{
    const struct cap *cap;

    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    cap = &inv->extra[0]->cap;
    if (cap->type != CAP_NOTIFICATION || !(cap->rights & RIGHT_WRITE)) {
        inv_error_detail(1, 0, 0);
        return ERR_INVALID_CAPABILITY;
    }
    irq_set_notification(line, inv->extra[0]);
    return ERR_NONE;
}

enum kerr irq_handler_decode(struct invocation *inv)
{
    uint32_t line = inv->slot->cap.irq;

    switch (inv->label) {
    case INV_IRQ_ACK:
        irq_ack(line);
        return ERR_NONE;
    case INV_IRQ_SET_NOTIFICATION:
        return irq_decode_set_notification(inv, line);
    case INV_IRQ_CLEAR:
        cte_delete(&ks.irqs[line].handler);
        return ERR_NONE;
    default:
        return ERR_ILLEGAL_OPERATION;
    }
}

/* -------------------------------------------------------------- delivery */

/* A user line: signal the handler's notification with its cap's badge (an
 * IRQ without one is dropped) and mask the line until Ack. */
static void irq_deliver(uint32_t line)
{
    struct irq_slot *s = &ks.irqs[line];
    const struct cap *cap = &s->handler.cap;
    struct tcb *woken = NULL;

    hal_account(COST_IRQ);
    if (s->state == IRQ_SIGNAL && cap->type == CAP_NOTIFICATION && (cap->rights & RIGHT_WRITE))
        woken = ntfn_signal(cap->obj, cap->badge);
    /* seL4 masks a line in state Inactive too, to silence broken hardware. */
    s->masked = 1;
    hal_irq_mask(line);
    ktrace(TR_IRQ, ks.cur_thread, line, ktrace_id(woken), 0);
}

/*
 * seL4 handleInterrupt. The timer's line only asks for the deadline to be
 * reprogrammed (MCS: the budget check of the entry already charged the
 * running context) or runs the periodic tick (classic).
 */
void irq_handle(uint32_t line)
{
    if (line == ks.cfg.timer_irq) {
        if (ks.cfg.scheduler == SCHED_CLASSIC)
            sched_timer_tick();
        else
            ks.reprogram = true;
        return;
    }
    if (line >= ks.cfg.num_irqs || line >= MAX_IRQS) {
        hal_irq_mask(line); /* not a line of this platform: silence it */
        return;
    }
    irq_deliver(line);
}

/* The last IRQHandler cap went: forget the notification, mask the line
 * (seL4 deletingIRQHandler, deletedIRQHandler). */
void irq_finalise(uint32_t irq)
{
    cte_delete(&ks.irqs[irq].handler);
    ks.irqs[irq].state = IRQ_INACTIVE;
    ks.irqs[irq].masked = 1;
    hal_irq_mask(irq);
}
