/*
 * Private to the chart drawing files (chart_draw.c: the canvas, the frame
 * and rendering; chart_marks.c: how each mark looks; chart_rows.c: the
 * marks of each row). Everything is placed by mcsim in points, y growing
 * downwards from the top of the chart; the canvas turns that into pinned
 * Graphviz node positions (y growing upwards) for the nop2 engine.
 */
#ifndef MCSIM_CLI_CHART_DRAW_INT_H
#define MCSIM_CLI_CHART_DRAW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gvc.h>

#include "chart_query.h"

/* The chart's geometry, in points (1/72 inch). */
#define CH_PAD 16.0
#define CH_LABEL_W 178.0 /* the row labels, left of the plot */
#define CH_PLOT_W 1150.0 /* the time axis */
#define CH_RIGHT 28.0    /* room for the last tick label */
#define CH_TITLE_H 54.0
#define CH_ROW_H 60.0     /* a thread's row */
#define CH_DEV_ROW_H 40.0 /* a device's row */
#define CH_AXIS_H 36.0
#define CH_LEGEND_TOP 14.0 /* between the axis and the legend */
#define CH_LEGEND_ROW 19.0
#define CH_LEGEND_COLS 3
#define CH_LEGEND_SAMPLE 34.0

/* A thread's row, from its top: job marks, bars, then the budget band. */
#define ROW_MARK_TOP 5.0
#define ROW_BAR_TOP 21.0
#define ROW_BAR_BOT 37.0
#define ROW_BUDGET_TOP 41.0
#define ROW_BUDGET_BOT 55.0

/* A device's row, from its top. */
#define DEV_MARK_TOP 8.0
#define DEV_MARK_BOT 28.0

#define CH_LEVELS 32 /* criticality ranks with a colour of their own */

#define CH_FONT "Helvetica"
#define CH_TEXT "#222222"
#define CH_MUTED "#666666"
#define CH_MISSED "#D62728"

struct canvas {
    Agraph_t *g;
    double height;    /* of the whole chart, to turn y around */
    double x0;        /* the plot's left edge */
    double scale;     /* points per cycle */
    int64_t from, to; /* the window */
    uint64_t cpu_hz;
    Agsym_t *pos, *shape, *width, *height_in, *style, *fillcolor, *color, *penwidth, *label,
        *fontsize, *fontcolor, *tooltip;
    Agsym_t *e_color, *e_penwidth;
    const char *level_colour[CH_LEVELS]; /* by criticality rank (palette.h) */
    bool failed;                         /* out of memory in Graphviz */
};

/* ---- chart_draw.c: the canvas ---- */

/* The x of time t (cycles), clipped to the plot. */
double cv_x(const struct canvas *c, int64_t t);

/* A node `name` (unique in the chart) of `shape`, centred at (cx, cy), w by
 * h points. NULL (and c->failed) if Graphviz runs out of memory. */
Agnode_t *cv_node(struct canvas *c, const char *name, const char *shape, double cx, double cy,
                  double w, double h);

/* A filled box [x0, x1] x [y0, y1] without an outline. */
Agnode_t *cv_box(struct canvas *c, const char *name, double x0, double y0, double x1, double y1,
                 const char *fill);

/* Text in the box [x, x + w] centred on y, aligned 'l', 'c' or 'r'. */
Agnode_t *cv_text(struct canvas *c, const char *name, double x, double y, double w,
                  const char *text, double size, const char *colour, char align);

/* A straight line from (x0, y0) to (x1, y1): an edge between two pinned
 * invisible points named name.a and name.b. */
void cv_line(struct canvas *c, const char *name, double x0, double y0, double x1, double y1,
             const char *colour, double width);

/* Set a node attribute (for what the helpers above do not set). */
void cv_set(struct canvas *c, Agnode_t *n, Agsym_t *sym, const char *value);

/* The estimated width of `text` at font `size` (Helvetica's average). */
double cv_text_width(const char *text, double size);

/* A duration as summary_format_time writes it. */
void cv_time(const struct canvas *c, char *buf, size_t len, int64_t cycles);

/* ---- chart_marks.c: how each mark looks ---- */

/* Give each criticality rank of d's threads its level's colour
 * (palette.h: by the level's name, whatever the number of levels). */
void mk_colours(struct canvas *c, const struct chart_data *d);

/* The colour of criticality rank `rank` (-1: none, the root task). */
const char *mk_colour(const struct canvas *c, int rank);

/* An execution bar; `hatch` (or NULL) hatches it: run on that colour's
 * context. */
void mk_bar(struct canvas *c, const char *name, double x0, double x1, double top, double bot,
            const char *fill, const char *hatch, const char *tip);

/* A throttled interval shaded over [top, bot]. */
void mk_throttle(struct canvas *c, const char *name, double x0, double x1, double top, double bot,
                 const char *tip);

/* A job release: an arrow up from bot to top. */
void mk_release(struct canvas *c, const char *name, double x, double top, double bot,
                const char *tip);

/* An absolute deadline: an arrow down from top to bot, red if missed. */
void mk_deadline(struct canvas *c, const char *name, double x, double top, double bot, bool missed,
                 const char *tip);

/* A job's completion: a dark stem from top to bot with a knob on top. */
void mk_complete(struct canvas *c, const char *name, double x, double top, double bot,
                 const char *tip);

/* An aborted Call: a red cross centred at (x, y). */
void mk_abort(struct canvas *c, const char *name, double x, double y, const char *tip);

/* A budget event marker centred at (x, y). */
void mk_budget(struct canvas *c, const char *name, enum chart_budget_kind kind, double x, double y,
               const char *tip);

/* An interrupt arrival: an arrow up, red if lost. */
void mk_irq(struct canvas *c, const char *name, double x, double top, double bot, bool lost,
            const char *tip);

/* The legend: every kind of mark with what it means, starting at y;
 * returns its height. With dry_run nothing is drawn. */
double mk_legend(struct canvas *c, const struct chart_data *d, double y, bool dry_run);

/* ---- chart_rows.c: the marks of each row ---- */

/* Draw every mark of row `r` (of d->rows) whose top is at y. */
void rows_draw(struct canvas *c, const struct chart_data *d, size_t r, double y);

#endif /* MCSIM_CLI_CHART_DRAW_INT_H */
