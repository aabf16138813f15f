/*
 * Evaluating many sets, in this process or in `jobs` worker processes
 * (fork), each handed every jobs-th set of the list and sending each
 * outcome back through a pipe as soon as it is done. Only the caller's
 * process writes anything (the database): a worker killed half-way loses
 * its set in progress and nothing else.
 */
#ifndef MCSIM_SWEEP_POOL_H
#define MCSIM_SWEEP_POOL_H

#include <signal.h>
#include <stdint.h>

#include "sweep/evaluate.h"
#include "util/diag.h"

/* Called in the caller's process for each set done, in no fixed order.
 * Returns 0 to go on, -1 to stop the pool (an error the callback
 * reported itself). */
typedef int (*sweep_pool_done_fn)(void *ctx, const struct sweep_outcome *o);

/*
 * Evaluate sets ids[0 .. n) of `spec` with `jobs` (>= 1) processes,
 * calling `done` for each. `*stop` (set by a signal handler) stops it
 * early: the workers are killed. Returns 0 when every set was done, 130
 * when stopped, 2 when a set could not be generated (its reason in `d`),
 * 3 when a worker failed or an evaluation failed (an mcsim bug, in `d`),
 * or the callback's -1 as 3.
 */
int sweep_pool_run(const struct sweep_spec *spec, const uint64_t *ids, uint64_t n, unsigned jobs,
                   volatile sig_atomic_t *stop, sweep_pool_done_fn done, void *ctx,
                   struct diag *d);

#endif /* MCSIM_SWEEP_POOL_H */
