/*
 * mcsim check end to end: the `mcsim` binary (MCSIM_BIN, set by CTest)
 * runs a scenario into a database in an empty directory, then `mcsim
 * check` re-evaluates the run from the database alone. It must agree with
 * `mcsim run` (the same verdict lines, the same exit status) on every
 * example scenario under both schedulers and on runs whose expectations
 * fail; it must catch rows changed after the run (a job finished past its
 * deadline, overlapping slices, a context over its budget with no
 * `budget:` expectation); and it must need neither the scenario file nor
 * anything but the database.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define SCENARIO_DIR MCSIM_SOURCE_DIR "/scenarios"
#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/run/"
#define NETWORK_DRIVER SCENARIO_DIR "/network_driver.yaml"

/* ------------------------------------------------- reading its output */

/* The verdict lines of an output ("PASS  ...", "FAIL  ...", "N/A   ..."),
 * without check's guarantees, into buf. */
static void verdict_lines(const char *text, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        bool verdict = strncmp(line, "PASS  ", 6) == 0 || strncmp(line, "FAIL  ", 6) == 0 ||
                       strncmp(line, "N/A   ", 6) == 0;

        if (verdict && strncmp(line + 6, "guarantee: ", 11) != 0 && at + n + 2 <= len) {
            memcpy(buf + at, line, n);
            at += n;
            buf[at++] = '\n';
            buf[at] = '\0';
        }
        line += n + (line[n] != '\0');
    }
}

/* ------------------------------------------------------------ fixtures */

static int setup(void **state)
{
    (void)state;
    return workdir_create("check");
}

/* ------------------------------------------------------------- the tests */

/* Run `file` under `scheduler` into a fresh database, check it, and
 * demand the same exit status and verdicts. */
static void assert_check_agrees(const char *file, const char *scheduler)
{
    static char run_verdicts[SPAWN_OUT_MAX], check_verdicts[SPAWN_OUT_MAX];
    int run_status, check_status;

    workdir_clear();
    run_status = spawn_mcsim("run", file, "-o", "agree.db", "--scheduler", scheduler, NULL);
    if (run_status == 2)
        return; /* refused: nothing recorded, nothing to check */
    if (run_status != 0 && run_status != 1)
        fail_msg("mcsim run %s --scheduler %s: status %d\n%s%s", file, scheduler, run_status,
                 spawn_out, spawn_err);
    verdict_lines(spawn_out, run_verdicts, sizeof run_verdicts);
    check_status = spawn_mcsim("check", "agree.db", NULL);
    verdict_lines(spawn_out, check_verdicts, sizeof check_verdicts);
    if (check_status != run_status || strcmp(run_verdicts, check_verdicts) != 0)
        fail_msg("%s under %s: run exited %d with\n%s\ncheck exited %d with\n%s\n%s%s", file,
                 scheduler, run_status, run_verdicts, check_status, check_verdicts, spawn_out,
                 spawn_err);
}

static bool yaml_name(const char *name)
{
    size_t n = strlen(name);

    return n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

static void test_check_agrees_on_every_scenario(void **state)
{
    static const char *const failing[] = {DATA_DIR "expect_fails.yaml",
                                          DATA_DIR "expect_holds.yaml"};
    static const char *const schedulers[] = {"mcs", "classic"};
    DIR *dir = opendir(SCENARIO_DIR);
    struct dirent *e;
    char path[600];
    unsigned n = 0;

    (void)state;
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        if (!yaml_name(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", SCENARIO_DIR, e->d_name);
        for (int s = 0; s < 2; s++)
            assert_check_agrees(path, schedulers[s]);
        n++;
    }
    closedir(dir);
    assert_true(n >= 10);
    for (size_t i = 0; i < sizeof failing / sizeof failing[0]; i++)
        for (int s = 0; s < 2; s++)
            assert_check_agrees(failing[i], schedulers[s]);
}

/* A job of `control` moved past its deadline after the run: the
 * expectation that held fails now, and check says the row changed. */
static void test_check_catches_tampered_job(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "t.db", NULL), 0);
    assert_int_equal(spawn_mcsim("check", "t.db", NULL), 0);
    sqlq_exec(workdir_file("t.db"), "UPDATE job_rows SET finish_time = deadline_time + 1"
                                    " WHERE run_id = 1 AND thread_id = 1 AND job = 3");
    assert_int_equal(spawn_mcsim("check", "t.db", NULL), 1);
    assert_non_null(strstr(spawn_out, "FAIL  deadlines: met, threads: [control] (scheduler: mcs)"));
    assert_non_null(strstr(spawn_out, "job 3 of control"));
    assert_non_null(strstr(spawn_out, "the run recorded PASS for this expectation"));
    assert_int_equal(spawn_mcsim("check", "t.db", "--quiet", NULL), 1);
    assert_non_null(strstr(spawn_out, "FAIL  deadlines: met"));
    assert_null(strstr(spawn_out, "PASS  "));
}

/* Slices made to overlap fail the one-CPU guarantee; a context's slice
 * stretched past its budget fails the budget guarantee although the
 * scenario has no `budget:` expectation. */
static void test_check_catches_broken_guarantees(void **state)
{
    static const char yaml[] = "mcsim: 1\n"
                               "duration: 30ms\n"
                               "threads:\n"
                               "  hog: {priority: 10, criticality: lo, budget: 1ms, period: 10ms,\n"
                               "        program: [{compute: 1s}]}\n"
                               "expect:\n"
                               "  - {count: {event: throttle, at_least: 1}}\n";
    (void)state;
    workdir_write("hog.yaml", yaml);
    assert_int_equal(spawn_mcsim("run", "hog.yaml", "-o", "g.db", NULL), 0);
    assert_int_equal(spawn_mcsim("check", "g.db", NULL), 0);
    assert_non_null(strstr(spawn_out, "PASS  guarantee: every context kept its budget"));
    assert_non_null(strstr(spawn_out, "PASS  guarantee: one slice at a time"));
    /* hog's first slice, [0, 1ms), made to run 10ms: over its budget and
     * over its next slice, at 10ms. */
    sqlq_exec(workdir_file("g.db"),
              "UPDATE slice_rows SET end_time = end_time + 9500000 WHERE rowid ="
              " (SELECT min(rowid) FROM slice_rows WHERE run_id = 1 AND thread_id = 1)");
    assert_int_equal(spawn_mcsim("check", "g.db", NULL), 1);
    assert_non_null(strstr(spawn_out, "FAIL  guarantee: every context kept its budget"));
    assert_non_null(strstr(spawn_out, "FAIL  guarantee: one slice at a time"));
    assert_non_null(
        strstr(spawn_out, "(a slice starts at 10ms (cycle 10000240) before the one before it ended)"));
}

/* A 100us / 1000.9us context on a 1 MHz timer with no kernel costs (issue
 * 19 item 2): the kernel holds a period of 1000 ticks, 1000us, and the
 * context runs 100us in each; checked against the period as written it
 * ran 100.9us in [0, 1000.9us) and failed. Checked against what the
 * kernel holds, the tightest window is exactly at the budget. */
static void test_check_coarse_timer(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", DATA_DIR "coarse_timer.yaml", "-o", "c.db", "--quiet", NULL),
                     0);
    assert_int_equal(spawn_mcsim("check", "c.db", NULL), 0);
    assert_non_null(strstr(spawn_out, "PASS  budget: respected  (0 of 1 contexts over budget; tightest: a ran 100us "
                                      "(100 ticks) in [0, 1ms), allowed 100us (100 ticks: budget 100us + "
                                      "entry 0))\n"));
    assert_int_equal(sqlq_path_int(workdir_file("c.db"),
                                   "SELECT count(*) FROM slices WHERE thread_id = 1"
                                   " AND end_time - start_time = 100000"),
                     20);
}

/* A sporadic context (1ms / 10ms) preempted while runnable for 30ms (issue
 * 19 item 3): it catches up 3.5ms at 40.5ms, 4ms in [40.5ms, 50.5ms),
 * which "2 x budget per window" refused though seL4 does it. What holds is
 * the guarantee counted from when its refills were last dated (here its
 * configuration; it never blocks): 5ms in the 5 periods [0, 50ms), exactly
 * the bound. A recorded slice stretched by hand (a kernel that let it run
 * 1.5ms of its first 1ms refill) breaks it. */
static void test_check_sporadic_guarantee(void **state)
{
    (void)state;
    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "sporadic_catchup.yaml", "-o", "s.db", "--quiet", NULL), 0);
    sqlq_assert_path_rows(workdir_file("s.db"),
                          "SELECT start_time, end_time FROM slices WHERE thread_id = 1"
                          " ORDER BY start_time",
                          "0|1000000\n10000000|10500000\n40500000|44000000\n50000000|51000000\n");
    assert_int_equal(spawn_mcsim("check", "s.db", NULL), 0);
    assert_non_null(strstr(spawn_out, "PASS  budget: respected  (0 of 2 contexts over budget; tightest: s ran 1ms "
                                      "(1000000 cycles) in [0, 10ms), 1 period from when its refills were dated, "
                                      "allowed 1ms (1000000 cycles: 1 x budget 1ms + entry 0))\n"));
    /* and at the bound again in [0, 50ms), after its catch-up */
    assert_int_equal(sqlq_path_int(workdir_file("s.db"),
                                   "SELECT sum(min(end_time, 50000000) - start_time) FROM slices"
                                   " WHERE thread_id = 1 AND start_time < 50000000"),
                     5000000);
    sqlq_exec(workdir_file("s.db"),
              "UPDATE slice_rows SET end_time = 1500000 WHERE thread_id = 1 AND start_time = 0");
    assert_int_equal(spawn_mcsim("check", "s.db", NULL), 1);
    assert_non_null(strstr(spawn_out, "FAIL  budget: respected  (1 of 2 contexts over budget; worst: s ran 1.5ms "
                                      "(1500000 cycles) in [0, 10ms), 1 period from when its refills were dated, "
                                      "allowed 1ms (1000000 cycles: 1 x budget 1ms + entry 0))\n"));
}

/* seL4/microkit #285 (issue 19 item 4): a 2us round-robin context, 590
 * cycles of kernel entry before the budget check, MIN_BUDGET 1940: every
 * system call of spin is restarted and low never runs. The kernel does
 * that, as seL4 does; the run says so in its summary and as one
 * no_progress event, and check fails its progress guarantee. */
static void test_check_no_progress(void **state)
{
    static const char line[] =
        "1 thread stuck; first spin from 120 on: its system call restarted 100 times in a row"
        " (MIN_BUDGET rule: budget 2000 - 590 cycles a kernel entry consumed < MIN_BUDGET"
        " 1940)";
    char want[512];

    (void)state;
    assert_int_equal(spawn_mcsim("run", DATA_DIR "no_progress.yaml", "-o", "p.db", NULL), 0);
    snprintf(want, sizeof want, "no progress: %s\n", line);
    assert_non_null(strstr(spawn_out, want));
    sqlq_assert_path_rows(workdir_file("p.db"),
                          "SELECT time, thread_id, object, arg FROM events"
                          " WHERE kind = 'no_progress'",
                          "120|1|590|2000\n");
    assert_int_equal(spawn_mcsim("check", "p.db", NULL), 1);
    snprintf(want, sizeof want, "FAIL  guarantee: every thread made progress  (%s)\n", line);
    assert_non_null(strstr(spawn_out, want));
}

/* The scenario's text is in the database: check needs no file. Without
 * that row it reads the file if its sha256 still matches, and refuses a
 * changed or missing one. */
static void test_check_needs_only_the_database(void **state)
{
    char path[600];
    FILE *f;

    (void)state;
    snprintf(path, sizeof path, "%s", workdir_file("s.yaml"));
    workdir_copy(DATA_DIR "expect_fails.yaml", "s.yaml");
    assert_int_equal(spawn_mcsim("run", "s.yaml", "-o", "f.db", NULL), 1);
    assert_int_equal(remove(path), 0);
    assert_int_equal(spawn_mcsim("check", "f.db", NULL), 1);
    assert_non_null(strstr(spawn_out, "FAIL  max_response: worker at_most 1ms"));
    sqlq_exec(workdir_file("f.db"), "DELETE FROM scenario_files");
    assert_int_equal(spawn_mcsim("check", "f.db", NULL), 2);
    assert_non_null(strstr(spawn_err, "is gone or changed"));
    workdir_copy(DATA_DIR "expect_fails.yaml", "s.yaml");
    assert_int_equal(spawn_mcsim("check", "f.db", NULL), 1);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("# changed\n", f);
    fclose(f);
    assert_int_equal(spawn_mcsim("check", "f.db", NULL), 2);
}

/* The run's own duration, seed and scheduler (command-line overrides)
 * come from its row. */
static void test_check_uses_the_runs_overrides(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "o.db", "--duration", "30ms",
                                 "--seed", "5", "--scheduler", "classic", NULL),
                     0);
    assert_int_equal(spawn_mcsim("check", "o.db", NULL), 0);
    assert_non_null(strstr(spawn_out, "classic scheduler, seed 5"));
    assert_non_null(strstr(spawn_out, "of 3 jobs of control missed"));
}

static void test_check_run_selection_and_errors(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("check", "none.db", NULL), 2);
    assert_non_null(strstr(spawn_err, "no such database"));
    assert_int_equal(spawn_mcsim("check", NULL), 2);
    assert_int_equal(spawn_mcsim("check", "x.db", "--bogus", NULL), 2);
    assert_int_equal(spawn_mcsim("check", "x.db", "--run", "zero", NULL), 2);
    assert_int_equal(spawn_mcsim("run", DATA_DIR "expect_holds.yaml", "-o", "r.db", NULL), 0);
    assert_int_equal(spawn_mcsim("run", DATA_DIR "expect_fails.yaml", "-o", "r.db", NULL), 1);
    assert_int_equal(spawn_mcsim("check", "r.db", NULL), 1); /* the latest: run 2 */
    assert_int_equal(spawn_mcsim("check", "r.db", "--run", "1", NULL), 0);
    assert_int_equal(spawn_mcsim("check", "r.db", "--run", "3", NULL), 2);
    assert_non_null(strstr(spawn_err, "has no run 3"));
    sqlq_exec(workdir_file("r.db"), "UPDATE runs SET finished = 0 WHERE run_id = 2");
    assert_int_equal(spawn_mcsim("check", "r.db", "--run", "2", NULL), 2);
    assert_non_null(strstr(spawn_err, "unfinished"));
    assert_int_equal(spawn_mcsim("check", "r.db", NULL), 0); /* the latest finished: run 1 */
    sqlq_exec(workdir_file("r.db"), "UPDATE runs SET finished = 0");
    assert_int_equal(spawn_mcsim("check", "r.db", NULL), 2);
    assert_non_null(strstr(spawn_err, "no finished run"));
    assert_int_equal(spawn_mcsim("help", "check", NULL), 0);
    assert_non_null(strstr(spawn_out, "usage: mcsim check DB [--run N]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_check_agrees_on_every_scenario, workdir_empty),
        cmocka_unit_test_setup(test_check_catches_tampered_job, workdir_empty),
        cmocka_unit_test_setup(test_check_catches_broken_guarantees, workdir_empty),
        cmocka_unit_test_setup(test_check_coarse_timer, workdir_empty),
        cmocka_unit_test_setup(test_check_sporadic_guarantee, workdir_empty),
        cmocka_unit_test_setup(test_check_no_progress, workdir_empty),
        cmocka_unit_test_setup(test_check_needs_only_the_database, workdir_empty),
        cmocka_unit_test_setup(test_check_uses_the_runs_overrides, workdir_empty),
        cmocka_unit_test_setup(test_check_run_selection_and_errors, workdir_empty),
    };

    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
