/*
 * cli/analysis: served threads (docs/analysis.md, "Several senders and
 * serve loops"): serve loops as interferers of the critical instant, and
 * calls in the handlers of serve loops of several handlers or streams
 * (the Microkit PD whose notified handlers ppcall a passive server).
 * A served thread's context shown never to run out (docs/analysis.md,
 * "Never runs out", served threads).
 * Small scenarios of tests/data/analysis/ whose bounds are computed by hand
 * below and asserted exactly, and simulated: every observed worst
 * response is within its bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "analysis/analysis.h"
#include "ancheck.h"
#include "scnload.h"

#define DATA MCSIM_SOURCE_DIR "/tests/data/analysis/"
#define MS 1000000u /* cycles at 1 GHz */
#define US 1000u

/* serve_crit.yaml, zero kernel costs (E = 0), round-robin contexts (never
 * throttled). srv (prio 30): a serve loop of two device bits, d_a (bit 0,
 * every 10ms) handled in 4ms and d_b (bit 1, every 20ms) in 4ms, each
 * acknowledged by its own bit's handler; lo (10): 2ms every 20ms.
 *  - srv: extra = 2 (a device bit). Batches ahead 3 x 8 = 24ms. Busy
 *    window: L: no run counted yet, the worst stream's one, 4ms -> both
 *    once (eta(4ms) = 1 each) 8ms -> 8ms; offsets below 8ms: 0 and 1
 *    (delta(1) + 1 of each device). x = 0: runs min(eta(0) + 2, eta(w))
 *    = 1 each: 8ms, bound 8ms; x = 1: 8ms - 1. Bound 8ms (both devices
 *    at 0: the two handlers 0..4 and 4..8ms).
 *  - lo: srv makes no call, serves none, is never throttled, and each of
 *    its devices is acknowledged by its own bit's handler: it is an
 *    interferer of the critical instant (an_serve_crit), as a device
 *    thread: w = 2 + 4 ceil(w / 10) + 4 ceil(w / 20): 2 -> 10 -> 10ms.
 *    Bound 10ms, the observed worst (every device at 0: srv 0..8ms, lo
 *    8..10ms).
 * Before (served threads never critical-instant interferers), srv's runs
 * in lo's window were min(eta_m(w) + 2, eta_m(w + 8ms), 2 + eta_dev(w)):
 * 2 -> 2 + 4 x 2 + 4 x 1 = 14 -> 2 + 4 x 3 + 4 x 2 = 22 -> 22ms, above
 * lo's 20ms deadline. The same under classic. */
static void test_serve_crit(void **state)
{
    static const char *const names[] = {"srv", "lo"};
    static const cycles_t bounds[] = {8 * MS, 10 * MS};
    (void)state;
    ancheck_file_both(DATA "serve_crit.yaml", names, bounds, 2);
}

/* serve_calls.yaml, zero kernel costs (E = 0), round-robin contexts.
 * hi (prio 40): 1ms every 10ms. srv (30): a passive PD serving one
 * protected procedure of 1ms: each request r = 1ms (+ 2E). cl (20): a
 * serve loop, bit 0 its interrupt d_a (every 10ms): 1ms, a ppcall to srv,
 * irq_ack: W0 = 2ms; bit 1 d_b (every 20ms): 500us and a ppcall: W1 =
 * 1.5ms; extra = 2 (device bits); no other client of srv and no budget
 * runs out: B = 0; its level min(20, 30) = 20. lo (10): 1ms every 20ms.
 *  - hi: 1ms.
 *  - cl: it calls, so no critical instant: hi carried in, min(eta(w) + 2,
 *    eta(w + 1ms)) 1ms. Batches ahead: 3 x 3.5 = 10.5 -> + hi (eta(11.5)
 *    = 2) 12.5 -> 12.5ms. Busy window: L: no run counted, the worst
 *    stream's one 2ms -> + hi 1 = 3 -> both once 3.5 + 1 = 4.5 -> 4.5ms;
 *    offsets 0 and 1: x = 0: min(0 + 2, eta(w)) = 1 each: 4.5ms, bound
 *    4.5ms; x = 1: 4.5ms - 1. Bound 4.5ms, the observed worst (all at 0:
 *    hi 0..1, bit 0's 1ms and request 1..3, bit 1's 3..4.5).
 *  - lo: cl is not a critical-instant interferer (it suspends in its
 *    calls): hi min(eta(w) + 2, eta(w + 1ms)) 1ms, cl's streams min(eta_m(w)
 *    + 2, eta_m(w + 4.5ms), 2 + eta_dev(w)) x 2ms and x 1.5ms: w = 1 ->
 *    1 + 1 + 2 + 1.5 = 5.5 -> eta(10ms) = 1 each: 5.5ms. Bound 5.5ms, the
 *    observed worst.
 *  - srv's jobs (protected procedures): within a run of cl, 4.5ms
 *    (observed 1ms).
 * The same under classic. Before, cl was "program not modelled" and
 * neither lo nor srv had a bound. */
static void test_serve_calls(void **state)
{
    static const char *const names[] = {"hi", "cl", "lo", "srv"};
    static const cycles_t bounds[] = {1 * MS, 4500 * US, 5500 * US, 4500 * US};
    (void)state;
    ancheck_file_both(DATA "serve_calls.yaml", names, bounds, 4);
}

/* serve_never.yaml, zero kernel costs (E = 0, K = 0), MIN_BUDGET 10us.
 * srv (prio 30): a serve loop of two device bits, d_a (bit 0, every 10ms)
 * and d_b (bit 1, every 20ms), each handled in 1ms and acknowledged by
 * its own handler (W_0 = W_1 = 1ms), on a constant-bandwidth context of
 * 3.5ms every 10ms with 5 refills (extra_refills 3); lo (10): 2ms every
 * 20ms.
 *  - srv, as if its context never ran out: extra = 2 (a device bit);
 *    batches ahead 3 x 2 = 6ms; busy window: L = 2ms (both once), offsets
 *    0 and 1: x = 0: min(eta_m(0) + 2, eta_m(w)) = 1 each: 2ms. R = 2ms.
 *    Never runs out: per stream eta_m(T + R) = eta_m(12ms) runs, no more
 *    (each device's arrivals are more than R + E = 2ms apart, so none is
 *    ever held on its masked line): n_0 = 2, n_1 = 1; charge 3 x 1ms + E
 *    K = 3ms, plus m = 2 MIN_BUDGET + E = 20us: 3.02ms <= 3.5ms; chunks 1
 *    + 3 wakes + 0 preemptions (nothing above it, lo calls nothing) = 4 <=
 *    5 - 1. Kept: 2ms (the observed worst: both devices at 0, bit 0's run
 *    0..1ms, bit 1's 1..2ms).
 *  - lo: srv makes no call and is never throttled: a critical-instant
 *    interferer (an_serve_crit): w = 2 + 1 ceil(w / 10) + 1 ceil(w / 20):
 *    2 -> 4 -> 4ms, the observed worst.
 * The same under classic. Before (a served thread never shown never to
 * run out): srv 55.56ms with the episodes' Theta (batches ahead 6ms + 3
 * episodes of 2T - b + m = 16.52ms), 37.499999ms with the phases' Theta
 * (below), lo 5.5ms (2ms + srv's budget 3.5ms).
 * With a budget of 3.02ms (3.02ms <= 3.02ms) the same bounds; with
 * 3.01ms, or with 4 refills (4 chunks > 3), srv is not shown never to run
 * out: 4 refills, 3.5ms: Theta by phases (3 + 2 floor(5ms / (3.5ms -
 * 10us))) (T - b) = 5 x 6.5ms = 32.5ms on the busy window's 5ms, the
 * second job released 1ns after the first: 37.499999ms, lo 5.5ms. */
static void test_serve_never(void **state)
{
    static const char *const names[] = {"srv", "lo"};
    static const cycles_t bounds[] = {2 * MS, 4 * MS};
    struct scenario s;
    struct analysis_result r;
    uint32_t srv, lo;
    (void)state;
    ancheck_file_both(DATA "serve_never.yaml", names, bounds, 2);
    scnload_must(DATA "serve_never.yaml", &s);
    srv = scenario_find_thread(&s, "srv");
    lo = scenario_find_thread(&s, "lo");
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_false(r.threads[srv].may_throttle);
    analysis_release(&r);

    s.threads[srv].sc.budget = 3020 * US;
    ancheck_bounds(&s, SCHED_MCS, names, bounds, 2);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_false(r.threads[srv].may_throttle);
    analysis_release(&r);

    s.threads[srv].sc.budget = 3010 * US;
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_true(r.threads[srv].may_throttle);
    analysis_release(&r);

    s.threads[srv].sc.budget = 3500 * US;
    s.threads[srv].sc.extra_refills = 2;
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_true(r.threads[srv].may_throttle);
    assert_int_equal(r.threads[srv].bound, 37499999);
    assert_int_equal(r.threads[lo].bound, 5500 * US);
    analysis_release(&r);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve_crit),
        cmocka_unit_test(test_serve_calls),
        cmocka_unit_test(test_serve_never),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
