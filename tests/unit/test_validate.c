/*
 * mcsim validate and the command table, run as a user runs them: the
 * `mcsim` binary (MCSIM_BIN, set by CTest) in an empty directory. Exit
 * statuses, what goes to which stream, and that nothing is written.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/load/"

static char workdir[256];
static char out[8192], err[8192];

/* Read all of `path` into `buf` (NUL-terminated). */
static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Run `mcsim ARGS` in the empty work directory; its output is captured
 * outside it. Returns the exit status. */
static int run(const char *args)
{
    char cmd[2048];
    const char *bin = getenv("MCSIM_BIN");
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >'%s.out' 2>'%s.err'", workdir, bin, args,
             workdir, workdir);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "%s.out", workdir);
    slurp(cmd, out, sizeof out);
    snprintf(cmd, sizeof cmd, "%s.err", workdir);
    slurp(cmd, err, sizeof err);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static size_t files_in_workdir(void)
{
    size_t n = 0;
    struct dirent *e;
    DIR *dir = opendir(workdir);
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dir);
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (!getenv("MCSIM_BIN")) {
        print_message("MCSIM_BIN is not set: run this test through ctest\n");
        return -1;
    }
    snprintf(workdir, sizeof workdir, "/tmp/mcsim-test-validate-XXXXXX");
    return mkdtemp(workdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char path[300];
    (void)state;
    snprintf(path, sizeof path, "%s.out", workdir);
    remove(path);
    snprintf(path, sizeof path, "%s.err", workdir);
    remove(path);
    return rmdir(workdir);
}

static void test_validate_good(void **state)
{
    (void)state;
    assert_int_equal(run("validate " DATA_DIR "good_full.yaml " DATA_DIR "good_defaults.yaml"), 0);
    assert_string_equal(out, DATA_DIR "good_full.yaml: ok\n" DATA_DIR "good_defaults.yaml: ok\n");
    assert_string_equal(err, "");
    assert_int_equal(files_in_workdir(), 0);
}

static void test_validate_bad(void **state)
{
    (void)state;
    assert_int_equal(run("validate " DATA_DIR "good_defaults.yaml " DATA_DIR "bad_timer.yaml"), 2);
    assert_string_equal(out, DATA_DIR "good_defaults.yaml: ok\n");
    assert_string_equal(err,
                        DATA_DIR "bad_timer.yaml:3:39: error: platform.timer_hz (1GHz) is "
                                 "faster than platform.cpu_hz (62500000 Hz) (expected timer_hz <= "
                                 "cpu_hz)\n" DATA_DIR "bad_timer.yaml: 1 error\n");
    assert_int_equal(files_in_workdir(), 0);
}

static void test_validate_first_document(void **state)
{
    (void)state;
    assert_int_equal(run("validate " DATA_DIR "bad_second_doc.yaml"), 2);
    assert_int_equal(run("validate --first-document " DATA_DIR "bad_second_doc.yaml"), 0);
    assert_int_equal(files_in_workdir(), 0);
}

static void test_validate_usage(void **state)
{
    (void)state;
    assert_int_equal(run("validate"), 2);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "mcsim: validate: no scenario file given\nusage: mcsim validate"));
    assert_int_equal(run("validate --bogus x.yaml"), 2);
    assert_string_equal(err, "mcsim: validate: unknown option '--bogus' (see 'mcsim help "
                             "validate')\n");
    assert_int_equal(run("validate --help"), 0);
    assert_true(strncmp(out, "usage: mcsim validate", 21) == 0);
}

static void test_validate_command_table(void **state)
{
    (void)state;
    assert_int_equal(run(""), 2);
    assert_string_equal(out, "");
    assert_true(strncmp(err, "usage: mcsim COMMAND", 20) == 0);
    assert_int_equal(run("help"), 0);
    assert_non_null(strstr(out, "\n  run "));
    assert_non_null(strstr(out, "\n  validate "));
    assert_int_equal(run("--help"), 0);
    assert_int_equal(run("help validate"), 0);
    assert_true(strncmp(out, "usage: mcsim validate", 21) == 0);
    assert_int_equal(run("help frobnicate"), 2);
    assert_string_equal(err, "mcsim: unknown command 'frobnicate' (see 'mcsim help')\n");
    assert_int_equal(run("frobnicate"), 2);
    assert_string_equal(err, "mcsim: unknown command 'frobnicate' (see 'mcsim help')\n");
    assert_int_equal(run("--version"), 0);
    assert_string_equal(out, "mcsim " MCSIM_VERSION "\n");
    assert_int_equal(files_in_workdir(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_good),           cmocka_unit_test(test_validate_bad),
        cmocka_unit_test(test_validate_first_document), cmocka_unit_test(test_validate_usage),
        cmocka_unit_test(test_validate_command_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
