/*
 * Device arrival generators (docs/scenario-format.md, "devices"). Each form is
 * a small step function computing the next raw time from the generator's
 * counters; device_gen_next() keeps the output non-decreasing and ends it
 * for good once a form has no more. No libc: the ARM image links this.
 */
#include "devices.h"

#include <stddef.h>

#define STREAM_PREFIX "device:"

/* a + b, or DEVICE_NO_ARRIVAL if it does not fit: an arrival beyond 2^64
 * cycles (585 years at 1GHz) never comes. */
static cycles_t add_time(cycles_t a, cycles_t b)
{
    if (a >= DEVICE_NO_ARRIVAL - b)
        return DEVICE_NO_ARRIVAL;
    return a + b;
}

/* a * b, or DEVICE_NO_ARRIVAL if it does not fit. */
static cycles_t mul_time(uint64_t a, cycles_t b)
{
    if (a != 0 && b > DEVICE_NO_ARRIVAL / a)
        return DEVICE_NO_ARRIVAL;
    return a * b;
}

/* offset + k * step, saturating at DEVICE_NO_ARRIVAL. */
static cycles_t nth_time(cycles_t offset, uint64_t k, cycles_t step)
{
    cycles_t shift = mul_time(k, step);

    return shift == DEVICE_NO_ARRIVAL ? DEVICE_NO_ARRIVAL : add_time(offset, shift);
}

/* Jitter is drawn for every arrival, including the first, each draw
 * independent of the others; a jitter of 0 draws nothing. */
static cycles_t periodic_next(struct device_gen *g)
{
    if (g->period == 0 && g->index > 0)
        return DEVICE_NO_ARRIVAL;
    /* offset + index * period, one period on from the last (saturating
     * as nth_time does: the sum only grows) */
    cycles_t t = g->index == 0 ? nth_time(g->offset, 0, g->period)
                 : g->base == DEVICE_NO_ARRIVAL ? DEVICE_NO_ARRIVAL
                                                 : add_time(g->base, g->period);
    g->base = t;
    g->index++;
    if (t == DEVICE_NO_ARRIVAL || g->jitter == 0)
        return t;
    return add_time(t, rng_uniform(&g->rng, 0, g->jitter));
}

/* The first arrival is at offset itself; only the gaps are random. */
static cycles_t sporadic_next(struct device_gen *g)
{
    const struct scn_device *d = g->dev;

    if (!g->started)
        return d->offset;
    if (d->max == 0)
        return DEVICE_NO_ARRIVAL;
    return add_time(g->last, rng_uniform(&g->rng, d->min, d->max));
}

static cycles_t at_next(struct device_gen *g)
{
    const struct scn_device *d = g->dev;

    if (g->index >= d->at_count)
        return DEVICE_NO_ARRIVAL;
    return add_time(d->offset, g->times[g->index++]);
}

/* Burst b starts at offset + b * every; its arrival i is i * gap later. */
static cycles_t burst_next(struct device_gen *g)
{
    const struct scn_device *d = g->dev;

    if (d->count == 0)
        return DEVICE_NO_ARRIVAL;
    if (g->index == d->count) {
        if (d->every == 0)
            return DEVICE_NO_ARRIVAL;
        g->index = 0;
        g->burst++;
    }
    cycles_t start = nth_time(d->offset, g->burst, d->every);
    if (start == DEVICE_NO_ARRIVAL)
        return DEVICE_NO_ARRIVAL;
    return nth_time(start, g->index++, d->gap);
}

/* "device:" + name, truncated to the buffer (names are shorter than
 * SCN_NAME_MAX, so nothing is lost). */
static void stream_name(char *buf, size_t len, const char *name)
{
    static const char prefix[] = STREAM_PREFIX;
    size_t n = 0;

    for (const char *p = prefix; *p != 0 && n + 1 < len; p++)
        buf[n++] = *p;
    for (const char *p = name; *p != 0 && n + 1 < len; p++)
        buf[n++] = *p;
    buf[n] = 0;
}

void device_gen_init(struct device_gen *g, const struct scenario *s, uint32_t device_index,
                     uint64_t seed)
{
    char name[sizeof STREAM_PREFIX + SCN_NAME_MAX];

    g->dev = &s->devices[device_index];
    g->kind = g->dev->kind;
    g->offset = g->dev->offset;
    g->period = g->dev->period;
    g->jitter = g->dev->jitter;
    g->times = g->dev->kind == ARRIVAL_AT ? s->times + g->dev->at_first : NULL;
    g->index = 0;
    g->burst = 0;
    g->last = 0;
    g->started = false;
    g->done = false;
    stream_name(name, sizeof name, g->dev->name);
    rng_seed_stream(&g->rng, seed, name);
}

static cycles_t raw_next(struct device_gen *g)
{
    switch (g->kind) {
    case ARRIVAL_PERIODIC:
        return periodic_next(g);
    case ARRIVAL_SPORADIC:
        return sporadic_next(g);
    case ARRIVAL_AT:
        return at_next(g);
    case ARRIVAL_BURST:
        return burst_next(g);
    }
    return DEVICE_NO_ARRIVAL;
}

/*
 * Jitter larger than the gap to the next arrival, overlapping bursts or an
 * unsorted `at` list could make a raw time earlier than the one before; the
 * interrupt controller sees time go forward only, so such an arrival is
 * taken at the previous one's cycle (the loader should have refused those
 * scenarios anyway).
 */
cycles_t device_gen_next(struct device_gen *g)
{
    if (g->done)
        return DEVICE_NO_ARRIVAL;
    cycles_t t = raw_next(g);
    if (t == DEVICE_NO_ARRIVAL) {
        g->done = true;
        return DEVICE_NO_ARRIVAL;
    }
    if (g->started && t < g->last)
        t = g->last;
    g->last = t;
    g->started = true;
    return t;
}
