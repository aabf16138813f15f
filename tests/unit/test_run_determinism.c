/*
 * mcsim run's determinism end to end, as a user runs it: the `mcsim`
 * binary (MCSIM_BIN, set by CTest) spawned in an empty directory, its
 * database then read with SQLite. The same file, seed and version give
 * the same rows in every table; a seed changes the draws; the named random
 * streams keep a device's arrivals when a thread is added.
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

#include "spawn.h"
#include "sqlq.h"
#include "util/strbuf.h"
#include "workdir.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/run/"
#define NETWORK_DRIVER MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml"
#define REFCASE_DIR MCSIM_SOURCE_DIR "/tests/scenarios/kernel"

/* ---------------------------------------------------- files and rows */

/* The text of `b`, malloc'd (free it); `b` is released. */
static char *text_of(struct strbuf *b)
{
    char *text = strdup(sb_str(b));

    assert_false(b->failed);
    assert_non_null(text);
    sb_release(b);
    return text;
}

/* Every column but those that may differ between equal runs. */
static bool compared_column(const char *table, const char *column)
{
    /* A block's rowids depend on what the file held before the run. */
    bool rowids = strcmp(table, "trace_blocks") == 0 &&
                  (strcmp(column, "first_row") == 0 || strcmp(column, "last_row") == 0);

    return strcmp(column, "run_id") != 0 && !rowids &&
           !(strcmp(table, "runs") == 0 && strcmp(column, "created_at") == 0);
}

/* Append the rows of `table` for `run_id` in the order they were written,
 * one line each, every value with its type; returns the number of rows. */
static size_t dump_table(sqlite3 *db, const char *table, int64_t run_id, struct strbuf *b)
{
    char sql[200];
    sqlite3_stmt *st;
    size_t rows = 0;

    snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE run_id = %lld ORDER BY rowid", table,
             (long long)run_id);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        sb_printf(b, "%s:", table);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *name = sqlite3_column_name(st, c);
            if (!compared_column(table, name))
                continue;
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_NULL:
                sb_printf(b, " %s=NULL", name);
                break;
            case SQLITE_INTEGER:
                sb_printf(b, " %s=%lld", name, (long long)sqlite3_column_int64(st, c));
                break;
            default:
                sb_printf(b, " %s='%s'", name, (const char *)sqlite3_column_text(st, c));
                break;
            }
        }
        sb_printf(b, "\n");
        rows++;
    }
    sqlite3_finalize(st);
    return rows;
}

static const char *const tables[] = {
    "runs", "threads", "slices",       "jobs",          "budget_events",
    "irqs", "events",  "expectations", "final_refills",
};
#define N_TABLES (sizeof tables / sizeof tables[0])

static bool documented_table(const char *table)
{
    for (size_t i = 0; i < N_TABLES; i++) {
        if (strcmp(tables[i], table) == 0)
            return true;
    }
    return false;
}

/* Every row of run `run_id` in database `name`, as text (free it): the
 * README's tables, then any other table with a run_id column (tables may
 * be added), by name. rows[i] gets the number of rows of tables[i]. */
static char *dump_run(const char *name, int64_t run_id, size_t rows[N_TABLES])
{
    sqlite3 *db = sqlq_open(workdir_file(name), false);
    sqlite3_stmt *st;
    struct strbuf b = {0};

    for (size_t i = 0; i < N_TABLES; i++)
        rows[i] = dump_table(db, tables[i], run_id, &b);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT m.name FROM sqlite_master m WHERE m.type = "
                                        "'table' AND EXISTS (SELECT 1 FROM pragma_table_info"
                                        "(m.name) WHERE name = 'run_id') ORDER BY m.name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(st, 0);
        if (!documented_table(table))
            dump_table(db, table, run_id, &b);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return text_of(&b);
}

/* Fail, showing the first line where two dumps differ. */
static void assert_same_dump(const char *a, const char *b, const char *what)
{
    size_t line = 1;
    const char *la = a, *lb = b;

    if (strcmp(a, b) == 0)
        return;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    fail_msg("%s: the rows differ first at line %zu:\n  first:  %.*s\n  second: %.*s", what, line,
             (int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
}

/* The arrivals of one device, ascending, as text (free it). */
static char *arrivals(const char *name, const char *device)
{
    char sql[200];
    sqlite3 *db = sqlq_open(workdir_file(name), false);
    sqlite3_stmt *st;
    struct strbuf b = {0};

    snprintf(sql, sizeof sql, "SELECT arrival FROM irqs WHERE device = '%s' ORDER BY arrival",
             device);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
        sb_printf(&b, "%lld\n", (long long)sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return text_of(&b);
}


/* --------------------------------------------------------- determinism */

/* Runs `file` with `trace` into a.db, b.db and twice into c.db; every row
 * of every table is the same in all four, bar run_id and created_at. */
static void check_deterministic(const char *file, const char *trace)
{
    size_t rows[N_TABLES], rows2[N_TABLES];

    workdir_clear();
    assert_int_equal(spawn_mcsim("run", file, "-o", "a.db", "--trace", trace, "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", file, "-o", "b.db", "--trace", trace, "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", file, "-o", "c.db", "--trace", trace, "--quiet", NULL), 0);
    assert_int_equal(spawn_mcsim("run", file, "-o", "c.db", "--trace", trace, "--quiet", NULL), 0);
    char *a = dump_run("a.db", 1, rows);
    char *b = dump_run("b.db", 1, rows2);
    char *c1 = dump_run("c.db", 1, rows2);
    char *c2 = dump_run("c.db", 2, rows2);
    assert_same_dump(a, b, "two files");
    assert_same_dump(a, c1, "two files");
    assert_same_dump(c1, c2, "two runs in one file");
    /* Every table was exercised (events holds every kernel event with
     * --trace full, only preemptions otherwise). */
    for (size_t i = 0; i < N_TABLES; i++) {
        if (strcmp(tables[i], "events") != 0 || strcmp(trace, "full") == 0) {
            if (rows[i] == 0)
                fail_msg("%s --trace %s: no rows in %s", file, trace, tables[i]);
        }
    }
    assert_int_equal(
        sqlq_path_int(workdir_file("c.db"), "SELECT count(*) FROM runs WHERE finished = 1"), 2);
    free(a);
    free(b);
    free(c1);
    free(c2);
}

static void test_run_deterministic_network_driver(void **state)
{
    (void)state;
    check_deterministic(NETWORK_DRIVER, "sched");
    check_deterministic(NETWORK_DRIVER, "full");
}

static void test_run_deterministic_random(void **state)
{
    (void)state;
    check_deterministic(DATA_DIR "random.yaml", "sched");
    check_deterministic(DATA_DIR "random.yaml", "full");
}

/* Another seed draws other jitter, gaps and compute times; the burst
 * device draws nothing and stays put. */
static void test_run_seed_changes_draws(void **state)
{
    (void)state;
    size_t rows[N_TABLES];

    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "random.yaml", "-o", "s1.db", "--seed", "1", "--quiet", NULL),
        0);
    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "random.yaml", "-o", "s2.db", "--seed", "2", "--quiet", NULL),
        0);
    assert_int_equal(sqlq_path_int(workdir_file("s2.db"), "SELECT seed FROM runs"), 2);
    char *tick1 = arrivals("s1.db", "tick"), *tick2 = arrivals("s2.db", "tick");
    char *rx1 = arrivals("s1.db", "rx"), *rx2 = arrivals("s2.db", "rx");
    char *burst1 = arrivals("s1.db", "bursty"), *burst2 = arrivals("s2.db", "bursty");
    assert_string_not_equal(tick1, tick2);
    assert_string_not_equal(rx1, rx2);
    assert_string_equal(burst1, burst2);

    /* Jittered arrival k lies in [k * 2ms, k * 2ms + 300us]. */
    sqlite3 *db = sqlq_open(workdir_file("s1.db"), false);
    assert_int_equal(sqlq_int(db, "SELECT count(*) FROM irqs WHERE device = 'tick'"), 50);
    assert_int_equal(sqlq_int(db, "SELECT count(*) FROM (SELECT arrival, row_number() OVER "
                                  "(ORDER BY arrival) - 1 AS k FROM irqs WHERE device = 'tick')"
                                  " WHERE arrival < k * 2000000 OR arrival > k * 2000000 + "
                                  "300000"),
                     0);
    sqlite3_close(db);

    char *d1 = dump_run("s1.db", 1, rows), *d2 = dump_run("s2.db", 1, rows);
    const char *j1 = strstr(d1, "\njobs:"), *j2 = strstr(d2, "\njobs:");
    assert_non_null(j1);
    assert_non_null(j2);
    assert_string_not_equal(j1, j2);
    free(tick1), free(tick2), free(rx1), free(rx2), free(burst1), free(burst2);
    free(d1), free(d2);
}

/* A thread added first, at the top priority, renumbers and reschedules
 * every other thread; each device keeps its arrivals (streams are named
 * `device:NAME`). */
static void test_run_extra_thread_keeps_arrivals(void **state)
{
    (void)state;
    static const char *const devices[] = {"tick", "rx", "bursty"};
    size_t rows[N_TABLES];

    assert_int_equal(spawn_mcsim("run", DATA_DIR "random.yaml", "-o", "one.db", "--quiet", NULL),
                     0);
    assert_int_equal(
        spawn_mcsim("run", DATA_DIR "random_extra_thread.yaml", "-o", "two.db", "--quiet", NULL),
        0);
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        char *a = arrivals("one.db", devices[i]), *b = arrivals("two.db", devices[i]);
        assert_true(strlen(a) > 0);
        assert_string_equal(a, b);
        free(a), free(b);
    }
    /* ...while the schedule did change. */
    char *d1 = dump_run("one.db", 1, rows), *d2 = dump_run("two.db", 1, rows);
    const char *s1 = strstr(d1, "\nslices:"), *s2 = strstr(d2, "\nslices:");
    assert_non_null(s1);
    assert_non_null(s2);
    assert_string_not_equal(s1, s2);
    assert_int_equal(sqlq_path_int(workdir_file("two.db"),
                                   "SELECT thread_id FROM threads WHERE name = 'control'"),
                     2);
    free(d1), free(d2);
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("run_determinism");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_run_deterministic_network_driver, workdir_empty),
        cmocka_unit_test_setup(test_run_deterministic_random, workdir_empty),
        cmocka_unit_test_setup(test_run_seed_changes_draws, workdir_empty),
        cmocka_unit_test_setup(test_run_extra_thread_keeps_arrivals, workdir_empty),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
