/*
 * A recorded file can be read by anyone who can read it (issue 13 item
 * 7): a recorder leaves its file in rollback-journal mode; the commands
 * that only read (check, gantt, export, diff) leave no -wal or -shm file
 * and open a finished run from a folder they cannot write, run as an
 * unprivileged user (`nobody` through setpriv when the tests run as root;
 * as the user itself otherwise); runs.version names the build; Ctrl-C
 * during the checks leaves the run unfinished until its verdicts are
 * stored.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "spawn.h"
#include "sqlq.h"
#include "util/version.h"
#include "workdir.h"

#define NETWORK_DRIVER MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml"

static int setup(void **state)
{
    (void)state;
    return workdir_create("readonly");
}

/* Fail if the work directory (or its "ro" folder) holds a -wal or -shm
 * file. */
static void assert_no_logs(const char *db)
{
    char name[256];

    snprintf(name, sizeof name, "%s-wal", db);
    assert_false(workdir_exists(name));
    snprintf(name, sizeof name, "%s-shm", db);
    assert_false(workdir_exists(name));
}

/* Each reading command on a file recorded twice: no log files, before or
 * after, and the file's journal is a rollback journal. */
static void test_readonly_no_logs(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "r.db", "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "r.db", "--quiet", "--scheduler",
                                 "classic", NULL),
                     0);
    assert_no_logs("r.db");
    assert_int_equal(workdir_count(), 1);
    sqlq_assert_path_rows(workdir_file("r.db"), "PRAGMA journal_mode", "delete\n");

    assert_int_equal(spawn_mcsim("check", "r.db", "--quiet", NULL), 0);
    assert_no_logs("r.db");
    assert_int_equal(spawn_mcsim("gantt", "r.db", "-o", "c.svg", NULL), 0);
    assert_no_logs("r.db");
    assert_int_equal(spawn_mcsim("export", "r.db", "--format", "chrome", "-o", "t.json", NULL), 0);
    assert_no_logs("r.db");
    assert_int_equal(spawn_mcsim("diff", "r.db", "--run", "1", "--run", "2", NULL), 1);
    assert_no_logs("r.db");
    /* the database, the chart and the trace: nothing else */
    assert_int_equal(workdir_count(), 3);
}

/* runs.version is the build's: the version, then the commit or a hash of
 * the sources; `mcsim --version` prints the same. */
static void test_readonly_version(void **state)
{
    char want[160];

    (void)state;
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "v.db", "--quiet", NULL), 0);
    snprintf(want, sizeof want, "%s\n", mcsim_build_version);
    sqlq_assert_path_rows(workdir_file("v.db"), "SELECT version FROM runs", want);
    assert_true(strncmp(mcsim_build_version, MCSIM_VERSION "+g", strlen(MCSIM_VERSION) + 2) == 0 ||
                strncmp(mcsim_build_version, MCSIM_VERSION "+src.", strlen(MCSIM_VERSION) + 5) ==
                    0);
}

/* The command line that runs `mcsim ARGS` as an unprivileged user: as
 * `nobody` when the tests run as root, as the user itself otherwise. NULL
 * (the test is skipped, loudly) when root has no setpriv. */
static const char *as_unprivileged(void)
{
    if (geteuid() != 0)
        return "";
    if (access("/usr/bin/setpriv", X_OK) != 0)
        return NULL;
    return "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
}

static int run_as(const char *prefix, const char *args)
{
    char line[4096];

    snprintf(line, sizeof line, "cd '%s' && %s'%s' %s", workdir_path(), prefix,
             getenv("MCSIM_BIN"), args);
    return spawn_sh(line);
}

/* A finished run in a folder its reader cannot write: check, gantt,
 * export and diff read it, as `nobody`, and write nothing there. */
static void test_readonly_folder(void **state)
{
    const char *prefix = as_unprivileged();

    (void)state;
    if (prefix == NULL) {
        fprintf(stderr, "SKIPPED: running as root without /usr/bin/setpriv: the read-only "
                        "folder cannot be read as an unprivileged user\n");
        skip();
    }
    assert_int_equal(spawn_sh("mkdir ro out"), 0);
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "ro/x.db", "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "ro/x.db", "--quiet", "--scheduler",
                                 "classic", NULL),
                     0);
    assert_int_equal(chmod(workdir_path(), 0755), 0);
    assert_int_equal(chmod(workdir_file("ro/x.db"), 0444), 0);
    assert_int_equal(chmod(workdir_file("ro"), 0555), 0);
    assert_int_equal(chmod(workdir_file("out"), 0777), 0);
    /* the user really cannot write there */
    {
        char probe[1024];
        snprintf(probe, sizeof probe, "cd '%s' && %s/usr/bin/touch ro/probe 2>/dev/null",
                 workdir_path(), prefix);
        assert_int_not_equal(spawn_sh(probe), 0);
    }

    assert_int_equal(run_as(prefix, "check ro/x.db"), 0);
    assert_non_null(strstr(spawn_out, "every expectation and guarantee held"));
    assert_int_equal(run_as(prefix, "check ro/x.db --run 1 --quiet"), 0);
    assert_int_equal(run_as(prefix, "gantt ro/x.db -o out/c.svg"), 0);
    assert_int_equal(run_as(prefix, "export ro/x.db --format csv -o out/csv"), 0);
    assert_int_equal(run_as(prefix, "export ro/x.db --format chrome -o out/t.json"), 0);
    assert_int_equal(run_as(prefix, "diff ro/x.db --run 1 --run 2"), 1);
    assert_non_null(strstr(spawn_out, "control"));
    assert_null(strstr(spawn_err, "readonly"));
    assert_no_logs("ro/x.db");
    assert_int_equal(spawn_sh("test \"$(ls ro)\" = x.db"), 0);
    assert_int_equal(chmod(workdir_file("ro"), 0755), 0);
}

/* Ctrl-C as the checks begin: exit 130, the run stays finished = 0 with
 * no verdicts; during the summary, after the verdicts are stored: the run
 * is finished with them. */
static void test_readonly_interrupted_checks(void **state)
{
    (void)state;
    setenv("MCSIM_TEST_INTERRUPT", "checks", 1);
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "i.db", NULL), 130);
    assert_string_equal(spawn_err, "mcsim: run: interrupted while checking the expectations; "
                                   "run 1 of i.db is left unfinished\n");
    setenv("MCSIM_TEST_INTERRUPT", "summary", 1);
    assert_int_equal(spawn_mcsim("run", NETWORK_DRIVER, "-o", "i.db", NULL), 130);
    assert_string_equal(spawn_err, "mcsim: run: interrupted during the summary; run 2 of i.db "
                                   "is finished, its verdicts recorded\n");
    unsetenv("MCSIM_TEST_INTERRUPT");
    sqlq_assert_path_rows(workdir_file("i.db"),
                          "SELECT run_id, finished, (SELECT count(*) FROM expectations e"
                          " WHERE e.run_id = r.run_id) FROM runs r ORDER BY run_id",
                          "1|0|0\n2|1|4\n");
    assert_no_logs("i.db");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_readonly_no_logs, workdir_empty),
        cmocka_unit_test_setup(test_readonly_version, workdir_empty),
        cmocka_unit_test_setup(test_readonly_folder, workdir_empty),
        cmocka_unit_test_setup(test_readonly_interrupted_checks, workdir_empty),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
