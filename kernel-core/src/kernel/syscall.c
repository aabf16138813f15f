/*
 * System call dispatch (SEL4-MCS-REFERENCE.md 4.1; seL4: handleSyscall,
 * handleInvocation, handleRecv). A system call has up to two phases: a send
 * phase that invokes the cap in x0 (or x10 for ReplyRecv) and a receive
 * phase on an endpoint or notification.
 *
 * Errors, as seL4 reports them:
 * - A decode error of an invocation (syscall error) is written to the
 *   caller's registers only for Call: x1 = message info with label = the
 *   error code, MR0.. = its detail (ks.err). Send, NBSend and the send
 *   phase of the combined calls drop it, as seL4 does.
 * - Departure: seL4 turns a failed CSpace lookup, and a Recv on a cap that
 *   is not a readable endpoint or notification (or on a notification bound
 *   to another thread), into a capability fault for the thread's fault
 *   handler. This kernel has no such faults; instead the system call ends
 *   at once with label = the error (FailedLookup for a walk that failed,
 *   InvalidCapability for a wrong cap), MR0 = the CPtr, MR1 = 1 if it
 *   happened in the receive phase, else 0 (the CapFault message's Addr and
 *   InRecvPhase words). A null cap in the send phase is seL4's syscall
 *   error (InvalidCapability, MR0 = 0), reported only for Call.
 */
#include "kernel/syscall.h"

#include "kernel/cspace.h"
#include "kernel/invocation.h"
#include "kernel/sched.h"
#include "object/endpoint.h"
#include "object/notification.h"
#include "object/objecttype.h"
#include "object/reply.h"

/* How a send phase behaves (seL4 handleInvocation's arguments). */
struct send_mode {
    bool is_call;
    bool blocking;
    bool can_donate;
    bool first_phase; /* of ReplyRecv, NBSendRecv, NBSendWait */
};

static const struct send_mode MODE_CALL = {true, true, true, false};
static const struct send_mode MODE_SEND = {false, true, false, false};
static const struct send_mode MODE_NB_SEND = {false, false, false, false};
static const struct send_mode MODE_FIRST_PHASE = {false, false, true, true};

void syscall_set_error(struct tcb *t, enum kerr err)
{
    unsigned n = ks.err.detail_len;

    if (n > 3)
        n = 3;
    for (unsigned i = 0; i < n; i++)
        t->ctx.x[REG_MR0 + i] = ks.err.detail[i];
    t->ctx.x[REG_INFO] = msginfo_make(err, 0, n);
}

static void set_error_detail(unsigned n, uint64_t a, uint64_t b)
{
    ks.err.detail[0] = a;
    ks.err.detail[1] = b;
    ks.err.detail_len = n;
}

/* The cap-fault substitute (see the top of this file). */
static void cap_fault(struct tcb *t, enum kerr err, cptr_t cptr, bool in_recv)
{
    set_error_detail(2, cptr, in_recv);
    syscall_set_error(t, err);
}

/* A successful Call on a cap that sends no reply of its own. */
static void reply_success(struct tcb *t, const uint64_t *mrs, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        t->ctx.x[REG_MR0 + i] = mrs[i];
    t->ctx.x[REG_INFO] = msginfo_make(ERR_NONE, 0, n);
}

/* ------------------------------------------------------------- send phase */

static enum kerr send_endpoint(struct tcb *t, const struct cap *cap, const struct send_mode *m)
{
    if (!(cap->rights & RIGHT_WRITE)) {
        set_error_detail(1, 0, 0);
        return ERR_INVALID_CAPABILITY;
    }
    /* Classic: ep_send never donates (no contexts). */
    ep_send(t, cap->obj, cap->badge, m->blocking, m->is_call, (cap->rights & RIGHT_GRANT) != 0,
            (cap->rights & RIGHT_GRANT_REPLY) != 0, m->can_donate);
    return ERR_NONE;
}

static enum kerr send_notification(struct tcb *t, const struct cap *cap, const struct send_mode *m)
{
    if (!(cap->rights & RIGHT_WRITE)) {
        set_error_detail(1, 0, 0);
        return ERR_INVALID_CAPABILITY;
    }
    ntfn_send(t, cap->obj, cap->badge);
    if (m->is_call)
        reply_success(t, NULL, 0);
    return ERR_NONE;
}

static enum kerr send_reply(struct tcb *t, const struct cap *cap, const struct send_mode *m)
{
    reply_transfer(t, cap->obj, (cap->rights & RIGHT_GRANT) != 0);
    if (m->is_call)
        reply_success(t, NULL, 0);
    return ERR_NONE;
}

/* Extra caps of an invocation: slots looked up from x13.., a null cap
 * included (the decoder checks the type, as seL4's lookupExtraCaps). */
static enum kerr lookup_extra_caps(struct tcb *t, struct invocation *inv, cptr_t *failed)
{
    unsigned n = msginfo_extra_caps(t->ctx.x[REG_INFO]);

    for (unsigned i = 0; i < n; i++) {
        cptr_t cptr = t->ctx.x[REG_EXTRA_CAP0 + i];
        enum kerr e = cspace_lookup_slot(t, cptr, 64, &inv->extra[i]);

        if (e != ERR_NONE) {
            *failed = cptr;
            return e;
        }
    }
    inv->n_extra = n;
    return ERR_NONE;
}

/* seL4 decodeInvocation's refusal of these caps in a first phase. */
static bool first_phase_forbidden(unsigned type)
{
    return type == CAP_TCB || type == CAP_CNODE || type == CAP_SCHED_CONTEXT ||
           type == CAP_SCHED_CONTROL;
}

/* send_* result: a cap-fault substitute was reported, the call ends. */
#define SEND_FAULTED ERR_COUNT

/*
 * Any other object: decode and invoke it, then reply to a Call whose caller
 * can still run (an invocation that blocked or stopped the caller, e.g.
 * TCB_Suspend on itself, leaves its registers alone).
 */
static enum kerr send_object(struct tcb *t, struct cte *slot, const struct send_mode *m)
{
    struct invocation inv;
    uint64_t info = t->ctx.x[REG_INFO];
    cptr_t failed = 0;
    enum kerr e;

    kmemset(&inv, 0, sizeof inv); /* not `= {0}`: the compiler may call memset */
    if (m->first_phase && first_phase_forbidden(slot->cap.type)) {
        set_error_detail(1, 0, 0);
        return ERR_INVALID_CAPABILITY;
    }
    e = lookup_extra_caps(t, &inv, &failed);
    if (e != ERR_NONE) {
        cap_fault(t, e, failed, false);
        return SEND_FAULTED;
    }
    inv.caller = t;
    inv.label = msginfo_label(info);
    inv.length = msginfo_length(info) < MSG_MAX_LENGTH ? msginfo_length(info) : MSG_MAX_LENGTH;
    inv.is_call = m->is_call;
    inv.slot = slot;
    e = object_invoke(&inv);
    if (e == ERR_NONE && m->is_call && thread_is_runnable(t))
        reply_success(t, inv.reply_mr, inv.reply_length);
    return e;
}

static enum kerr send_cap(struct tcb *t, struct cte *slot, const struct send_mode *m)
{
    switch (slot->cap.type) {
    case CAP_ENDPOINT:
        return send_endpoint(t, &slot->cap, m);
    case CAP_NOTIFICATION:
        return send_notification(t, &slot->cap, m);
    case CAP_REPLY:
        return send_reply(t, &slot->cap, m);
    default:
        return send_object(t, slot, m);
    }
}

/* The send phase on `cptr` (seL4 handleInvocation). Returns false if the
 * system call must end here (a cap-fault substitute was reported). */
static bool send_phase(struct tcb *t, cptr_t cptr, const struct send_mode *m)
{
    struct cte *slot;
    enum kerr e = cspace_lookup_cap(t, cptr, &slot);

    if (e == ERR_INVALID_CAPABILITY) {
        set_error_detail(1, 0, 0); /* a null cap: seL4's decode error */
    } else if (e != ERR_NONE) {
        cap_fault(t, e, cptr, false);
        return false;
    } else {
        e = send_cap(t, slot, m);
        if (e == SEND_FAULTED)
            return false;
    }
    if (e != ERR_NONE && m->is_call)
        syscall_set_error(t, e);
    return true;
}

/* ---------------------------------------------------------- receive phase */

/* The reply object of a Recv: x10 must name a reply cap. */
static bool lookup_reply(struct tcb *t, cptr_t cptr, struct reply **reply)
{
    struct cte *slot;
    enum kerr e = cspace_lookup_cap(t, cptr, &slot);

    if (e == ERR_NONE && slot->cap.type != CAP_REPLY)
        e = ERR_INVALID_CAPABILITY;
    if (e != ERR_NONE) {
        cap_fault(t, e, cptr, true);
        return false;
    }
    *reply = slot->cap.obj;
    return true;
}

static void recv_endpoint(struct tcb *t, const struct cap *cap, cptr_t reply_cptr, bool with_reply,
                          bool blocking)
{
    struct reply *reply = NULL;

    if (with_reply && !lookup_reply(t, reply_cptr, &reply))
        return;
    ep_receive(t, cap, reply, blocking);
}

/*
 * The receive phase (seL4 handleRecv): Recv/NBRecv/ReplyRecv/NBSendRecv
 * supply a reply object (with_reply), Wait/NBWait/NBSendWait do not. On a
 * notification the reply object is not used (nor looked up).
 */
static void recv_phase(struct tcb *t, cptr_t src, cptr_t reply_cptr, bool with_reply, bool blocking)
{
    struct cte *slot;
    enum kerr e = cspace_lookup_cap(t, src, &slot);
    const struct cap *cap;

    if (e != ERR_NONE) {
        cap_fault(t, e, src, true);
        return;
    }
    cap = &slot->cap;
    if (cap->type == CAP_ENDPOINT && (cap->rights & RIGHT_READ)) {
        recv_endpoint(t, cap, reply_cptr, with_reply, blocking);
        return;
    }
    if (cap->type == CAP_NOTIFICATION && (cap->rights & RIGHT_READ)) {
        struct notification *n = cap->obj;

        /* Only its bound thread may wait on a bound notification. */
        if (n->bound_tcb == NULL || n->bound_tcb == t) {
            ntfn_receive(t, n, blocking);
            return;
        }
    }
    cap_fault(t, ERR_INVALID_CAPABILITY, src, true);
}

/* ------------------------------------------------------------- dispatch */

void syscall_handle(enum syscall sys)
{
    struct tcb *t = ks.cur_thread;
    /* Every CPtr is read before the send phase, which may write the
     * caller's reply registers (a Call on a notification, say). */
    cptr_t cap = t->ctx.x[REG_CAP];
    cptr_t reply = t->ctx.x[REG_REPLY];
    cptr_t src = t->ctx.x[REG_SRC];

    ks.err.detail_len = 0;
    switch (sys) {
    case SYS_CALL:
        send_phase(t, cap, &MODE_CALL);
        break;
    case SYS_SEND:
        send_phase(t, cap, &MODE_SEND);
        break;
    case SYS_NB_SEND:
        send_phase(t, cap, &MODE_NB_SEND);
        break;
    case SYS_REPLY_RECV:
        /* Reply through x10's reply cap, then Recv on x0 with it. */
        if (send_phase(t, reply, &MODE_FIRST_PHASE))
            recv_phase(t, cap, reply, true, true);
        break;
    case SYS_NB_SEND_RECV:
        if (send_phase(t, cap, &MODE_FIRST_PHASE))
            recv_phase(t, src, reply, true, true);
        break;
    case SYS_NB_SEND_WAIT:
        if (send_phase(t, cap, &MODE_FIRST_PHASE))
            recv_phase(t, reply, 0, false, true);
        break;
    case SYS_RECV:
        recv_phase(t, cap, reply, true, true);
        break;
    case SYS_NB_RECV:
        recv_phase(t, cap, reply, true, false);
        break;
    case SYS_WAIT:
        recv_phase(t, cap, 0, false, true);
        break;
    case SYS_NB_WAIT:
        recv_phase(t, cap, 0, false, false);
        break;
    case SYS_YIELD:
        sched_yield_current();
        break;
    default:
        /* seL4 handleUnknownSyscall raises a fault; there are none here. */
        set_error_detail(0, 0, 0);
        syscall_set_error(t, ERR_ILLEGAL_OPERATION);
        break;
    }
}
