/*
 * mcsim validate and the command table, run as a user runs them: the
 * `mcsim` binary (MCSIM_BIN, set by CTest) in an empty directory. Exit
 * statuses, what goes to which stream, and that nothing is written.
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
#include "util/version.h"
#include "workdir.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/load/"
#define SDF_TIMER MCSIM_SOURCE_DIR "/tests/data/sdf/examples/microkit-timer.system"
#define SDF_TIMER_SIDECAR MCSIM_SOURCE_DIR "/tests/data/sdf/sidecars/timer.mcsim.yaml"

static int setup(void **state)
{
    (void)state;
    return workdir_create("validate");
}

static void test_validate_good(void **state)
{
    (void)state;
    assert_int_equal(
        spawn_shell("validate " DATA_DIR "good_full.yaml " DATA_DIR "good_defaults.yaml"), 0);
    assert_string_equal(spawn_out,
                        DATA_DIR "good_full.yaml: ok\n" DATA_DIR "good_defaults.yaml: ok\n");
    assert_string_equal(spawn_err, "");
    assert_int_equal(workdir_count(), 0);
}

static void test_validate_bad(void **state)
{
    (void)state;
    assert_int_equal(
        spawn_shell("validate " DATA_DIR "good_defaults.yaml " DATA_DIR "bad_timer.yaml"), 2);
    assert_string_equal(spawn_out, DATA_DIR "good_defaults.yaml: ok\n");
    assert_string_equal(spawn_err,
                        DATA_DIR "bad_timer.yaml:3:39: error: platform.timer_hz (1GHz) is "
                                 "faster than platform.cpu_hz (62500000 Hz) (expected timer_hz <= "
                                 "cpu_hz)\n" DATA_DIR "bad_timer.yaml: 1 error\n");
    assert_int_equal(workdir_count(), 0);
}

/* A context duration that is not a whole number of timer ticks is valid,
 * with a warning naming what the kernel holds (issue 19 item 2). */
static void test_validate_whole_ticks(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("validate " MCSIM_SOURCE_DIR "/tests/data/run/coarse_timer.yaml"),
                     0);
    assert_string_equal(spawn_out, MCSIM_SOURCE_DIR "/tests/data/run/coarse_timer.yaml: ok\n");
    assert_string_equal(spawn_err, MCSIM_SOURCE_DIR
                        "/tests/data/run/coarse_timer.yaml:19:13: warning: period of thread 'a'"
                        " (1000.9us) is not a whole number of timer ticks (timer_hz 1000000 Hz):"
                        " the kernel holds 1000 ticks, 1000000 cycles\n");
    assert_int_equal(workdir_count(), 0);
}

/* An emergency_budget handler not above a server it serves restores the
 * client's context late (issue 19, unit.property scenario 4342): valid,
 * with a warning at its handle_timeouts step. */
static void test_validate_handler_below_server(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("validate " DATA_DIR "handler_below_server.yaml"), 0);
    assert_string_equal(spawn_out, DATA_DIR "handler_below_server.yaml: ok\n");
    assert_string_equal(spawn_err,
                        DATA_DIR "handler_below_server.yaml:12:23: warning: handle_timeouts of "
                                 "thread 'handler' (emergency_budget, priority 20) is not above "
                                 "thread 'server' (priority 20), whose faults it serves: it gives "
                                 "the client's context its budget back when it next runs, which "
                                 "may be after the server answered, and a client blocked by then "
                                 "gets its whole budget at once (expected a priority above 20)\n");
    assert_int_equal(workdir_count(), 0);
}

/* The scenario is the first document; what follows must be YAML, and is
 * not read (run accepts the same files: tests/unit/test_refuse.c). */
static void test_validate_second_document(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("validate " DATA_DIR "good_second_doc.yaml"), 0);
    assert_string_equal(spawn_out, DATA_DIR "good_second_doc.yaml: ok\n");
    assert_int_equal(spawn_shell("validate " DATA_DIR "bad_second_doc.yaml"), 2);
    assert_string_equal(spawn_err,
                        DATA_DIR "bad_second_doc.yaml:7:1: error: invalid YAML: did not find "
                                 "expected ',' or '}' (while parsing a flow mapping at 6:9)\n" DATA_DIR
                                 "bad_second_doc.yaml: 1 error\n");
    assert_int_equal(workdir_count(), 0);
}

static void test_validate_usage(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("validate"), 2);
    assert_string_equal(spawn_out, "");
    assert_non_null(
        strstr(spawn_err, "mcsim: validate: no scenario file given\nusage: mcsim validate"));
    assert_int_equal(spawn_shell("validate --bogus x.yaml"), 2);
    assert_string_equal(spawn_err, "mcsim: validate: unknown option '--bogus'\n(see 'mcsim help "
                                   "validate')\n");
    assert_int_equal(spawn_shell("validate --strictt x.yaml"), 2);
    assert_string_equal(spawn_err, "mcsim: validate: unknown option '--strictt'; did you mean "
                                   "'--strict'?\n(see 'mcsim help validate')\n");
    assert_int_equal(spawn_shell("validate --help"), 0);
    assert_true(strncmp(spawn_out, "usage: mcsim validate", 21) == 0);
}

static void test_validate_command_table(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim(NULL), 2);
    assert_string_equal(spawn_out, "");
    assert_true(strncmp(spawn_err, "usage: mcsim COMMAND", 20) == 0);
    assert_int_equal(spawn_shell("help"), 0);
    assert_non_null(strstr(spawn_out, "\n  run "));
    assert_non_null(strstr(spawn_out, "\n  validate "));
    assert_int_equal(spawn_shell("--help"), 0);
    assert_int_equal(spawn_shell("help validate"), 0);
    assert_true(strncmp(spawn_out, "usage: mcsim validate", 21) == 0);
    assert_int_equal(spawn_shell("help frobnicate"), 2);
    assert_string_equal(spawn_err, "mcsim: unknown command 'frobnicate' (see 'mcsim help')\n");
    assert_int_equal(spawn_shell("frobnicate"), 2);
    assert_string_equal(spawn_err, "mcsim: unknown command 'frobnicate' (see 'mcsim help')\n");
    assert_int_equal(spawn_shell("--version"), 0);
    /* the version and the build's identity: the commit, or a hash of the sources */
    assert_true(strncmp(spawn_out, "mcsim " MCSIM_VERSION "+", strlen("mcsim " MCSIM_VERSION "+")) == 0);
    assert_true(strstr(spawn_out, "+g") != NULL || strstr(spawn_out, "+src.") != NULL);
    {
        char want[128];
        snprintf(want, sizeof want, "mcsim %s\n", mcsim_build_version);
        assert_string_equal(spawn_out, want);
    }
    assert_int_equal(workdir_count(), 0);
}

/* A Microkit .system file where a scenario goes: `mcsim analyze` and
 * `mcsim run` take it as `mcsim sdf analyze` and `mcsim sdf run` do (the
 * same output, byte for byte); `validate` refuses it at 1:1, saying what
 * reads it, and writes nothing. */
static void test_validate_system_file(void **state)
{
    static char via_sdf[SPAWN_OUT_MAX];
    (void)state;
    assert_int_equal(spawn_shell("sdf analyze " SDF_TIMER " --sidecar " SDF_TIMER_SIDECAR " --json"),
                     0);
    strcpy(via_sdf, spawn_out);
    assert_non_null(strstr(via_sdf, "\"scenario\": \"microkit_timer\""));
    assert_int_equal(spawn_shell("analyze " SDF_TIMER " --sidecar " SDF_TIMER_SIDECAR " --json"), 0);
    assert_string_equal(spawn_out, via_sdf);
    assert_string_equal(spawn_err, "");
    assert_int_equal(spawn_shell("run " SDF_TIMER " --sidecar " SDF_TIMER_SIDECAR
                                 " -o t.db --duration 10ms --quiet"),
                     0);
    assert_int_equal(workdir_count(), 1);
    assert_int_equal(spawn_shell("runs t.db"), 0);
    assert_non_null(strstr(spawn_out, "microkit_timer"));
    remove(workdir_file("t.db"));
    assert_int_equal(spawn_shell("validate " SDF_TIMER), 2);
    assert_string_equal(spawn_out, "");
    assert_string_equal(spawn_err, SDF_TIMER ":1:1: error: the file is XML, not a scenario (a "
                                             "Microkit system description is read by 'mcsim "
                                             "sdf': lint, run, analyze or export it)\n" SDF_TIMER
                                             ": 1 error\n");
    assert_int_equal(workdir_count(), 0);
}

/* A scenario of `threads` threads and `devices` devices (device i on line
 * i, 5us after device i - 1, every 10ms, signalling notification n<i>,
 * on which thread i waits and which it acknowledges), one per line
 * after a 4-line header: device i's key is on line 6 + i, thread k's on
 * line 6 + k without devices. */
static void write_large(const char *name, unsigned threads, unsigned devices)
{
    FILE *f = fopen(workdir_file(name), "w");

    assert_non_null(f);
    fprintf(f, "mcsim: 1\nduration: 20ms\ncriticality: [lo]\nnotifications: [n");
    for (unsigned i = 0; i < devices; i++)
        fprintf(f, ", n%u", i);
    fprintf(f, "]\n");
    if (devices > 0)
        fprintf(f, "devices:\n");
    for (unsigned i = 0; i < devices; i++)
        fprintf(f, "  d%u: {irq: %u, notification: n%u, offset: %uus, arrivals: {periodic: 10ms}}\n",
                i, i, i, 5 * i);
    fprintf(f, "threads:\n");
    for (unsigned k = 0; k < threads; k++) {
        fprintf(f, "  t%u: {priority: %u, criticality: lo, budget: 50us, period: 10ms, program: ",
                k, 1 + k % 200);
        if (k < devices)
            fprintf(f, "[{loop: [{wait: n%u}, {compute: 1us}, {irq_ack: d%u}]}]}\n", k, k);
        else
            fprintf(f, "[{compute: 1us}]}\n");
    }
    fclose(f);
}

/* 4,096 threads and 1,024 devices and lines are what a scenario may have
 * (SCN_MAX_THREADS, SCN_MAX_DEVICES, SCN_IRQ_LINES); one more thread or
 * device is refused at its key; the largest system runs. */
static void test_validate_limits(void **state)
{
    char want[512];
    (void)state;

    write_large("max.yaml", 4096, 1024);
    assert_int_equal(spawn_shell("validate max.yaml"), 0);
    assert_string_equal(spawn_out, "max.yaml: ok\n");

    write_large("threads.yaml", 4097, 0);
    assert_int_equal(spawn_shell("validate threads.yaml"), 2);
    snprintf(want, sizeof want,
             "threads.yaml:%u:3: error: thread 't4096' is one too many: a scenario has at most "
             "4096 threads\nthreads.yaml: 1 error\n",
             6u + 4096u);
    /* (threads.yaml has no devices; devices.yaml's device 1024 follows 1024) */
    assert_string_equal(spawn_err, want);

    write_large("devices.yaml", 1, 1025);
    assert_int_equal(spawn_shell("validate devices.yaml"), 2);
    snprintf(want, sizeof want,
             "devices.yaml:%u:3: error: device 'd1024' is one too many: a scenario has at most "
             "1024 devices\ndevices.yaml: 1 error\n",
             6u + 1024u);
    assert_string_equal(spawn_err, want);

    /* the QEMU image runs at most 255 threads and lines 0 to 255: `mcsim
     * qemu` says so at the thread or device before it looks for QEMU */
    write_large("qemu_threads.yaml", 256, 0);
    assert_int_equal(spawn_shell("qemu qemu_threads.yaml"), 2);
    snprintf(want, sizeof want,
             "qemu_threads.yaml:%u:3: error: thread 't255' is one too many for the QEMU image, "
             "which runs at most 255 threads (the simulator, 'mcsim run', runs up to 4096)\n",
             6u + 255u);
    assert_string_equal(spawn_err, want);
    write_large("qemu_lines.yaml", 1, 257);
    assert_int_equal(spawn_shell("qemu qemu_lines.yaml"), 2);
    snprintf(want, sizeof want,
             "qemu_lines.yaml:%u:3: error: irq 256 of device 'd256' is past the QEMU image's "
             "lines, 0 to 255 (the simulator, 'mcsim run', has lines up to 1023)\n",
             6u + 256u);
    assert_string_equal(spawn_err, want);

    /* the largest system runs: every device's two interrupts delivered,
     * on 1024 lines, and no context ran out of budget */
    assert_int_equal(spawn_shell("run max.yaml -o max.db --quiet"), 0);
    assert_int_equal(spawn_sh("sqlite3 max.db 'SELECT count(*) FROM threads; "
                              "SELECT count(*) FROM irqs WHERE delivered IS NOT NULL; "
                              "SELECT count(DISTINCT line) FROM irqs; "
                              "SELECT count(*) FROM budget_events' > counts.txt"),
                     0);
    char *counts = workdir_must_read("counts.txt", NULL);
    assert_string_equal(counts, "4097\n2048\n1024\n0\n");
    free(counts);
    workdir_clear();
}

/* The same two mistakes in each of 2,000 threads: three of each kind
 * are printed, then counted, all 4,000 of them (issue 14). */
static void test_validate_repeated(void **state)
{
    (void)state;
    FILE *f = fopen(workdir_file("same.yaml"), "w");

    assert_non_null(f);
    fprintf(f, "mcsim: 1\nduration: 20ms\ncriticality: [lo]\nthreads:\n");
    for (unsigned k = 0; k < 2000; k++)
        fprintf(f, "  t%u: {priority: 300, criticality: lo, budget: 20ms, period: 10ms, "
                   "program: [{compute: 1us}]}\n", k);
    fclose(f);
    assert_int_equal(spawn_shell("validate same.yaml"), 2);
    assert_string_equal(spawn_out, "");
    assert_string_equal(
        spawn_err,
        "same.yaml:5:18: error: priority of thread 't0' is '300' (expected a whole number "
        "from 0 to 255)\n"
        "same.yaml:5:48: error: budget of thread 't0' (20ms) is longer than its period (10ms) "
        "(expected budget <= period)\n"
        "same.yaml:6:18: error: priority of thread 't1' is '300' (expected a whole number "
        "from 0 to 255)\n"
        "same.yaml:6:48: error: budget of thread 't1' (20ms) is longer than its period (10ms) "
        "(expected budget <= period)\n"
        "same.yaml:7:18: error: priority of thread 't2' is '300' (expected a whole number "
        "from 0 to 255)\n"
        "same.yaml: note: ... and 1,997 more like it\n"
        "same.yaml:7:48: error: budget of thread 't2' (20ms) is longer than its period (10ms) "
        "(expected budget <= period)\n"
        "same.yaml: note: ... and 1,997 more like it\n"
        "same.yaml: 4000 errors\n");
    workdir_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_good),           cmocka_unit_test(test_validate_bad),
        cmocka_unit_test(test_validate_second_document), cmocka_unit_test(test_validate_usage),
        cmocka_unit_test(test_validate_command_table), cmocka_unit_test(test_validate_limits),
        cmocka_unit_test(test_validate_whole_ticks),
        cmocka_unit_test(test_validate_handler_below_server),
        cmocka_unit_test(test_validate_repeated),
        cmocka_unit_test(test_validate_system_file),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
