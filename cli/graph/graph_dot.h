/*
 * A scenario's structure graph (graph_model.h) as DOT text, for Graphviz:
 * threads as rounded boxes filled with their criticality's colour and
 * labelled with priority and budget/period (or "passive"), endpoints as
 * ellipses, notifications as hexagons, devices as components filled with
 * the colour of the rank the dependency rule gives them (dashed: a derived
 * criticality); an edge per interaction, labelled with its kind. Edges
 * that make a violation, and the outline of the dependent thread, are red.
 * The graph's label names the scenario and is the legend.
 *
 * The text depends only on the scenario, not on the Graphviz version, so
 * `mcsim graph -o x.dot` is reproducible; Graphviz lays it out (rankdir=LR:
 * devices, notifications, their threads, endpoints and servers, left to
 * right).
 */
#ifndef MCSIM_CLI_GRAPH_DOT_H
#define MCSIM_CLI_GRAPH_DOT_H

#include "graph_model.h"
#include "util/strbuf.h"

/* The fill colour of criticality rank `rank` of scenario `s`, as
 * "#rrggbb": its level's colour (palette.h), the same as in the Gantt
 * chart; red is kept for violations. */
const char *gdot_level_colour(const struct scenario *s, uint32_t rank);

/* Append the DOT text of model `m` of scenario `s` to `out`. Check
 * out->failed afterwards (out of memory). */
void gdot_write(const struct gm_model *m, const struct scenario *s, struct strbuf *out);

#endif /* MCSIM_CLI_GRAPH_DOT_H */
