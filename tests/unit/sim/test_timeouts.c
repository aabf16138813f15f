/*
 * handle_timeouts end to end (sim/timeouts.c, sim/inherit.c): scenarios run
 * by the `mcsim` binary (MCSIM_BIN, set by CTest), their databases read
 * with SQLite. The exact cases have every kernel cost 0, so that their
 * schedules are the ideal ones and are written out in full; the example
 * scenario runs with the default costs and is checked for its structure.
 *
 * The exact cases share the shape of scenarios/server_exhausts_*.yaml:
 * thread 1 `db` (passive) serves `query`; thread 3 `batch` computes 1ms
 * from 0 and calls, and its 1.5ms budget runs out 0.5ms into db's 1ms of
 * work, at 1.5ms; thread 2 `sensor` is woken at 1.2ms and calls; thread 4
 * `guard` handles db's timeout faults.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define EXAMPLE MCSIM_SOURCE_DIR "/scenarios/server_exhausts_inherit.yaml"

#define ZERO_COSTS                                                                                 \
    "platform: {kernel_costs: {entry: 0, exit: 0, syscall: 0, ipc: 0, schedule: 0,"                \
    " timer_program: 0, irq: 0, tick: 0}}\n"

#define SLICES                                                                                     \
    "SELECT thread_id, sc_thread_id, start_time, end_time FROM slices ORDER BY start_time"
#define BUDGET_EVENTS                                                                              \
    "SELECT thread_id, sc_thread_id, time, kind, amount FROM budget_events ORDER BY time, seq"
#define JOBS                                                                                       \
    "SELECT thread_id, job, release_time, finish_time, missed FROM jobs"                           \
    " ORDER BY thread_id, job"
#define ABORTED "SELECT time, thread_id FROM events WHERE kind = 'call_aborted' ORDER BY seq"

static int setup(void **state)
{
    (void)state;
    return workdir_create("timeouts");
}

/* Fail unless the rows of `sql` in workdir/db are `expected`. */
static void rows_are(const char *db, const char *sql, const char *expected)
{
    sqlq_assert_path_rows(workdir_file(db), sql, expected);
}

/* Run workdir/file into workdir/db; the scenarios have no expectations,
 * so anything but 0 is a failure. */
static void run(const char *file, const char *db, const char *scheduler)
{
    int status = spawn_mcsim("run", file, "-o", db, "--scheduler", scheduler, "--quiet", NULL);

    if (status != 0)
        fail_msg("mcsim run %s: exit status %d\n%s%s", file, status, spawn_out, spawn_err);
}

/*
 * The common shape, 20ms long: db at `db_prio`, sensor with `sensor_budget`
 * per 10ms, batch's context sporadic (its budget comes back in one piece
 * each period, see the example's description), and `action` for guard at
 * `guard_prio`, or no handler at all when `action` is NULL. Written to
 * workdir/file.
 */
static void write_server(const char *file, unsigned db_prio, const char *sensor_budget,
                         const char *action, unsigned guard_prio)
{
    char text[4096];

    snprintf(text, sizeof text,
             "mcsim: 1\n"
             "name: timeouts-case\n"
             "duration: 20ms\n" ZERO_COSTS "endpoints: [query%s]\n"
             "notifications: [batch_go, sensor_go]\n"
             "devices:\n"
             "  batch_timer: {irq: 20, notification: batch_go, arrivals: {periodic: 10ms}}\n"
             "  sensor_dev: {irq: 21, notification: sensor_go, arrivals: {periodic: 10ms},"
             " offset: 1.2ms}\n"
             "threads:\n"
             "  db: {priority: %u, criticality: hi, passive: true%s,\n"
             "       program: [{recv: query}, {loop: [{compute: 1ms}, {reply_recv: query}]}]}\n"
             "  sensor: {priority: 150, criticality: hi, budget: %s, period: 10ms, deadline: 4ms,\n"
             "           program: [{loop: [{wait: sensor_go}, {job: [{call: query},"
             " {compute: 200us}]}, {irq_ack: sensor_dev}]}]}\n"
             "  batch: {priority: 100, criticality: lo, budget: 1.5ms, period: 10ms,"
             " sporadic: true,\n"
             "          program: [{loop: [{wait: batch_go}, {job: [{compute: 1ms},"
             " {call: query}]}, {irq_ack: batch_timer}]}]}\n"
             "%s",
             action ? ", faults" : "", db_prio, action ? ", timeout_endpoint: faults" : "",
             sensor_budget, "");
    if (action) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof text - n,
                 "  guard: {priority: %u, criticality: hi, budget: 1ms, period: 10ms,\n"
                 "          program: [{handle_timeouts: {endpoint: faults, action: %s}}]}\n",
                 guard_prio, action);
    }
    workdir_write(file, text);
}

/* ------------------------------------------------------------- the tests */

/* The rows of test_timeouts_inherit_lends_queued_client in workdir/db. */
static void check_lend(const char *db)
{
    rows_are(db, SLICES,
             "3|3|0|1000000\n"
             "1|3|1000000|1200000\n"
             "1|3|1200000|1500000\n"
             "1|2|1500000|2000000\n"
             "1|2|2000000|3000000\n"
             "2|2|3000000|3200000\n"
             "3|3|10000000|11000000\n"
             "1|3|11000000|11200000\n"
             "1|3|11200000|11500000\n"
             "1|2|11500000|12000000\n"
             "1|2|12000000|13000000\n"
             "2|2|13000000|13200000\n");
    rows_are(db, BUDGET_EVENTS,
             "1|3|1500000|exhausted|300000\n"
             "1|3|1500000|timeout_fault|1500000\n"
             "3|3|2000000|throttle|0\n"
             "3|3|10000000|replenish|1500000\n"
             "1|3|11500000|exhausted|300000\n"
             "1|3|11500000|timeout_fault|1500000\n"
             "3|3|12000000|throttle|0\n");
    rows_are(db, JOBS,
             "2|1|1200000|3200000|0\n"
             "2|2|11200000|13200000|0\n"
             "3|1|0|10000000|0\n"
             "3|2|10000000|NULL|0\n");
    rows_are(db, ABORTED, "");
}

/*
 * sensor (150, above db) is queued when batch's context runs out: db
 * finishes batch's request on sensor's context, [1.5, 2.0) charged to
 * sensor; batch's call returns normally (no call_aborted) and batch, its
 * own context empty, finishes its job at its refill (10ms, met); db then
 * takes sensor's call on sensor's context, [2.0, 3.0). The same in the
 * second period, and the same with the handler above the server (250) or
 * below it (110).
 */
static void test_timeouts_inherit_lends_queued_client(void **state)
{
    static const unsigned guard_prios[] = {250, 110};

    (void)state;
    for (size_t i = 0; i < sizeof guard_prios / sizeof guard_prios[0]; i++) {
        write_server("lend.yaml", 120, "3ms", "inherit", guard_prios[i]);
        run("lend.yaml", "lend.db", "mcs");
        check_lend("lend.db");
        workdir_clear();
    }
}

/*
 * Three clients queue while db serves batch: c1 (150) at 1.1ms, c2 (160)
 * at 1.2ms, c3 (160) at 1.3ms. The context lent is the one the kernel's
 * queue order puts first, c2's (highest priority, then earliest); db then
 * serves them in that order: c2, c3, c1.
 */
static void test_timeouts_inherit_picks_queue_order(void **state)
{
    (void)state;
    workdir_write(
        "order.yaml",
        "mcsim: 1\n"
        "name: inherit-order\n"
        "duration: 10ms\n" ZERO_COSTS "endpoints: [query, faults]\n"
        "notifications: [batch_go, c1_go, c2_go, c3_go]\n"
        "devices:\n"
        "  batch_timer: {irq: 20, notification: batch_go, arrivals: {at: [0]}}\n"
        "  c1_dev: {irq: 21, notification: c1_go, arrivals: {at: [1.1ms]}}\n"
        "  c2_dev: {irq: 22, notification: c2_go, arrivals: {at: [1.2ms]}}\n"
        "  c3_dev: {irq: 23, notification: c3_go, arrivals: {at: [1.3ms]}}\n"
        "threads:\n"
        "  db: {priority: 120, criticality: hi, passive: true, timeout_endpoint: faults,\n"
        "       program: [{recv: query}, {loop: [{compute: 1ms}, {reply_recv: query}]}]}\n"
        "  c1: {priority: 150, criticality: hi, budget: 3ms, period: 10ms,\n"
        "       program: [{wait: c1_go}, {job: [{call: query}]}]}\n"
        "  c2: {priority: 160, criticality: hi, budget: 3ms, period: 10ms,\n"
        "       program: [{wait: c2_go}, {job: [{call: query}]}]}\n"
        "  c3: {priority: 160, criticality: hi, budget: 3ms, period: 10ms,\n"
        "       program: [{wait: c3_go}, {job: [{call: query}]}]}\n"
        "  batch: {priority: 100, criticality: lo, budget: 1.5ms, period: 10ms,\n"
        "          program: [{wait: batch_go}, {job: [{compute: 1ms}, {call: query}]}]}\n"
        "  guard: {priority: 250, criticality: hi, budget: 1ms, period: 10ms,\n"
        "          program: [{handle_timeouts: {endpoint: faults, action: inherit}}]}\n");
    run("order.yaml", "order.db", "mcs");
    rows_are("order.db", SLICES,
             "5|5|0|1000000\n"
             "1|5|1000000|1100000\n"
             "1|5|1100000|1200000\n"
             "1|5|1200000|1300000\n"
             "1|5|1300000|1500000\n"
             "1|3|1500000|2000000\n"
             "1|3|2000000|3000000\n"
             "1|4|3000000|4000000\n"
             "1|2|4000000|5000000\n");
    rows_are("order.db", JOBS,
             "2|1|1100000|5000000|0\n"
             "3|1|1200000|3000000|0\n"
             "4|1|1300000|4000000|0\n"
             "5|1|0|NULL|0\n");
}

/*
 * db (200) above sensor: nobody is queued when the fault comes (sensor
 * cannot run before db blocks), so db waits on batch's empty context until
 * its refill at 10ms, exactly as without a handler: the two runs differ in
 * the timeout fault alone.
 */
static void test_timeouts_inherit_no_client_waits(void **state)
{
    static const char *const same[] = {
        SLICES, JOBS,
        "SELECT thread_id, sc_thread_id, time, kind, amount FROM budget_events"
        " WHERE kind != 'timeout_fault' ORDER BY time, seq"};
    (void)state;
    write_server("with.yaml", 200, "3ms", "inherit", 250);
    write_server("without.yaml", 200, "3ms", NULL, 0);
    run("with.yaml", "with.db", "mcs");
    run("without.yaml", "without.db", "mcs");
    rows_are("with.db",
             "SELECT thread_id, sc_thread_id, start_time FROM slices"
             " WHERE thread_id = 1 ORDER BY start_time LIMIT 2",
             "1|3|1000000\n"
             "1|3|10000000\n");
    rows_are("with.db", "SELECT time FROM budget_events WHERE kind = 'timeout_fault'", "1500000\n");
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        sqlite3 *db = sqlq_open(workdir_file("without.db"), false);
        char *rows = sqlq_rows(db, same[i]);

        sqlite3_close(db);
        rows_are("with.db", same[i], rows);
        free(rows);
    }
}

/*
 * sensor's context (300us) cannot cover the 500us left of batch's request:
 * a second fault, on sensor's context, at 1.8ms. db then waits for that
 * context's refill (11.5ms), finishes batch's request on it (batch's call
 * returns normally at 11.7ms), gives it back, and serves sensor's own
 * request on the 100us left (a third fault, nobody queued: db waits).
 */
static void test_timeouts_inherit_second_fault_waits(void **state)
{
    (void)state;
    write_server("second.yaml", 120, "300us", "inherit", 250);
    run("second.yaml", "second.db", "mcs");
    rows_are("second.db", SLICES,
             "3|3|0|1000000\n"
             "1|3|1000000|1200000\n"
             "1|3|1200000|1500000\n"
             "1|2|1500000|1800000\n"
             "1|2|11500000|11700000\n"
             "1|2|11700000|11800000\n"
             "3|3|11800000|12800000\n");
    rows_are("second.db",
             "SELECT thread_id, sc_thread_id, time FROM budget_events"
             " WHERE kind = 'timeout_fault' ORDER BY time",
             "1|3|1500000\n"
             "1|2|1800000\n"
             "1|2|11800000\n");
    rows_are("second.db", JOBS,
             "2|1|1200000|NULL|1\n"
             "3|1|0|11800000|1\n"
             "3|2|10000000|NULL|0\n");
    rows_are("second.db", ABORTED, "");
}

/*
 * A caller noted as queued that is not: `late` notes its Call at 1.5ms but
 * has 10us of budget left, below MIN_BUDGET (20us), so the kernel defers
 * the Call (B12) and puts late in the release queue. At db's fault (1.8ms)
 * the handler tries late's context: Bind to db is refused (not ready), the
 * context goes back to late (postponed again: the throttle at 1.8ms), and
 * with nobody else db waits for batch's refill (10ms) as without a handler.
 * late makes its Call at its refill (11.19ms).
 */
static void test_timeouts_inherit_committed_caller(void **state)
{
    (void)state;
    workdir_write(
        "committed.yaml",
        "mcsim: 1\n"
        "name: inherit-committed\n"
        "duration: 20ms\n" ZERO_COSTS "kernel: {min_budget: 20us}\n"
        "endpoints: [query, faults]\n"
        "notifications: [batch_go, late_go]\n"
        "devices:\n"
        "  batch_timer: {irq: 20, notification: batch_go, arrivals: {periodic: 10ms}}\n"
        "  late_dev: {irq: 21, notification: late_go, arrivals: {at: [1.2ms]}}\n"
        "threads:\n"
        "  db: {priority: 120, criticality: hi, passive: true, timeout_endpoint: faults,\n"
        "       program: [{recv: query}, {loop: [{compute: 1ms}, {reply_recv: query}]}]}\n"
        "  late: {priority: 150, criticality: hi, budget: 310us, period: 10ms,\n"
        "         program: [{wait: late_go}, {job: [{compute: 300us}, {call: query}]}]}\n"
        "  batch: {priority: 100, criticality: lo, budget: 1.5ms, period: 10ms,"
        " sporadic: true,\n"
        "          program: [{loop: [{wait: batch_go}, {job: [{compute: 1ms},"
        " {call: query}]}, {irq_ack: batch_timer}]}]}\n"
        "  guard: {priority: 250, criticality: hi, budget: 1ms, period: 10ms,\n"
        "          program: [{handle_timeouts: {endpoint: faults, action: inherit}}]}\n");
    run("committed.yaml", "committed.db", "mcs");
    rows_are("committed.db", SLICES,
             "3|3|0|1000000\n"
             "1|3|1000000|1200000\n"
             "2|2|1200000|1500000\n"
             "1|3|1500000|1800000\n"
             "1|3|10000000|10500000\n"
             "3|3|10500000|11190000\n"
             "1|2|11190000|11500000\n"
             "3|3|11500000|11810000\n");
    rows_are("committed.db",
             "SELECT thread_id, sc_thread_id, time, kind FROM budget_events"
             " WHERE time <= 10000000 ORDER BY time, seq",
             "2|2|1500000|exhausted\n"
             "2|2|1500000|throttle\n"
             "1|3|1800000|exhausted\n"
             "1|3|1800000|timeout_fault\n"
             "2|2|1800000|throttle\n"
             "1|3|1800000|throttle\n"
             "1|3|10000000|replenish\n");
}

/* The rows of test_timeouts_reset_serves_queued_client in workdir/db. */
static void check_reset(const char *db)
{
    rows_are(db, SLICES,
             "3|3|0|1000000\n"
             "1|3|1000000|1200000\n"
             "1|3|1200000|1500000\n"
             "1|2|1500000|2500000\n"
             "2|2|2500000|2700000\n"
             "3|3|10000000|11000000\n"
             "1|3|11000000|11200000\n"
             "1|3|11200000|11500000\n"
             "1|2|11500000|12500000\n"
             "2|2|12500000|12700000\n");
    rows_are(db, ABORTED,
             "1500000|3\n"
             "11500000|3\n");
    rows_are(db, JOBS,
             "2|1|1200000|2700000|0\n"
             "2|2|11200000|12700000|0\n"
             "3|1|0|10000000|0\n"
             "3|2|10000000|NULL|0\n");
}

/*
 * reset with a client queued: batch's call is aborted at 1.5ms, db is
 * restarted on its restart context, which the kernel takes back when db
 * blocks to receive, so db takes sensor's queued call with donation and
 * serves it on sensor's context; with the handler above db (250) or below
 * it (110). (Before the restart context was bound to a notification, db
 * took the call on that context, bound to it: with the handler above,
 * the handler then unbound it and db, mid-request, never ran again; with
 * the handler below, sensor's request ran on a context nobody owns.)
 */
static void test_timeouts_reset_serves_queued_client(void **state)
{
    static const unsigned guard_prios[] = {250, 110};

    (void)state;
    for (size_t i = 0; i < sizeof guard_prios / sizeof guard_prios[0]; i++) {
        write_server("reset.yaml", 120, "3ms", "reset", guard_prios[i]);
        run("reset.yaml", "reset.db", "mcs");
        check_reset("reset.db");
        workdir_clear();
    }
}

/*
 * The example with the default costs: its expectations hold (exit 0); each
 * of the 10 faults (db on batch's context) is followed by db on sensor's
 * context, and every period db's slices are, by the context they are
 * charged to: batch's (before and after sensor's preemption), sensor's
 * (lent: the rest of batch's request), its restart context's (the way
 * back: no thread's), sensor's (sensor's own request). No call aborted, db
 * never throttled; sensor meets all 10 deadlines; batch's calls all return
 * but its jobs end at its refills: 9 missed, the last unfinished.
 */
static void test_timeouts_inherit_example(void **state)
{
    (void)state;
    run(EXAMPLE, "example.db", "mcs");
    rows_are("example.db",
             "SELECT count(*), thread_id, sc_thread_id FROM budget_events"
             " WHERE kind = 'timeout_fault' GROUP BY thread_id, sc_thread_id",
             "10|1|3\n");
    rows_are("example.db",
             "SELECT (SELECT sc_thread_id FROM slices s WHERE s.thread_id = 1"
             " AND s.start_time >= b.time ORDER BY s.start_time LIMIT 1)"
             " FROM budget_events b WHERE kind = 'timeout_fault' ORDER BY time",
             "2\n2\n2\n2\n2\n2\n2\n2\n2\n2\n");
    rows_are("example.db",
             "SELECT group_concat(coalesce(sc_thread_id, '-'), '') FROM"
             " (SELECT sc_thread_id FROM slices WHERE thread_id = 1"
             " ORDER BY start_time)",
             "332-2332-2332-2332-2332-2332-2332-2332-2332-2332-2\n");
    rows_are("example.db", ABORTED, "");
    rows_are("example.db",
             "SELECT count(*) FROM budget_events WHERE kind = 'throttle'"
             " AND thread_id = 1",
             "0\n");
    rows_are("example.db",
             "SELECT thread_id, count(*), count(finish_time), sum(missed) FROM jobs"
             " GROUP BY thread_id ORDER BY thread_id",
             "2|10|10|0\n"
             "3|10|9|9\n");
}

/* The example twice: every recorded row the same. */
static void test_timeouts_inherit_deterministic(void **state)
{
    static const char *const tables[] = {"slices",       "jobs", "budget_events", "events",
                                         "expectations", "irqs", "final_refills"};

    (void)state;
    assert_int_equal(
        spawn_mcsim("run", EXAMPLE, "-o", "one.db", "--quiet", "--trace", "full", NULL), 0);
    assert_int_equal(
        spawn_mcsim("run", EXAMPLE, "-o", "two.db", "--quiet", "--trace", "full", NULL), 0);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[200];
        sqlite3 *one = sqlq_open(workdir_file("one.db"), false);
        char *rows;

        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY rowid", tables[i]);
        rows = sqlq_rows(one, sql);
        sqlite3_close(one);
        assert_true(strlen(rows) > 0);
        rows_are("two.db", sql, rows);
        free(rows);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_timeouts_inherit_lends_queued_client, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_inherit_picks_queue_order, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_inherit_no_client_waits, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_inherit_second_fault_waits, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_inherit_committed_caller, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_reset_serves_queued_client, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_inherit_example, workdir_empty),
        cmocka_unit_test_setup(test_timeouts_inherit_deterministic, workdir_empty),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
