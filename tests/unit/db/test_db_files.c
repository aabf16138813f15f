/*
 * Unit tests of the SQLite recorder (cli/db/db.h), its files: refusing
 * files that are not mcsim databases (or are empty), upgrading a version 1
 * file to the schema a new file gets, the kernel's statistics and the
 * scenario's text stored with each run, misuse of the sink and engine
 * bugs, and the null sink. unit.db: the schema and the rows.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sqlite3.h>

#include <mcsim/bootinfo.h>

#include "db/db.h"
#include "db/db_int.h"
#include "db_versions.h"
#include "null_sink.h"
#include "db_fx.h"
#include "sqlq.h"


/* ---- refusing files ---- */

static void assert_refused(const char *path, const char *reason)
{
    char err[DB_ERRMSG_MAX] = "", want[DB_ERRMSG_MAX];
    struct db *db = (struct db *)&err; /* any non-NULL value: db_open must clear it */

    assert_int_equal(db_open(path, &db, err, sizeof err), -1);
    assert_null(db);
    snprintf(want, sizeof want, "mcsim: %s: %s", path, reason);
    assert_string_equal(err, want);
}

static void test_db_refuses_other_files(void **state)
{
    char path[256], sql[300];
    sqlite3 *sq;
    FILE *f;

    (void)state;
    db_path(path, sizeof path, "other.db");
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq, "CREATE TABLE contacts (name TEXT)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
    assert_refused(path, "not an mcsim database (it holds another program's tables;"
                         " give another file with -o)");
    /* Untouched: still only its own table. */
    sqlq_assert_path_rows(path, "SELECT name FROM sqlite_master", "contacts\n");

    db_path(path, sizeof path, "notes.txt");
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 100; i++)
        fputs("these are not the pages of a database\n", f);
    fclose(f);
    assert_refused(path, "not an mcsim database (not an SQLite file)");

    db_path(path, sizeof path, "newer.db");
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    snprintf(sql, sizeof sql,
             "PRAGMA application_id = %d; PRAGMA user_version = 9;"
             " CREATE TABLE runs (run_id INTEGER PRIMARY KEY)",
             DB_APPLICATION_ID);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sq);
    assert_refused(path, "written by a newer mcsim (schema version 9; this mcsim reads up to 5)");

    db_path(path, sizeof path, "no-such-dir/x.db");
    assert_refused(path, "unable to open database file");
}

/* An empty file (as `touch` leaves it) is an empty database: it gets the
 * schema. */
static void test_db_empty_file(void **state)
{
    char path[256];
    struct db *db;
    FILE *f;

    (void)state;
    db_path(path, sizeof path, "empty.db");
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    db_close(db);
}

/* A file written with schema version 1 gains version 2's columns, tables
 * and views when it is opened; its rows stay. */
static void test_db_upgrade_v1(void **state)
{
    char path[256];
    struct db *db;
    sqlite3 *sq;

    (void)state;
    db_path(path, sizeof path, "v1.db");
    db = open_db(path);
    db_close(db);
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq,
                                  DB_TEST_DROP_V5 " " DB_TEST_DROP_V3
                                  " DROP TABLE kernel_stats;"
                                  " DROP TABLE scenario_files;"
                                  " ALTER TABLE irqs DROP COLUMN handler_start;"
                                  " ALTER TABLE irqs DROP COLUMN handler;"
                                  " INSERT INTO irqs VALUES (1, 'net', 33, 10, 20, 0);"
                                  " PRAGMA user_version = 1;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM irqs", "1|net|33|10|20|0|NULL|NULL|NULL\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM trace_blocks",
                     "1|irqs|NULL|NULL|net|NULL|1|1|10|10\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT device, arrival, handler, seq, row FROM run_irqs",
                     "net|10|NULL|NULL|1\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT count(*) FROM sqlite_master", "32\n");
    db_close(db);
}

/* A new file's schema (db_schema_new_sql, made in one go) is the one that
 * versions 1 to 5 leave when a version-1 file made by version 1's SQL
 * itself is upgraded: the same objects, with the same text, in the same
 * order (sqlite_master's rowid order, which `.dump` follows). */
static void test_db_new_schema_is_the_upgraded_one(void **state)
{
    const char *master = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid";
    char path[256], old[256], pragmas[128];
    struct db *db;
    sqlite3 *sq;
    char *fresh, *upgraded;

    (void)state;
    db_path(path, sizeof path, "fresh.db");
    db = open_db(path);
    fresh = sqlq_rows(db_sqlite(db), master);
    db_close(db);
    db_path(old, sizeof old, "v1_sql.db");
    assert_int_equal(sqlite3_open(old, &sq), SQLITE_OK);
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = 1;",
             DB_APPLICATION_ID);
    assert_int_equal(sqlite3_exec(sq, db_schema_v1_sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq, pragmas, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sq);
    db = open_db(old);
    upgraded = sqlq_rows(db_sqlite(db), master);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    db_close(db);
    assert_string_equal(fresh, upgraded);
    assert_non_null(strstr(fresh, "view|stats|stats|CREATE VIEW stats AS"));
    free(fresh);
    free(upgraded);
}

/* kernel_stats rows, the scenario's text (once per distinct file) and the
 * stats views over them. */
static void test_db_kernel_stats_and_file(void **state)
{
    const struct sink_kernel_stats ks[] = {
        {1, ENTRY_SYSCALL, 10, 5000, 4, 2400, 480, 3, 750},
        {SINK_NO_THREAD, ENTRY_IRQ, 2, 1000, 2, 1000, 240, 2, 500},
    };
    static char text[] = "mcsim: 1\n";
    struct scenario s;
    char path[256];
    struct db *db;
    struct trace_sink k;

    (void)state;
    fx_scenario(&s);
    s.text = text;
    s.text_len = strlen(s.text);
    db_path(path, sizeof path, "kstats.db");
    db = open_db(path);
    k = db_sink(db, FIXED_TIME);
    for (int run = 0; run < 2; run++) {
        assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
        write_one_of_each(&k);
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            assert_int_equal(k.ops->kernel_stats(k.self, &ks[i]), 0);
        assert_int_equal(k.ops->run_end(k.self, true), 0);
    }
    /* the rows of each run name it (the inserts have the run's id
     * written in, db_rows.c) */
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT run_id, (SELECT count(*) FROM slice_rows s WHERE s.run_id = r.run_id),"
                     " (SELECT count(*) FROM job_rows j WHERE j.run_id = r.run_id),"
                     " (SELECT count(*) FROM events e WHERE e.run_id = r.run_id),"
                     " (SELECT count(*) FROM budget_events b WHERE b.run_id = r.run_id),"
                     " (SELECT count(*) FROM irqs q WHERE q.run_id = r.run_id)"
                     " FROM runs r ORDER BY run_id",
                     "1|4|2|3|6|2\n2|4|2|3|6|2\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM kernel_stats WHERE run_id = 1 ORDER BY cycles",
                     "1|NULL|irq|2|1000|2|1000|240|2|500\n1|1|syscall|10|5000|4|2400|480|3|750\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT count(*), min(text) FROM scenario_files",
                     "1|mcsim: 1\n\n");
    sqlq_assert_rows(
        db_sqlite(db),
        "SELECT name, jobs, misses, cpu, charged, throttled, timeout_faults,"
        " kernel_entries, kernel_cycles FROM stats WHERE run_id = 1 ORDER BY thread_id",
        "(root)|0|0|0|0|0|0|0|0\n"
        "control|1|0|1500|1800|9998500|0|10|5000\n"
        "logger|1|1|100|0|0|0|0|0\n"
        "server|0|0|400|0|0|1|0|0\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT name, irqs_handled, worst_irq_latency FROM stats WHERE run_id = 1"
                     " AND thread_id = 2",
                     "logger|1|1400\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT jobs, misses, kernel_entries, kernel_cycles, decisions,"
                     " cycles_per_decision, syscall_decisions, syscall_cycles_per_decision,"
                     " timer_programs FROM run_stats WHERE run_id = 2",
                     "2|1|12|6000|6|566.666666666667|4|600.0|5\n");
    db_close(db);
}

/* ---- misuse and engine bugs ---- */

static void test_db_misuse(void **state)
{
    struct scenario s;
    char path[256], want[DB_ERRMSG_MAX];
    struct db *db;
    struct trace_sink k;
    struct sink_slice slice = {1, 1, SINK_NO_THREAD, 0, 5};

    (void)state;
    fx_scenario(&s);
    db_path(path, sizeof path, "misuse.db");
    db = open_db(path);
    k = db_sink(db, FIXED_TIME);
    assert_string_equal(db_errmsg(db), "");
    assert_int_equal(k.ops->slice(k.self, &slice), -1);
    snprintf(want, sizeof want, "mcsim: %s: no run in progress", path);
    assert_string_equal(db_errmsg(db), want);

    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), -1);
    snprintf(want, sizeof want, "mcsim: %s: a run is already in progress (run 1)", path);
    assert_string_equal(db_errmsg(db), want);
    assert_int_equal(k.ops->slice(k.self, &slice), 0);
    assert_int_equal(
        k.ops->irq(k.self, &(struct sink_irq){5, 40, 1, 2, false, SINK_NO_THREAD, SINK_NO_TIME}),
        -1);
    snprintf(want, sizeof want,
             "mcsim: %s: internal error: trace row names device 5, which the scenario does not"
             " have",
             path);
    assert_string_equal(db_errmsg(db), want);
    assert_int_equal(k.ops->run_end(k.self, true), -1);
    /* A new run may begin after a failed one. */
    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
    assert_int_equal(db_run_id(db), 2);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT run_id, finished FROM runs", "1|0\n2|1\n");
    db_close(NULL);
}

static void test_db_null_sink(void **state)
{
    struct scenario s;
    struct trace_sink k = null_sink();

    (void)state;
    fx_scenario(&s);
    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
    assert_int_equal(k.ops->slice(k.self, &(struct sink_slice){1, 1, 0, 0, 1}), 0);
    assert_int_equal(k.ops->job(k.self, &(struct sink_job){.thread = 1, .job = 1}), 0);
    assert_int_equal(k.ops->budget_event(k.self, &(struct sink_budget_event){.thread = 1}), 0);
    assert_int_equal(k.ops->irq(k.self, &(struct sink_irq){.device = 9}), 0);
    assert_int_equal(k.ops->event(k.self, &(struct sink_event){.kind = "switch"}), 0);
    assert_int_equal(k.ops->expectation(k.self, &(struct sink_expectation){.text = "x"}), 0);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_refuses_other_files),
        cmocka_unit_test(test_db_empty_file),
        cmocka_unit_test(test_db_upgrade_v1),
        cmocka_unit_test(test_db_new_schema_is_the_upgraded_one),
        cmocka_unit_test(test_db_kernel_stats_and_file),
        cmocka_unit_test(test_db_misuse),
        cmocka_unit_test(test_db_null_sink),
    };

    return cmocka_run_group_tests(tests, db_fx_setup, db_fx_teardown);
}
