/*
 * The platform contract: everything kernel-core needs from a platform and
 * nothing more (DESIGN.md "The HAL contract"). hal-sim implements it on the
 * host with a simulated clock; hal-arm on QEMU's AArch64 virt machine.
 * The kernel is never preempted: no hal_ function calls back into it.
 */
#ifndef MCSIM_HAL_H
#define MCSIM_HAL_H

#include <stdint.h>
#include <mcsim/abi.h>
#include <mcsim/trace.h>

/* Kernel work the platform accounts for. The entry and exit costs are the
 * platform's own (it charges them around each call into the kernel). */
enum hal_cost {
    COST_SYSCALL,       /* decode and dispatch one system call */
    COST_IPC,           /* one message transfer */
    COST_SCHEDULE,      /* pick the next thread and switch to it */
    COST_TIMER_PROGRAM, /* reprogram the one-shot timer */
    COST_IRQ,           /* take an interrupt and signal its handler */
    COST_TICK,          /* handle a periodic tick (classic) */
    COST_COUNT
};

/* Read the clock, in timer ticks. Called once per kernel entry, right
 * after entry (seL4: updateTimestamp). */
ticks_t hal_time_now(void);

/* Program the one-shot timer to fire at `deadline` (ticks; may be in the
 * past, then it fires as soon as the kernel returns). Replaces the
 * previous deadline. Only the kernel's timer module calls it. */
void hal_timer_set(ticks_t deadline);

/* Mask, unmask and acknowledge an interrupt line (0..num_irqs-1). A masked
 * line keeps at most one pending interrupt. */
void hal_irq_mask(uint32_t line);
void hal_irq_unmask(uint32_t line);

/* Account kernel work of one kind. hal-sim advances its clock by the
 * scenario's cost; a real platform does nothing. */
void hal_account(enum hal_cost cost);

/* Emit one trace record. The platform may stamp it with its own clock. */
void hal_trace(const struct trace_record *rec);

/* Rewind a thread's program counter so that its system call is made again
 * when it next runs (seL4: the Restart state). */
void hal_context_restart(struct user_context *ctx);

/* Stop on a fatal kernel error. Does not return. */
_Noreturn void hal_fatal(const char *msg);

#endif /* MCSIM_HAL_H */
