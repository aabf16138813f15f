/*
 * The marks of each row of a chart (chart_draw_int.h): for a thread, its
 * throttled intervals (underneath), its slices, its budget line, its
 * jobs' releases, deadlines and completions, its aborted Calls, its budget
 * events with their amounts; for
 * a device, its interrupt arrivals. Node names carry the index of the
 * database row they show (chart_draw.h).
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#ifdef MCSIM_HAVE_GVC

#include "chart_draw_int.h"

#define AMOUNT_SIZE 8.0
#define MAX_LINE_POINTS 800 /* a budget line with more corners is a smear */

static const char *const budget_prefix[CHART_BUDGET_KINDS] = {"exhausted", "replenish", "timeout",
                                                              "emergency"};
static const char *const budget_words[CHART_BUDGET_KINDS] = {
    "budget exhausted; the last charge (time run since the one before) was",
    "replenished; a refill of", "timeout fault; time run on the context since its last fault:",
    "emergency budget granted:"};
/* What the amount next to a marker starts with: + what a context gained,
 * U+2212 MINUS SIGN the charge that emptied it. */
static const char *const amount_sign[CHART_BUDGET_KINDS] = {"\xe2\x88\x92", "+", "", "+"};
static const char *const amount_colour[CHART_BUDGET_KINDS] = {"#1F1F1F", "#1E7A45", "#7B1FA2",
                                                              "#8A6A00"};

static void span_tip(const struct canvas *c, char *buf, size_t len, const char *who, int64_t start,
                     int64_t end, const char *what)
{
    char a[32], b[32];

    cv_time(c, a, sizeof a, start);
    cv_time(c, b, sizeof b, end);
    snprintf(buf, len, "%s: %s %s to %s", who, what, a, b);
}

static void draw_throttles(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    char name[48], tip[160];

    for (size_t i = 0; i < d->n_throttles; i++) {
        const struct chart_throttle *t = &d->throttles[i];
        if (t->thread != ti)
            continue;
        snprintf(name, sizeof name, "throttle_%zu", i);
        span_tip(c, tip, sizeof tip, d->threads[ti].name, t->start, t->end, "throttled");
        mk_throttle(c, name, cv_x(c, t->start), cv_x(c, t->end), y + 2, y + CH_ROW_H - 2, tip);
    }
}

static void draw_slice(struct canvas *c, const struct chart_data *d, size_t i, double y)
{
    const struct chart_slice *s = &d->slices[i];
    const struct chart_thread *t = &d->threads[s->thread];
    const char *kind = "slice", *hatch_colour = NULL;
    char name[48], tip[200], what[120] = "ran";

    assert(t != NULL && s->thread < d->n_threads);
    if (s->payer == CHART_PAYER_DONATED) {
        const struct chart_thread *p = s->payer_thread >= 0 ? &d->threads[s->payer_thread] : NULL;
        kind = "donated";
        hatch_colour = mk_colour(c, p ? p->rank : -1);
        snprintf(what, sizeof what, "ran on %s's context", p ? p->name : "another thread");
    } else if (s->payer == CHART_PAYER_NTFN) {
        kind = "ntfnsc";
        hatch_colour = "#7F7F7F";
        snprintf(what, sizeof what, "ran on notification %s's context", d->ntfns[s->ntfn]);
    }
    snprintf(name, sizeof name, "%s_%zu", kind, i);
    span_tip(c, tip, sizeof tip, t->name, s->start, s->end, what);
    mk_bar(c, name, cv_x(c, s->start), cv_x(c, s->end), y + ROW_BAR_TOP, y + ROW_BAR_BOT,
           mk_colour(c, t->rank), hatch_colour, tip);
}

/* The name of the context that paid for slice s (not the thread's own). */
static void payer_name(const struct chart_data *d, const struct chart_slice *s, char *buf,
                       size_t len)
{
    if (s->payer == CHART_PAYER_NTFN)
        snprintf(buf, len, "on %s's context", d->ntfns[s->ntfn]);
    else if (s->payer_thread >= 0)
        snprintf(buf, len, "on %s's context", d->threads[s->payer_thread].name);
    else
        snprintf(buf, len, "on another context");
}

/* Above the slices run on another context, whose context paid: at the
 * first slice of each change of payer, and again after PAYER_REPEAT points
 * of the same one, where the text does not run into the last. */
#define PAYER_REPEAT 240.0
static void draw_payers(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    double free_x = 0, last_x = -PAYER_REPEAT;
    int last_thread = -2, last_ntfn = -2;
    char text[120], name[48];

    for (size_t i = 0; i < d->n_slices; i++) {
        const struct chart_slice *s = &d->slices[i];
        double x = cv_x(c, s->start), w;
        bool same = s->payer_thread == last_thread && s->ntfn == last_ntfn;
        if (s->thread != ti || s->payer == CHART_PAYER_OWN || x < free_x ||
            (same && x < last_x + PAYER_REPEAT))
            continue;
        payer_name(d, s, text, sizeof text);
        w = cv_text_width(text, AMOUNT_SIZE);
        if (x + w > c->x0 + CH_PLOT_W)
            continue;
        snprintf(name, sizeof name, "payer_%zu", i);
        cv_text(c, name, x, y + ROW_BAR_TOP - 7, w, text, AMOUNT_SIZE, CH_MUTED, 'l');
        free_x = x + w + 6;
        last_x = x;
        last_thread = s->payer_thread;
        last_ntfn = s->ntfn;
    }
}

static void draw_slices(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    for (size_t i = 0; i < d->n_slices; i++)
        if (d->slices[i].thread == ti)
            draw_slice(c, d, i, y);
    draw_payers(c, d, ti, y);
}

static void draw_release(struct canvas *c, const struct chart_data *d, size_t i, double y)
{
    const struct chart_job *j = &d->jobs[i];
    char name[48], tip[160], at[32];

    if (j->release < d->from || j->release >= d->to)
        return;
    snprintf(name, sizeof name, "release_%zu", i);
    cv_time(c, at, sizeof at, j->release);
    snprintf(tip, sizeof tip, "%s: job %lld released at %s", d->threads[j->thread].name,
             (long long)j->job, at);
    mk_release(c, name, cv_x(c, j->release), y + ROW_MARK_TOP, y + ROW_BAR_TOP, tip);
}

static void draw_deadline(struct canvas *c, const struct chart_data *d, size_t i, double y)
{
    const struct chart_job *j = &d->jobs[i];
    char name[48], tip[160], at[32];

    if (j->deadline < d->from || j->deadline >= d->to)
        return;
    snprintf(name, sizeof name, "%s_%zu", j->missed ? "missed" : "deadline", i);
    cv_time(c, at, sizeof at, j->deadline);
    snprintf(tip, sizeof tip, "%s: job %lld deadline %s%s", d->threads[j->thread].name,
             (long long)j->job, at, j->missed ? " (missed)" : "");
    mk_deadline(c, name, cv_x(c, j->deadline), y + ROW_MARK_TOP, y + ROW_BAR_TOP, j->missed, tip);
}

static void draw_completion(struct canvas *c, const struct chart_data *d, size_t i, double y)
{
    const struct chart_job *j = &d->jobs[i];
    char name[48], tip[200], at[32], resp[32];

    if (j->finish < d->from || j->finish >= d->to)
        return;
    snprintf(name, sizeof name, "complete_%zu", i);
    cv_time(c, at, sizeof at, j->finish);
    cv_time(c, resp, sizeof resp, j->finish - j->release);
    snprintf(tip, sizeof tip, "%s: job %lld completed at %s, response %s%s",
             d->threads[j->thread].name, (long long)j->job, at, resp,
             j->missed ? " (deadline missed)" : "");
    mk_complete(c, name, cv_x(c, j->finish), y + ROW_BAR_TOP - 6, y + ROW_BAR_BOT, tip);
}

static void draw_jobs(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    /* deadlines after releases, so that a missed deadline is not hidden
     * under the next job's release arrow; completions on top of the bars */
    for (size_t i = 0; i < d->n_jobs; i++)
        if (d->jobs[i].thread == ti)
            draw_release(c, d, i, y);
    for (size_t i = 0; i < d->n_jobs; i++)
        if (d->jobs[i].thread == ti)
            draw_deadline(c, d, i, y);
    for (size_t i = 0; i < d->n_jobs; i++)
        if (d->jobs[i].thread == ti)
            draw_completion(c, d, i, y);
}

static void draw_aborts(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    char name[48], tip[160], at[32];

    for (size_t i = 0; i < d->n_aborts; i++) {
        const struct chart_abort *a = &d->aborts[i];
        if (a->thread != ti)
            continue;
        snprintf(name, sizeof name, "aborted_%zu", i);
        cv_time(c, at, sizeof at, a->time);
        snprintf(tip, sizeof tip,
                 "%s: its call was aborted at %s (the server was reset after a timeout fault)",
                 d->threads[ti].name, at);
        mk_abort(c, name, cv_x(c, a->time), y + ROW_MARK_TOP + 6, tip);
    }
}

/* The amount next to budget marker i, if it fits before the next marker
 * of the row and does not run into the last amount drawn (*free_x: where
 * the row's free space begins). */
static void draw_amount(struct canvas *c, const struct chart_data *d, size_t i, double x, double y,
                        double *free_x)
{
    const struct chart_budget_event *e = &d->events[i];
    double next = c->x0 + CH_PLOT_W, w;
    char text[48], name[48];

    if (i + 1 < d->n_events && d->events[i + 1].thread == e->thread)
        next = cv_x(c, d->events[i + 1].time) - 6;
    size_t k = (size_t)snprintf(text, sizeof text, "%s", amount_sign[e->kind]);
    cv_time(c, text + k, sizeof text - k, e->amount);
    w = cv_text_width(text, AMOUNT_SIZE) + 2;
    if (x + 6 < *free_x || x + 6 + w > next)
        return;
    snprintf(name, sizeof name, "amount_%zu", i);
    cv_text(c, name, x + 6, y, w, text, AMOUNT_SIZE, amount_colour[e->kind], 'l');
    *free_x = x + 6 + w + 3;
}

static void draw_events(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    double mid = y + (ROW_BUDGET_TOP + ROW_BUDGET_BOT) / 2, free_x = 0;
    char name[48], tip[160], amount[32], at[32];

    for (size_t i = 0; i < d->n_events; i++) {
        const struct chart_budget_event *e = &d->events[i];
        double x = cv_x(c, e->time);
        if (e->thread != ti)
            continue;
        snprintf(name, sizeof name, "%s_%zu", budget_prefix[e->kind], i);
        cv_time(c, amount, sizeof amount, e->amount);
        cv_time(c, at, sizeof at, e->time);
        snprintf(tip, sizeof tip, "%s at %s: %s %s", d->threads[ti].name, at, budget_words[e->kind],
                 amount);
        mk_budget(c, name, e->kind, x, mid, tip);
        draw_amount(c, d, i, x, mid, &free_x);
    }
}

/* Points where the slope does not change add nothing to a straight-line
 * drawing. */
static bool corner(const struct chart_point *p, size_t k, size_t n)
{
    if (k == 0 || k + 1 == n)
        return true;
    __int128 a = (__int128)(p[k].left - p[k - 1].left) * (p[k + 1].time - p[k].time);
    __int128 b = (__int128)(p[k + 1].left - p[k].left) * (p[k].time - p[k - 1].time);
    return a != b;
}

static double level_y(const struct chart_line *l, int64_t left, double y)
{
    double f = l->budget > 0 ? (double)left / (double)l->budget : 0;
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    return y + ROW_BUDGET_BOT - f * (ROW_BUDGET_BOT - ROW_BUDGET_TOP);
}

static size_t count_corners(const struct chart_line *l)
{
    size_t n = 0;
    for (size_t k = 0; k < l->n; k++)
        n += corner(l->pts, k, l->n);
    return n;
}

/* The budget line, unless it has too many corners to read. */
static void draw_line(struct canvas *c, const struct chart_data *d, size_t li, double y)
{
    const struct chart_line *l = &d->lines[li];
    char name[64];
    size_t prev = 0;

    if (l->n < 2 || count_corners(l) > MAX_LINE_POINTS)
        return;
    snprintf(name, sizeof name, "budgetzero_%zu", li);
    cv_box(c, name, c->x0, y + ROW_BUDGET_BOT - 0.3, c->x0 + CH_PLOT_W, y + ROW_BUDGET_BOT + 0.3,
           "#C4C8CE");
    for (size_t k = 1; k < l->n; k++) {
        if (!corner(l->pts, k, l->n))
            continue;
        snprintf(name, sizeof name, "budget_%zu_%zu", li, k);
        cv_line(c, name, cv_x(c, l->pts[prev].time), level_y(l, l->pts[prev].left, y),
                cv_x(c, l->pts[k].time), level_y(l, l->pts[k].left, y), "#30343B", 1.0);
        prev = k;
    }
}

static void draw_thread(struct canvas *c, const struct chart_data *d, size_t ti, double y)
{
    draw_throttles(c, d, ti, y);
    draw_slices(c, d, ti, y);
    for (size_t i = 0; i < d->n_lines; i++)
        if (d->lines[i].thread == ti)
            draw_line(c, d, i, y);
    draw_jobs(c, d, ti, y);
    draw_aborts(c, d, ti, y);
    draw_events(c, d, ti, y);
}

static void draw_irq(struct canvas *c, const struct chart_data *d, size_t i, double y)
{
    const struct chart_irq *q = &d->irqs[i];
    double x = cv_x(c, q->arrival);
    char name[48], tip[160], at[32], late[32];

    cv_time(c, at, sizeof at, q->arrival);
    if (q->delivered >= 0) {
        cv_time(c, late, sizeof late, q->delivered - q->arrival);
        snprintf(tip, sizeof tip, "%s: arrived at %s, taken %s later", d->devices[q->device].name,
                 at, late);
    } else {
        snprintf(tip, sizeof tip, "%s: arrived at %s, %s", d->devices[q->device].name, at,
                 q->lost ? "lost" : "never taken");
    }
    if (q->delivered > q->arrival && cv_x(c, q->delivered) - x >= 1) {
        snprintf(name, sizeof name, "latency_%zu", i);
        cv_box(c, name, x, y + DEV_MARK_BOT - 1.6, cv_x(c, q->delivered), y + DEV_MARK_BOT + 0.4,
               "#9AA0A8");
    }
    snprintf(name, sizeof name, "%s_%zu", q->lost ? "lost" : "irq", i);
    mk_irq(c, name, x, y + DEV_MARK_TOP, y + DEV_MARK_BOT, q->lost, tip);
}

void rows_draw(struct canvas *c, const struct chart_data *d, size_t r, double y)
{
    const struct chart_row *row = &d->rows[r];

    if (!row->device) {
        draw_thread(c, d, row->index, y);
        return;
    }
    for (size_t i = 0; i < d->n_irqs; i++)
        if (d->irqs[i].device == row->index)
            draw_irq(c, d, i, y);
}

#endif /* MCSIM_HAVE_GVC */
