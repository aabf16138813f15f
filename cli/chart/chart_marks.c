/*
 * How each mark of a chart looks, and the legend that shows them all: the
 * legend draws its samples with the same functions as the rows, so it
 * cannot drift from what the chart shows. Colours: one per criticality
 * level from a palette readable by colour-blind viewers (Tableau 10), red
 * kept for what went wrong (missed deadlines, lost interrupts, throttling).
 */
#include <stdio.h>
#include <string.h>

#ifdef MCSIM_HAVE_GVC

#include "chart_draw_int.h"

#define RELEASE_COLOUR "#2B2F36"
#define DEADLINE_COLOUR "#6B7280"
#define IRQ_COLOUR "#5B6470"
#define THROTTLE_FILL "#F8D3D0"
#define THROTTLE_TEXT "#A93226"
#define NTFN_HATCH "#7F7F7F"

const char *mk_colour(int rank)
{
    static const char *const palette[] = {"#4E79A7", "#F28E2B", "#59A14F", "#B07AA1",
                                          "#76B7B2", "#EDC948", "#9C755F", "#FF9DA7"};
    if (rank < 0)
        return "#A0A0A0";
    return palette[(size_t)rank % (sizeof palette / sizeof palette[0])];
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
    S_IRQ,
    S_LOST
};

struct entry {
    enum sample sample;
    int rank; /* S_BAR: the criticality's colour */
    char text[96];
};

static void draw_sample(struct canvas *c, const struct entry *e, const char *name, double x,
                        double y)
{
    double x1 = x + CH_LEGEND_SAMPLE - 8, mid = (x + x1) / 2;
    char seg[96];

    switch (e->sample) {
    case S_BAR:
        mk_bar(c, name, x, x1, y - 5, y + 5, mk_colour(e->rank), NULL, NULL);
        break;
    case S_DONATED:
        mk_bar(c, name, x, x1, y - 5, y + 5, mk_colour(e->rank), mk_colour(e->rank), NULL);
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
    case S_IRQ:
    case S_LOST:
        mk_irq(c, name, mid, y - 8, y + 8, e->sample == S_LOST, NULL);
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

/* One bar per criticality level of the run, least critical first. */
static size_t level_entries(const struct chart_data *d, struct entry *list, size_t n)
{
    int top = -1;
    char text[96];

    for (size_t i = 0; i < d->n_threads; i++)
        if (d->threads[i].rank > top)
            top = d->threads[i].rank;
    for (int rank = 0; rank <= top && n < 24; rank++)
        for (size_t i = 0; i < d->n_threads; i++)
            if (d->threads[i].rank == rank) {
                snprintf(text, sizeof text, "ran (criticality %s)", d->threads[i].criticality);
                n = add(list, n, S_BAR, rank, text);
                break;
            }
    return n;
}

static size_t entries(const struct chart_data *d, struct entry *list)
{
    size_t n = level_entries(d, list, 0);

    for (size_t r = 0; r < d->n_rows; r++)
        if (!d->rows[r].device && d->threads[d->rows[r].index].rank < 0) {
            n = add(list, n, S_BAR, -1, "ran (root task)");
            break;
        }
    n = add(list, n, S_DONATED, 0, "ran on a client's context, hatched in its colour");
    n = add(list, n, S_NTFN, -1, "ran on a notification's context");
    n = add(list, n, S_THROTTLE, 0, "throttled: waits for its next refill");
    n = add(list, n, S_LINE, 0, "budget left: budget - CPU time of the last period");
    n = add(list, n, S_EXHAUSTED, 0, "budget exhausted (time consumed)");
    n = add(list, n, S_REPLENISH, 0, "replenished (budget available)");
    n = add(list, n, S_TIMEOUT, 0, "timeout fault (time consumed)");
    n = add(list, n, S_EMERGENCY, 0, "emergency budget granted (amount)");
    n = add(list, n, S_RELEASE, 0, "job released");
    n = add(list, n, S_DEADLINE, 0, "job's absolute deadline");
    n = add(list, n, S_MISSED, 0, "deadline missed");
    n = add(list, n, S_IRQ, 0, "interrupt arrived (line: until taken)");
    n = add(list, n, S_LOST, 0, "interrupt lost (one already pending)");
    return n;
}

double mk_legend(struct canvas *c, const struct chart_data *d, double y, bool dry_run)
{
    struct entry list[40];
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
