/*
 * `mcsim export --format csv` (cli/export/) on runs recorded by `mcsim
 * run`: every table's file read back with the strict CSV parser of
 * tests/support and compared with the database row by row, nanoseconds
 * exactly.
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
#include <sqlite3.h>

#include "csvread.h"
#include "db/db.h"
#include "export/export.h"
#include "export_fx.h"
#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

/* ---- CSV ---- */

static struct csv_table parse_csv(const char *name)
{
    struct csv_table t;
    size_t len;
    char msg[256] = "", *text = workdir_read(name, &len);
    if (!text)
        fail_msg("no file %s", name);
    if (csv_parse(text, len, &t, msg, sizeof msg) != 0)
        fail_msg("%s is not RFC 4180: %s", name, msg);
    free(text);
    return t;
}

/* c cycles at hz in nanoseconds, exactly (at most 12 decimals, cut, no
 * trailing zeros), worked out here by long division. */
static void ns_text(char *buf, size_t n, uint64_t c, uint64_t hz)
{
    unsigned __int128 num = (unsigned __int128)c * 1000000000u;
    uint64_t rem = (uint64_t)(num % hz);
    size_t len = (size_t)snprintf(buf, n, "%llu", (unsigned long long)(num / hz));

    if (rem == 0)
        return;
    buf[len++] = '.';
    for (int d = 0; d < 12 && rem != 0 && len + 1 < n; d++) {
        unsigned __int128 r = (unsigned __int128)rem * 10;
        buf[len++] = (char)('0' + (int)(r / hz));
        rem = (uint64_t)(r % hz);
    }
    while (buf[len - 1] == '0')
        len--;
    buf[len] = '\0';
}

/* The CSV file of one table holds exactly its rows of the run: header,
 * count, every cell as SQLite gives it as text, NULL as an empty field;
 * a column NAME followed by NAME_ns in the file holds cycles, and NAME_ns
 * is that time in nanoseconds at the run's cpu_hz (empty for NULL). */
static void check_table(sqlite3 *db, const char *dir, const char *table, const char *where,
                        uint64_t cpu_hz)
{
    char name[256], *sql;
    struct csv_table t;
    sqlite3_stmt *st;
    size_t row = 1, ns_cols = 0;
    int ncols;
    snprintf(name, sizeof name, "%s/%s.csv", dir, table);
    t = parse_csv(name);
    sql = sqlite3_mprintf("SELECT * FROM \"%w\" %s", table, where);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_free(sql);
    ncols = sqlite3_column_count(st);
    bool *ns = calloc((size_t)ncols + 1, sizeof *ns);
    size_t *at = calloc((size_t)ncols + 1, sizeof *at);
    assert_non_null(ns);
    assert_non_null(at);
    for (int c = 0; c < ncols; c++) {
        char want[96];
        at[c] = (size_t)c + ns_cols;
        assert_true(at[c] < t.cols);
        assert_string_equal(csv_at(&t, 0, at[c])->text, sqlite3_column_name(st, c));
        snprintf(want, sizeof want, "%s_ns", sqlite3_column_name(st, c));
        ns[c] = at[c] + 1 < t.cols && strcmp(csv_at(&t, 0, at[c] + 1)->text, want) == 0 &&
                strcmp(table, "stats") != 0;
        ns_cols += ns[c];
    }
    assert_int_equal(t.cols, (size_t)ncols + ns_cols);
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(row < t.rows);
        for (int c = 0; c < ncols; c++) {
            const struct csv_field *f = csv_at(&t, row, at[c]);
            if (sqlite3_column_type(st, c) == SQLITE_NULL)
                assert_true(f->len == 0 && !f->quoted);
            else if (sqlite3_column_type(st, c) != SQLITE_FLOAT)
                assert_string_equal(f->text, (const char *)sqlite3_column_text(st, c));
            if (ns[c]) {
                char want[96] = "";
                if (sqlite3_column_type(st, c) == SQLITE_INTEGER)
                    ns_text(want, sizeof want, (uint64_t)sqlite3_column_int64(st, c), cpu_hz);
                assert_string_equal(csv_at(&t, row, at[c] + 1)->text, want);
            }
        }
        row++;
    }
    sqlite3_finalize(st);
    free(ns);
    free(at);
    if (row != t.rows)
        fail_msg("%s: %zu rows in the file, %zu in the database", table, t.rows - 1, row - 1);
    csv_release(&t);
}

static void check_all_tables(sqlite3 *db, const char *dir, int64_t run)
{
    sqlite3_stmt *st;
    size_t tables = 0;
    char hz_sql[96];
    snprintf(hz_sql, sizeof hz_sql, "SELECT cpu_hz FROM runs WHERE run_id = %lld", (long long)run);
    uint64_t cpu_hz = (uint64_t)sqlq_int(db, hz_sql);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT name, name IN " DB_ACCESS_OBJECTS " FROM"
                                        " sqlite_master WHERE type IN ('table', 'view') AND"
                                        " name NOT LIKE 'sqlite%' ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(st, 0);
        bool seq = strcmp(table, "slices") == 0 || strcmp(table, "jobs") == 0 ||
                   strcmp(table, "budget_events") == 0 || strcmp(table, "irqs") == 0 ||
                   strcmp(table, "events") == 0 || strcmp(table, "refills") == 0;
        char where[160], name[256];
        if (sqlite3_column_int(st, 1)) {
            /* What finds rows, not data: not exported. */
            snprintf(name, sizeof name, "%s/%s.csv", dir, table);
            assert_null(workdir_read(name, &(size_t){0}));
            continue;
        }
        if (strcmp(table, "scenario_files") == 0)
            snprintf(where, sizeof where,
                     "WHERE sha256 IN (SELECT sha256 FROM runs WHERE run_id = %lld)",
                     (long long)run);
        else
            snprintf(where, sizeof where, "WHERE run_id = %lld%s", (long long)run,
                     strcmp(table, "stats") == 0 || strcmp(table, "run_stats") == 0 ? ""
                     : seq ? " ORDER BY seq, rowid"
                           : " ORDER BY rowid");
        check_table(db, dir, table, where, cpu_hz);
        tables++;
    }
    sqlite3_finalize(st);
    assert_true(tables >= 9);
}

static void test_export_csv(void **state)
{
    sqlite3 *db = sqlq_open(workdir_file("t.db"), true);
    struct csv_table t;
    (void)state;
    assert_int_equal(export_run("export t.db --format csv -o csv/a/b"), 0);
    assert_string_equal(spawn_err, "");
    check_all_tables(db, "csv/a/b", 2);
    /* Every column of cycles has its nanoseconds beside it. */
    static const char *const with_ns[][2] = {
        {"runs", "duration_ns"},       {"threads", "budget_ns"},
        {"threads", "period_ns"},      {"threads", "deadline_ns"},
        {"slices", "start_time_ns"},   {"slices", "end_time_ns"},
        {"jobs", "release_time_ns"},   {"jobs", "start_time_ns"},
        {"jobs", "finish_time_ns"},    {"jobs", "deadline_time_ns"},
        {"jobs", "response_ns"},       {"budget_events", "time_ns"},
        {"budget_events", "amount_ns"}, {"irqs", "arrival_ns"},
        {"irqs", "delivered_ns"},      {"irqs", "handler_start_ns"},
        {"events", "time_ns"},         {"final_refills", "time_ns"},
        {"final_refills", "amount_ns"}, {"refills", "time_ns"},
        {"refills", "head_time_ns"},   {"refills", "head_amount_ns"},
        {"kernel_stats", "cycles_ns"}, {"run_stats", "kernel_cycles_ns"},
        {"stats", "cpu_ns"},
    };
    for (size_t i = 0; i < sizeof with_ns / sizeof with_ns[0]; i++) {
        char file[128];
        snprintf(file, sizeof file, "csv/a/b/%s.csv", with_ns[i][0]);
        t = parse_csv(file);
        if (csv_column(&t, with_ns[i][1]) < 0)
            fail_msg("%s has no column %s", file, with_ns[i][1]);
        csv_release(&t);
    }
    /* Quoting: the path and the scenario's name come back whole. */
    t = parse_csv("csv/a/b/runs.csv");
    assert_int_equal(t.rows, 2);
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "scenario"))->text, ODD_NAME);
    assert_true(csv_at(&t, 1, (size_t)csv_column(&t, "scenario"))->quoted);
    csv_release(&t);
    /* Another run, into a directory that exists. */
    assert_int_equal(export_run("export t.db --format csv --run 1 -o csv/a"), 0);
    check_all_tables(db, "csv/a", 1);
    sqlite3_close(db);
}

/* Nanoseconds exactly at a clock that does not divide a second into whole
 * nanoseconds: 3 MHz, a cycle is 333.333... ns (cut after 12 decimals),
 * in the CSV's NAME_ns columns and in the stats view's *_ns. */
static void test_export_csv_ns(void **state)
{
    char path[512], msg[256];
    struct db *w;
    sqlite3 *db;
    struct csv_table t;
    (void)state;
    snprintf(path, sizeof path, "%s", workdir_file("ns.db"));
    assert_int_equal(db_open(path, &w, msg, sizeof msg), 0);
    assert_int_equal(
        sqlite3_exec(db_sqlite(w),
                     "INSERT INTO runs (scenario, seed, duration, cpu_hz, timer_hz, scheduler,"
                     " hal, version, created_at, finished) VALUES ('ns', 0, 3000, 3000000,"
                     " 1000000, 'mcs', 'sim', '0', '2024-01-01T00:00:00Z', 1);"
                     "INSERT INTO threads (run_id, thread_id, name, priority, budget, period,"
                     " passive) VALUES (1, 1, 'a', 1, 300, 3000, 0), (1, 2, 'b', 1, NULL, NULL, 1);"
                     "INSERT INTO slice_rows (run_id, thread_id, sc_thread_id, start_time, end_time)"
                     " VALUES (1, 1, 1, 100, 250), (1, 2, 1, 250, 350);",
                     NULL, NULL, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_exec(db_sqlite(w), db_blocks_of_rows_sql, NULL, NULL, NULL),
                     SQLITE_OK);
    db_close(w);
    assert_int_equal(export_open(path, &db, msg, sizeof msg), 0);
    assert_int_equal(export_csv(db, 1, workdir_file("ns"), msg, sizeof msg), 0);
    sqlite3_close(db);
    t = parse_csv("ns/slices.csv");
    assert_int_equal(t.rows, 3);
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "start_time_ns"))->text,
                        "33333.333333333333");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "end_time_ns"))->text, "83333.333333333333");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "end_time_ns"))->text,
                        "116666.666666666666");
    csv_release(&t);
    t = parse_csv("ns/threads.csv");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "period_ns"))->text, "1000000");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "period_ns"))->text, "");
    csv_release(&t);
    /* a: 150 cycles of its own (50us), charged 250 (b ran 100 on its context) */
    t = parse_csv("ns/stats.csv");
    assert_int_equal(t.rows, 3);
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "name"))->text, "a");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "cpu_ns"))->text, "50000");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "charged_ns"))->text,
                        "83333.333333333333");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "name"))->text, "b");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "cpu_ns"))->text, "33333.333333333333");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "worst_response_ns"))->text, "");
    csv_release(&t);
}

static int setup(void **state)
{
    (void)state;
    return export_setup("export_csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_export_csv_ns),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
