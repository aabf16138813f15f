/*
 * budget: respected, window by window as the rows arrive (bwin.h).
 *
 * Each context keeps rising sums over time of its slices (paid before
 * each start) and of its grants (granted before each time), from the
 * oldest item a window not yet evaluated may need; what lies before is
 * one number. Every window is a difference of two sums: what was paid
 * before its end less what was paid before its start; its grants the
 * same.
 */
#include "bwin.h"

#include <stdlib.h>
#include <string.h>

#include "uworld.h" /* BADGE_NTFN_BASE */

#include "hal_sim.h"
#include "util/grow.h"

/* ------------------------------------------------------------ the clock */

bool bwin_coarse(const struct bwin_clock *c)
{
    return c->timer_hz != 0 && c->timer_hz < c->cpu_hz;
}

int64_t bwin_clock(const struct bwin_clock *c, int64_t x)
{
    if (!bwin_coarse(c) || x <= 0)
        return x;
    return (int64_t)hal_sim_ticks_at((uint64_t)x, c->cpu_hz, c->timer_hz);
}

int64_t bwin_entry_ticks(const struct bwin_clock *c, cycles_t cycles)
{
    if (!bwin_coarse(c))
        return (int64_t)cycles;
    return (int64_t)(((unsigned __int128)cycles * c->timer_hz + c->cpu_hz - 1) / c->cpu_hz);
}

/* ------------------------------------------------------------ sums */

/* Items in time order from `head` on (those before are dropped): at, end
 * (a grant: end = at) and the total of every item before it, dropped ones
 * included; `total` of them all. */
struct series {
    int64_t *at, *end, *cum;
    size_t head, n, cap;
    int64_t total;
};

static bool series_push(struct series *p, int64_t at, int64_t end, int64_t amount)
{
    if (p->n == p->cap) {
        if (p->head > 0 && p->head >= p->n / 2) { /* drop the dead front first */
            size_t k = p->n - p->head;

            memmove(p->at, p->at + p->head, k * sizeof *p->at);
            memmove(p->end, p->end + p->head, k * sizeof *p->end);
            memmove(p->cum, p->cum + p->head, k * sizeof *p->cum);
            p->n = k;
            p->head = 0;
        } else {
            size_t cap = p->cap, c2 = p->cap, c3 = p->cap;

            if (!grow_array(&p->at, &cap, p->n + 1, sizeof *p->at, 64) ||
                !grow_array(&p->end, &c2, p->n + 1, sizeof *p->end, 64) ||
                !grow_array(&p->cum, &c3, p->n + 1, sizeof *p->cum, 64))
                return false;
            p->cap = cap < c2 ? (cap < c3 ? cap : c3) : (c2 < c3 ? c2 : c3);
        }
    }
    p->at[p->n] = at;
    p->end[p->n] = end;
    p->cum[p->n] = p->total;
    p->total += amount;
    p->n++;
    return true;
}

static void series_release(struct series *p)
{
    free(p->at);
    free(p->end);
    free(p->cum);
    memset(p, 0, sizeof *p);
}

/* The total before t: of slices, what was paid in [0, t) (the slice
 * across t counted up to t); of grants (end = at), what was granted
 * before t. Items dropped end at or before t. */
static int64_t series_before(const struct series *p, int64_t t)
{
    size_t lo = p->head, hi = p->n;
    int64_t total;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (p->at[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    total = lo < p->n ? p->cum[lo] : p->total;
    if (lo > p->head && p->end[lo - 1] > t)
        total -= p->end[lo - 1] - t;
    return total;
}

/* Drop the items before index `keep` that end at or before h. */
static void series_drop(struct series *p, size_t keep, int64_t h)
{
    while (p->head < keep && p->end[p->head] <= h)
        p->head++;
}

/* ------------------------------------------------------------ contexts */

struct bwin_ctx {
    struct bwin_def d; /* budget and period in ticks */
    int64_t base;      /* the limit without grants: budget + one entry */
    struct series slices, grants;
    bool ran;          /* a slice was paid by it */
    /* constant bandwidth: the next slice and grant whose windows are due
     * (phase: 0 the one before the grant, 1 the one after); the worst of
     * the slices' windows and of the grants' */
    size_t next, gnext;
    int gphase;
    struct bwin_window by_slice, by_grant;
    /* sporadic: the instants its refills were dated (wake-ups), from
     * `ahead` on; the first one's next k, and what was paid and granted
     * before it (have_a) */
    int64_t *anchors;
    size_t ahead, n_anchors, cap_anchors;
    int64_t k, paid_a, granted_a;
    bool have_a;
    struct bwin_window worst;
    int64_t due; /* ticks: the end of the first window not yet evaluated */
};

static void consider(struct bwin_window *w, const struct bwin_ctx *c, int64_t t, int64_t k,
                     int64_t paid, int64_t grants)
{
    int64_t n = k > 0 ? k : 1;
    int64_t excess = paid - ((n - 1) * c->d.budget + c->base + grants);

    if (w->any && excess <= w->excess)
        return;
    *w = (struct bwin_window){.any = true,
                              .ctx = c->d,
                              .start = t,
                              .end = t + n * c->d.period,
                              .k = k,
                              .paid = paid,
                              .grants = grants,
                              .excess = excess};
}

/* Every window of a period of a constant-bandwidth or round-robin context
 * that ends by lim: from each slice start t, what was paid in [t, t +
 * period) and granted in [t - period, t + period); then for each grant g
 * the windows just before it enters and just after it leaves (g - period
 * and g + period + 1). Then drop what no later window needs. */
static void windows_due(struct bwin_ctx *c, int64_t lim)
{
    struct series *s = &c->slices, *g = &c->grants;
    int64_t p = c->d.period, hs, hg;

    for (; c->next < s->n && s->at[c->next] + p <= lim; c->next++) {
        int64_t t = s->at[c->next];

        consider(&c->by_slice, c, t, 0, series_before(s, t + p) - s->cum[c->next],
                 series_before(g, t + p) - series_before(g, t - p));
    }
    while (c->gnext < g->n) {
        int64_t at = g->at[c->gnext];
        int64_t t = c->gphase == 0 ? at - p : at + p + 1;

        if (t + p > lim)
            break;
        consider(&c->by_grant, c, t, 0, series_before(s, t + p) - series_before(s, t),
                 series_before(g, t + p) - series_before(g, t - p));
        if (++c->gphase == 2) {
            c->gphase = 0;
            c->gnext++;
        }
    }
    /* the earliest instant a later window reads: slices from it, grants
     * from a period before it; a grant still to come (at lim or later)
     * reads from lim - period */
    hs = lim - p;
    c->due = INT64_MAX;
    if (c->next < s->n) {
        hs = s->at[c->next] < hs ? s->at[c->next] : hs;
        c->due = s->at[c->next] + p;
    }
    if (c->gnext < g->n) {
        int64_t t = c->gphase == 0 ? g->at[c->gnext] - p : g->at[c->gnext] + p + 1;

        hs = t < hs ? t : hs;
        c->due = t + p < c->due ? t + p : c->due;
    }
    hg = hs - p;
    series_drop(s, c->next, hs);
    series_drop(g, c->gnext, hg - 1); /* granted before hg: items at < hg */
}

/* A sporadic context: from each wake-up a up to the next (the end of the
 * run after the last), the windows [a, a + k x period) that end by lim. */
static void sporadic_due(struct bwin_ctx *c, const struct bwin_clock *clk, int64_t lim)
{
    struct series *s = &c->slices, *g = &c->grants;
    int64_t p = c->d.period, h = lim;

    if (!c->ran) { /* no window until it runs (and none if it never does) */
        c->due = INT64_MAX; /* its first slice lowers it */
        return;
    }
    while (c->ahead < c->n_anchors) {
        int64_t a = c->anchors[c->ahead];
        int64_t stop = c->ahead + 1 < c->n_anchors ? c->anchors[c->ahead + 1]
                                                    : bwin_clock(clk, (int64_t)clk->duration);

        if (!c->have_a) {
            if (a > lim)
                break;
            c->paid_a = series_before(s, a);
            c->granted_a = series_before(g, a);
            c->have_a = true;
            c->k = 1;
        }
        while (a + (c->k - 1) * p < stop && a + c->k * p <= lim) {
            int64_t t = a + c->k * p;

            consider(&c->worst, c, a, c->k, series_before(s, t) - c->paid_a,
                     series_before(g, t) - c->granted_a);
            c->k++;
        }
        if (a + (c->k - 1) * p < stop)
            break; /* a window still to end */
        c->ahead++;
        c->have_a = false;
    }
    c->due = INT64_MAX;
    if (c->ahead < c->n_anchors) {
        int64_t a = c->anchors[c->ahead];

        h = c->have_a ? a + (c->k - 1) * p : a;
        c->due = c->have_a ? a + c->k * p : a;
    }
    series_drop(s, s->n, h);
    series_drop(g, g->n, h - 1);
}

/* c may have a window ending at t: look at it when lim reaches t. */
static void ctx_lower(struct bwin *b, struct bwin_ctx *c, int64_t t)
{
    if (t < c->due) {
        c->due = t;
        dueq_set(&b->q, (uint32_t)(c - b->ctx), t);
    }
}

static void ctx_due(struct bwin *b, struct bwin_ctx *c)
{
    if (c->d.sporadic)
        sporadic_due(c, &b->clock, b->lim);
    else
        windows_due(c, b->lim);
}

/* ------------------------------------------------------------ the rows */

int bwin_init(struct bwin *b, const struct bwin_clock *c, uint32_t n_threads, uint32_t n_ntfns)
{
    memset(b, 0, sizeof *b);
    b->clock = *c;
    b->n_threads = n_threads;
    b->n_ntfns = n_ntfns;
    b->by_thread = malloc((n_threads ? n_threads : 1) * sizeof *b->by_thread);
    b->by_ntfn = malloc((n_ntfns ? n_ntfns : 1) * sizeof *b->by_ntfn);
    if (!b->by_thread || !b->by_ntfn) {
        bwin_release(b);
        return -1;
    }
    for (uint32_t i = 0; i < n_threads; i++)
        b->by_thread[i] = -1;
    for (uint32_t i = 0; i < n_ntfns; i++)
        b->by_ntfn[i] = -1;
    b->lim = INT64_MIN / 4;
    dueq_init(&b->q);
    return 0;
}

int bwin_add(struct bwin *b, const struct bwin_def *d)
{
    struct bwin_ctx *c;
    int32_t *slot = d->thread >= 0 && (uint64_t)d->thread < b->n_threads ? &b->by_thread[d->thread]
                    : d->thread < 0 && d->ntfn < b->n_ntfns                ? &b->by_ntfn[d->ntfn]
                                                                           : NULL;

    if (!grow_one(&b->ctx, &b->cap, b->n, sizeof *b->ctx) || !dueq_add(&b->q)) {
        b->failed = true;
        return -1;
    }
    c = &b->ctx[b->n];
    memset(c, 0, sizeof *c);
    c->d = *d;
    c->d.budget = bwin_clock(&b->clock, d->budget);
    c->d.period = bwin_clock(&b->clock, d->period);
    c->base = c->d.budget + bwin_entry_ticks(&b->clock, b->clock.allowance);
    c->due = INT64_MAX;
    if (c->d.sporadic)
        ctx_lower(b, c, 0);
    if (c->d.sporadic) { /* configured after boot: every refill is dated later */
        c->anchors = malloc(16 * sizeof *c->anchors);
        if (!c->anchors) {
            b->failed = true;
            return -1;
        }
        c->cap_anchors = 16;
        c->anchors[c->n_anchors++] = 0;
    }
    if (slot && *slot < 0)
        *slot = (int32_t)b->n;
    b->n++;
    return 0;
}

void bwin_release(struct bwin *b)
{
    for (size_t i = 0; i < b->n; i++) {
        series_release(&b->ctx[i].slices);
        series_release(&b->ctx[i].grants);
        free(b->ctx[i].anchors);
    }
    free(b->ctx);
    free(b->by_thread);
    free(b->by_ntfn);
    dueq_release(&b->q);
    memset(b, 0, sizeof *b);
}

/* The context paying for slice r: a thread's (sc_thread), or a
 * notification's for a thread it ran (DB_SLICES_DONATED). */
static struct bwin_ctx *payer(struct bwin *b, const struct sink_slice *r)
{
    int32_t i = -1;

    if (r->sc_thread != SINK_NO_THREAD) {
        if (r->sc_thread < b->n_threads)
            i = b->by_thread[r->sc_thread];
    } else if (r->thread != SINK_NO_THREAD && r->sc_notification < b->n_ntfns) {
        i = b->by_ntfn[r->sc_notification];
    }
    return i >= 0 ? &b->ctx[i] : NULL;
}

void bwin_slice(struct bwin *b, const struct sink_slice *r)
{
    struct bwin_ctx *c = payer(b, r);
    int64_t a, e;

    if (!c)
        return;
    a = bwin_clock(&b->clock, (int64_t)r->start);
    e = bwin_clock(&b->clock, (int64_t)r->end);
    if (!series_push(&c->slices, a, e, e - a))
        b->failed = true;
    if (c->slices.n - c->slices.head + c->grants.n - c->grants.head > b->held_max)
        b->held_max = c->slices.n - c->slices.head + c->grants.n - c->grants.head;
    if (!c->d.sporadic)
        ctx_lower(b, c, a + c->d.period);
    else if (!c->ran)
        ctx_lower(b, c, INT64_MIN);
    c->ran = true;
}

void bwin_grant(struct bwin *b, uint32_t sc_thread, cycles_t time, uint64_t amount)
{
    struct bwin_ctx *c;
    int64_t t;

    if (sc_thread >= b->n_threads || b->by_thread[sc_thread] < 0)
        return; /* a notification's context: no grant is allowed for (expect_budget.c) */
    c = &b->ctx[b->by_thread[sc_thread]];
    t = bwin_clock(&b->clock, (int64_t)time);
    if (!series_push(&c->grants, t, t, bwin_clock(&b->clock, (int64_t)amount)))
        b->failed = true;
    if (!c->d.sporadic)
        ctx_lower(b, c, t); /* the end of its first window */
}

void bwin_unblock(struct bwin *b, uint64_t badge, cycles_t time)
{
    int32_t i = -1;
    struct bwin_ctx *c;

    if (badge < b->n_threads)
        i = b->by_thread[badge];
    else if (badge >= BADGE_NTFN_BASE && badge - BADGE_NTFN_BASE < b->n_ntfns)
        i = b->by_ntfn[badge - BADGE_NTFN_BASE];
    if (i < 0 || !b->ctx[i].d.sporadic)
        return;
    c = &b->ctx[i];
    if (!grow_one(&c->anchors, &c->cap_anchors, c->n_anchors, sizeof *c->anchors)) {
        b->failed = true;
        return;
    }
    c->anchors[c->n_anchors++] = bwin_clock(&b->clock, (int64_t)time);
    ctx_lower(b, c, c->anchors[c->n_anchors - 1]); /* it may end the first one's windows */
    if (c->ahead > 64 && c->ahead >= c->n_anchors / 2) {
        memmove(c->anchors, c->anchors + c->ahead, (c->n_anchors - c->ahead) * sizeof *c->anchors);
        c->n_anchors -= c->ahead;
        c->ahead = 0;
    }
}

void bwin_advance(struct bwin *b, cycles_t time)
{
    int64_t lim = bwin_clock(&b->clock, (int64_t)time);

    if (lim <= b->lim)
        return;
    b->lim = lim;
    /* each context with a window ending by lim, once: its windows to lim
     * evaluated, it is next due after lim */
    while (dueq_min(&b->q) <= lim) {
        uint32_t i = dueq_top(&b->q);

        ctx_due(b, &b->ctx[i]);
        dueq_set(&b->q, i, b->ctx[i].due > lim ? b->ctx[i].due : lim + 1);
    }
}

void bwin_end(struct bwin *b)
{
    b->lim = INT64_MAX / 4;
    for (size_t i = 0; i < b->n; i++)
        ctx_due(b, &b->ctx[i]);
}

void bwin_verdict(const struct bwin *b, struct bwin_verdict *v)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < b->n; i++) {
        const struct bwin_ctx *c = &b->ctx[i];
        struct bwin_window w = {0};

        if (c->d.sporadic) {
            if (c->ran) /* a context that never ran has no window */
                w = c->worst;
        } else {
            w = c->by_slice;
            if (c->by_grant.any && (!w.any || c->by_grant.excess > w.excess))
                w = c->by_grant;
        }
        v->contexts++;
        v->over += w.any && w.excess > 0;
        if (w.any && (!v->worst.any || w.excess > v->worst.excess))
            v->worst = w;
    }
}
