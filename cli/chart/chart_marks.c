/*
 * How each mark of a chart looks, and the legend that shows them all: the
 * legend draws its samples with the same functions as the rows, so it
 * cannot drift from what the chart shows. Colours: each criticality
 * level's by its name (palette.h, shared with `mcsim graph`), red kept for
 * what went wrong (missed deadlines, lost interrupts, throttling).
 */
#include <stdio.h>
#include <string.h>

#ifdef MCSIM_HAVE_GVC

#include "chart_draw_int.h"
#include "util/palette.h"

#define RELEASE_COLOUR "#2B2F36"
#define DEADLINE_COLOUR "#6B7280"
#define IRQ_COLOUR "#5B6470"
#define THROTTLE_FILL "#F8D3D0"
#define THROTTLE_TEXT "#A93226"
#define NTFN_HATCH "#7F7F7F"
#define COMPLETE_COLOUR "#111111"

void mk_colours(struct canvas *c, const struct chart_data *d)
{
    const char *names[CH_LEVELS] = {NULL};
    const char *col[CH_LEVELS];

    for (size_t i = 0; i < d->n_threads; i++)
        if (d->threads[i].rank >= 0 && d->threads[i].rank < CH_LEVELS)
            names[d->threads[i].rank] = d->threads[i].criticality;
    palette_levels(names, CH_LEVELS, col);
    for (size_t r = 0; r < CH_LEVELS; r++)
        c->level_colour[r] = col[r];
}

const char *mk_colour(const struct canvas *c, int rank)
{
    if (rank < 0 || rank >= CH_LEVELS)
        return palette_none();
    return c->level_colour[rank];
}

static void set_tip(struct canvas *c, Agnode_t *n, const char *tip)
{
    if (tip != NULL)
        cv_set(c, n, c->tooltip, tip);
}

/* Stripes about 2.5pt wide: a hatch in the payer's colour. */
static void hatch(struct canvas *c, Agnode_t *n, double w, const char *colour)
{
    char list[1200];
    size_t k = 0;
    int stripes = (int)(w / 2.5);

    if (stripes < 2 || w < 3) {
        cv_set(c, n, c->fillcolor, colour);
        return;
    }
    if (stripes > 60)
        stripes = 60;
    for (int i = 0; i < stripes && k + 40 < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ":" : "",
                              i % 2 ? "#FFFFFF" : colour);
    cv_set(c, n, c->style, "striped");
    cv_set(c, n, c->fillcolor, list);
    cv_set(c, n, c->color, colour);
    cv_set(c, n, c->penwidth, "0.8");
}

void mk_bar(struct canvas *c, const char *name, double x0, double x1, double top, double bot,
            const char *fill, const char *hatch_colour, const char *tip)
{
    Agnode_t *n;

    if (x1 - x0 < 0.7) { /* keep the shortest slices visible */
        double mid = (x0 + x1) / 2;
        x0 = mid - 0.35;
        x1 = mid + 0.35;
    }
    n = cv_box(c, name, x0, top, x1, bot, fill);
    if (hatch_colour != NULL)
        hatch(c, n, x1 - x0, hatch_colour);
    set_tip(c, n, tip);
}

void mk_throttle(struct canvas *c, const char *name, double x0, double x1, double top, double bot,
                 const char *tip)
{
    Agnode_t *n = cv_box(c, name, x0, top, x1, bot, THROTTLE_FILL);

    if (x1 - x0 >= 56) {
        cv_set(c, n, c->label, "throttled");
        cv_set(c, n, c->fontsize, "9.5");
        cv_set(c, n, c->fontcolor, THROTTLE_TEXT);
    }
    set_tip(c, n, tip);
}

/* A vertical arrow: a stem and a triangular head at the top or bottom. */
static void arrow(struct canvas *c, const char *name, double x, double top, double bot, bool up,
                  const char *colour, double head, const char *tip)
{
    char stem[96];
    Agnode_t *n;

    snprintf(stem, sizeof stem, "%s.stem", name);
    if (up)
        cv_box(c, stem, x - 0.6, top + head * 0.8, x + 0.6, bot, colour);
    else
        cv_box(c, stem, x - 0.6, top, x + 0.6, bot - head * 0.8, colour);
    n = cv_node(c, name, up ? "triangle" : "invtriangle", x, up ? top + head / 2 : bot - head / 2,
                head, head);
    cv_set(c, n, c->style, "filled");
    cv_set(c, n, c->fillcolor, colour);
    cv_set(c, n, c->color, colour);
    set_tip(c, n, tip);
}

void mk_release(struct canvas *c, const char *name, double x, double top, double bot,
                const char *tip)
{
    arrow(c, name, x, top, bot, true, RELEASE_COLOUR, 7, tip);
}

void mk_deadline(struct canvas *c, const char *name, double x, double top, double bot, bool missed,
                 const char *tip)
{
    arrow(c, name, x, top, bot, false, missed ? CH_MISSED : DEADLINE_COLOUR, missed ? 9 : 7, tip);
}

void mk_complete(struct canvas *c, const char *name, double x, double top, double bot,
                 const char *tip)
{
    char stem[96];
    Agnode_t *n;

    snprintf(stem, sizeof stem, "%s.stem", name);
    cv_box(c, stem, x - 0.7, top + 2, x + 0.7, bot, COMPLETE_COLOUR);
    n = cv_node(c, name, "circle", x, top + 2, 5, 5);
    cv_set(c, n, c->style, "filled");
    cv_set(c, n, c->fillcolor, COMPLETE_COLOUR);
    cv_set(c, n, c->color, COMPLETE_COLOUR);
    set_tip(c, n, tip);
}

void mk_abort(struct canvas *c, const char *name, double x, double y, const char *tip)
{
    /* U+2715 MULTIPLICATION X: a cross is what "cancelled" looks like */
    Agnode_t *n = cv_text(c, name, x - 6, y, 12, "\xe2\x9c\x95", 11, CH_MISSED, 'c');

    set_tip(c, n, tip);
}

void mk_irq(struct canvas *c, const char *name, double x, double top, double bot, bool lost,
            const char *tip)
{
    arrow(c, name, x, top, bot, true, lost ? CH_MISSED : IRQ_COLOUR, lost ? 7 : 6, tip);
}

void mk_budget(struct canvas *c, const char *name, enum chart_budget_kind kind, double x, double y,
               const char *tip)
{
    static const struct {
        const char *shape, *fill;
        double size;
    } look[CHART_BUDGET_KINDS] = {
        [CHART_EXHAUSTED] = {"diamond", "#1F1F1F", 9},
        [CHART_REPLENISH] = {"circle", "#2E9E5B", 7.5},
        [CHART_TIMEOUT_FAULT] = {"star", "#8E24AA", 13},
        [CHART_EMERGENCY] = {"pentagon", "#E0A800", 10},
    };
    Agnode_t *n = cv_node(c, name, look[kind].shape, x, y, look[kind].size, look[kind].size);

    cv_set(c, n, c->style, "filled");
    cv_set(c, n, c->fillcolor, look[kind].fill);
    cv_set(c, n, c->color, look[kind].fill);
    set_tip(c, n, tip);
}

/* ---- the legend ---- */

enum sample {
    S_BAR,
    S_DONATED,
    S_NTFN,
    S_THROTTLE,
    S_LINE,
    S_EXHAUSTED,
    S_REPLENISH,
    S_TIMEOUT,
    S_EMERGENCY,
    S_RELEASE,
    S_DEADLINE,
    S_MISSED,
    S_COMPLETE,
    S_ABORTED,
    S_IRQ,
    S_LOST,
    S_KINDS
};

struct entry {
    enum sample sample;
    int rank; /* S_BAR: the criticality's colour */
    char text[112];
};

static void draw_sample(struct canvas *c, const struct entry *e, const char *name, double x,
                        double y)
{
    double x1 = x + CH_LEGEND_SAMPLE - 8, mid = (x + x1) / 2;
    char seg[96];

    switch (e->sample) {
    case S_BAR:
        mk_bar(c, name, x, x1, y - 5, y + 5, mk_colour(c, e->rank), NULL, NULL);
        break;
    case S_DONATED:
        mk_bar(c, name, x, x1, y - 5, y + 5, mk_colour(c, e->rank), mk_colour(c, e->rank), NULL);
        break;
    case S_NTFN:
        mk_bar(c, name, x, x1, y - 5, y + 5, NTFN_HATCH, NTFN_HATCH, NULL);
        break;
    case S_THROTTLE:
        mk_throttle(c, name, x, x1, y - 7, y + 7, NULL);
        break;
    case S_LINE:
        snprintf(seg, sizeof seg, "%s.1", name);
        cv_line(c, seg, x, y - 5, mid, y + 5, "#333333", 1.1);
        snprintf(seg, sizeof seg, "%s.2", name);
        cv_line(c, seg, mid, y + 5, x1, y - 2, "#333333", 1.1);
        break;
    case S_EXHAUSTED:
    case S_REPLENISH:
    case S_TIMEOUT:
    case S_EMERGENCY:
        mk_budget(c, name, (enum chart_budget_kind)(e->sample - S_EXHAUSTED), mid, y, NULL);
        break;
    case S_RELEASE:
        mk_release(c, name, mid, y - 8, y + 8, NULL);
        break;
    case S_DEADLINE:
    case S_MISSED:
        mk_deadline(c, name, mid, y - 8, y + 8, e->sample == S_MISSED, NULL);
        break;
    case S_COMPLETE:
        mk_complete(c, name, mid, y - 8, y + 8, NULL);
        break;
    case S_ABORTED:
        mk_abort(c, name, mid, y, NULL);
        break;
    case S_IRQ:
    case S_LOST:
        mk_irq(c, name, mid, y - 8, y + 8, e->sample == S_LOST, NULL);
        break;
    case S_KINDS:
        break;
    }
}

static size_t add(struct entry *list, size_t n, enum sample s, int rank, const char *text)
{
    list[n].sample = s;
    list[n].rank = rank;
    snprintf(list[n].text, sizeof list[n].text, "%s", text);
    return n + 1;
}

/* One bar per criticality level drawn, least critical first (the root
 * task's grey last). */
static size_t level_entries(const struct chart_data *d, struct entry *list, size_t n)
{
    const char *name[CH_LEVELS + 1] = {NULL};
    bool root = false;
    char text[112];

    for (size_t r = 0; r < d->n_rows; r++) {
        const struct chart_thread *t = &d->threads[d->rows[r].index];
        if (d->rows[r].device)
            continue;
        if (t->rank >= 0 && t->rank < CH_LEVELS)
            name[t->rank] = t->criticality;
        else
            root = true;
    }
    for (int rank = 0; rank < CH_LEVELS; rank++)
        if (name[rank] != NULL) {
            snprintf(text, sizeof text, "ran (criticality %s)", name[rank]);
            n = add(list, n, S_BAR, rank, text);
        }
    if (root)
        n = add(list, n, S_BAR, -1, "ran (root task)");
    return n;
}

static bool in_window(const struct chart_data *d, int64_t t)
{
    return t >= d->from && t < d->to;
}

/* Which kinds of mark the chart of d shows (as chart_rows.c draws them). */
static void present(const struct chart_data *d, bool *has)
{
    for (size_t i = 0; i < d->n_slices; i++) {
        has[S_DONATED] |= d->slices[i].payer == CHART_PAYER_DONATED;
        has[S_NTFN] |= d->slices[i].payer == CHART_PAYER_NTFN;
    }
    has[S_THROTTLE] = d->n_throttles > 0;
    for (size_t i = 0; i < d->n_lines; i++)
        has[S_LINE] |= d->lines[i].n >= 2;
    for (size_t i = 0; i < d->n_events; i++)
        has[S_EXHAUSTED + d->events[i].kind] = true;
    for (size_t i = 0; i < d->n_jobs; i++) {
        const struct chart_job *j = &d->jobs[i];
        has[S_RELEASE] |= in_window(d, j->release);
        has[j->missed ? S_MISSED : S_DEADLINE] |= in_window(d, j->deadline);
        has[S_COMPLETE] |= in_window(d, j->finish);
    }
    has[S_ABORTED] = d->n_aborts > 0;
    for (size_t i = 0; i < d->n_irqs; i++)
        has[d->irqs[i].lost ? S_LOST : S_IRQ] = true;
}

/* What each kind of mark means (its amount, for budget events). */
static const char *const meaning[S_KINDS] = {
    [S_DONATED] = "ran on another thread's context: hatched in its colour, named above",
    [S_NTFN] = "ran on a notification's context (named above)",
    [S_THROTTLE] = "throttled: waits for its next refill",
    [S_LINE] = "budget left: the kernel's head refill, less the time run on it",
    [S_EXHAUSTED] = "budget exhausted; -the last charge (time run since the one before)",
    [S_REPLENISH] = "replenished; +the refill's amount",
    [S_TIMEOUT] = "timeout fault; the time run on the context since its last fault",
    [S_EMERGENCY] = "emergency budget granted; +the amount",
    [S_RELEASE] = "job released",
    [S_DEADLINE] = "job's absolute deadline",
    [S_MISSED] = "deadline missed",
    [S_COMPLETE] = "job completed (release to here: its response time)",
    [S_ABORTED] = "call aborted (the server was reset after a timeout fault)",
    [S_IRQ] = "interrupt arrived (line: until taken)",
    [S_LOST] = "interrupt lost (one already pending)",
};

/* The legend's entries: only what the chart shows. */
static size_t entries(const struct chart_data *d, struct entry *list)
{
    bool has[S_KINDS] = {false};
    size_t n = level_entries(d, list, 0);

    present(d, has);
    for (int k = S_DONATED; k < S_KINDS; k++)
        if (has[k])
            n = add(list, n, (enum sample)k, 0, meaning[k]);
    return n;
}

double mk_legend(struct canvas *c, const struct chart_data *d, double y, bool dry_run)
{
    struct entry list[CH_LEVELS + S_KINDS + 1];
    size_t n = entries(d, list);
    size_t per_col = (n + CH_LEGEND_COLS - 1) / CH_LEGEND_COLS;
    double col_w = (CH_LABEL_W + CH_PLOT_W) / CH_LEGEND_COLS;
    char name[32];

    if (dry_run)
        return (double)per_col * CH_LEGEND_ROW + 8;
    cv_box(c, "legend_rule", CH_PAD, y - 6, c->x0 + CH_PLOT_W, y - 5.4, "#D5D8DD");
    for (size_t i = 0; i < n; i++) {
        double x = CH_PAD + 6 + (double)(i / per_col) * col_w;
        double yy = y + 8 + (double)(i % per_col) * CH_LEGEND_ROW;
        snprintf(name, sizeof name, "legendmark_%zu", i);
        draw_sample(c, &list[i], name, x, yy);
        snprintf(name, sizeof name, "legend_%zu", i);
        cv_text(c, name, x + CH_LEGEND_SAMPLE, yy, col_w - CH_LEGEND_SAMPLE - 8, list[i].text, 10,
                CH_TEXT, 'l');
    }
    return (double)per_col * CH_LEGEND_ROW + 8;
}

#endif /* MCSIM_HAVE_GVC */
