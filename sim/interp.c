/*
 * The program interpreter: runs a thread's instructions as user code. Its
 * state lives where a real program's would: the pc and the compute step in
 * progress in the thread's registers (saved by the kernel at every entry),
 * repeat counters and random streams in the thread's memory. Every kernel
 * operation is a system call through the ABI of mcsim/abi.h, made with the
 * capabilities of the thread's own CSpace (program.h's slot layout).
 */
#include <stddef.h>

#include "inherit.h"
#include "timeouts.h"
#include "uplat.h"
#include "uworld.h"

/* A loop that makes no progress in time would hang the run. */
#define MAX_ZERO_TIME_OPS 10000000u

static void set_call(struct user_context *c, enum syscall sys, cptr_t cap, uint64_t label,
                     unsigned length)
{
    c->x[REG_CAP] = cap;
    c->x[REG_INFO] = msginfo_make(label, 0, length);
    c->x[REG_SYSCALL] = sys;
    c->x[REG_REPLY] = 0;
    c->x[REG_SRC] = 0;
}

/* A message carries its send time in MR0 (docs/scenario-format.md "Jobs": a job
 * woken by a message is released at the sender's send time). */
static void set_send(struct user_context *c, enum syscall sys, cptr_t cap)
{
    set_call(c, sys, cap, 0, 1);
    c->x[REG_MR0] = uplat_now();
}

/* A serve step's receive (program.h OP_SERVE_RECV). */
static void prepare_serve_recv(struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    uint64_t *L = &t->locals[op->b];

    if (op->max && op->min) { /* a passive thread reaches its first receive */
        set_send(c, SYS_NB_SEND_RECV, TSLOT_INIT_EP);
        c->x[REG_SRC] = op->cap;
        c->x[REG_REPLY] = TSLOT_REPLY;
    } else if (op->max) {
        set_send(c, SYS_NB_SEND_WAIT, TSLOT_INIT_EP);
        c->x[REG_REPLY] = op->cap;
    } else if (op->min && L[SERVE_LOCAL_REPLY]) {
        set_send(c, SYS_REPLY_RECV, op->cap);
        c->x[REG_REPLY] = TSLOT_REPLY;
    } else if (op->min) {
        set_call(c, SYS_RECV, op->cap, 0, 0);
        c->x[REG_REPLY] = TSLOT_REPLY;
    } else {
        set_call(c, SYS_WAIT, op->cap, 0, 0);
    }
}

static void prepare_syscall(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    switch (op->kind) {
    case OP_YIELD:
        set_call(c, SYS_YIELD, 0, 0, 0);
        break;
    case OP_CALL:
        set_send(c, SYS_CALL, op->cap);
        break;
    case OP_SEND:
        set_send(c, SYS_SEND, op->cap);
        break;
    case OP_NBSEND:
        set_send(c, SYS_NB_SEND, op->cap);
        break;
    case OP_RECV:
        set_call(c, SYS_RECV, op->cap, 0, 0);
        c->x[REG_REPLY] = TSLOT_REPLY;
        break;
    case OP_REPLY:
        set_send(c, SYS_SEND, TSLOT_REPLY);
        break;
    case OP_REPLY_RECV:
        set_send(c, SYS_REPLY_RECV, op->cap);
        c->x[REG_REPLY] = TSLOT_REPLY;
        break;
    case OP_SIGNAL:
        set_call(c, SYS_SEND, op->cap, 0, 0);
        break;
    case OP_WAIT:
        set_call(c, SYS_WAIT, op->cap, 0, 0);
        break;
    case OP_POLL:
        set_call(c, SYS_NB_WAIT, op->cap, 0, 0);
        break;
    case OP_IRQ_ACK:
        set_call(c, SYS_CALL, op->cap, INV_IRQ_ACK, 0);
        break;
    case OP_RESUME:
        set_call(c, SYS_CALL, op->cap, INV_TCB_RESUME, 0);
        break;
    case OP_INIT_RECV:
        set_send(c, SYS_NB_SEND_RECV, TSLOT_INIT_EP);
        c->x[REG_SRC] = op->cap;
        c->x[REG_REPLY] = TSLOT_REPLY;
        break;
    case OP_INIT_WAIT:
        set_send(c, SYS_NB_SEND_WAIT, TSLOT_INIT_EP);
        c->x[REG_REPLY] = op->cap;
        break;
    case OP_SERVE_RECV:
        prepare_serve_recv(t, op);
        break;
    default:
        uplat_fail(w, "interpreter: instruction %u is not a system call", op->kind);
    }
}

/* A wait that returned consumed the notification's signal: the job it
 * starts is released when that signal was sent or its interrupt arrived
 * (signals.c). */
static void consume_signal(struct uworld *w, struct uthread *t, uint32_t ntfn)
{
    if (uworld_take_signal(w, t, ntfn))
        t->has_hint = true;
}

/* A serve step's receive returned: the badge to dispatch and the release
 * of the jobs it starts (a call's send time, or when the notification
 * was first signalled). */
static void after_serve_recv(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    uint64_t *L = &t->locals[op->b];
    uint64_t badge = c->x[REG_CAP];

    L[SERVE_LOCAL_BADGE] = badge;
    L[SERVE_LOCAL_REPLY] = 0;
    if (op->min && (badge & SCN_CALL_BADGE)) {
        if (msginfo_length(c->x[REG_INFO]) >= 1) {
            t->hint = c->x[REG_MR0];
            t->has_hint = true;
        }
    } else if (op->a != SCN_NONE) {
        consume_signal(w, t, op->a);
    }
    L[SERVE_LOCAL_RELEASE] = t->hint;
    L[SERVE_LOCAL_HINT] = t->has_hint;
}

/* The next handler of the badge a serve step received: a call's, or the
 * lowest bit left of a signal's (repeats of a bit are one); its receive
 * again when none is left. */
static void serve_dispatch(struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;
    uint64_t *L = &t->locals[op->a];
    uint64_t badge = L[SERVE_LOCAL_BADGE];

    if (badge == 0) {
        c->pc = op->min;
        return;
    }
    t->hint = L[SERVE_LOCAL_RELEASE];
    t->has_hint = L[SERVE_LOCAL_HINT] != 0;
    if (badge & SCN_CALL_BADGE) {
        uint64_t k = badge & ~SCN_CALL_BADGE;
        L[SERVE_LOCAL_BADGE] = 0;
        L[SERVE_LOCAL_REPLY] = 1;
        c->pc = k < SERVE_CHANNELS ? op->b + SERVE_CHANNELS + k : op->min;
        return;
    }
    unsigned bit = (unsigned)__builtin_ctzll(badge);
    L[SERVE_LOCAL_BADGE] = badge & (badge - 1);
    if (bit < SERVE_CHANNELS)
        c->pc = op->b + bit;
}

/* What a completed system call means for the job that may start next. */
static void after_syscall(struct uworld *w, struct uthread *t, const struct op *op)
{
    struct user_context *c = t->ctx;

    t->has_hint = false;
    switch (op->kind) {
    case OP_WAIT:
    case OP_INIT_WAIT:
        consume_signal(w, t, op->a);
        break;
    case OP_POLL:
        if (c->x[REG_CAP] != 0)
            consume_signal(w, t, op->a);
        break;
    case OP_RECV:
    case OP_REPLY_RECV:
    case OP_INIT_RECV:
        if (msginfo_length(c->x[REG_INFO]) >= 1) {
            t->hint = c->x[REG_MR0];
            t->has_hint = true;
        }
        inherit_note_receive(w, t, op);
        break;
    case OP_SERVE_RECV:
        after_serve_recv(w, t, op);
        break;
    case OP_YIELD:
        t->hint = t->yield_release;
        t->has_hint = true;
        t->yielding = false;
        break;
    default:
        break;
    }
}

/* The duration of a compute step: fixed, or drawn from the step's own
 * stream in whole cycles. */
static cycles_t compute_duration(struct uthread *t, const struct op *op)
{
    if (op->rng == UINT32_MAX)
        return op->min;
    return rng_uniform(&t->rngs[op->rng], op->min, op->max);
}

/* The instruction at pc, op, is not a compute step: runs it if it takes
 * no time and returns true, or prepares what the thread does next, fills
 * *action and returns false. */
static bool step(struct uworld *w, struct uthread *t, const struct op *op,
                 enum interp_action *action)
{
    struct user_context *c = t->ctx;

    switch (op->kind) {
    case OP_JOB_BEGIN:
        uplat_job_begin(w, t, uplat_now());
        c->pc++;
        return true;
    case OP_JOB_END:
        uplat_job_end(w, t, uplat_now());
        c->pc++;
        return true;
    case OP_JUMP:
        c->pc = op->a;
        return true;
    case OP_REPEAT_INIT:
        t->locals[op->a] = op->b;
        c->pc++;
        return true;
    case OP_REPEAT_NEXT:
        c->pc = --t->locals[op->a] > 0 ? op->b : c->pc + 1;
        return true;
    case OP_EXIT:
        *action = INTERP_EXIT;
        return false;
    case OP_SERVE_DISPATCH:
        serve_dispatch(t, op);
        return true;
    case OP_TIMEOUTS:
        timeouts_prepare(w, t, op);
        break;
    default:
        if (!inherit_server_prepare(w, t, op))
            prepare_syscall(w, t, op);
        break;
    }
    t->post_op = (uint32_t)c->pc;
    *action = INTERP_SYSCALL;
    return false;
}

/* A system call the thread made has returned (or it is resumed at the
 * call, which it then makes again). */
static void after_trap(struct uworld *w, struct uthread *t)
{
    struct user_context *c = t->ctx;
    const struct op *op = &t->prog.ops[t->post_op];

    if (c->pc == (uint64_t)t->post_op + 1) {
        if (op->kind == OP_TIMEOUTS) {
            c->pc = t->post_op;
            timeouts_after(w, t, op);
        } else if (inherit_server_continues(t, op)) {
            c->pc = t->post_op; /* the receive's next system call */
        } else {
            after_syscall(w, t, op);
        }
    }
    t->post_op = UINT32_MAX;
}

/* Runs the thread's instructions from pc until one needs CPU time or a
 * system call. A compute step in progress is only resumed at its own pc:
 * a thread restarted elsewhere (TCB_WriteRegisters) starts its steps
 * afresh. */
static __attribute__((noinline)) enum interp_action run_steps(struct uworld *w,
                                                              struct uthread *t,
                                                              cycles_t *cycles)
{
    struct user_context *c = t->ctx;
    const struct op *ops = t->prog.ops;
    uint64_t n_ops = t->prog.n_ops;
    enum interp_action action = INTERP_SYSCALL;
    uint32_t zero_time_ops = 0; /* consecutive instructions that took no time */

    if (t->post_op != UINT32_MAX)
        after_trap(w, t);
    for (;;) {
        uint64_t pc = c->pc;
        const struct op *op;

        if (pc >= n_ops)
            uplat_fail(w, "interpreter: thread %u ran past its program (pc %llu)", t->id,
                       (unsigned long long)pc);
        op = &ops[pc];
        if (op->kind == OP_COMPUTE) {
            if (c->x[REG_COMPUTE_ACTIVE] != pc + 1) {
                c->x[REG_COMPUTE_LEFT] = compute_duration(t, op);
                c->x[REG_COMPUTE_ACTIVE] = pc + 1;
                t->has_hint = false;
            }
            if (c->x[REG_COMPUTE_LEFT] != 0) {
                *cycles = c->x[REG_COMPUTE_LEFT];
                return INTERP_COMPUTE;
            }
            c->x[REG_COMPUTE_ACTIVE] = 0;
            c->pc = pc + 1;
        } else {
            c->x[REG_COMPUTE_ACTIVE] = 0;
            if (!step(w, t, op, &action))
                return action;
        }
        if (++zero_time_ops > MAX_ZERO_TIME_OPS)
            uplat_fail(w, "thread %s loops without taking any time",
                       t->id ? w->s->threads[t->id - 1].name : "(root)");
    }
}

enum interp_action interp_next(struct uworld *w, struct uthread *t, cycles_t *cycles)
{
    const struct user_context *c = t->ctx;
    uint64_t pc = c->pc;

    /* Most turns resume a compute step where the last one left it (after
     * an interrupt or a preemption): what run_steps would find, at once. */
    if (t->post_op == UINT32_MAX && pc < t->prog.n_ops && t->prog.ops[pc].kind == OP_COMPUTE &&
        c->x[REG_COMPUTE_ACTIVE] == pc + 1 && c->x[REG_COMPUTE_LEFT] != 0) {
        *cycles = c->x[REG_COMPUTE_LEFT];
        return INTERP_COMPUTE;
    }
    return run_steps(w, t, cycles);
}

enum interp_action interp_next_after_compute(struct uworld *w, struct uthread *t,
                                             cycles_t *cycles)
{
    return run_steps(w, t, cycles);
}

/* Instructions looked at ahead by interp_next_caps, jumps included. */
#define NEXT_CAPS_LOOKAHEAD 8u

/* What instruction op is to interp_next_caps: 1, a system call on op->cap;
 * 0, an instruction that takes no time, a compute step or a call on no
 * capability of its own; -1, one whose call depends on more than the
 * program (a serve, timeouts or start-up step). */
static int op_call_cap(const struct op *op)
{
    switch (op->kind) {
    case OP_CALL:
    case OP_SEND:
    case OP_NBSEND:
    case OP_RECV:
    case OP_REPLY_RECV:
    case OP_SIGNAL:
    case OP_WAIT:
    case OP_POLL:
    case OP_IRQ_ACK:
    case OP_RESUME:
        return 1;
    case OP_JOB_BEGIN:
    case OP_JOB_END:
    case OP_COMPUTE:
    case OP_JUMP:
    case OP_YIELD:
    case OP_REPLY:
        return 0;
    default:
        return -1;
    }
}

bool interp_names_caps(const struct uthread *t)
{
    for (uint32_t i = 0; i < t->prog.n_ops; i++) {
        if (op_call_cap(&t->prog.ops[i]) == 1)
            return true;
    }
    return false;
}

unsigned interp_next_caps(const struct uthread *t, cptr_t *caps, unsigned max, uint64_t *same_to)
{
    uint64_t start = t->ctx->pc, pc = start;
    unsigned n = 0;

    *same_to = pc;
    for (unsigned k = 0; k < NEXT_CAPS_LOOKAHEAD && n < max && pc < t->prog.n_ops; k++) {
        const struct op *op = &t->prog.ops[pc];
        int what = op_call_cap(op);
        if (what < 0 || op->kind == OP_YIELD || op->kind == OP_REPLY)
            break; /* past a call on no capability of the thread's steps */
        if (what == 1) {
            if (n == 0 && pc == start + k)
                *same_to = pc; /* no jump before the first call */
            caps[n++] = op->cap;
        }
        pc = op->kind == OP_JUMP ? op->a : pc + 1;
    }
    return n;
}

void interp_computed(struct uworld *w, struct uthread *t, cycles_t ran)
{
    struct user_context *c = t->ctx;
    (void)w;
    c->x[REG_COMPUTE_LEFT] -= ran;
}

/* What the system call about to be made means to the world outside the
 * kernel, at the instant it is made: a signal's release time, a yield's
 * default release, a Call noted for `inherit`. */
static void before_trap(struct uworld *w, struct uthread *t)
{
    const struct op *op;

    if (t == NULL || t->post_op == UINT32_MAX)
        return;
    op = &t->prog.ops[t->post_op];
    t->signal_set = UINT32_MAX;
    if (op->kind == OP_SIGNAL) {
        uworld_signal_made(w, t, op->a);
    } else if (w->watch_delivery && (op->kind == OP_WAIT || op->kind == OP_SERVE_RECV ||
                                     op->kind == OP_INIT_WAIT || op->kind == OP_POLL)) {
        uworld_wait_made(t);
    } else if (op->kind == OP_CALL) {
        inherit_note_call(w, t, op);
    } else if (op->kind == OP_YIELD) {
        t->yielding = true;
        t->yield_release = uplat_now();
    }
}

void interp_trap(struct uworld *w, struct uthread *t)
{
    before_trap(w, t);
    uplat_trap(w, t ? t->ctx : w->threads[0].ctx);
}

bool interp_unstarted_release(struct uworld *w, struct uthread *t, bool runnable,
                              cycles_t *release)
{
    uint64_t pc = t->ctx ? t->ctx->pc : 0;

    if (t->in_job || pc >= t->prog.n_ops)
        return false;
    if (t->post_op != UINT32_MAX && pc == (uint64_t)t->post_op + 1) {
        if (!runnable)
            return false; /* still blocked: what would release it never came */
        after_syscall(w, t, &t->prog.ops[t->post_op]);
        t->post_op = UINT32_MAX;
    }
    /* starved before it could even wait: a signal it would have taken
     * at once released the job that follows the wait */
    if (t->prog.ops[pc].kind == OP_WAIT && pc + 1 < t->prog.n_ops &&
        t->prog.ops[pc + 1].kind == OP_JOB_BEGIN) {
        t->has_hint = false;
        consume_signal(w, t, t->prog.ops[pc].a);
        pc++;
    }
    if (t->prog.ops[pc].kind != OP_JOB_BEGIN || !t->has_hint)
        return false;
    *release = t->hint;
    return true;
}
