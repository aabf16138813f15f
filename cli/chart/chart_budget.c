/*
 * The budget line (chart_budget.h). U(x), the CPU time paid before x, is
 * piecewise linear with corners at the ends of the stretches, so
 * budget - (U(t) - U(t - period)) has its corners at every stretch end
 * and every stretch end plus the period: the line is those points.
 */
#include "chart_budget.h"

#include <stdlib.h>

/* CPU time paid before x: prefix[k] is the length of stretches 0..k-1. */
static int64_t paid_before(const struct chart_usage *u, const int64_t *prefix, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;

    /* k = the number of stretches starting before x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].start < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const struct chart_usage *last = &u[lo - 1];
    return prefix[lo - 1] + ((x < last->end ? x : last->end) - last->start);
}

static int cmp_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Every corner of the line in (from, to), with from and to; sorted and
 * without repeats. */
static int64_t *corners(const struct chart_usage *u, size_t n, int64_t period, int64_t from,
                        int64_t to, size_t *count)
{
    int64_t *t = malloc((4 * n + 2) * sizeof *t);
    size_t k = 0, out = 0;

    if (t == NULL)
        return NULL;
    t[k++] = from;
    t[k++] = to;
    for (size_t i = 0; i < n; i++) {
        int64_t c[4] = {u[i].start, u[i].end, u[i].start + period, u[i].end + period};
        for (int j = 0; j < 4; j++)
            if (c[j] > from && c[j] < to)
                t[k++] = c[j];
    }
    qsort(t, k, sizeof *t, cmp_time);
    for (size_t i = 0; i < k; i++)
        if (out == 0 || t[i] != t[out - 1])
            t[out++] = t[i];
    *count = out;
    return t;
}

int chart_budget_line(const struct chart_usage *usage, size_t n, int64_t budget, int64_t period,
                      int64_t from, int64_t to, struct chart_point **pts, size_t *n_pts)
{
    int64_t *prefix = malloc((n ? n : 1) * sizeof *prefix);
    size_t count = 0;
    int64_t *t = corners(usage, n, period, from, to, &count);
    struct chart_point *p = t ? malloc(count * sizeof *p) : NULL;

    if (prefix == NULL || p == NULL) {
        free(prefix);
        free(t);
        free(p);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        prefix[i] = (i ? prefix[i - 1] + (usage[i - 1].end - usage[i - 1].start) : 0);
    for (size_t i = 0; i < count; i++) {
        int64_t used =
            paid_before(usage, prefix, n, t[i]) - paid_before(usage, prefix, n, t[i] - period);
        p[i] = (struct chart_point){.time = t[i], .left = budget - used};
    }
    free(prefix);
    free(t);
    *pts = p;
    *n_pts = count;
    return 0;
}
