/*
 * Trace sinks: where a run's schedule goes. One interface, several
 * backends (SQLite in cli/, a null sink for benchmarks), as git's
 * ref_storage_be. The engine turns kernel trace records and interpreter
 * markers into the rows below and hands them over in time order per kind;
 * a sink never sees kernel structures.
 *
 * Thread ids: 0 is the root task, scenario thread i is i + 1.
 * Device ids and notification ids are scenario indices.
 * Every callback returns 0 on success or -1 on failure, after filling the
 * sink's diagnostic; the engine stops at the first failure.
 */
#ifndef MCSIM_SIM_SINK_H
#define MCSIM_SIM_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

#define SINK_NO_THREAD UINT32_MAX
#define SINK_NO_TIME UINT64_MAX

/* What describes a run besides its scenario (the `runs` row). */
struct sink_run_meta {
    const char *hal;       /* "sim" or "qemu" */
    const char *version;   /* mcsim's version */
    uint64_t seed;
    cycles_t duration;
    uint8_t scheduler;     /* enum sched_mode */
    bool trace_full;       /* --trace full: every kernel event goes to events */
};

/* An execution interval [start, end) of `thread`, paid by the context of
 * `sc_thread`, or, when that is SINK_NO_THREAD, by the context of
 * notification `sc_notification` (SINK_NO_THREAD if neither is known). */
struct sink_slice {
    uint32_t thread;
    uint32_t sc_thread;
    uint32_t sc_notification;
    cycles_t start, end;
};

/* A job as docs/scenario-format.md "Jobs" defines it. finish and response are
 * SINK_NO_TIME for an unfinished job. */
struct sink_job {
    uint32_t thread;
    uint32_t job;          /* 1, 2, ... per thread */
    cycles_t release, start, finish, deadline, response;
    bool missed;
};

enum sink_budget_kind {
    BUDGET_EXHAUSTED,
    BUDGET_THROTTLE,
    BUDGET_REPLENISH,
    BUDGET_TIMEOUT_FAULT,
    BUDGET_EMERGENCY,
};

struct sink_budget_event {
    uint32_t thread;       /* the thread it happened to */
    uint32_t sc_thread;    /* the thread that owns the context (SINK_NO_THREAD:
                              a notification's context) */
    cycles_t time;
    enum sink_budget_kind kind;
    uint64_t amount;       /* cycles: consumed, granted or replenished; 0 if none */
};

struct sink_irq {
    uint32_t device;
    uint32_t line;
    cycles_t arrival;
    cycles_t delivered;    /* SINK_NO_TIME if never */
    bool lost;
    /* the thread the delivery woke (SINK_NO_THREAD: none was waiting) and
     * the cycle it first ran user code after it (SINK_NO_TIME: it never
     * did before the end, or none was woken): the interrupt latency is
     * handler_start - arrival */
    uint32_t handler;
    cycles_t handler_start;
};

/* The kinds of kernel entry, as hal-sim reports them (same order). */
enum sink_entry_kind {
    ENTRY_SYSCALL, /* a system call */
    ENTRY_IRQ,     /* a device's interrupt, or the root task's start timer */
    ENTRY_TIMER,   /* the kernel's timer: an MCS deadline or a classic tick */
    ENTRY_EXIT,    /* a program's end */
};

/* The kernel entries of one kind made from one thread over the whole run
 * (trapped into or interrupted in it; SINK_NO_THREAD: the CPU was idle). */
struct sink_kernel_stats {
    uint32_t thread;
    enum sink_entry_kind kind;
    uint64_t entries, cycles;     /* entries and their cycles, entry to exit */
    uint64_t decisions;           /* entries that made a scheduling decision */
    uint64_t decision_cycles;     /* their cycles, entry to exit */
    uint64_t sched_cycles;        /* cycles of the decisions themselves (`schedule`) */
    uint64_t timer_programs;      /* entries that reprogrammed the timer */
    uint64_t timer_cycles;        /* cycles of reprogramming */
};

/* One kernel or interpreter event for the `events` table. */
struct sink_event {
    uint64_t seq;
    cycles_t time;
    const char *kind;      /* a trace kind name (mcsim/trace.h) */
    uint32_t thread;       /* SINK_NO_THREAD if none */
    uint64_t object;
    uint64_t arg;
    uint64_t arg2;         /* the kind's second argument; signal: the thread woken;
                              SINK_NO_ARG when it has none */
};

#define SINK_NO_ARG UINT64_MAX

/* A periodic context's refill list after the kernel changed it (the
 * `refills` table): at configuration, at each charge (refill_budget_check)
 * and each unblock check that moved its head. */
struct sink_refill {
    uint32_t thread;       /* the thread bound to the context (SINK_NO_THREAD: none) */
    uint32_t sc_thread;    /* the thread that owns the context (SINK_NO_THREAD: a
                              notification's or a spare one) */
    cycles_t time;         /* the clock reading of the kernel entry that changed it */
    cycles_t head_time, head_amount; /* the head refill */
    uint32_t count, max;   /* refills in use, and the list's capacity
                              (MIN_REFILLS + extra_refills) */
};

/* A thread whose system call the kernel restarted this many times in a row
 * makes no progress: its budget less what one kernel entry consumes is
 * below MIN_BUDGET (seL4/microkit #285). The recorder then records one
 * `no_progress` event for it, at the first restart of the row (thread;
 * object: the cycles the last restarted entry had consumed at its budget
 * check; arg: the paying context's budget). */
#define SINK_PROGRESS_RESTARTS 100

struct sink_expectation {
    uint32_t idx;
    const char *text;
    bool passed;
    const char *detail;
};

struct sink_final_refill {
    uint32_t thread;       /* the thread that owns the context */
    uint32_t idx;          /* 0 = head */
    cycles_t time, amount;
};

struct trace_sink_ops {
    /* A run starts: record the run and its threads; the run is unfinished. */
    int (*run_begin)(void *self, const struct scenario *s, const struct sink_run_meta *meta);
    int (*slice)(void *self, const struct sink_slice *r);
    int (*job)(void *self, const struct sink_job *r);
    int (*budget_event)(void *self, const struct sink_budget_event *r);
    int (*irq)(void *self, const struct sink_irq *r);
    int (*event)(void *self, const struct sink_event *r);
    /* Optional: may be NULL. */
    int (*refill)(void *self, const struct sink_refill *r);
    int (*expectation)(void *self, const struct sink_expectation *r);
    /* The refills of a thread's context when the run ended (the
     * `final_refills` table). Optional: may be NULL. */
    int (*final_refill)(void *self, const struct sink_final_refill *r);
    /* The kernel's work per thread, once per thread at the end of the run
     * (the `kernel_stats` table). Optional: may be NULL. */
    int (*kernel_stats)(void *self, const struct sink_kernel_stats *r);
    /* Make everything written so far durable. `finished` marks the run
     * complete; a run never marked so stays unfinished. */
    int (*run_end)(void *self, bool finished);
};

struct trace_sink {
    const struct trace_sink_ops *ops;
    void *self;
};

#endif /* MCSIM_SIM_SINK_H */
