/*
 * mcsim run --seeds end to end (cli/seeds/): the binary (MCSIM_BIN) run in
 * an empty directory. The worst response of a thread over the seeds is
 * the one its worst seed gives when re-run alone; an expectation that
 * fails in some seeds is reported with exactly those seeds (each checked
 * by a single run); --record keeps one run per seed; bad ranges are usage
 * errors that write nothing.
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

#define LO_OVERRUN MCSIM_SOURCE_DIR "/scenarios/lo_overrun.yaml"

/* One job whose compute is drawn in [1ms, 3ms]: max_response 2ms holds
 * for about half the seeds. */
static const char one_draw[] = "mcsim: 1\n"
                               "duration: 10ms\n"
                               "threads:\n"
                               "  t:\n"
                               "    priority: 10\n"
                               "    criticality: hi\n"
                               "    budget: 5ms\n"
                               "    period: 5ms\n"
                               "    program:\n"
                               "      - job:\n"
                               "          - compute: {min: 1ms, max: 3ms}\n"
                               "expect:\n"
                               "  - max_response: {thread: t, at_most: 2ms}\n";

/* The worst seed printed for `thread` in the per-thread table. */
static long long printed_worst_seed(const char *thread)
{
    char key[64];
    const char *line;
    long long seed = -1;
    snprintf(key, sizeof key, "\n  %s ", thread);
    line = strstr(spawn_out, key);
    assert_non_null(line);
    const char *end = strchr(line + 1, '\n');
    assert_non_null(end);
    const char *p = end;
    while (p > line && p[-1] != ' ')
        p--;
    seed = strtoll(p, NULL, 10);
    return seed;
}

static void test_seeds_worst_seed_rerun(void **state)
{
    (void)state;
    char sql[256], seed_text[32];
    int64_t worst_all, worst_in_run, worst_alone;
    long long seed;
    assert_int_equal(spawn_mcsim("run", LO_OVERRUN, "--seeds", "0..9", "--duration", "200ms",
                                 "--record", "-o", "all.db", NULL),
                     0);
    seed = printed_worst_seed("camera");
    assert_in_range(seed, 0, 9);
    /* ten runs recorded, one per seed */
    assert_int_equal(sqlq_path_int(workdir_file("all.db"),
                                   "SELECT count(*) FROM runs WHERE finished = 1"),
                     10);
    worst_all = sqlq_path_int(workdir_file("all.db"),
                              "SELECT max(response) FROM jobs JOIN threads USING (run_id, "
                              "thread_id) WHERE name = 'camera'");
    snprintf(sql, sizeof sql,
             "SELECT max(response) FROM jobs JOIN threads USING (run_id, thread_id) JOIN runs "
             "USING (run_id) WHERE name = 'camera' AND seed = %lld",
             seed);
    worst_in_run = sqlq_path_int(workdir_file("all.db"), sql);
    assert_int_equal(worst_in_run, worst_all);
    snprintf(seed_text, sizeof seed_text, "%lld", seed);
    assert_int_equal(spawn_mcsim("run", LO_OVERRUN, "--seed", seed_text, "--duration", "200ms",
                                 "-o", "one.db", NULL),
                     0);
    worst_alone = sqlq_path_int(workdir_file("one.db"),
                                "SELECT max(response) FROM jobs JOIN threads USING (run_id, "
                                "thread_id) WHERE name = 'camera'");
    assert_int_equal(worst_alone, worst_all);
}

static void test_seeds_failing_seeds_listed(void **state)
{
    (void)state;
    char expected[256] = "", seed_text[16];
    int failed = 0;
    workdir_write("one.yaml", one_draw);
    for (int seed = 0; seed < 10; seed++) {
        snprintf(seed_text, sizeof seed_text, "%d", seed);
        int rc = spawn_mcsim("run", "one.yaml", "--seed", seed_text, "-o", "x.db", "--quiet",
                             NULL);
        assert_true(rc == 0 || rc == 1);
        if (rc == 1) {
            snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%d",
                     failed ? ", " : "", seed);
            failed++;
        }
    }
    assert_in_range(failed, 1, 9);
    assert_int_equal(spawn_mcsim("run", "one.yaml", "--seeds", "10", NULL), 1);
    char line[512];
    snprintf(line, sizeof line, "FAIL  max_response: t at_most 2ms  (failed in %d of 10 seeds: %s;",
             failed, expected);
    if (!strstr(spawn_out, line))
        fail_msg("expected '%s' in:\n%s", line, spawn_out);
    assert_non_null(strstr(spawn_out, "seeds 0..9 of one (mcs scheduler): 10 runs"));
    assert_false(workdir_exists("mcsim.db"));
}

static void test_seeds_bad_usage(void **state)
{
    (void)state;
    const char *bad[] = {"5..2", "0", "x", "1..", "..3", "-1..2", "0..1000000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(spawn_mcsim("run", LO_OVERRUN, "--seeds", bad[i], NULL), 2);
        assert_non_null(strstr(spawn_err, "--seeds takes A..B"));
    }
    assert_int_equal(spawn_mcsim("run", LO_OVERRUN, "--seeds", "3", "--seed", "1", NULL), 2);
    assert_int_equal(spawn_mcsim("run", LO_OVERRUN, "--record", NULL), 2);
    assert_int_equal(workdir_count(), 0);
}

/* Issue 18: an unrecorded seed is evaluated from the accounting
 * accumulated as it runs, with no database (memory flat in the run's
 * length); a recorded one from its accounting too, its jobs from the
 * file. Both print the same verdicts (every kind of expectation these
 * scenarios have: deadlines, max_response, counts, budget: respected;
 * failed and passed) and the same table, but the line saying where the
 * runs went. */
static void test_seeds_unrecorded_same(void **state)
{
    static const char *const paths[] = {
        MCSIM_SOURCE_DIR "/scenarios/shared_server.yaml",
        MCSIM_SOURCE_DIR "/scenarios/server_exhausts_reset.yaml",
        MCSIM_SOURCE_DIR "/scenarios/lo_overrun.yaml",
        MCSIM_SOURCE_DIR "/bench/aborts.yaml",
    };
    static char unrec[SPAWN_OUT_MAX];
    int status;

    (void)state;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        status = spawn_mcsim("run", paths[i], "--seeds", "3", "--duration", "200ms", NULL);
        assert_true(status == 0 || status == 1);
        assert_string_equal(spawn_err, "");
        assert_non_null(strstr(spawn_out, "(not recorded: --record keeps them)\n"));
        snprintf(unrec, sizeof unrec, "%s", spawn_out);
        assert_false(workdir_exists("mcsim.db"));
        assert_int_equal(spawn_mcsim("run", paths[i], "--seeds", "3", "--duration", "200ms",
                                     "--record", "-o", "s.db", NULL),
                         status);
        char *a = strstr(unrec, " runs (not recorded: --record keeps them)\n");
        char *b = strstr(spawn_out, " runs, recorded in s.db\n");
        assert_non_null(b);
        /* the same before and after that line */
        assert_int_equal(a - unrec, b - spawn_out);
        assert_memory_equal(unrec, spawn_out, (size_t)(a - unrec));
        assert_string_equal(strchr(a, '\n'), strchr(b, '\n'));
        assert_int_equal(sqlq_path_int(workdir_file("s.db"),
                                       "SELECT count(*) FROM runs WHERE finished"), 3);
        workdir_clear();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_seeds_worst_seed_rerun, workdir_empty),
        cmocka_unit_test_setup(test_seeds_failing_seeds_listed, workdir_empty),
        cmocka_unit_test_setup(test_seeds_bad_usage, workdir_empty),
        cmocka_unit_test_setup(test_seeds_unrecorded_same, workdir_empty),
    };
    if (workdir_create("seeds") != 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, workdir_teardown);
    return rc;
}
