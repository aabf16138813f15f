/*
 * kernel-core's entry points (called by a platform) and its inspection API
 * (for tests, the invariant checker's reports and end-of-run records).
 * Every entry point returns the user context of the thread to run next,
 * or NULL when the idle thread runs; the platform restores that context.
 */
#ifndef MCSIM_KERNEL_H
#define MCSIM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <mcsim/abi.h>
#include <mcsim/bootinfo.h>

/* Boot: build the root task (TCB, CNode with the root_slot layout, a
 * round-robin context, IRQControl, SchedControl, one Untyped cap per region)
 * and return its context. */
struct user_context *kernel_boot(const struct boot_config *cfg);

/* The current thread made a system call: its saved context holds the
 * syscall number in x[REG_SYSCALL] and the arguments (mcsim/abi.h); its pc
 * already points after the call. */
struct user_context *kernel_syscall(void);

/* Interrupt `line` is pending (the kernel timer's line included). The
 * platform calls this only between user instructions. */
struct user_context *kernel_interrupt(uint32_t line);

/* The current thread halted: its program ended (the platform's "thread
 * exit" exception). The kernel suspends it, as seL4 makes a thread whose
 * fault has no handler inactive. Unlike a system call this is not a
 * request for kernel service, so the MIN_BUDGET rule does not defer it:
 * a program that ends exactly when its budget does is gone at that
 * instant (docs/scenario-format.md "Time": a finished program takes no time). */
struct user_context *kernel_thread_exit(void);

/* The trace id of the thread the kernel last chose (TRACE_IDLE if idle). */
uint32_t kernel_current_trace_id(void);

/* For a host platform's cache hints, no kernel operation: the address of
 * the CNode slot `cptr` names in the CSpace of the thread whose saved
 * registers `ctx` are (a context the kernel returned), when that CSpace
 * is one CNode (the root task's layout, the common case); NULL otherwise.
 * It reads the thread's CSpace root only and changes nothing. The host
 * engine prefetches the slots of the calls a thread is about to make,
 * where a thousand threads' CNodes no longer stay in the cache. */
const void *kernel_slot_address(const struct user_context *ctx, uint64_t cptr);

/* For a host platform's cache hints too: start bringing into the data
 * cache the parts of that thread's TCB its next kernel entries read
 * outside its registers (its CSpace root, its timeout handler slot).
 * Reads nothing, changes nothing. */
void kernel_prefetch_thread(const struct user_context *ctx);

/* Cache hints too, for what the kernel's next decisions read of other
 * threads: the thread likely to run next when the current one blocks (the
 * head of the highest ready queue, or when none is ready the release
 * queue's head) has its TCB's state and queue lines, its first registers
 * and its context brought in, and so has the release queue's head (and
 * the queue line of the one after it), which the next release reads.
 * Returns that next thread's trace id (TRACE_IDLE if there is none), for
 * the platform's own hints. A kernel operation neither reads it nor is
 * changed by it. */
uint32_t kernel_prefetch_next(void);

/* Trace records the kernel made since boot, those the platform skips
 * (boot_config.trace_skip) included. */
uint64_t kernel_trace_records(void);

/* Run every invariant check (DESIGN.md "Kernel fidelity"). Returns true if
 * all hold; otherwise false with a description of the first failure. */
bool kernel_check_invariants(const char **what);

/* Inspection through a capability in the root task's CNode (slot number). */
struct kinspect_refill {
    uint64_t time;
    uint64_t amount;
};
struct kinspect_sc {
    uint64_t budget, period, consumed, badge;
    uint32_t n_refills;
    uint32_t bound_trace_id;     /* 0 if unbound */
    struct kinspect_refill refills[32];
};
struct kinspect_thread {
    uint32_t state;              /* enum thread_state (kernel-core/src/kernel/structures.h) */
    uint32_t prio, mcp;
    uint64_t sc_badge;           /* 0 if it holds no context */
    bool queued, in_release_queue;
};
/* 0 on success, -1 if the slot does not hold a cap of that type or no
 * kernel has booted in this process. */
int kernel_inspect_sc(uint64_t root_slot, struct kinspect_sc *out);
int kernel_inspect_thread(uint64_t root_slot, struct kinspect_thread *out);

#endif /* MCSIM_KERNEL_H */
