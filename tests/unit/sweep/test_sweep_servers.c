/*
 * The sweep spec's servers.timeout (docs/sweep.md, cli/load/load_sweep.c,
 * cli/gen/gen_taskset.c): every server of a set gets the timeout endpoint
 * and handler of the policy; an emergency grant is the factor times the
 * server's request time, at least MIN_BUDGET; a set emitted with a reset
 * handler runs its faults as the sweep counted them; bad values are
 * FILE:LINE:COL; `-o DIR/` names DIR once. The printed weighted
 * schedulability is the database's, with HI figures only when a set has
 * HI tasks.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

/* Four tasks, all calling the one server for half their work, LO work up
 * to twice what the budget (1.1 x) is sized for: budgets run out inside
 * the server. */
static void write_spec(const char *file, const char *timeout)
{
    char text[1024];
    snprintf(text, sizeof text,
             "mcsim_sweep: 1\n"
             "name: srv\n"
             "seed: 5\n"
             "tasks: 4\n"
             "utilisation: {from: 0.6, to: 0.6, step: 0.1}\n"
             "sets: 3\n"
             "periods: {min: 2ms, max: 20ms, distribution: log-uniform}\n"
             "schedulers: [mcs]\n"
             "duration: 100ms\n"
             "overrun: 2\n"
             "budget: 1.1\n"
             "servers: {count: 1, share: 1, part: %s, timeout: %s}\n",
             strstr(timeout, "tiny") ? "0.000001" : "0.5",
             strstr(timeout, "tiny") ? "{emergency_budget: 1}" : timeout);
    workdir_write(file, text);
}

/* The number after `key` in `text` (a cycles value `NNNc`). */
static uint64_t cycles_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        fail_msg("no '%s' in:\n%s", key, text);
    return strtoull(p + strlen(key), NULL, 10);
}

static void test_reset_handler_emitted_and_run(void **state)
{
    (void)state;
    write_spec("reset.yaml", "reset");
    assert_int_equal(spawn_shell("sweep reset.yaml --emit 1 > set1.yaml"), 0);
    char *yaml = workdir_must_read("set1.yaml", NULL);
    assert_non_null(strstr(yaml, "endpoints: [e_s0, f_reset]\n"));
    assert_non_null(strstr(yaml, "    passive: true\n    timeout_endpoint: f_reset\n"));
    assert_non_null(strstr(yaml, "  guard_reset:\n    priority: 254\n"));
    assert_non_null(strstr(yaml, "      - handle_timeouts: {endpoint: f_reset, action: reset}\n"));
    assert_null(strstr(yaml, "emergency"));
    free(yaml);

    /* the sweep's own evaluation of set 1 against a run of the emitted set */
    assert_int_equal(spawn_mcsim("sweep", "reset.yaml", "-o", "out/", NULL), 0);
    assert_non_null(strstr(spawn_out, "files: out/{sweep.db,"));
    assert_int_equal(spawn_mcsim("run", "set1.yaml", "-o", "set1.db", "--quiet", NULL), 0);
    const char *db = workdir_file("set1.db");
    int64_t faults = sqlq_path_int(db, "SELECT count(*) FROM budget_events WHERE kind ="
                                       " 'timeout_fault'");
    /* the policy is exercised, and each fault of a reset handler aborts
     * exactly one call */
    assert_true(faults > 0);
    assert_int_equal(faults, sqlq_path_int(db, "SELECT count(*) FROM events WHERE kind ="
                                               " 'call_aborted'"));
    assert_int_equal(sqlq_path_int(db, "SELECT count(*) FROM jobs WHERE thread_id > 0"),
                     sqlq_path_int(workdir_file("out/sweep.db"),
                                   "SELECT jobs_lo + jobs_hi FROM results WHERE set_id = 1"));
    assert_int_equal(sqlq_path_int(db, "SELECT count(*) FROM jobs WHERE missed = 1"),
                     sqlq_path_int(workdir_file("out/sweep.db"),
                                   "SELECT missed_lo + missed_hi FROM results WHERE set_id = 1"));
}

static void test_emergency_grant_is_factor_of_request(void **state)
{
    (void)state;
    write_spec("em.yaml", "{emergency_budget: 1.5}");
    assert_int_equal(spawn_shell("sweep em.yaml --emit 1 > set1.yaml"), 0);
    char *yaml = workdir_must_read("set1.yaml", NULL);
    /* the server's loop is its only fixed compute after `recv: e_s0` */
    uint64_t server = cycles_after(strstr(yaml, "      - recv: e_s0\n"), "- compute: ");
    uint64_t grant = cycles_after(yaml, "action: {emergency_budget: ");
    assert_int_equal(grant, server * 3 / 2);
    assert_non_null(strstr(yaml, "timeout_endpoint: f_emergency\n"));
    free(yaml);
    assert_int_equal(spawn_mcsim("sweep", "em.yaml", "-o", "em", "--quiet", NULL), 0);

    /* a grant below MIN_BUDGET (1940 cycles with the default costs, a 1 GHz
     * timer) is raised to it: the kernel would refuse a smaller one */
    write_spec("tiny.yaml", "tiny");
    assert_int_equal(spawn_shell("sweep tiny.yaml --emit 1 > tiny1.yaml"), 0);
    yaml = workdir_must_read("tiny1.yaml", NULL);
    assert_int_equal(cycles_after(yaml, "action: {emergency_budget: "), 1940);
    free(yaml);
    assert_int_equal(spawn_mcsim("sweep", "tiny.yaml", "-o", "tiny", "--quiet", NULL), 0);
}

static void test_inherit_and_none(void **state)
{
    (void)state;
    write_spec("inh.yaml", "inherit");
    assert_int_equal(spawn_shell("sweep inh.yaml --emit 1 > inh.out"), 0);
    char *yaml = workdir_must_read("inh.out", NULL);
    assert_non_null(strstr(yaml, "handle_timeouts: {endpoint: f_inherit, action: inherit}\n"));
    free(yaml);
    write_spec("none.yaml", "none");
    assert_int_equal(spawn_shell("sweep none.yaml --emit 1 > none.out"), 0);
    yaml = workdir_must_read("none.out", NULL);
    assert_null(strstr(yaml, "timeout_endpoint"));
    assert_null(strstr(yaml, "handle_timeouts"));
    free(yaml);
}

/* The summary's lines, formatted from sweep.db's weighted table. */
static void assert_summary_is_table(const char *db_path, bool hi)
{
    sqlite3 *db = sqlq_open(db_path, false);
    sqlite3_stmt *st;
    char expected[1024];
    size_t n = (size_t)snprintf(expected, sizeof expected,
                                "weighted schedulability (analysis / simulation%s):\n",
                                hi ? "; HI threads only" : "");
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT scheduler, analysis, simulation,"
                                            " analysis_hi, simulation_hi FROM weighted"
                                            " ORDER BY scheduler",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        n += (size_t)snprintf(expected + n, sizeof expected - n, "  %-8s %.3f / %.3f",
                              (const char *)sqlite3_column_text(st, 0),
                              sqlite3_column_double(st, 1), sqlite3_column_double(st, 2));
        if (hi)
            n += (size_t)snprintf(expected + n, sizeof expected - n, "   HI %.3f / %.3f",
                                  sqlite3_column_double(st, 3), sqlite3_column_double(st, 4));
        n += (size_t)snprintf(expected + n, sizeof expected - n, "\n");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (!strstr(spawn_out, expected))
        fail_msg("expected\n%s\nin:\n%s", expected, spawn_out);
}

static void test_summary_is_the_weighted_table(void **state)
{
    (void)state;
    write_spec("lo.yaml", "none");
    assert_int_equal(spawn_mcsim("sweep", "lo.yaml", "-o", "lo", NULL), 0);
    assert_summary_is_table(workdir_file("lo/sweep.db"), false);
    assert_null(strstr(spawn_out, "HI"));
    workdir_write("hi.yaml", "mcsim_sweep: 1\n"
                             "name: hi\n"
                             "seed: 7\n"
                             "tasks: 4\n"
                             "utilisation: {from: 0.5, to: 0.9, step: 0.2}\n"
                             "sets: 3\n"
                             "periods: {min: 1ms, max: 20ms}\n"
                             "schedulers: [mcs, classic]\n"
                             "duration: 30ms\n"
                             "criticality: {hi_share: 0.5, factor: 1.5}\n"
                             "budget: 1.2\n");
    assert_int_equal(spawn_mcsim("sweep", "hi.yaml", "-o", "hi", NULL), 0);
    assert_summary_is_table(workdir_file("hi/sweep.db"), true);
}

static void test_timeout_errors(void **state)
{
    (void)state;
    write_spec("w.yaml", "never");
    assert_int_equal(spawn_mcsim("sweep", "w.yaml", NULL), 2);
    assert_non_null(strstr(spawn_err, "w.yaml:12:51: error: servers.timeout is 'never'"));
    write_spec("g.yaml", "emergency_budget");
    assert_int_equal(spawn_mcsim("sweep", "g.yaml", NULL), 2);
    assert_non_null(strstr(spawn_err, "g.yaml:12:51: error: servers.timeout: emergency_budget"
                                      " needs its grant"));
    write_spec("z.yaml", "{emergency_budget: 0}");
    assert_int_equal(spawn_mcsim("sweep", "z.yaml", NULL), 2);
    assert_non_null(strstr(spawn_err, "z.yaml:12:70: error: servers.timeout.emergency_budget"
                                      " is '0' (expected a number from 0.000001 to 100 with"
                                      " at most 6 decimals)"));
    write_spec("k.yaml", "{grant: 1}");
    assert_int_equal(spawn_mcsim("sweep", "k.yaml", NULL), 2);
    assert_non_null(strstr(spawn_err, "k.yaml:12:52: error: unknown key 'grant' in servers.timeout"));
    assert_int_equal(workdir_count(), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_reset_handler_emitted_and_run, workdir_empty),
        cmocka_unit_test_setup(test_emergency_grant_is_factor_of_request, workdir_empty),
        cmocka_unit_test_setup(test_inherit_and_none, workdir_empty),
        cmocka_unit_test_setup(test_timeout_errors, workdir_empty),
        cmocka_unit_test_setup(test_summary_is_the_weighted_table, workdir_empty),
    };
    if (workdir_create("sweep_servers") != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, workdir_teardown);
}
