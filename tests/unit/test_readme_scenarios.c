/*
 * The README's table of example scenarios against the runs it describes:
 * every figure in its mcs and classic columns is a claim below, found in
 * that row and column of README.md as written, and checked by SQL over the
 * tables of a run recorded by the `mcsim` binary (MCSIM_BIN) with the
 * file's seed (`mcsim run FILE --scheduler S --analyze -o DB`). A row
 * without claims for both columns fails, so a new row needs its checks.
 * Times are printed as the README rounds them, in milliseconds from
 * cycles and the run's clock.
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

#define README MCSIM_SOURCE_DIR "/README.md"
#define SCENARIOS MCSIM_SOURCE_DIR "/scenarios/"

/* Milliseconds of `cycles` (an SQL expression) at the run's clock. */
#define MS(cycles) "(" cycles ") * 1000.0 / (SELECT cpu_hz FROM runs)"
/* Columns of the stats view for thread `name`. */
#define STATS(name, cols) "SELECT " cols " FROM stats WHERE name = '" name "'"
/* Budget events of `kind` of thread `name` (as the summary counts them). */
#define BUDGET(kind, name)                                                                         \
    "(SELECT count(*) FROM budget_events b JOIN threads t USING (run_id, thread_id)"               \
    " WHERE b.kind = '" kind "' AND t.name = '" name "')"
#define ALL_BUDGET(kind) "(SELECT count(*) FROM budget_events WHERE kind = '" kind "')"
#define EVENTS(kind, name)                                                                         \
    "(SELECT count(*) FROM events e JOIN threads t USING (run_id, thread_id)"                      \
    " WHERE e.kind = '" kind "' AND t.name = '" name "')"
/* The time thread `who` ran on the context of thread `payer`, in ms. */
#define PAID(who, payer)                                                                           \
    MS("SELECT sum(s.end_time - s.start_time) FROM slices s JOIN threads t ON"                     \
       " t.run_id = s.run_id AND t.thread_id = s.thread_id JOIN threads p ON p.run_id ="           \
       " s.run_id AND p.thread_id = s.sc_thread_id WHERE t.name = '" who "' AND p.name = '"        \
       payer "'")
#define WORST() "printf('%.1f', worst_response_ns / 1e6)"
#define PASSED(prefix) "SELECT passed FROM expectations WHERE text LIKE '" prefix "%'"
/* The scheduling decision of a system call and the worst interrupt
 * latency, in cycles, as the summary prints them. */
#define OVERHEADS                                                                                  \
    "SELECT (SELECT max(worst_irq_latency) FROM stats), (SELECT printf('%.0f', 1.0 *"             \
    " sum(decision_cycles) / sum(decisions)) FROM kernel_stats WHERE kind = 'syscall')"

struct claim {
    const char *file;   /* scenarios/FILE.yaml, the row's first column */
    const char *sched;  /* its column: "mcs" or "classic" */
    const char *text;   /* what the README says there */
    const char *sql;    /* over the run of FILE under sched */
    const char *rows;   /* what the tables say */
};

static const struct claim claims[] = {
    {"network_driver", "mcs", "control: 0 of 20 jobs missed (worst 4.9ms)",
     STATS("control", "misses, jobs, " WORST()), "0|20|4.9\n"},
    {"network_driver", "mcs", "never throttled", "SELECT " BUDGET("throttle", "control"), "0\n"},
    {"network_driver", "mcs", "the driver throttled 10 times",
     "SELECT " BUDGET("throttle", "net_driver"), "10\n"},
    {"network_driver", "mcs",
     "450 of its 600 releases lost with their interrupt during the floods (470 of 600 missed)",
     STATS("net_driver", "lost, jobs, misses"), "450|600|470\n"},
    {"network_driver", "classic", "control misses 10 of 20", STATS("control", "misses, jobs"),
     "10|20\n"},
    /* a control job missed exactly when a packet came in its period */
    {"network_driver", "classic", "every job released during a flood",
     "SELECT sum(j.missed = EXISTS (SELECT 1 FROM jobs d JOIN threads n USING (run_id, thread_id)"
     " WHERE n.name = 'net_driver' AND d.release_time >= j.release_time AND d.release_time <"
     " j.release_time + c.period)) FROM jobs j JOIN threads c USING (run_id, thread_id)"
     " WHERE c.name = 'control'",
     "20\n"},
    {"network_driver", "classic", "(worst response 11.6ms)", STATS("control", WORST()), "11.6\n"},

    {"shared_server", "mcs", "`store`'s 43ms of CPU paid 8ms by control, 35ms by telemetry",
     "SELECT printf('%.0f', cpu_ns / 1e6), (SELECT printf('%.0f', " PAID("store", "control")
     ")), (SELECT printf('%.0f', " PAID("store", "telemetry") ")) FROM stats WHERE name = 'store'",
     "43|8|35\n"},
    {"shared_server", "mcs", "control: 0 of 20 missed, worst 3.9ms",
     STATS("control", "misses, jobs, " WORST()), "0|20|3.9\n"},
    {"shared_server", "mcs", "20 updates telemetry's budget ran out in were reset (`call_aborted`)",
     "SELECT " EVENTS("call_aborted", "telemetry") ", " BUDGET("throttle", "telemetry"),
     "20|20\n"},
    {"shared_server", "classic",
     "control runs one job (unfinished) and 18 of its releases are lost with their interrupt: 19 "
     "jobs, 19 missed",
     STATS("control", "lost, jobs, misses, (SELECT count(*) FROM jobs j WHERE j.thread_id ="
                      " stats.thread_id AND j.start_time IS NOT NULL AND j.finish_time IS NULL)"),
     "18|19|19|1\n"},

    {"server_exhausts_none", "mcs", "sensor misses 5 of 10 (worst response 10.5ms)",
     STATS("sensor", "misses, jobs, " WORST()), "5|10|10.5\n"},
    {"server_exhausts_none", "mcs", "`db` throttled 8 times", "SELECT " BUDGET("throttle", "db"),
     "8\n"},
    {"server_exhausts_none", "mcs", "no timeout faults", "SELECT " ALL_BUDGET("timeout_fault"),
     "0\n"},
    {"server_exhausts_none", "classic", "no budgets: sensor meets every deadline",
     "SELECT " ALL_BUDGET("throttle") ", misses FROM stats WHERE name = 'sensor'", "0|0\n"},
    {"server_exhausts_reset", "mcs", "10 timeout faults, 10 `call_aborted` for batch",
     "SELECT " ALL_BUDGET("timeout_fault") ", " EVENTS("call_aborted", "batch"), "10|10\n"},
    {"server_exhausts_reset", "mcs", "sensor: 0 missed, worst 1.5ms",
     STATS("sensor", "misses, " WORST()), "0|1.5\n"},
    {"server_exhausts_reset", "classic", "as above", STATS("sensor", "misses"), "0\n"},
    {"server_exhausts_emergency_budget", "mcs", "9 faults, 9 `emergency` grants, no aborts",
     "SELECT " ALL_BUDGET("timeout_fault") ", " ALL_BUDGET("emergency") ","
     " (SELECT count(*) FROM events WHERE kind = 'call_aborted')",
     "9|9|0\n"},
    {"server_exhausts_emergency_budget", "mcs", "sensor: 0 missed, worst 2.0ms",
     STATS("sensor", "misses, " WORST()), "0|2.0\n"},
    {"server_exhausts_emergency_budget", "mcs", "`budget: respected` allows for the grants",
     PASSED("budget: respected"), "1\n"},
    {"server_exhausts_emergency_budget", "classic", "as above", STATS("sensor", "misses"), "0\n"},
    /* db serves sensor 1ms a job, on sensor's context; after each fault
     * also the rest of batch's request */
    {"server_exhausts_inherit", "mcs",
     "10 faults, each followed by db on sensor's context (0.5ms of batch's request paid by "
     "sensor)",
     "SELECT " ALL_BUDGET("timeout_fault") ", printf('%.1f', ((" PAID("db", "sensor") ") - 10) / "
     "10)",
     "10|0.5\n"},
    {"server_exhausts_inherit", "mcs", "no aborts, db never throttled",
     "SELECT (SELECT count(*) FROM events WHERE kind = 'call_aborted'), " BUDGET("throttle", "db"),
     "0|0\n"},
    {"server_exhausts_inherit", "mcs", "sensor: 0 missed, worst 2.0ms",
     STATS("sensor", "misses, " WORST()), "0|2.0\n"},
    {"server_exhausts_inherit", "mcs", "batch: 9 missed", STATS("batch", "misses"), "9\n"},
    {"server_exhausts_inherit", "classic", "sensor queues behind batch's request: 0 missed, worst "
     "2.0ms", STATS("sensor", "misses, " WORST()), "0|2.0\n"},

    {"round_robin", "mcs", "111 jobs, none missed", "SELECT sum(jobs), sum(misses) FROM stats",
     "111|0\n"},
    {"round_robin", "mcs", "worst 3.5ms (encoder), 4.5ms (ui)",
     "SELECT " WORST() " FROM stats WHERE name IN ('encoder', 'ui') ORDER BY name", "3.5\n4.5\n"},
    {"round_robin", "classic", "encoder and decoder miss 10 of 98",
     "SELECT sum(misses), sum(jobs) FROM stats WHERE name IN ('encoder', 'decoder')", "10|98\n"},
    {"round_robin", "classic", "ui 4 of 4 (worst 20.5ms)", STATS("ui", "misses, jobs, " WORST()),
     "4|4|20.5\n"},

    {"slack", "mcs", "indexer completes 55 jobs (about 55% of the CPU)",
     STATS("indexer", "jobs, printf('%.0f', 100.0 * cpu / (SELECT duration FROM runs))"),
     "55|55\n"},
    {"slack", "mcs", "nav's worst response 1.001ms, flight's 3.97ms",
     "SELECT printf('%.3f', worst_response_ns / 1e6), (SELECT printf('%.2f', worst_response_ns /"
     " 1e6) FROM stats WHERE name = 'flight') FROM stats WHERE name = 'nav'",
     "1.001|3.97\n"},
    {"slack", "classic", "the same",
     "SELECT jobs, (SELECT printf('%.3f', worst_response_ns / 1e6) FROM stats WHERE name ="
     " 'nav'), (SELECT printf('%.2f', worst_response_ns / 1e6) FROM stats WHERE name = 'flight')"
     " FROM stats WHERE name = 'indexer'",
     "55|1.001|3.97\n"},

    {"lo_overrun", "mcs", "camera and logger throttled 60 times",
     "SELECT " BUDGET("throttle", "camera") " + " BUDGET("throttle", "logger"), "60\n"},
    {"lo_overrun", "mcs",
     "miss all 58 of their jobs (30 of them releases lost with their interrupt)",
     "SELECT sum(misses), sum(jobs), sum(lost) FROM stats WHERE name IN ('camera', 'logger')",
     "58|58|30\n"},
    {"lo_overrun", "mcs", "control: 0 of 20 missed, worst 6.0ms",
     STATS("control", "misses, jobs, " WORST()), "0|20|6.0\n"},
    {"lo_overrun", "mcs", "(`mcsim analyze`: bound 7.06ms)",
     "SELECT printf('%.2f', " MS("a.bound") "), a.verdict FROM analysis a JOIN threads t USING"
     " (run_id, thread_id) WHERE t.name = 'control'",
     "7.06|schedulable\n"},
    {"lo_overrun", "mcs", "`budget: respected` for every context", PASSED("budget: respected"),
     "1\n"},
    {"lo_overrun", "classic", "camera and logger run 87ms and 85ms of the 200ms",
     "SELECT group_concat(printf('%.0f', cpu_ns / 1e6), ' '), (SELECT duration / 1000000 FROM"
     " runs) FROM (SELECT cpu_ns FROM stats WHERE name IN ('camera', 'logger') ORDER BY name)",
     "87 85|200\n"},
    {"lo_overrun", "classic", "control misses 19 of 19 (9 of them releases lost with their "
     "interrupt)", STATS("control", "misses, jobs, lost"), "19|19|9\n"},

    {"overheads", "mcs", "interrupt latency 690 cycles, a scheduling system call 670", OVERHEADS,
     "690|670\n"},
    {"overheads", "classic", "440 and 420", OVERHEADS, "440|420\n"},
    {"overheads_a9", "mcs", "1772 and 1053", OVERHEADS, "1772|1053\n"},
    {"overheads_a9", "classic", "1597 and 878", OVERHEADS, "1597|878\n"},
};

#define N_CLAIMS (sizeof claims / sizeof claims[0])

/* Row `file` of the README's table, cut into its columns in the returned
 * copy: 0 file, 1 shows, 2 mcs, 3 classic. */
static char *row_of(const char *readme, const char *file, const char *cols[4])
{
    char key[128], *row, *end, *p;
    const char *at;
    snprintf(key, sizeof key, "\n| `%s.yaml` | ", file);
    if (!(at = strstr(readme, key)))
        fail_msg("README.md has no row for %s.yaml", file);
    row = strdup(at + 1);
    assert_non_null(row);
    if ((end = strchr(row, '\n')))
        *end = '\0';
    p = row + 2;
    for (int c = 0; c < 4; c++) {
        char *sep = strstr(p, " |");
        if (!sep)
            fail_msg("README.md's row for %s.yaml has fewer than 4 columns", file);
        *sep = '\0';
        cols[c] = p;
        p = sep + 2 + (sep[2] == ' ');
    }
    return row;
}

/* Every row of the table (lines "| `NAME.yaml` | ...") has claims for
 * both of its columns. */
static void test_readme_rows_have_claims(void **state)
{
    size_t len;
    char *readme = workdir_read_path(README, &len);
    assert_non_null(readme);
    const char *p = readme;
    int rows = 0;
    (void)state;
    while ((p = strstr(p, "\n| `"))) {
        char name[96];
        p += 4;
        size_t n = strcspn(p, "`");
        if (n < 5 || n >= sizeof name || strncmp(p + n - 5, ".yaml", 5) != 0)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(n - 5), p);
        bool mcs = false, classic = false;
        for (size_t i = 0; i < N_CLAIMS; i++)
            if (strcmp(claims[i].file, name) == 0) {
                mcs |= strcmp(claims[i].sched, "mcs") == 0;
                classic |= strcmp(claims[i].sched, "classic") == 0;
            }
        if (!mcs || !classic)
            fail_msg("README.md's row for %s.yaml has no checked claim under %s", name,
                     mcs ? "classic" : "mcs");
        rows++;
    }
    assert_int_equal(rows, 11);
    free(readme);
}

/* Each claim: in its row and column of the README, and true of the run. */
static void test_readme_claims_hold(void **state)
{
    size_t len;
    char *readme = workdir_read_path(README, &len);
    assert_non_null(readme);
    (void)state;
    for (size_t i = 0; i < N_CLAIMS; i++) {
        const struct claim *c = &claims[i];
        const char *cols[4];
        char *row = row_of(readme, c->file, cols), db[160], path[256];
        if (!strstr(cols[strcmp(c->sched, "mcs") == 0 ? 2 : 3], c->text))
            fail_msg("README.md's %s column for %s.yaml does not say \"%s\"", c->sched, c->file,
                     c->text);
        free(row);
        snprintf(db, sizeof db, "%s.%s.db", c->file, c->sched);
        if (!workdir_exists(db)) {
            snprintf(path, sizeof path, SCENARIOS "%s.yaml", c->file);
            int rc = spawn_mcsim("run", path, "--scheduler", c->sched, "--analyze", "-o", db,
                                 "--quiet", NULL);
            if (rc != 0)
                fail_msg("mcsim run %s --scheduler %s: exit %d: %s", path, c->sched, rc,
                         spawn_err);
        }
        sqlq_assert_path_rows(workdir_file(db), c->sql, c->rows);
    }
    free(readme);
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("readme_scenarios");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_rows_have_claims),
        cmocka_unit_test(test_readme_claims_hold),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
