/*
 * The colours of criticality levels, shared by the Gantt chart and the
 * structure graph so that one level looks the same in every picture of
 * every scenario: a level's colour follows from its name, not from its
 * rank or the number of levels. Common names have fixed hues (lo/low and
 * the like blue, mid/medium green, hi/high orange, critical/safety
 * purple); any other name takes a hue from a hash of its name. Red is not
 * among them: the charts keep it for what went wrong.
 */
#ifndef MCSIM_CLI_UTIL_PALETTE_H
#define MCSIM_CLI_UTIL_PALETTE_H

#include <stddef.h>

#define PALETTE_HUES 8

/*
 * The colour ("#rrggbb", dark enough under white stripes, light enough
 * under black text) of each of the n level names (levels[i] may be NULL
 * or "": no level, grey), written into out[i]. A name's hue depends on its name
 * alone, except that two names of one list never share a hue while there
 * are hues left: the later of two names (in the list's order) that would
 * take one hue takes the next free one instead.
 */
void palette_levels(const char *const *levels, size_t n, const char **out);

/* The grey of "no level" (the root task). */
const char *palette_none(void);

#endif /* MCSIM_CLI_UTIL_PALETTE_H */
