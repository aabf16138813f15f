/*
 * cli/units: durations and frequencies are exact decimals; conversion to
 * cycles rounds down with integer arithmetic, even past 64-bit products.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/units.h"

struct cycles_case {
    const char *text;
    uint64_t hz;
    uint64_t cycles;
};

static void test_units_cycles(void **state)
{
    (void)state;
    static const struct cycles_case cases[] = {
        {"1.5ms", 1000000000u, 1500000u},
        {"250us", 1000000000u, 250000u},
        {"2s", 1000000000u, 2000000000u},
        {"800ns", 1000000000u, 800u},
        {"1200c", 62500000u, 1200u},
        {"0", 1000000000u, 0u},
        {"0ms", 1000000000u, 0u},
        {"1.5ms", 62500000u, 93750u},
        {"1us", 62500000u, 62u}, /* 62.5 rounds down */
        {"1ms", 32768u, 32u},    /* 32.768 */
        {"0.000000001s", 1000000000u, 1u},
        {"1.50000000000000000000ms", 1000000000u, 1500000u}, /* trailing zeros */
        {"0.123456789012345678s", 1000000000u, 123456789u},
        {"1.9c", 1000000000u, 1u},
        {"18446744073709551615c", 1u, UINT64_MAX},
        {"5000000000s", 3000000000u, 15000000000000000000u}, /* product past 2^64 */
        {"18446744073ms", 1000000u, 18446744073000u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t c = 42;
        char why[256] = "";
        if (!units_parse_cycles(cases[i].text, cases[i].hz, &c, why, sizeof why))
            fail_msg("%s: %s", cases[i].text, why);
        if (c != cases[i].cycles)
            fail_msg("%s at %llu Hz: expected %llu cycles, got %llu", cases[i].text,
                     (unsigned long long)cases[i].hz, (unsigned long long)cases[i].cycles,
                     (unsigned long long)c);
    }
}

struct error_case {
    const char *text;
    const char *why;
};

static void test_units_duration_errors(void **state)
{
    (void)state;
    static const struct error_case cases[] = {
        {"5", "a number other than 0 needs a unit (expected a number and one of the units "
              "s, ms, us, ns, c, as in 250us or 1.5ms)"},
        {"5min", "unknown unit 'min' (expected a number and one of the units s, ms, us, ns, "
                 "c, as in 250us or 1.5ms)"},
        {"10usec", "unknown unit 'usec'; did you mean 'us'? (expected a number and one of the "
                   "units s, ms, us, ns, c, as in 250us or 1.5ms)"},
        {"5msec", "unknown unit 'msec'; did you mean 'ms'? (expected a number and one of the "
                  "units s, ms, us, ns, c, as in 250us or 1.5ms)"},
        {"3cycles", "unknown unit 'cycles'; did you mean 'c'? (expected a number and one of "
                    "the units s, ms, us, ns, c, as in 250us or 1.5ms)"},
        {"2mss", "unknown unit 'mss'; did you mean 'ms'? (expected a number and one of the "
                 "units s, ms, us, ns, c, as in 250us or 1.5ms)"},
        {"5 ms", "there is a space before the unit (expected the unit right after the "
                 "number, as in 1.5ms or 62.5MHz)"},
        {"-1ms", "a negative value is not allowed (expected a number and one of the units s, "
                 "ms, us, ns, c, as in 250us or 1.5ms)"},
        {"ms", "it does not start with a number (expected a number and one of the units s, "
               "ms, us, ns, c, as in 250us or 1.5ms)"},
        {"", "it does not start with a number (expected a number and one of the units s, ms, "
             "us, ns, c, as in 250us or 1.5ms)"},
        {"1.ms", "a decimal point needs digits after it (expected a number and one of the "
                 "units s, ms, us, ns, c, as in 250us or 1.5ms)"},
        {"18446744073709551616c", "the number has too many digits (expected at most 19 "
                                  "digits, at most 18 after the decimal point)"},
        {"0.0000000000000000001s", "the number has too many digits (expected at most 19 "
                                   "digits, at most 18 after the decimal point)"},
        {"0.5ns", "it is shorter than one CPU cycle at 1000000000 Hz (expected 0 or at least "
                  "1c)"},
        {"18446744074s", "the duration is too long (expected at most 2^64-1 CPU cycles)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t c;
        char why[256] = "";
        if (units_parse_cycles(cases[i].text, 1000000000u, &c, why, sizeof why))
            fail_msg("'%s' was accepted as %llu cycles", cases[i].text, (unsigned long long)c);
        assert_string_equal(why, cases[i].why);
    }
}

static void test_units_duration_record(void **state)
{
    (void)state;
    struct units_duration d;
    char why[256];
    assert_true(units_parse_duration("1.50ms", &d, why, sizeof why));
    assert_int_equal(d.mantissa, 15);
    assert_int_equal(d.scale, 1);
    assert_int_equal(d.unit, UNITS_MS);
    assert_false(units_duration_is_zero(&d));
    assert_true(units_parse_duration("0.0us", &d, why, sizeof why));
    assert_true(units_duration_is_zero(&d));
}

static void test_units_frequencies(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t hz;
    } cases[] = {
        {"1GHz", 1000000000u},
        {"62.5MHz", 62500000u},
        {"32768Hz", 32768u},
        {"500kHz", 500000u},
        {"2.000GHz", 2000000000u},
        {"0.001kHz", 1u},
        {"18446744073709551615Hz", UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t hz = 0;
        char why[256] = "";
        if (!units_parse_frequency(cases[i].text, &hz, why, sizeof why))
            fail_msg("%s: %s", cases[i].text, why);
        assert_int_equal(hz, cases[i].hz);
    }
}

static void test_units_frequency_errors(void **state)
{
    (void)state;
    static const struct error_case cases[] = {
        {"1000", "a frequency needs a unit (expected a number and one of the units Hz, kHz, "
                 "MHz, GHz, as in 1GHz or 62.5MHz)"},
        {"1ghz", "unknown unit 'ghz'; did you mean 'GHz'? (expected a number and one of the "
                 "units Hz, kHz, MHz, GHz, as in 1GHz or 62.5MHz)"},
        {"1Mhz", "unknown unit 'Mhz'; did you mean 'MHz'? (expected a number and one of the "
                 "units Hz, kHz, MHz, GHz, as in 1GHz or 62.5MHz)"},
        {"0.5Hz", "it is not a whole number of Hz (expected a whole number of hertz, as in "
                  "62.5MHz = 62500000Hz)"},
        {"0GHz", "a frequency of 0 is not allowed (expected more than 0Hz)"},
        {"18446744074GHz", "the frequency is too high (expected at most 2^64-1 Hz)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t hz;
        char why[256] = "";
        if (units_parse_frequency(cases[i].text, &hz, why, sizeof why))
            fail_msg("'%s' was accepted as %llu Hz", cases[i].text, (unsigned long long)hz);
        assert_string_equal(why, cases[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_cycles),           cmocka_unit_test(test_units_duration_errors),
        cmocka_unit_test(test_units_duration_record),  cmocka_unit_test(test_units_frequencies),
        cmocka_unit_test(test_units_frequency_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
