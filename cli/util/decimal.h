/*
 * Times for output, computed with integers only so that every machine
 * prints the same text: cycles as an exact decimal number of microseconds
 * (the Chrome trace format's unit) and durations for people ("1.5ms").
 */
#ifndef MCSIM_CLI_DECIMAL_H
#define MCSIM_CLI_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Enough for any value these functions print with DEC_MAX_FRACTION
 * digits (a 39-digit integer part, the point, 12 digits, the NUL). */
#define DEC_BUF 64

/* Fraction digits printed at most. A time in microseconds is exact when its
 * decimal expansion ends within them: always when cpu_hz is 2^a 5^b with
 * a, b <= 18 (1GHz, 62.5MHz, 32768Hz); otherwise (3GHz) it is cut, not
 * rounded, after the 12th digit, an error below 10^-12 us. */
#define DEC_MAX_FRACTION 12

/*
 * Write num * mul / den (den > 0) into buf (len bytes, DEC_BUF is enough)
 * as a decimal: the integer part, then, if the value is not whole, a '.'
 * and at most `max_fraction` digits without trailing zeros ("1234.567",
 * "0.5", "12"). The digits are exact, cut after max_fraction.
 */
void dec_ratio(char *buf, size_t len, uint64_t num, uint64_t mul, uint64_t den,
               unsigned max_fraction);

/* `cycles` at `cpu_hz` (> 0) in microseconds, as dec_ratio with
 * DEC_MAX_FRACTION: 1234567 cycles at 1 GHz is "1234.567". */
void dec_cycles_us(char *buf, size_t len, uint64_t cycles, uint64_t cpu_hz);

/* A duration for people in the largest unit of s, ms, us, ns that keeps it
 * at least 1, with up to six decimals, cut: "2ms", "1.5ms", "150us", "0".
 * cpu_hz 0 prints the cycles ("1200c"). */
void dec_duration(char *buf, size_t len, uint64_t cycles, uint64_t cpu_hz);

#endif /* MCSIM_CLI_DECIMAL_H */
