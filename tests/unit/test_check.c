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
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#define SCENARIO_DIR MCSIM_SOURCE_DIR "/scenarios"
#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/run/"
#define NETWORK_DRIVER SCENARIO_DIR "/network_driver.yaml"
#define MAX_ARGS 16
#define OUT_MAX (1 << 16)

static char workdir[256];
static char out[OUT_MAX], err[OUT_MAX];

/* ------------------------------------------------------ running mcsim */

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;

    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Run `mcsim ARGS...` (NULL-terminated) in the work directory; its output
 * lands in out and err. Returns its exit status. */
static int mcsim(const char *first, ...)
{
    const char *argv[MAX_ARGS + 2];
    char out_path[300], err_path[300];
    va_list ap;
    int n = 0, st;
    pid_t pid;

    argv[n++] = getenv("MCSIM_BIN");
    assert_non_null(argv[0]);
    va_start(ap, first);
    for (const char *a = first; a != NULL; a = va_arg(ap, const char *)) {
        assert_true(n < MAX_ARGS + 1);
        argv[n++] = a;
    }
    va_end(ap);
    argv[n] = NULL;
    snprintf(out_path, sizeof out_path, "%s.out", workdir);
    snprintf(err_path, sizeof err_path, "%s.err", workdir);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if (o < 0 || e < 0 || chdir(workdir) != 0)
            _exit(127);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    slurp(out_path, out, sizeof out);
    slurp(err_path, err, sizeof err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void in_workdir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", workdir, name);
}

static void remove_all_in_workdir(void)
{
    DIR *dir = opendir(workdir);
    struct dirent *e;
    char path[600];

    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", workdir, e->d_name);
        remove(path);
    }
    closedir(dir);
}

/* Run SQL on workdir/name (to tamper with a recorded run). */
static void db_exec(const char *name, const char *sql)
{
    char path[300];
    sqlite3 *db;

    in_workdir(path, sizeof path, name);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_true(sqlite3_changes(db) > 0 || strncmp(sql, "UPDATE", 6) != 0);
    sqlite3_close(db);
}

static void copy_file(const char *from, const char *to_name)
{
    char path[300], buf[4096];
    FILE *in = fopen(from, "rb"), *o;
    size_t n;

    in_workdir(path, sizeof path, to_name);
    o = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(o);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, o), n);
    fclose(in);
    fclose(o);
}

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
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(workdir, sizeof workdir, "%s/mcsim-test-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(workdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char path[300];

    (void)state;
    remove_all_in_workdir();
    rmdir(workdir);
    snprintf(path, sizeof path, "%s.out", workdir);
    remove(path);
    snprintf(path, sizeof path, "%s.err", workdir);
    remove(path);
    return 0;
}

static int empty_workdir(void **state)
{
    (void)state;
    remove_all_in_workdir();
    return 0;
}

/* ------------------------------------------------------------- the tests */

/* Run `file` under `scheduler` into a fresh database, check it, and
 * demand the same exit status and verdicts. */
static void assert_check_agrees(const char *file, const char *scheduler)
{
    static char run_verdicts[OUT_MAX], check_verdicts[OUT_MAX];
    int run_status, check_status;

    remove_all_in_workdir();
    run_status = mcsim("run", file, "-o", "agree.db", "--scheduler", scheduler, NULL);
    if (run_status == 2)
        return; /* refused (inherit): nothing recorded, nothing to check */
    if (run_status != 0 && run_status != 1)
        fail_msg("mcsim run %s --scheduler %s: status %d\n%s%s", file, scheduler, run_status,
                 out, err);
    verdict_lines(out, run_verdicts, sizeof run_verdicts);
    check_status = mcsim("check", "agree.db", NULL);
    verdict_lines(out, check_verdicts, sizeof check_verdicts);
    if (check_status != run_status || strcmp(run_verdicts, check_verdicts) != 0)
        fail_msg("%s under %s: run exited %d with\n%s\ncheck exited %d with\n%s\n%s%s", file,
                 scheduler, run_status, run_verdicts, check_status, check_verdicts, out, err);
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
    assert_int_equal(mcsim("run", NETWORK_DRIVER, "-o", "t.db", NULL), 0);
    assert_int_equal(mcsim("check", "t.db", NULL), 0);
    db_exec("t.db", "UPDATE jobs SET finish_time = deadline_time + 1"
                    " WHERE run_id = 1 AND thread_id = 1 AND job = 3");
    assert_int_equal(mcsim("check", "t.db", NULL), 1);
    assert_non_null(strstr(out, "FAIL  deadlines: met, threads: [control] (scheduler: mcs)"));
    assert_non_null(strstr(out, "job 3 of control"));
    assert_non_null(strstr(out, "the run recorded PASS for this expectation"));
    assert_int_equal(mcsim("check", "t.db", "--quiet", NULL), 1);
    assert_non_null(strstr(out, "FAIL  deadlines: met"));
    assert_null(strstr(out, "PASS  "));
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
    char path[300];
    FILE *f;

    (void)state;
    in_workdir(path, sizeof path, "hog.yaml");
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(yaml, f);
    fclose(f);
    assert_int_equal(mcsim("run", "hog.yaml", "-o", "g.db", NULL), 0);
    assert_int_equal(mcsim("check", "g.db", NULL), 0);
    assert_non_null(strstr(out, "PASS  guarantee: every context kept its budget"));
    assert_non_null(strstr(out, "PASS  guarantee: one slice at a time"));
    /* hog's first slice, [0, 1ms), made to run 10ms: over its budget and
     * over its next slice, at 10ms. */
    db_exec("g.db", "UPDATE slices SET end_time = end_time + 9500000 WHERE rowid ="
                    " (SELECT min(rowid) FROM slices WHERE run_id = 1 AND thread_id = 1)");
    assert_int_equal(mcsim("check", "g.db", NULL), 1);
    assert_non_null(strstr(out, "FAIL  guarantee: every context kept its budget"));
    assert_non_null(strstr(out, "FAIL  guarantee: one slice at a time"));
}

/* The scenario's text is in the database: check needs no file. Without
 * that row it reads the file if its sha256 still matches, and refuses a
 * changed or missing one. */
static void test_check_needs_only_the_database(void **state)
{
    char path[300];
    FILE *f;

    (void)state;
    copy_file(DATA_DIR "expect_fails.yaml", "s.yaml");
    assert_int_equal(mcsim("run", "s.yaml", "-o", "f.db", NULL), 1);
    in_workdir(path, sizeof path, "s.yaml");
    assert_int_equal(remove(path), 0);
    assert_int_equal(mcsim("check", "f.db", NULL), 1);
    assert_non_null(strstr(out, "FAIL  max_response: worker at_most 1ms"));
    db_exec("f.db", "DELETE FROM scenario_files");
    assert_int_equal(mcsim("check", "f.db", NULL), 2);
    assert_non_null(strstr(err, "is gone or changed"));
    copy_file(DATA_DIR "expect_fails.yaml", "s.yaml");
    assert_int_equal(mcsim("check", "f.db", NULL), 1);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("# changed\n", f);
    fclose(f);
    assert_int_equal(mcsim("check", "f.db", NULL), 2);
}

/* The run's own duration, seed and scheduler (command-line overrides)
 * come from its row. */
static void test_check_uses_the_runs_overrides(void **state)
{
    (void)state;
    assert_int_equal(mcsim("run", NETWORK_DRIVER, "-o", "o.db", "--duration", "30ms", "--seed",
                           "5", "--scheduler", "classic", NULL),
                     0);
    assert_int_equal(mcsim("check", "o.db", NULL), 0);
    assert_non_null(strstr(out, "classic scheduler, seed 5"));
    assert_non_null(strstr(out, "of 3 jobs of control missed"));
}

static void test_check_run_selection_and_errors(void **state)
{
    (void)state;
    assert_int_equal(mcsim("check", "none.db", NULL), 2);
    assert_non_null(strstr(err, "no such database"));
    assert_int_equal(mcsim("check", NULL), 2);
    assert_int_equal(mcsim("check", "x.db", "--bogus", NULL), 2);
    assert_int_equal(mcsim("check", "x.db", "--run", "zero", NULL), 2);
    assert_int_equal(mcsim("run", DATA_DIR "expect_holds.yaml", "-o", "r.db", NULL), 0);
    assert_int_equal(mcsim("run", DATA_DIR "expect_fails.yaml", "-o", "r.db", NULL), 1);
    assert_int_equal(mcsim("check", "r.db", NULL), 1); /* the latest: run 2 */
    assert_int_equal(mcsim("check", "r.db", "--run", "1", NULL), 0);
    assert_int_equal(mcsim("check", "r.db", "--run", "3", NULL), 2);
    assert_non_null(strstr(err, "has no run 3"));
    db_exec("r.db", "UPDATE runs SET finished = 0 WHERE run_id = 2");
    assert_int_equal(mcsim("check", "r.db", "--run", "2", NULL), 2);
    assert_non_null(strstr(err, "unfinished"));
    assert_int_equal(mcsim("check", "r.db", NULL), 0); /* the latest finished: run 1 */
    db_exec("r.db", "UPDATE runs SET finished = 0");
    assert_int_equal(mcsim("check", "r.db", NULL), 2);
    assert_non_null(strstr(err, "no finished run"));
    assert_int_equal(mcsim("help", "check", NULL), 0);
    assert_non_null(strstr(out, "usage: mcsim check DB [--run N]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_check_agrees_on_every_scenario, empty_workdir),
        cmocka_unit_test_setup(test_check_catches_tampered_job, empty_workdir),
        cmocka_unit_test_setup(test_check_catches_broken_guarantees, empty_workdir),
        cmocka_unit_test_setup(test_check_needs_only_the_database, empty_workdir),
        cmocka_unit_test_setup(test_check_uses_the_runs_overrides, empty_workdir),
        cmocka_unit_test_setup(test_check_run_selection_and_errors, empty_workdir),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
