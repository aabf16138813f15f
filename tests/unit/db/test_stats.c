/*
 * The statistics a run records (kernel_stats, irqs.handler_start) and the
 * views over them (stats, run_stats), end to end through the `mcsim`
 * binary (MCSIM_BIN). The overhead scenarios pin the cost model: under the
 * default costs an interrupt reaches its handler in 440 cycles under
 * classic and 690 under mcs, and a system call that schedules costs 420
 * and 670; with the Cortex-A9 fit of overheads_a9.yaml 1597 and 1772, 878
 * and 1053 (LCA 2018: 1597 -> 1776, 878 -> 1048). The README quotes these
 * numbers.
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

#include <cmocka.h>

#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define SCENARIO_DIR MCSIM_SOURCE_DIR "/scenarios"

/* ------------------------------------------------------------ fixtures */

static int setup(void **state)
{
    (void)state;
    return workdir_create("stats");
}

/* ------------------------------------------------------------- the tests */

#define OVERHEADS                                                                                  \
    "SELECT scheduler, worst_irq_latency, avg_irq_latency,"                                        \
    " syscall_cycles_per_decision FROM run_stats ORDER BY run_id"

/* The default cost model: +250 cycles (one timer reprogramming) on each
 * path, +57% and +60%. */
static void test_stats_overheads_default_costs(void **state)
{
    (void)state;
    assert_int_equal(
        spawn_mcsim("run", SCENARIO_DIR "/overheads.yaml", "-o", "o.db", "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", SCENARIO_DIR "/overheads.yaml", "-o", "o.db", "--quiet",
                                 "--scheduler", "classic", NULL),
                     0);
    sqlq_assert_path_rows(workdir_file("o.db"), OVERHEADS,
                          "mcs|690|690.0|670.0\nclassic|440|440.0|420.0\n");
    /* Every interrupt woke its handler, which ran at once. */
    sqlq_assert_path_rows(
        workdir_file("o.db"),
        "SELECT count(*), count(handler_start), min(handler), max(handler) FROM irqs"
        " WHERE run_id = 1",
        "100|100|1|1\n");
    /* Classic reprograms nothing; every mcs decision here switches context. */
    sqlq_assert_path_rows(workdir_file("o.db"),
                          "SELECT run_id, sum(timer_programs), sum(decisions) FROM kernel_stats"
                          " GROUP BY run_id ORDER BY run_id",
                          "1|208|208\n2|0|210\n");
}

/* Costs fitted to the Cortex-A9: +11.0% and +19.9%. */
static void test_stats_overheads_a9(void **state)
{
    (void)state;
    assert_int_equal(
        spawn_mcsim("run", SCENARIO_DIR "/overheads_a9.yaml", "-o", "a.db", "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", SCENARIO_DIR "/overheads_a9.yaml", "-o", "a.db", "--quiet",
                                 "--scheduler", "classic", NULL),
                     0);
    sqlq_assert_path_rows(workdir_file("a.db"), OVERHEADS,
                          "mcs|1772|1772.0|1053.0\nclassic|1597|1597.0|878.0\n");
}

/* The stats view against the tables it sums: a passive server's time is
 * charged to its clients (stats.charged includes it, stats.cpu does not),
 * throttled time, timeout faults, kernel cycles. */
static void test_stats_view(void **state)
{
    (void)state;
    assert_int_equal(
        spawn_mcsim("run", SCENARIO_DIR "/shared_server.yaml", "-o", "s.db", "--quiet", NULL), 0);
    sqlq_assert_path_rows(
        workdir_file("s.db"),
        "SELECT st.name FROM stats st WHERE st.run_id = 1 AND st.charged <>"
        " (SELECT coalesce(sum(end_time - start_time), 0) FROM slices"
        "  WHERE run_id = 1 AND sc_thread_id = st.thread_id)"
        " OR st.cpu <> (SELECT coalesce(sum(end_time - start_time), 0) FROM slices"
        "  WHERE run_id = 1 AND thread_id = st.thread_id)"
        " OR st.kernel_cycles <> (SELECT coalesce(sum(cycles), 0) FROM kernel_stats"
        "  WHERE run_id = 1 AND thread_id = st.thread_id)",
        "");
    /* store runs on its clients' contexts: charged to them, not to itself. */
    sqlq_assert_path_rows(
        workdir_file("s.db"),
        "SELECT name, charged > cpu, jobs, misses, aborted_jobs, timeout_faults > 0, throttled > 0"
        " FROM stats WHERE run_id = 1 AND thread_id > 0 ORDER BY thread_id",
        "store|0|0|0|0|1|0\ncontrol|1|20|0|0|0|0\ntelemetry|1|100|20|20|0|1\nguard|0|0|0|0|0|0\n");
    sqlq_assert_path_rows(
        workdir_file("s.db"),
        "SELECT sum(kernel_cycles) = (SELECT sum(cycles) FROM kernel_stats"
        " WHERE run_id = 1 AND thread_id IS NOT NULL) FROM stats WHERE run_id = 1",
        "1\n");
}

/* The stats view counts as `mcsim stats` does (cli/summary/tstats.h):
 * jobs with the releases lost, misses with aborted jobs and releases lost,
 * times in nanoseconds (issue 13 items 3 and 6). Compared field by field
 * with `mcsim stats --format csv` on runs that lose releases (network_driver,
 * shared_server under classic) and abort calls (shared_server). */
static void test_stats_view_as_mcsim_stats(void **state)
{
    static const char *const runs[][2] = {{"shared_server.yaml", "mcs"},
                                          {"shared_server.yaml", "classic"},
                                          {"network_driver.yaml", "mcs"},
                                          {"network_driver.yaml", "classic"}};
    /* `mcsim stats --format csv` columns, in the view's order below */
    static const int csv_fields[] = {0, 3, 4, 5, 7, 14, 15, 16, 17, 18};
    char db[512], file[512], sql[640], run[8];

    (void)state;
    snprintf(db, sizeof db, "%s", workdir_file("v.db"));
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char want[8192] = "", *line, *save = NULL;
        size_t len = 0;

        snprintf(file, sizeof file, "%s/%s", SCENARIO_DIR, runs[i][0]);
        /* 0, or 1 where an expectation fails under the other scheduler */
        assert_true(spawn_mcsim("run", file, "-o", db, "--scheduler", runs[i][1], "--quiet",
                                NULL) <= 1);
        snprintf(run, sizeof run, "%zu", i + 1);
        assert_int_equal(spawn_mcsim("stats", db, "--run", run, "--format", "csv", NULL), 0);
        /* skip the header; keep the fields the view has */
        for (line = strtok_r(strchr(spawn_out, '\n') + 1, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char *f[20] = {0}, *p = line;
            int n = 0;
            while (n < 20 && (f[n++] = p) != NULL && (p = strchr(p, ',')) != NULL)
                *p++ = '\0';
            for (size_t k = 0; k < sizeof csv_fields / sizeof csv_fields[0]; k++)
                len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", k ? "|" : "",
                                        f[csv_fields[k]] ? f[csv_fields[k]] : "?");
            len += (size_t)snprintf(want + len, sizeof want - len, "\n");
        }
        snprintf(sql, sizeof sql,
                 "SELECT name, jobs, misses, lost, aborted_jobs, coalesce(worst_response_ns, ''),"
                 " coalesce(avg_response_ns, ''), cpu_ns, charged_ns, throttled_ns FROM stats"
                 " WHERE run_id = %zu AND thread_id > 0 ORDER BY thread_id",
                 i + 1);
        sqlq_assert_path_rows(db, sql, want);
    }
    /* the figures of the issue: under mcs telemetry's 20 aborted calls are
     * 20 missed jobs; classic starves control (19 jobs, 18 of them releases
     * lost: all missed), and telemetry, never stopped, runs 442 jobs */
    sqlq_assert_path_rows(db,
                          "SELECT run_id, name, jobs, misses, lost, aborted_jobs FROM stats"
                          " WHERE run_id <= 2 AND name IN ('control', 'telemetry')"
                          " ORDER BY run_id, thread_id",
                          "1|control|20|0|0|0\n1|telemetry|100|20|0|20\n"
                          "2|control|19|19|18|0\n2|telemetry|442|0|0|0\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_stats_overheads_default_costs, workdir_empty),
        cmocka_unit_test_setup(test_stats_overheads_a9, workdir_empty),
        cmocka_unit_test_setup(test_stats_view, workdir_empty),
        cmocka_unit_test_setup(test_stats_view_as_mcsim_stats, workdir_empty),
    };

    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
