/*
 * Why a context was throttled: refill fragmentation (issue 13, item 5),
 * as the run summary and `mcsim check` print it. The rule and its
 * evaluation row by row: cli/acct/tfrag.h.
 */
#ifndef MCSIM_CLI_FRAGMENT_H
#define MCSIM_CLI_FRAGMENT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "acct/tacc.h"
#include "acct/tfrag.h"
#include "scenario.h"

/*
 * Print one line per context of run `run_id` (scenario `s`) with at least
 * one throttle counted as fragmentation (nothing if none), times in units
 * of cpu_hz: "NAME throttled N times with unused budget: its K refills
 * fragmented under preemption; see extra_refills (up to X of its B budget
 * unused in the period before a throttle)". The diagnosis `acc` holds
 * (mcsim run's, accumulated as it recorded: acc->win), else one scan of
 * the tables; their errors are printed as a note.
 */
void fragment_print(FILE *f, sqlite3 *db, int64_t run_id, const struct scenario *s,
                    uint64_t cpu_hz, const struct tacc *acc);

#endif /* MCSIM_CLI_FRAGMENT_H */
