/*
 * The per-thread MCS accounting (issue 13 items 3 and 4, issue 14's
 * `mcsim runs` and `mcsim stats`), end to end through the `mcsim` binary:
 * `mcsim stats --format csv` against SQL written here over the recorded
 * tables themselves (not the views mcsim reads), the JSON and the table
 * against the CSV, the summary of `mcsim run` and the table of `mcsim
 * check` against `mcsim stats`, and exact figures of the runs the issue
 * names: network_driver under mcs (the driver's releases lost while it is
 * throttled in a flood), shared_server under classic (control, starved
 * for 199 of 200 ms: 19 jobs, 18 of them releases lost with their
 * interrupt, all 19 missed) and under mcs (telemetry's 20 aborted calls,
 * store's 20 timeout faults, its work charged to control's context); and
 * jobs.start_time of a job preempted in the cycle it began.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define SCENARIO_DIR MCSIM_SOURCE_DIR "/scenarios"
#define NETWORK_DRIVER SCENARIO_DIR "/network_driver.yaml"
#define SHARED_SERVER SCENARIO_DIR "/shared_server.yaml"

static int setup(void **state)
{
    (void)state;
    return workdir_create("accounting");
}

/* The nearest-rank percentile P of thread t's finished responses: the
 * response v with count(< v) < rank <= count(<= v), rank = ceil(n P / 100). */
#define JT "run_id = r.run_id AND thread_id = t.thread_id AND response IS NOT NULL"
#define RANK(P) "max((SELECT (count(*) * " #P " + 99) / 100 FROM jobs WHERE " JT "), 1)"
#define PCT(P)                                                                                     \
    "coalesce((SELECT max(v.response) FROM jobs v WHERE v." JT                                    \
    " AND (SELECT count(*) FROM jobs w WHERE w." JT " AND w.response < v.response) < " RANK(P)   \
    " AND (SELECT count(*) FROM jobs w WHERE w." JT " AND w.response <= v.response) >= " RANK(P) \
    "), '')"

/* The CSV of `mcsim stats`, computed here from the tables (a 1 GHz run:
 * nanoseconds are cycles). A failed job: late, unfinished past its
 * deadline, or aborted; a release lost with its interrupt: a job and a
 * failed one. A throttle lasts to the context's next replenish. */
static const char expected_sql[] =
    "SELECT t.name || ',' || t.priority || ',' || t.criticality"
    " || ',' || ((SELECT count(*) FROM jobs j WHERE j.run_id = r.run_id"
    "   AND j.thread_id = t.thread_id) + lost.n)"
    " || ',' || ((SELECT count(*) FROM jobs j WHERE j.run_id = r.run_id"
    "   AND j.thread_id = t.thread_id AND (j.missed = 1 OR j.finish_time > j.deadline_time"
    "   OR (j.finish_time IS NULL AND j.deadline_time < r.duration) OR EXISTS (SELECT 1"
    "   FROM events e WHERE e.run_id = r.run_id AND e.thread_id = t.thread_id"
    "   AND e.kind = 'call_aborted' AND e.time >= coalesce(j.start_time, j.release_time)"
    "   AND (j.finish_time IS NULL OR e.time <= j.finish_time)))) + lost.n)"
    " || ',' || lost.n"
    " || ',' || (SELECT count(*) FROM events e WHERE e.run_id = r.run_id"
    "   AND e.thread_id = t.thread_id AND e.kind = 'call_aborted')"
    " || ',' || (SELECT count(*) FROM jobs j WHERE j.run_id = r.run_id"
    "   AND j.thread_id = t.thread_id AND EXISTS (SELECT 1 FROM events e"
    "   WHERE e.run_id = r.run_id AND e.thread_id = t.thread_id AND e.kind = 'call_aborted'"
    "   AND e.time >= coalesce(j.start_time, j.release_time)"
    "   AND (j.finish_time IS NULL OR e.time <= j.finish_time)))"
    " || ',' || (SELECT count(*) FROM budget_events b WHERE b.run_id = r.run_id"
    "   AND b.thread_id = t.thread_id AND b.kind = 'throttle')"
    " || ',' || (SELECT count(*) FROM budget_events b WHERE b.run_id = r.run_id"
    "   AND b.thread_id = t.thread_id AND b.kind = 'timeout_fault')"
    " || ',' || (SELECT count(*) FROM budget_events b WHERE b.run_id = r.run_id"
    "   AND b.sc_thread_id = t.thread_id AND b.kind = 'emergency')"
    " || ',' || " PCT(50) " || ',' || " PCT(90) " || ',' || " PCT(99)
    " || ',' || coalesce((SELECT max(response) FROM jobs WHERE run_id = r.run_id"
    "   AND thread_id = t.thread_id), '')"
    " || ',' || coalesce((SELECT CAST(round(avg(response)) AS INTEGER) FROM jobs"
    "   WHERE run_id = r.run_id AND thread_id = t.thread_id), '')"
    " || ',' || (SELECT coalesce(sum(end_time - start_time), 0) FROM slices"
    "   WHERE run_id = r.run_id AND thread_id = t.thread_id)"
    " || ',' || (SELECT coalesce(sum(end_time - start_time), 0) FROM slices"
    "   WHERE run_id = r.run_id AND sc_thread_id = t.thread_id)"
    " || ',' || (SELECT coalesce(sum(coalesce((SELECT min(p.time) FROM budget_events p"
    "   WHERE p.run_id = r.run_id AND p.sc_thread_id IS b.sc_thread_id"
    "   AND p.kind = 'replenish' AND p.time >= b.time), r.duration) - b.time), 0)"
    "   FROM budget_events b WHERE b.run_id = r.run_id AND b.thread_id = t.thread_id"
    "   AND b.kind = 'throttle')"
    " FROM runs r JOIN threads t ON t.run_id = r.run_id"
    " JOIN (SELECT t2.run_id, t2.thread_id, (SELECT count(*) FROM irqs i"
    "   WHERE i.run_id = t2.run_id AND i.handler = t2.thread_id AND i.lost = 1) AS n"
    "   FROM threads t2) lost ON lost.run_id = r.run_id AND lost.thread_id = t.thread_id"
    " WHERE r.run_id = %d AND t.thread_id > 0 ORDER BY t.thread_id";

#define CSV_HEADER                                                                                 \
    "thread,priority,criticality,jobs,missed,lost,aborted_calls,aborted_jobs,throttles,"          \
    "timeout_faults,emergency_grants,response_p50_ns,response_p90_ns,response_p99_ns,"            \
    "response_max_ns,response_mean_ns,cpu_ns,charged_ns,throttled_ns\n"

/* `mcsim stats DB --run N --format csv` equals the SQL's rows, and is
 * returned (malloc'd) for exact checks. */
static char *stats_csv_checked(const char *db, int run)
{
    char sql[sizeof expected_sql + 16], run_s[16], *want, *got;
    sqlite3 *sq = sqlq_open(workdir_file(db), false);

    snprintf(sql, sizeof sql, expected_sql, run);
    want = sqlq_rows(sq, sql);
    sqlite3_close(sq);
    snprintf(run_s, sizeof run_s, "%d", run);
    assert_int_equal(spawn_mcsim("stats", db, "--run", run_s, "--format", "csv", NULL), 0);
    assert_true(strncmp(spawn_out, CSV_HEADER, strlen(CSV_HEADER)) == 0);
    got = strdup(spawn_out + strlen(CSV_HEADER));
    if (strcmp(got, want) != 0)
        fail_msg("mcsim stats:\n%s\nSQL over the tables:\n%s", got, want);
    free(want);
    return got;
}

/* The line of thread `name` in a CSV (without the name), into buf. */
static const char *csv_line(const char *csv, const char *name, char *buf, size_t n)
{
    size_t len = strlen(name);

    for (const char *p = csv; *p; p = strchr(p, '\n') + 1) {
        if (strncmp(p, name, len) == 0 && p[len] == ',') {
            size_t k = strcspn(p + len + 1, "\n");
            snprintf(buf, n, "%.*s", (int)k, p + len + 1);
            return buf;
        }
        if (!strchr(p, '\n'))
            break;
    }
    return "";
}

static void test_accounting_network_driver(void **state)
{
    char b[256], *csv;

    (void)state;
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "n.db", NULL), 0);
    /* the summary's table is the accounting's */
    assert_non_null(strstr(spawn_out, "jobs: lo: 600 (470 missed), hi: 20 (0 missed)\n"));
    assert_non_null(strstr(spawn_out, "  control           100 hi         20      0     0       0"
                                      "     4.866ms     3.508ms    48.275ms    48.275ms         0"
                                      "         0ns      0      0\n"));
    assert_non_null(strstr(spawn_out, "  net_driver        200 lo        600    470   450       0"
                                      "     8.132ms     1.209ms    21.904ms    21.904ms        10"
                                      "    79.861ms      0      0\n"));
    csv = stats_csv_checked("n.db", 1);
    /* control: 20 jobs, none missed, never throttled (its sporadic context
     * keeps its budget whole across preemptions); the driver: 150
     * jobs ran (20 missed) and 450 packets were lost while its line was
     * masked, 10 throttles (the README's "25" was the run's total) */
    assert_string_equal(csv_line(csv, "control", b, sizeof b),
                        "100,hi,20,0,0,0,0,0,0,0,3098765,4747414,4866401,4866401,3508677,"
                        "48275582,48275582,0");
    assert_string_equal(csv_line(csv, "net_driver", b, sizeof b),
                        "200,lo,600,470,450,0,0,10,0,0,145690,8118310,8132390,8132390,1209688,"
                        "21904070,21904070,79861100");
    sqlq_assert_path_rows(workdir_file("n.db"),
                          "SELECT count(*) FROM irqs WHERE lost = 1 AND handler = 2",
                          "450\n");
    free(csv);

    /* `mcsim check` prints the same table */
    assert_int_equal(spawn_mcsim("check", "n.db", NULL), 0);
    assert_non_null(strstr(spawn_out, "  net_driver        200 lo        600    470   450       0"));
}

static void test_accounting_shared_server(void **state)
{
    char b[256], *csv;

    (void)state;
    assert_int_equal(spawn_mcsim("run", SHARED_SERVER, "-o", "s.db", "--quiet", NULL), 0);
    assert_int_equal(
        spawn_mcsim("run", SHARED_SERVER, "-o", "s.db", "--scheduler", "classic", NULL), 0);
    /* the starved HI thread: one job ran, 18 releases were lost */
    assert_non_null(strstr(spawn_out, "jobs: lo: 442 (0 missed), hi: 19 (19 missed)\n"));
    assert_non_null(strstr(spawn_out, "(19 of 19 jobs of control missed (18 releases lost with "
                                      "their interrupt); first: job 1 of control released at 0"));

    csv = stats_csv_checked("s.db", 1);
    /* store's work is charged to control's context (30.04 ms of its own
     * plus 8.01 ms of store's); telemetry's 20 calls were aborted, so its
     * 20 jobs failed; store faulted 20 times */
    assert_string_equal(csv_line(csv, "store", b, sizeof b),
                        "150,hi,0,0,0,0,0,0,20,0,,,,,,43017880,0,0");
    assert_string_equal(csv_line(csv, "control", b, sizeof b),
                        "120,hi,20,0,0,0,0,0,0,0,3905130,3905130,3907510,3907510,3905250,"
                        "30039560,38051550,0");
    assert_string_equal(csv_line(csv, "telemetry", b, sizeof b),
                        "130,lo,100,20,0,20,20,20,0,0,451140,8195560,8645860,8645860,1942009,"
                        "5007630,40000120,158583600");
    free(csv);
    csv = stats_csv_checked("s.db", 2);
    assert_string_equal(csv_line(csv, "control", b, sizeof b),
                        "120,hi,19,19,18,0,0,0,0,0,,,,,,999260,0,0");
    free(csv);
}

/* JSON and the table say what the CSV says. */
static void test_accounting_formats(void **state)
{
    char err[128];
    struct json *j;
    const struct json *threads, *t;

    (void)state;
    assert_int_equal(spawn_mcsim("run", SHARED_SERVER, "-o", "f.db", "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("stats", "f.db", "--format", "json", NULL), 0);
    j = json_parse(spawn_out, strlen(spawn_out), err, sizeof err);
    if (!j)
        fail_msg("not JSON: %s\n%s", err, spawn_out);
    assert_int_equal(json_get(j, "run")->number, 1);
    threads = json_get(j, "threads");
    assert_int_equal(threads->count, 4);
    t = threads->items[2];
    assert_string_equal(json_get(t, "thread")->text, "telemetry");
    assert_int_equal(json_get(t, "aborted_calls")->number, 20);
    assert_int_equal(json_get(t, "missed")->number, 20);
    assert_int_equal(json_get(t, "response_p90_ns")->number, 8195560);
    assert_int_equal(json_get(t, "throttled_ns")->number, 158583600);
    assert_int_equal(json_get(threads->items[0], "response_p50_ns")->type, JSON_NULL);
    json_free(j);

    assert_int_equal(spawn_mcsim("stats", "f.db", NULL), 0);
    assert_non_null(strstr(spawn_out, "  telemetry           100     20     0      20  451.140us"
                                      "    8.195ms    8.645ms    8.645ms    1.942ms\n"));
    assert_int_equal(spawn_mcsim("stats", "f.db", "--format", "xml", NULL), 2);
    assert_string_equal(spawn_err, "mcsim: stats: --format takes table, csv or json, not 'xml'\n"
                                   "(see 'mcsim help stats')\n");
}

/* `mcsim runs`: one line per run, against the runs and expectations rows. */
static void test_accounting_runs(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "r.db", "--quiet", NULL), 0);
    /* 5 ms of classic: control has not missed yet, which its expectation wants */
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "r.db", "--quiet", "--scheduler",
                                 "classic", "--seed", "7", "--duration", "5ms", NULL),
                     1);
    sqlq_exec(workdir_file("r.db"), "UPDATE runs SET finished = 0 WHERE run_id = 2");
    assert_int_equal(spawn_mcsim("runs", "r.db", NULL), 0);
    assert_string_equal(
        spawn_out,
        " run  scenario             scheduler                 seed   duration hal  finished "
        "verdict\n"
        "   1  network-driver       mcs                          0      200ms sim  yes      "
        "passed\n"
        "   2  network-driver       classic                      7        5ms sim  no       -\n"
        "compare two runs: mcsim diff r.db --run A --run B; per thread: mcsim stats r.db --run "
        "N\n");
    sqlq_exec(workdir_file("r.db"), "UPDATE runs SET finished = 1 WHERE run_id = 2");
    assert_int_equal(spawn_mcsim("runs", "r.db", NULL), 0);
    sqlq_assert_path_rows(workdir_file("r.db"),
                          "SELECT count(*), sum(passed = 0) FROM expectations"
                          " WHERE run_id = 2 AND applicable = 1",
                          "1|1\n");
    assert_non_null(strstr(spawn_out, "   2  network-driver       classic                      7"
                                      "        5ms sim  yes      failed 1 of 1\n"));
}

/* jobs.start_time is the first instant the job runs: `a` is woken at 1ms
 * and begins its job in the cycle `b`'s interrupt, taken in the same
 * cycle, preempts it; it first runs at 1.12ms, when b is done (it read
 * 1ms before, a zero-length dispatch). b's job starts at once. */
static void test_accounting_start_time(void **state)
{
    (void)state;
    workdir_write("first.yaml",
                  "mcsim: 1\n"
                  "name: first-cycle\n"
                  "duration: 10ms\n"
                  "platform: {kernel_costs: {entry: 0, exit: 0, syscall: 0, ipc: 0, schedule: 0,"
                  " timer_program: 0, irq: 0, tick: 0}}\n"
                  "notifications: [a_go, b_go]\n"
                  "devices:\n"
                  "  a_dev: {irq: 20, notification: a_go, arrivals: {at: [1ms]}}\n"
                  "  b_dev: {irq: 21, notification: b_go, arrivals: {at: [1ms]}}\n"
                  "threads:\n"
                  "  a: {priority: 100, criticality: lo, budget: 5ms, period: 10ms,\n"
                  "      program: [{wait: a_go}, {job: [{compute: 1ms}]}]}\n"
                  "  b: {priority: 200, criticality: hi, budget: 5ms, period: 10ms,\n"
                  "      program: [{wait: b_go}, {job: [{compute: 120us}]}]}\n");
    assert_int_equal(spawn_mcsim("run", "first.yaml", "-o", "f.db", "--quiet", NULL), 0);
    sqlq_assert_path_rows(workdir_file("f.db"),
                          "SELECT thread_id, job, release_time, start_time, finish_time FROM jobs"
                          " ORDER BY thread_id",
                          "1|1|1000000|1120000|2120000\n"
                          "2|1|1000000|1000000|1120000\n");
    sqlq_assert_path_rows(workdir_file("f.db"),
                          "SELECT thread_id, start_time, end_time FROM slices ORDER BY start_time",
                          "2|1000000|1120000\n"
                          "1|1120000|2120000\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_accounting_network_driver, workdir_empty),
        cmocka_unit_test_setup(test_accounting_shared_server, workdir_empty),
        cmocka_unit_test_setup(test_accounting_formats, workdir_empty),
        cmocka_unit_test_setup(test_accounting_runs, workdir_empty),
        cmocka_unit_test_setup(test_accounting_start_time, workdir_empty),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
