/*
 * The root task: user code that builds the scenario's system with real
 * system calls at boot (DESIGN.md "How a run flows", 2): it retypes its
 * untyped memory into every object, configures contexts through
 * SchedControl, mints each thread the capabilities its program needs with
 * the least rights, binds IRQ handlers to notifications, starts passive
 * servers so that they reach their receive and then takes their context
 * away, and resumes the threads that start at 0. It then stays, at the
 * highest priority, to resume later threads when the platform's start
 * timer fires. Nothing is wired behind the kernel's back.
 */
#include <stdlib.h>

#include <mcsim/bootinfo.h>

#include "uplat.h"
#include "uworld.h"

#define ROOT_DEPTH 64

static const char *const err_names[] = {
#define X(id, num, name) [num] = name,
    MCSIM_ERRORS(X)
#undef X
};

static struct user_context *root_ctx(struct uworld *w)
{
    return w->threads[0].ctx;
}

/* Make a system call as the root task during boot; the root must still be
 * the running thread afterwards unless `may_block` (then the call returns
 * when the root task runs again). */
static void root_trap(struct uworld *w, enum syscall sys, cptr_t cap, bool may_block)
{
    struct user_context *c = root_ctx(w);

    c->x[REG_SYSCALL] = sys;
    c->x[REG_CAP] = cap;
    uplat_boot_call(w, c, may_block);
}

/* Invoke an object at boot and fail the run on any error. */
static void root_invoke(struct uworld *w, const char *what, cptr_t cap, enum inv_label label,
                        const uint64_t *mrs, unsigned n, const cptr_t *extra, unsigned n_extra)
{
    struct user_context *c = root_ctx(w);
    uint64_t err;

    c->x[REG_INFO] = msginfo_make(label, n_extra, n);
    for (unsigned i = 0; i < n; i++)
        c->x[REG_MR0 + i] = mrs[i];
    for (unsigned i = 0; i < n_extra; i++)
        c->x[REG_EXTRA_CAP0 + i] = extra[i];
    root_trap(w, SYS_CALL, cap, false);
    err = msginfo_label(c->x[REG_INFO]);
    if (err != ERR_NONE)
        uplat_fail(w, "root task: %s failed: %s", what,
                   err < ERR_COUNT ? err_names[err] : "unknown error");
}

static cptr_t new_slot(struct uworld *w)
{
    if (w->next_free_slot >= ((cptr_t)1 << w->root_cnode_bits))
        uplat_fail(w, "root task: its CNode is full (too many objects)");
    return w->next_free_slot++;
}

static cptr_t retype(struct uworld *w, enum object_type type, unsigned bits)
{
    cptr_t slot = new_slot(w);
    uint64_t mrs[6] = {type, bits, 0, 0, slot, 1};
    cptr_t root = ROOT_CNODE;

    root_invoke(w, "Untyped_Retype", ROOT_FIRST_UNTYPED, INV_UNTYPED_RETYPE, mrs, 6, &root, 1);
    return slot;
}

/* Mint (or copy: badge 0) a cap from the root CNode into `cnode` (a cap
 * in the root CNode to a CNode of `bits` radix) at `dest`. */
static void mint_into(struct uworld *w, cptr_t cnode, unsigned bits, cptr_t dest, cptr_t src,
                      unsigned rights, uint64_t badge)
{
    uint64_t mrs[6] = {dest, bits, src, ROOT_DEPTH, rights, badge};
    cptr_t root = ROOT_CNODE;

    root_invoke(w, "CNode_Mint", cnode, INV_CNODE_MINT, mrs, 6, &root, 1);
}

/* A new slot of the root CNode holding a minted copy of `src`. */
static cptr_t mint_local(struct uworld *w, cptr_t src, unsigned rights, uint64_t badge)
{
    cptr_t slot = new_slot(w);
    mint_into(w, ROOT_CNODE, ROOT_DEPTH, slot, src, rights, badge);
    return slot;
}

unsigned root_sc_bits(uint32_t extra_refills)
{
    unsigned bits = MCSIM_MIN_SC_BITS;
    while (MCSIM_SC_MAX_REFILLS(bits) < (uint64_t)extra_refills + MCSIM_MIN_REFILLS)
        bits++;
    return bits;
}

static void configure_sc(struct uworld *w, cptr_t sc, cycles_t budget, cycles_t period,
                         uint32_t extra, uint64_t badge, bool sporadic)
{
    uint64_t mrs[5] = {uplat_ticks(budget), uplat_ticks(period), extra,
                       badge, sporadic ? SC_FLAG_SPORADIC : 0};
    root_invoke(w, "SchedControl_ConfigureFlags", ROOT_SCHED_CONTROL,
                INV_SCHED_CONTROL_CONFIGURE_FLAGS, mrs, 5, &sc, 1);
}

static cptr_t new_sc(struct uworld *w, const struct scn_context *ctx, uint64_t badge)
{
    cptr_t sc = retype(w, OBJ_SCHED_CONTEXT, root_sc_bits(ctx->extra_refills));
    configure_sc(w, sc, ctx->budget, ctx->period, ctx->extra_refills, badge, ctx->sporadic);
    return sc;
}

/* ------------------------------------------------------------ objects */

static void build_ipc_objects(struct uworld *w)
{
    const struct scenario *s = w->s;

    for (uint32_t i = 0; i < s->n_endpoints; i++)
        w->ep_slots[i] = retype(w, OBJ_ENDPOINT, 0);
    for (uint32_t i = 0; i < s->n_notifications; i++) {
        w->ntfn_slots[i] = retype(w, OBJ_NOTIFICATION, 0);
        if (w->mcs && s->notifications[i].sc.present) {
            cptr_t ntfn = w->ntfn_slots[i];
            w->ntfn_sc_slots[i] = new_sc(w, &s->notifications[i].sc, BADGE_NTFN_BASE + i);
            root_invoke(w, "SchedContext_Bind", w->ntfn_sc_slots[i], INV_SC_BIND, NULL, 0,
                        &ntfn, 1);
        }
    }
    w->init_ep_slot = retype(w, OBJ_ENDPOINT, 0);
}

/* An IRQ handler for `line`, signalling notification cap `ntfn` with `badge`. */
static cptr_t build_irq_handler(struct uworld *w, uint32_t line, cptr_t ntfn, uint64_t badge)
{
    cptr_t handler = new_slot(w);
    uint64_t mrs[3] = {line, handler, ROOT_DEPTH};
    cptr_t root = ROOT_CNODE;
    cptr_t badged;

    root_invoke(w, "IRQControl_Get", ROOT_IRQ_CONTROL, INV_IRQ_CONTROL_GET, mrs, 3, &root, 1);
    badged = mint_local(w, ntfn, RIGHT_WRITE, badge);
    root_invoke(w, "IRQHandler_SetNotification", handler, INV_IRQ_SET_NOTIFICATION, NULL, 0,
                &badged, 1);
    return handler;
}

static void build_devices(struct uworld *w)
{
    const struct scenario *s = w->s;

    for (uint32_t i = 0; i < s->n_devices; i++)
        w->irq_slots[i] = build_irq_handler(w, s->devices[i].irq,
                                            w->ntfn_slots[s->devices[i].notification],
                                            s->devices[i].badge ? s->devices[i].badge : i + 1);
    if (w->n_start_times > 0) {
        w->start_ntfn_slot = retype(w, OBJ_NOTIFICATION, 0);
        w->start_irq_slot = build_irq_handler(w, w->start_irq, w->start_ntfn_slot, 1);
    }
}

/* ------------------------------------------------------------ threads */

/* The capabilities thread ti's steps need, with the least rights, each in
 * its own slot of the thread's CNode (program_slots). */
static void grant_objects(struct uworld *w, uint32_t ti)
{
    const struct scenario *s = w->s;
    struct uthread *t = &w->threads[ti + 1];
    const struct program_slots *ps = &t->prog.slots;

    for (uint32_t k = 0; k < ps->n_objects; k++) {
        uint32_t i = ps->objects[k] & (((uint32_t)1 << PROGRAM_OBJECT_SHIFT) - 1);
        cptr_t slot = TSLOT_OBJECTS + k;
        unsigned r;

        switch ((enum program_object)(ps->objects[k] >> PROGRAM_OBJECT_SHIFT)) {
        case POBJ_ENDPOINT:
            r = program_endpoint_rights(s, ti, i);
            /* on a recorded endpoint a Call's badge names its caller */
            if (r)
                mint_into(w, t->cnode_slot, t->cnode_bits, slot, w->ep_slots[i], r,
                          w->ep_lendable[i] && (r & RIGHT_WRITE) ? ti + 1 : 0);
            break;
        case POBJ_NOTIFICATION:
            r = program_notification_rights(s, ti, i);
            if (r)
                mint_into(w, t->cnode_slot, t->cnode_bits, slot, w->ntfn_slots[i], r, 0);
            break;
        case POBJ_DEVICE:
            if (program_uses_device(s, ti, i))
                mint_into(w, t->cnode_slot, t->cnode_bits, slot, w->irq_slots[i], RIGHTS_ALL,
                          0);
            break;
        }
    }
}

struct badged_grant {
    struct uworld *w;
    uint32_t ti;
};

/* A signal or call with a badge uses a capability of its own, minted
 * with that badge (program_slot_badged). */
static void grant_badged_step(void *ctx, uint32_t step)
{
    struct badged_grant *g = ctx;
    struct uworld *w = g->w;
    const struct scn_step *st = &w->s->steps[step];
    cptr_t slot;

    if (st->badge == 0)
        return;
    slot = program_slot_badged(w->s, &w->threads[g->ti + 1].prog.slots, g->ti, step);
    mint_into(w, w->threads[g->ti + 1].cnode_slot, w->threads[g->ti + 1].cnode_bits, slot,
              st->kind == STEP_CALL ? w->ep_slots[st->object] : w->ntfn_slots[st->object],
              program_badged_rights(st), st->badge);
}

/* A serve step's notification is bound to its thread, so that its
 * receive on the endpoint takes signals too (seL4_TCB_BindNotification). */
static void bind_serve(void *ctx, uint32_t step)
{
    struct badged_grant *g = ctx;
    struct uworld *w = g->w;
    const struct scn_step *st = &w->s->steps[step];
    cptr_t ntfn;

    if (st->kind != STEP_SERVE || st->ntfn == SCN_NONE || st->object == SCN_NONE)
        return;
    ntfn = w->ntfn_slots[st->ntfn];
    root_invoke(w, "TCB_BindNotification (serve)", w->threads[g->ti + 1].tcb_slot,
                INV_TCB_BIND_NOTIFICATION, NULL, 0, &ntfn, 1);
}

/* A server whose timeout faults a handler serves gets its restart context:
 * a round-robin one (it never faults) bound to a notification bound to the
 * server, so that the kernel takes the context back when the server blocks
 * to receive (sim/timeouts.c). The server can wait on the notification. */
static void build_restart(struct uworld *w, uint32_t si)
{
    struct uthread *t = &w->threads[si + 1];
    struct scn_context ctx = {.present = true, .budget = 1, .period = 1};
    cptr_t ntfn, sc;

    ctx.budget = ctx.period = w->duration > 0 ? w->duration : 1;
    ntfn = retype(w, OBJ_NOTIFICATION, 0);
    sc = new_sc(w, &ctx, BADGE_SPARE_BASE + si + 1);
    root_invoke(w, "TCB_BindNotification", t->tcb_slot, INV_TCB_BIND_NOTIFICATION, NULL, 0,
                &ntfn, 1);
    root_invoke(w, "SchedContext_Bind", sc, INV_SC_BIND, NULL, 0, &ntfn, 1);
    mint_into(w, t->cnode_slot, t->cnode_bits, TSLOT_RESTART_NTFN, ntfn, RIGHT_READ, 0);
    t->restart_ntfn_slot = ntfn;
    t->restart_sc_slot = sc;
}

/* The context (and the TCB, if `tcbs`) of every thread with a context of
 * its own: the clients whose context a handler may reconfigure or lend. A
 * server's TCB is there already. */
static void grant_contexts(struct uworld *w, uint32_t ti, bool tcbs)
{
    const struct scenario *s = w->s;
    struct uthread *t = &w->threads[ti + 1];
    cptr_t first = t->prog.slots.threads;

    for (uint32_t ci = 0; ci < s->n_threads; ci++) {
        uint32_t cep = s->threads[ci].timeout_endpoint;

        if (!w->threads[ci + 1].sc_slot)
            continue;
        mint_into(w, t->cnode_slot, t->cnode_bits, first + 2 * ci + 1,
                  w->threads[ci + 1].sc_slot, RIGHTS_ALL, 0);
        if (tcbs && (cep == SCN_NONE || !program_handles_timeouts(s, ti, cep)))
            mint_into(w, t->cnode_slot, t->cnode_bits, first + 2 * ci,
                      w->threads[ci + 1].tcb_slot, RIGHTS_ALL, 0);
    }
}

/* An `inherit` handler learns that a server is done with a lent context,
 * an `emergency_budget` one that a server answered a granted request,
 * through a notification bound to it, which its receive on the fault
 * endpoint also takes; each of its servers signals it with its own bit. */
static void grant_done(struct uworld *w, uint32_t ti, uint32_t ep)
{
    const struct scenario *s = w->s;
    cptr_t done = retype(w, OBJ_NOTIFICATION, 0);

    root_invoke(w, "TCB_BindNotification", w->threads[ti + 1].tcb_slot,
                INV_TCB_BIND_NOTIFICATION, NULL, 0, &done, 1);
    for (uint32_t si = 0; si < s->n_threads; si++) {
        uint32_t k;

        if (s->threads[si].timeout_endpoint != ep || program_done_handler(s, si) != (int)ti)
            continue;
        k = program_server_rank(s, si);
        if (k >= 64 - program_done_shift(s))
            uplat_fail(w, "root task: handle_timeouts of %s serves more than %u servers",
                       s->threads[ti].name, 64 - program_done_shift(s));
        mint_into(w, w->threads[si + 1].cnode_slot, w->threads[si + 1].cnode_bits, TSLOT_DONE_NTFN, done,
                  RIGHT_WRITE, (uint64_t)1 << (program_done_shift(s) + k));
    }
}

/* A timeout handler can restart each server whose faults it serves: the
 * server's TCB and reply object, its restart context and notification;
 * and, as its action needs, the SchedControl and the clients' contexts. */
static void grant_handler(struct uworld *w, uint32_t ti)
{
    const struct scenario *s = w->s;
    struct uthread *t = &w->threads[ti + 1];
    int action = program_timeout_action(s, ti);
    uint32_t ep = SCN_NONE;
    cptr_t first = t->prog.slots.threads, servers = t->prog.slots.servers;

    for (uint32_t si = 0; action >= 0 && si < s->n_threads; si++) {
        uint32_t sep = s->threads[si].timeout_endpoint;
        struct uthread *srv = &w->threads[si + 1];

        if (sep == SCN_NONE || !program_handles_timeouts(s, ti, sep))
            continue;
        ep = sep;
        mint_into(w, t->cnode_slot, t->cnode_bits, first + 2 * si, srv->tcb_slot, RIGHTS_ALL,
                  0);
        mint_into(w, t->cnode_slot, t->cnode_bits, program_slot_server(s, servers, si, SERVER_REPLY),
                  srv->reply_slot, RIGHTS_ALL, 0);
        if (!w->mcs)
            continue;
        mint_into(w, t->cnode_slot, t->cnode_bits,
                  program_slot_server(s, servers, si, SERVER_RESTART_SC), srv->restart_sc_slot,
                  RIGHTS_ALL, 0);
        mint_into(w, t->cnode_slot, t->cnode_bits,
                  program_slot_server(s, servers, si, SERVER_RESTART_NTFN), srv->restart_ntfn_slot,
                  RIGHT_WRITE, 0);
    }
    if (ep == SCN_NONE || !w->mcs)
        return;
    if (action == TIMEOUT_EMERGENCY_BUDGET) {
        /* to grant emergency budget to any client's context */
        mint_into(w, t->cnode_slot, t->cnode_bits, TSLOT_SCHED_CONTROL, ROOT_SCHED_CONTROL,
                  RIGHTS_ALL, 0);
        grant_contexts(w, ti, false);
        grant_done(w, ti, ep);
    } else if (action == TIMEOUT_INHERIT) {
        /* to lend a queued client's context to a server and give it back */
        grant_contexts(w, ti, true);
        grant_done(w, ti, ep);
    }
}

/* Every thread's objects, one kind after the other: the TCBs side by
 * side, then the contexts, the reply objects and the CNodes. Retyped
 * thread by thread, each TCB would lie a CNode (and its alignment) apart
 * from the next, all of them in the same cache sets. */
static void retype_threads(struct uworld *w)
{
    const struct scenario *s = w->s;

    for (uint32_t ti = 0; ti < s->n_threads; ti++)
        w->threads[ti + 1].tcb_slot = retype(w, OBJ_TCB, 0);
    for (uint32_t ti = 0; w->mcs && ti < s->n_threads; ti++) {
        if (s->threads[ti].sc.present)
            w->threads[ti + 1].sc_slot =
                retype(w, OBJ_SCHED_CONTEXT, root_sc_bits(s->threads[ti].sc.extra_refills));
    }
    for (uint32_t ti = 0; ti < s->n_threads; ti++)
        w->threads[ti + 1].reply_slot = retype(w, OBJ_REPLY, 0);
    for (uint32_t ti = 0; ti < s->n_threads; ti++) {
        struct uthread *t = &w->threads[ti + 1];
        t->cnode_bits = t->prog.slots.cnode_bits;
        t->cnode_slot = retype(w, OBJ_CNODE, t->cnode_bits);
    }
}

static void build_thread(struct uworld *w, uint32_t ti)
{
    const struct scn_thread *st = &w->s->threads[ti];
    struct uthread *t = &w->threads[ti + 1];
    uint64_t guard = ((uint64_t)0 << 6) | (64 - t->cnode_bits);
    uint64_t id = ti + 1;
    cptr_t timeout_ep = ROOT_NULL;

    if (t->sc_slot)
        configure_sc(w, t->sc_slot, st->sc.budget, st->sc.period, st->sc.extra_refills, id,
                     st->sc.sporadic);
    root_invoke(w, "TCB_Configure", t->tcb_slot, INV_TCB_CONFIGURE, &guard, 1, &t->cnode_slot,
                1);
    root_invoke(w, "TCB_SetTraceId", t->tcb_slot, INV_TCB_SET_TRACE_ID, &id, 1, NULL, 0);
    if (w->mcs && st->timeout_endpoint != SCN_NONE)
        timeout_ep = mint_local(w, w->ep_slots[st->timeout_endpoint],
                                RIGHT_WRITE | RIGHT_GRANT_REPLY, id);
    uint64_t prios[2] = {st->mcp, st->priority};
    cptr_t caps[3] = {ROOT_TCB, t->sc_slot, timeout_ep};
    root_invoke(w, "TCB_SetSchedParams", t->tcb_slot, INV_TCB_SET_SCHED_PARAMS, prios, 2, caps,
                3);
    mint_into(w, t->cnode_slot, t->cnode_bits, TSLOT_REPLY, t->reply_slot, RIGHTS_ALL, 0);
    if (w->mcs && st->passive)
        mint_into(w, t->cnode_slot, t->cnode_bits, TSLOT_INIT_EP, w->init_ep_slot,
                  RIGHT_WRITE, 0);
    grant_objects(w, ti);
    struct badged_grant g = {w, ti};
    program_visit(w->s, ti, grant_badged_step, &g);
    program_visit(w->s, ti, bind_serve, &g);
}

/* A passive server is started on a borrowed context, runs to its first
 * receive (which tells the root task so, NBSendRecv), and is left without
 * a context: from then on it runs only on what its callers donate. */
static void start_passive(struct uworld *w, cptr_t init_sc, uint32_t ti)
{
    struct uthread *t = &w->threads[ti + 1];
    cptr_t tcb = t->tcb_slot;

    root_invoke(w, "SchedContext_Bind", init_sc, INV_SC_BIND, NULL, 0, &tcb, 1);
    root_invoke(w, "TCB_Resume", tcb, INV_TCB_RESUME, NULL, 0, NULL, 0);
    root_ctx(w)->x[REG_INFO] = 0;
    root_trap(w, SYS_WAIT, w->init_ep_slot, true);
    root_invoke(w, "SchedContext_Unbind", init_sc, INV_SC_UNBIND, NULL, 0, NULL, 0);
}

static void start_passive_servers(struct uworld *w)
{
    const struct scenario *s = w->s;
    struct scn_context ctx = {.present = true, .budget = 1, .period = 1};
    cptr_t init_sc = 0;

    for (uint32_t i = 0; i < s->n_threads; i++) {
        if (!w->mcs || !s->threads[i].passive)
            continue;
        if (init_sc == 0) {
            ctx.budget = ctx.period = w->duration;
            init_sc = new_sc(w, &ctx, BADGE_ROOT);
        }
        start_passive(w, init_sc, i);
    }
}

/* Threads started together enter their ready queue in file order: each
 * resume puts the thread at the head of its queue, so resume in reverse. */
static void resume_started_at(struct uworld *w, cycles_t start)
{
    const struct scenario *s = w->s;

    for (uint32_t i = s->n_threads; i-- > 0;) {
        if (s->threads[i].start != start || (w->mcs && s->threads[i].passive))
            continue;
        root_invoke(w, "TCB_Resume", w->threads[i + 1].tcb_slot, INV_TCB_RESUME, NULL, 0, NULL,
                    0);
    }
}

/* The root task's own program after boot: at each start time, take the
 * start timer's signal, resume the threads due, acknowledge the timer. */
static void build_root_program(struct uworld *w)
{
    const struct scenario *s = w->s;
    struct program *p = &w->threads[0].prog;
    uint32_t n = 0;

    for (uint32_t k = 0; k < w->n_start_times; k++) {
        n += 2;
        for (uint32_t i = 0; i < s->n_threads; i++)
            n += s->threads[i].start == w->start_times[k];
    }
    p->ops = calloc(n + 1, sizeof *p->ops);
    if (p->ops == NULL)
        uplat_fail(w, "out of memory");
    for (uint32_t k = 0; k < w->n_start_times; k++) {
        p->ops[p->n_ops++] = (struct op){.kind = OP_WAIT, .cap = w->start_ntfn_slot,
                                         .rng = UINT32_MAX, .a = UINT32_MAX};
        for (uint32_t i = s->n_threads; i-- > 0;) {
            if (s->threads[i].start == w->start_times[k])
                p->ops[p->n_ops++] = (struct op){.kind = OP_RESUME,
                                                 .cap = w->threads[i + 1].tcb_slot,
                                                 .rng = UINT32_MAX};
        }
        p->ops[p->n_ops++] = (struct op){.kind = OP_IRQ_ACK, .cap = w->start_irq_slot,
                                         .rng = UINT32_MAX};
    }
    p->ops[p->n_ops++] = (struct op){.kind = OP_EXIT, .rng = UINT32_MAX};
}

void root_build(struct uworld *w)
{
    const struct scenario *s = w->s;

    w->next_free_slot = ROOT_FIRST_FREE;
    if (w->mcs) {
        struct scn_context root = {.present = true, .budget = w->duration, .period = w->duration};
        uint64_t mrs[5] = {uplat_ticks(root.budget),
                           uplat_ticks(root.period), 0, BADGE_ROOT, 0};
        cptr_t sc = ROOT_SC;
        root_invoke(w, "SchedControl_ConfigureFlags (root)", ROOT_SCHED_CONTROL,
                    INV_SCHED_CONTROL_CONFIGURE_FLAGS, mrs, 5, &sc, 1);
    }
    build_ipc_objects(w);
    build_devices(w);
    retype_threads(w);
    for (uint32_t i = 0; i < s->n_threads; i++)
        build_thread(w, i);
    for (uint32_t i = 0; i < s->n_threads; i++) {
        if (w->mcs && program_has_timeout_handler(s, i))
            build_restart(w, i);
    }
    for (uint32_t i = 0; i < s->n_threads; i++)
        grant_handler(w, i);
    start_passive_servers(w);
    resume_started_at(w, 0);
    build_root_program(w);
    root_ctx(w)->pc = 0;
}
