/*
 * cli/analysis: passive handlers on a notification's context
 * (docs/analysis.md, "Passive handlers on a notification's context"):
 * a passive Microkit PD notified by interrupts and other PDs runs its
 * handlers on the context bound to its notification. Small scenarios of
 * tests/data/analysis/ whose bounds are computed by hand below and asserted
 * exactly, and simulated: every observed worst response is within its
 * bound.
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

/* passive_notified.yaml, zero kernel costs (E = 0). Every device periodic
 * 10ms but d_app (20ms).
 *  - drv (prio 30, passive, n_drv's context 2ms / 10ms): a driver's event
 *    loop, 1ms, then signals mux's bit 1: a device thread on n_drv's
 *    context. It never runs out (whole budget at each job's start: delta(2)
 *    = 10ms >= T, R = 1ms < 10ms, own 1ms <= 2ms - slack, R + T + slack <=
 *    delta(2) + b): critical instant, bound 1ms.
 *  - mux (20, passive, n_mux's round-robin context 10ms / 10ms: never
 *    throttled): a serve loop of two streams, bit 0 its device's (W0 =
 *    2ms), bit 1 drv's signal (W1 = 1ms, shift R_drv - 1ms = 0), extra = 2:
 *    serve_two.yaml's srv with top = drv (test_analysis_model.c): batches
 *    ahead 11ms, busy window 4ms: bound 4ms (both devices at 0, drv's
 *    signal at 1ms, mux's handlers 1..3ms and 3..4ms, both released at 0).
 *  - app (10, active): 2ms every 20ms; mux never throttles, makes no
 *    call and its device is acknowledged by its own bit's handler, drv
 *    never runs out: the critical instant (docs/analysis.md "Critical
 *    instant"): drv eta(w) 1ms, mux's streams min(eta_m(w), eta_m(w +
 *    4ms), events) x 2ms and x 1ms, bit 1's events drv's sends, min(eta(w)
 *    + 2, eta(w + 1ms)): w = 2: drv 1, b0 1, b1 1: 2 + 1 + 2 + 1 = 6ms;
 *    w = 6: 6ms; delta(2) = 20ms: the window ends. Bound 6ms (before
 *    served threads were critical-instant interferers, the carried-in
 *    counts gave the same: eta(w + R) = 1 each).
 * Before, all three were "program not modelled" (a passive thread not a
 * recv server). Classic: the same (no context runs out). */
static void test_passive_notified(void **state)
{
    static const char *const names[] = {"drv", "mux", "app"};
    static const cycles_t bounds[] = {1 * MS, 4 * MS, 6 * MS};
    (void)state;
    ancheck_file_both(DATA "passive_notified.yaml", names, bounds, 3);
}

/* passive_flood.yaml, zero kernel costs: flood (prio 30, passive, n_fl's
 * context 1ms / 10ms) gets an interrupt every 1 to 2ms, 1ms of work each.
 *  - mcs: app (10, 2ms every 20ms): flood is not shown never to run out
 *    (no critical instant), its interference min(demand, supply), the
 *    supply ceil(w / 10ms) (1ms + E): w = 2 -> 3 -> 3ms (delta(2) = 20ms).
 *    flood itself: the two-job bound 2W + Theta(2W), the phase bound
 *    Theta = (3 + 2 floor(2ms / (b - MIN_BUDGET 10us))) (T - b) = 7 x 9ms
 *    = 63ms, bound 65ms
 *    (the earlier episodes: (2 + floor(2000 / 970)) (20ms - 1ms + 20us) =
 *    4 x 19.02ms = 76.08ms, bound 78.08ms).
 *  - classic: flood 1ms (its window: w(q) = q ms <= delta(q + 1) = q ms
 *    at q = 1); app has no bound (flood needs 100% of the CPU). */
static void test_passive_flood(void **state)
{
    static const char *const names[] = {"flood", "app"};
    static const cycles_t mcs[] = {65 * MS, 3 * MS};
    static const cycles_t classic[] = {1 * MS, ANALYSIS_NO_BOUND};
    (void)state;
    ancheck_file_each(DATA "passive_flood.yaml", names, mcs, classic, 2);
}

/* passive_wait.yaml, zero kernel costs: h (prio 20, passive, n_h's context
 * 2ms / 5ms), loop [wait n_h; job [500us, call srv]; irq_ack], an interrupt
 * every 5ms; srv (40) a passive server of 300us on h's context; lo (10,
 * active) 2ms every 20ms. W_h = 800us, its level 20 (srv above runs on
 * its behalf, nothing else is above).
 *  - mcs, h: a server visit, so not the whole-budget rule; not shown never
 *    to run out: the phase bound Theta(q W) = (3 + 2 floor(0.8q / 1.99))
 *    (T - b = 3ms), MIN_BUDGET 10us. q = 1: 0.8 + 3 x 3 = 9.8ms > delta(2);
 *    w(q) - delta(q) = 0.8q + (3 + 2 floor(0.8q / 1.99)) 3 - 5(q - 1): q =
 *    2 10.6 - 5 = 5.6, q = 3
 *    17.4 - 10 = 7.4, q = 4 18.2 - 15 = 3.2 with w(4) = 18.2 <= delta(5) =
 *    20: the window ends. Bound 9.8ms (the two-job bound 1.6 + 9 = 10.6ms).
 *    (The earlier episodes, (2 + floor(0.8q / 1.97)) x 8.02ms, gave
 *    16.84ms.)
 *  - mcs, lo: h is not a device thread without calls: no critical instant;
 *    h's term min(demand, supply) = min(min(eta(w) + 2, eta(w + 9.8ms))
 *    0.8ms, ceil(w / 5ms) 2ms): w = 2: min(2.4, 2) -> 4: min(2.4, 2) = 2:
 *    4ms.
 *  - classic: h 800us (nothing at or above its level but srv, on its
 *    behalf); lo: min(eta(w) + 2, eta(w + 0.8ms)) 0.8ms: w = 2: 1 job ->
 *    2.8 -> ceil(3.6 / 5) = 1: 2.8ms.
 * Before, h was "program not modelled" and lo had no bound. */
static void test_passive_wait(void **state)
{
    static const char *const names[] = {"h", "lo"};
    static const cycles_t mcs[] = {9800 * US, 4 * MS};
    static const cycles_t classic[] = {800 * US, 2800 * US};
    (void)state;
    ancheck_file_each(DATA "passive_wait.yaml", names, mcs, classic, 2);
}

/* ppc_notified.yaml: passive_notified.yaml with drv and mux passive PDs
 * that also serve protected procedures (endpoints ep_drv and ep_mux,
 * protected handlers of 4ms and 5ms) that no step calls. Their
 * notifications are signalled, so before both were "program not
 * modelled" (a passive serve loop whose notification is signalled) and
 * app had no bound. Nothing calls their endpoints, so seL4 never donates
 * a caller's context to them nor runs a protected handler (a call is the
 * only way in: SCENARIO-FORMAT.md "Event loops"): every run is a notified
 * handler on the notification's context. drv, whose one notified handler
 * is its interrupt's, is the driver's event loop (a device thread, so its
 * context can be shown never to run out), mux the serve loop of two
 * streams: passive_notified's drv and mux exactly. Hence the same bounds,
 * derived in test_passive_notified: drv 1ms, mux 4ms, app 6ms (the
 * protected handlers count nowhere), under mcs and classic. */
static void test_ppc_notified(void **state)
{
    static const char *const names[] = {"drv", "mux", "app"};
    static const cycles_t bounds[] = {1 * MS, 4 * MS, 6 * MS};
    (void)state;
    ancheck_file_both(DATA "ppc_notified.yaml", names, bounds, 3);
}

/* serve_init.yaml (Microkit's passive_server example with a device
 * thread above): cl's init job [compute 0.5-1ms, call srv] and its serve
 * loop's handler for bit 0, the same, below hi (1ms every 10ms, jitter
 * 3ms, priority 30); srv, a passive PD at 20, runs 2ms of protected
 * handler on cl's context and signals bit 0 of cl's notification. Zero
 * kernel costs. The signal's events are the calls to srv (its protected
 * handler runs between a call and its reply): cl's own runs, so cl's
 * stream has no arrival curve and only the batches-ahead bound holds. At
 * a run's release at most the previous batch or the init is unfinished:
 * own work W_0 + max(W_0, W_init), W_0 = W_init = 1ms + 2ms = 3ms (its
 * level p = 10, srv's request counted in it), so 6ms; hi's jobs with
 * work carried in, eta_hi(w + R_hi) = ceil((w + 1ms + 3ms) / 10ms) of
 * 1ms: w = 6ms + 1ms = 7ms -> 6ms + 2ms = 8ms (ceil(12/10) = 2), a fixed
 * point: cl 8ms (observed about 3.9ms: the run after a signal waits for
 * what is left of the previous one, nothing, then 1ms + 2ms and hi's
 * 1ms). srv's jobs lie inside cl's: 8ms (cl is a served thread, no least
 * compute subtracted; observed 3ms). hi 1ms. The same under classic (no
 * budgets throttle: the contexts are round robin). Before, cl was
 * "program not modelled" and srv had no bound. */
static void test_serve_init(void **state)
{
    static const char *const names[] = {"hi", "srv", "cl"};
    static const cycles_t bounds[] = {1 * MS, 8 * MS, 8 * MS};
    (void)state;
    ancheck_file_both(DATA "serve_init.yaml", names, bounds, 3);
}

/* called_signalled.yaml: drv, a passive PD at 20 both called (cl's
 * protected call, 2ms on cl's context) and signalled (its interrupt
 * d_drv every 10ms from 1.5ms, 1ms notified on n_drv's round-robin
 * context), cl at 10 (1ms at least 0.5ms, then the call; every 10ms),
 * lo at 5 (1ms every 20ms). Zero kernel costs (E = 0).
 *  - drv's notified runs: one stream (bit 0), W = 1ms, extra = 2 (a
 *    device bit), level 20 (its requests reach no lower server). A run
 *    can wait for the request in progress: its execution is cl's request
 *    at 20 (cl below the level: the one in progress, 2ms), its other
 *    waits B_ntfn = 0 (cl's context is round robin: never runs out;
 *    classic: none). Batches ahead: 1 + 2 x 1 + 2 = 5ms; busy window at
 *    x = 0: min(0 + 2, eta(w)) = 1 run, 1 + 2 = 3ms (busy period 3ms, no
 *    other offset): 3ms.
 *  - cl: W = 1 + 2 = 3ms at level 10 (drv's priority above); drv's runs
 *    at 20, min(eta(d) + 2, eta(d + 3ms), 2 + eta(d)) = 1 of 1ms for d
 *    <= 7ms: w = 3 + 1 = 4ms: cl 4ms.
 *  - drv's requests lie inside cl's jobs: 4 - 0.5 (cl's least compute) =
 *    3.5ms; drv's bound the larger of its two kinds of jobs: 3.5ms.
 *  - lo: 1ms + cl's min(eta(d) + 2, eta(d + 4ms)) = 1 job of 3ms + drv's
 *    1 run (eta(5ms + 3ms) = 1): 5ms.
 * The same under classic. Observed: d_drv at 1.5ms comes during cl's
 * request (1-3ms); after the reply drv's receive takes the pending
 * signal first and runs 3-4ms: drv 2.5ms, cl 4ms and lo 5ms (the
 * bounds). Before, drv was "program not modelled" and neither cl nor lo
 * had a bound. */
static void test_called_signalled(void **state)
{
    static const char *const names[] = {"drv", "cl", "lo"};
    static const cycles_t bounds[] = {3500 * US, 4 * MS, 5 * MS};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    ancheck_file_both(DATA "called_signalled.yaml", names, bounds, 3);
    /* drv's protected handler calls an endpoint nobody receives on: drv
     * is not modelled, its runs no bound of their own either */
    scnload_must(DATA "called_signalled_unlinked.yaml", &s);
    for (uint8_t sched = SCHED_MCS; sched <= SCHED_CLASSIC; sched++) {
        assert_int_equal(analysis_run(&s, sched, &r), 0);
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t i = scenario_find_thread(&s, names[k]);
            assert_int_equal(r.threads[i].bound, ANALYSIS_NO_BOUND);
        }
        analysis_release(&r);
    }
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passive_notified),
        cmocka_unit_test(test_passive_flood),
        cmocka_unit_test(test_passive_wait),
        cmocka_unit_test(test_ppc_notified),
        cmocka_unit_test(test_serve_init),
        cmocka_unit_test(test_called_signalled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
