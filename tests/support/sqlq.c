/*
 * The queries of tests/support/sqlq.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlq.h"
#include "util/strbuf.h"

sqlite3 *sqlq_open(const char *path, bool writable)
{
    sqlite3 *db = NULL;
    int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;

    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK)
        fail_msg("cannot open %s: %s", path, sqlite3_errmsg(db));
    /* mcsim may be writing it (an interrupted run's test polls it). */
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    return st;
}

int64_t sqlq_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = prepare(db, sql);
    int64_t v = -1;

    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t sqlq_path_int(const char *path, const char *sql)
{
    sqlite3 *db = sqlq_open(path, false);
    int64_t v = sqlq_int(db, sql);

    sqlite3_close(db);
    return v;
}

char *sqlq_rows(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = prepare(db, sql);
    struct strbuf sb = {0};
    char *rows;

    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);

            sb_printf(&sb, "%s%s", c ? "|" : "", v ? v : "NULL");
        }
        sb_puts(&sb, "\n");
    }
    sqlite3_finalize(st);
    assert_false(sb.failed);
    rows = strdup(sb_str(&sb));
    assert_non_null(rows);
    sb_release(&sb);
    return rows;
}

void sqlq_assert_rows(sqlite3 *db, const char *sql, const char *expected)
{
    char *got = sqlq_rows(db, sql);

    if (strcmp(got, expected) != 0)
        fail_msg("%s\nexpected:\n%s\nactual:\n%s", sql, expected, got);
    free(got);
}

void sqlq_assert_path_rows(const char *path, const char *sql, const char *expected)
{
    sqlite3 *db = sqlq_open(path, false);

    sqlq_assert_rows(db, sql, expected);
    sqlite3_close(db);
}

void sqlq_exec(const char *path, const char *sql)
{
    sqlite3 *db = sqlq_open(path, true);

    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_true(sqlite3_changes(db) > 0 || strncmp(sql, "UPDATE", 6) != 0);
    sqlite3_close(db);
}
