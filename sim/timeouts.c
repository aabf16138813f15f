/*
 * The `reset` policy of handle_timeouts (KERNEL-SEMANTICS.md 5), in the
 * order that works: first answer the client through the server's reply
 * object with an error, so its Call fails (`call_aborted`) and its context
 * goes back to it along the call chain; then put the server back at its
 * receive point on a spare context and make it passive again, as at boot.
 * In the other order the server's new receive would find the client still
 * in its reply object and leave it inactive for ever.
 */
#include "timeouts.h"

#include "hal_sim.h"

enum ht_stage {
    HT_RECV_FAULT = 0,   /* Recv on the fault endpoint */
    HT_ABORT_CLIENT,     /* Send on the server's reply object, label aborted */
    HT_REWIND_SERVER,    /* TCB_WriteRegisters: pc = its first instruction */
    HT_RESTART_SERVER,   /* reply to the fault (label 0): the server restarts */
    HT_LEND_SC,          /* SchedContext_Bind(spare, server) */
    HT_AWAIT_RECV,       /* Wait on the init endpoint: the server reached recv */
    HT_TAKE_SC,          /* SchedContext_Unbind(spare) */
};

static void set_regs(struct user_context *c, enum syscall sys, cptr_t cap, uint64_t label,
                     unsigned length, unsigned extra)
{
    c->x[REG_CAP] = cap;
    c->x[REG_INFO] = msginfo_make(label, extra, length);
    c->x[REG_SYSCALL] = sys;
    c->x[REG_REPLY] = 0;
    c->x[REG_SRC] = 0;
}

static cptr_t server_tcb(const struct user_context *c)
{
    return TSLOT_SERVER + 2 * (c->x[REG_HT_SERVER] - 1);
}

void timeouts_prepare(struct world *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    if (op->a != TIMEOUT_RESET)
        world_fail(w, "handle_timeouts: the %s action is not implemented yet",
                   op->a == TIMEOUT_INHERIT ? "inherit" : "emergency_budget");
    switch (c->x[REG_HT_STATE]) {
    case HT_RECV_FAULT:
        set_regs(c, SYS_RECV, op->cap, 0, 0, 0);
        c->x[REG_REPLY] = TSLOT_REPLY;
        break;
    case HT_ABORT_CLIENT:
        set_regs(c, SYS_SEND, server_tcb(c) + 1, FAULT_CALL_ABORTED_LABEL, 0, 0);
        break;
    case HT_REWIND_SERVER:
        set_regs(c, SYS_CALL, server_tcb(c), INV_TCB_WRITE_REGISTERS, 2, 0);
        c->x[REG_MR0] = 0;     /* flags: do not resume yet */
        c->x[REG_MR0 + 1] = 0; /* pc: the server's first instruction, its receive */
        break;
    case HT_RESTART_SERVER:
        set_regs(c, SYS_SEND, TSLOT_REPLY, 0, 0, 0);
        break;
    case HT_LEND_SC:
        set_regs(c, SYS_CALL, TSLOT_SPARE_SC, INV_SC_BIND, 0, 1);
        c->x[REG_EXTRA_CAP0] = server_tcb(c);
        break;
    case HT_AWAIT_RECV:
        set_regs(c, SYS_WAIT, TSLOT_INIT_EP, 0, 0, 0);
        break;
    case HT_TAKE_SC:
        set_regs(c, SYS_CALL, TSLOT_SPARE_SC, INV_SC_UNBIND, 0, 0);
        break;
    default:
        world_fail(w, "handle_timeouts: bad stage %llu", (unsigned long long)c->x[REG_HT_STATE]);
    }
}

/* A server of higher priority than the handler runs to its receive as soon
 * as it has a context (its start-up message finds nobody waiting and is
 * dropped); otherwise the handler waits for that message. */
static enum ht_stage after_lend(struct world *w, struct uthread *t)
{
    uint32_t server = (uint32_t)t->ctx->x[REG_HT_SERVER];
    uint32_t handler_prio = w->s->threads[t->id - 1].priority;

    if (w->s->threads[server - 1].priority > handler_prio)
        return HT_TAKE_SC;
    return HT_AWAIT_RECV;
}

static void check_reply(struct world *w, struct uthread *t, const char *what)
{
    uint64_t err = msginfo_label(t->ctx->x[REG_INFO]);
    if (err != ERR_NONE)
        world_fail(w, "handle_timeouts of %s: %s failed with error %llu",
                   w->s->threads[t->id - 1].name, what, (unsigned long long)err);
}

void timeouts_after(struct world *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    (void)op;

    switch (c->x[REG_HT_STATE]) {
    case HT_RECV_FAULT:
        /* badge of the timeout endpoint cap = the faulting server's id;
         * MR0 = badge of the exhausted context, MR1 = ticks consumed */
        if (msginfo_label(c->x[REG_INFO]) != FAULT_TIMEOUT || c->x[REG_CAP] == 0 ||
            c->x[REG_CAP] > w->s->n_threads)
            world_fail(w, "handle_timeouts of %s: received something that is not a timeout "
                          "fault (label %llu, badge %llu)",
                       w->s->threads[t->id - 1].name,
                       (unsigned long long)msginfo_label(c->x[REG_INFO]),
                       (unsigned long long)c->x[REG_CAP]);
        c->x[REG_HT_SERVER] = c->x[REG_CAP];
        c->x[REG_HT_CLIENT] = c->x[REG_MR0];
        c->x[REG_HT_STATE] = HT_ABORT_CLIENT;
        break;
    case HT_ABORT_CLIENT:
        c->x[REG_HT_STATE] = HT_REWIND_SERVER;
        break;
    case HT_REWIND_SERVER:
        check_reply(w, t, "TCB_WriteRegisters");
        c->x[REG_HT_STATE] = HT_RESTART_SERVER;
        break;
    case HT_RESTART_SERVER:
        c->x[REG_HT_STATE] = HT_LEND_SC;
        break;
    case HT_LEND_SC:
        check_reply(w, t, "SchedContext_Bind");
        c->x[REG_HT_STATE] = after_lend(w, t);
        break;
    case HT_AWAIT_RECV:
        c->x[REG_HT_STATE] = HT_TAKE_SC;
        break;
    case HT_TAKE_SC:
        check_reply(w, t, "SchedContext_Unbind");
        c->x[REG_HT_STATE] = HT_RECV_FAULT;
        break;
    }
}
