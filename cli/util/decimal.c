/*
 * Exact decimals (decimal.h). The product num * mul needs up to 128 bits
 * (cycles up to 2^64 times 10^9), so the arithmetic is done in GCC's and
 * Clang's unsigned __int128, which every supported host compiler has.
 */
#include "decimal.h"

#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 dec_u128;

/* Write v in decimal at `digits` (no NUL); returns how many digits. */
static size_t put_u128(char *digits, dec_u128 v)
{
    char rev[48];
    size_t n = 0, i;
    do {
        rev[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    for (i = 0; i < n; i++)
        digits[i] = rev[n - 1 - i];
    return n;
}

void dec_ratio(char *buf, size_t len, uint64_t num, uint64_t mul, uint64_t den,
               unsigned max_fraction)
{
    char out[40 + 1 + DEC_BUF + 1];
    dec_u128 v = (dec_u128)num * mul, rem;
    size_t n = put_u128(out, v / den), dot = n;

    rem = v % den;
    if (max_fraction > DEC_BUF)
        max_fraction = DEC_BUF;
    if (rem != 0 && max_fraction > 0) {
        out[n++] = '.';
        for (unsigned i = 0; i < max_fraction && rem != 0; i++) {
            rem *= 10;
            out[n++] = (char)('0' + (int)(rem / den));
            rem %= den;
        }
        while (out[n - 1] == '0')
            n--;
        if (n == dot + 1)
            n = dot;
    }
    out[n] = '\0';
    snprintf(buf, len, "%s", out);
}

void dec_cycles_us(char *buf, size_t len, uint64_t cycles, uint64_t cpu_hz)
{
    dec_ratio(buf, len, cycles, 1000000u, cpu_hz, DEC_MAX_FRACTION);
}

void dec_duration(char *buf, size_t len, uint64_t cycles, uint64_t cpu_hz)
{
    static const struct {
        uint64_t per_second;
        const char *unit;
    } units[] = {{1, "s"}, {1000, "ms"}, {1000000, "us"}, {1000000000, "ns"}};
    char num[DEC_BUF];
    size_t i = 0;

    if (cpu_hz == 0) {
        snprintf(buf, len, "%lluc", (unsigned long long)cycles);
        return;
    }
    if (cycles == 0) {
        snprintf(buf, len, "0");
        return;
    }
    /* The first unit in which the duration is at least 1. */
    while (i + 1 < sizeof units / sizeof units[0] &&
           (dec_u128)cycles * units[i].per_second < cpu_hz)
        i++;
    dec_ratio(num, sizeof num, cycles, units[i].per_second, cpu_hz, 6);
    snprintf(buf, len, "%s%s", num, units[i].unit);
}
