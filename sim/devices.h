/*
 * Device arrival generators: the times at which each scenario device raises
 * its interrupt line (docs/scenario-format.md, "devices"). One generator per
 * device, streaming: it holds a few counters and its own random stream, so
 * its memory does not grow with the run. Portable: also linked into the ARM
 * image (no libc).
 *
 * A device's random draws come from the stream "device:<name>" of the run's
 * seed (sim/rng.h), so they do not change when threads or other devices are
 * added, removed or changed.
 */
#ifndef MCSIM_SIM_DEVICES_H
#define MCSIM_SIM_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "scenario.h"

/* No further arrival. */
#define DEVICE_NO_ARRIVAL UINT64_MAX

/* The state of one device's arrivals. Private to devices.c; callers only
 * hold it. */
struct device_gen {
    /* what a periodic arrival reads, together (the device's own fields
     * copied: with a thousand devices, reading them in the scenario is
     * one more cache miss per arrival) */
    enum scn_arrival_kind kind;
    bool started;   /* `last` is valid */
    bool done;
    cycles_t offset, period, jitter;
    uint64_t index; /* arrivals emitted (periodic, at); within-burst index (burst) */
    cycles_t base;  /* periodic: offset + (index - 1) * period, unjittered */
    cycles_t last;  /* the last arrival emitted */
    struct rng rng;
    const struct scn_device *dev;
    const cycles_t *times; /* the device's `at` list (ARRIVAL_AT) */
    uint64_t burst; /* burst number (burst) */
};

/* Start the arrivals of device `device_index` of `s` (< s->n_devices) for a
 * run seeded with `seed` (the scenario's seed, or the --seed override). The
 * generator reads `s` on every call: `s` must outlive it and not change. */
void device_gen_init(struct device_gen *g, const struct scenario *s, uint32_t device_index,
                     uint64_t seed);

/*
 * The next arrival time in cycles, or DEVICE_NO_ARRIVAL (UINT64_MAX) when
 * there are no more (and on every later call). Successive results never
 * decrease; several arrivals may fall on the same cycle. Times past the
 * run's duration are returned as any other: the caller stops there.
 *   periodic: offset + k * period (+ a uniform draw in [0, jitter] for each
 *     k, independently; an arrival is never earlier than the one before);
 *   sporadic: offset, then gaps drawn uniformly in [min, max];
 *   at: offset + each listed time;
 *   burst: from offset every `every`, `count` arrivals `gap` apart.
 * The loader rejects degenerate forms; here a zero period, a zero `every`
 * or a sporadic max of 0 yields one arrival (one burst), never an endless
 * run at one cycle, and a time that overflows 64 bits ends the arrivals.
 */
cycles_t device_gen_next(struct device_gen *g);

#endif /* MCSIM_SIM_DEVICES_H */
