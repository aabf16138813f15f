/*
 * cli/analysis: blocking sends, background senders and the own jobs of
 * background loops that call or send (docs/analysis.md, "Blocking sends",
 * "Background senders", "Background threads"), on
 * small scenarios of tests/data/analysis/ whose bounds are computed by
 * hand below and asserted exactly, and simulated: every observed worst
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

/* The term of thread `name`'s bound whose text starts with `text`. */
static const struct analysis_term *term_of(const struct scenario *s, const struct analysis_result *r,
                                           const char *name, const char *text)
{
    const struct analysis_thread *t = &r->threads[scenario_find_thread(s, name)];
    for (uint32_t k = 0; k < t->n_terms; k++)
        if (strncmp(t->terms[k].text, text, strlen(text)) == 0)
            return &t->terms[k];
    fail_msg("%s has no term \"%s...\"", name, text);
    return NULL;
}

/* send_down.yaml, zero kernel costs, round-robin contexts. producer (prio
 * 20): a burst of 2 interrupts 1ms apart every 20ms (eta(d) = 1 up to 1ms,
 * 2 up to 20ms; delta(2) = 1ms, delta(3) = 20ms), job 1ms, send to
 * consumer, 0.5ms: W = 1.5ms. consumer (prio 10): recv, 3ms.
 *  - producer's wait for the take: consumer is below, so one job of it at
 *    its level with producer left out (blocked in its send): 3ms, nothing
 *    else runs there. Its blocking per job is 3ms; a blocking sender never
 *    has the critical instant (nothing interferes at 20 anyway).
 *    w(1) = 1.5 + 3 = 4.5ms > delta(2) = 1ms: w(2) = 9ms, bound 9 - 1 =
 *    8ms; delta(3) = 20ms >= 9ms: the window ends. R = max(4.5, 8) = 8ms
 *    (the two-job bound is 9ms).
 *  - consumer: released at the sends, producer's arrivals delayed by at
 *    most R_producer - 1ms (its least compute before the send) = 7ms:
 *    delta(2) = 0, delta(3) = 13ms. producer is not a critical-instant
 *    interferer (it suspends): min(eta(w) + 2, eta(w + 8ms)) x 1.5ms.
 *    w(1) = 3 + 1.5 min(4, eta(11) = 2) = 6 -> eta(14) = 2: 6ms;
 *    w(2) = 6 + 1.5 x 2 = 9 -> eta(17) = 2: 9ms, bound 9 - 0 = 9ms;
 *    delta(3) = 13ms >= 9ms: the window ends. R = 9ms.
 * The run: burst at 0 and 1ms; producer's job 1 sends at 1ms (consumer
 * waits: taken at once), ends at 1.5ms; job 2 (released at 1ms) sends at
 * 2.5ms, waits for consumer's job 1 (2.5 .. 5.5ms), ends at 6ms: 5ms;
 * consumer's job 2, released at 2.5ms, runs 6 .. 9ms: 6.5ms.
 * Classic the same. */
static void test_send_down(void **state)
{
    static const char *const names[] = {"producer", "consumer"};
    static const cycles_t bounds[] = {8 * MS, 9 * MS};
    struct scenario s;
    struct analysis_result r;
    const struct analysis_term *m;
    (void)state;
    scnload_must(DATA "send_down.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, bounds, 2);
    ancheck_bounds(&s, SCHED_CLASSIC, names, bounds, 2);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    /* two jobs' waits of 3ms each, named after the receiver */
    m = term_of(&s, &r, "producer", "waiting for consumer to take its message");
    assert_int_equal(m->kind, TERM_BLOCKING);
    assert_int_equal(m->thread, scenario_find_thread(&s, "consumer"));
    assert_int_equal(m->cycles, 6 * MS);
    analysis_release(&r);
    scenario_release(&s);
}

/* send_up.yaml, zero kernel costs, round-robin contexts: client (1ms
 * every 10ms, prio 10) ends its job with a blocking send to logger (0.5ms,
 * prio 20). logger is above client, calls nothing, sends nothing and its
 * context never runs out: whenever client runs, logger waits in its
 * receive, so the send never waits (blocking 0). Passes, highest first:
 *  1. logger: client has no bound yet: two-job bound 2 x 0.5 = 1ms.
 *     client (no critical instant: it suspends): logger runs at most 2 +
 *     1 jobs in its window: w = 1 + 1.5 = 2.5ms.
 *  2. logger: shift 2.5 - 1 = 1.5ms, w(1) = 0.5ms <= delta(2) = 8.5ms:
 *     0.5ms. client: logger's min(3, eta(w + 0.5ms)) = 1 job: 1.5ms.
 *  3. the same.
 * Both the observed worst (logger preempts client at its send). */
static void test_send_up(void **state)
{
    static const char *const names[] = {"logger", "client"};
    static const cycles_t bounds[] = {500 * US, 1500 * US};
    (void)state;
    ancheck_file_both(DATA "send_up.yaml", names, bounds, 2);
}

/* bg_send.yaml, zero kernel costs: feeder (prio 20, budget 2ms/10ms,
 * constant bandwidth) is one loop [compute 1ms; signal tick_n], always
 * ready; handler (prio 10, 3ms) waits on tick_n; logger (prio 5, 1ms
 * every 60ms) is a device thread. feeder's signals: l_t = l_s = 1ms (no
 * kernel costs), S(d) = ceil(d / 10ms) 2ms, so eta(d) = min(ceil(d /
 * 1ms), 2 ceil(d / 10ms) + 1) and delta(2) = 1ms, delta(3) = 2ms, delta(4)
 * = delta(5) = 10ms + 1 cycle, delta(6) = 20ms + 1 cycle.
 *  - handler (mcs): feeder interferes by its budget, 2 ceil(w / 10ms)
 *    (an always-ready thread: no critical instant). Two-job bound: 6 +
 *    2 = 8ms. Busy window: w(1) = 5, w(2) = 8 (bound 7), w(3) = 9 + 4 =
 *    13 (bound 11 > 8: the two-job bound is kept). R = 8ms.
 *  - logger (mcs): w = 1 + 2 ceil(w / 10) + 3 min(eta(w) + 2, eta(w +
 *    8ms)): 1 -> 1 + 2 + 3 x 3 = 12 -> 1 + 4 + 3 x 5 = 20 -> 1 + 4 + 21 =
 *    26 -> 1 + 6 + 27 = 34 -> 1 + 8 + 33 = 42 -> 1 + 10 + 33 = 44 -> 1 +
 *    10 + 39 = 50 -> 50ms (feeder 10ms, handler 13 jobs).
 *  - classic: nothing bounds feeder's CPU time, so nothing below it is
 *    bounded (its rate alone would bound handler's arrivals). */
static void test_bg_send(void **state)
{
    static const char *const names[] = {"handler", "logger"};
    static const cycles_t mcs[] = {8 * MS, 50 * MS};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    scnload_must(DATA "bg_send.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 2);
    /* classic: handler and logger starve (feeder never blocks) */
    assert_int_equal(analysis_run(&s, SCHED_CLASSIC, &r), 0);
    for (uint32_t k = 0; k < 2; k++)
        assert_int_equal(r.threads[scenario_find_thread(&s, names[k])].bound, ANALYSIS_NO_BOUND);
    analysis_release(&r);
    scenario_release(&s);
}

/* bg_call.yaml, zero kernel costs (E = 0), MIN_BUDGET 10us. bg (prio
 * 100, 3ms / 10ms constant bandwidth) is loop [job [compute 1ms; call
 * table]]: store (prio 150) 400us, so W = 1.4ms at level 100. A job is
 * released when its job step begins, nothing else of its own pending.
 *  - ctl (prio 120, round robin, 1ms every 10ms): bg's and lo's requests
 *    reach 150 (one in progress each: ctl waits on no idle CPU): 1 + 0.4 +
 *    0.4 = 1.8ms <= delta(2): R = 1.8ms, both schedulers.
 *  - bg, mcs: lo (1.5ms / 2ms) may run out inside store, which has no
 *    timeout handler: B = r + Theta_lo(r), the phase bound (docs/
 *    analysis.md, "Own throttling"): Theta_lo(0.4) = (3 + 2 floor(0.4 /
 *    (1.5 - 0.01))) (2 - 1.5) = 1.5ms: B = 1.9ms, and the CPU may idle. Own
 *    throttling: Theta(1.4) = (3 + 2 floor(1.4 / 2.99)) x (10 - 3) = 21ms, nothing added for
 *    preemption or waits. So w = 1.4 + 1.9 + 21 + I(w), I(w) = ctl's
 *    min(eta(w) + 2, eta(w + 1.8)) x 1ms + lo's requests (eta_lo(w) + 2) x
 *    0.4ms (the CPU may idle): 24.3 -> 24.3 + 3 + 1.6 = 28.9 -> 24.3 + 4 +
 *    1.6 = 29.9 -> 29.9ms. (The earlier episodes, 2 of 2T - b + m + E per
 *    context, with the window's preemption and B again as refill delays,
 *    gave B = 5.44ms, throttling 60.28ms and 77.52ms.)
 *  - bg, classic: no budgets, no blocking (queued requests are
 *    interference), no idle CPU: w = 1.4 + ctl + 0.4 (lo's request in
 *    progress): 1.8 -> 2.8 -> 2.8ms (ctl: eta(4.6ms) = 1 job).
 * The run: ctl 0 .. 1ms, bg 1 .. 2.4ms: 2.4ms under classic; under mcs bg
 * is throttled every period (8.8ms). */
static void test_bg_call(void **state)
{
    static const char *const names[] = {"ctl", "bg"};
    static const cycles_t mcs[] = {1800 * US, 29900 * US}, classic[] = {1800 * US, 2800 * US};
    struct scenario s;
    struct analysis_result r;
    const struct analysis_term *m;
    (void)state;
    scnload_must(DATA "bg_call.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 2);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, 2);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_int_equal(r.threads[scenario_find_thread(&s, "bg")].work, 1400 * US);
    m = term_of(&s, &r, "bg", "waiting in servers behind lo");
    assert_int_equal(m->cycles, 1900 * US);
    /* three phases of 7ms: no refill delays added */
    m = term_of(&s, &r, "bg", "throttled (own budget 3ms/10ms)");
    assert_int_equal(m->cycles, 21 * MS);
    analysis_release(&r);
    scenario_release(&s);
}

/* bg_call_send.yaml, zero kernel costs: feeder (prio 20, 2ms / 10ms
 * constant bandwidth) is loop [job [compute 500-600us; call table;
 * signal tick_n]], store 300-400us; handler (prio 10, 1ms) waits on
 * tick_n; logger (prio 5, 1ms every 60ms). feeder's signals: one
 * iteration between two, at least l_t = l_s = 0.5 + 0.3 = 0.8ms (the
 * server's least compute runs on and is charged to feeder's context):
 * eta(d) = min(ceil(d / 0.8ms), floor(2 ceil(d / 10ms) / 0.8ms) + 1),
 * delta(2) = 0.8ms, delta(3) = 1.6ms, delta(4) = 10ms + 1 cycle.
 *  - feeder, its own job (mcs): W = 0.6 + 0.4 = 1ms at level 20, nothing
 *    above, no other client of store; the phase bound Theta(1) = (3 + 2
 *    floor(1 / (2 - MIN_BUDGET))) x (10 - 2) = 24ms: 25ms (the earlier episodes: 2 x (20
 *    - 2 + 0.02) = 36.04ms, 37.04ms). classic: 1ms.
 *  - handler (mcs): feeder interferes by its budget, 2 ceil(w / 10ms).
 *    Busy window: w(1) = 3, w(2) = 4 (bound 3.2), w(3) = 5 (bound 3.4),
 *    5 <= delta(4): R = 3.4ms (the two-job bound is 4ms).
 *  - logger (mcs): w = 1 + 2 ceil(w / 10) + min(eta_h(w) + 2, eta_h(w +
 *    3.4ms)) x 1ms: 1 -> 1 + 2 + 3 = 6 -> 6ms.
 *  - classic: nothing bounds feeder's CPU time: handler and logger have no
 *    bound. */
static void test_bg_call_send(void **state)
{
    static const char *const names[] = {"feeder", "handler", "logger"};
    static const cycles_t mcs[] = {25 * MS, 3400 * US, 6 * MS}, classic[] = {1 * MS};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    scnload_must(DATA "bg_call_send.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 3);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, 1);
    assert_int_equal(analysis_run(&s, SCHED_CLASSIC, &r), 0);
    for (uint32_t k = 1; k < 3; k++) {
        /* the reason names the background interferer as such (its own
         * jobs are bounded: not "program not modelled") */
        const struct analysis_thread *t = &r.threads[scenario_find_thread(&s, names[k])];
        assert_int_equal(t->bound, ANALYSIS_NO_BOUND);
        assert_string_equal(t->reason, "overload: nothing bounds the interference of feeder (a "
                                       "background loop: always ready): classic scheduling limits "
                                       "it by no budget");
    }
    analysis_release(&r);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_down),
        cmocka_unit_test(test_send_up),
        cmocka_unit_test(test_bg_send),
        cmocka_unit_test(test_bg_call),
        cmocka_unit_test(test_bg_call_send),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
