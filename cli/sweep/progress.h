/*
 * The progress of a running sweep: each finished set is written to the
 * store and counted, its disagreements between analysis and simulation
 * reported at once on standard error, and a line shows the sets done and
 * an estimate of the time left (redrawn in place on a terminal, a line
 * every 10 s otherwise, as in a Slurm job's log).
 */
#ifndef MCSIM_SWEEP_PROGRESS_H
#define MCSIM_SWEEP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "sweep/evaluate.h"
#include "sweep/store.h"

struct sweep_progress {
    struct sweep_store *store;
    const struct sweep_spec *spec;
    uint64_t total, before; /* sets of this run (shard), finished before it */
    uint64_t done;          /* finished, before included */
    uint64_t unsound;       /* disagreeing threads seen in this run */
    double start, last;     /* monotonic seconds */
    bool quiet, tty;
};

/* Start counting `total` sets of which `before` are finished. */
void sweep_progress_init(struct sweep_progress *p, struct sweep_store *st,
                         const struct sweep_spec *spec, uint64_t total, uint64_t before,
                         bool quiet);

/* The pool's callback (sweep_pool_done_fn; ctx a struct sweep_progress):
 * store the set, report its disagreements, update the line. -1 if the
 * store fails (reported). */
int sweep_progress_done(void *ctx, const struct sweep_outcome *o);

/* Finish the line. */
void sweep_progress_end(struct sweep_progress *p);

#endif /* MCSIM_SWEEP_PROGRESS_H */
