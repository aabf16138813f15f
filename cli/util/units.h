/*
 * Quantities with units, as docs/scenario-format.md writes them: durations
 * (`250us`, `1.5ms`, `2s`, `800ns`, `1200c`, a bare `0`) and frequencies
 * (`1GHz`, `62.5MHz`, `32768Hz`, `500kHz`). Decimals are exact: a value is
 * kept as digits and a power of ten and converted with integer arithmetic
 * only, so that it converts to the same number of cycles on every machine.
 */
#ifndef MCSIM_CLI_UNITS_H
#define MCSIM_CLI_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum units_time { UNITS_S, UNITS_MS, UNITS_US, UNITS_NS, UNITS_CYCLES };

/* A duration as written: mantissa / 10^scale of `unit` (trailing zeros of
 * the fraction dropped, so `1.50ms` and `1.5ms` are equal records). */
struct units_duration {
    uint64_t mantissa;
    uint32_t scale;
    enum units_time unit;
};

/*
 * Parse a duration such as `1.5ms`. A bare number is accepted only if it is
 * `0`. On success returns true and fills `out`; otherwise returns false and
 * writes into `why` (NUL-terminated, at most `why_len` bytes) what is wrong
 * and what was expected, e.g. "a number other than 0 needs a unit (expected
 * one of s, ms, us, ns, c after the number, as in 250us)".
 */
bool units_parse_duration(const char *text, struct units_duration *out, char *why, size_t why_len);

/*
 * Convert a duration to CPU cycles at `cpu_hz` (> 0), rounding down.
 * Returns false, with a message in `why`, if the result does not fit in
 * 64 bits. A result of 0 for a non-zero duration is not an error here: the
 * caller decides (see units_duration_is_zero).
 */
bool units_to_cycles(const struct units_duration *dur, uint64_t cpu_hz, uint64_t *cycles, char *why,
                     size_t why_len);

/* True if the duration is exactly zero as written. */
bool units_duration_is_zero(const struct units_duration *dur);

/*
 * Parse and convert in one step, for command-line options such as
 * `--duration 200ms`: a zero duration is accepted, a non-zero one that
 * rounds down to 0 cycles is not. Returns false with a message in `why`.
 */
bool units_parse_cycles(const char *text, uint64_t cpu_hz, uint64_t *cycles, char *why,
                        size_t why_len);

/*
 * Parse a frequency such as `62.5MHz` into a whole number of hertz, more
 * than 0. Returns false with a message in `why` for a bare number, an
 * unknown unit, a value that is not a whole number of Hz, 0, or a value
 * past 64 bits.
 */
bool units_parse_frequency(const char *text, uint64_t *hz, char *why, size_t why_len);

#endif /* MCSIM_CLI_UNITS_H */
