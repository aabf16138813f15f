/*
 * The simulated world of one run on the host, shared by the engine's
 * modules (engine, recorder, uplat_sim): the platform, the user-level
 * world the root task and the interpreter keep (struct uworld, portable:
 * sim/uworld.h) and the schedule being recorded. Private to sim/.
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
#include "hal_sim.h"
#include "engine.h"
#include "program.h"
#include "rng.h"
#include "scenario.h"
#include "sink.h"
#include "uworld.h"

struct irq_line_state {
    bool pending;              /* an arrival waits on the line */
    cycles_t arrival;          /* of that arrival */
    int32_t device;
    uint32_t notification;     /* the one that device signals */
    /* the last delivery, held until the thread it woke first runs (its
     * irqs row then has the handler's start) */
    bool held;
    cycles_t held_arrival, held_delivered;
    int32_t held_device;
    uint32_t woken;            /* trace id of the thread it woke, 0: none */
    int32_t held_next;         /* the next held line of the same `woken`, -1: none */
    uint32_t waiter;           /* trace id of the thread waiting on its device's
                                  notification + 1, 0: not looked up yet */
};

/* A device's next arrival, and the line and notification it raises and
 * signals (copied from the scenario: the engine's pass over the devices
 * reads nothing else of theirs). */
struct device_next {
    cycles_t at;
    uint32_t irq, notification;
};

/* A thread's run of system calls the kernel restarted (the MIN_BUDGET
 * rule) with none performed between them: the recorder reports a thread
 * that makes no progress (rec_kernel_entry, SINK_PROGRESS_RESTARTS). */
struct progress_state {
    uint32_t restarts;      /* in a row, so far */
    bool restarted;         /* in the entry being made */
    bool reported;          /* its no_progress event is recorded */
    cycles_t since;         /* the entry of the first restart in the row */
    uint64_t consumed;      /* cycles charged by the last budget check that restarted it */
    uint64_t budget;        /* the budget of the context that paid (cycles) */
};

/* Kernel entries of one kind made from one thread (trapped into or
 * interrupted), summed over the run: the kernel_stats rows. */
struct kernel_tally {
    uint64_t entries, cycles;
    uint64_t decisions, decision_cycles, sched_cycles;
    uint64_t timer_programs, timer_cycles;
};

/* A thread's next calls' CNode slots, as found from any pc in [pc, pc_to]
 * (engine.c). */
struct prefetch_hint {
    uint64_t pc, pc_to;
    const void *slot[2];
};

struct world {
    /* What user-level code sees (the root task, the interpreter): the
     * scenario, the scheduler, the duration, the threads, the start times
     * and the notifications' pending signals are read through it. */
    struct uworld u;
    const struct eng_options *opt;
    struct eng_result *res;
    jmp_buf fatal;             /* hal_fatal and internal errors land here */

    bool timeline;             /* boot is over: time runs and rows are recorded */
    bool rows;                 /* rows are wanted: the sink is not the null sink */
    struct user_context *cur;  /* the context the kernel runs (NULL: idle) */
    struct uthread *last;      /* the thread the engine last ran (engine.c) */
    /* [thread id]: what to prefetch when the kernel switches to it
     * (engine.c prefetch_calls); NULL: not looked for (few threads) */
    struct prefetch_hint *hints;

    /* the kernel's current thread and paying context, from its trace */
    uint32_t cur_id;
    uint64_t cur_badge;
    cycles_t slice_start;

    struct device_gen *devices;
    struct device_next *next_arrival; /* per device */
    cycles_t first_arrival;    /* the earliest of next_arrival[] */
    struct irq_line_state lines[HAL_SIM_DEVICE_LINES];
    uint32_t next_start;       /* the next of u.start_times to raise */
    cycles_t next_start_at;    /* its time, HAL_SIM_NEVER after the last */
    cycles_t next_due;         /* the earliest of first_arrival, next_start_at, duration */

    uint64_t event_seq;

    /* Lines whose delivery waits for its handler, listed by the thread
     * the delivery woke ([0]: none yet), so that a kernel entry visits
     * only the lines it may release: those of the thread it returns to,
     * and one it took that woke nobody. -1 ends a list. */
    uint32_t n_held;
    int32_t *held_by;          /* [thread id], u.n_threads of them */
    /* per thread id and kind; [u.n_threads]: the idle CPU */
    struct kernel_tally (*tally)[HAL_SIM_ENTRY_KINDS];
    struct progress_state *progress; /* [thread id], u.n_threads of them */
    uint64_t exhausted_consumed;     /* the last budget check's charge (cycles) */
    uint64_t exhausted_badge;        /* ...and its context */
};

/* Allocate the recorder's tables for w->u.n_threads threads (after
 * uworld_init); fails the run when memory is short. rec_release frees them. */
void rec_init(struct world *w);
void rec_release(struct world *w);

/* Start the world of a run of `s` with options `o`: w and r cleared, the
 * scenario, scheduler and duration set in w->u (uworld_init sets them
 * again), nothing allocated. The caller then setjmps w->fatal. */
void world_begin(struct world *w, const struct scenario *s, const struct eng_options *o,
                 struct eng_result *r);

/* The sink's run_begin, the run made on platform `hal` ("sim", "qemu");
 * its failure stops the run (longjmps). */
void world_sink_begin(struct world *w, const char *hal);

/* End it: the sink's run_end, whose failure becomes ENG_SINK_ERROR unless
 * the run already failed. */
void world_end(struct world *w);

/* Stop the run with an internal error (exit status 3): longjmps. */
_Noreturn void world_fail(struct world *w, const char *fmt, ...);

/* A sink call failed: stop the run (longjmps). */
void world_sink_check(struct world *w, int rc);

/* ---- recorder (recorder.c) ---- */

/* Kernel records become rows (the engine's trace callback, and replay). */
void rec_trace(void *ctx, const struct trace_record *rec, uint64_t entry_cycle, uint64_t now);

/* The kinds of record rec_trace acts on in this run, one bit each (all
 * with --trace full): it may be skipped for the others. */
uint32_t rec_trace_kinds(const struct world *w);

/* Timeline starts / ends: open the first slice; close every open row. */
void rec_timeline_start(struct world *w);
void rec_finish(struct world *w, cycles_t end);

/* Jobs and interrupts, from the interpreter and the engine. */
void rec_job_begin(struct world *w, struct uthread *t, cycles_t now);
void rec_job_end(struct world *w, struct uthread *t, cycles_t now);
void rec_irq(struct world *w, uint32_t device, uint32_t line, cycles_t arrival,
             cycles_t delivered, bool lost);

/* The CPU takes device line `line`, whose arrival is pending, at `now`:
 * its irqs row is held until the thread the interrupt wakes runs. */
void rec_irq_taken(struct world *w, uint32_t line, cycles_t now);

/* The kernel delivered the interrupt taken on `line` and woke thread
 * `woken` (a trace id; 0: none), as its TR_IRQ record says. */
void rec_irq_woke(struct world *w, uint64_t line, uint32_t woken);

/* The hal-sim entry callback: tally the entry; a held delivery whose
 * handler the kernel returns to is recorded with the handler's start. */
void rec_kernel_entry(void *ctx, const struct hal_sim_entry *e);
void rec_budget(struct world *w, uint32_t thread, uint32_t sc_thread, cycles_t time,
                enum sink_budget_kind kind, uint64_t amount);

#endif /* MCSIM_SIM_WORLD_H */
