/*
 * Exact decimal durations and frequencies. A value is digits / 10^scale;
 * conversion multiplies into 128 bits and divides by powers of ten, so no
 * floating point ever decides a cycle count.
 */
#include "units.h"
#include "suggest.h"

#include <stdio.h>
#include <string.h>

#define DURATION_EXPECTED "a number and one of the units s, ms, us, ns, c, as in 250us or 1.5ms"
#define FREQUENCY_EXPECTED "a number and one of the units Hz, kHz, MHz, GHz, as in 1GHz or 62.5MHz"

/* The most fraction digits kept: 10^27 (scale + 9 for ns) is still
 * reachable by dividing by 10^18 and then 10^9. */
#define MAX_SCALE 18

/* An unsigned 128-bit number as two halves (C11 has no wider integer). */
struct u128 {
    uint64_t hi, lo;
};

static struct u128 mul_64x64(uint64_t a, uint64_t b)
{
    uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
    uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    struct u128 r;
    r.lo = (mid << 32) | (ll & 0xffffffffu);
    r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return r;
}

/* Long division, one bit at a time: n / d, d > 0. */
static struct u128 div_128_64(struct u128 n, uint64_t d)
{
    struct u128 q = {0, 0};
    uint64_t r = 0;
    for (int i = 127; i >= 0; i--) {
        uint64_t bit = i >= 64 ? (n.hi >> (i - 64)) & 1u : (n.lo >> i) & 1u;
        uint64_t carry = r >> 63;
        r = (r << 1) | bit;
        if (carry || r >= d) {
            r -= d;
            if (i >= 64)
                q.hi |= (uint64_t)1 << (i - 64);
            else
                q.lo |= (uint64_t)1 << i;
        }
    }
    return q;
}

static uint64_t pow10_u64(uint32_t e)
{
    uint64_t p = 1;
    while (e--)
        p *= 10;
    return p;
}

/* Count the digits at `p`; 0 if `p` does not start with a digit. */
static size_t digit_run(const char *p)
{
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9')
        n++;
    return n;
}

/* Append `n` digits to *m; false on overflow of 64 bits. */
static bool accumulate(uint64_t *m, const char *digits, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(digits[i] - '0');
        if (*m > (UINT64_MAX - d) / 10)
            return false;
        *m = *m * 10 + d;
    }
    return true;
}

/*
 * Parse `DIGITS[.DIGITS]` at the start of `text` into mantissa / 10^scale;
 * *unit points past it. `expected` completes the messages.
 */
static bool parse_decimal(const char *text, uint64_t *mantissa, uint32_t *scale, const char **unit,
                          const char *expected, char *why, size_t why_len)
{
    size_t int_len = digit_run(text), frac_len = 0;
    const char *frac = NULL;
    if (text[0] == '-') {
        snprintf(why, why_len, "a negative value is not allowed (expected %s)", expected);
        return false;
    }
    if (int_len == 0) {
        snprintf(why, why_len, "it does not start with a number (expected %s)", expected);
        return false;
    }
    *unit = text + int_len;
    if (**unit == '.') {
        frac = *unit + 1;
        frac_len = digit_run(frac);
        if (frac_len == 0) {
            snprintf(why, why_len, "a decimal point needs digits after it (expected %s)", expected);
            return false;
        }
        *unit = frac + frac_len;
        while (frac_len > 0 && frac[frac_len - 1] == '0')
            frac_len--;
    }
    *mantissa = 0;
    if (frac_len > MAX_SCALE || !accumulate(mantissa, text, int_len) ||
        !accumulate(mantissa, frac, frac_len)) {
        snprintf(why, why_len,
                 "the number has too many digits (expected at most 19 digits, "
                 "at most 18 after the decimal point)");
        return false;
    }
    *scale = (uint32_t)frac_len;
    return true;
}

static bool time_unit(const char *u, enum units_time *out)
{
    static const struct {
        const char *name;
        enum units_time unit;
    } units[] = {
        {"s", UNITS_S}, {"ms", UNITS_MS}, {"us", UNITS_US}, {"ns", UNITS_NS}, {"c", UNITS_CYCLES}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(u, units[i].name) == 0) {
            *out = units[i].unit;
            return true;
        }
    }
    return false;
}

/* Units written as other tools write them, and the unit meant. */
static const char *const unit_aliases[][2] = {
    {"usec", "us"}, {"\xc2\xb5s", "us"}, {"\xce\xbcs", "us"}, {"msec", "ms"}, {"msecs", "ms"},
    {"sec", "s"},   {"secs", "s"},        {"nsec", "ns"},        {"cycles", "c"}, {"cycle", "c"},
    {"hz", "Hz"},   {"khz", "kHz"},       {"KHz", "kHz"},        {"mhz", "MHz"},  {"ghz", "GHz"},
    {"min", ""}, /* minutes: no unit of the format, and "ms" is not what was meant */
};

/* The unit of `units` (NULL-terminated) that `unit` was meant to be, or
 * NULL: an alias of it, or one within two edits. */
static const char *meant_unit(const char *unit, const char *const *units)
{
    for (size_t i = 0; i < sizeof unit_aliases / sizeof unit_aliases[0]; i++) {
        if (strcmp(unit, unit_aliases[i][0]) != 0)
            continue;
        for (const char *const *u = units; *u; u++)
            if (strcmp(*u, unit_aliases[i][1]) == 0)
                return *u;
        return NULL;
    }
    return suggest_closest(unit, units);
}

static void unit_error(const char *unit, const char *expected, const char *const *units,
                       char *why, size_t why_len)
{
    const char *meant = meant_unit(unit, units);

    if (unit[0] == ' ' || unit[0] == '\t')
        snprintf(why, why_len,
                 "there is a space before the unit (expected the unit right "
                 "after the number, as in 1.5ms or 62.5MHz)");
    else if (meant)
        snprintf(why, why_len, "unknown unit '%.20s'; did you mean '%s'? (expected %s)", unit,
                 meant, expected);
    else
        snprintf(why, why_len, "unknown unit '%.20s' (expected %s)", unit, expected);
}

static const char *const time_units[] = {"s", "ms", "us", "ns", "c", NULL};
static const char *const frequency_units[] = {"Hz", "kHz", "MHz", "GHz", NULL};

bool units_parse_duration(const char *text, struct units_duration *out, char *why, size_t why_len)
{
    const char *unit;
    if (!parse_decimal(text, &out->mantissa, &out->scale, &unit, DURATION_EXPECTED, why, why_len))
        return false;
    if (*unit == '\0') {
        if (out->mantissa == 0) {
            out->unit = UNITS_CYCLES;
            return true;
        }
        snprintf(why, why_len, "a number other than 0 needs a unit (expected %s)",
                 DURATION_EXPECTED);
        return false;
    }
    if (!time_unit(unit, &out->unit)) {
        unit_error(unit, DURATION_EXPECTED, time_units, why, why_len);
        return false;
    }
    return true;
}

bool units_duration_is_zero(const struct units_duration *dur)
{
    return dur->mantissa == 0;
}

/* Divide by 10^e, e up to MAX_SCALE + 9, in steps that fit in 64 bits. */
static struct u128 div_pow10(struct u128 n, uint32_t e)
{
    while (e > 0) {
        uint32_t step = e > 18 ? 18 : e;
        n = div_128_64(n, pow10_u64(step));
        e -= step;
    }
    return n;
}

bool units_to_cycles(const struct units_duration *dur, uint64_t cpu_hz, uint64_t *cycles, char *why,
                     size_t why_len)
{
    static const uint32_t unit_exp[] = {
        [UNITS_S] = 0, [UNITS_MS] = 3, [UNITS_US] = 6, [UNITS_NS] = 9, [UNITS_CYCLES] = 0};
    struct u128 n;
    if (dur->unit == UNITS_CYCLES)
        n = div_pow10((struct u128){0, dur->mantissa}, dur->scale);
    else
        n = div_pow10(mul_64x64(dur->mantissa, cpu_hz), dur->scale + unit_exp[dur->unit]);
    if (n.hi != 0) {
        snprintf(why, why_len, "the duration is too long (expected at most 2^64-1 CPU cycles)");
        return false;
    }
    *cycles = n.lo;
    return true;
}

bool units_parse_cycles(const char *text, uint64_t cpu_hz, uint64_t *cycles, char *why,
                        size_t why_len)
{
    struct units_duration dur;
    if (!units_parse_duration(text, &dur, why, why_len) ||
        !units_to_cycles(&dur, cpu_hz, cycles, why, why_len))
        return false;
    if (*cycles == 0 && !units_duration_is_zero(&dur)) {
        snprintf(why, why_len,
                 "it is shorter than one CPU cycle at %llu Hz (expected 0 or at least 1c)",
                 (unsigned long long)cpu_hz);
        return false;
    }
    return true;
}

static bool frequency_exp(const char *u, uint32_t *exp)
{
    static const struct {
        const char *name;
        uint32_t exp;
    } units[] = {{"Hz", 0}, {"kHz", 3}, {"MHz", 6}, {"GHz", 9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(u, units[i].name) == 0) {
            *exp = units[i].exp;
            return true;
        }
    }
    return false;
}

/* mantissa * 10^exp / 10^scale as a whole number; false with `why` if not. */
static bool whole_hz(uint64_t mantissa, uint32_t scale, uint32_t exp, uint64_t *hz, char *why,
                     size_t why_len)
{
    if (scale > exp) {
        uint64_t div = pow10_u64(scale - exp);
        if (mantissa % div != 0) {
            snprintf(why, why_len,
                     "it is not a whole number of Hz (expected a whole number "
                     "of hertz, as in 62.5MHz = 62500000Hz)");
            return false;
        }
        *hz = mantissa / div;
        return true;
    }
    uint64_t mul = pow10_u64(exp - scale);
    if (mantissa > UINT64_MAX / mul) {
        snprintf(why, why_len, "the frequency is too high (expected at most 2^64-1 Hz)");
        return false;
    }
    *hz = mantissa * mul;
    return true;
}

bool units_parse_frequency(const char *text, uint64_t *hz, char *why, size_t why_len)
{
    uint64_t mantissa;
    uint32_t scale, exp;
    const char *unit;
    if (!parse_decimal(text, &mantissa, &scale, &unit, FREQUENCY_EXPECTED, why, why_len))
        return false;
    if (*unit == '\0') {
        snprintf(why, why_len, "a frequency needs a unit (expected %s)", FREQUENCY_EXPECTED);
        return false;
    }
    if (!frequency_exp(unit, &exp)) {
        unit_error(unit, FREQUENCY_EXPECTED, frequency_units, why, why_len);
        return false;
    }
    if (!whole_hz(mantissa, scale, exp, hz, why, why_len))
        return false;
    if (*hz == 0) {
        snprintf(why, why_len, "a frequency of 0 is not allowed (expected more than 0Hz)");
        return false;
    }
    return true;
}
