/*
 * Scheduling contexts: binding to threads and notifications, donation,
 * the SchedContext invocations and SchedControl_ConfigureFlags.
 * seL4: src/object/schedcontext.c, src/object/schedcontrol.c.
 */
#include "object/schedcontext.h"
#include "kernel/ktrace.h"
#include "kernel/refill.h"
#include "kernel/sched.h"
#include "object/reply.h"

/* The largest budget or period accepted, in ticks (seL4: MAX_PERIOD_US;
 * here a bound that keeps every refill time far from overflow). */
#define MAX_PERIOD_TICKS ((ticks_t)1 << 60)

/* ------------------------------------------------------------- binding */

/* seL4 schedContext_resume: a runnable thread whose context is not ready
 * or not sufficient waits in the release queue. */
void sc_resume(struct sched_context *sc)
{
    if (sc == NULL || sc->tcb == NULL || !sched_is_schedulable(sc->tcb))
        return;
    if (!(refill_ready(sc, ks.cur_time) && refill_sufficient(sc, 0)))
        sched_postpone(sc->tcb);
}

/* The trace record marks where the sporadic guarantee starts again: from
 * now on every refill is dated now or later (docs/kernel-semantics.md). */
void sc_unblock_if_sporadic(struct sched_context *sc)
{
    if (sc_is_active(sc) && sc->sporadic && sc != ks.cur_sc &&
        refill_unblock_check(sc, ks.cur_time)) {
        ks.reprogram = true;
        ktrace(TR_SPORADIC_UNBLOCK, sc->tcb, ktrace_sc(sc), refill_head(sc)->amount, 0);
    }
}

/* seL4 schedContext_bindTCB. */
void sc_bind_tcb(struct sched_context *sc, struct tcb *t)
{
    sc->tcb = t;
    t->sc = sc;
    if (ks.cfg.scheduler != SCHED_MCS)
        return;
    sc_unblock_if_sporadic(sc);
    sc_resume(sc);
    if (sched_is_schedulable(t)) {
        sched_enqueue(t);
        sched_reschedule_required();
    }
}

/* seL4 schedContext_unbindTCB. */
void sc_unbind_tcb(struct sched_context *sc)
{
    struct tcb *t = sc->tcb;

    if (t == NULL)
        return;
    if (t == ks.cur_thread)
        sched_reschedule_required();
    sched_dequeue(t);
    sched_release_remove(t);
    t->sc = NULL;
    sc->tcb = NULL;
}

/* seL4 schedContext_donate: the context moves with a call (or back with a
 * reply); its previous holder can no longer run on it. */
void sc_donate(struct sched_context *sc, struct tcb *to)
{
    struct tcb *from = sc->tcb;

    if (from != NULL) {
        sched_dequeue(from);
        sched_release_remove(from);
        from->sc = NULL;
        if (from == ks.cur_thread || (ks.action == ACTION_SWITCH_TO && ks.candidate == from))
            sched_reschedule_required();
    }
    sc->tcb = to;
    to->sc = sc;
}

void sc_bind_ntfn(struct sched_context *sc, struct notification *n)
{
    sc->ntfn = n;
    n->sc = sc;
}

void sc_unbind_ntfn(struct sched_context *sc)
{
    if (sc->ntfn == NULL)
        return;
    sc->ntfn->sc = NULL;
    sc->ntfn = NULL;
}

/* Break the call chain at its head: a later reply no longer returns the
 * context (seL4 schedContext_unbindReply). */
static void sc_unbind_reply(struct sched_context *sc)
{
    if (sc->reply == NULL)
        return;
    sc->reply->head_sc = NULL;
    sc->reply = NULL;
}

/* The thread that did YieldTo to a context gets, when it next runs, the
 * context's consumed time as its reply (seL4 schedContext_completeYieldTo). */
void sc_complete_yield_to(struct tcb *yielder)
{
    struct sched_context *sc = yielder->yield_to;

    if (sc == NULL)
        return;
    yielder->ctx.x[REG_INFO] = msginfo_make(ERR_NONE, 0, 1);
    yielder->ctx.x[REG_MR0] = sc->consumed;
    sc->consumed = 0;
    sc->yield_from = NULL;
    yielder->yield_to = NULL;
}

void sc_cancel_yield_to(struct tcb *yielder)
{
    if (yielder->yield_to == NULL)
        return;
    yielder->yield_to->yield_from = NULL;
    yielder->yield_to = NULL;
}

void sc_finalise(struct sched_context *sc)
{
    sc_unbind_tcb(sc);
    sc_unbind_ntfn(sc);
    sc_unbind_reply(sc);
    if (sc->yield_from)
        sc_complete_yield_to(sc->yield_from);
    if (sc == ks.cur_sc) {
        sched_commit_time();
        ks.cur_sc = NULL;
    }
    sc->refill_max = 0;
    sc->count = 0;
    sc->sporadic = 0;
}

/* --------------------------------------------------- SchedContext_* */

static bool tcb_is_blocked(const struct tcb *t)
{
    return t->state == TS_BLOCKED_ON_RECEIVE || t->state == TS_BLOCKED_ON_SEND ||
           t->state == TS_BLOCKED_ON_REPLY || t->state == TS_BLOCKED_ON_NOTIFICATION;
}

static bool sc_released(const struct sched_context *sc)
{
    return sc_is_active(sc) && refill_ready(sc, ks.cur_time);
}

static enum kerr decode_bind(struct invocation *inv, struct sched_context *sc)
{
    struct cap *obj;

    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    obj = &inv->extra[0]->cap;
    if (obj->type == CAP_TCB) {
        struct tcb *t = obj->obj;
        if (sc->tcb != NULL || t->sc != NULL)
            return ERR_ILLEGAL_OPERATION;
        if (tcb_is_blocked(t) && !sc_released(sc))
            return ERR_ILLEGAL_OPERATION;
        sc_bind_tcb(sc, t);
        return ERR_NONE;
    }
    if (obj->type == CAP_NOTIFICATION) {
        struct notification *n = obj->obj;
        if (sc->ntfn != NULL || n->sc != NULL)
            return ERR_ILLEGAL_OPERATION;
        sc_bind_ntfn(sc, n);
        return ERR_NONE;
    }
    inv_error_detail(1, 1, 0);
    return ERR_INVALID_CAPABILITY;
}

static enum kerr decode_unbind_object(struct invocation *inv, struct sched_context *sc)
{
    struct cap *obj;

    if (inv->n_extra < 1)
        return ERR_TRUNCATED_MESSAGE;
    obj = &inv->extra[0]->cap;
    if (obj->type == CAP_TCB) {
        if (sc->tcb != obj->obj || sc->tcb == ks.cur_thread)
            return ERR_ILLEGAL_OPERATION;
        sc_unbind_tcb(sc);
        return ERR_NONE;
    }
    if (obj->type == CAP_NOTIFICATION) {
        if (sc->ntfn != obj->obj)
            return ERR_ILLEGAL_OPERATION;
        sc_unbind_ntfn(sc);
        return ERR_NONE;
    }
    inv_error_detail(1, 1, 0);
    return ERR_INVALID_CAPABILITY;
}

static enum kerr decode_unbind(struct sched_context *sc)
{
    if (sc->tcb != NULL && sc->tcb == ks.cur_thread)
        return ERR_ILLEGAL_OPERATION;
    sc_unbind_tcb(sc);
    sc_unbind_ntfn(sc);
    sc_unbind_reply(sc);
    return ERR_NONE;
}

/* seL4 invokeSchedContext_YieldTo (SEL4-MCS-REFERENCE 3.7, B28). */
static enum kerr decode_yield_to(struct invocation *inv, struct sched_context *sc)
{
    struct tcb *caller = inv->caller;
    struct tcb *t = sc->tcb;

    if (t == NULL || t == caller || t->prio > caller->mcp)
        return ERR_ILLEGAL_OPERATION;
    if (sc->yield_from != NULL)
        sc_complete_yield_to(sc->yield_from);
    sc_resume(sc);
    if (sched_is_schedulable(t) && t->prio >= caller->prio) {
        caller->yield_to = sc;
        sc->yield_from = caller;
        sched_enqueue(caller);
        sched_dequeue(t);
        sched_enqueue(t);
        sched_reschedule_required();
        return ERR_NONE;
    }
    if (sched_is_schedulable(t)) {
        sched_dequeue(t);
        sched_enqueue(t);
    }
    inv_reply_mr(inv, 0, sc->consumed);
    inv_reply_length(inv, 1);
    sc->consumed = 0;
    return ERR_NONE;
}

enum kerr sc_decode(struct invocation *inv)
{
    struct sched_context *sc = inv->slot->cap.obj;

    switch (inv->label) {
    case INV_SC_BIND:
        return decode_bind(inv, sc);
    case INV_SC_UNBIND:
        return decode_unbind(sc);
    case INV_SC_UNBIND_OBJECT:
        return decode_unbind_object(inv, sc);
    case INV_SC_CONSUMED:
        inv_reply_mr(inv, 0, sc->consumed);
        inv_reply_length(inv, 1);
        sc->consumed = 0;
        return ERR_NONE;
    case INV_SC_YIELD_TO:
        return decode_yield_to(inv, sc);
    default:
        return ERR_ILLEGAL_OPERATION;
    }
}

/* ------------------------------------------ SchedControl_ConfigureFlags */

struct sc_params {
    ticks_t budget, period;
    uint64_t extra_refills, badge, flags;
};

/* The checks of SEL4-MCS-REFERENCE 3.2, in its order. */
static enum kerr check_params(struct invocation *inv, struct sc_params *p)
{
    ticks_t m = sched_min_budget();

    if (inv->n_extra < 1 || inv->length < 5)
        return ERR_TRUNCATED_MESSAGE;
    p->budget = inv_mr(inv, 0);
    p->period = inv_mr(inv, 1);
    p->extra_refills = inv_mr(inv, 2);
    p->badge = inv_mr(inv, 3);
    p->flags = inv_mr(inv, 4);
    if (p->budget > MAX_PERIOD_TICKS || p->period > MAX_PERIOD_TICKS ||
        p->budget < m || p->period < m) {
        inv_error_detail(2, m, MAX_PERIOD_TICKS);
        return ERR_RANGE;
    }
    if (p->budget > p->period) {
        inv_error_detail(2, m, p->period);
        return ERR_RANGE;
    }
    if (inv->extra[0]->cap.type != CAP_SCHED_CONTEXT) {
        inv_error_detail(1, 1, 0);
        return ERR_INVALID_CAPABILITY;
    }
    uint64_t max = MCSIM_SC_MAX_REFILLS(inv->extra[0]->cap.size_bits);
    if (p->extra_refills + MCSIM_MIN_REFILLS > max) {
        inv_error_detail(2, 0, max - MCSIM_MIN_REFILLS);
        return ERR_RANGE;
    }
    return ERR_NONE;
}

static void configure(struct sched_context *sc, const struct sc_params *p)
{
    struct tcb *t = sc->tcb;
    uint16_t max = (uint16_t)(p->extra_refills + MCSIM_MIN_REFILLS);

    if (t != NULL) {
        sched_release_remove(t);
        sched_dequeue(t);
        if (sc == ks.cur_sc)
            sched_commit_time();
    }
    sc->badge = p->badge; /* first: the refills' trace names the context by it */
    if (p->budget == p->period)
        refill_new(sc, MCSIM_MIN_REFILLS, p->budget, 0, ks.cur_time);
    else if (sc_is_active(sc) && t != NULL && thread_is_runnable(t))
        refill_update(sc, p->period, p->budget, max, ks.cur_time);
    else
        refill_new(sc, max, p->budget, p->period, ks.cur_time);
    sc->sporadic = (p->flags & SC_FLAG_SPORADIC) != 0;
    sc->emergency = 0;
    if (t != NULL && ks.cfg.scheduler == SCHED_MCS) {
        sc_resume(sc);
        if (t == ks.cur_thread)
            sched_reschedule_required();
        else if (thread_is_runnable(t))
            sched_possible_switch_to(t);
    }
}

enum kerr schedcontrol_decode(struct invocation *inv)
{
    struct sc_params p;
    enum kerr err;

    if (inv->label != INV_SCHED_CONTROL_CONFIGURE_FLAGS)
        return ERR_ILLEGAL_OPERATION;
    err = check_params(inv, &p);
    if (err != ERR_NONE)
        return err;
    configure(inv->extra[0]->cap.obj, &p);
    return ERR_NONE;
}
