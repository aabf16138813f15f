/*
 * Why a context was throttled: refill fragmentation (issue 13, item 5),
 * diagnosed row by row (twin.h feeds it: `mcsim run` as it records,
 * `mcsim check` from one time-ordered scan of the tables;
 * cli/summary/fragment.c prints it).
 *
 * A periodic context's refills are a list of at most MIN_REFILLS +
 * extra_refills entries; each time it is preempted, the time it used so
 * far comes back as a refill of its own one period later. When the list
 * is full, that refill is merged into the last one, which is delayed
 * (seL4 schedule_used, docs/kernel-semantics.md section 3): the budget
 * comes back later than a period after it was used, and the context is
 * throttled while its budget in the period before is not all used.
 *
 * A throttle is counted as fragmentation when, at that instant, the
 * context's refill list was full (its last `refills` row before the
 * throttle's time has count = capacity: the list as the entry that
 * throttled found it, not as that entry's own charge left it) and the
 * context had paid for less than its budget less MIN_BUDGET in the period
 * that ends there (its slices, sc_thread_id = the context's thread;
 * MIN_BUDGET: a head smaller than that is never run, so up to that much
 * may stay unused without any fragmentation).
 *
 * Memory per context: its refill list's state before and at the latest
 * time, its slices within the last period, its throttles whose period has
 * not yet passed.
 */
#ifndef MCSIM_CLI_TFRAG_H
#define MCSIM_CLI_TFRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dueq.h"
#include "sink.h"

/* One context's diagnosis. */
struct fragment {
    int64_t thread_id;
    char name[64];
    int64_t throttles;           /* throttles with the list full and budget unused */
    int64_t capacity;            /* the list's capacity at the last of them */
    int64_t most_unused, budget; /* cycles: the most left unused before one; the budget */
};

struct tfrag_ctx;

struct tfrag {
    struct tfrag_ctx *ctx;
    size_t n, cap;
    int32_t *by_thread; /* ctx index by thread id, -1: none */
    uint32_t n_threads;
    uint64_t min_budget;
    cycles_t now;       /* every row fed from now on lies at or after it */
    struct dueq q;      /* by context: its first open throttle */
    size_t held_max;    /* the most slices and open throttles one context held */
    bool failed;        /* out of memory */
};

/* Start: threads 0..n_threads-1 may own contexts; min_budget in cycles.
 * Returns 0, or -1 out of memory. */
int tfrag_init(struct tfrag *f, uint32_t n_threads, uint64_t min_budget);
/* A periodic context (period > budget, cycles) of thread `thread`, in the
 * diagnosis's order; -1 out of memory. */
int tfrag_add(struct tfrag *f, int64_t thread, const char *name, int64_t budget, int64_t period);
void tfrag_release(struct tfrag *f);

/* The rows: a slice; a throttle of the context of sc_thread; a refills row
 * of it (count of capacity in use). */
void tfrag_slice(struct tfrag *f, const struct sink_slice *r);
void tfrag_throttle(struct tfrag *f, uint32_t sc_thread, cycles_t time);
void tfrag_refill(struct tfrag *f, uint32_t sc_thread, cycles_t time, uint32_t count,
                  uint32_t capacity);

/* Every row fed from now on lies at or after `time` (a slice: starts);
 * the throttles due by then are counted or not (tfrag_close). */
void tfrag_close(struct tfrag *f, cycles_t time);
static inline void tfrag_advance(struct tfrag *f, cycles_t time)
{
    if (time <= f->now)
        return;
    f->now = time;
    if (dueq_min(&f->q) <= (int64_t)time)
        tfrag_close(f, time);
}
/* The run ended. */
void tfrag_end(struct tfrag *f);

/* After tfrag_end: the contexts with at least one such throttle, in the
 * order added, into a malloc'd array *out (free it) of *n. Returns 0, or
 * -1 out of memory. */
int tfrag_result(const struct tfrag *f, struct fragment **out, size_t *n);

#endif /* MCSIM_CLI_TFRAG_H */
