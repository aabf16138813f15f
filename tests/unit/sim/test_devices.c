/*
 * sim/devices: the exact arrival sequence of every form (random ones
 * against values computed independently from the published generator
 * algorithms), that a device's draws depend only on its own name and the
 * seed, and the degenerate and overflow edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "devices.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static struct scn_device device(const char *name, enum scn_arrival_kind kind)
{
    struct scn_device d;

    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.kind = kind;
    d.notification = 0;
    return d;
}

/* A scenario holding just `devices` (and `n_threads` unnamed threads, which
 * the generators must ignore). */
static struct scenario scenario_of(struct scn_device *devices, uint32_t n_devices, cycles_t *times,
                                   uint32_t n_times, uint32_t n_threads)
{
    static struct scn_thread threads[8];
    struct scenario s;

    memset(&s, 0, sizeof s);
    s.devices = devices;
    s.n_devices = n_devices;
    s.times = times;
    s.n_times = n_times;
    s.threads = threads;
    s.n_threads = n_threads;
    return s;
}

/* Device `index` of `s` under `seed` yields exactly `want`, then (if
 * `ends`) no more arrivals, twice. */
static void expect_arrivals(const struct scenario *s, uint32_t index, uint64_t seed,
                            const cycles_t *want, size_t n, bool ends)
{
    struct device_gen g;

    device_gen_init(&g, s, index, seed);
    for (size_t i = 0; i < n; i++) {
        cycles_t got = device_gen_next(&g);
        if (got != want[i])
            print_error("arrival %zu of %s: expected %llu, got %llu\n", i, s->devices[index].name,
                        (unsigned long long)want[i], (unsigned long long)got);
        assert_int_equal(got, want[i]);
    }
    if (ends) {
        assert_int_equal(device_gen_next(&g), DEVICE_NO_ARRIVAL);
        assert_int_equal(device_gen_next(&g), DEVICE_NO_ARRIVAL);
    }
}

static void test_devices_periodic(void **state)
{
    (void)state;
    struct scn_device d = device("tick", ARRIVAL_PERIODIC);
    d.offset = 500;
    d.period = 1000;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want[] = {500, 1500, 2500, 3500, 4500};

    expect_arrivals(&s, 0, 0, want, N_OF(want), false);
}

/* k * 1ms + uniform[0, 50us] from stream "device:net" of seed 42. */
static void test_devices_periodic_jitter(void **state)
{
    (void)state;
    struct scn_device d = device("net", ARRIVAL_PERIODIC);
    d.period = 1000000;
    d.jitter = 50000;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want[] = {35362, 1047800, 2008549, 3041237, 4016312, 5042720};

    expect_arrivals(&s, 0, 42, want, N_OF(want), false);
}

/* Jitter 100 over a period of 10: raw times k*10 + draw would go back in
 * time; each arrival is held at the previous one instead. */
static void test_devices_jitter_beyond_period(void **state)
{
    (void)state;
    struct scn_device d = device("wild", ARRIVAL_PERIODIC);
    d.period = 10;
    d.jitter = 100;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want[] = {33, 79, 79, 124, 124, 124, 139, 139};

    expect_arrivals(&s, 0, 42, want, N_OF(want), false);
}

/* First at offset 200, then gaps uniform in [1000, 3000], stream
 * "device:sp" of seed 5. */
static void test_devices_sporadic(void **state)
{
    (void)state;
    struct scn_device d = device("sp", ARRIVAL_SPORADIC);
    d.offset = 200;
    d.min = 1000;
    d.max = 3000;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want[] = {200, 2959, 5120, 7098, 8889, 11776};

    expect_arrivals(&s, 0, 5, want, N_OF(want), false);
}

/* min == max: fixed gaps, no randomness left. */
static void test_devices_sporadic_fixed_gap(void **state)
{
    (void)state;
    struct scn_device d = device("sp", ARRIVAL_SPORADIC);
    d.min = d.max = 7;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want[] = {0, 7, 14, 21};

    expect_arrivals(&s, 0, 5, want, N_OF(want), false);
}

/* Only this device's slice of scenario.times is used, shifted by offset. */
static void test_devices_at(void **state)
{
    (void)state;
    cycles_t times[] = {5, 6, 1000000, 1200000, 9000000, 7};
    struct scn_device d[2] = {device("other", ARRIVAL_AT), device("dev", ARRIVAL_AT)};
    d[0].at_first = 0;
    d[0].at_count = 2;
    d[1].at_first = 2;
    d[1].at_count = 3;
    d[1].offset = 100;
    struct scenario s = scenario_of(d, 2, times, N_OF(times), 0);
    static const cycles_t want[] = {1000100, 1200100, 9000100};

    expect_arrivals(&s, 1, 0, want, N_OF(want), true);
}

static void test_devices_at_empty(void **state)
{
    (void)state;
    struct scn_device d = device("dev", ARRIVAL_AT);
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);

    expect_arrivals(&s, 0, 0, NULL, 0, true);
}

/* every 1000 from 10: 3 arrivals 20 apart. */
static void test_devices_burst(void **state)
{
    (void)state;
    struct scn_device d = device("b", ARRIVAL_BURST);
    d.offset = 10;
    d.every = 1000;
    d.count = 3;
    d.gap = 20;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want[] = {10, 30, 50, 1010, 1030, 1050, 2010, 2030};

    expect_arrivals(&s, 0, 0, want, N_OF(want), false);
}

/* Degenerate forms the loader refuses still end instead of repeating one
 * cycle forever. */
static void test_devices_degenerate(void **state)
{
    (void)state;
    struct scn_device d = device("p", ARRIVAL_PERIODIC);
    d.offset = 3;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t once[] = {3};
    static const cycles_t burst_once[] = {3, 5};

    expect_arrivals(&s, 0, 0, once, 1, true);
    d = device("s", ARRIVAL_SPORADIC);
    d.offset = 3;
    expect_arrivals(&s, 0, 0, once, 1, true);
    d = device("b", ARRIVAL_BURST);
    d.offset = 3;
    d.count = 2;
    d.gap = 2;
    expect_arrivals(&s, 0, 0, burst_once, 2, true);
    d.count = 0;
    d.every = 10;
    expect_arrivals(&s, 0, 0, NULL, 0, true);
}

/* A time past 2^64 cycles ends the arrivals rather than wrapping. */
static void test_devices_overflow_ends(void **state)
{
    (void)state;
    struct scn_device d = device("p", ARRIVAL_PERIODIC);
    d.offset = 1;
    d.period = UINT64_MAX / 2;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    const cycles_t want[] = {1, 1 + UINT64_MAX / 2};

    expect_arrivals(&s, 0, 0, want, N_OF(want), true);
    d = device("s", ARRIVAL_SPORADIC);
    d.offset = UINT64_MAX - 10;
    d.min = 20;
    d.max = 30;
    const cycles_t want_s[] = {UINT64_MAX - 10};
    expect_arrivals(&s, 0, 0, want_s, 1, true);
}

/* The first `n` arrivals of the device named `name` in `s`. */
static void first_arrivals(const struct scenario *s, const char *name, uint64_t seed, cycles_t *out,
                           size_t n)
{
    uint32_t index = SCN_NONE;
    struct device_gen g;

    for (uint32_t i = 0; i < s->n_devices; i++)
        if (strcmp(s->devices[i].name, name) == 0)
            index = i;
    assert_int_not_equal(index, SCN_NONE);
    device_gen_init(&g, s, index, seed);
    for (size_t i = 0; i < n; i++)
        out[i] = device_gen_next(&g);
}

/* "net" draws the same whatever devices and threads surround it, and
 * whatever its position among the devices. */
static void test_devices_stream_independent(void **state)
{
    (void)state;
    enum { N = 64 };
    cycles_t base[N], other[N];
    struct scn_device a[2] = {device("net", ARRIVAL_PERIODIC), device("disk", ARRIVAL_SPORADIC)};
    a[0].period = 1000000;
    a[0].jitter = 50000;
    a[1].min = 10;
    a[1].max = 90;
    struct scenario s1 = scenario_of(a, 2, NULL, 0, 1);
    first_arrivals(&s1, "net", 42, base, N);

    struct scn_device b[3] = {device("timer", ARRIVAL_PERIODIC), device("disk", ARRIVAL_SPORADIC),
                              a[0]};
    b[0].period = 77;
    b[0].jitter = 7;
    b[1].min = 1;
    b[1].max = 1000000;
    struct scenario s2 = scenario_of(b, 3, NULL, 0, 5);
    first_arrivals(&s2, "net", 42, other, N);
    assert_memory_equal(base, other, sizeof base);

    /* Drawing from another device first changes nothing either. */
    first_arrivals(&s2, "disk", 42, other, N);
    first_arrivals(&s2, "net", 42, other, N);
    assert_memory_equal(base, other, sizeof base);
}

/* Another seed, or another name, gives other draws. */
static void test_devices_seed_changes_draws(void **state)
{
    (void)state;
    struct scn_device d = device("net", ARRIVAL_PERIODIC);
    d.period = 1000000;
    d.jitter = 50000;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    static const cycles_t want43[] = {41296, 1015953, 2005285, 3049896, 4031436, 5017061};
    cycles_t a[6], b[6];

    expect_arrivals(&s, 0, 43, want43, N_OF(want43), false);
    first_arrivals(&s, "net", 42, a, 6);
    snprintf(d.name, sizeof d.name, "net2");
    first_arrivals(&s, "net2", 42, b, 6);
    assert_memory_not_equal(a, b, sizeof a);
}

/* A long jittered run stays in its windows and never goes back. */
static void test_devices_long_run_monotonic(void **state)
{
    (void)state;
    struct scn_device d = device("net", ARRIVAL_PERIODIC);
    d.offset = 5;
    d.period = 1000;
    d.jitter = 999;
    struct scenario s = scenario_of(&d, 1, NULL, 0, 0);
    struct device_gen g;
    cycles_t prev = 0;

    device_gen_init(&g, &s, 0, 1);
    for (uint64_t k = 0; k < 100000; k++) {
        cycles_t t = device_gen_next(&g);
        assert_true(t >= prev);
        assert_true(t >= 5 + k * 1000 && t <= 5 + k * 1000 + 999);
        prev = t;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices_periodic),
        cmocka_unit_test(test_devices_periodic_jitter),
        cmocka_unit_test(test_devices_jitter_beyond_period),
        cmocka_unit_test(test_devices_sporadic),
        cmocka_unit_test(test_devices_sporadic_fixed_gap),
        cmocka_unit_test(test_devices_at),
        cmocka_unit_test(test_devices_at_empty),
        cmocka_unit_test(test_devices_burst),
        cmocka_unit_test(test_devices_degenerate),
        cmocka_unit_test(test_devices_overflow_ends),
        cmocka_unit_test(test_devices_stream_independent),
        cmocka_unit_test(test_devices_seed_changes_draws),
        cmocka_unit_test(test_devices_long_run_monotonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
