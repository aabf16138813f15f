/*
 * The random system-call generator's insides (kfuzz.h), shared by
 * kfuzz.c (the world, the calls) and kfuzz_valid.c (what the generator
 * knows of the world, so that well-formed calls are also ones the kernel
 * can perform: the right cap, in the right state).
 */
#ifndef MCSIM_TESTS_KFUZZ_INT_H
#define MCSIM_TESTS_KFUZZ_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kfuzz.h"
#include "ktest.h"

#define N_WORKERS 5u
#define WORKER_CNODE_BITS 4u
#define WORKER_ID 10u /* worker i's trace id is WORKER_ID + i */

/* A worker's CSpace (a CPtr is the slot number). */
enum kfuzz_slot {
    KS_NULL = 0,
    KS_TCB,
    KS_CNODE,
    KS_SC,
    KS_REPLY,
    KS_EP,       /* endpoint 0, every right */
    KS_EP_WO,    /* endpoint 1, write only, badged */
    KS_NTFN,     /* notification 0, every right */
    KS_NTFN_WO,  /* notification 1, write only, badged */
    KS_NEXT_TCB, /* the next worker's TCB */
    KS_SPARE_SC, /* configured, unbound */
    KS_BARE_SC,  /* never configured */
    KS_SCHED_CONTROL,
    KS_UNTYPED,
    KS_FREE,
    KS_CSPACE, /* its CSpace's own CNode (for TCB_Configure) */
    KS_COUNT
};

struct kfuzz_world {
    uint8_t scheduler;
    struct user_context *root_ctx;
    cptr_t worker_tcb[N_WORKERS];
    cptr_t worker_cnode[N_WORKERS];
    cptr_t source[N_WORKERS][KS_COUNT]; /* root slot behind each worker slot, 0 none */
    uint64_t rights[N_WORKERS][KS_COUNT], badge[N_WORKERS][KS_COUNT];
    cptr_t ep[2], ntfn[2];
    cptr_t sentinel, sentinel_sc;
    cptr_t alarm, alarm_handler; /* the root task's wake-up: device line ALARM_LINE */
    unsigned interrupted; /* the worker running when the alarm came */
    struct kinspect_thread sentinel_was;
    struct kinspect_sc sentinel_sc_was;
    /* What the generator knows (kfuzz_valid.c), kept from the calls'
     * outcomes, a wrong guess only making a call fail: whose CSpace each
     * worker uses (-1: none it can use), the slots of each worker's
     * scratch CNode that hold a cap (bit i: slot i), and whether each
     * worker has notification 0 bound. */
    int cspace_of[N_WORKERS];
    uint32_t scratch[N_WORKERS];
    bool bound_ntfn[N_WORKERS];
};

extern struct kfuzz_world kfuzz_world;

static inline uint64_t kf_draw(const struct kfuzz_src *src, uint64_t n)
{
    return n <= 1 ? 0 : src->draw(src->ctx, n) % n;
}

static inline bool kf_chance(const struct kfuzz_src *src, unsigned percent)
{
    return kf_draw(src, 100) < percent;
}

/* The worker making the call, from its trace id; -1 for another thread. */
int kfuzz_me(void);

/*
 * Make the well-formed invocation *m of *slot (drawn as kfuzz.c draws
 * them) one the kernel can perform, as far as the generator knows: the
 * cap of the right object (another thread's TCB to read registers, a
 * context bound to someone else to unbind), priorities within the
 * authority's MCP, a destination slot that is empty and a source that is
 * not, a notification to bind when none is bound, a valid object size.
 */
void kfuzz_make_valid(const struct kfuzz_src *src, struct ktest_msg *m, cptr_t *slot);

/* Learn from the outcome of invocation `sent` of `slot` by worker `w`:
 * `result` is the reply's label (an error, or ERR_NONE). */
void kfuzz_learn(int w, const struct ktest_msg *sent, cptr_t slot, uint64_t result);

#endif /* MCSIM_TESTS_KFUZZ_INT_H */
