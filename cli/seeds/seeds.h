/*
 * `mcsim run SCENARIO --seeds A..B`: one scenario simulated with every
 * seed of a range, and what a safety engineer asks of them together: per
 * thread the jobs, misses, response percentiles and the worst response
 * with the seed that gave it (so it can be re-run alone and drawn), and
 * every expectation evaluated on every seed (README "Seeds").
 *
 * Each seed's expectations are evaluated from its accounting accumulated
 * as it runs (acct/tacc_sink.h, as `mcsim run`'s). With --record each
 * seed's run is also recorded into the -o file (one run per seed,
 * checkable and drawable later); without, nothing is kept of a run but
 * its jobs' responses (for the percentiles over every seed): memory flat
 * in the run's length, no database.
 */
#ifndef MCSIM_SEEDS_SEEDS_H
#define MCSIM_SEEDS_SEEDS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

struct seeds_options {
    uint64_t first, last;        /* the seeds, both included */
    bool record;                 /* into `db` (else in memory) */
    const char *db;
    bool trace_full, quiet;
    volatile sig_atomic_t *stop; /* set by SIGINT */
};

/*
 * Parse a --seeds value: "A..B" (A <= B) or "N" (seeds 0 .. N-1, N >= 1),
 * at most SEEDS_MAX seeds. False if it is not one.
 */
#define SEEDS_MAX 1000000u
bool seeds_parse(const char *text, uint64_t *first, uint64_t *last);

/*
 * Run `s` once per seed of `o` and print to `out` the verdicts over all
 * seeds and the per-thread table. Returns the exit status of `mcsim run`:
 * 0 every expectation held in every seed, 1 one failed in some seed, 2 the
 * database cannot be opened, 3 internal error, 130 interrupted.
 */
int seeds_run(const struct scenario *s, const struct seeds_options *o, FILE *out);

#endif /* MCSIM_SEEDS_SEEDS_H */
