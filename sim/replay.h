/*
 * Replay: the records of a run made elsewhere (a QEMU run's UART frames,
 * sim/wire.h) become the rows of the recorded schedule, through the same
 * recorder a simulated run uses (recorder.c), so that both land in the
 * same tables with the same meaning. Host only.
 */
#ifndef MCSIM_SIM_REPLAY_H
#define MCSIM_SIM_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "scenario.h"
#include "wire.h"

/*
 * Record the run of `s` whose records are recs[0..n), made on a platform
 * whose kernel counts `tick_hz` ticks a second (HELLO), with options `o`
 * (seed, duration, scheduler and trace as the run had them; o->sink gets
 * the rows, run_begin with hal `meta_hal`). The records must be complete:
 * a TIMELINE, then an END; a FAIL makes the result ENG_INTERNAL_ERROR
 * with its text, as do kernel entries that do not add up to the END's
 * count and instructions. Fills r (end, kernel entries, trace records) as
 * eng_run does; its kernel cycles are the sum of the ENTRY records'
 * instructions, taken as ticks (one instruction is one nanosecond under
 * -icount shift=0), each converted as the kernel_stats rows have it.
 */
enum eng_status replay_run(const struct scenario *s, const struct eng_options *o,
                           const char *meta_hal, uint64_t tick_hz, const struct wire_record *recs,
                           size_t n, struct eng_result *r);

#endif /* MCSIM_SIM_REPLAY_H */
