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
#include "workdir.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/load/"

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

static void test_validate_first_document(void **state)
{
    (void)state;
    assert_int_equal(spawn_shell("validate " DATA_DIR "bad_second_doc.yaml"), 2);
    assert_int_equal(spawn_shell("validate --first-document " DATA_DIR "bad_second_doc.yaml"), 0);
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
    assert_string_equal(spawn_err, "mcsim: validate: unknown option '--bogus' (see 'mcsim help "
                                   "validate')\n");
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
    assert_string_equal(spawn_out, "mcsim " MCSIM_VERSION "\n");
    assert_int_equal(workdir_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_good),           cmocka_unit_test(test_validate_bad),
        cmocka_unit_test(test_validate_first_document), cmocka_unit_test(test_validate_usage),
        cmocka_unit_test(test_validate_command_table),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
