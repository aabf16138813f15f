/*
 * cli/gen: random scenarios are valid (the loader accepts every one of
 * 1,000 seeds), deterministic (same knobs and seed, same text), cover
 * what the knobs ask for (every arrival form, sporadic contexts, nested
 * calls, every timeout policy) and honour plain knobs exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gen/gen.h"

static int load(const struct gen_knobs *k, uint64_t seed, struct scenario *s, struct strbuf *y)
{
    struct diag d;
    int rc;
    diag_init(&d);
    rc = gen_scenario(k, seed, s, y, &d);
    if (rc != 0) {
        diag_print(&d, stderr);
        fprintf(stderr, "%s\n", y ? sb_str(y) : "");
    }
    diag_release(&d);
    return rc;
}

static void test_gen_thousand_seeds_load(void **state)
{
    struct gen_knobs k;
    /* what the thousand scenarios hold, counted in their text */
    static const char *const features[] = {
        "jitter:",   "sporadic: {", "burst:",        "at: [",          "sporadic: true",
        "- call: e", "action: reset", "emergency_budget", "action: inherit", "- yield",
    };
    uint32_t seen[sizeof features / sizeof features[0]] = {0};
    (void)state;
    gen_knobs_default(&k);
    for (uint64_t seed = 0; seed < 1000; seed++) {
        struct scenario s;
        struct strbuf y = {0};
        assert_int_equal(load(&k, seed, &s, &y), 0);
        assert_true(s.n_threads >= k.threads_min);
        for (size_t f = 0; f < sizeof features / sizeof features[0]; f++)
            if (strstr(sb_str(&y), features[f]))
                seen[f]++;
        scenario_release(&s);
        sb_release(&y);
    }
    for (size_t f = 0; f < sizeof features / sizeof features[0]; f++) {
        if (seen[f] < 20)
            fprintf(stderr, "feature '%s' in %u of 1000 scenarios\n", features[f], seen[f]);
        assert_true(seen[f] >= 20);
    }
}

static void test_gen_deterministic(void **state)
{
    struct gen_knobs k;
    struct strbuf a = {0}, b = {0}, c = {0};
    struct gen_system g;
    char why[128];
    (void)state;
    gen_knobs_default(&k);
    assert_int_equal(gen_draw(&k, 7, &g, why, sizeof why), 0);
    gen_emit_yaml(&g, "x", &a);
    gen_system_release(&g);
    assert_int_equal(gen_draw(&k, 7, &g, why, sizeof why), 0);
    gen_emit_yaml(&g, "x", &b);
    gen_system_release(&g);
    assert_int_equal(gen_draw(&k, 8, &g, why, sizeof why), 0);
    gen_emit_yaml(&g, "x", &c);
    gen_system_release(&g);
    assert_string_equal(sb_str(&a), sb_str(&b));
    assert_string_not_equal(sb_str(&a), sb_str(&c));
    sb_release(&a);
    sb_release(&b);
    sb_release(&c);
}

static void test_gen_plain(void **state)
{
    struct gen_knobs k;
    (void)state;
    gen_knobs_plain(&k);
    for (uint64_t seed = 0; seed < 50; seed++) {
        struct scenario s;
        assert_int_equal(load(&k, seed, &s, NULL), 0);
        assert_int_equal(s.n_devices, s.n_threads);
        assert_int_equal(s.n_endpoints, 0);
        assert_int_equal(s.costs.entry + s.costs.exit + s.costs.ipc + s.costs.irq, 0);
        for (uint32_t i = 0; i < s.n_threads; i++) {
            const struct scn_thread *t = &s.threads[i];
            assert_int_equal(t->sc.budget, t->sc.period); /* round-robin: never throttled */
            assert_int_equal(s.devices[i].kind, ARRIVAL_PERIODIC);
            assert_int_equal(s.devices[i].jitter, 0);
            assert_int_equal(s.devices[i].offset, 0);
            for (uint32_t j = 0; j < i; j++)
                assert_int_not_equal(t->priority, s.threads[j].priority);
        }
        scenario_release(&s);
    }
}

static void test_gen_bad_knobs(void **state)
{
    struct gen_knobs k;
    struct gen_system g;
    char why[128];
    (void)state;
    gen_knobs_default(&k);
    k.threads_min = 0;
    assert_int_equal(gen_draw(&k, 1, &g, why, sizeof why), -1);
    assert_non_null(strstr(why, "threads_min"));
    gen_knobs_default(&k);
    k.distinct_priorities = true;
    k.threads_max = 300;
    assert_int_equal(gen_draw(&k, 1, &g, why, sizeof why), -1);
    assert_non_null(strstr(why, "distinct priorities"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_thousand_seeds_load),
        cmocka_unit_test(test_gen_deterministic),
        cmocka_unit_test(test_gen_plain),
        cmocka_unit_test(test_gen_bad_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
