/*
 * The simulated world of one run, shared by the engine's modules (engine,
 * root task, interpreter, recorder): the platform, each thread's user-level
 * state and the schedule being recorded. Private to sim/.
 *
 * Thread ids: 0 is the root task, scenario thread i is i + 1 (the trace id
 * its TCB is given, and its `thread_id` in the database).
 */
#ifndef MCSIM_SIM_WORLD_H
#define MCSIM_SIM_WORLD_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include <mcsim/abi.h>
#include <mcsim/trace.h>

#include "devices.h"
#include "engine.h"
#include "program.h"
#include "rng.h"
#include "scenario.h"
#include "sink.h"

/* Badges of scheduling contexts, which name them in traces. */
#define BADGE_NTFN_BASE 0x10000u  /* + notification index */
#define BADGE_SPARE_BASE 0x20000u /* + handler thread id */
#define BADGE_ROOT 0x30000u

/* Registers the interpreter keeps its own state in (user registers). */
#define REG_COMPUTE_LEFT 20
#define REG_COMPUTE_ACTIVE 21
#define REG_HT_STATE 22   /* handle_timeouts: the stage of the fault in hand */
#define REG_HT_SERVER 23
#define REG_HT_CLIENT 24
#define REG_HT_GRANTS 25

/* Message register 0 of every message a thread sends: the send time, so
 * that the receiver's job is released at it (SCENARIO-FORMAT.md "Jobs"). */

struct uthread {
    uint32_t id;               /* thread id */
    struct program prog;
    uint64_t *locals;          /* repeat counters: the thread's memory */
    struct rng *rngs;          /* one stream per random compute step */
    struct user_context *ctx;  /* its saved registers (in its TCB) */
    cycles_t start;
    cycles_t deadline;
    bool has_deadline;
    /* the release of a job that starts now, set by how the thread woke */
    cycles_t hint;
    bool has_hint;
    uint32_t post_op;          /* the system call whose result is pending, or UINT32_MAX */
    /* the open job */
    bool in_job;
    uint32_t jobs;
    cycles_t job_release, job_start;
    cycles_t yield_release;    /* set by a throttle during its yield */
    bool yielding;
    uint32_t signal_set;       /* the notification its last signal made pending,
                                  undone if the kernel defers the call */
    uint64_t zero_time_ops;    /* consecutive instructions that took no time */
    uint64_t replies;          /* requests it answered: memory it shares with its
                                  timeout handler (one emergency grant a request) */
    /* root-task slots, for inspection at the end */
    cptr_t tcb_slot, sc_slot, cnode_slot, reply_slot;
};

struct irq_line_state {
    bool pending;              /* an arrival waits on the line */
    cycles_t arrival;          /* of that arrival */
    int32_t device;
};

struct world {
    const struct scenario *s;
    const struct eng_options *opt;
    struct eng_result *res;
    jmp_buf fatal;             /* hal_fatal and internal errors land here */

    bool mcs;
    bool timeline;             /* boot is over: time runs and rows are recorded */
    cycles_t duration;

    uint32_t n_threads;        /* scenario threads + the root task */
    struct uthread *threads;   /* [0] = root task */
    struct user_context *cur;  /* the context the kernel runs (NULL: idle) */

    /* the kernel's current thread and paying context, from its trace */
    uint32_t cur_id;
    uint64_t cur_badge;
    cycles_t slice_start;

    struct device_gen *devices;
    cycles_t *next_arrival;    /* per device */
    struct irq_line_state lines[260];
    cycles_t *start_times;     /* distinct start times > 0, ascending */
    uint32_t n_start_times, next_start;

    /* per notification: the release time of its first unconsumed signal */
    cycles_t *ntfn_release;
    bool *ntfn_pending;

    /* root-task slots of the objects */
    cptr_t *ep_slots, *ntfn_slots, *irq_slots, *ntfn_sc_slots;
    cptr_t init_ep_slot, start_ntfn_slot, start_irq_slot, next_free_slot;

    uint64_t event_seq;
    char error[256];
};

/* Stop the run with an internal error (exit status 3): longjmps. */
_Noreturn void world_fail(struct world *w, const char *fmt, ...);

/* The uthread of a thread id (NULL for the idle thread or an unknown id). */
struct uthread *world_thread(struct world *w, uint32_t id);

/* A sink call failed: stop the run (longjmps). */
void world_sink_check(struct world *w, int rc);

/* ---- root task (roottask.c) ---- */

/* Build the system through system calls at boot, then give the root task
 * its program (start timers). Fails the run on a kernel error. */
void root_build(struct world *w);

/* ---- interpreter (interp.c) ---- */

enum interp_action {
    INTERP_COMPUTE,  /* the thread computes: *cycles left of its step */
    INTERP_SYSCALL,  /* its registers hold a system call */
    INTERP_EXIT,     /* its program ended: it halts, before any interrupt of
                        this cycle is taken (SCENARIO-FORMAT.md "Time") */
};

/* Run thread t's instructions that take no time, up to its next compute
 * step or system call. */
enum interp_action interp_next(struct world *w, struct uthread *t, cycles_t *cycles);

/* The thread computed for `ran` cycles of its current step. */
void interp_computed(struct world *w, struct uthread *t, cycles_t ran);

/* Make thread t's pending system call (registers set by interp_next); t
 * is the running thread. */
void interp_trap(struct world *w, struct uthread *t);

/* ---- recorder (recorder.c) ---- */

/* The hal-sim trace callback: kernel records become rows. */
void rec_trace(void *ctx, const struct trace_record *rec, uint64_t entry_cycle, uint64_t now);

/* Timeline starts / ends: open the first slice; close every open row. */
void rec_timeline_start(struct world *w);
void rec_finish(struct world *w, cycles_t end);

/* Jobs and interrupts, from the interpreter and the engine. */
void rec_job_begin(struct world *w, struct uthread *t, cycles_t now);
void rec_job_end(struct world *w, struct uthread *t, cycles_t now);
void rec_irq(struct world *w, uint32_t device, uint32_t line, cycles_t arrival,
             cycles_t delivered, bool lost);
void rec_budget(struct world *w, uint32_t thread, uint32_t sc_thread, cycles_t time,
                enum sink_budget_kind kind, uint64_t amount);

#endif /* MCSIM_SIM_WORLD_H */
