/*
 * A kernel test bench: boots kernel-core on hal-sim (zero kernel costs,
 * 1 GHz cpu and timer, MIN_BUDGET 20 us = 20000 ticks unless told) and lets a
 * test make system calls as whatever thread the kernel runs, advance
 * simulated time and raise interrupts. After every kernel entry the
 * invariant checker runs and a failure fails the test.
 *
 * At boot the root task (priority 255, MCP 255, round-robin context with a
 * 1 s budget) runs, holding in its CNode (a CPtr is the slot number) the
 * caps of mcsim/bootinfo.h's root_slot layout and one 16 MiB Untyped at
 * ROOT_FIRST_UNTYPED. ktest_alloc_slot() hands out free slots from
 * ROOT_FIRST_FREE upward.
 */
#ifndef MCSIM_TESTS_KTEST_H
#define MCSIM_TESTS_KTEST_H

#include <stdbool.h>
#include <stdint.h>

#include <mcsim/abi.h>
#include <mcsim/bootinfo.h>
#include <mcsim/kernel.h>

#define KTEST_UNTYPED ROOT_FIRST_UNTYPED
#define KTEST_UNTYPED_BITS 24

struct ktest_opts {
    uint8_t scheduler;      /* SCHED_MCS (default 0) or SCHED_CLASSIC */
    uint64_t min_budget;    /* ticks; 0 = 20000 */
    uint64_t tick;          /* classic tick in ticks; 0 = 2 ms */
    uint32_t timeslice;     /* classic; 0 = 5 */
};

/* Boot a fresh kernel (any earlier one is discarded). */
void ktest_boot(const struct ktest_opts *opts);

/* A message for ktest_syscall: label, MRs and extra caps in, and on return
 * the reply's label (the error code for an invocation), MRs and badge. */
struct ktest_msg {
    uint64_t label;
    unsigned length;
    uint64_t mr[MSG_MAX_LENGTH];
    cptr_t extra[MSG_MAX_EXTRA_CAPS];
    unsigned n_extra;
    uint64_t badge;          /* out: x0 on return */
};

/* Make system call `sys` on `cap` as the current thread, with reply cap /
 * source cap in `reply` (x10) and `src` (x11) where the call takes them.
 * Returns the trace id of the thread that runs afterwards. If the calling
 * thread runs next, *msg holds its return registers. */
uint32_t ktest_syscall(enum syscall sys, cptr_t cap, cptr_t reply, cptr_t src,
                       struct ktest_msg *msg);

/* Invoke an object (SYS_CALL) as the current thread; returns the error
 * code (ERR_NONE on success). The caller must keep running (asserted). */
enum kerr ktest_invoke(cptr_t cap, uint64_t label, unsigned length, const uint64_t *mrs,
                       const cptr_t *extra, unsigned n_extra, uint64_t *reply_mrs);

/* The registers the current thread would see now (e.g. after it was
 * unblocked): its saved context. NULL when idle. */
struct user_context *ktest_context(void);

/* The trace id of the current thread (TRACE_IDLE when idle). */
uint32_t ktest_current(void);

/* Advance simulated time by `cycles` of user execution of the current
 * thread (or idling), taking the kernel timer's interrupts when they come
 * due. Returns the trace id of the thread running at the end. */
uint32_t ktest_run(uint64_t cycles);

/* Time now, in cycles (= ticks). */
uint64_t ktest_now(void);

/* Raise device interrupt `line` now; false if it was lost (one already
 * pending on a masked line). Pending unmasked lines are taken at once. */
bool ktest_irq(uint32_t line);

/* A free slot in the root CNode. */
cptr_t ktest_alloc_slot(void);

/* Retype one object of `type` (size_bits where variable) from the test
 * untyped into a fresh slot; asserts success and returns the slot. */
cptr_t ktest_retype(enum object_type type, unsigned size_bits);

/* Create a thread with its own trace id `id`, priority/MCP `prio`, CSpace
 * = the root CNode, and (if budget != 0) a configured context of
 * budget/period ticks bound to it (MCS only: classic has no contexts);
 * not resumed. Returns the TCB slot;
 * *sc_slot gets the context's slot (0 if none). */
cptr_t ktest_thread(uint32_t id, uint8_t prio, uint64_t budget, uint64_t period,
                    cptr_t *sc_slot);

/* Count broken invariants instead of failing at the first (the random
 * system-call test reports the count); resets the count. A debug build's
 * kernel still stops at one (MCSIM_DEBUG), which fails the test. */
void ktest_count_violations(bool count);
uint64_t ktest_violations(void);

/* The trace records emitted since boot (or since ktest_trace_clear), for
 * asserting events. */
struct ktest_trace {
    uint32_t kind;
    uint32_t thread;
    uint64_t object, arg, arg2;
    uint64_t time;
};
unsigned ktest_trace_count(void);
const struct ktest_trace *ktest_trace_get(unsigned i);
void ktest_trace_clear(void);
/* Count records of `kind` (for `thread`, or any if thread == UINT32_MAX). */
unsigned ktest_trace_count_kind(uint32_t kind, uint32_t thread);

#endif /* MCSIM_TESTS_KTEST_H */
