/*
 * mcsim run end to end, as a user runs it: the `mcsim` binary (MCSIM_BIN,
 * set by CTest) spawned in an empty directory, its database then read with
 * SQLite: bad input and usage that leave the database untouched, an
 * interrupted run left unfinished, exit statuses and --quiet, and the
 * reference cases' statuses. Determinism is test_run_determinism.c.
 *
 * Durations are chosen so that the whole file takes a few seconds under
 * ASan (the debug preset runs it too).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "spawn.h"
#include "sqlq.h"
#include "summary/summary.h"
#include "workdir.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/run/"
#define NETWORK_DRIVER MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml"
#define REFCASE_DIR MCSIM_SOURCE_DIR "/tests/scenarios/kernel"

/* ------------------------------------------------------------ fixtures */

static int setup(void **state)
{
    (void)state;
    return workdir_create("run");
}

/* ---------------------------------------------------------- bad input */

static void test_run_bad_scenario(void **state)
{
    (void)state;
    static const char want[] =
        DATA_DIR "bad.yaml:5:15: error: priority of thread 'a' is '300' (expected a whole number "
                 "from 0 to 255)\n" DATA_DIR
                 "bad.yaml:7:13: error: budget of thread 'a' (2ms) is longer than its period "
                 "(1ms) (expected budget <= period)\n" DATA_DIR
                 "bad.yaml:11:15: error: wait in thread 'a' names 'nowhere', which is not a "
                 "declared notification (expected a name declared under 'notifications'; "
                 "there are none)\n";
    size_t len0, len1;

    assert_int_equal(spawn_mcsim("run", DATA_DIR "bad.yaml", "-o", "x.db", NULL), 2);
    assert_string_equal(spawn_err, want);
    assert_string_equal(spawn_out, "");
    assert_false(workdir_exists("x.db"));
    assert_false(workdir_exists("x.db-journal"));

    /* An existing database is left byte for byte as it was. */
    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "expect_holds.yaml", "-o", "x.db", "--quiet", NULL), 0);
    char *before = workdir_must_read("x.db", &len0);
    assert_int_equal(spawn_mcsim("run", DATA_DIR "bad.yaml", "-o", "x.db", NULL), 2);
    assert_string_equal(spawn_err, want);
    char *after = workdir_must_read("x.db", &len1);
    assert_int_equal(len0, len1);
    assert_memory_equal(before, after, len0);
    assert_false(workdir_exists("x.db-journal"));
    free(before), free(after);
}

static void test_run_bad_usage(void **state)
{
    (void)state;
    static const struct {
        const char *args[4];
        const char *says;
    } cases[] = {
        {{"--frobnicate"}, "mcsim: run: unknown option '--frobnicate'\n"},
        {{"--scheduler", "foo"}, "mcsim: run: --scheduler takes 'mcs' or 'classic', not 'foo'\n"},
        {{"--duration", "5"}, "mcsim: run: --duration '5': "},
        {{"--duration", "0ms"}, "mcsim: run: --duration '0ms': "},
        {{"--seed", "-1"}, "mcsim: run: --seed takes a whole number"},
        {{"--trace", "everything"}, "mcsim: run: --trace takes 'sched' or 'full'\n"},
        {{"--seed"}, "mcsim: run: option '--seed' needs a value\n"},
        {{NETWORK_DRIVER}, "mcsim: run: only one scenario file may be given"},
    };
    const char *good = DATA_DIR "expect_holds.yaml";
    size_t len0, len1;

    assert_int_equal(spawn_mcsim("run", good, "-o", "x.db", "--quiet", NULL), 0);
    char *before = workdir_must_read("x.db", &len0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].args;
        /* Into an existing database, then a new one. */
        assert_int_equal(spawn_mcsim("run", good, "-o", "x.db", a[0], a[1], a[2], a[3], NULL), 2);
        if (strncmp(spawn_err, cases[i].says, strlen(cases[i].says)) != 0)
            fail_msg("case %zu: stderr is\n%s\nnot\n%s...", i, spawn_err, cases[i].says);
        assert_string_equal(spawn_out, "");
        assert_int_equal(spawn_mcsim("run", good, "-o", "new.db", a[0], a[1], a[2], a[3], NULL), 2);
        assert_false(workdir_exists("new.db"));
    }
    assert_int_equal(spawn_mcsim("run", "-o", "new.db", NULL), 2);
    assert_non_null(strstr(spawn_err, "mcsim: run: no scenario file given\n"));
    assert_false(workdir_exists("new.db"));
    char *after = workdir_must_read("x.db", &len1);
    assert_int_equal(len0, len1);
    assert_memory_equal(before, after, len0);
    free(before), free(after);
}

/* -o names the database: a chart's or a trace's name is warned about,
 * the run still recorded there (a SQLite file, whatever its name). */
static void test_run_db_name_warning(void **state)
{
    (void)state;
    const char *good = DATA_DIR "expect_holds.yaml";

    assert_int_equal(spawn_mcsim("run", good, "-o", "chart.PNG", "--quiet", NULL), 0);
    assert_string_equal(spawn_err, "mcsim: run: warning: -o chart.PNG is the SQLite database the "
                                   "run is recorded to, not a png file (a chart: --gantt "
                                   "FILE.png; a trace: mcsim export DB --format chrome -o "
                                   "FILE.json)\n");
    assert_int_equal(sqlq_path_int(workdir_file("chart.PNG"), "SELECT count(*) FROM runs"), 1);
    assert_int_equal(spawn_mcsim("run", good, "-o", "t.json", "--quiet", NULL), 0);
    assert_non_null(strstr(spawn_err, "not a json file (a chart: --gantt FILE.svg;"));
    assert_int_equal(spawn_mcsim("run", good, "-o", "x.db", "--quiet", NULL), 0);
    assert_string_equal(spawn_err, "");
}

/* --------------------------------------------------- unfinished runs */

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
}

/* True once the runs row of the run in progress is committed. */
static bool run_row_exists(void)
{
    sqlite3 *db;
    bool found = false;

    if (!workdir_exists("long.db"))
        return false;
    if (sqlite3_open_v2(workdir_file("long.db"), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK) {
            found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
            sqlite3_finalize(st);
        }
    }
    sqlite3_close(db);
    return found;
}

/* SIGINT half-way through a 600s run: exit 130, the run stays
 * finished = 0 with what it recorded so far; a run that completes is
 * finished = 1. */
static void test_run_interrupted_stays_unfinished(void **state)
{
    (void)state;
    struct timespec t0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = spawn_start(
        (const char *[]){"run", NETWORK_DRIVER, "-o", "long.db", "--duration", "600s", NULL});
    while (!run_row_exists()) {
        if (seconds_since(&t0) > 30) {
            kill(pid, SIGKILL);
            spawn_finish(pid);
            fail_msg("no runs row after 30 s");
        }
        sleep_ms(10);
    }
    while (seconds_since(&t0) < 0.5)
        sleep_ms(10);
    assert_int_equal(kill(pid, SIGINT), 0);
    assert_int_equal(spawn_finish(pid), 130);
    {
        /* "interrupted at 1.234ms (cycle 1234000)": the same instant twice */
        unsigned long long cycle = 0;
        char at[32], want[96];
        const char *p = strstr(spawn_err, "(cycle ");

        assert_non_null(p);
        assert_int_equal(sscanf(p, "(cycle %llu)", &cycle), 1);
        summary_format_time(at, sizeof at, cycle, 1000000000u);
        snprintf(want, sizeof want, "mcsim: run: interrupted at %s (cycle %llu); ", at, cycle);
        assert_true(strncmp(spawn_err, want, strlen(want)) == 0);
    }
    assert_non_null(strstr(spawn_err, "run 1 of long.db is left unfinished\n"));

    sqlite3 *db = sqlq_open(workdir_file("long.db"), false);
    assert_int_equal(sqlq_int(db, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(sqlq_int(db, "SELECT finished FROM runs"), 0);
    assert_int_equal(sqlq_int(db, "SELECT count(*) FROM threads"), 3);
    assert_true(sqlq_int(db, "SELECT count(*) FROM slices") > 0);
    assert_true(sqlq_int(db, "SELECT max(end_time) FROM slices") < 600000000000LL);
    assert_int_equal(sqlq_int(db, "SELECT count(*) FROM expectations"), 0);
    sqlite3_close(db);

    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "long.db", "--quiet", NULL), 0);
    assert_int_equal(
        sqlq_path_int(workdir_file("long.db"), "SELECT finished FROM runs WHERE run_id = 1"), 0);
    assert_int_equal(
        sqlq_path_int(workdir_file("long.db"), "SELECT finished FROM runs WHERE run_id = 2"), 1);
}

/* ------------------------------------------------------- expectations */

static size_t lines_in(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_run_exit_status_expectations(void **state)
{
    (void)state;

    assert_int_equal(spawn_mcsim("run", DATA_DIR "expect_fails.yaml", "-o", "e.db", NULL), 1);
    assert_true(strncmp(spawn_out, "PASS  deadlines: met, threads: [worker]  (", 42) == 0);
    assert_non_null(strstr(spawn_out, "\nFAIL  max_response: worker at_most 1ms  ("));
    assert_non_null(strstr(spawn_out, "\nN/A   deadlines: missed, threads: [worker] (scheduler: "
                                      "classic)  ("));
    assert_non_null(
        strstr(spawn_out, "\nrun 1 of e.db: expect-fails, mcs scheduler, seed 0, 20ms"));
    assert_string_equal(spawn_err, "");

    /* --quiet: the failing verdict alone. */
    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "expect_fails.yaml", "-o", "e.db", "--quiet", NULL), 1);
    assert_true(strncmp(spawn_out, "FAIL  max_response: worker at_most 1ms  (", 41) == 0);
    assert_int_equal(lines_in(spawn_out), 1);
    assert_string_equal(spawn_err, "");
    assert_int_equal(sqlq_path_int(workdir_file("e.db"),
                                   "SELECT group_concat(passed || applicable, ' ') = "
                                   "'11 01 10' FROM (SELECT * FROM expectations "
                                   "WHERE run_id = 2 ORDER BY idx)"),
                     1);

    assert_int_equal(spawn_mcsim("run", DATA_DIR "expect_holds.yaml", "-o", "e.db", NULL), 0);
    assert_true(strncmp(spawn_out, "PASS  deadlines: met, threads: [worker]  (", 42) == 0);
    assert_non_null(strstr(spawn_out, "\nPASS  max_response: worker at_most 3ms  ("));
    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "expect_holds.yaml", "-o", "e.db", "--quiet", NULL), 0);
    assert_string_equal(spawn_out, "");
    assert_string_equal(spawn_err, "");
    assert_int_equal(
        sqlq_path_int(workdir_file("e.db"), "SELECT count(*) FROM runs WHERE finished = 1"), 4);
}

/* The summary's overheads lines say what the run_stats view says (the
 * summary reads the same aggregates from the tables, summary.c
 * print_overheads): network_driver, whose interrupts are handled. */
static void test_summary_overheads(void **state)
{
    char want[512], worst[32], avg[32];
    sqlite3 *db;
    sqlite3_stmt *st;
    int rc;

    (void)state;
    rc = spawn_mcsim("run", NETWORK_DRIVER, "-o", "o.db", NULL);
    assert_true(rc == 0 || rc == 1);
    assert_int_equal(sqlite3_open_v2(workdir_file("o.db"), &db, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT decisions, cycles_per_decision,"
                                        " syscall_cycles_per_decision, timer_programs,"
                                        " irqs_handled, worst_irq_latency, avg_irq_latency,"
                                        " (SELECT cpu_hz FROM runs) FROM run_stats",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(want, sizeof want,
             "\nscheduling: %lld decisions, %.0f kernel cycles each (%.0f in a system call),"
             " %lld timer reprogrammings\n",
             (long long)sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1),
             sqlite3_column_double(st, 2), (long long)sqlite3_column_int64(st, 3));
    assert_non_null(strstr(spawn_out, want));
    assert_true(sqlite3_column_int64(st, 4) > 0);
    summary_format_time(worst, sizeof worst, (uint64_t)sqlite3_column_int64(st, 5),
                        (uint64_t)sqlite3_column_int64(st, 7));
    summary_format_time(avg, sizeof avg, (uint64_t)(sqlite3_column_double(st, 6) + 0.5),
                        (uint64_t)sqlite3_column_int64(st, 7));
    snprintf(want, sizeof want,
             "\nirq latency (arrival to the handler's first instruction): worst %s (%lld"
             " cycles), average %s (%lld), over %lld interrupts\n",
             worst, (long long)sqlite3_column_int64(st, 5), avg,
             (long long)(sqlite3_column_double(st, 6) + 0.5),
             (long long)sqlite3_column_int64(st, 4));
    assert_non_null(strstr(spawn_out, want));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* ------------------------------------------------- the run's bounds */

/* Nothing is recorded outside [0, duration] (issue 19 item 6): a's refill
 * falls due at 5,000,050 in a 5 ms run, the kernel timer's interrupt is
 * taken at 4,999,930 and its entry reads the clock at 5,000,050, after the
 * end. Its replenish is not recorded; the slices end at the end. */
static void test_run_nothing_after_the_end(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", DATA_DIR "after_end.yaml", "-o", "end.db", "--quiet",
                                 "--trace", "full", NULL),
                     0);
    sqlq_assert_path_rows(workdir_file("end.db"),
                          "SELECT time, kind, amount FROM budget_events WHERE time > 3500000"
                          " ORDER BY seq",
                          "3999930|replenish|499880\n"
                          "4499930|exhausted|500000\n"
                          "4499930|throttle|0\n");
    sqlq_assert_path_rows(workdir_file("end.db"),
                          "SELECT (SELECT max(time) FROM budget_events),"
                          " (SELECT max(time) FROM events), (SELECT max(end_time) FROM slices)",
                          "4499930|4499930|4499930\n");
}

/* An interrupt whose taking entry ends after the run (unit.property
 * scenario 2875): delivered at 999,000 in a 1 ms run, the entry returning
 * to its handler ends at 1,002,000. The delivery is recorded, the
 * handler's start is not; the first interrupt's is (503,000). */
static void test_run_irq_handler_after_the_end(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", DATA_DIR "irq_after_end.yaml", "-o", "irq.db", "--quiet",
                                 NULL),
                     0);
    sqlq_assert_path_rows(workdir_file("irq.db"),
                          "SELECT arrival, delivered, lost, handler, handler_start FROM irqs"
                          " ORDER BY arrival",
                          "500000|500000|0|1|503000\n"
                          "999000|999000|0|1|NULL\n");
}

/* ---------------------------------------------------- reference cases */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every reference case holds its own expectations: exit status 0. */
static void test_run_reference_cases(void **state)
{
    (void)state;
    char *names[64];
    size_t n = 0;
    struct dirent *e;
    DIR *dir = opendir(REFCASE_DIR);

    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) {
            assert_true(n < sizeof names / sizeof names[0]);
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], cmp_names);
    assert_true(n >= 30); /* the 30 cases of ../shared/reference-cases, and any added since */
    for (size_t i = 0; i < n; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", REFCASE_DIR, names[i]);
        int status = spawn_mcsim("run", path, "-o", "ref.db", "--quiet", NULL);
        if (status != 0)
            fail_msg("%s: exit status %d\n%s%s", names[i], status, spawn_out, spawn_err);
        free(names[i]);
    }
    assert_int_equal(
        sqlq_path_int(workdir_file("ref.db"), "SELECT count(*) FROM runs WHERE finished = 1"),
        (int64_t)n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_run_bad_scenario, workdir_empty),
        cmocka_unit_test_setup(test_run_bad_usage, workdir_empty),
        cmocka_unit_test_setup(test_run_db_name_warning, workdir_empty),
        cmocka_unit_test_setup(test_run_interrupted_stays_unfinished, workdir_empty),
        cmocka_unit_test_setup(test_run_exit_status_expectations, workdir_empty),
        cmocka_unit_test_setup(test_run_irq_handler_after_the_end, workdir_empty),
        cmocka_unit_test_setup(test_summary_overheads, workdir_empty),
        cmocka_unit_test_setup(test_run_nothing_after_the_end, workdir_empty),
        cmocka_unit_test_setup(test_run_reference_cases, workdir_empty),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
