/*
 * What a Microkit system becomes, run: every example runs with its
 * skeleton sidecar; the Ethernet drivers of sDDF's echo server and the
 * LionsOS firewall (100us budget every 400us) are throttled under a packet
 * flood; Microkit's passive_server example, exported and run, has the same
 * schedule slice by slice as the same system written directly as a
 * scenario with plain steps; `sdf run` and `run` of the export record the
 * same slices.
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

#define DIR MCSIM_SOURCE_DIR "/tests/data/sdf/"

static const char SLICES[] =
    "SELECT t.name, s.sc_thread_id, s.sc_notification, s.start_time, s.end_time "
    "FROM slices s JOIN threads t ON t.run_id = s.run_id AND t.thread_id = s.thread_id "
    "ORDER BY s.seq";

static int setup(void **state)
{
    (void)state;
    return workdir_create("sdf_run");
}

static void clean(void)
{
    static const char *const files[] = {"side.yaml", "p.yaml", "r.db", "a.db", "b.db", "c.db"};
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    char path[1024];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        for (size_t k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s%s", workdir_file(files[i]), suffixes[k]);
            remove(path);
        }
}

/* Each example: sdf init, then sdf run with that skeleton: every PD on
 * core 0 is a thread of the run, and nothing happens but init. */
static void test_examples_skeleton(void **state)
{
    static const struct {
        const char *file;
        int threads; /* PDs on core 0 */
    } ex[] = {
        {"microkit-hello.system", 1},         {"microkit-passive_server.system", 2},
        {"microkit-timer.system", 1},         {"microkit-ethernet.system", 4},
        {"microkit-hierarchy.system", 3},     {"microkit-domains.system", 2},
        {"microkit-cap_sharing.system", 2},   {"microkit-setvar.system", 1},
        {"sddf-echo_server-maaxboard.system", 12}, {"lionsos-firewall.system", 12},
        {"libvmm-smp-qemu_virt_aarch64.system", 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char path[512];
        const char *cores = strstr(ex[i].file, "smp") ? "4" : "1";
        snprintf(path, sizeof path, DIR "examples/%s", ex[i].file);
        assert_int_equal(spawn_mcsim("sdf", "init", path, "--cores", cores, "-o", "side.yaml", NULL),
                         0);
        int rc = spawn_mcsim("sdf", "run", path, "--cores", cores, "--sidecar", "side.yaml", "-o",
                             "r.db", "--quiet", NULL);
        if (rc != 0)
            fprintf(stderr, "%s: %s", ex[i].file, spawn_err);
        assert_int_equal(rc, 0);
        assert_int_equal(sqlq_path_int(workdir_file("r.db"), "SELECT count(*) FROM threads"),
                         ex[i].threads + 1); /* + the root task */
        assert_int_equal(sqlq_path_int(workdir_file("r.db"), "SELECT count(*) FROM irqs"), 0);
        clean();
    }
}

/* Without a sidecar: zero work, no arrivals, and a warning says so. */
static void test_no_sidecar(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "run", DIR "examples/microkit-timer.system", "-o", "r.db",
                                 "--quiet", NULL),
                     0);
    assert_non_null(strstr(spawn_err, "warning: no sidecar"));
    assert_int_equal(sqlq_path_int(workdir_file("r.db"), "SELECT count(*) FROM jobs"), 0);
    clean();
}

static int64_t throttles(const char *thread)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM budget_events b JOIN threads t ON t.run_id = b.run_id AND "
             "t.thread_id = b.thread_id WHERE t.name = '%s' AND b.kind = 'throttle'",
             thread);
    return sqlq_path_int(workdir_file("r.db"), sql);
}

/* 60 packets 20us apart every 10ms: the drivers' 100us / 400us budgets
 * are throttled in every burst (3 times a burst, 5 bursts in 50ms). */
static void test_ethernet_flood(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "run", DIR "examples/sddf-echo_server-maaxboard.system",
                                 "--sidecar", DIR "sidecars/echo_server_flood.mcsim.yaml", "-o",
                                 "r.db", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "PASS  count: throttle of eth at_least 1  (throttle of "
                                      "eth: 15 (at least 1))"));
    assert_int_equal(throttles("eth"), 15);
    assert_int_equal(sqlq_path_int(workdir_file("r.db"),
                                   "SELECT count(*) FROM irqs WHERE lost = 0"),
                     50);
    clean();
    assert_int_equal(spawn_mcsim("sdf", "run", DIR "examples/lionsos-firewall.system",
                                 "--sidecar", DIR "sidecars/firewall_flood.mcsim.yaml", "-o",
                                 "r.db", "--quiet", NULL),
                     0);
    assert_int_equal(throttles("eth0"), 15);
    assert_int_equal(throttles("eth1"), 15);
    clean();
}

/* passive_server exported and run against the same system written by
 * hand: the same slices, thread by thread, context by context. */
static void test_passive_server_compare(void **state)
{
    char *a, *b, *c;
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "export", DIR "examples/microkit-passive_server.system",
                                 "--sidecar", DIR "sidecars/passive_server.mcsim.yaml", "-o",
                                 "p.yaml", NULL),
                     0);
    assert_int_equal(spawn_mcsim("run", workdir_file("p.yaml"), "-o", "a.db", "--quiet", NULL),
                     0);
    assert_int_equal(spawn_mcsim("run", DIR "passive_server_direct.yaml", "-o", "b.db", "--quiet",
                                 NULL),
                     0);
    assert_int_equal(spawn_mcsim("sdf", "run", DIR "examples/microkit-passive_server.system",
                                 "--sidecar", DIR "sidecars/passive_server.mcsim.yaml", "-o",
                                 "c.db", "--quiet", NULL),
                     0);
    sqlite3 *da = sqlq_open(workdir_file("a.db"), false);
    sqlite3 *db = sqlq_open(workdir_file("b.db"), false);
    sqlite3 *dc = sqlq_open(workdir_file("c.db"), false);
    a = sqlq_rows(da, SLICES);
    b = sqlq_rows(db, SLICES);
    c = sqlq_rows(dc, SLICES);
    assert_int_equal(sqlq_int(da, "SELECT count(*) FROM slices"), 34);
    assert_string_equal(a, b);
    assert_string_equal(a, c);
    /* the first call: the client's 100us, then the server on its context */
    assert_non_null(strstr(a, "client|2|NULL|0|100120\nserver|2|NULL|100120|300990\n"));
    assert_int_equal(sqlq_int(da, "SELECT count(*) FROM jobs"),
                     sqlq_int(db, "SELECT count(*) FROM jobs"));
    free(a);
    free(b);
    free(c);
    sqlite3_close(da);
    sqlite3_close(db);
    sqlite3_close(dc);
    clean();
}

/* Bad input: exit 2, nothing written. */
static void test_bad(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "export", DIR "microkit/ch_invalid_pd.system", "-o",
                                 "p.yaml", NULL),
                     2);
    assert_int_equal(spawn_mcsim("sdf", "export", DIR "examples/microkit-hello.system", NULL), 2);
    assert_int_equal(spawn_mcsim("sdf", "run", DIR "bad/min_budget.system", "-o", "r.db", NULL),
                     2);
    assert_non_null(strstr(spawn_err, "MIN_BUDGET"));
    assert_int_equal(workdir_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_skeleton),
        cmocka_unit_test(test_no_sidecar),
        cmocka_unit_test(test_ethernet_flood),
        cmocka_unit_test(test_passive_server_compare),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
