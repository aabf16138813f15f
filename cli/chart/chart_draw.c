/*
 * Drawing a chart (chart_draw.h): the canvas of pinned nodes, the frame
 * (title, row labels, grid, time axis, legend) and rendering through
 * libgvc. The marks are in chart_marks.c and chart_rows.c.
 */
#include "chart_draw.h"

#include <stdio.h>

#ifndef MCSIM_HAVE_GVC

enum chart_status chart_draw(const struct chart_data *d, const char *path, const char *format,
                             char *err, size_t errlen)
{
    (void)d;
    (void)path;
    (void)format;
    snprintf(err, errlen,
             "this mcsim was built without Graphviz (libgvc), so it cannot draw "
             "charts; install libgraphviz-dev and build again");
    return CHART_EINTERNAL;
}

#else

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "chart_axis.h"
#include "chart_draw_int.h"
#include "summary/summary.h"

#define MAX_TICKS 16

/* ---- the canvas ---- */

double cv_x(const struct canvas *c, int64_t t)
{
    if (t < c->from)
        t = c->from;
    if (t > c->to)
        t = c->to;
    return c->x0 + (double)(t - c->from) * c->scale;
}

void cv_set(struct canvas *c, Agnode_t *n, Agsym_t *sym, const char *value)
{
    /* Graphviz 2.42 takes char *, and does not write through it */
    if (n != NULL && agxset(n, sym, (char *)value) != 0)
        c->failed = true;
}

Agnode_t *cv_node(struct canvas *c, const char *name, const char *shape, double cx, double cy,
                  double w, double h)
{
    char buf[96];
    Agnode_t *n = agnode(c->g, (char *)name, 1);

    if (n == NULL) {
        c->failed = true;
        return NULL;
    }
    snprintf(buf, sizeof buf, "%.2f,%.2f!", cx, c->height - cy);
    cv_set(c, n, c->pos, buf);
    snprintf(buf, sizeof buf, "%.4f", w / 72.0);
    cv_set(c, n, c->width, buf);
    snprintf(buf, sizeof buf, "%.4f", h / 72.0);
    cv_set(c, n, c->height_in, buf);
    if (strcmp(shape, "box") != 0)
        cv_set(c, n, c->shape, shape);
    return n;
}

Agnode_t *cv_box(struct canvas *c, const char *name, double x0, double y0, double x1, double y1,
                 const char *fill)
{
    Agnode_t *n = cv_node(c, name, "box", (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0);

    cv_set(c, n, c->style, "filled");
    cv_set(c, n, c->fillcolor, fill);
    cv_set(c, n, c->color, fill);
    return n;
}

/* Graphviz reads backslashes in labels as escapes (\n, \l, \N...). */
static void escape_label(char *out, size_t len, const char *text, char align)
{
    size_t k = 0;

    for (const char *p = text; *p && k + 3 < len; p++) {
        if (*p == '\\')
            out[k++] = '\\';
        out[k++] = *p;
    }
    if (align == 'l' || align == 'r') {
        out[k++] = '\\';
        out[k++] = align;
    }
    out[k] = '\0';
}

Agnode_t *cv_text(struct canvas *c, const char *name, double x, double y, double w,
                  const char *text, double size, const char *colour, char align)
{
    char label[512], fs[16];
    Agnode_t *n = cv_node(c, name, "plaintext", x + w / 2, y, w, size * 1.3);

    escape_label(label, sizeof label, text, align);
    snprintf(fs, sizeof fs, "%.1f", size);
    cv_set(c, n, c->label, label);
    cv_set(c, n, c->fontsize, fs);
    cv_set(c, n, c->fontcolor, colour);
    return n;
}

void cv_line(struct canvas *c, const char *name, double x0, double y0, double x1, double y1,
             const char *colour, double width)
{
    char na[80], nb[80], pw[16];
    Agnode_t *a, *b;
    Agedge_t *e;

    snprintf(na, sizeof na, "%s.a", name);
    snprintf(nb, sizeof nb, "%s.b", name);
    a = cv_node(c, na, "point", x0, y0, 0.01, 0.01);
    b = cv_node(c, nb, "point", x1, y1, 0.01, 0.01);
    cv_set(c, a, c->style, "invis");
    cv_set(c, b, c->style, "invis");
    if (a == NULL || b == NULL || (e = agedge(c->g, a, b, NULL, 1)) == NULL) {
        c->failed = true;
        return;
    }
    snprintf(pw, sizeof pw, "%.2f", width);
    if (agxset(e, c->e_color, (char *)colour) != 0 || agxset(e, c->e_penwidth, pw) != 0)
        c->failed = true;
}

double cv_text_width(const char *text, double size)
{
    return (double)strlen(text) * size * 0.56;
}

void cv_time(const struct canvas *c, char *buf, size_t len, int64_t cycles)
{
    if (cycles <= 0)
        snprintf(buf, len, "0"); /* not "0ns": zero has no unit to choose */
    else
        summary_format_time(buf, len, (uint64_t)cycles, c->cpu_hz);
}

/* Titles and row names in the bold face of the chart's font. */
static void cv_bold(struct canvas *c, Agnode_t *n)
{
    if (n != NULL && agsafeset(n, "fontname", "Helvetica-Bold", CH_FONT) != 0)
        c->failed = true;
}

static int canvas_open(struct canvas *c)
{
    c->g = agopen("gantt", Agdirected, NULL);
    if (c->g == NULL)
        return -1;
    agattr(c->g, AGRAPH, "outputorder", "nodesfirst");
    agattr(c->g, AGRAPH, "splines", "line");
    agattr(c->g, AGRAPH, "bgcolor", "white");
    agattr(c->g, AGRAPH, "pad", "0");
    agattr(c->g, AGNODE, "fixedsize", "true");
    agattr(c->g, AGNODE, "margin", "0");
    agattr(c->g, AGNODE, "fontname", CH_FONT);
    c->pos = agattr(c->g, AGNODE, "pos", "");
    c->shape = agattr(c->g, AGNODE, "shape", "box");
    c->width = agattr(c->g, AGNODE, "width", "0.01");
    c->height_in = agattr(c->g, AGNODE, "height", "0.01");
    c->style = agattr(c->g, AGNODE, "style", "");
    c->fillcolor = agattr(c->g, AGNODE, "fillcolor", "white");
    c->color = agattr(c->g, AGNODE, "color", "black");
    c->penwidth = agattr(c->g, AGNODE, "penwidth", "0");
    c->label = agattr(c->g, AGNODE, "label", "");
    c->fontsize = agattr(c->g, AGNODE, "fontsize", "10");
    c->fontcolor = agattr(c->g, AGNODE, "fontcolor", CH_TEXT);
    c->tooltip = agattr(c->g, AGNODE, "tooltip", "");
    c->e_color = agattr(c->g, AGEDGE, "color", "black");
    c->e_penwidth = agattr(c->g, AGEDGE, "penwidth", "1");
    agattr(c->g, AGEDGE, "dir", "none");
    agattr(c->g, AGEDGE, "headclip", "false");
    agattr(c->g, AGEDGE, "tailclip", "false");
    return c->pos && c->shape && c->width && c->height_in && c->style && c->fillcolor && c->color &&
                   c->penwidth && c->label && c->fontsize && c->fontcolor && c->tooltip &&
                   c->e_color && c->e_penwidth
               ? 0
               : -1;
}

/* ---- the frame ---- */

static double row_height(const struct chart_row *r)
{
    return r->device ? CH_DEV_ROW_H : CH_ROW_H;
}

static double plot_top(void)
{
    return CH_PAD + CH_TITLE_H;
}

static double plot_bottom(const struct chart_data *d)
{
    double y = plot_top();
    for (size_t i = 0; i < d->n_rows; i++)
        y += row_height(&d->rows[i]);
    return y;
}

static void draw_title(struct canvas *c, const struct chart_data *d)
{
    char title[300], sub[300], from[32], to[32], dur[32];
    Agnode_t *n;

    snprintf(title, sizeof title, "%s \xe2\x80\x94 %s scheduler, seed %llu", d->run.scenario,
             d->run.scheduler, (unsigned long long)d->run.seed);
    cv_time(c, from, sizeof from, d->from);
    cv_time(c, to, sizeof to, d->to);
    cv_time(c, dur, sizeof dur, (int64_t)d->run.duration);
    if (d->from == 0 && (uint64_t)d->to == d->run.duration)
        snprintf(sub, sizeof sub, "run %lld: the whole run, %s%s", (long long)d->run.run_id, dur,
                 d->run.finished ? "" : " (unfinished: interrupted while recording)");
    else
        snprintf(sub, sizeof sub, "run %lld: %s to %s of %s%s", (long long)d->run.run_id, from, to,
                 dur, d->run.finished ? "" : " (unfinished: interrupted while recording)");
    n = cv_text(c, "title", CH_PAD, CH_PAD + 12, CH_LABEL_W + CH_PLOT_W, title, 17, CH_TEXT, 'l');
    cv_bold(c, n);
    cv_text(c, "subtitle", CH_PAD, CH_PAD + 33, CH_LABEL_W + CH_PLOT_W, sub, 11.5, CH_MUTED, 'l');
}

/* A thread's label lines under its name: priority, criticality and
 * deadline (when it is not the period), then its budget. */
static void thread_details(const struct canvas *c, const struct chart_data *d,
                           const struct chart_thread *t, char *l2, size_t n2, char *l3, size_t n3)
{
    char b[32], p[32], dl[32] = "";
    bool classic = strcmp(d->run.scheduler, "classic") == 0;

    if (t->deadline >= 0 && (classic || t->deadline != t->period)) {
        snprintf(dl, sizeof dl, " \xc2\xb7 deadline ");
        cv_time(c, dl + strlen(dl), sizeof dl - strlen(dl), t->deadline);
    }
    snprintf(l2, n2, "prio %lld \xc2\xb7 %s%s", (long long)t->priority,
             t->criticality[0] ? t->criticality : "root task", dl);
    if (classic) {
        snprintf(l3, n3, "no budget (classic)");
    } else if (t->passive) {
        snprintf(l3, n3, "passive: no budget of its own");
    } else if (t->budget >= 0 && t->period > 0) {
        cv_time(c, b, sizeof b, t->budget);
        cv_time(c, p, sizeof p, t->period);
        snprintf(l3, n3, "budget %s / %s", b, p);
    } else {
        snprintf(l3, n3, "no budget limit");
    }
}

/* `text` cut to fit `w` points at font `size` (bold text is wider), its
 * end replaced by an ellipsis: a label never runs out of its column. */
static const char *fit(char *out, size_t len, const char *text, double w, double size, bool bold)
{
    double per_char = cv_text_width("m", size) * (bold ? 1.12 : 1.0);
    size_t max = (size_t)(w / per_char), chars = 0, keep = 0;

    /* count characters, not bytes (the label's middle dots are two) */
    for (const char *p = text; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80 && ++chars == max)
            keep = (size_t)(p - text); /* where the ellipsis would go */
    if (chars <= max || max < 2) {
        snprintf(out, len, "%s", text);
        return out;
    }
    snprintf(out, len, "%.*s\xe2\x80\xa6", (int)keep, text);
    return out;
}

static void draw_row_label(struct canvas *c, const struct chart_data *d, size_t r, double y)
{
    const struct chart_row *row = &d->rows[r];
    const double w = CH_LABEL_W - 10;
    char name[96], l2[160], l3[160], f[200];
    Agnode_t *n;

    if (row->device) {
        const struct chart_device *dev = &d->devices[row->index];
        snprintf(name, sizeof name, "row_%s", dev->name);
        n = cv_text(c, name, CH_PAD + 6, y + 13, w, fit(f, sizeof f, dev->name, w, 11.5, true),
                    11.5, CH_TEXT, 'l');
        snprintf(l2, sizeof l2, "device, irq %lld", (long long)dev->line);
        snprintf(name, sizeof name, "rowinfo_%s", dev->name);
        cv_text(c, name, CH_PAD + 6, y + 27, w, fit(f, sizeof f, l2, w, 9.5, false), 9.5, CH_MUTED,
                'l');
    } else {
        const struct chart_thread *t = &d->threads[row->index];
        snprintf(name, sizeof name, "row_%s", t->name);
        n = cv_text(c, name, CH_PAD + 6, y + 14, w, fit(f, sizeof f, t->name, w, 12, true), 12,
                    CH_TEXT, 'l');
        cv_set(c, n, c->tooltip, t->name);
        thread_details(c, d, t, l2, sizeof l2, l3, sizeof l3);
        snprintf(name, sizeof name, "rowinfo_%s", t->name);
        cv_text(c, name, CH_PAD + 6, y + 30, w, fit(f, sizeof f, l2, w, 9.5, false), 9.5, CH_MUTED,
                'l');
        snprintf(name, sizeof name, "rowinfo2_%s", t->name);
        cv_text(c, name, CH_PAD + 6, y + 43, w, fit(f, sizeof f, l3, w, 9.5, false), 9.5, CH_MUTED,
                'l');
    }
    cv_bold(c, n);
}

static void draw_bands(struct canvas *c, const struct chart_data *d)
{
    double y = plot_top();
    char name[32];

    for (size_t r = 0; r < d->n_rows; r++) {
        double h = row_height(&d->rows[r]);
        snprintf(name, sizeof name, "band_%zu", r);
        cv_box(c, name, CH_PAD, y, c->x0 + CH_PLOT_W, y + h, r % 2 ? "#F4F5F7" : "#FFFFFF");
        y += h;
    }
    if (d->n_rows > 0 && d->rows[d->n_rows - 1].device == false)
        return;
    /* a rule between the threads and the devices */
    for (size_t r = 0; r < d->n_rows; r++)
        if (d->rows[r].device) {
            double yd = plot_top();
            for (size_t k = 0; k < r; k++)
                yd += row_height(&d->rows[k]);
            cv_box(c, "devices_rule", CH_PAD, yd - 0.6, c->x0 + CH_PLOT_W, yd + 0.6, "#B0B4BA");
            break;
        }
}

static void draw_axis(struct canvas *c, const struct chart_data *d, double bottom)
{
    struct chart_tick ticks[MAX_TICKS + 2];
    size_t n = chart_axis_ticks((uint64_t)d->from, (uint64_t)d->to, d->run.cpu_hz, MAX_TICKS, ticks,
                                MAX_TICKS + 2);
    char name[32];

    for (size_t i = 0; i < n; i++) {
        double x = c->x0 + (ticks[i].time - (double)c->from) * c->scale;
        snprintf(name, sizeof name, "grid_%zu", i);
        cv_box(c, name, x - 0.3, plot_top(), x + 0.3, bottom, "#D5D8DD");
        snprintf(name, sizeof name, "tick_%zu", i);
        cv_box(c, name, x - 0.5, bottom, x + 0.5, bottom + 5, "#444444");
        snprintf(name, sizeof name, "ticklabel_%zu", i);
        cv_text(c, name, x - 40, bottom + 14, 80, ticks[i].label, 10, CH_TEXT, 'c');
    }
    cv_box(c, "axis", c->x0, bottom - 0.5, c->x0 + CH_PLOT_W, bottom + 0.5, "#444444");
    cv_text(c, "axis_caption", c->x0 + CH_PLOT_W - 200, bottom + 28, 200, "time", 9.5, CH_MUTED,
            'r');
}

/* Everything but the marks of the rows, which go between the bands and
 * the labels so that labels stay on top. */
static void draw_chart(struct canvas *c, const struct chart_data *d)
{
    double bottom = plot_bottom(d), y = plot_top();
    double legend_y = bottom + CH_AXIS_H + CH_LEGEND_TOP;

    draw_bands(c, d);
    draw_axis(c, d, bottom);
    for (size_t r = 0; r < d->n_rows; r++) {
        rows_draw(c, d, r, y);
        y += row_height(&d->rows[r]);
    }
    y = plot_top();
    for (size_t r = 0; r < d->n_rows; r++) {
        draw_row_label(c, d, r, y);
        y += row_height(&d->rows[r]);
    }
    draw_title(c, d);
    mk_legend(c, d, legend_y, false);
    /* the corners fix the page: nop2's bounding box is that of the nodes */
    cv_set(c, cv_node(c, "corner_a", "point", 0, 0, 0.01, 0.01), c->style, "invis");
    cv_set(c,
           cv_node(c, "corner_b", "point", c->x0 + CH_PLOT_W + CH_RIGHT + CH_PAD, c->height, 0.01,
                   0.01),
           c->style, "invis");
}

static void canvas_geometry(struct canvas *c, const struct chart_data *d)
{
    double bottom = plot_bottom(d);

    c->from = d->from;
    c->to = d->to;
    c->cpu_hz = d->run.cpu_hz;
    mk_colours(c, d);
    c->x0 = CH_PAD + CH_LABEL_W;
    c->scale = CH_PLOT_W / (double)(d->to - d->from);
    c->height = bottom + CH_AXIS_H + CH_LEGEND_TOP;
    c->height += mk_legend(c, d, c->height, true) + CH_PAD;
}

/* ---- Graphviz's messages, caught ---- */

static struct {
    bool in_error; /* the message being written is an error, not a warning */
    bool error;
    char text[400];
} gv_msg;

/* agerr hands a message over in pieces: "Error" or "Warning", ": ", the
 * text; only errors are kept. */
static int gv_catch(char *piece)
{
    if (strcmp(piece, "Error") == 0) {
        gv_msg.in_error = gv_msg.error = true;
        gv_msg.text[0] = '\0';
    } else if (strcmp(piece, "Warning") == 0) {
        gv_msg.in_error = false;
    } else if (gv_msg.in_error && strcmp(piece, ": ") != 0) {
        size_t k = strlen(gv_msg.text);
        snprintf(gv_msg.text + k, sizeof gv_msg.text - k, "%s", piece);
    }
    return 0;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* ---- rendering ---- */

static enum chart_status check_writable(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");

    if (f == NULL) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return CHART_EINPUT;
    }
    fclose(f);
    return CHART_OK;
}

static enum chart_status render(GVC_t *gvc, struct canvas *c, const char *path, const char *format,
                                char *err, size_t errlen)
{
    int rc;

    if (c->failed || gvLayout(gvc, c->g, "nop2") != 0) {
        snprintf(err, errlen, "Graphviz could not lay out the chart%s%s", gv_msg.error ? ": " : "",
                 gv_msg.text);
        return CHART_EINTERNAL;
    }
    rc = gvRenderFilename(gvc, c->g, format, path);
    gvFreeLayout(gvc, c->g);
    if (rc != 0 || gv_msg.error) {
        snprintf(err, errlen, "Graphviz could not write %s%s%s", path, gv_msg.error ? ": " : "",
                 gv_msg.text);
        remove(path);
        return CHART_EINTERNAL;
    }
    return CHART_OK;
}

enum chart_status chart_draw(const struct chart_data *d, const char *path, const char *format,
                             char *err, size_t errlen)
{
    struct canvas c = {0};
    agusererrf old = agseterrf(gv_catch);
    GVC_t *gvc;
    enum chart_status st = check_writable(path, err, errlen);

    memset(&gv_msg, 0, sizeof gv_msg);
    if (st != CHART_OK) {
        agseterrf(old);
        return st;
    }
    canvas_geometry(&c, d);
    gvc = gvContext();
    if (gvc == NULL || canvas_open(&c) != 0) {
        snprintf(err, errlen, "Graphviz could not start (out of memory)");
        st = CHART_EINTERNAL;
    } else {
        draw_chart(&c, d);
        st = render(gvc, &c, path, format, err, errlen);
    }
    trim(err);
    if (c.g)
        agclose(c.g);
    if (gvc)
        gvFreeContext(gvc);
    agseterrf(old);
    return st;
}

#endif /* MCSIM_HAVE_GVC */
