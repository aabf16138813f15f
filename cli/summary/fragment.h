/*
 * Why a context was throttled: refill fragmentation (issue 13, item 5).
 * A periodic context's refills are a list of at most MIN_REFILLS +
 * extra_refills entries; each time it is preempted, the time it used so
 * far comes back as a refill of its own one period later. When the list
 * is full, that refill is merged into the last one, which is delayed
 * (seL4 schedule_used, docs/kernel-semantics.md section 3): the budget
 * comes back later than a period after it was used, and the context is
 * throttled while its budget in the period before is not all used.
 *
 * A throttle is counted as fragmentation when, at that instant, the
 * context's refill list was full (its last `refills` row at or before it
 * has count = capacity) and the context had paid for less than its budget
 * less MIN_BUDGET in the period that ends there (its slices, run_slices
 * paid by it; MIN_BUDGET: a head smaller than that is never run, so up to
 * that much may stay unused without any fragmentation).
 */
#ifndef MCSIM_CLI_FRAGMENT_H
#define MCSIM_CLI_FRAGMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

/* One context's diagnosis. */
struct fragment {
    int64_t thread_id;
    char name[64];
    int64_t throttles;           /* throttles with the list full and budget unused */
    int64_t capacity;            /* the list's capacity at the last of them */
    int64_t most_unused, budget; /* cycles: the most left unused before one; the budget */
};

/*
 * The contexts of run `run_id` with at least one such throttle, by thread
 * id, into a malloc'd array *out (free it) of *n; `min_budget` in cycles.
 * Returns 0, or -1 with "mcsim: why" in err.
 */
int fragment_load(sqlite3 *db, int64_t run_id, uint64_t min_budget, struct fragment **out,
                  size_t *n, char *err, size_t err_len);

/*
 * Print one line per such context (nothing if none), times in units:
 * "NAME throttled N times with unused budget: its K refills fragmented
 * under preemption; see extra_refills (up to X of its B budget unused in
 * the period before a throttle)". Query errors are printed as a note.
 */
void fragment_print(FILE *f, sqlite3 *db, int64_t run_id, uint64_t min_budget, uint64_t cpu_hz);

#endif /* MCSIM_CLI_FRAGMENT_H */
