/*
 * Random system calls against the kernel test bench (ktest.h), shared by
 * the random system-call test (tests/unit/kernel/test_random_calls.c) and
 * the kernel fuzz target (tests/fuzz/fuzz_kernel.c).
 *
 * kfuzz_setup builds a small world: five worker threads (trace ids
 * 10..14, priorities 10..50), each with a CSpace of its own (a 16-slot
 * CNode, a CPtr is the slot number, layout enum kfuzz_slot) holding caps
 * to its own TCB, CNode, context and reply object, to two endpoints and
 * two notifications (one of each with every right, one write-only and
 * badged), to the next worker's TCB, to a configured and an unconfigured
 * spare context, to SchedControl and to a 16 KiB Untyped of its own. A sentinel
 * thread and its context (trace id 99) are held by the root task alone:
 * no worker has a capability that allows changing them. The root task
 * drops to priority 1 and runs only when every worker is blocked or
 * throttled; it then wakes one (the "rescuer"), or lets time pass.
 *
 * Each kfuzz_step makes one system call as whatever thread the kernel
 * runs, its every choice drawn from `src`: mostly well-formed invocations
 * (a cap the thread holds, a label its type takes, arguments in or near
 * their valid ranges) that the kernel can perform as far as the generator
 * knows the world (kfuzz_valid.c: the right cap, in the right state),
 * some malformed on purpose. The bench runs the
 * invariant checker after every kernel entry; a kernel panic fails the
 * running test.
 */
#ifndef MCSIM_TESTS_KFUZZ_H
#define MCSIM_TESTS_KFUZZ_H

#include <stdbool.h>
#include <stdint.h>

/* Where the choices come from: draw(ctx, n) returns a value in [0, n)
 * (n >= 1). */
struct kfuzz_src {
    uint64_t (*draw)(void *ctx, uint64_t n);
    void *ctx;
};

struct kfuzz_stats {
    uint64_t calls;       /* system calls made, the root task's included */
    uint64_t invocations; /* Calls on an object cap by a worker */
    uint64_t performed;   /* of those: replied NoError, or the caller blocked or lost the CPU */
    uint64_t refused;     /* of those: replied with an error */
    uint64_t root_calls;  /* made by the root task waking workers */
    uint64_t idle;        /* times nothing ran and time was let pass */
};

/* Boot a fresh bench with `scheduler` (SCHED_MCS or SCHED_CLASSIC; under
 * classic no thread has a context) and build the world. */
void kfuzz_setup(uint8_t scheduler);

/* One system call (or, when idle, some time), choices from src. */
void kfuzz_step(const struct kfuzz_src *src, struct kfuzz_stats *st);

/* True if the sentinel thread and context are as kfuzz_setup left them;
 * otherwise false with *what naming the field that changed. */
bool kfuzz_sentinel_intact(const char **what);

#endif /* MCSIM_TESTS_KFUZZ_H */
