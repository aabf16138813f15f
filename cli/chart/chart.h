/*
 * Gantt charts of recorded runs, as `mcsim gantt` and `mcsim run --gantt`
 * draw them: pick the run and the window, read it (chart_query.h), draw it
 * (chart_draw.h). The default window is chosen by density: the whole run
 * when no row of it holds more marks than can be drawn apart
 * (CHART_READABLE_ITEMS: slices, budget events, releases and completions
 * of a thread, a device's interrupts; about 8 points each across the
 * plot), otherwise the longest such prefix, rounded down to a round
 * length (such as 30ms, chart_axis_round_down).
 */
#ifndef MCSIM_CLI_CHART_H
#define MCSIM_CLI_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "chart_query.h"

#define CHART_READABLE_ITEMS 150

struct chart_request {
    int64_t run_id;        /* < 0: the latest finished run */
    const char *from, *to; /* times as written (10ms, 1.5s, 1200c); NULL: the defaults */
    const char *threads;   /* comma-separated thread names; NULL: every thread */
    const char *path;      /* the file to write; its extension chooses the format */
};

struct chart_result {
    int64_t run_id;
    int64_t from, to;  /* the window drawn, in cycles */
    uint64_t duration; /* of the run, in cycles */
    uint64_t cpu_hz;
    bool shortened;      /* the default end stopped before the end of the run */
    bool dense;          /* the --to asked for is past the readable end... */
    int64_t readable_to; /* ...which is this (cycles); set with shortened too */
    int64_t dense_at;               /* where a row reaches CHART_READABLE_ITEMS marks... */
    char dense_row[CHART_NAME_MAX]; /* ...and which */
    bool unfinished;     /* the run was interrupted while recording */
};

/*
 * The format that `path`'s extension names: "svg", "png" or "pdf" (in any
 * case), or NULL for any other name.
 */
const char *chart_format(const char *path);

/*
 * Draw the chart `req` asks for from the mcsim database `db`. On success
 * returns CHART_OK and fills *res. CHART_EINPUT for a request that cannot
 * be met (an unknown format, run or thread name, a bad or empty window,
 * an output file that cannot be written), CHART_EINTERNAL when the
 * database or Graphviz fails; either way err holds one line saying why
 * (without the "mcsim:" prefix).
 */
enum chart_status chart_gantt(sqlite3 *db, const struct chart_request *req,
                              struct chart_result *res, char *err, size_t errlen);

#endif /* MCSIM_CLI_CHART_H */
