/*
 * cli/analysis: active servers (docs/analysis.md, "Active servers" and
 * "Active servers with a budget below their period"): a thread with a
 * context of its own serving calls on an endpoint, whose context has a
 * budget below its period under mcs, and its callers, among them the
 * handlers of served threads (serve loops, threads of several senders).
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

/* active_throttle.yaml, zero kernel costs (E = 0), MIN_BUDGET 10us. srv
 * (prio 20) serves on its own context, 4ms every 5ms (constant
 * bandwidth, 2 refills): badge 0 (hi's call) and badge 1 (lo's) 3ms each.
 * hi (15): every 20ms, 200us then the call; lo (5): every 40ms, 100us
 * then the call; both round-robin contexts. A call is one entry and one
 * wake of its caller's job; srv's runs are interference (a call stream's
 * runs in a window at most its callers' jobs' calls there); under mcs the
 * caller's window adds srv's throttled time, Theta_srv(N) = (3 + 2
 * floor(N / (4ms - 10us))) x 1ms, N = min(srv's runs' work, its supply
 * ceil(w / 5ms) x 4ms) (E = 0).
 *  - hi: W = 200us; srv: badge 0 one run (its own job's), badge 1
 *    min(eta_lo(w) + 2, eta_lo(w + R_lo)) = 1 (R_lo = 16.5ms, w < 23.5ms):
 *    6ms of demand. w <= 5ms: N = supply 4ms, Theta 5ms: 0.2 + 4 + 5 =
 *    9.2ms > 5; w in (5, 10]: N = 6ms, Theta 5ms: 11.2ms > 10; w in (10,
 *    15]: 0.2 + 6 + 5 = 11.2ms. Bound 11.2ms (one job: 11.2 <= 20ms).
 *  - lo: W = 100us; hi min(eta(w) + 2, eta(w + 11.2ms)) x 200us; srv badge
 *    0 hi's jobs' calls min(eta_hi(w) + 2, eta_hi(w + 11.2ms)), badge 1
 *    one. w <= 5ms: 0.1 + 0.2 + 4 (supply) + 5 = 9.3ms; w in (5, 8.8]:
 *    hi once, 6ms, Theta 5: 11.3 > 8.8; w in (8.8, 10]: hi twice, srv
 *    9ms, supply 8ms, Theta(8ms) = 7ms: 15.5 > 10; w in (10, 15]: 0.1 +
 *    0.4 + 9 + 7 = 16.5 > 15; w in (15, 20]: 16.5ms. Bound 16.5ms.
 *  - srv: a run can be overtaken, so its busy period: badge 0 eta_hi(w +
 *    11ms) (hi's jitter up to its call, 11.2 - 0.2), badge 1 eta_lo(w +
 *    16.4ms): 3ms (no run counted yet: the largest) -> Theta(3ms) = 3ms:
 *    6 -> one each, 6ms + Theta 5ms = 11 -> eta_hi(22ms) = 2: 9ms +
 *    Theta(9ms) 7ms = 16 -> 16ms. Not shown never to run out (9ms of
 *    runs in T + R). Bound 16ms.
 * Observed under mcs: hi 3.2ms (0.2ms, then srv 0.2..3.2ms), lo 7.2ms
 * (its call at 3.3ms finds 1ms of srv's budget: throttled 4.3..5.2ms, its
 * refill of 3ms), srv 3.9ms. Without srv's throttling lo would be 6.3ms,
 * below what it does.
 * Under classic (no budgets): hi 0.2 + 3 + 3 = 6.2ms; lo 0.1 + 0.2 + 3
 * + 3 = 6.3ms (eta_hi(6.3 + 6.2) = 1), the observed worst; srv badge 0
 * eta_hi(w + 6ms), badge 1 eta_lo(w + 6.2ms): 3 -> 6 -> 6ms.
 * Before, srv was "an active server with a budget below its period" and
 * hi and lo had no bound under mcs. */
static void test_active_throttle(void **state)
{
    static const char *const names[] = {"srv", "hi", "lo"};
    static const cycles_t mcs[] = {16 * MS, 11200 * US, 16500 * US};
    static const cycles_t classic[] = {6 * MS, 6200 * US, 6300 * US};
    (void)state;
    ancheck_file_each(DATA "active_throttle.yaml", names, mcs, classic, 3);
}

/* active_safe.yaml: active_throttle.yaml with 1ms handlers and srv's 6
 * refills (extra_refills 4). srv is shown never to run out (docs
 * "Never runs out", served threads) from its callers' bounds, and then
 * its callers count no throttling of it:
 *  - srv, as if it never ran out: badge 0 eta_hi(w + 2ms), badge 1
 *    eta_lo(w + 2.2ms): 1 -> 2 -> 2ms. Its charge in any window of 5ms:
 *    eta_hi(5 + 2 + 2) = 1 and eta_lo(5 + 2 + 2.2) = 1 runs of 1ms, + 2
 *    MIN_BUDGET = 2.02ms <= 4ms; 1 + 2 wakes <= 6 - 1 refills: shown.
 *  - hi: 0.2 + 1 (its own call) + 1 (lo's) = 2.2ms; lo: 0.1 + 0.2 + 1 + 1
 *    = 2.3ms, the observed worst.
 * In the first pass the callers had no bound, srv's runs none, so srv
 * was not shown and they counted its throttling (hi 5.2ms); each later
 * figure is a bound from figures that are bounds. The same under
 * classic. */
static void test_active_safe(void **state)
{
    static const char *const names[] = {"srv", "hi", "lo"};
    static const cycles_t bounds[] = {2 * MS, 2200 * US, 2300 * US};
    (void)state;
    ancheck_file_each(DATA "active_safe.yaml", names, bounds, bounds, 3);
}

/* active_served.yaml, zero kernel costs (E = 0), MIN_BUDGET 10us. srv
 * (prio 30) serves on its own context, 4ms every 5ms (2 refills): badge 0
 * and badge 1, 1ms each. cl (20, round robin): a serve loop, bit 0 its
 * interrupt d_a (every 10ms): 1ms, a call to srv (badge 0), irq_ack: W0 =
 * 1ms; bit 1 d_b (every 20ms): 500us and a call (badge 1): W1 = 500us;
 * extra = 2 (device bits). lo (10): 1ms every 20ms. A handler's call to
 * srv is one entry and one wake of the run; srv's runs are interference
 * on cl (srv is above it), a call stream's runs in a window at most the
 * runs of cl's stream that calls there: min(eta_m(d) + 2, eta_m(d + R_cl),
 * 2 + the events at its sources); srv's throttling Theta_srv(N) = (3 + 2
 * floor(N / 3.99ms)) x 1ms is added to cl's window (mcs).
 *  - cl: it calls, so no critical instant. Busy window, x = 0: its runs
 *    min(eta_m(0) + 2, eta_m(w)) = 1 each: 1.5ms; srv's badge 0 runs
 *    min(eta_s0(w) + 2, eta_s0(w + R_srv), cl's bit-0 runs min(eta_a(w) +
 *    2, eta_a(w + 7.5ms))) = 2 for w in (2.5, 12.5], badge 1 one
 *    (eta_b(w + 7.5ms) = 1): 3ms (its supply 4ms per 5ms is more);
 *    Theta_srv(3ms) = 3ms: w = 1.5 + 3 + 3 = 7.5ms (from any w > 0: for
 *    w <= 2.5 srv runs once each, 1.5 + 2 + 3 = 6.5 > 2.5). x = 1: the
 *    same w, bound 7.5ms - 1. Batches ahead: 3 x 1.5ms = 4.5ms of own
 *    work and more calls: above. Bound 7.5ms.
 *  - lo: cl's runs min(eta_m(w) + 2, eta_m(w + 7.5ms)) x W_m, srv's as in
 *    cl's window: w = 1 -> 1 + 2 (srv once each) + 1.5 = 4.5 -> eta_a(12)
 *    = 2: 1 + 3 + 2.5 = 6.5 -> 6.5ms. lo calls nothing: no throttling of
 *    srv in its window.
 *  - srv: busy period, badge 0 eta_a(w + 6.5ms) (cl's jitter up to the
 *    call: 7.5 - 1), badge 1 eta_b(w + 7ms): 1ms (none counted yet: the
 *    largest) + Theta(1ms) 3ms = 4 -> eta_a(10.5) = 2, eta_b(11) = 1:
 *    3ms + 3ms = 6 -> 6ms. Not shown never to run out (3 wakes in 2
 *    refills).
 * Observed under mcs: srv 1ms, cl 3.5ms, lo 4.5ms. Under classic (no
 * budgets): srv badge 0 eta_a(w + 2.5ms), badge 1 eta_b(w + 3ms): 1 -> 2
 * -> 2ms; cl 1.5 + 2 (srv once each) = 3.5ms; lo 1 + 2 + 1.5 = 4.5ms
 * (eta_a(4.5 + 3.5) = 1); cl and lo the observed worst. Before, cl was
 * "program not modelled" (a call to an active server in a handler), and
 * srv and lo had no bound with it. */
static void test_active_served(void **state)
{
    static const char *const names[] = {"srv", "cl", "lo"};
    static const cycles_t mcs[] = {6 * MS, 7500 * US, 6500 * US};
    static const cycles_t classic[] = {2 * MS, 3500 * US, 4500 * US};
    (void)state;
    ancheck_file_each(DATA "active_served.yaml", names, mcs, classic, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_active_throttle),
        cmocka_unit_test(test_active_safe),
        cmocka_unit_test(test_active_served),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
