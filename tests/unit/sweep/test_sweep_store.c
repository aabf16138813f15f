/*
 * The sweep's results file is opened as mcsim's databases are (issue 18):
 * SQLite configured single-threaded and without memory statistics
 * (db_sqlite_config) before its first connection, and the connection
 * without a mutex. The first SQLite connection of this process is the
 * sweep store's, as in `mcsim sweep`, so SQLite's configuration is the
 * one that open made: a store opened with the library's defaults would
 * leave it serialized (a connection mutex) and counting memory, and
 * every later db_open of the process too.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "db/db.h"
#include "sweep/store.h"

static void test_sweep_store_single_threaded(void **state)
{
    struct sweep_spec spec = {.name = "store", .path = "store.yaml", .text = "", .sets = 1};
    struct sweep_store *st;
    struct db *db;
    char err[DB_ERRMSG_MAX];

    (void)state;
    assert_int_equal(sweep_store_open(":memory:", &spec, "", &st, err, sizeof err), 0);
    /* no mutex: single-thread (or multi-thread) mode; no memory statistics */
    assert_null(sqlite3_db_mutex(sweep_store_sqlite(st)));
    assert_int_equal(sqlite3_memory_used(), 0);
    /* too late to change: SQLite is initialized */
    assert_int_equal(sqlite3_config(SQLITE_CONFIG_MULTITHREAD), SQLITE_MISUSE);
    assert_int_equal(db_open(":memory:", &db, err, sizeof err), 0);
    assert_null(sqlite3_db_mutex(db_sqlite(db)));
    db_close(db);
    assert_int_equal(sweep_store_close(st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_store_single_threaded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
