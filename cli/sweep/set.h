/*
 * The sets of a sweep (docs/sweep.md "Sets"): set `id` is set `index`
 * (0 .. sets-1) of utilisation point `point`, id = point x sets + index.
 * Everything random about a set comes from its own seed, derived from the
 * spec's seed, the point and the index alone, so a set is the same
 * whichever worker, shard or run computes it, and the same when more sets
 * or points are added.
 */
#ifndef MCSIM_SWEEP_SET_H
#define MCSIM_SWEEP_SET_H

#include <stdint.h>

#include "util/diag.h"
#include "scenario.h"
#include "util/strbuf.h"
#include "sweep/spec.h"

struct sweep_set {
    uint64_t id;
    uint32_t point, index;
    uint32_t utilisation; /* the point's, millionths */
    uint32_t tasks;       /* drawn in [tasks_min, tasks_max] */
    uint64_t seed;        /* of the set's draws (gen_taskset) */
};

/* Set `id` (< sweep_spec_total_sets) of `spec`. */
void sweep_set_of(const struct sweep_spec *spec, uint64_t id, struct sweep_set *out);

/*
 * The set's scenario, named "<spec name>-set<id>": drawn by gen_taskset,
 * written as YAML (appended to `yaml` if not NULL, the text --emit
 * writes) and loaded from that text, so it is exactly what `mcsim run`
 * reads from the emitted file. Returns 0 (release `s` with
 * scenario_release); -1 with the reason in `d` when the generator found
 * no set (UUniFast-Discard: bad input); -2 when the text did not load (a
 * bug of the generator).
 */
int sweep_set_scenario(const struct sweep_spec *spec, const struct sweep_set *set,
                       struct scenario *s, struct strbuf *yaml, struct diag *d);

#endif /* MCSIM_SWEEP_SET_H */
