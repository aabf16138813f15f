/*
 * What a sweep specification (cli/load/load_sweep.h, docs/sweep.md)
 * implies: its utilisation points and the number of its sets.
 */
#ifndef MCSIM_SWEEP_SPEC_H
#define MCSIM_SWEEP_SPEC_H

#include <stdint.h>

#include "load/load_sweep.h"

/* The number of utilisation points: from, from + step, ... up to `to`. */
uint32_t sweep_spec_points(const struct sweep_spec *s);

/* The utilisation of point `i` in millionths. */
uint32_t sweep_spec_utilisation(const struct sweep_spec *s, uint32_t i);

/* The number of sets of the sweep: points x sets. */
uint64_t sweep_spec_total_sets(const struct sweep_spec *s);

#endif /* MCSIM_SWEEP_SPEC_H */
