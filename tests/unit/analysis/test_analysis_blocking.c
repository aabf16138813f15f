/*
 * cli/analysis's blocking in shared servers (docs/analysis.md, "Blocking
 * in servers"), against hand-computed figures and the simulator:
 *  - server_exhausts_*: each timeout policy its own blocking term;
 *  - a client whose program is not modelled (background_client.yaml);
 *  - inherit_unqueued: a client that runs out inside a server with nobody
 *    queued.
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
#include "observe.h"
#include "scnload.h"

#define SCENARIOS MCSIM_SOURCE_DIR "/scenarios/"

/* server_exhausts_*: sensor's blocking term behind batch differs by the
 * server's timeout policy: inherit (with no client queued at the fault, the
 * server waits for batch's refills as with no handler; then one handler
 * run and a payer that may run out) is the longest, none (the rest of the
 * request after batch's refills) next, reset (one handler run: the
 * request is aborted) the shortest, emergency (the rest, two handler runs)
 * between. */
static void test_analysis_policies(void **state)
{
    static const char *const names[] = {"none", "emergency_budget", "inherit", "reset"};
    cycles_t blocked[4];
    (void)state;
    for (int p = 0; p < 4; p++) {
        char path[512];
        struct scenario s;
        struct analysis_result r;
        const struct analysis_term *t;
        snprintf(path, sizeof path, SCENARIOS "server_exhausts_%s.yaml", names[p]);
        scnload_must(path, &s);
        assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
        t = ancheck_term(&r.threads[scenario_find_thread(&s, "sensor")], TERM_BLOCKING, SCN_NONE);
        assert_non_null(t);
        assert_int_equal(t->thread, scenario_find_thread(&s, "batch"));
        blocked[p] = t->cycles;
        if (p == 1) {
            /* batch's 4.01ms jobs (1.5ms every 10ms) end without their
             * throttling, not with it under emergency grants: that is why */
            uint32_t batch = scenario_find_thread(&s, "batch");
            assert_int_equal(r.threads[batch].bound, ANALYSIS_NO_BOUND);
            assert_string_equal(r.threads[batch].reason,
                                "its own throttling has no bound: its throttled phases (period "
                                "- budget each; 2 periods - budget under emergency grants) per "
                                "budget's worth of work and charged kernel entries outgrow the "
                                "window");
        }
        printf("server_exhausts_%s: sensor blocked %llu cycles\n", names[p],
               (unsigned long long)blocked[p]);
        analysis_release(&r);
        scenario_release(&s);
    }
    /* inherit and none wait for batch's refills: the longest; reset aborts:
     * the shortest */
    for (int p = 0; p < 4; p++)
        for (int q = p + 1; q < 4; q++)
            assert_int_not_equal(blocked[p], blocked[q]);
    assert_true(blocked[2] > blocked[0] && blocked[0] > blocked[1]);
    assert_true(blocked[3] < blocked[1]);
}

/* A client whose program is not modelled (docs/analysis.md, "Clients whose
 * programs are not modelled"): background_client's telemetry, a background
 * loop of calls. No kernel costs (E = 0, H = 0). control: W = 1ms + 400us
 * (store) + 500us = 1.9ms; telemetry above it, always ready, is bounded by
 * its supply, ceil(w / 10ms) (2ms + 0) = 2ms for w <= 10ms; the guard resets
 * the server (B = H = 0) and runs in 0 cycles: w = 1.9 + 2 = 3.9ms, which
 * the run shows. Under classic there are no budgets: no bound.
 * telemetry's own jobs (a background loop that starts at 1ms: the start
 * only delays the loop, docs/analysis.md "Background threads"): W = 400us
 * (store) + 50us = 450us at store's level 150. Under mcs it throttles (2ms
 * / 10ms, MIN_BUDGET 10us): the phase bound, Theta(450us) = (3 + 2
 * floor(450us / 1.99ms))
 * phases of T - b = 8ms = 24ms, and control's requests, which reach 150,
 * (eta(w) + 2) x 400us while the job may idle (throttled) = 2ms at w =
 * 26.45ms (eta = 3): w = 0.45 + 24 + 2 = 26.45ms (control is round robin:
 * no wait behind it). (The earlier episodes gave 42.09ms: 2 of 2T - b + m
 * = 18.02ms, control's requests again as refill delays.) Under classic
 * control's request in progress only: 450 + 400 = 850us. */
static void test_analysis_background_client(void **state)
{
    struct scenario s;
    struct analysis_result r;
    struct observed o;
    cycles_t end;
    uint32_t control, tele;
    const struct analysis_term *t;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/tests/data/analysis/background_client.yaml", &s);
    control = scenario_find_thread(&s, "control");
    tele = scenario_find_thread(&s, "telemetry");
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_int_equal(r.threads[control].work, 1900000);
    assert_int_equal(r.threads[control].bound, 3900000);
    assert_int_equal(r.threads[control].verdict, ANALYSIS_SCHEDULABLE);
    assert_non_null(t = ancheck_term(&r.threads[control], TERM_INTERFERENCE, tele));
    assert_int_equal(t->cycles, 2000000);
    assert_null(ancheck_term(&r.threads[control], TERM_BLOCKING, SCN_NONE));
    assert_int_equal(r.threads[tele].bound, 26450000);
    assert_int_equal(observe_run(&s, SCHED_MCS, s.seed, &o, &end), 0);
    assert_int_equal(o.threads[control].worst, 3900000);
    assert_int_equal(o.threads[tele].worst, 8250000);
    observe_release(&o);
    analysis_release(&r);
    assert_int_equal(analysis_run(&s, SCHED_CLASSIC, &r), 0);
    assert_int_equal(r.threads[control].bound, ANALYSIS_NO_BOUND);
    assert_string_equal(r.threads[control].reason,
                        "overload: nothing bounds the interference of telemetry (a background "
                        "loop: always ready): classic scheduling limits it by no budget");
    assert_int_equal(r.threads[tele].bound, 850000);
    assert_int_equal(observe_run(&s, SCHED_CLASSIC, s.seed, &o, &end), 0);
    assert_int_equal(o.threads[tele].worst, 450000);
    observe_release(&o);
    analysis_release(&r);
    scenario_release(&s);
}

/* inherit_unqueued: telemetry runs out inside store with nobody queued, so
 * the server waits for its refill as with no handler, and control, which
 * calls just after, waits with it (12.2ms). The blocking term per job is
 * r + H + Theta_k(r): r = 400us, H = 0 (no costs), telemetry's context
 * 300us / 10ms: the phase bound, Theta_k(400us) = (3 + 2 floor(400 /
 * (300 - 10))) (T - b) = 5 x 9.7ms = 48.5ms: 48.9ms per job. (The earlier
 * episodes: (2 + floor(400 / 270)) x (2T - b + m + E = 19.72ms) = 59.16ms,
 * 59.56ms per job.) */
static void test_analysis_inherit_unqueued(void **state)
{
    struct scenario s;
    struct analysis_result r;
    struct observed o;
    cycles_t end;
    uint32_t control, tele;
    const struct analysis_term *t;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/tests/data/analysis/inherit_unqueued.yaml", &s);
    control = scenario_find_thread(&s, "control");
    tele = scenario_find_thread(&s, "telemetry");
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_non_null(t = ancheck_term(&r.threads[control], TERM_BLOCKING, tele));
    /* the bound is the two-job one (the job ahead and this one): twice */
    assert_int_equal(r.threads[control].worst_job, 1);
    assert_int_equal(t->cycles, 2 * 48900000);
    assert_int_equal(observe_run(&s, SCHED_MCS, s.seed, &o, &end), 0);
    assert_int_equal(o.threads[control].worst, 12200000);
    assert_true(o.threads[control].worst <= r.threads[control].bound);
    observe_release(&o);
    analysis_release(&r);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analysis_policies),
        cmocka_unit_test(test_analysis_background_client),
        cmocka_unit_test(test_analysis_inherit_unqueued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
