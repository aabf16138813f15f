/*
 * `mcsim validate` and `mcsim run` accept exactly the same files (issue
 * 13, part 2): each file of tests/data/refuse/ is one class of scenario
 * that follows the format yet could not run (it was an exit 3 of run after
 * validate said ok, or cost far more than its size); both commands refuse
 * it with exit 2 and the same FILE:LINE:COL error, and run writes no
 * database. A livelock found only at run time is the scenario's fault
 * too: exit 2, the thread and its step named, the run never finished.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/refuse/"
#define LOAD_DIR MCSIM_SOURCE_DIR "/tests/data/load/"

static int setup(void **state)
{
    (void)state;
    return workdir_create("refuse");
}

struct refused {
    const char *file;
    const char *error;   /* the one error line, without the directory */
    const char *warning; /* a warning printed after it, or NULL */
};

static const struct refused cases[] = {
    {"short_duration.yaml",
     "short_duration.yaml:4:11: error: the run's duration (1000 cycles) is shorter than "
     "MIN_BUDGET (1940 cycles), the least budget of the context the root task builds the "
     "system on, which lasts the whole run (expected a duration of at least 1940 cycles)", NULL},
    {"zero_cost_loop.yaml",
     "zero_cost_loop.yaml:7:91: error: loop in thread 'a' makes system calls for ever without "
     "time passing: every kernel cost is 0 and none of its steps computes or waits (expected "
     "a compute of more than 0, a step that waits such as recv, wait or call, or "
     "platform.kernel_costs that are not 0)", NULL},
    {"sub_tick_budget.yaml",
     "sub_tick_budget.yaml:6:22: error: kernel.min_budget (100ns = 100 cycles) is shorter than "
     "one tick of the timer (1000 cycles at timer_hz 1000000 Hz), the least time the kernel "
     "can hold (expected at least one tick)",
     "sub_tick_budget.yaml:8:45: warning: budget of thread 'a' (500ns) is not a whole number "
     "of timer ticks (timer_hz 1000000 Hz): the kernel holds 0 ticks, 0 cycles"},
    {"reset_not_passive.yaml",
     "reset_not_passive.yaml:11:23: error: handle_timeouts of thread 'handler' (reset) serves "
     "thread 'server' (its timeout_endpoint 'faults'), which is not passive (expected passive: "
     "true on a thread whose timeout faults are reset, as reset and a second fault under "
     "emergency_budget do: the server is restarted, passive, at its receive; or action "
     "inherit)", NULL},
    {"emergency_not_passive.yaml",
     "emergency_not_passive.yaml:11:23: error: handle_timeouts of thread 'handler' "
     "(emergency_budget) serves thread 'server' (its timeout_endpoint 'faults'), which is not "
     "passive (expected passive: true on a thread whose timeout faults are reset, as reset and "
     "a second fault under emergency_budget do: the server is restarted, passive, at its "
     "receive; or action inherit)", NULL},
    {"grant_below_min_budget.yaml",
     "grant_below_min_budget.yaml:14:23: error: emergency_budget of thread 'handler' (1000 "
     "cycles) is less than MIN_BUDGET (3000 cycles) in the kernel's whole timer ticks: the "
     "kernel refuses the grant (expected at least 3000 cycles)", NULL},
    {"second_document.yaml",
     "second_document.yaml:9:1: error: invalid YAML: did not find expected ',' or '}' (while "
     "parsing a flow mapping at 8:9)", NULL},
    {"alias_bomb.yaml",
     "alias_bomb.yaml:5:464: error: the alias *f makes the file more than 109712 YAML nodes "
     "(100000 + 16 a byte), each alias counted as the nodes it names (expected fewer aliases "
     "to large nodes)", NULL},
};

static void test_refuse_both_commands(void **state)
{
    (void)state;
    char want[2048], lines[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct refused *c = &cases[i];
        workdir_clear();
        snprintf(lines, sizeof lines, DATA_DIR "%s\n%s%s%s", c->error,
                 c->warning ? DATA_DIR : "", c->warning ? c->warning : "", c->warning ? "\n" : "");
        assert_int_equal(spawn_shell("validate " DATA_DIR "%s", c->file), 2);
        snprintf(want, sizeof want, "%s" DATA_DIR "%s: 1 error\n", lines, c->file);
        assert_string_equal(spawn_err, want);
        assert_string_equal(spawn_out, "");
        assert_int_equal(spawn_shell("run " DATA_DIR "%s -o run.db", c->file), 2);
        assert_string_equal(spawn_err, lines);
        assert_string_equal(spawn_out, "");
        assert_int_equal(workdir_count(), 0); /* no database, not even an empty one */
    }
}

/* One thread more than SCN_MAX_THREADS (the loader's check, which the
 * two commands share): refused by both at the thread, and no database. */
static void test_refuse_too_many_threads(void **state)
{
    (void)state;
    FILE *f;
    char want[256];
    workdir_clear();
    f = fopen(workdir_file("many.yaml"), "w");
    assert_non_null(f);
    fprintf(f, "mcsim: 1\nduration: 1ms\nthreads:\n");
    for (unsigned k = 0; k <= 4096; k++)
        fprintf(f, "  t%u: {priority: 1, criticality: lo, budget: 50us, period: 1ms, "
                   "program: [{compute: 1us}]}\n", k);
    fclose(f);
    snprintf(want, sizeof want,
             "many.yaml:4100:3: error: thread 't4096' is one too many: a scenario has at most "
             "4096 threads\n");
    assert_int_equal(spawn_shell("run many.yaml"), 2);
    assert_string_equal(spawn_err, want);
    assert_int_equal(spawn_shell("validate many.yaml"), 2);
    strcat(want, "many.yaml: 1 error\n");
    assert_string_equal(spawn_err, want);
    assert_int_equal(workdir_count(), 1); /* many.yaml alone */
}

/* A second document that is YAML is accepted by both, and not read. */
static void test_refuse_second_document_read_by_neither(void **state)
{
    (void)state;
    workdir_clear();
    assert_int_equal(spawn_shell("validate " LOAD_DIR "good_second_doc.yaml"), 0);
    assert_string_equal(spawn_out, LOAD_DIR "good_second_doc.yaml: ok\n");
    assert_int_equal(spawn_shell("run " LOAD_DIR "good_second_doc.yaml -o run.db --quiet"), 0);
    assert_string_equal(spawn_err, "");
    assert_int_equal(sqlq_path_int(workdir_file("run.db"), "SELECT count(*) FROM threads"), 2);
}

/* The command line's --duration is checked as the file's duration is, at
 * no place in the file. */
static void test_refuse_duration_option(void **state)
{
    (void)state;
    workdir_clear();
    assert_int_equal(spawn_shell("run " LOAD_DIR "good_second_doc.yaml --duration 1us"), 2);
    assert_string_equal(spawn_err, LOAD_DIR "good_second_doc.yaml: error: the run's duration "
                                            "(1000 cycles) is shorter than MIN_BUDGET (1940 "
                                            "cycles), the least budget of the context the root "
                                            "task builds the system on, which lasts the whole "
                                            "run (expected a duration of at least 1940 "
                                            "cycles)\n");
    assert_int_equal(workdir_count(), 0);
}

/* validate cannot see it; run stops it as the scenario's fault. */
static void test_refuse_livelock_at_run_time(void **state)
{
    (void)state;
    workdir_clear();
    assert_int_equal(spawn_shell("validate " DATA_DIR "livelock.yaml"), 0);
    assert_int_equal(spawn_shell("run " DATA_DIR "livelock.yaml -o run.db"), 2);
    assert_string_equal(spawn_err,
                        DATA_DIR "livelock.yaml:10:55: error: thread 'a' makes system calls "
                                 "forever at cycle 10000 without time passing (a livelock: "
                                 "expected a compute step, a step that waits, or kernel costs "
                                 "that are not 0)\n"
                                 "mcsim: run: run 1 of run.db is left unfinished (finished = "
                                 "0)\n");
    assert_int_equal(sqlq_path_int(workdir_file("run.db"), "SELECT finished FROM runs"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refuse_both_commands),
        cmocka_unit_test(test_refuse_too_many_threads),
        cmocka_unit_test(test_refuse_second_document_read_by_neither),
        cmocka_unit_test(test_refuse_duration_option),
        cmocka_unit_test(test_refuse_livelock_at_run_time),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
