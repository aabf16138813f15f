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

void an_arrivals_of(const struct scenario *s, uint32_t device, struct an_arrivals *out)
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
}

/* The n-th arrival (from 0) of the burst pattern started at 0. */
static cycles_t burst_time(const struct an_arrivals *a, uint64_t n)
{
    return an_add(an_mul(n / a->count, a->every), (n % a->count) * a->gap);
}

cycles_t an_delta(const struct an_arrivals *a, uint64_t q)
{
    cycles_t best = AN_INF;
    if (q <= 1)
        return 0;
    switch (a->kind) {
    case ARRIVAL_PERIODIC: {
        cycles_t span = an_mul(q - 1, a->period);
        return span > a->jitter ? span - a->jitter : 0;
    }
    case ARRIVAL_SPORADIC:
        return an_mul(q - 1, a->min);
    case ARRIVAL_BURST:
        for (uint64_t s = 0; s < a->count; s++) {
            cycles_t span = burst_time(a, s + q - 1) - burst_time(a, s);
            if (span < best)
                best = span;
        }
        return best;
    case ARRIVAL_AT:
        for (uint64_t s = 0; s + q - 1 < a->n_at; s++)
            if (a->at[s + q - 1] - a->at[s] < best)
                best = a->at[s + q - 1] - a->at[s];
        return best;
    }
    return best;
}

/* Bursts: from each arrival s of a burst, the arrivals within d are m
 * whole patterns (m = floor(d / every)) and those of one more pattern
 * whose offset from s is below the rest of d. */
static uint64_t burst_eta(const struct an_arrivals *a, cycles_t d)
{
    uint64_t m = d / a->every, best = 0;
    cycles_t rest = d - m * a->every;
    for (uint64_t s = 0; s < a->count; s++) {
        uint64_t n = 0;
        for (uint64_t k = 0; k < a->count; k++)
            n += burst_time(a, s + k) - burst_time(a, s) < rest;
        if (n > best)
            best = n;
    }
    return an_add(an_mul(m, a->count), best);
}

/* A list: from each time, the times within d after it. */
static uint64_t at_eta(const struct an_arrivals *a, cycles_t d)
{
    uint64_t best = 0;
    for (uint32_t s = 0; s < a->n_at; s++) {
        uint64_t n = 0;
        for (uint32_t k = s; k < a->n_at && a->at[k] - a->at[s] < d; k++)
            n++;
        if (n > best)
            best = n;
    }
    return best;
}

uint64_t an_eta(const struct an_arrivals *a, cycles_t d)
{
    if (d == 0)
        return 0;
    if (d == AN_INF)
        return a->kind == ARRIVAL_AT ? a->n_at : AN_INF;
    switch (a->kind) {
    case ARRIVAL_PERIODIC:
        return an_ceil_div(an_add(d, a->jitter), a->period);
    case ARRIVAL_SPORADIC:
        return an_ceil_div(d, a->min);
    case ARRIVAL_BURST:
        return burst_eta(a, d);
    case ARRIVAL_AT:
        return at_eta(a, d);
    }
    return AN_INF;
}
