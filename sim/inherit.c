/*
 * inherit: the record of queued Calls and the server's way back (see
 * inherit.h; the handler's side and what inherit costs are described at
 * the top of sim/timeouts.c).
 *
 * The way back. A server that finished a request on a lent context holds
 * that context bound, not donated: were it to receive a queued client on
 * it, the kernel would not donate the client's context (the server has
 * one), the server would serve the client on the lender's context and
 * keep it. So at its receive point, before it receives anything, it
 *   1. answers its client (Send on its reply object; a reply_recv's reply
 *      half): the client's call returns normally and its own context, still
 *      at the head of the call chain, goes back to it (seL4 reply_pop);
 *   2. NBSendWait(done -> handler, restart notification): signals its
 *      handler (the badge names the server) and waits on the notification
 *      bound to it, still holding the lent context; the handler takes the
 *      context off it, binds it back to its owner and signals the
 *      notification, which lends the server its restart context;
 *   3. receives as its program says (Recv on the endpoint): having no
 *      pending signal, the kernel first gives the notification's context
 *      back (seL4 receiveIPC, maybeReturnSchedContext), so the server is
 *      passive again before it takes a queued Call, with donation.
 * Steps 2 and 3 run on contexts no client owns: the lender pays up to
 * step 2's entry and nothing after it.
 *
 * The end of a request that had an `emergency_budget` grant. Its handler
 * must give the client's context its configured budget back while the
 * thread the context is bound to is runnable: the kernel then keeps the
 * head refill, cut to the budget, and dates the rest a period later
 * (refill_update); on a context whose thread is blocked it starts afresh
 * with the whole budget available at once (refill_new), a budget more in
 * the window where the client already ran its budget and the grant (seL4
 * invokeSchedControl_ConfigureFlags; unit.property scenario 4342: the
 * client, above the server, ran on what was left of the grant after the
 * reply and blocked before the handler restored it). So the server tells
 * its handler before it answers: at its reply (a `reply` or `reply_recv`
 * step) it first Signals the handler's notification (TSLOT_DONE_NTFN, the
 * badge names the server), on the granted context; a handler above it runs
 * at once and restores the context, still donated to the running server;
 * then the server answers as its program says. The server knows to, and
 * that it did, from the memory it shares with its handler (grant_restore,
 * grant_tell); a reply made ends the request (grant_open).
 */
#include "inherit.h"

#include <stddef.h>

#include "uplat.h"

/* The stage of a server's way back (REG_LEND_STAGE): the system call in
 * hand. */
enum lend_stage {
    LEND_NONE = 0,
    LEND_REPLY,  /* Send on its reply object: answer the client */
    LEND_NOTIFY, /* NBSendWait(done, restart notification) */
    LEND_RECV,   /* the receive itself */
};

static void set_call(struct user_context *c, enum syscall sys, cptr_t cap, unsigned length)
{
    c->x[REG_CAP] = cap;
    c->x[REG_INFO] = msginfo_make(0, 0, length);
    c->x[REG_SYSCALL] = sys;
    c->x[REG_REPLY] = 0;
    c->x[REG_SRC] = 0;
}

/* ----------------------------------------------------------- the record */

void inherit_note_call(struct uworld *w, struct uthread *t, const struct op *op)
{
    if (op->kind != OP_CALL || t->id == 0 || !w->ep_lendable[op->a])
        return;
    t->queued_ep = op->a + 1;
    t->queued_prio = w->s->threads[t->id - 1].priority;
    t->queued_seq = ++w->call_seq;
}

void inherit_note_receive(struct uworld *w, struct uthread *t, const struct op *op)
{
    uint64_t badge = t->ctx->x[REG_CAP];
    struct uthread *client;

    if (!w->ep_lendable[op->a] || badge == 0 || badge >= w->n_threads)
        return;
    client = &w->threads[badge];
    if (client->queued_ep == op->a + 1)
        client->queued_ep = 0;
    t->serving_ep = op->a + 1;
    t->serving = (uint32_t)badge;
}

static bool is_lent(const struct uworld *w, uint32_t id)
{
    for (uint32_t i = 1; i < w->n_threads; i++) {
        if (w->threads[i].lender == id)
            return true;
    }
    return false;
}

/* The kernel's queue order: higher priority first, then earlier. */
static bool comes_before(uint64_t prio, uint64_t seq, uint64_t than_prio, uint64_t than_seq)
{
    return prio > than_prio || (prio == than_prio && seq < than_seq);
}

uint32_t inherit_pick(struct uworld *w, uint32_t server, uint32_t client, uint64_t *prio,
                      uint64_t *seq)
{
    uint32_t ep = w->threads[server].serving_ep, best = 0;
    uint64_t best_prio = 0, best_seq = 0;

    if (ep == 0)
        return 0;
    for (uint32_t id = 1; id < w->n_threads; id++) {
        const struct uthread *c = &w->threads[id];

        if (c->queued_ep != ep || id == client || id == server ||
            id == w->threads[server].serving || !w->s->threads[id - 1].sc.present || is_lent(w, id))
            continue;
        if (*prio != UINT64_MAX && !comes_before(*prio, *seq, c->queued_prio, c->queued_seq))
            continue; /* tried already, or before one that was */
        if (best == 0 || comes_before(c->queued_prio, c->queued_seq, best_prio, best_seq)) {
            best = id;
            best_prio = c->queued_prio;
            best_seq = c->queued_seq;
        }
    }
    if (best != 0) {
        *prio = best_prio;
        *seq = best_seq;
    }
    return best;
}

/* ------------------------------------------------------- the way back */

static bool is_receive(const struct op *op)
{
    return op->kind == OP_RECV || op->kind == OP_REPLY_RECV;
}

static bool is_reply(const struct op *op)
{
    return op->kind == OP_REPLY || op->kind == OP_REPLY_RECV;
}

bool inherit_server_prepare(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    (void)w;
    if (is_reply(op) && t->grant_restore != 0 && t->grant_tell == GRANT_TELL_NONE) {
        /* a request with a grant its handler has not taken back: tell it
         * before answering (Signal), the reply comes next */
        t->grant_tell = GRANT_TELLING;
        set_call(c, SYS_SEND, TSLOT_DONE_NTFN, 0);
        return true;
    }
    if (!is_receive(op))
        return false;
    if (c->x[REG_LEND_STAGE] == LEND_NONE) {
        if (t->lender == 0)
            return false;
        c->x[REG_LEND_STAGE] = op->kind == OP_REPLY_RECV ? LEND_REPLY : LEND_NOTIFY;
    }
    switch (c->x[REG_LEND_STAGE]) {
    case LEND_REPLY:
        /* the reply a reply_recv would have sent: its send time in MR0 */
        set_call(c, SYS_SEND, TSLOT_REPLY, 1);
        c->x[REG_MR0] = uplat_now();
        break;
    case LEND_NOTIFY:
        set_call(c, SYS_NB_SEND_WAIT, TSLOT_DONE_NTFN, 0);
        c->x[REG_REPLY] = TSLOT_RESTART_NTFN; /* NBSendWait's source */
        break;
    default:
        set_call(c, SYS_RECV, op->cap, 0);
        c->x[REG_REPLY] = TSLOT_REPLY;
        break;
    }
    return true;
}

bool inherit_server_continues(struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    if (is_reply(op) && t->grant_tell == GRANT_TELLING) {
        t->grant_tell = GRANT_TOLD; /* the handler knows: now the reply */
        return true;
    }
    if (is_reply(op) && t->grant_tell == GRANT_TOLD) {
        t->grant_tell = GRANT_TELL_NONE; /* the reply was made: the request ended */
        t->grant_open = false;
    }
    if (!is_receive(op))
        return false;
    if (c->x[REG_LEND_STAGE] != LEND_NONE && c->x[REG_LEND_STAGE] < LEND_RECV) {
        c->x[REG_LEND_STAGE]++;
        return true;
    }
    c->x[REG_LEND_STAGE] = LEND_NONE;
    return false;
}
