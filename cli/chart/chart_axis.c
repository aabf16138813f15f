/*
 * The time axis (chart_axis.h). Times are turned into picoseconds once
 * (128-bit: a 64-bit cycle count times 10^12 does not fit in 64 bits);
 * steps and labels are whole picoseconds from then on.
 */
#include "chart_axis.h"

#include <stdio.h>

#define PS_PER_S 1000000000000ull

typedef unsigned __int128 u128;

static u128 to_ps(uint64_t cycles, uint64_t cpu_hz)
{
    return (u128)cycles * PS_PER_S / cpu_hz;
}

/* The n-th length of the 1-2-5 series in picoseconds: 1, 2, 5, 10, ... */
static u128 series(unsigned n)
{
    static const unsigned mant[3] = {1, 2, 5};
    u128 p = 1;
    for (unsigned i = 0; i < n / 3; i++)
        p *= 10;
    return p * mant[n % 3];
}

static const struct {
    const char *name;
    uint64_t ps;
} units[] = {{"s", PS_PER_S}, {"ms", 1000000000ull}, {"us", 1000000ull}, {"ns", 1000ull}};
#define N_UNITS (sizeof units / sizeof units[0])

/* The decimals a multiple of `step` needs in `unit`. */
static int decimals(u128 step, size_t unit)
{
    uint64_t scale = units[unit].ps;
    int n = 0;

    while (n < 12 && step % scale != 0) {
        scale /= 10;
        n++;
    }
    return n;
}

/* Write `ps` in `unit` with as many decimals as `step` needs. */
static void format_tick(char *buf, size_t len, u128 ps, size_t unit, u128 step)
{
    uint64_t u = units[unit].ps, scale = u;
    int places = decimals(step, unit);

    for (int i = 0; i < places; i++)
        scale /= 10;
    uint64_t whole = (uint64_t)(ps / u);
    if (places == 0) {
        snprintf(buf, len, "%llu%s", (unsigned long long)whole, units[unit].name);
        return;
    }
    uint64_t frac = (uint64_t)(ps % u / scale);
    while (places > 0 && frac % 10 == 0) { /* 0.5ms, 1ms, 1.5ms: not 1.0ms */
        frac /= 10;
        places--;
    }
    if (places == 0)
        snprintf(buf, len, "%llu%s", (unsigned long long)whole, units[unit].name);
    else
        snprintf(buf, len, "%llu.%0*llu%s", (unsigned long long)whole, places,
                 (unsigned long long)frac, units[unit].name);
}

size_t chart_axis_ticks(uint64_t from, uint64_t to, uint64_t cpu_hz, size_t max_ticks,
                        struct chart_tick *out, size_t cap)
{
    u128 a = to_ps(from, cpu_hz), b = to_ps(to, cpu_hz), len = b - a, step;
    size_t unit = 0, n = 0;
    unsigned k = 0;

    if (max_ticks < 2)
        max_ticks = 2;
    while (len / (step = series(k)) + 1 > max_ticks)
        k++;
    /* the unit of the window's end, so that 199.9ms is not 199900us; a
     * smaller one only if the step would need more than 3 decimals in it */
    while (unit + 1 < N_UNITS && (b < units[unit].ps || decimals(step, unit) > 3))
        unit++;
    for (u128 t = (a + step - 1) / step * step; t <= b && n < cap; t += step, n++) {
        out[n].time = (double)t * (double)cpu_hz / (double)PS_PER_S;
        format_tick(out[n].label, sizeof out[n].label, t, unit, step);
    }
    return n;
}

uint64_t chart_axis_round_down(uint64_t length, uint64_t cpu_hz)
{
    static const unsigned tenths[] = {10, 15, 20, 25, 30, 40, 50, 60, 80};
    u128 ps = to_ps(length, cpu_hz), best = 0, decade = 1000000; /* from 1us */

    for (; decade <= ps; decade *= 10)
        for (size_t i = 0; i < sizeof tenths / sizeof tenths[0]; i++)
            if (decade * tenths[i] / 10 <= ps)
                best = decade * tenths[i] / 10;
    uint64_t cycles = (uint64_t)(best * cpu_hz / PS_PER_S);
    return cycles ? cycles : length;
}
