/*
 * Opening a recorded database for export, read-only, and choosing the run.
 * Unlike db_open (which a recorder uses), nothing is created: a mistyped
 * path must be an error, not a new empty database.
 */
#include "export_int.h"

#include <errno.h>
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

/* The file must carry mcsim's application id and a schema version this
 * mcsim reads. */
static int check_header(sqlite3 *db, const char *path, char *err, size_t err_len)
{
    int64_t app = 0, version = 0;
    int rc = query_int(db, "PRAGMA application_id", &app);
    if (rc == 0)
        rc = query_int(db, "PRAGMA user_version", &version);
    if (rc == SQLITE_NOTADB)
        return export_fail(err, err_len, "mcsim: %s: not an mcsim database (not an SQLite file)",
                           path);
    if (rc != 0)
        return export_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(db));
    if (app != DB_APPLICATION_ID || version < 1)
        return export_fail(err, err_len, "mcsim: %s: not an mcsim database", path);
    if (version > DB_SCHEMA_VERSION)
        return export_fail(err, err_len,
                           "mcsim: %s: written by a newer mcsim (schema version %lld; this mcsim "
                           "reads up to %d)",
                           path, (long long)version, DB_SCHEMA_VERSION);
    return 0;
}

int export_open(const char *path, sqlite3 **out, char *err, size_t err_len)
{
    FILE *probe = fopen(path, "rb");
    sqlite3 *db = NULL;

    *out = NULL;
    if (!probe)
        return export_fail(err, err_len, "mcsim: %s: %s", path, strerror(errno));
    fclose(probe);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        export_fail(err, err_len, "mcsim: %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    /* A recorder may be appending to the file. */
    sqlite3_busy_timeout(db, 5000);
    if (check_header(db, path, err, err_len) != 0) {
        sqlite3_close(db);
        return -1;
    }
    if (db_read_views(db) != 0) {
        export_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    *out = db;
    return 0;
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
