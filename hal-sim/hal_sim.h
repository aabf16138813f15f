/*
 * hal-sim: the simulated platform. A 64-bit cycle counter at cpu_hz, a
 * one-shot compare timer counting timer_hz ticks, an interrupt controller
 * (1024 device lines plus the kernel timer and the root task's start
 * timer, one pending interrupt per line), and the kernel cost model: every
 * kernel entry costs `entry`, then the work the kernel accounts, then
 * `exit`, in cycles. Implements kernel-core/include/hal.h on the host.
 *
 * Conversions (exact, 128-bit): the clock reads floor(cycle * timer_hz /
 * cpu_hz) ticks; a deadline of D ticks fires at the first cycle whose
 * reading is D, ceil(D * cpu_hz / timer_hz). With timer_hz == cpu_hz a
 * tick is a cycle.
 *
 * One platform exists per process at a time (the kernel is a singleton).
 */
#ifndef MCSIM_HAL_SIM_H
#define MCSIM_HAL_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "hal.h"
#include <mcsim/bootinfo.h>

#define HAL_SIM_DEVICE_LINES 1024
#define HAL_SIM_TIMER_IRQ 1024  /* the kernel's one-shot timer */
#define HAL_SIM_START_IRQ 1025  /* the root task's start timer */
#define HAL_SIM_NUM_IRQS 1026
#define HAL_SIM_NEVER UINT64_MAX

struct hal_sim_costs {
    uint64_t entry, exit, syscall, ipc, schedule, timer_program, irq, tick;
};

/* Called for every kernel trace record, with the cycle at which the kernel
 * read the clock in this entry (its events belong to that instant) and
 * the cycle now. */
typedef void (*hal_sim_trace_fn)(void *ctx, const struct trace_record *rec, uint64_t entry_cycle,
                                 uint64_t now);

/* One kernel entry, reported when the kernel returns to user level (or to
 * idle): what it cost and what it did. Entries during boot are not
 * reported. */
enum hal_sim_entry_kind {
    HAL_SIM_ENTRY_SYSCALL,  /* a system call */
    HAL_SIM_ENTRY_IRQ,      /* a device's interrupt or the start timer's */
    HAL_SIM_ENTRY_TIMER,    /* the kernel's timer (MCS deadline, classic tick) */
    HAL_SIM_ENTRY_EXIT,     /* a program's end (kernel_thread_exit) */
    HAL_SIM_ENTRY_KINDS
};

struct hal_sim_entry {
    enum hal_sim_entry_kind kind;
    uint64_t start;         /* the cycle of the trap */
    uint64_t cycles;        /* entry + the kernel's work + exit */
    uint64_t sched_cycles;  /* of which: choosing a thread (`schedule`) */
    uint64_t timer_cycles;  /* of which: reprogramming the timer */
    uint32_t from;          /* trace id of the thread that trapped or was
                               interrupted (TRACE_IDLE: the CPU was idle) */
    uint32_t to;            /* trace id of the thread the kernel returns to */
    bool scheduled;         /* the scheduler chose a thread: a scheduling decision */
    bool timer;             /* the one-shot timer was reprogrammed */
};

typedef void (*hal_sim_entry_fn)(void *ctx, const struct hal_sim_entry *e);

/* Called by hal_fatal; must not return (the engine longjmps). */
typedef void (*hal_sim_fatal_fn)(void *ctx, const char *msg);

struct hal_sim_config {
    uint64_t cpu_hz;
    uint64_t timer_hz;
    struct hal_sim_costs costs;
    unsigned untyped_bits;      /* size of the one untyped region */
    unsigned root_cnode_bits;   /* the root task's CNode radix (boot_config) */
    hal_sim_trace_fn trace;
    uint32_t trace_skip;        /* kinds of record not passed to `trace`, one bit
                                   each (0: all are); every record is counted */
    hal_sim_entry_fn entry_done; /* may be NULL */
    hal_sim_fatal_fn fatal;
    void *ctx;
};

/* Create the platform at cycle 0. Returns 0, or -1 if memory is short. */
int hal_sim_init(const struct hal_sim_config *cfg);

/* Free the platform's memory. */
void hal_sim_release(void);

/* Boot the kernel with `cfg` (scheduler, priorities, budgets; the
 * platform fills memory, IRQ lines and timer line). Boot happens before
 * time 0: no cost is charged and the clock does not move. Returns the
 * root task's context. */
struct user_context *hal_sim_boot(struct boot_config *cfg);

/* The root task has built the system: the timeline starts (at cycle 0)
 * and from now on kernel work costs time. */
void hal_sim_end_boot(void);

/* The cycle counter. */
uint64_t hal_sim_now(void);

/* User code ran until `cycle` (>= now). */
void hal_sim_advance(uint64_t cycle);

/* The cycle at which the kernel's timer fires, HAL_SIM_NEVER if unarmed. */
uint64_t hal_sim_timer_cycle(void);

/* A device (or the start timer) asserts `line` now. Returns false when the
 * arrival is lost: the line already has a pending interrupt. */
bool hal_sim_irq_raise(uint32_t line);

/* The line the CPU takes next at this cycle, in the format's order (the
 * kernel timer if due, then the start timer, then device lines
 * ascending), among pending unmasked lines; -1 if none. */
int hal_sim_next_irq(void);

/* True if `line` is masked (taken and not yet acknowledged). */
bool hal_sim_irq_masked(uint32_t line);

/* Trap into the kernel: a system call of the current thread, or the
 * interrupt `line` (which stops being pending). Each charges entry, the
 * kernel's work and exit, and returns the context to run (NULL: idle). */
struct user_context *hal_sim_syscall(void);
struct user_context *hal_sim_interrupt(uint32_t line);

/* The current thread's program ended: it traps into the kernel, which
 * suspends it (kernel_thread_exit). Costs entry and exit like any trap. */
struct user_context *hal_sim_thread_exit(void);

/* Tick/cycle conversions of this platform. */
uint64_t hal_sim_cycles_to_ticks(uint64_t cycles);
uint64_t hal_sim_ticks_to_cycles(uint64_t ticks);

/* The same conversions for any rates (timer_hz <= cpu_hz): the clock's
 * reading at a cycle, floor(cycles * timer_hz / cpu_hz), and the first
 * cycle whose reading is `ticks`, ceil(ticks * cpu_hz / timer_hz)
 * (HAL_SIM_NEVER past the end of time). */
uint64_t hal_sim_ticks_at(uint64_t cycles, uint64_t cpu_hz, uint64_t timer_hz);
uint64_t hal_sim_cycles_at(uint64_t ticks, uint64_t cpu_hz, uint64_t timer_hz);

/* The duration, in cycles, that a context parameter of `cycles` becomes
 * in the kernel: the root task hands the kernel whole ticks, rounded down
 * as seL4's usToTicks rounds (SchedControl_ConfigureFlags). Equal to
 * `cycles` when it is a whole number of ticks. */
uint64_t hal_sim_held_cycles(uint64_t cycles, uint64_t cpu_hz, uint64_t timer_hz);

/* Kernel cycles spent so far (entries, work and exits). */
uint64_t hal_sim_kernel_cycles(void);
uint64_t hal_sim_kernel_entries(void);

/* Trace records the kernel emitted so far, boot included, whether passed
 * to the trace callback or skipped. */
uint64_t hal_sim_trace_records(void);

#endif /* MCSIM_HAL_SIM_H */
