/*
 * The policies of handle_timeouts (docs/kernel-semantics.md 5).
 *
 * Every server whose faults a handler serves has a restart context (a
 * round-robin one, which never faults) bound to a notification that is
 * bound to the server (the root task sets this up). Bound to the server
 * too, the context runs it; when the server then blocks to receive on an
 * endpoint with no signal pending, the kernel hands the context back to
 * the notification before it takes any queued Call (seL4 receiveIPC,
 * maybeReturnSchedContext), so the server is passive when it receives and
 * a queued client's context is donated to it.
 *
 * `reset`, in the order that works: first answer the client through the
 * server's reply object with an error, so its Call fails (`call_aborted`)
 * and its context goes back to it along the call chain; then restart the
 * server at its receive point, bound to its restart context. In the other
 * order the server's new receive would find the client still in its reply
 * object and leave it inactive for ever.
 *
 * `emergency_budget`, in the order seL4's invocations allow (issue 13):
 *   ConfigureFlags(client's context, the grant, its period, or the grant
 *     if longer): the context is bound to the server, which is blocked on
 *     the fault, so the kernel starts it afresh (refill_new): the whole
 *     grant available at once;
 *   reply to the fault (label 0): the server finishes the request on the
 *     grant. Before it answers the request it tells the handler (a Signal
 *     on the handler's notification, sim/inherit.c);
 *   on that done signal: ConfigureFlags(client's context, as configured):
 *     the context is still donated to the server, which is runnable, so the
 *     kernel keeps the head refill, cut to the configured budget, and dates
 *     the rest of the budget a period later (refill_update): the rest of
 *     the grant past the budget is dropped and the configured bandwidth
 *     holds from then on. Then the server answers, and the context goes
 *     back to the client.
 * Restoring while the server still worked on the grant would cut it to the
 * budget, and the server could fault again; restoring after the answer
 * may find the client blocked (it ran, above the server, on what was left
 * of the grant, then waited), and on a context whose thread is not
 * runnable ConfigureFlags starts afresh with the whole budget at once
 * (seL4 invokeSchedControl_ConfigureFlags): a budget more in the window
 * where the client already ran its budget and the grant (unit.property
 * scenario 4342, 26,521 cycles over). A handler that is not above the
 * server restores when it next runs, which may be after the answer (docs/
 * kernel-semantics.md section 5). One grant per request, a request being
 * from the server's receive of a Call to its reply or its reset: the
 * server and its handler share, per server, whether the request in hand
 * had a grant (set at the grant, cleared when the server's reply was made,
 * or at a reset) and whose context to restore; a fault of a request that
 * had a grant is handled as `reset`, which, if the server had not told the
 * handler yet, answers the fault first and restores the context while the
 * server (runnable, waiting for the exhausted context's refill) holds it,
 * and only then answers the client (reset_stage).
 *
 * `inherit` (seL4 has no such mechanism; this is it built from
 * SchedContext_UnbindObject/Bind and replies). Server S faults serving
 * client A on A's context; the handler picks, from the record the threads
 * keep of queued Calls (sim/inherit.h), the first client B queued on S's
 * endpoint in the kernel's order, then
 *   UnbindObject(B's context, B)  B stays queued, without a context;
 *   UnbindObject(A's context, S)  the call chain still names A's context;
 *   Bind(B's context, S)          refused if B's context is not ready,
 *                                 which means B is not really queued (see
 *                                 inherit_note_call): it is bound back to B
 *                                 and the next candidate is tried;
 *   reply to the fault (label 0)  S finishes A's request on B's context.
 * When S answers A, A's context goes back to A, bound to nobody as it
 * is (seL4 reply_pop): UnbindObject leaves a context's call chain alone,
 * S's reply object is the head of it (S ran on the context when it
 * faulted) and A holds no other context; A's call returns normally. S then
 * signals the handler and waits on its restart notification (inherit.c);
 * the handler does UnbindObject(B's context, S), Bind(B's context, B) (B is
 * still queued) and signals the notification: S runs on its restart
 * context to its receive, passive again, and takes B's Call with donation.
 * What it costs B: the CPU time S spends from the fault to the system call
 * that signals the handler, all of it charged to B's context (its budget,
 * in its window, counted by `budget: respected`), and the time its own
 * request waits behind A's rest; in exchange its request is served before
 * A's context refills. The handler's own system calls are charged to the
 * handler's context, the server's way back after the signal to its
 * restart context. With no client queued the fault is answered at once and
 * S waits for A's context's next refill, as it would without a handler. A
 * second fault while S runs on a lent context (B's budget ran out too) is
 * answered the same way: S waits for B's context's next refill, then
 * finishes and gives it back; B, queued, waits too.
 */
#include "timeouts.h"

#include <stddef.h>

#include "inherit.h"
#include "uplat.h"

enum ht_stage {
    HT_RECV_FAULT = 0,   /* Recv on the fault endpoint (inherit: or its done signal) */
    HT_ABORT_CLIENT,     /* Send on the server's reply object, label aborted */
    HT_REWIND_SERVER,    /* TCB_WriteRegisters: pc = its first instruction */
    HT_RESTART_SERVER,   /* reply to the fault (label 0): the server restarts */
    HT_LEND_SC,          /* SchedContext_Bind(its restart context, server) */
    HT_GRANT,            /* ConfigureFlags(client's context, the grant) */
    HT_GRANT_RESTART,    /* reply to the fault (label 0): the server goes on */
    HT_GRANT_RESTORE,    /* ConfigureFlags(client's context, as configured) */
    HT_ABORT_ANSWER,     /* a reset of a request with a grant: reply to the fault, */
    HT_ABORT_RESTORE,    /* ...then ConfigureFlags(client's context, as configured) */
    HT_INH_TAKE_LENDER,  /* SchedContext_UnbindObject(lender's context, lender) */
    HT_INH_TAKE_SERVER,  /* SchedContext_UnbindObject(client's context, server) */
    HT_INH_LEND,         /* SchedContext_Bind(lender's context, server) */
    HT_INH_GIVE_BACK,    /* SchedContext_Bind(lender's context, lender): not lent */
    HT_INH_RESUME,       /* reply to the fault (label 0) */
    HT_INH_RESUME_BARE,  /* reply to the fault (label 0); the server has no context */
    HT_INH_REBIND,       /* SchedContext_Bind(client's context, server) */
    HT_RET_TAKE,         /* SchedContext_UnbindObject(lent context, server) */
    HT_RET_GIVE,         /* SchedContext_Bind(lent context, lender) */
    HT_RET_WAKE,         /* Signal the server's restart notification */
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

/* The capabilities the root task gave handler h (program.h). */
static cptr_t tcb_of(const struct uthread *h, uint64_t id)
{
    return h->prog.slots.threads + 2 * (id - 1);
}

static cptr_t sc_of(const struct uthread *h, uint64_t id)
{
    return h->prog.slots.threads + 2 * (id - 1) + 1;
}

static cptr_t server_cap(struct uworld *w, const struct uthread *h, enum server_cap which)
{
    return program_slot_server(w->s, h->prog.slots.servers,
                               (uint32_t)h->ctx->x[REG_HT_SERVER] - 1, which);
}

/* An invocation of `cap` with the TCB or context of thread `id` as its
 * one extra capability. */
static void set_invoke(struct user_context *c, cptr_t cap, enum inv_label label, cptr_t extra)
{
    set_regs(c, SYS_CALL, cap, label, 0, 1);
    c->x[REG_EXTRA_CAP0] = extra;
}

/* The client's context, by the badge the fault carried (its thread id). */
static const struct scn_thread *client_of(struct uworld *w, const struct user_context *c)
{
    uint64_t id = c->x[REG_HT_CLIENT];
    if (id == 0 || id > w->s->n_threads || !w->s->threads[id - 1].sc.present)
        return NULL;
    return &w->s->threads[id - 1];
}

/* ConfigureFlags of the client's context with `budget` and its period
 * (the budget, if longer: a budget may not exceed its period). */
static void set_configure(struct uworld *w, const struct uthread *t, cycles_t budget)
{
    struct user_context *c = t->ctx;
    const struct scn_thread *client = client_of(w, c);
    cycles_t period = client->sc.period > budget ? client->sc.period : budget;

    set_regs(c, SYS_CALL, TSLOT_SCHED_CONTROL, INV_SCHED_CONTROL_CONFIGURE_FLAGS, 5, 1);
    c->x[REG_EXTRA_CAP0] = sc_of(t, c->x[REG_HT_CLIENT]);
    c->x[REG_MR0] = uplat_ticks(budget);
    c->x[REG_MR0 + 1] = uplat_ticks(period);
    c->x[REG_MR0 + 2] = client->sc.extra_refills;
    c->x[REG_MR0 + 3] = c->x[REG_HT_CLIENT];
    c->x[REG_MR0 + 4] = client->sc.sporadic ? SC_FLAG_SPORADIC : 0;
}

/* The grant: the amount the scenario asks, whatever the context's budget. */
static cycles_t grant_of(const struct op *op)
{
    return op->min;
}

/* The stages of `inherit`: the server, the client and the lender of the
 * fault (or of the return) in hand are in REG_HT_SERVER, REG_HT_CLIENT,
 * REG_HT_LENDER. */
static void prepare_inherit(struct uworld *w, const struct uthread *t)
{
    struct user_context *c = t->ctx;
    uint64_t server = c->x[REG_HT_SERVER], lender = c->x[REG_HT_LENDER];

    switch (c->x[REG_HT_STATE]) {
    case HT_INH_TAKE_LENDER:
    case HT_RET_TAKE:
        set_invoke(c, sc_of(t, lender), INV_SC_UNBIND_OBJECT,
                   tcb_of(t, c->x[REG_HT_STATE] == HT_RET_TAKE ? server : lender));
        break;
    case HT_INH_TAKE_SERVER:
        set_invoke(c, sc_of(t, c->x[REG_HT_CLIENT]), INV_SC_UNBIND_OBJECT, tcb_of(t, server));
        break;
    case HT_INH_LEND:
        set_invoke(c, sc_of(t, lender), INV_SC_BIND, tcb_of(t, server));
        break;
    case HT_INH_GIVE_BACK:
    case HT_RET_GIVE:
        set_invoke(c, sc_of(t, lender), INV_SC_BIND, tcb_of(t, lender));
        break;
    case HT_INH_REBIND:
        set_invoke(c, sc_of(t, c->x[REG_HT_CLIENT]), INV_SC_BIND, tcb_of(t, server));
        break;
    case HT_RET_WAKE:
        set_regs(c, SYS_SEND, server_cap(w, t, SERVER_RESTART_NTFN), 0, 0, 0);
        break;
    default: /* HT_INH_RESUME, HT_INH_RESUME_BARE */
        set_regs(c, SYS_SEND, TSLOT_REPLY, 0, 0, 0);
        break;
    }
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
        set_regs(c, SYS_SEND, server_cap(w, t, SERVER_REPLY), FAULT_CALL_ABORTED_LABEL, 0, 0);
        break;
    case HT_REWIND_SERVER:
        set_regs(c, SYS_CALL, tcb_of(t, c->x[REG_HT_SERVER]), INV_TCB_WRITE_REGISTERS, 2, 0);
        c->x[REG_MR0] = 0;     /* flags: do not resume yet */
        c->x[REG_MR0 + 1] = 0; /* pc: the server's first instruction, its receive */
        break;
    case HT_RESTART_SERVER:
    case HT_GRANT_RESTART:
    case HT_ABORT_ANSWER:
        set_regs(c, SYS_SEND, TSLOT_REPLY, 0, 0, 0);
        break;
    case HT_LEND_SC:
        set_invoke(c, server_cap(w, t, SERVER_RESTART_SC), INV_SC_BIND,
                   tcb_of(t, c->x[REG_HT_SERVER]));
        break;
    case HT_GRANT:
        set_configure(w, t, grant_of(op));
        break;
    case HT_GRANT_RESTORE:
    case HT_ABORT_RESTORE:
        set_configure(w, t, client_of(w, c)->sc.budget);
        break;
    default:
        if (c->x[REG_HT_STATE] > HT_RET_WAKE)
            uplat_fail(w, "handle_timeouts: bad stage %llu",
                       (unsigned long long)c->x[REG_HT_STATE]);
        prepare_inherit(w, t);
        break;
    }
}

/* ------------------------------------------------------------ choices */

/* The next client to try to lend the server its context, after those
 * tried (REG_HT_AFTER_*); none left: answer the fault, the server waits
 * for its own context's refill. */
static enum ht_stage inherit_next(struct uworld *w, struct user_context *c)
{
    uint64_t prio = c->x[REG_HT_AFTER_PRIO], seq = c->x[REG_HT_AFTER_SEQ];
    uint32_t lender = inherit_pick(w, (uint32_t)c->x[REG_HT_SERVER],
                                   (uint32_t)c->x[REG_HT_CLIENT], &prio, &seq);

    c->x[REG_HT_AFTER_PRIO] = prio;
    c->x[REG_HT_AFTER_SEQ] = seq;
    c->x[REG_HT_LENDER] = lender;
    if (lender != 0)
        return HT_INH_TAKE_LENDER;
    return c->x[REG_HT_UNBOUND] ? HT_INH_RESUME_BARE : HT_INH_RESUME;
}

/* A fault to inherit for: not while the server already runs on a lent
 * context (second fault), nor on a context that is not a client's. */
static enum ht_stage inherit_first(struct uworld *w, struct user_context *c)
{
    uint32_t server = (uint32_t)c->x[REG_HT_SERVER];

    if (w->threads[server].lender != 0 || client_of(w, c) == NULL)
        return HT_INH_RESUME;
    c->x[REG_HT_UNBOUND] = 0;
    c->x[REG_HT_AFTER_PRIO] = UINT64_MAX;
    c->x[REG_HT_AFTER_SEQ] = 0;
    return inherit_next(w, c);
}

/* The next server that signalled it is done with a lent context (the
 * lowest rank of REG_HT_DONE), or back to receiving. */
static enum ht_stage return_next(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    while (c->x[REG_HT_DONE] != 0) {
        uint64_t bits = c->x[REG_HT_DONE];
        uint32_t k = (uint32_t)__builtin_ctzll(bits);
        int si = program_server_of_rank(w->s, op->b, k);

        c->x[REG_HT_DONE] = bits & (bits - 1);
        if (si < 0 || w->threads[si + 1].lender == 0)
            continue; /* not a server that borrows: nothing to return */
        c->x[REG_HT_SERVER] = (uint64_t)si + 1;
        c->x[REG_HT_LENDER] = w->threads[si + 1].lender;
        return HT_RET_TAKE;
    }
    return HT_RECV_FAULT;
}

/* A reset of server s's request. If the request had a grant its handler
 * has not taken back (the server faulted again before it could tell), the
 * client's context is restored first, while the thread it is bound to is
 * runnable: the fault is answered (the server, on an exhausted context,
 * waits for its refill, which the handler runs before), the context
 * restored (refill_update), and only then the client answered. After the
 * answer the context is the client's, which may be blocked already: a
 * client with a timeout endpoint of its own faults at once on the exhausted
 * context (seL4 doReplyTransfer), and ConfigureFlags would then start it
 * afresh with its whole budget (unit.property scenario 968). */
static enum ht_stage reset_stage(struct user_context *c, struct uthread *server)
{
    server->grant_open = false; /* the reset ends the request */
    server->grant_tell = GRANT_TELL_NONE;
    c->x[REG_HT_ANSWERED] = server->grant_restore != 0;
    if (server->grant_restore == 0)
        return HT_ABORT_CLIENT;
    c->x[REG_HT_CLIENT] = server->grant_restore;
    server->grant_restore = 0;
    return HT_ABORT_ANSWER;
}

/* Grant once per request: the first fault of a request is granted, a
 * fault of a request that had a grant ends it with a reset. */
static enum ht_stage first_stage(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    struct uthread *server = &w->threads[c->x[REG_HT_SERVER]];

    if (op->a == TIMEOUT_INHERIT)
        return inherit_first(w, c);
    if (op->a != TIMEOUT_EMERGENCY_BUDGET || client_of(w, c) == NULL || server->grant_open)
        return reset_stage(c, server);
    server->grant_open = true;
    return HT_GRANT;
}

/* The next server whose done signal says it is about to answer a request
 * with a grant (the lowest rank of REG_HT_DONE): restore its client's
 * context; or back to receiving. */
static enum ht_stage grant_done_next(struct uworld *w, struct user_context *c,
                                     const struct op *op)
{
    while (c->x[REG_HT_DONE] != 0) {
        uint64_t bits = c->x[REG_HT_DONE];
        int si = program_server_of_rank(w->s, op->b, (uint32_t)__builtin_ctzll(bits));
        struct uthread *server;

        c->x[REG_HT_DONE] = bits & (bits - 1);
        if (si < 0)
            continue;
        server = &w->threads[si + 1];
        if (server->grant_restore == 0)
            continue;
        c->x[REG_HT_SERVER] = (uint64_t)si + 1;
        c->x[REG_HT_CLIENT] = server->grant_restore;
        server->grant_restore = 0;
        return HT_GRANT_RESTORE;
    }
    return HT_RECV_FAULT;
}

static void record_grant(struct uworld *w, struct uthread *t, const struct op *op)
{
    uint32_t client = (uint32_t)t->ctx->x[REG_HT_CLIENT];
    uplat_budget(w, client, client, uplat_now(), BUDGET_EMERGENCY, grant_of(op));
}

static uint64_t result_of(const struct uthread *t)
{
    return msginfo_label(t->ctx->x[REG_INFO]);
}

static void check_reply(struct uworld *w, struct uthread *t, const char *what)
{
    uint64_t err = result_of(t);
    if (err != ERR_NONE)
        uplat_fail(w, "handle_timeouts of %s: %s failed with error %llu",
                   w->s->threads[t->id - 1].name, what, (unsigned long long)err);
}

/* What the Recv brought: a done signal (badge above every thread id,
 * through the notification bound to an `inherit` handler) or a fault. */
static enum ht_stage received(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    if ((op->a == TIMEOUT_INHERIT || op->a == TIMEOUT_EMERGENCY_BUDGET) &&
        c->x[REG_CAP] >> program_done_shift(w->s) != 0) {
        c->x[REG_HT_DONE] = c->x[REG_CAP] >> program_done_shift(w->s);
        return op->a == TIMEOUT_INHERIT ? return_next(w, t, op) : grant_done_next(w, c, op);
    }
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
    return first_stage(w, t, op);
}

/* After an inherit stage: errors that say the candidate could not lend
 * (it was not queued after all) move on to the next one; the others
 * cannot happen and fail the run. */
static enum ht_stage after_inherit(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    uint32_t server = (uint32_t)c->x[REG_HT_SERVER];

    switch (c->x[REG_HT_STATE]) {
    case HT_INH_TAKE_LENDER:
        if (result_of(t) != ERR_NONE)
            return inherit_next(w, c);
        return c->x[REG_HT_UNBOUND] ? HT_INH_LEND : HT_INH_TAKE_SERVER;
    case HT_INH_TAKE_SERVER:
        check_reply(w, t, "SchedContext_UnbindObject (client's context)");
        c->x[REG_HT_UNBOUND] = 1;
        return HT_INH_LEND;
    case HT_INH_LEND:
        if (result_of(t) != ERR_NONE)
            return HT_INH_GIVE_BACK;
        w->threads[server].lender = (uint32_t)c->x[REG_HT_LENDER];
        return HT_INH_RESUME;
    case HT_INH_GIVE_BACK:
        check_reply(w, t, "SchedContext_Bind (back to its owner)");
        return inherit_next(w, c);
    case HT_INH_RESUME_BARE:
        return HT_INH_REBIND;
    case HT_INH_REBIND:
        check_reply(w, t, "SchedContext_Bind (client's context)");
        return HT_RECV_FAULT;
    case HT_RET_TAKE:
        check_reply(w, t, "SchedContext_UnbindObject (lent context)");
        return HT_RET_GIVE;
    case HT_RET_GIVE:
        check_reply(w, t, "SchedContext_Bind (lent context back)");
        w->threads[server].lender = 0;
        return HT_RET_WAKE;
    case HT_RET_WAKE:
        return return_next(w, t, op);
    default: /* HT_INH_RESUME */
        return HT_RECV_FAULT;
    }
}

void timeouts_after(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    switch (c->x[REG_HT_STATE]) {
    case HT_RECV_FAULT:
        c->x[REG_HT_STATE] = received(w, t, op);
        break;
    case HT_ABORT_ANSWER:
        c->x[REG_HT_STATE] = HT_ABORT_RESTORE;
        break;
    case HT_ABORT_RESTORE:
        check_reply(w, t, "SchedControl_ConfigureFlags (restore)");
        c->x[REG_HT_STATE] = HT_ABORT_CLIENT;
        break;
    case HT_ABORT_CLIENT:
        c->x[REG_HT_STATE] = HT_REWIND_SERVER;
        break;
    case HT_REWIND_SERVER:
        check_reply(w, t, "TCB_WriteRegisters");
        c->x[REG_HT_STATE] = c->x[REG_HT_ANSWERED] ? HT_LEND_SC : HT_RESTART_SERVER;
        break;
    case HT_RESTART_SERVER:
        c->x[REG_HT_STATE] = HT_LEND_SC;
        break;
    case HT_LEND_SC:
        check_reply(w, t, "SchedContext_Bind (restart context)");
        c->x[REG_HT_STATE] = HT_RECV_FAULT;
        break;
    case HT_GRANT:
        check_reply(w, t, "SchedControl_ConfigureFlags (grant)");
        record_grant(w, t, op);
        w->threads[c->x[REG_HT_SERVER]].grant_restore = (uint32_t)c->x[REG_HT_CLIENT];
        c->x[REG_HT_STATE] = HT_GRANT_RESTART;
        break;
    case HT_GRANT_RESTART:
        c->x[REG_HT_STATE] = HT_RECV_FAULT;
        break;
    case HT_GRANT_RESTORE:
        check_reply(w, t, "SchedControl_ConfigureFlags (restore)");
        c->x[REG_HT_STATE] = grant_done_next(w, c, op);
        break;
    default:
        c->x[REG_HT_STATE] = after_inherit(w, t, op);
        break;
    }
}
