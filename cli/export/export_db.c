/*
 * Opening a recorded database for export, read-only (db_open_read), and
 * choosing the run.
 */
#include "export_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db/db.h"

int export_fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : rc;
}

int export_open(const char *path, sqlite3 **out, char *err, size_t err_len)
{
    return db_open_read(path, out, err, err_len);
}

static int find_requested(sqlite3 *db, const char *path, int64_t requested, int64_t *run_id,
                          bool *finished, char *err, size_t err_len)
{
    sqlite3_stmt *st;
    int rc;
    if (sqlite3_prepare_v2(db, "SELECT finished FROM runs WHERE run_id = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return export_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, requested);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *run_id = requested;
        *finished = sqlite3_column_int(st, 0) != 0;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return export_fail(err, err_len, "mcsim: %s: no run %lld", path, (long long)requested);
    return export_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(db));
}

int export_find_run(sqlite3 *db, const char *path, int64_t requested, int64_t *run_id,
                    bool *finished, char *err, size_t err_len)
{
    int64_t latest = 0;
    int rc;
    if (requested > 0)
        return find_requested(db, path, requested, run_id, finished, err, err_len);
    rc = query_int(db, "SELECT coalesce(max(run_id), 0) FROM runs WHERE finished = 1", &latest);
    if (rc != 0)
        return export_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(db));
    if (latest == 0)
        return export_fail(err, err_len,
                           "mcsim: %s: no finished run (give an interrupted one with --run N)",
                           path);
    *run_id = latest;
    *finished = true;
    return 0;
}
