/*
 * cli/analysis: the program shapes and scheduling rules added to the model
 * (docs/analysis.md), each on a small scenario of tests/data/analysis/
 * whose bounds are computed by hand below and asserted exactly, and
 * simulated: every observed worst response is within its bound.
 *  - threads woken by messages (message_chain.yaml);
 *  - equal priorities under classic: the tick's round robin;
 *  - equal priorities under mcs: device threads with round-robin
 *    background threads at their priority;
 *  - serve loops of several handlers and threads of several senders
 *    (serve_two.yaml).
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

/* message_chain.yaml, zero kernel costs, round-robin contexts (never
 * throttled), every thread a device thread or woken by a message, none
 * calling: the critical instant holds, with each message-woken thread's
 * arrivals its chain's device's shifted by the senders' jitter
 * (docs/analysis.md, "Arrivals"). Devices: top 1ms every 3ms (prio 40),
 * driver 1ms every 6ms (30) then signals app; app 0.5..1ms (20) then
 * signals log; log 0.5ms (10); sink 2ms every 20ms (5).
 *  - top: 1ms.  driver: w = 1 + ceil(w/3) 1 = 2ms.
 *  - app: shift = R_driver - 1ms (driver's least compute before its
 *    signal) = 1ms; w = 1 + ceil(w/3) + ceil(w/6) = 3ms (<= delta(2) =
 *    6 - 1 = 5ms: one job in the busy window).
 *  - log: shift = 1ms + (R_app - 0.5ms, app's least compute before its
 *    signal) = 3.5ms; w(1) = 0.5 + ceil(w/3) + ceil(w/6) + ceil((w + 1)/6):
 *    0.5 -> 3.5 -> 4.5 (top 2, driver 1, app 1) = 4.5ms; delta(2) = 6 - 3.5
 *    = 2.5ms < 4.5ms, so w(2) = 1 + ...: 1 -> 4 -> 5 (top 2, driver 1, app
 *    ceil(6/6) = 1) = 5ms, bound 5 - 2.5 = 2.5ms; delta(3) = 12 - 3.5 =
 *    8.5ms >= 5ms: the window ends; R_log = max(4.5, 2.5) = 4.5ms.
 *  - sink: w = 2 + ceil(w/3) + ceil(w/6) + ceil((w + 1)/6) +
 *    ceil((w + 3.5)/6) 0.5: 2 -> 5.5 -> 8 -> 10 -> 11.5 -> 12.5 -> 14.5 ->
 *    14.5 (top 5, driver 3, app 3, log 3 x 0.5) = 14.5ms; without the
 *    shifts (app and log as if released with driver's device) it would
 *    be 11ms.
 * Classic (zero tick cost, no equal priorities) gives the same. */
static void test_message_chain(void **state)
{
    static const char *const names[] = {"top", "driver", "app", "log", "sink"};
    static const cycles_t bounds[] = {1 * MS, 2 * MS, 3 * MS, 4500 * US, 14500 * US};
    (void)state;
    ancheck_file_both(DATA "message_chain.yaml", names, bounds, 5);
}

/* message_up.yaml, zero kernel costs, round-robin contexts: client (1ms
 * every 10ms, prio 10) ends its job by signalling logger (0.5ms, prio
 * 20), which preempts it. Passes, highest level first:
 *  1. logger: client has no bound yet, so its arrivals are unbounded; at
 *     a release at most one job is unfinished: two-job bound 2 x 0.5 =
 *     1ms. client: logger runs at most 2 (unfinished at the window's
 *     start) + 1 (its one message) jobs in its window: w = 1 + 1.5 =
 *     2.5ms.
 *  2. logger: shift = 2.5 - 1ms (client's compute before the signal) =
 *     1.5ms, w(1) = 0.5ms <= delta(2) = 10 - 1.5: 0.5ms. client: logger's
 *     ceil((w + 1.5) / 10) = 1 job: w = 1.5ms.
 *  3. logger: shift 0.5ms, still 0.5ms; client 1.5ms.
 * Both exact: the run's client finishes at 1.5ms (logger preempts it at
 * its signal). Classic the same. */
static void test_message_up(void **state)
{
    static const char *const names[] = {"logger", "client"};
    static const cycles_t bounds[] = {500 * US, 1500 * US};
    (void)state;
    ancheck_file_both(DATA "message_up.yaml", names, bounds, 2);
}

/* serve_two.yaml, zero kernel costs, round-robin contexts (docs/analysis.md
 * "Several senders and serve loops"; eta(d) = ceil(d / 10ms) for every
 * device, E = 0). top (prio 30): device thread, 1ms, its job signals srv's
 * bit 1 and m: bound 1ms. srv (20): a serve loop of two streams, bit 0 its
 * device's (W0 = 2ms), bit 1 top's signal (W1 = 1ms, comp (d_top, shift
 * R_top - 1ms = 0)); extra = 2 (a device bit). top is a device thread:
 * critical instant, I = eta(w) 1ms.
 *  - batches ahead: own 3 (2 + 1) = 9ms, top carried in: min(eta(w) + 2,
 *    eta(w + 1ms)) 1ms: 9 -> 10 -> 11 -> 11ms.
 *  - busy window: L from 0: no run counted, the worst stream's one (2ms)
 *    -> 2 + top 1 = 3 -> both streams once (3ms) + 1 = 4 -> 4ms. Offsets
 *    x < 4ms: 0 and 1 cycle (each device's first event). x = 0: runs
 *    min(0 + 2, eta(w)) each: 2 -> 3 -> 3 + 1 = 4ms, bound 4ms; x = 1:
 *    w = 4ms, bound 4ms - 1. R = min(11, 4) = 4ms: both devices at 0,
 *    top's signal at 1ms, srv's handlers 1..3ms and 3..4ms, both released
 *    at 0 (the observed worst).
 * multi (10): a wait loop of two senders: top's job (comp (d_top, 1ms -
 * 1ms = 0)) and srv's bit-1 handler (comp (d_top, shift 0 + R_srv 4ms -
 * 1ms = 3ms)); W = 0.5ms, extra 1. srv never throttles, makes no call
 * and its device is acknowledged by its own bit's handler: with top, the
 * critical instant holds (docs/analysis.md "Critical instant"): srv's
 * runs per stream min(eta(d), eta(d + 4ms), events at its sources), bit
 * 1's events top's sends min(eta(d) + 2, eta(d + 1ms)); top's eta(d).
 *  - batches ahead (work carried in): own 2 x 0.5 = 1ms: 1 -> 1 + top 1
 *    + srv (2 + 1) = 5 -> 5ms.
 *  - busy window: eta_m(d) = ceil(d / 10) + ceil((d + 3) / 10), 1 at 0:
 *    L: 0.5 -> 4.5 (top 1, srv 3) -> own 2 x 0.5: 5 -> 5ms; offsets 0, 1:
 *    x = 0: runs min(1 + 1, eta(w)): 0.5 -> 4.5 -> 1 + 4 = 5ms; x = 1: 5ms
 *    - 1. R = 5ms (observed 3.5ms: released at 1ms by top, run after srv
 *    at 4..4.5ms); the carried-in counts (min(eta(d) + 2, eta(d + R),
 *    ...)) gave the same.
 * Classic: the same (no contexts run out, zero tick cost). */
static void test_serve_two(void **state)
{
    static const char *const names[] = {"top", "srv", "multi"};
    static const cycles_t bounds[] = {1 * MS, 4 * MS, 5 * MS};
    (void)state;
    ancheck_file_both(DATA "serve_two.yaml", names, bounds, 3);
}

/* equal_turns.yaml, zero kernel costs: sensor (1ms every 40ms, prio 50,
 * round-robin context 40ms) shares its priority with spin, always ready
 * (3ms jobs back to back, round-robin context 2ms/2ms, no yield); fast
 * (0.5ms every 5ms, prio 60) preempts both. spin is not a device thread:
 * no critical instant, fast's demand is min(eta(w) + 2, eta(w + R_fast))
 * jobs (R_fast = 0.5ms).
 *  - mcs: spin gets ahead of sensor only at sensor's wake (1 per job) and
 *    when sensor's 40ms slice runs out (floor(1ms / 40ms) = 0 times), and
 *    then runs one slice of 2ms: w = 1 + fast + 1 x 2ms; from 1ms: fast
 *    min(1 + 2, eta(1.5) = 1) = 0.5 -> 3.5ms -> fast eta(4) = 1: 3.5ms.
 *  - classic (tick 1ms, timeslice 2): sensor's ticks A = floor((1ms + H) /
 *    1ms) + 1 + 1 (H: fast's term), its turns 1 + ceil(A / 2), spin runs at
 *    most 1ms x (turns x 2 + 2 P), P = 1 (the entry in progress) + fast's
 *    interrupts eta(w) (sensor's own wake preempts nobody, B5):
 *    w = 1: fast 0.5, A = 3, turns 3, P 2, spin 10 -> 11.5;
 *    11.5: fast eta(12) = 3 -> 1.5, A = 4, turns 3, P 4, spin 14 -> 16.5;
 *    16.5: fast 4 -> 2, A = 5, turns 4, P 5, spin 18 -> 21;
 *    21: fast 5 -> 2.5, A = 5, turns 4, P 6, spin 20 -> 23.5;
 *    23.5: the same: 23.5ms = 1 + 20 + 2.5.
 * spin itself (a background job, released running): sensor and fast
 * count by demand; mcs w = 3 + min(eta(w) + 2, eta(w + 3.5)) 1ms + fast:
 * 4.5ms = 3 + 1 + 0.5. Under classic the same (no equal always-ready
 * thread beside it). */
static void test_equal_turns(void **state)
{
    static const char *const names[] = {"fast", "sensor", "spin"};
    static const cycles_t mcs[] = {500 * US, 3500 * US, 4500 * US};
    static const cycles_t classic[] = {500 * US, 23500 * US, 4500 * US};
    struct scenario s;
    struct analysis_result r;
    uint32_t sensor, spin;
    (void)state;
    scnload_must(DATA "equal_turns.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 3);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, 3);
    sensor = scenario_find_thread(&s, "sensor");
    spin = scenario_find_thread(&s, "spin");
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_int_equal(r.threads[sensor].n_terms, 3);
    assert_int_equal(r.threads[sensor].terms[1].thread, spin);
    assert_int_equal(r.threads[sensor].terms[1].cycles, 2 * MS);
    assert_string_equal(r.threads[sensor].terms[1].text, "spin (round-robin turns)");
    analysis_release(&r);
    assert_int_equal(analysis_run(&s, SCHED_CLASSIC, &r), 0);
    assert_int_equal(r.threads[sensor].terms[1].thread, spin);
    assert_int_equal(r.threads[sensor].terms[1].cycles, 20 * MS);
    assert_string_equal(r.threads[sensor].terms[1].text, "spin (tick round-robin turns)");
    analysis_release(&r);
    scenario_release(&s);
}

/* ppc_passive.yaml, zero kernel costs (E = 0), round-robin contexts
 * (never throttled), docs/analysis.md "Protected procedures": srv (prio
 * 20) and db (25) are passive PDs serving protected procedures; srv's
 * request is its longest handler, 2ms (badge 0; badge 1's is 1ms), plus
 * its nested call to db, 0.5ms: r = 2.5ms, for either badge; srv's
 * notified handler never runs (nothing signals srv_n). Devices every 10ms
 * (hi, from 3.5ms) and 20ms (lo).
 *  - hi (15): W = 1ms + 2.5ms = 3.5ms, level 15 (the servers are above);
 *    lo's request runs at 20 above it: the one in progress when the
 *    window starts, 2.5ms. w = 3.5 + 2.5 = 6ms.
 *  - lo (5): W = 3 + 2.5 = 5.5ms; hi calls, so no critical instant: hi's
 *    demand min(eta(w) + 2, eta(w + R_hi)) 3.5ms with R_hi = 6ms: 5.5 ->
 *    eta(11.5) = 2: 12.5 -> eta(18.5) = 2: 12.5ms; delta(2) = 20ms >=
 *    12.5ms: one job in the window.
 *  - srv, db: each run of a protected handler is a job inside its
 *    caller's (released at the call, ended before the reply), after the
 *    caller's compute before the call and before its compute after it:
 *    the worst caller's bound less its least compute, max(hi 6 - 1, lo
 *    12.5 - 3) = 9.5ms (db is reached by both through srv).
 * Observed: lo calls srv at 3ms (badge 1, 1ms), hi arrives at 3.5ms and
 * waits for it until 4ms, then 1ms and srv + db 2.5ms: 4ms; lo 7.5ms. */
static void test_ppc_passive(void **state)
{
    static const char *const names[] = {"db", "srv", "hi", "lo"};
    static const cycles_t bounds[] = {9500 * US, 9500 * US, 6 * MS, 12500 * US};
    (void)state;
    ancheck_file_both(DATA "ppc_passive.yaml", names, bounds, 4);
}

/* ppc_twice.yaml, zero kernel costs (E = 0), round-robin contexts (never
 * throttled), docs/analysis.md "Protected procedures": p (prio 30), a
 * passive PD, calls the passive server s (40, 300us) twice in its
 * protected handler (500us): a request to p is r = 0.5 + 2 x 0.3 =
 * 1.1ms on the caller's context (each call runs s's request). hi (20,
 * every 10ms) computes 1ms then calls p; lo (10, every 20ms) computes 2ms
 * then calls p.
 *  - hi: W = 1 + 1.1 = 2.1ms at level 20 (p and s above); lo's request
 *    runs at 30: the one in progress, 1.1ms: 2.1 + 1.1 = 3.2ms.
 *  - lo: W = 2 + 1.1 = 3.1ms; hi calls, no critical instant: min(eta(w)
 *    + 2, eta(w + 3.2)) 2.1ms: 3.1 -> eta(6.3) = 1: 5.2 -> eta(8.4) = 1:
 *    5.2ms (delta(2) = 20ms).
 *  - p: its jobs inside its callers': max(3.2 - 1, 5.2 - 2) = 3.2ms; s
 *    has no jobs of its own (a recv server).
 * Before, p was "program not modelled" (a protected handler may call one
 * server once), so were hi and lo ("calls an endpoint no modelled server
 * receives on") and nothing had a bound. Observed (both released at 0):
 * hi 2.1ms, lo 5.2ms, p 1.1ms. */
static void test_ppc_twice(void **state)
{
    static const char *const names[] = {"p", "hi", "lo"};
    static const cycles_t bounds[] = {3200 * US, 3200 * US, 5200 * US};
    (void)state;
    ancheck_file_both(DATA "ppc_twice.yaml", names, bounds, 3);
}

/* ppc_tree.yaml, zero kernel costs (E = 0), round-robin contexts (never
 * throttled, so no blocking B under mcs either), docs/analysis.md "Nested
 * calls": servers that call two different servers. s3 (prio 50, 100us)
 * and s4 (45, 200us) are passive PDs; s1 (40), a passive PD, computes
 * 300us and calls s3 and s4 in its protected handler; s2 (35), a recv
 * server, computes 400us and calls s3 (so s3 is reached through s1 and
 * through s2). Requests: r(s3) = 0.1ms, r(s4) = 0.2ms, r(s1) = 0.3 + 0.1
 * + 0.2 = 0.6ms, r(s2) = 0.4 + 0.1 = 0.5ms. hi (20, every 10ms) computes
 * 1ms, calls s1 then s2; lo (10, every 20ms) computes 2ms, calls s2.
 *  - hi: W = 1 + 0.6 + 0.5 = 2.1ms at level 20 (every server above);
 *    lo's request runs at 35 or above: the one in progress, 0.5ms:
 *    w = 2.1 + 0.5 = 2.6ms.
 *  - lo: W = 2 + 0.5 = 2.5ms at level 10; hi calls (no critical instant):
 *    min(eta(w) + 2, eta(w + 2.6)) x 2.1ms: 2.5 -> eta(5.1) = 1: 4.6 ->
 *    eta(7.2) = 1: 4.6ms (delta(2) = 20ms: one job).
 *  - the PDs' jobs lie inside their callers' (the worst caller's bound
 *    less its least compute): s1 and s4 are reached by hi only, 2.6 - 1 =
 *    1.6ms; s3 by hi (through s1 and s2) and lo (through s2), max(1.6,
 *    4.6 - 2) = 2.6ms. s2 has no jobs of its own (a recv server).
 * Before, s1 was "program not modelled" (a protected handler calling two
 * servers), so hi was too (it calls s1), lo had no bound (an unmodelled
 * caller of s2), nor had s3 and s4. Observed (both released at 0, both schedulers): hi 2.1ms,
 * lo 4.6ms (the bound), s1 0.6ms, s3 0.1ms, s4 0.2ms. */
static void test_ppc_tree(void **state)
{
    static const char *const names[] = {"s3", "s4", "s1", "hi", "lo"};
    static const cycles_t bounds[] = {2600 * US, 1600 * US, 1600 * US, 2600 * US, 4600 * US};
    (void)state;
    ancheck_file_both(DATA "ppc_tree.yaml", names, bounds, 5);
}

/* ppc_active.yaml, zero kernel costs (E = 0), docs/analysis.md "Active
 * servers": srv (20) has a round-robin context of its own, so hi's (15)
 * and lo's (5) calls run on it at 20; its streams are badge 0 (hi's call,
 * 2ms, after hi's 1ms), badge 1 (lo's, 1ms, after lo's 3ms) and bit 0 (the
 * tick, 1ms every 10ms). A caller's job is its own compute; srv's demand
 * (its own requests among it) is interference; a call stream's runs in a
 * window are at most its callers' jobs' calls there.
 *  - hi: W = 1ms; srv: tick min(eta(w) + 2, eta(w + 4)), badge 0 one run
 *    (its own job's call), badge 1 min(eta_lo(w) + 2, eta_lo(w + 12)) =
 *    1: w = 1 + 1 + 2 + 1 = 5ms (at w = 5 the same).
 *  - lo: W = 3ms; hi min(eta(w) + 2, eta(w + 5)) x 1ms, srv: tick, badge 0
 *    min(eta_hi(w) + 2, eta_hi(w + 5)) x 2ms (hi's jobs' calls), badge 1
 *    one: w = 3 -> 3 + 1 + 1 + 2 + 1 = 8 -> 3 + 2 + 2 + 4 + 1 = 12 -> 12ms.
 *  - srv: a run can be overtaken (signals before queued calls), so its
 *    bound is its busy period: badge 0 eta_hi(w + 4) (hi's jitter up to
 *    its call, 5 - 1), badge 1 eta_lo(w + 9), tick eta(w): 2 + 1 + 1 = 4ms.
 * Observed (seeds 1 and 2, both schedulers): srv 2ms, hi 4.5ms (its call
 * waits behind lo's request and the tick), lo 8ms. */
static void test_ppc_active(void **state)
{
    static const char *const names[] = {"srv", "hi", "lo"};
    static const cycles_t bounds[] = {4 * MS, 5 * MS, 12 * MS};
    (void)state;
    ancheck_file_both(DATA "ppc_active.yaml", names, bounds, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_message_chain),
        cmocka_unit_test(test_message_up),
        cmocka_unit_test(test_equal_turns),
        cmocka_unit_test(test_serve_two),
        cmocka_unit_test(test_ppc_passive),
        cmocka_unit_test(test_ppc_active),
        cmocka_unit_test(test_ppc_twice),
        cmocka_unit_test(test_ppc_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
