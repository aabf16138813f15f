/*
 * The budget line (chart_budget.h): per record of the refill list, the
 * head's amount from the head's time on, less the CPU time the context
 * paid since, until the next record. Its corners are the records, the
 * head times and the ends of the stretches paid in between.
 */
#include "chart_budget.h"

#include <stdlib.h>
#include "util/grow.h"

struct line {
    struct chart_point *p;
    size_t n, cap;
};

/* Append a point, unless it repeats the last one (a repeat would hide a
 * corner from the chart's drawing, which skips points on a straight run). */
static int push(struct line *l, int64_t time, int64_t left)
{
    if (l->n > 0 && l->p[l->n - 1].time == time && l->p[l->n - 1].left == left)
        return 0;
    if (!grow_one(&l->p, &l->cap, l->n, sizeof *l->p))
        return -1;
    l->p[l->n++] = (struct chart_point){time, left};
    return 0;
}

/* CPU time paid in [a, x): the stretches from index k on (the first that
 * ends after a). */
static int64_t paid(const struct chart_usage *u, size_t n, size_t k, int64_t a, int64_t x)
{
    int64_t sum = 0;

    for (; k < n && u[k].start < x; k++) {
        int64_t s = u[k].start > a ? u[k].start : a, e = u[k].end < x ? u[k].end : x;
        if (e > s)
            sum += e - s;
    }
    return sum;
}

/* One record's stretch of the line, [s, e) (s: the record's time, or the
 * window's start if later): 0 before the head is due (its time, or the
 * record's if that is later), then its amount less what was paid since it
 * was due. */
static int segment(struct line *l, const struct chart_refill *r, const struct chart_usage *u,
                   size_t n, size_t *first, int64_t s, int64_t e)
{
    int64_t due = r->head_time > r->time ? r->head_time : r->time;
    int64_t avail = due > s ? due : s;
    size_t k;

    while (*first < n && u[*first].end <= r->time) /* records only move on */
        ++*first;
    k = *first;
    while (k < n && u[k].end <= due)
        k++;
    if (push(l, s, due > s ? 0 : r->head_amount - paid(u, n, k, due, s)) != 0)
        return -1;
    if (due > s && due < e && (push(l, due, 0) != 0 || push(l, due, r->head_amount) != 0))
        return -1;
    for (size_t i = k; i < n && u[i].start < e; i++) {
        int64_t c[2] = {u[i].start, u[i].end};
        for (int j = 0; j < 2; j++)
            if (c[j] > avail && c[j] < e &&
                push(l, c[j], r->head_amount - paid(u, n, k, due, c[j])) != 0)
                return -1;
    }
    return push(l, e, due >= e ? 0 : r->head_amount - paid(u, n, k, due, e));
}

int chart_budget_line(const struct chart_refill *rf, size_t n_rf, const struct chart_usage *usage,
                      size_t n, int64_t from, int64_t to, struct chart_point **pts, size_t *n_pts)
{
    struct line l = {0};
    size_t first = 0;

    for (size_t i = 0; i < n_rf; i++) {
        int64_t s = rf[i].time > from ? rf[i].time : from;
        int64_t e = i + 1 < n_rf && rf[i + 1].time < to ? rf[i + 1].time : to;

        if (i + 1 < n_rf && rf[i + 1].time <= from)
            continue; /* a later record holds at from */
        if (s >= to || e < s)
            break;
        if (segment(&l, &rf[i], usage, n, &first, s, e) != 0) {
            free(l.p);
            return -1;
        }
    }
    *pts = l.p;
    *n_pts = l.n;
    return 0;
}
