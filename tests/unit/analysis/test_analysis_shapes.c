/*
 * cli/analysis: shapes of "What is not modelled" brought in by the eighth
 * session (docs/analysis.md), each on a small scenario of
 * tests/data/analysis/ whose bounds are computed by hand below and
 * asserted exactly, and simulated: every observed worst response is
 * within its bound.
 *  - background loops with steps outside their job (bg_outside.yaml);
 *  - the longest reason is printed whole (reason_longest.yaml).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "analysis/analysis.h"
#include "ancheck.h"
#include "load/load.h"
#include "scnload.h"

#define DATA MCSIM_SOURCE_DIR "/tests/data/analysis/"
#define MS 1000000u /* cycles at 1 GHz */
#define US 1000u

/* bg_outside.yaml, zero kernel costs (E = 0), round-robin contexts (no
 * throttling): bg (10) starts at 2ms, then loops [compute 500us, job
 * [compute 1ms, call store (30, 300us)], compute 200us]. A job is released
 * when its job step begins, nothing of bg's own pending (the computes
 * outside it run between two jobs; the start only delays the loop).
 *  - hi (20): 1ms, and bg's request in progress in store above it: 1.3ms.
 *  - bg: W = 1ms + 300us = 1.3ms at level 10; hi carries work in:
 *    min(eta(w) + 2, eta(w + 1.3ms)) x 1ms, eta(d) = ceil(d / 5ms):
 *    w = 1.3 -> 2.3 -> 2.3ms.
 * Observed (both schedulers, seeds 1 and 2): hi 1ms, bg 2.3ms (hi's
 * interrupt at 3.1ms falls in bg's first job, released at 2.5ms). Before,
 * bg was "program not modelled" (and with its start alone, too). */
static void test_bg_outside(void **state)
{
    static const char *const names[] = {"hi", "bg"};
    static const cycles_t bounds[] = {1300 * US, 2300 * US};
    (void)state;
    ancheck_file_both(DATA "bg_outside.yaml", names, bounds, 2);
}

/* reason_longest.yaml: victim's overload names the interferer with a
 * 63-character name (SCN_NAME_MAX - 1) whose program breaks the longest
 * rule of the model (92 characters), why nothing limits it and the count
 * of one more (caller): 288 characters under classic, 293 under mcs (a
 * round-robin context). Until 2026-12-04 the rule was cut at 95
 * characters and the reason at 255. */
static void test_reason_longest(void **state)
{
    static const char rule[] = "a serve loop whose endpoint has another receiver, a send, "
                               "timeout faults or an unbadged call";
    static const char *const why[] = {"its round-robin context limits it by no budget",
                                      "classic scheduling limits it by no budget"};
    struct scenario s;
    uint32_t srv, victim;
    (void)state;
    scnload_must(DATA "reason_longest.yaml", &s);
    srv = scenario_find_thread(&s, "an_active_server_whose_endpoint_is_also_called_without_a_badge_");
    victim = scenario_find_thread(&s, "victim");
    assert_int_equal(strlen(s.threads[srv].name), SCN_NAME_MAX - 1);
    for (uint8_t sched = SCHED_MCS; sched <= SCHED_CLASSIC; sched++) {
        struct analysis_result r;
        char want[ANALYSIS_REASON_MAX], sv[ANALYSIS_REASON_MAX];
        snprintf(want, sizeof want,
                 "overload: nothing bounds the interference of %s (program not modelled: %s): "
                 "%s; nor that of 1 more",
                 s.threads[srv].name, rule, why[sched == SCHED_CLASSIC]);
        snprintf(sv, sizeof sv, "program not modelled: %s", rule);
        assert_int_equal(analysis_run(&s, sched, &r), 0);
        assert_int_equal(r.threads[victim].bound, ANALYSIS_NO_BOUND);
        assert_string_equal(r.threads[victim].reason, want);
        assert_int_equal(strlen(want), sched == SCHED_CLASSIC ? 288 : 293);
        assert_string_equal(r.threads[srv].reason, sv);
        analysis_release(&r);
    }
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bg_outside),
        cmocka_unit_test(test_reason_longest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
