/*
 * Drawing a Gantt chart of a window of a recorded run (DESIGN.md, "charts
 * are laid out by mcsim itself and drawn by Graphviz"): every bar, mark
 * and label is a node pinned in points (pos="x,y!"), the graph is laid out
 * with libgvc's nop2 engine, which keeps those positions, and rendered
 * with gvRenderFilename.
 *
 * Node names say what a node shows, so the SVG can be checked against the
 * database: slice_N (a slice on the thread's own context), donated_N (on
 * another thread's), ntfnsc_N (on a notification's), throttle_N,
 * exhausted_N, replenish_N, timeout_N, emergency_N, release_N,
 * deadline_N, missed_N, complete_N (a job's completion), aborted_N (a
 * Call aborted: events of kind call_aborted), payer_N (the paying
 * context's name above slice N), amount_N, irq_N, lost_N, row_NAME (a
 * row's label), legend_N, title.
 */
#ifndef MCSIM_CLI_CHART_DRAW_H
#define MCSIM_CLI_CHART_DRAW_H

#include <stddef.h>

#include "chart_query.h"

/*
 * Draw d (filled by chart_query_window) to `path` as `format` ("svg",
 * "png" or "pdf"). CHART_EINPUT if the file cannot be written;
 * CHART_EINTERNAL if Graphviz fails, or if this mcsim was built without
 * it. Graphviz's own messages are caught, not printed.
 */
enum chart_status chart_draw(const struct chart_data *d, const char *path, const char *format,
                             char *err, size_t errlen);

#endif /* MCSIM_CLI_CHART_DRAW_H */
