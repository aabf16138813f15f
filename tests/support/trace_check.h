/*
 * The rules of the Trace Event Format (the Chrome/Perfetto JSON trace
 * format: "Trace Event Format", Google, the phases B/E, X, i, s/f, C, M)
 * that a viewer relies on, checked on a parsed trace (json.h):
 *
 * - every event has a name, a phase, a pid and (but metadata) a ts; no
 *   member anywhere is null;
 * - "B" and "E" are matched per track (pid, tid), E after its B;
 * - "X" has a dur >= 0, and the X spans of one track nest (one inside the
 *   other or apart, never overlapping part way);
 * - ts never goes back on one track (pid and tid; a counter's track is
 *   pid and name);
 * - every flow id (cat, id) has exactly one "s" and one "f", the "f" not
 *   before the "s"; each end is bound to an X span of its track: "s" and
 *   an "f" with "bp":"e" to a span enclosing its ts (its end included),
 *   an "f" without to a span starting at or after its ts.
 *
 * Times are compared exactly: the decimals of ts and dur are read as
 * whole picoseconds (a trace of mcsim's has at most picosecond decimals
 * at cpu_hz dividing 10^12).
 */
#ifndef MCSIM_TESTS_TRACE_CHECK_H
#define MCSIM_TESTS_TRACE_CHECK_H

#include <stddef.h>

#include "json.h"

/* What trace_check counted, for tests to assert on. */
struct trace_counts {
    size_t events, spans, instants, flows, counters, metadata;
};

/*
 * Check `trace` (the whole document: an object with "traceEvents") by
 * the rules above. Returns 0 and fills *n, or -1 with the first broken
 * rule and the event's index in err.
 */
int trace_check(const struct json *trace, struct trace_counts *n, char *err, size_t err_len);

#endif /* MCSIM_TESTS_TRACE_CHECK_H */
