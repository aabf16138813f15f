/*
 * Refill fragmentation, row by row (tfrag.h).
 *
 * Per context: its refill list as its last row before the latest row's
 * time left it (`before`) and as the latest row left it; each throttle
 * with the list full is kept open with what was paid so far in the
 * period before it, and the slices fed later add their part until no
 * later slice can reach it (they all start at or after it); then it is
 * counted or not.
 */
#include "tfrag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

struct tfrag_open {
    int64_t time, capacity, paid;
};

struct tfrag_ctx {
    struct fragment x;
    int64_t period;
    /* the refill list: as of its latest row (at `time`) and as of the
     * last row before that time */
    bool have, have_before;
    int64_t time, count, capacity, count_before, capacity_before;
    /* slices paid, from `head` on, that may still reach a later throttle */
    struct tfrag_slice {
        int64_t s, e;
    } *sl;
    size_t head, n, cap;
    struct tfrag_open *open; /* throttles with the list full, in time order */
    size_t ohead, n_open, cap_open;
};

int tfrag_init(struct tfrag *f, uint32_t n_threads, uint64_t min_budget)
{
    memset(f, 0, sizeof *f);
    f->n_threads = n_threads;
    f->min_budget = min_budget;
    dueq_init(&f->q);
    f->by_thread = malloc((n_threads ? n_threads : 1) * sizeof *f->by_thread);
    if (!f->by_thread)
        return -1;
    for (uint32_t i = 0; i < n_threads; i++)
        f->by_thread[i] = -1;
    return 0;
}

int tfrag_add(struct tfrag *f, int64_t thread, const char *name, int64_t budget, int64_t period)
{
    struct tfrag_ctx *c;

    if (!grow_one(&f->ctx, &f->cap, f->n, sizeof *f->ctx) || !dueq_add(&f->q)) {
        f->failed = true;
        return -1;
    }
    c = &f->ctx[f->n];
    memset(c, 0, sizeof *c);
    c->x.thread_id = thread;
    snprintf(c->x.name, sizeof c->x.name, "%s", name);
    c->x.budget = budget;
    c->period = period;
    if (thread >= 0 && (uint64_t)thread < f->n_threads && f->by_thread[thread] < 0)
        f->by_thread[thread] = (int32_t)f->n;
    f->n++;
    return 0;
}

void tfrag_release(struct tfrag *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->ctx[i].sl);
        free(f->ctx[i].open);
    }
    free(f->ctx);
    free(f->by_thread);
    dueq_release(&f->q);
    memset(f, 0, sizeof *f);
}

static struct tfrag_ctx *ctx_of(struct tfrag *f, uint32_t thread)
{
    return thread < f->n_threads && f->by_thread[thread] >= 0 ? &f->ctx[f->by_thread[thread]]
                                                             : NULL;
}

/* What slice [s, e) paid in the period before a throttle at t. */
static int64_t overlap(int64_t s, int64_t e, int64_t t, int64_t period)
{
    int64_t a = t - period > s ? t - period : s, b = e < t ? e : t;

    return b > a ? b - a : 0;
}

void tfrag_slice(struct tfrag *f, const struct sink_slice *r)
{
    struct tfrag_ctx *c = ctx_of(f, r->sc_thread);
    int64_t s = (int64_t)r->start, e = (int64_t)r->end;

    if (!c)
        return;
    for (size_t i = c->ohead; i < c->n_open; i++)
        c->open[i].paid += overlap(s, e, c->open[i].time, c->period);
    /* no later throttle (at now or after) reaches back past now - period */
    while (c->head < c->n && c->sl[c->head].e <= (int64_t)f->now - c->period)
        c->head++;
    if (c->head > 0 && c->head == c->n)
        c->head = c->n = 0;
    if (c->n == c->cap && c->head > 0) {
        memmove(c->sl, c->sl + c->head, (c->n - c->head) * sizeof *c->sl);
        c->n -= c->head;
        c->head = 0;
    }
    if (!grow_one(&c->sl, &c->cap, c->n, sizeof *c->sl)) {
        f->failed = true;
        return;
    }
    c->sl[c->n++] = (struct tfrag_slice){s, e};
    if (c->n - c->head + c->n_open - c->ohead > f->held_max)
        f->held_max = c->n - c->head + c->n_open - c->ohead;
}

void tfrag_throttle(struct tfrag *f, uint32_t sc_thread, cycles_t time)
{
    struct tfrag_ctx *c = ctx_of(f, sc_thread);
    int64_t t = (int64_t)time, count, capacity, paid = 0;

    if (!c)
        return;
    /* the list as the last row before t left it */
    if (c->have && c->time < t) {
        count = c->count;
        capacity = c->capacity;
    } else if (c->have_before) {
        count = c->count_before;
        capacity = c->capacity_before;
    } else {
        return; /* no row before it */
    }
    if (count != capacity)
        return;
    for (size_t i = c->head; i < c->n; i++)
        paid += overlap(c->sl[i].s, c->sl[i].e, t, c->period);
    if (c->ohead > 0 && c->ohead == c->n_open)
        c->ohead = c->n_open = 0;
    if (!grow_one(&c->open, &c->cap_open, c->n_open, sizeof *c->open)) {
        f->failed = true;
        return;
    }
    c->open[c->n_open++] = (struct tfrag_open){t, capacity, paid};
    if (t < dueq_key(&f->q, (uint32_t)(c - f->ctx)))
        dueq_set(&f->q, (uint32_t)(c - f->ctx), t);
}

void tfrag_refill(struct tfrag *f, uint32_t sc_thread, cycles_t time, uint32_t count,
                  uint32_t capacity)
{
    struct tfrag_ctx *c = ctx_of(f, sc_thread);

    if (!c)
        return;
    if (c->have && c->time < (int64_t)time) {
        c->have_before = true;
        c->count_before = c->count;
        c->capacity_before = c->capacity;
    }
    c->have = true;
    c->time = (int64_t)time;
    c->count = count;
    c->capacity = capacity;
}

/* Count the open throttles at or before `now`: no slice fed later
 * reaches their period. */
static void close_due(struct tfrag *f, struct tfrag_ctx *c, int64_t now)
{
    for (; c->ohead < c->n_open && c->open[c->ohead].time <= now; c->ohead++) {
        const struct tfrag_open *o = &c->open[c->ohead];
        int64_t unused = c->x.budget - o->paid;

        if (unused < (int64_t)f->min_budget)
            continue;
        c->x.throttles++;
        c->x.capacity = o->capacity;
        if (unused > c->x.most_unused)
            c->x.most_unused = unused;
    }
}

void tfrag_close(struct tfrag *f, cycles_t time)
{
    /* each context with a throttle by `time`, once: those closed, it is
     * next due at its first throttle after */
    while (dueq_min(&f->q) <= (int64_t)time) {
        uint32_t i = dueq_top(&f->q);
        struct tfrag_ctx *c = &f->ctx[i];

        close_due(f, c, (int64_t)time);
        dueq_set(&f->q, i, c->ohead < c->n_open ? c->open[c->ohead].time : DUEQ_NEVER);
    }
}

void tfrag_end(struct tfrag *f)
{
    for (size_t i = 0; i < f->n; i++)
        close_due(f, &f->ctx[i], INT64_MAX);
}

int tfrag_result(const struct tfrag *f, struct fragment **out, size_t *n)
{
    size_t k = 0;

    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < f->n; i++)
        k += f->ctx[i].x.throttles > 0;
    if (k == 0)
        return 0;
    *out = malloc(k * sizeof **out);
    if (!*out)
        return -1;
    for (size_t i = 0; i < f->n; i++)
        if (f->ctx[i].x.throttles > 0)
            (*out)[(*n)++] = f->ctx[i].x;
    return 0;
}
