/*
 * The platform under user-level code: the few services the root task, the
 * interpreter and handle_timeouts (sim/uworld.h) take from wherever they
 * run. The host engine implements them over hal-sim (sim/uplat_sim.c), the
 * ARM image over `svc`, the generic timer and a record ring drained by
 * its trace writer (image/uplat_arm.c).
 *
 * Times are CPU cycles of the scenario (cpu_hz); kernel durations are the
 * platform's timer ticks.
 */
#ifndef MCSIM_SIM_UPLAT_H
#define MCSIM_SIM_UPLAT_H

#include <stdbool.h>
#include <stdint.h>

#include <mcsim/abi.h>

#include "scenario.h"
#include "sink.h"
#include "uworld.h"

/* The clock: cycles since the timeline started (0 during boot). */
cycles_t uplat_now(void);

/* A duration in cycles as the kernel's timer ticks (rounded down), and
 * back (rounded up), exactly as the platform's clock converts them. */
uint64_t uplat_ticks(cycles_t cycles);
cycles_t uplat_cycles(uint64_t ticks);

/* Make the system call held in `c`'s registers (mcsim/abi.h); `c` is the
 * running thread's register file. Its program counter is advanced past
 * the call first, so that a call the kernel restarts is made again.
 * Host: returns at once, the engine then runs whichever thread the kernel
 * chose; ARM: returns when the thread runs again, with the results in `c`. */
void uplat_trap(struct uworld *w, struct user_context *c);

/* The root task's system call at boot (before the timeline starts): as
 * uplat_trap, but returns only when the root task runs again. Unless
 * `may_block`, nothing else may have run in between (the run fails). */
void uplat_boot_call(struct uworld *w, struct user_context *c, bool may_block);

/* Stop the run with an internal error (exit status 3). Does not return. */
_Noreturn void uplat_fail(struct uworld *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Jobs as the interpreter sees them: thread t starts a job at `now`, its
 * release being t->hint when t->has_hint; t finishes its job at `now`. */
void uplat_job_begin(struct uworld *w, struct uthread *t, cycles_t now);
void uplat_job_end(struct uworld *w, struct uthread *t, cycles_t now);

/* A budget event made by user code (handle_timeouts' emergency grant). */
void uplat_budget(struct uworld *w, uint32_t thread, uint32_t sc_thread, cycles_t time,
                  enum sink_budget_kind kind, uint64_t amount);

#endif /* MCSIM_SIM_UPLAT_H */
