/*
 * The SQLite recorder: the schema, and opening a file as an mcsim
 * database. The trace sink that writes runs is in db_sink.c.
 */
#include "db_int.h"

#include "util/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void db_error(struct db *db, const char *fmt, ...)
{
    int n = snprintf(db->errmsg, sizeof db->errmsg, "mcsim: %s: ", db->path);
    va_list ap;

    if (n < 0 || (size_t)n >= sizeof db->errmsg)
        return;
    va_start(ap, fmt);
    vsnprintf(db->errmsg + n, sizeof db->errmsg - (size_t)n, fmt, ap);
    va_end(ap);
}

void db_sqlite_error(struct db *db)
{
    db->code = sqlite3_extended_errcode(db->sq);
    db_error(db, "%s", sqlite3_errmsg(db->sq));
}

int db_fail(struct db *db)
{
    db->failed = true;
    db_rows_discard(db);
    if (!sqlite3_get_autocommit(db->sq))
        sqlite3_exec(db->sq, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int db_exec(struct db *db, const char *sql)
{
    if (sqlite3_exec(db->sq, sql, NULL, NULL, NULL) != SQLITE_OK) {
        db_sqlite_error(db);
        return -1;
    }
    return 0;
}

static int db_query_int(struct db *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db->sq, sql, -1, &st, NULL);

    *out = 0;
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            *out = sqlite3_column_int64(st, 0);
    }
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_NOTADB)
            db_error(db, "not an mcsim database (not an SQLite file)");
        else
            db_sqlite_error(db);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* What identifies the file: an empty database has no objects and no
 * application id. */
struct db_header {
    int64_t app_id, version, objects;
};

static int db_read_header(struct db *db, struct db_header *h)
{
    if (db_query_int(db, "PRAGMA application_id", &h->app_id) != 0 ||
        db_query_int(db, "PRAGMA user_version", &h->version) != 0 ||
        db_query_int(db, "SELECT count(*) FROM sqlite_master", &h->objects) != 0)
        return -1;
    return 0;
}

static bool db_header_empty(const struct db_header *h)
{
    return h->app_id == 0 && h->objects == 0;
}

/* A new file gets the latest schema in one go (db_schema_new_sql, then
 * the stats views). BEGIN IMMEDIATE takes the write lock before looking
 * again, so that of two mcsim processes creating the same new file one
 * creates the schema and the other finds it. The page size takes effect only in a file that
 * has no page yet, so it is set outside the transaction, which would
 * create one: pages of 16 KiB rather than 4 make a recorded run write
 * and read back a quarter as many pages through the log (a quarter of
 * the system calls; 0-20% of the benchmark's time, most often about 10%),
 * for about 6 MB more peak memory, flat in the run's length. */
static int db_create_schema(struct db *db)
{
    struct db_header h = {0};
    char pragmas[128];

    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             DB_APPLICATION_ID, DB_SCHEMA_VERSION);
    if (db_exec(db, "PRAGMA page_size = 16384") != 0 || db_exec(db, "BEGIN IMMEDIATE") != 0)
        return -1;
    if (db_read_header(db, &h) != 0)
        return db_fail(db);
    if (db_header_empty(&h) && (db_exec(db, db_schema_new_sql) != 0 ||
                                db_exec(db, db_schema_stats_sql) != 0 || db_exec(db, pragmas) != 0))
        return db_fail(db);
    if (db_exec(db, "COMMIT") != 0)
        return db_fail(db);
    return 0;
}

static int db_check_header(struct db *db, const struct db_header *h)
{
    if (h->app_id != DB_APPLICATION_ID) {
        db_error(db, "not an mcsim database (it holds another program's tables;"
                     " give another file with -o)");
        return -1;
    }
    if (h->version > DB_SCHEMA_VERSION) {
        db_error(db, "written by a newer mcsim (schema version %lld; this mcsim reads up to %d)",
                 (long long)h->version, DB_SCHEMA_VERSION);
        return -1;
    }
    if (h->version < 1) {
        db_error(db, "not an mcsim database (no schema version)");
        return -1;
    }
    return 0;
}

/* An older file gains the later versions' columns, tables and views (and
 * version 3's blocks of the runs it holds, made once every table exists); as in db_create_schema, the
 * write lock is taken before looking again. */
static int db_upgrade_schema(struct db *db)
{
    struct db_header h = {0};
    char pragma[64];

    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", DB_SCHEMA_VERSION);
    if (db_exec(db, "BEGIN IMMEDIATE") != 0)
        return -1;
    if (db_read_header(db, &h) != 0)
        return db_fail(db);
    if (h.app_id == DB_APPLICATION_ID && h.version >= 1 && h.version < DB_SCHEMA_VERSION &&
        ((h.version < 2 && db_exec(db, db_schema_v2_sql) != 0) ||
         (h.version < 3 && db_exec(db, db_schema_v3_sql) != 0) ||
         (h.version < 4 && db_exec(db, db_schema_v4_sql) != 0) ||
         db_exec(db, db_schema_v5_sql) != 0 ||
         (h.version < 3 && db_exec(db, db_blocks_of_rows_sql) != 0) ||
         db_exec(db, db_schema_stats_sql) != 0 ||
         db_exec(db, pragma) != 0))
        return db_fail(db);
    if (db_exec(db, "COMMIT") != 0)
        return db_fail(db);
    return 0;
}

static int db_ensure_schema(struct db *db)
{
    struct db_header h = {0};

    if (db_read_header(db, &h) != 0)
        return -1;
    if (db_header_empty(&h)) {
        if (db_create_schema(db) != 0 || db_read_header(db, &h) != 0)
            return -1;
    }
    if (db_check_header(db, &h) != 0)
        return -1;
    if (h.version < DB_SCHEMA_VERSION &&
        (db_upgrade_schema(db) != 0 || db_read_header(db, &h) != 0))
        return -1;
    return 0;
}


/* Recording speed. A write-ahead log with synchronous=NORMAL syncs at
 * checkpoints rather than at every batch commit; a crash may lose the last
 * batches but never corrupts the file, and a run is marked finished only
 * in its last transaction, so a lost tail leaves it unfinished, never
 * half-finished. (A larger page cache was tried: it buys little and makes
 * memory grow with the run up to its size.) The schema's CHECK constraints
 * are not evaluated for mcsim's own rows (ignore_check_constraints, for
 * this connection only): every value it writes is one of the checked ones
 * by construction (a kind from its tables of names, a flag 0 or 1), and
 * the checks cost 5 M instructions a recorded run of bench/rm10.yaml. */
static int db_tune(struct db *db)
{
    return db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                       " PRAGMA ignore_check_constraints = ON;");
}

static const char *advice_of(int code)
{
    switch (code & 0xff) {
    case SQLITE_FULL:
        return "the disk is full: free space on it, or record to a file on another disk "
               "with -o";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "another process kept the file locked for more than 5 s: let it finish (another "
               "mcsim recording to it, an sqlite3 session with a transaction open) or record to "
               "another file with -o";
    case SQLITE_IOERR:
        return "the disk failed to read or write it: check the disk, or record to a file on "
               "another disk with -o";
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return "the file or its folder cannot be written: check their permissions, or record "
               "to another file with -o";
    default:
        return NULL;
    }
}

const char *db_environment_advice(sqlite3 *sq)
{
    return sq ? advice_of(sqlite3_extended_errcode(sq)) : NULL;
}

const char *db_failure_advice(const struct db *db)
{
    return advice_of(db->code);
}

/* mcsim uses SQLite from one thread (its parallel sweeps are processes):
 * without the library's mutexes and its memory statistics (which take a
 * mutex at every allocation) SQLite's calls cost fewer instructions
 * (bench/rm10.yaml's recorded run: 11 M of 493 M). Only possible before
 * SQLite initializes, so done before the first open (db_open,
 * db_open_read); if something initialized it earlier, the defaults stay
 * (SQLITE_MISUSE, ignored): slower, not different. */
void db_sqlite_config(void)
{
    static bool done;

    if (done)
        return;
    done = true;
    sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int db_open(const char *path, struct db **out, char *errmsg, size_t errmsg_size)
{
    const char *advice;
    int rc;
    struct db *db = calloc(1, sizeof *db);

    *out = NULL;
    if (!db || !(db->path = diag_strdup(path))) {
        snprintf(errmsg, errmsg_size, "mcsim: %s: out of memory", path);
        free(db);
        return -1;
    }
    db->run_id = -1;
    db_sqlite_config();
    /* NOMUTEX: a handle is used by one thread at a time, so SQLite need
     * not lock the connection at every call (a few percent of recording,
     * where every row is several calls). */
    if (sqlite3_open_v2(path, &db->sq,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        db_sqlite_error(db);
    } else {
        /* Another mcsim may be appending to the same file. */
        sqlite3_busy_timeout(db->sq, 5000);
        if (db_ensure_schema(db) == 0 && db_tune(db) == 0) {
            *out = db;
            return 0;
        }
    }
    advice = db_failure_advice(db);
    rc = advice ? DB_ENVIRONMENT : -1;
    snprintf(errmsg, errmsg_size, "%s%s%s", db->errmsg, advice ? ": " : "", advice ? advice : "");
    db_close(db);
    return rc;
}

/* The write-ahead log into the file and back to a rollback journal, as
 * db_close does, but reported (db.h). */
int db_unlog(struct db *db)
{
    sqlite3 *sq = db_sqlite(db); /* the rows still queued go in first */
    int rc;

    if (db->failed)
        return advice_of(db->code) ? DB_ENVIRONMENT : -1;
    sqlite3_busy_timeout(sq, 0);
    rc = sqlite3_exec(sq, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
    sqlite3_busy_timeout(sq, 5000);
    if (rc == SQLITE_OK || (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return 0; /* converted, or another connection converts it when it closes */
    db_sqlite_error(db);
    return advice_of(db->code) ? DB_ENVIRONMENT : -1;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(db->st[i]);
    db_rows_release(db);
    if (db->sq && !sqlite3_get_autocommit(db->sq))
        sqlite3_exec(db->sq, "ROLLBACK", NULL, NULL, NULL);
    /* Back to a rollback journal, which readers need no write access for;
     * another mcsim still appending keeps the log (busy: not waited for)
     * and converts it when it closes. */
    if (db->sq) {
        sqlite3_busy_timeout(db->sq, 0);
        sqlite3_exec(db->sq, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
    }
    sqlite3_close(db->sq);
    free(db->path);
    free(db);
}

const char *db_errmsg(const struct db *db)
{
    return db->errmsg;
}

/* The queued trace rows go in first, so that the connection sees every
 * row written; a failure fails the run, as it would at its next row. */
sqlite3 *db_sqlite(struct db *db)
{
    if (db->s && !db->failed && db_rows_flush(db) != 0)
        db_fail(db);
    return db->sq;
}

int64_t db_run_id(const struct db *db)
{
    return db->run_id;
}
