/*
 * Arrival curves of devices (docs/analysis.md, "Arrivals"): eta(d), the
 * most releases in any half-open window of length d, and delta(q), the
 * least span of q releases, for each form of SCENARIO-FORMAT.md. A release
 * of a device thread is its interrupt's arrival; with one pending
 * interrupt per line some arrivals may be lost, so the releases are a
 * subsequence of the arrivals and every bound below holds for them too.
 * Also the saturating arithmetic of the analysis.
 */
#include "analysis/analysis_int.h"

#include <assert.h>
#include <stdlib.h>

uint64_t an_add(uint64_t a, uint64_t b)
{
    return (a >= AN_INF - b) ? AN_INF : a + b;
}

uint64_t an_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    if (a == AN_INF || b == AN_INF || a > AN_INF / b)
        return AN_INF;
    return a * b;
}

uint64_t an_ceil_div(uint64_t a, uint64_t b)
{
    if (a == AN_INF)
        return AN_INF;
    return a / b + (a % b != 0);
}

static void arrivals_of(const struct scenario *s, uint32_t device, struct an_arrivals *out)
{
    const struct scn_device *d = &s->devices[device];
    out->kind = d->kind;
    out->period = d->period;
    out->jitter = d->jitter;
    out->min = d->min;
    out->every = d->every;
    out->gap = d->gap;
    out->count = d->count;
    out->at = d->at_count ? &s->times[d->at_first] : NULL;
    out->n_at = d->at_count;
    out->span = NULL;
    out->shift = 0;
}

/* The n-th arrival (from 0) of the burst pattern started at 0. */
static cycles_t burst_time(const struct an_arrivals *a, uint64_t n)
{
    return an_add(an_mul(n / a->count, a->every), (n % a->count) * a->gap);
}

/* span[r] = the least span of r + 1 consecutive arrivals: from each
 * arrival of a burst pattern (the pattern repeats every `every`), or from
 * each time of a list. Quadratic, once per device and analysis. */
static void fill_span(const struct an_arrivals *a, cycles_t *span, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        cycles_t best = AN_INF;
        if (a->kind == ARRIVAL_BURST) {
            for (uint64_t s = 0; s < a->count; s++)
                if (burst_time(a, s + r) - burst_time(a, s) < best)
                    best = burst_time(a, s + r) - burst_time(a, s);
        } else {
            for (uint32_t s = 0; s + r < a->n_at; s++)
                if (a->at[s + r] - a->at[s] < best)
                    best = a->at[s + r] - a->at[s];
        }
        span[r] = best;
    }
}

static uint32_t span_len(const struct an_arrivals *a)
{
    return a->kind == ARRIVAL_BURST ? a->count : a->kind == ARRIVAL_AT ? a->n_at : 0;
}

int an_arrival_tables(struct an_ctx *c)
{
    const struct scenario *s = c->s;
    size_t total = 0, at = 0;
    c->dev = calloc(s->n_devices ? s->n_devices : 1, sizeof *c->dev);
    if (!c->dev)
        return -1;
    for (uint32_t k = 0; k < s->n_devices; k++) {
        arrivals_of(s, k, &c->dev[k]);
        total += span_len(&c->dev[k]);
    }
    c->spans = malloc((total ? total : 1) * sizeof *c->spans);
    if (!c->spans)
        return -1;
    for (uint32_t k = 0; k < s->n_devices; k++) {
        uint32_t n = span_len(&c->dev[k]);
        if (n == 0)
            continue;
        fill_span(&c->dev[k], &c->spans[at], n);
        c->dev[k].span = &c->spans[at];
        at += n;
    }
    return 0;
}

/* delta_0(q): the least span of q arrivals of the curve itself (no shift). */
static cycles_t base_delta(const struct an_arrivals *a, uint64_t q)
{
    if (q <= 1)
        return 0;
    if (a->rate)
        return an_rate_delta(a, q); /* a background sender's (analysis_background.c) */
    switch (a->kind) {
    case ARRIVAL_PERIODIC: {
        cycles_t span = an_mul(q - 1, a->period);
        return span > a->jitter ? span - a->jitter : 0;
    }
    case ARRIVAL_SPORADIC:
        return an_mul(q - 1, a->min);
    case ARRIVAL_BURST:
        /* arrival n + count is arrival n one pattern later */
        return an_add(an_mul((q - 1) / a->count, a->every), a->span[(q - 1) % a->count]);
    case ARRIVAL_AT:
        return q <= a->n_at ? a->span[q - 1] : AN_INF;
    }
    return AN_INF;
}

/* A shifted curve's releases (a message-woken thread's): each is one of
 * the curve's arrivals delayed by between 0 and `shift`, so q of them span
 * at least delta_0(q) - shift, and those in a window of length d arrived
 * in one of length d + shift. */
cycles_t an_delta(const struct an_arrivals *a, uint64_t q)
{
    cycles_t d = base_delta(a, q);
    if (d == AN_INF)
        return AN_INF;
    return d > a->shift ? d - a->shift : 0;
}

/* eta_0(d) = the largest q with delta_0(q) < d (q arrivals fit in a
 * half-open window of length d exactly when some q consecutive ones span
 * less than d); delta_0 is nondecreasing, so a doubling and a binary
 * search. */
static uint64_t eta_by_delta(const struct an_arrivals *a, cycles_t d)
{
    uint64_t lo = 1, hi = 2;
    while (base_delta(a, hi) < d) {
        lo = hi;
        if (hi >= AN_INF / 2)
            return AN_INF;
        hi *= 2;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (base_delta(a, mid) < d)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The largest r < n with span[r] < d, given span[0] < d (span is
 * nondecreasing: the least span of more consecutive arrivals is no less). */
static uint32_t span_below(const cycles_t *span, uint32_t n, cycles_t d)
{
    uint32_t lo = 0, hi = n; /* span[lo] < d; span[hi] >= d or hi = n */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (span[mid] < d)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* eta_0(d) of a burst pattern read off its span table (0 < d < AN_INF):
 * delta_0(k count + r + 1) = k every + span[r] (span[0] = 0, span[count -
 * 1] <= (count - 1) gap < every, as the loader requires), so the most
 * arrivals in d are those of the last pattern k = floor((d - 1) / every)
 * that starts in it, k count, plus 1 + the largest r with span[r] < d -
 * k every. The largest q with delta_0(q) < d, as eta_by_delta finds it;
 * AN_INF (by the search) when q would be near the counter's range. */
static uint64_t burst_eta(const struct an_arrivals *a, cycles_t d)
{
    uint64_t k = (d - 1) / a->every;
    if (k >= (UINT64_C(1) << 61) / a->count)
        return eta_by_delta(a, d);
    return k * a->count + span_below(a->span, a->count, d - k * a->every) + 1;
}

/* eta_0(d), the curve's own (d > 0). */
static uint64_t base_eta(const struct an_arrivals *a, cycles_t d)
{
    uint64_t q;
    if (d == AN_INF)
        return a->kind == ARRIVAL_AT ? a->n_at : AN_INF;
    switch (a->kind) {
    case ARRIVAL_PERIODIC:
        return an_ceil_div(an_add(d, a->jitter), a->period);
    case ARRIVAL_SPORADIC:
        return an_ceil_div(d, a->min);
    case ARRIVAL_BURST:
        q = burst_eta(a, d);
        assert(q == eta_by_delta(a, d));
        return q;
    case ARRIVAL_AT:
        /* delta_0(q) = span[q - 1] up to n_at, no q beyond */
        q = a->n_at == 0 ? 0 : span_below(a->span, a->n_at, d) + 1;
        assert(q == (a->n_at == 0 ? 0 : eta_by_delta(a, d)));
        return q;
    }
    return AN_INF;
}

uint64_t an_eta(const struct an_arrivals *a, cycles_t d)
{
    if (a->rate) /* a background sender's sends (analysis_background.c) */
        return d == 0 ? 0 : an_rate_eta(a, an_add(d, a->shift));
    /* the common case without saturation: ceil((d + J + shift) / T) */
    if (a->kind == ARRIVAL_PERIODIC && d < AN_SMALL && a->jitter < AN_SMALL &&
        a->shift < AN_SMALL)
        return (d + a->jitter + a->shift + a->period - 1) / a->period;
    if (d == 0)
        return 0;
    return base_eta(a, an_add(d, a->shift));
}

/* A line under eta (the fixed points' divergence test and start,
 * analysis_rta.c): ceil((d + J) / T) >= (d + J) / T for periodic devices,
 * ceil(d / min) >= d / min for sporadic ones; 0 for bursts and lists (a
 * lower bound too). */
struct an_line an_arrival_line(const struct an_arrivals *a)
{
    struct an_line l = {0.0, 0.0};
    /* a message-woken thread's shift only adds arrivals: it may be left out */
    double shift = a->shift < AN_SMALL ? (double)a->shift : 0.0;
    if (a->rate) {
        /* ceil(d / l_t) >= d / l_t, floor(S(d) / l_s) + 1 >= d (b + E) / (T l_s) */
        double t = a->lt > 0 && a->lt < AN_SMALL ? 1.0 / (double)a->lt : -1.0;
        double c = a->ls > 0 && a->sper > 0 && a->slag != AN_INF && a->sbud < AN_SMALL
                       ? (double)a->sbud / ((double)a->sper * (double)a->ls)
                       : -1.0;
        l.s = t < 0.0 ? (c < 0.0 ? 0.0 : c) : (c < 0.0 || t < c ? t : c);
    } else if (a->kind == ARRIVAL_PERIODIC && a->period > 0 && a->jitter < AN_SMALL) {
        l.s = 1.0 / (double)a->period;
        l.a = ((double)a->jitter + shift) / (double)a->period;
    } else if (a->kind == ARRIVAL_SPORADIC && a->min > 0) {
        l.s = 1.0 / (double)a->min;
        l.a = shift / (double)a->min;
    }
    return l;
}
