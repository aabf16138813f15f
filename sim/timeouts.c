/*
 * The policies of handle_timeouts (KERNEL-SEMANTICS.md 5).
 *
 * `reset`, in the order that works: first answer the client through the
 * server's reply object with an error, so its Call fails (`call_aborted`)
 * and its context goes back to it along the call chain; then put the
 * server back at its receive point on a spare context and make it passive
 * again, as at boot. In the other order the server's new receive would
 * find the client still in its reply object and leave it inactive for ever.
 *
 * `emergency_budget`: SchedControl_ConfigureFlags on the client's exhausted
 * context while the server is blocked on the fault starts it afresh with
 * the grant available at once; the fault is answered so the server goes
 * on; then the configured budget and period are set again while the server
 * runs, which (seL4 refill_update) keeps the granted head and schedules the
 * rest of the configured budget one period later, so the configured
 * bandwidth holds again from the next refill. A grant is at most the
 * context's budget, since refill_update keeps at most the new budget in the
 * head (NEEDSWORK: a larger grant needs a kernel mechanism seL4 lacks). One
 * grant per request: the server counts the requests it has answered in
 * memory it shares with its handler, and a second fault with the count
 * unchanged is handled as `reset`.
 */
#include "timeouts.h"

#include <stddef.h>

#include "uplat.h"

enum ht_stage {
    HT_RECV_FAULT = 0,   /* Recv on the fault endpoint */
    HT_ABORT_CLIENT,     /* Send on the server's reply object, label aborted */
    HT_REWIND_SERVER,    /* TCB_WriteRegisters: pc = its first instruction */
    HT_RESTART_SERVER,   /* reply to the fault (label 0): the server restarts */
    HT_LEND_SC,          /* SchedContext_Bind(spare, server) */
    HT_AWAIT_RECV,       /* Wait on the init endpoint: the server reached recv */
    HT_TAKE_SC,          /* SchedContext_Unbind(spare) */
    HT_GRANT,            /* ConfigureFlags(client's context, the grant) */
    HT_GRANT_RESTART,    /* reply to the fault (label 0): the server goes on */
    HT_GRANT_RESTORE,    /* ConfigureFlags(client's context, as configured) */
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

/* The client's context, by the badge the fault carried (its thread id). */
static const struct scn_thread *client_of(struct uworld *w, const struct user_context *c)
{
    uint64_t id = c->x[REG_HT_CLIENT];
    if (id == 0 || id > w->s->n_threads || !w->s->threads[id - 1].sc.present)
        return NULL;
    return &w->s->threads[id - 1];
}

static void set_configure(struct uworld *w, struct user_context *c, cycles_t budget)
{
    const struct scn_thread *client = client_of(w, c);

    set_regs(c, SYS_CALL, TSLOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, 5, 1);
    c->x[REG_EXTRA_CAP0] = TSLOT_THREAD_SC + c->x[REG_HT_CLIENT] - 1;
    c->x[REG_MR0] = uplat_ticks(budget);
    c->x[REG_MR0 + 1] = uplat_ticks(client->sc.period);
    c->x[REG_MR0 + 2] = client->sc.extra_refills;
    c->x[REG_MR0 + 3] = c->x[REG_HT_CLIENT];
    c->x[REG_MR0 + 4] = client->sc.sporadic ? SC_FLAG_SPORADIC : 0;
}

static cycles_t grant_of(const struct scn_thread *client, const struct op *op)
{
    return op->min < client->sc.budget ? op->min : client->sc.budget;
}

void timeouts_prepare(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

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
    case HT_GRANT:
        set_configure(w, c, grant_of(client_of(w, c), op));
        break;
    case HT_GRANT_RESTART:
        set_regs(c, SYS_SEND, TSLOT_REPLY, 0, 0, 0);
        break;
    case HT_GRANT_RESTORE:
        set_configure(w, c, client_of(w, c)->sc.budget);
        break;
    default:
        uplat_fail(w, "handle_timeouts: bad stage %llu", (unsigned long long)c->x[REG_HT_STATE]);
    }
}

/* A server of higher priority than the handler runs to its receive as soon
 * as it has a context (its start-up message finds nobody waiting and is
 * dropped); otherwise the handler waits for that message. */
static enum ht_stage after_lend(struct uworld *w, struct uthread *t)
{
    uint32_t server = (uint32_t)t->ctx->x[REG_HT_SERVER];
    uint32_t handler_prio = w->s->threads[t->id - 1].priority;

    if (w->s->threads[server - 1].priority > handler_prio)
        return HT_TAKE_SC;
    return HT_AWAIT_RECV;
}

/* Grant once per request: the server's count of answered requests (in
 * memory shared with its handler) tells a new request from the same one. */
static enum ht_stage first_stage(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    uint32_t server = (uint32_t)c->x[REG_HT_SERVER];
    uint64_t served = w->threads[server].replies + 1;

    if (op->a != TIMEOUT_EMERGENCY_BUDGET || client_of(w, c) == NULL ||
        c->x[REG_HT_GRANTS] == (served << 8 | server))
        return HT_ABORT_CLIENT;
    c->x[REG_HT_GRANTS] = served << 8 | server;
    return HT_GRANT;
}

static void record_grant(struct uworld *w, struct uthread *t, const struct op *op)
{
    uint32_t client = (uint32_t)t->ctx->x[REG_HT_CLIENT];
    uplat_budget(w, client, client, uplat_now(), BUDGET_EMERGENCY,
               grant_of(client_of(w, t->ctx), op));
}

static void check_reply(struct uworld *w, struct uthread *t, const char *what)
{
    uint64_t err = msginfo_label(t->ctx->x[REG_INFO]);
    if (err != ERR_NONE)
        uplat_fail(w, "handle_timeouts of %s: %s failed with error %llu",
                   w->s->threads[t->id - 1].name, what, (unsigned long long)err);
}

void timeouts_after(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    switch (c->x[REG_HT_STATE]) {
    case HT_RECV_FAULT:
        /* badge of the timeout endpoint cap = the faulting server's id;
         * MR0 = badge of the exhausted context, MR1 = ticks consumed */
        if (msginfo_label(c->x[REG_INFO]) != FAULT_TIMEOUT || c->x[REG_CAP] == 0 ||
            c->x[REG_CAP] > w->s->n_threads)
            uplat_fail(w, "handle_timeouts of %s: received something that is not a timeout "
                          "fault (label %llu, badge %llu)",
                       w->s->threads[t->id - 1].name,
                       (unsigned long long)msginfo_label(c->x[REG_INFO]),
                       (unsigned long long)c->x[REG_CAP]);
        c->x[REG_HT_SERVER] = c->x[REG_CAP];
        c->x[REG_HT_CLIENT] = c->x[REG_MR0];
        c->x[REG_HT_STATE] = first_stage(w, t, op);
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
    case HT_GRANT:
        check_reply(w, t, "SchedControl_ConfigureFlags (grant)");
        record_grant(w, t, op);
        c->x[REG_HT_STATE] = HT_GRANT_RESTART;
        break;
    case HT_GRANT_RESTART:
        c->x[REG_HT_STATE] = HT_GRANT_RESTORE;
        break;
    case HT_GRANT_RESTORE:
        check_reply(w, t, "SchedControl_ConfigureFlags (restore)");
        c->x[REG_HT_STATE] = HT_RECV_FAULT;
        break;
    }
}
