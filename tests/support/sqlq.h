/*
 * SQLite queries for tests that read what mcsim recorded. Every function
 * fails the running test (cmocka) with the SQL and SQLite's message when a
 * statement cannot be prepared or run.
 */
#ifndef MCSIM_TESTS_SQLQ_H
#define MCSIM_TESTS_SQLQ_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

/* Open the database at `path`, read-only unless `writable`. */
sqlite3 *sqlq_open(const char *path, bool writable);

/* The first column of the first row of `sql`, or -1 if it has no row. */
int64_t sqlq_int(sqlite3 *db, const char *sql);

/* sqlq_int on a connection of its own to `path`. */
int64_t sqlq_path_int(const char *path, const char *sql);

/*
 * The rows of `sql` as one malloc'd string: columns separated by '|', each
 * row ended by '\n', NULL as "NULL", so that whole tables compare at once.
 */
char *sqlq_rows(sqlite3 *db, const char *sql);

/* Fail unless sqlq_rows(db, sql) is `expected`, showing both. */
void sqlq_assert_rows(sqlite3 *db, const char *sql, const char *expected);

/* sqlq_assert_rows on a read-only connection of its own to `path`. */
void sqlq_assert_path_rows(const char *path, const char *sql, const char *expected);

/*
 * Run `sql` on `path` (to tamper with a recorded run). An UPDATE that
 * changes no row fails: the tampering missed.
 */
void sqlq_exec(const char *path, const char *sql);

#endif /* MCSIM_TESTS_SQLQ_H */
