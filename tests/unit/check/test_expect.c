/*
 * Unit tests of expectation checking (cli/check/expect.h): rows written by
 * hand through the SQLite sink (tests/support/expect_fx.h), verdicts and
 * details compared exactly, with the boundaries of
 * docs/scenario-format.md (completion == deadline is met, an unfinished
 * job counts once its deadline passed); recording and printing the
 * verdicts. `budget: respected` has its own file, test_expect_budget.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "expect_fx.h"

/* ---- deadlines ---- */

static void test_expect_deadline_boundary(void **state)
{
    struct fx *f = *state;

    fx_begin(f, SCHED_MCS, 100000);
    fx_job(f, CONTROL, 1, 0, 10000, 10000); /* completion == deadline: met */
    fx_job(f, CONTROL, 2, 10000, 15000, 20000);
    fx_deadlines(f, true, "deadlines: met, threads: [control]", 1, CONTROL);
    fx_eval(f);
    assert_verdict(f, 0, "PASS", "none of 2 jobs of control missed");

    fx_job(f, CONTROL, 3, 20000, 30001, 30000); /* one cycle late */
    fx_job(f, CONTROL, 4, 30000, 45000, 40000);
    fx_count(f, EV_DEADLINE_MISS, CONTROL, SCN_NONE, "count: deadline_miss of control");
    fx_eval(f);
    assert_verdict(f, 0, "FAIL",
                   "2 of 4 jobs of control missed; first: job 3 of control released at 20us "
                   "finished 30.001us, deadline 30us");
    assert_verdict(f, 1, "PASS", "deadline_miss of control: 2 (no bound)");
    fx_end(f);
}

/* An unfinished job counts as missed once its deadline passed, even when
 * the engine's missed flag says 0; a deadline at exactly `duration` has
 * not passed. */
static void test_expect_unfinished(void **state)
{
    struct fx *f = *state;

    fx_begin(f, SCHED_MCS, 100000);
    fx_job(f, LOGGER, 1, 90000, SINK_NO_TIME, 95000);
    fx_job(f, CONTROL, 1, 90000, SINK_NO_TIME, 100000);
    fx_deadlines(f, true, "control met", 1, CONTROL);
    fx_deadlines(f, true, "logger met", 1, LOGGER);
    fx_deadlines(f, false, "logger missed", 1, LOGGER);
    fx_count(f, EV_DEADLINE_MISS, 0, SCN_NONE, "deadline misses");
    fx_count(f, EV_JOB, 0, SCN_NONE, "jobs");
    fx_eval(f);
    assert_verdict(f, 0, "PASS", "none of 1 jobs of control missed");
    assert_verdict(f, 1, "FAIL",
                   "1 of 1 jobs of logger missed; first: job 1 of logger released at 90us "
                   "unfinished, deadline 95us");
    assert_verdict(f, 2, "PASS",
                   "1 of 1 jobs of logger missed; first: job 1 of logger released at 90us "
                   "unfinished, deadline 95us");
    assert_verdict(f, 3, "PASS", "deadline_miss: 1 (no bound)");
    assert_verdict(f, 4, "PASS", "job: 2 (no bound)");
    fx_end(f);
}

static void test_expect_deadline_sets(void **state)
{
    struct fx *f = *state;

    fx_begin(f, SCHED_MCS, 100000);
    fx_job(f, CONTROL, 1, 0, 1000, 10000);
    fx_job(f, NET_DRIVER, 1, 0, 2000, 10000);
    fx_job(f, LOGGER, 1, 0, 4000, 5000);
    fx_job(f, LOGGER, 2, 5000, 12000, 10000);
    fx_deadlines(f, true, "deadlines: met, criticality: hi", 0)->criticality = 1;
    fx_deadlines(f, true, "deadlines: met, criticality: lo", 0)->criticality = 0;
    fx_deadlines(f, true, "deadlines: met", 0);
    fx_deadlines(f, false, "deadlines: missed, threads: [logger]", 1, LOGGER);
    fx_deadlines(f, false, "deadlines: missed, threads: [control, net_driver]", 2, CONTROL,
                 NET_DRIVER);
    fx_deadlines(f, true, "deadlines: met, threads: [server]", 1, SERVER);
    fx_eval(f);
    assert_verdict(f, 0, "PASS", "none of 2 jobs of threads of criticality hi or above missed");
    assert_verdict(f, 1, "FAIL",
                   "1 of 4 jobs of threads of criticality lo or above missed; first: job 2 of"
                   " logger released at 5us finished 12us, deadline 10us");
    assert_verdict(f, 2, "FAIL",
                   "1 of 4 jobs of all threads missed; first: job 2 of logger released at 5us "
                   "finished 12us, deadline 10us");
    assert_verdict(f, 3, "PASS",
                   "1 of 2 jobs of logger missed; first: job 2 of logger released at 5us finished "
                   "12us, deadline 10us");
    assert_verdict(f, 4, "FAIL", "none of 2 jobs of control, net_driver missed");
    assert_verdict(f, 5, "PASS", "no jobs of server");
    fx_end(f);
}

/* ---- max_response ---- */

static struct scn_expect *fx_response(struct fx *f, uint32_t thread, cycles_t limit)
{
    struct scn_expect *e = fx_expect(f, EXPECT_MAX_RESPONSE, "max_response");

    e->thread = thread - 1;
    e->at_most_time = limit;
    return e;
}

static void test_expect_max_response(void **state)
{
    struct fx *f = *state;

    fx_begin(f, SCHED_MCS, 100000000);
    fx_job(f, CONTROL, 1, 0, 3200000, 10000000);
    fx_job(f, CONTROL, 2, 10000000, 12000000, 20000000);
    fx_job(f, LOGGER, 1, 95000000, SINK_NO_TIME, 100000000);
    fx_response(f, CONTROL, 4000000);
    fx_response(f, CONTROL, 3200000);
    fx_response(f, CONTROL, 3199999);
    fx_response(f, LOGGER, 4000000);
    fx_response(f, LOGGER, 5000000);
    fx_response(f, SERVER, 1000);
    fx_eval(f);
    assert_verdict(f, 0, "PASS", "worst response of control 3.2ms (job 1) <= 4ms");
    assert_verdict(f, 1, "PASS", "worst response of control 3.2ms (job 1) <= 3.2ms");
    assert_verdict(f, 2, "FAIL", "worst response of control 3.2ms (job 1) > 3.199999ms");
    assert_verdict(f, 3, "FAIL", "job 1 of logger unfinished after 5ms > 4ms");
    assert_verdict(f, 4, "PASS", "no finished jobs of logger");
    assert_verdict(f, 5, "PASS", "no finished jobs of server");
    fx_end(f);
}

/* ---- count ---- */

static void fx_count_rows(struct fx *f)
{
    fx_budget(f, LOGGER, LOGGER, 100, BUDGET_THROTTLE, 0);
    fx_budget(f, LOGGER, LOGGER, 5100, BUDGET_THROTTLE, 0);
    fx_budget(f, CONTROL, CONTROL, 2000, BUDGET_THROTTLE, 0);
    fx_budget(f, CONTROL, CONTROL, 10000, BUDGET_REPLENISH, 2000);
    fx_budget(f, SERVER, CONTROL, 1500, BUDGET_EXHAUSTED, 2000);
    fx_budget(f, SERVER, CONTROL, 1500, BUDGET_TIMEOUT_FAULT, 2000);
    fx_budget(f, SERVER, CONTROL, 1600, BUDGET_EMERGENCY, 500);
    for (int i = 0; i < 3; i++)
        fx_event(f, "preempt", CONTROL, 100 + (cycles_t)i);
    fx_event(f, "preempt", LOGGER, 200);
    fx_event(f, "call_aborted", CONTROL, 300);
    fx_event(f, "switch", CONTROL, 400);
    for (int i = 0; i < 3; i++)
        fx_irq(f, NET, 1000 * (cycles_t)i, 1000 * (cycles_t)i + 10, false);
    fx_irq(f, NET, 1500, SINK_NO_TIME, true);
    fx_irq(f, NET, 2500, SINK_NO_TIME, false); /* pending at the end: neither */
    fx_irq(f, DISK, 50, 60, false);
    fx_irq(f, DISK, 70, 80, false);
}

static void test_expect_counts(void **state)
{
    struct fx *f = *state;

    fx_begin(f, SCHED_MCS, 100000);
    fx_count_rows(f);
    at_least(fx_count(f, EV_THROTTLE, LOGGER, SCN_NONE, "t0"), 1);
    at_most(fx_count(f, EV_THROTTLE, 0, SCN_NONE, "t1"), 2);
    at_most(fx_count(f, EV_TIMEOUT_FAULT, SERVER, SCN_NONE, "t2"), 0);
    at_most(fx_count(f, EV_TIMEOUT_FAULT, CONTROL, SCN_NONE, "t3"), 0);
    struct scn_expect *e = fx_count(f, EV_EMERGENCY, SERVER, SCN_NONE, "t4");
    at_least(e, 1);
    at_most(e, 1);
    at_least(fx_count(f, EV_PREEMPT, CONTROL, SCN_NONE, "t5"), 4);
    at_most(fx_count(f, EV_CALL_ABORTED, CONTROL, SCN_NONE, "t6"), 1);
    at_least(fx_count(f, EV_IRQ, 0, NET, "t7"), 3);
    at_most(fx_count(f, EV_IRQ_LOST, 0, NET, "t8"), 0);
    at_least(fx_count(f, EV_IRQ, 0, SCN_NONE, "t9"), 1);
    at_least(fx_count(f, EV_IRQ, NET_DRIVER, SCN_NONE, "t10"), 1);
    at_most(fx_count(f, EV_IRQ, CONTROL, SCN_NONE, "t11"), 0);
    fx_count(f, EV_IRQ_LOST, NET_DRIVER, NET, "t12");
    fx_count(f, EV_IRQ, NET_DRIVER, DISK, "t13");
    fx_count(f, EV_REPLENISH, 0, SCN_NONE, "t14");
    fx_eval(f);
    assert_verdict(f, 0, "PASS", "throttle of logger: 2 (at least 1)");
    assert_verdict(f, 1, "FAIL", "throttle: 3 (at most 2)");
    assert_verdict(f, 2, "FAIL", "timeout_fault of server: 1 (at most 0)");
    assert_verdict(f, 3, "PASS", "timeout_fault of control: 0 (at most 0)");
    assert_verdict(f, 4, "PASS", "emergency of server: 1 (between 1 and 1)");
    assert_verdict(f, 5, "FAIL", "preempt of control: 3 (at least 4)");
    assert_verdict(f, 6, "PASS", "call_aborted of control: 1 (at most 1)");
    assert_verdict(f, 7, "PASS", "irq of net: 3 (at least 3)");
    assert_verdict(f, 8, "FAIL", "irq_lost of net: 1 (at most 0)");
    assert_verdict(f, 9, "PASS", "irq: 5 (at least 1)");
    assert_verdict(f, 10, "PASS", "irq waking net_driver: 3 (at least 1)");
    assert_verdict(f, 11, "PASS", "irq waking control: 0 (at most 0)");
    assert_verdict(f, 12, "PASS", "irq_lost of net waking net_driver: 1 (no bound)");
    assert_verdict(f, 13, "PASS", "irq of disk waking net_driver: 0 (no bound)");
    assert_verdict(f, 14, "PASS", "replenish: 1 (no bound)");
    fx_end(f);
}

/* ---- applicability ---- */

static void test_expect_not_applicable(void **state)
{
    struct fx *f = *state;

    fx_begin(f, SCHED_CLASSIC, 100000);
    fx_job(f, CONTROL, 1, 0, 12000, 10000);
    fx_deadlines(f, true, "{deadlines: met, threads: [control], scheduler: mcs}", 1, CONTROL)
        ->scheduler = SCHED_MCS;
    fx_deadlines(f, false, "{deadlines: missed, threads: [control], scheduler: classic}", 1,
                 CONTROL)
        ->scheduler = SCHED_CLASSIC;
    fx_expect(f, EXPECT_BUDGET_RESPECTED, "budget: respected");
    fx_eval(f);
    assert_verdict(f, 0, "N/A", "checked only under mcs; this run used classic");
    assert_verdict(f, 1, "PASS",
                   "1 of 1 jobs of control missed; first: job 1 of control released at 0 finished "
                   "12us, deadline 10us");
    assert_verdict(f, 2, "N/A", "no scheduling contexts under classic");
    assert_true(f->results[0].passed);
    assert_int_equal(expect_failures(&f->s, f->results), 0);
    fx_end(f);
}


/* ---- recording, printing, errors ---- */

/* ---- recording, printing, errors ---- */

static void test_expect_record_and_print(void **state)
{
    struct fx *f = *state;
    char err[512], line[512];
    FILE *out = tmpfile();

    fx_begin(f, SCHED_CLASSIC, 100000);
    fx_job(f, CONTROL, 1, 0, 12000, 10000);
    fx_deadlines(f, true, "deadlines: met, threads: [control]", 1, CONTROL);
    fx_deadlines(f, true, "deadlines: met, scheduler: mcs", 0)->scheduler = SCHED_MCS;
    at_least(fx_count(f, EV_JOB, CONTROL, SCN_NONE, "count: {event: job, at_least: 1}"), 1);
    fx_eval(f);
    assert_int_equal(expect_failures(&f->s, f->results), 1);
    for (int i = 0; i < 2; i++) /* twice: recording again replaces */
        assert_int_equal(
            expect_record(db_sqlite(f->db), db_run_id(f->db), &f->s, f->results, err, sizeof err),
            0);
    assert_int_equal(f->k.ops->run_end(f->k.self, true), 0);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_sqlite(f->db),
                                        "SELECT group_concat(idx || '|' || passed || '|' ||"
                                        " applicable || '|' || text || '|' || detail, '\n')"
                                        " FROM expectations WHERE run_id = 1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0),
                        "0|0|1|deadlines: met, threads: [control]|1 of 1 jobs of control missed;"
                        " first: job 1 of control released at 0 finished 12us, deadline 10us\n"
                        "1|1|0|deadlines: met, scheduler: mcs|checked only under mcs; this run"
                        " used classic\n"
                        "2|1|1|count: {event: job, at_least: 1}|job of control: 1 (at least 1)");
    sqlite3_finalize(st);

    expect_print(out, &f->s, f->results);
    rewind(out);
    assert_non_null(fgets(line, sizeof line, out));
    assert_string_equal(line, "FAIL  deadlines: met, threads: [control]  (1 of 1 jobs of control missed; "
                              "first: job 1 of control released at 0 finished 12us, deadline 10us)\n");
    assert_non_null(fgets(line, sizeof line, out));
    assert_string_equal(line, "N/A   deadlines: met, scheduler: mcs  (checked only under mcs;"
                              " this run used classic)\n");
    assert_non_null(fgets(line, sizeof line, out));
    assert_string_equal(line, "PASS  count: {event: job, at_least: 1}  (job of control: 1 (at"
                              " least 1))\n");
    assert_null(fgets(line, sizeof line, out));
    fclose(out);
    fx_end(f);
}

static void test_expect_errors(void **state)
{
    struct fx *f = *state;
    char err[512];

    fx_begin(f, SCHED_MCS, 100000);
    fx_budget_expect(f);
    assert_int_equal(
        expect_evaluate(db_sqlite(f->db), 42, &f->s, ALLOWANCE, f->results, err, sizeof err), -1);
    assert_string_equal(err, "mcsim: DB: no run 42");
    fx_end(f);
}

static void test_expect_entry_allowance(void **state)
{
    struct scn_costs c = {.entry = 120,
                          .exit = 100,
                          .syscall = 80,
                          .ipc = 150,
                          .schedule = 120,
                          .timer_program = 250,
                          .irq = 100,
                          .tick = 90};

    (void)state;
    assert_int_equal(expect_entry_allowance(&c), 120 + 80 + 2 * 150 + 120 + 250 + 100);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
    const struct CMUnitTest tests[] = {
        T(test_expect_deadline_boundary),
        T(test_expect_unfinished),
        T(test_expect_deadline_sets),
        T(test_expect_max_response),
        T(test_expect_counts),
        T(test_expect_not_applicable),
        T(test_expect_record_and_print),
        T(test_expect_errors),
        T(test_expect_entry_allowance),
    };
#undef T

    return cmocka_run_group_tests(tests, NULL, NULL);
}
