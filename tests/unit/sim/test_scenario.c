/*
 * sim/scenario: MIN_BUDGET's auto rule (docs/scenario-format.md, kernel) and
 * finding objects by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"

static void test_scenario_min_budget(void **state)
{
    (void)state;
    struct scenario s;
    memset(&s, 0, sizeof s);
    s.cpu_hz = 1000000000u;
    s.timer_hz = 1000000000u;
    s.costs = (struct scn_costs){120, 100, 80, 150, 120, 250, 100, 90};
    /* twice the worst path: 2 x (120 + 80 + 2 x 150 + 120 + 250 + 100) */
    assert_int_equal(scenario_min_budget(&s), 1940);
    /* one timer tick, rounded up, when it is longer: 1GHz / 32768Hz = 30517.6 */
    s.timer_hz = 32768u;
    assert_int_equal(scenario_min_budget(&s), 30518);
    /* at least one cycle, with every cost 0 and the timer at cpu speed */
    memset(&s.costs, 0, sizeof s.costs);
    s.timer_hz = s.cpu_hz;
    assert_int_equal(scenario_min_budget(&s), 1);
    /* a given min_budget wins */
    s.min_budget = 20000;
    assert_int_equal(scenario_min_budget(&s), 20000);
}

static void test_scenario_find(void **state)
{
    (void)state;
    struct scn_thread threads[2] = {{.name = "a"}, {.name = "b"}};
    struct scn_endpoint eps[1] = {{.name = "ep"}};
    struct scn_notification ntfns[1] = {{.name = "n"}};
    struct scn_device devs[2] = {{.name = "net"}, {.name = "disk"}};
    struct scenario s = {.threads = threads,
                         .n_threads = 2,
                         .endpoints = eps,
                         .n_endpoints = 1,
                         .notifications = ntfns,
                         .n_notifications = 1,
                         .devices = devs,
                         .n_devices = 2};
    assert_int_equal(scenario_find_thread(&s, "b"), 1);
    assert_int_equal(scenario_find_thread(&s, "ep"), SCN_NONE);
    assert_int_equal(scenario_find_endpoint(&s, "ep"), 0);
    assert_int_equal(scenario_find_notification(&s, "n"), 0);
    assert_int_equal(scenario_find_notification(&s, "net"), SCN_NONE);
    assert_int_equal(scenario_find_device(&s, "disk"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_min_budget),
        cmocka_unit_test(test_scenario_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
