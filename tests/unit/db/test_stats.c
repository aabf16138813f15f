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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_stats_overheads_default_costs, workdir_empty),
        cmocka_unit_test_setup(test_stats_overheads_a9, workdir_empty),
        cmocka_unit_test_setup(test_stats_view, workdir_empty),
    };

    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
