/*
 * The time axis of a chart: tick spacing from the 1-2-5 series, labels in
 * one unit (s, ms, us or ns) chosen for the window, and readable lengths
 * for the default window. Computed in picoseconds with integer arithmetic,
 * so labels are exact ("12.5ms", never "12.499999ms").
 */
#ifndef MCSIM_CLI_CHART_AXIS_H
#define MCSIM_CLI_CHART_AXIS_H

#include <stddef.h>
#include <stdint.h>

#define CHART_TICK_LABEL_MAX 32

struct chart_tick {
    double time; /* cycles; not always whole when cpu_hz is not a power of ten */
    char label[CHART_TICK_LABEL_MAX];
};

/*
 * The ticks of the window [from, to] (cycles, from < to, cpu_hz > 0): the
 * multiples of the smallest 1-2-5 step that gives at most `max_ticks`
 * ticks (>= 2), labelled in one unit: that of the window's end (199.9ms,
 * not 199900us), or a smaller one where the step would need more than 3
 * decimals in it. Writes at most `cap` ticks to out and returns how many it wrote.
 */
size_t chart_axis_ticks(uint64_t from, uint64_t to, uint64_t cpu_hz, size_t max_ticks,
                        struct chart_tick *out, size_t cap);

/*
 * The largest round length (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power
 * of ten, from 1us) that is at most `length` cycles, in cycles; `length`
 * itself if it is shorter than 1us or the round length is not a whole
 * cycle.
 */
uint64_t chart_axis_round_down(uint64_t length, uint64_t cpu_hz);

#endif /* MCSIM_CLI_CHART_AXIS_H */
