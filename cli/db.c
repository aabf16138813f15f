/*
 * The SQLite recorder: the schema, and opening a file as an mcsim
 * database. The trace sink that writes runs is in db_sink.c.
 */
#include "db_int.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schema version 1: the schema of DESIGN.md, plus runs.trace,
 * threads.sporadic and expectations.applicable. Indexes serve the window
 * queries of checks and charts: a thread's slices in a time range, a
 * context's slices in order. An index costs more to keep than its
 * table's row (a search from the root at every insert: a run's entries
 * spread over the threads' ranges of the index; only an index whose new
 * entries sort last is appended to), so an index exists only for queries
 * of cli/ that need it, narrowed to the rows they read. Files written
 * before an index was dropped or narrowed keep the old one; the queries
 * work with either. */
static const char db_schema_sql[] =
    "CREATE TABLE runs ("
    " run_id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, path TEXT, sha256 TEXT,"
    " seed INTEGER NOT NULL, duration INTEGER NOT NULL, cpu_hz INTEGER NOT NULL,"
    " timer_hz INTEGER NOT NULL,"
    " scheduler TEXT NOT NULL CHECK (scheduler = 'mcs' OR scheduler = 'classic'),"
    " hal TEXT NOT NULL, version TEXT NOT NULL, created_at TEXT NOT NULL,"
    " finished INTEGER NOT NULL DEFAULT 0 CHECK (finished = 0 OR finished = 1),"
    " trace TEXT CHECK (trace = 'sched' OR trace = 'full'));"
    "CREATE TABLE threads ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"
    " name TEXT NOT NULL, priority INTEGER NOT NULL, criticality TEXT,"
    " criticality_rank INTEGER, budget INTEGER, period INTEGER, deadline INTEGER,"
    " passive INTEGER NOT NULL CHECK (passive = 0 OR passive = 1),"
    " sporadic INTEGER NOT NULL DEFAULT 0 CHECK (sporadic = 0 OR sporadic = 1),"
    " PRIMARY KEY (run_id, thread_id));"
    "CREATE TABLE slices ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"
    " sc_thread_id INTEGER, sc_notification TEXT,"
    " start_time INTEGER NOT NULL, end_time INTEGER NOT NULL);"
    "CREATE INDEX slices_by_thread ON slices (run_id, thread_id, start_time);"
    "CREATE INDEX slices_by_context ON slices (run_id, sc_thread_id, start_time)"
    " WHERE " DB_SLICES_DONATED ";"
    "CREATE TABLE jobs ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"
    " job INTEGER NOT NULL, release_time INTEGER NOT NULL, start_time INTEGER,"
    " finish_time INTEGER, deadline_time INTEGER, response INTEGER,"
    " missed INTEGER NOT NULL CHECK (missed = 0 OR missed = 1),"
    " PRIMARY KEY (run_id, thread_id, job));"
    "CREATE INDEX jobs_by_release ON jobs (run_id, release_time);"
    /* CHECKs are written as OR-ed equalities, not IN lists: SQLite
     * evaluates a constant IN list by building a temporary index at every
     * insert, a third of the cost of recording a row. */
    "CREATE TABLE budget_events ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"
    " sc_thread_id INTEGER, time INTEGER NOT NULL,"
    " kind TEXT NOT NULL CHECK (kind = 'exhausted' OR kind = 'throttle' OR"
    " kind = 'replenish' OR kind = 'timeout_fault' OR kind = 'emergency'),"
    " amount INTEGER NOT NULL);"
    "CREATE INDEX budget_events_by_thread ON budget_events (run_id, thread_id, time);"
    "CREATE INDEX budget_events_by_context ON budget_events (run_id, sc_thread_id, kind, time);"
    "CREATE TABLE irqs ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), device TEXT NOT NULL,"
    " line INTEGER NOT NULL, arrival INTEGER NOT NULL, delivered INTEGER,"
    " lost INTEGER NOT NULL CHECK (lost = 0 OR lost = 1));"
    "CREATE INDEX irqs_by_device ON irqs (run_id, device, arrival);"
    "CREATE TABLE events ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), seq INTEGER NOT NULL,"
    " time INTEGER NOT NULL, kind TEXT NOT NULL, thread_id INTEGER,"
    " object INTEGER, arg INTEGER);"
    /* Only the kinds queried by name (expectations, the Chrome export)
     * are indexed: a --trace full run writes twenty times as many events
     * of other kinds, and an index entry costs more than the row. The
     * run's entries arrive in seq order, so they are appended. */
    "CREATE INDEX events_by_kind ON events (run_id, kind, seq, thread_id)"
    " WHERE " DB_EVENTS_INDEXED_KINDS ";"
    "CREATE TABLE expectations ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), idx INTEGER NOT NULL,"
    " text TEXT NOT NULL, passed INTEGER NOT NULL CHECK (passed = 0 OR passed = 1),"
    " detail TEXT, applicable INTEGER NOT NULL DEFAULT 1 CHECK (applicable = 0 OR applicable = 1),"
    " PRIMARY KEY (run_id, idx));"
    "CREATE TABLE final_refills ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"
    " idx INTEGER NOT NULL, time INTEGER NOT NULL, amount INTEGER NOT NULL,"
    " PRIMARY KEY (run_id, thread_id, idx));";

/*
 * Schema version 2, applied to a new file after version 1 and to a
 * version-1 file when it is opened (so older files gain the columns and
 * tables; their runs have NULLs there):
 * - irqs.handler, irqs.handler_start: the thread a delivery woke and when
 *   it first ran (interrupt latency = handler_start - arrival);
 * - kernel_stats: the kernel entries made from each thread, by kind;
 * - scenario_files: the text of every scenario run, by its sha256, so
 *   that `mcsim check` needs nothing but the database;
 * - the stats and run_stats views, per run and thread and per run.
 * A job counts as missed in the views as in expectations (expect_int.h).
 * A context's CPU time (stats.charged) is read in two halves, as
 * DB_SLICES_PAID_BY explains.
 */
static const char db_schema_v2_sql[] =
    "ALTER TABLE irqs ADD COLUMN handler INTEGER;"
    "ALTER TABLE irqs ADD COLUMN handler_start INTEGER;"
    /* The stats view looks interrupts up by handler; a third of them woke
     * none. */
    "CREATE INDEX irqs_by_handler ON irqs (run_id, handler) WHERE handler IS NOT NULL;"
    "CREATE TABLE kernel_stats ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"
    " kind TEXT NOT NULL CHECK (kind = 'syscall' OR kind = 'irq' OR kind = 'timer' OR kind = 'exit'),"
    " entries INTEGER NOT NULL, cycles INTEGER NOT NULL, decisions INTEGER NOT NULL,"
    " decision_cycles INTEGER NOT NULL, sched_cycles INTEGER NOT NULL,"
    " timer_programs INTEGER NOT NULL, timer_cycles INTEGER NOT NULL);"
    "CREATE TABLE scenario_files (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL);"
    "CREATE VIEW stats AS SELECT t.run_id, t.thread_id, t.name, t.criticality,"
    " (SELECT count(*) FROM jobs j WHERE j.run_id = t.run_id AND j.thread_id = t.thread_id)"
    "  AS jobs,"
    " (SELECT coalesce(sum(j.missed = 1 OR j.finish_time > j.deadline_time"
    "   OR (j.finish_time IS NULL AND j.deadline_time < r.duration)), 0) FROM jobs j"
    "  WHERE j.run_id = t.run_id AND j.thread_id = t.thread_id) AS misses,"
    " (SELECT max(j.response) FROM jobs j WHERE j.run_id = t.run_id"
    "  AND j.thread_id = t.thread_id) AS worst_response,"
    " (SELECT avg(j.response) FROM jobs j WHERE j.run_id = t.run_id"
    "  AND j.thread_id = t.thread_id) AS avg_response,"
    " (SELECT coalesce(sum(s.end_time - s.start_time), 0) FROM slices s"
    "  WHERE s.run_id = t.run_id AND s.thread_id = t.thread_id) AS cpu,"
    " (SELECT coalesce(sum(s.end_time - s.start_time), 0) FROM slices s"
    "  WHERE s.run_id = t.run_id AND s.thread_id = t.thread_id"
    "  AND s.sc_thread_id = t.thread_id)"
    " + (SELECT coalesce(sum(end_time - start_time), 0) FROM slices"
    "  WHERE run_id = t.run_id AND sc_thread_id = t.thread_id"
    "  AND " DB_SLICES_DONATED ") AS charged,"
    " (SELECT coalesce(sum(coalesce((SELECT min(p.time) FROM budget_events p"
    "   WHERE p.run_id = b.run_id AND p.kind = 'replenish' AND p.time >= b.time"
    "   AND (p.sc_thread_id = b.sc_thread_id OR (b.sc_thread_id IS NULL"
    "   AND p.sc_thread_id IS NULL AND p.thread_id = b.thread_id))), r.duration) - b.time), 0)"
    "  FROM budget_events b WHERE b.run_id = t.run_id AND b.thread_id = t.thread_id"
    "  AND b.kind = 'throttle') AS throttled,"
    " (SELECT count(*) FROM budget_events b WHERE b.run_id = t.run_id"
    "  AND b.thread_id = t.thread_id AND b.kind = 'timeout_fault') AS timeout_faults,"
    " (SELECT count(*) FROM irqs i WHERE i.run_id = t.run_id AND i.handler = t.thread_id"
    "  AND i.handler_start IS NOT NULL) AS irqs_handled,"
    " (SELECT max(i.handler_start - i.arrival) FROM irqs i WHERE i.run_id = t.run_id"
    "  AND i.handler = t.thread_id) AS worst_irq_latency,"
    " (SELECT avg(i.handler_start - i.arrival) FROM irqs i WHERE i.run_id = t.run_id"
    "  AND i.handler = t.thread_id) AS avg_irq_latency,"
    " (SELECT coalesce(sum(k.entries), 0) FROM kernel_stats k WHERE k.run_id = t.run_id"
    "  AND k.thread_id = t.thread_id) AS kernel_entries,"
    " (SELECT coalesce(sum(k.cycles), 0) FROM kernel_stats k WHERE k.run_id = t.run_id"
    "  AND k.thread_id = t.thread_id) AS kernel_cycles"
    " FROM threads t JOIN runs r ON r.run_id = t.run_id;"
    "CREATE VIEW run_stats AS SELECT r.run_id, r.scenario, r.scheduler,"
    " (SELECT count(*) FROM jobs j WHERE j.run_id = r.run_id) AS jobs,"
    " (SELECT coalesce(sum(j.missed = 1 OR j.finish_time > j.deadline_time"
    "   OR (j.finish_time IS NULL AND j.deadline_time < r.duration)), 0) FROM jobs j"
    "  WHERE j.run_id = r.run_id) AS misses,"
    " (SELECT count(*) FROM irqs i WHERE i.run_id = r.run_id AND i.handler_start IS NOT NULL)"
    "  AS irqs_handled,"
    " (SELECT max(i.handler_start - i.arrival) FROM irqs i WHERE i.run_id = r.run_id)"
    "  AS worst_irq_latency,"
    " (SELECT avg(i.handler_start - i.arrival) FROM irqs i WHERE i.run_id = r.run_id)"
    "  AS avg_irq_latency,"
    " (SELECT sum(k.entries) FROM kernel_stats k WHERE k.run_id = r.run_id) AS kernel_entries,"
    " (SELECT sum(k.cycles) FROM kernel_stats k WHERE k.run_id = r.run_id) AS kernel_cycles,"
    " (SELECT sum(k.decisions) FROM kernel_stats k WHERE k.run_id = r.run_id) AS decisions,"
    " (SELECT 1.0 * sum(k.decision_cycles) / nullif(sum(k.decisions), 0) FROM kernel_stats k"
    "  WHERE k.run_id = r.run_id) AS cycles_per_decision,"
    " (SELECT sum(k.decisions) FROM kernel_stats k WHERE k.run_id = r.run_id"
    "  AND k.kind = 'syscall') AS syscall_decisions,"
    " (SELECT 1.0 * sum(k.decision_cycles) / nullif(sum(k.decisions), 0) FROM kernel_stats k"
    "  WHERE k.run_id = r.run_id AND k.kind = 'syscall') AS syscall_cycles_per_decision,"
    " (SELECT sum(k.timer_programs) FROM kernel_stats k WHERE k.run_id = r.run_id)"
    "  AS timer_programs"
    " FROM runs r;";

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

/* BEGIN IMMEDIATE takes the write lock before looking again, so that of
 * two mcsim processes creating the same new file one creates the schema
 * and the other finds it. The page size takes effect only in a file that
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
    if (db_header_empty(&h) &&
        (db_exec(db, db_schema_sql) != 0 || db_exec(db, db_schema_v2_sql) != 0 ||
         db_exec(db, pragmas) != 0))
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

/* A version-1 file gains version 2's columns, tables and views; as in
 * db_create_schema, the write lock is taken before looking again. */
static int db_upgrade_schema(struct db *db)
{
    struct db_header h = {0};
    char pragma[64];

    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", DB_SCHEMA_VERSION);
    if (db_exec(db, "BEGIN IMMEDIATE") != 0)
        return -1;
    if (db_read_header(db, &h) != 0)
        return db_fail(db);
    if (h.app_id == DB_APPLICATION_ID && h.version == 1 &&
        (db_exec(db, db_schema_v2_sql) != 0 || db_exec(db, pragma) != 0))
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

static char *db_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);

    if (p)
        memcpy(p, s, n);
    return p;
}

/* Recording speed. A write-ahead log with synchronous=NORMAL syncs at
 * checkpoints rather than at every batch commit; a crash may lose the last
 * batches but never corrupts the file, and a run is marked finished only
 * in its last transaction, so a lost tail leaves it unfinished, never
 * half-finished. (A larger page cache was tried: it buys little and makes
 * memory grow with the run up to its size.) */
static int db_tune(struct db *db)
{
    return db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
}

int db_open(const char *path, struct db **out, char *errmsg, size_t errmsg_size)
{
    struct db *db = calloc(1, sizeof *db);

    *out = NULL;
    if (!db || !(db->path = db_strdup(path))) {
        snprintf(errmsg, errmsg_size, "mcsim: %s: out of memory", path);
        free(db);
        return -1;
    }
    db->run_id = -1;
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
    snprintf(errmsg, errmsg_size, "%s", db->errmsg);
    db_close(db);
    return -1;
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
