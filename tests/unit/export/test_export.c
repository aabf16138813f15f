/*
 * cli/export*: `mcsim export` as a user runs it (MCSIM_BIN, set by
 * CTest) on runs recorded by `mcsim run`: the exact decimals both formats
 * write, choosing the run and the mistakes. The Chrome trace is
 * test_export_chrome.c, the CSV files test_export_csv.c (the fixture they
 * share: tests/support/export_fx.h).
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

#include "export_fx.h"
#include "spawn.h"
#include "sqlq.h"
#include "util/decimal.h"
#include "workdir.h"

static void test_export_decimal(void **state)
{
    static const struct {
        uint64_t cycles, hz;
        const char *us, *human;
    } cases[] = {
        {1234567, 1000000000, "1234.567", "1.234567ms"},
        {0, 1000000000, "0", "0"},
        {2000000, 1000000000, "2000", "2ms"},
        {1, 32768, "30.517578125", "30.517578us"},
        {1, 62500000, "0.016", "16ns"},
        {150000, 1000000000, "150", "150us"},
        {1, 3000000000u, "0.000333333333", "0.333333ns"},
        {3000000000u, 1000000000, "3000000", "3s"},
        {UINT64_MAX, 1, "18446744073709551615000000", "18446744073709551615s"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[DEC_BUF];
        dec_cycles_us(buf, sizeof buf, cases[i].cycles, cases[i].hz);
        assert_string_equal(buf, cases[i].us);
        dec_duration(buf, sizeof buf, cases[i].cycles, cases[i].hz);
        assert_string_equal(buf, cases[i].human);
    }
}

/* ---- choosing the run, and mistakes ---- */

static void test_export_errors(void **state)
{
    sqlite3 *db;
    (void)state;
    assert_int_equal(export_run("export nope.db --format csv"), 2);
    assert_string_equal(spawn_err, "mcsim: nope.db: No such file or directory\n");
    assert_false(workdir_exists("nope.db"));
    assert_int_equal(export_run("export '" EXPORT_SCENARIO "' --format chrome"), 2);
    assert_non_null(strstr(spawn_err, "not an mcsim database"));
    assert_int_equal(export_run("export t.db --format chrome --run 99"), 2);
    assert_string_equal(spawn_err, "mcsim: t.db: no run 99\n");
    assert_int_equal(export_run("export t.db --format xml"), 2);
    assert_int_equal(export_run("export t.db"), 2);
    assert_non_null(strstr(spawn_err, "no format given"));
    assert_int_equal(export_run("export t.db --format csv --run 0"), 2);
    assert_int_equal(export_run("export t.db --format chrome -o no/such/dir/t.json"), 2);
    assert_int_equal(export_run("help export"), 0);
    /* An interrupted run is never the default, but may be asked for. */
    db = sqlq_open(workdir_file("t.db"), true);
    assert_int_equal(
        sqlite3_exec(db, "UPDATE runs SET finished = 0 WHERE run_id = 2", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(export_run("export t.db --format chrome -o u.json"), 0);
    struct json *trace = export_json_file("u.json");
    assert_int_equal((int)json_get(json_get(trace, "otherData"), "run_id")->number, 1);
    json_free(trace);
    assert_int_equal(export_run("export t.db --format chrome --run 2 -o u.json"), 0);
    assert_string_equal(spawn_err, "mcsim: export: warning: run 2 is unfinished (interrupted): its "
                                   "rows stop where it stopped\n");
    db = sqlq_open(workdir_file("t.db"), true);
    assert_int_equal(
        sqlite3_exec(db, "UPDATE runs SET finished = 1 WHERE run_id = 2", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
}

static int setup(void **state)
{
    (void)state;
    return export_setup("export");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_decimal),
        cmocka_unit_test(test_export_errors),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
