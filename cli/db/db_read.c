/*
 * Opening a recorded database to read it (db.h: db_open_read). Nothing is
 * created and nothing is written: a mistyped path is an error, not a new
 * empty database, and a reader leaves no -wal or -shm file behind. A
 * recorder leaves its file in rollback-journal mode when it closes it
 * (db_close), so a reader needs no write access to the file or its
 * folder; a file still in WAL mode (written by an mcsim before that, or
 * whose recorder was killed) in a folder the reader cannot write is read
 * as immutable, which is right as long as no recorder is appending to it.
 */
#include "db_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

static int query_int(sqlite3 *sq, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(sq, sql, -1, &st, NULL);

    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : rc;
}

/* The file must carry mcsim's application id and a schema version this
 * mcsim reads. Returns 0, an SQLite code to retry on (the file could not
 * be opened as it is), or -1 with the error in err. */
static int check_header(sqlite3 *sq, const char *path, char *err, size_t err_len)
{
    int64_t app = 0, version = 0;
    int rc = query_int(sq, "PRAGMA application_id", &app);

    if (rc == 0)
        rc = query_int(sq, "PRAGMA user_version", &version);
    if ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY)
        return rc;
    if (rc == SQLITE_NOTADB)
        return read_fail(err, err_len, "mcsim: %s: not an mcsim database (not an SQLite file)",
                         path);
    if (rc != 0)
        return read_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(sq));
    if (app != DB_APPLICATION_ID || version < 1)
        return read_fail(err, err_len, "mcsim: %s: not an mcsim database", path);
    if (version > DB_SCHEMA_VERSION)
        return read_fail(err, err_len,
                         "mcsim: %s: written by a newer mcsim (schema version %lld; this mcsim "
                         "reads up to %d)",
                         path, (long long)version, DB_SCHEMA_VERSION);
    return 0;
}

/* "file:PATH?immutable=1" with the URI's reserved characters of PATH
 * escaped; NULL when out of memory. */
static char *immutable_uri(const char *path)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(path);
    char *uri = malloc(3 * n + sizeof "file:?immutable=1");
    char *p = uri;

    if (!uri)
        return NULL;
    p += sprintf(p, "file:");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if (*c == '%' || *c == '?' || *c == '#' || *c < 0x20 || *c >= 0x7f) {
            *p++ = '%';
            *p++ = hex[*c >> 4];
            *p++ = hex[*c & 15];
        } else {
            *p++ = (char)*c;
        }
    }
    strcpy(p, "?immutable=1");
    return uri;
}

static int open_as(const char *name, int flags, sqlite3 **sq)
{
    int rc;

    db_sqlite_config();
    rc = sqlite3_open_v2(name, sq, flags | SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);

    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(*sq, 5000); /* a recorder may be appending to the file */
    return rc;
}

int db_open_read(const char *path, sqlite3 **out, char *err, size_t err_len)
{
    FILE *probe = fopen(path, "rb");
    sqlite3 *sq = NULL;
    int rc;

    *out = NULL;
    if (!probe)
        return read_fail(err, err_len, "mcsim: %s: %s", path, strerror(errno));
    fclose(probe);
    if (open_as(path, 0, &sq) != SQLITE_OK) {
        read_fail(err, err_len, "mcsim: %s: %s", path, sq ? sqlite3_errmsg(sq) : "out of memory");
        sqlite3_close(sq);
        return -1;
    }
    rc = check_header(sq, path, err, err_len);
    if (rc > 0) {
        /* a WAL file whose -shm cannot be made here: read it as it is */
        char *uri = immutable_uri(path);

        sqlite3_close(sq);
        sq = NULL;
        if (!uri || open_as(uri, SQLITE_OPEN_URI, &sq) != SQLITE_OK)
            rc = read_fail(err, err_len, "mcsim: %s: %s", path,
                           sq ? sqlite3_errmsg(sq) : "out of memory");
        else
            rc = check_header(sq, path, err, err_len);
        free(uri);
        if (rc > 0)
            rc = read_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(sq));
    }
    if (rc == 0 && db_read_views(sq) != 0)
        rc = read_fail(err, err_len, "mcsim: %s: %s", path, sqlite3_errmsg(sq));
    if (rc != 0) {
        sqlite3_close(sq);
        return -1;
    }
    *out = sq;
    return 0;
}
