/*
 * The schema of an mcsim database, by version (db.c applies the missing
 * ones to an older file when it is opened; version 5 is db_schema_v5.c,
 * and the stats views, db_schema_stats_sql, come after the last). A new
 * file gets db_schema_new_sql (db_schema_v5.c), the objects the versions
 * leave, made in one go from the same SQL (db_schema_sql.h).
 */
#include "db_int.h"
#include "db_schema_sql.h"

/* Schema version 1: the schema of DESIGN.md, plus runs.trace,
 * threads.sporadic and expectations.applicable. The trace tables (slices,
 * jobs, budget_events, irqs, events) have no index: their rows are found
 * through trace_blocks (version 3). Files written by earlier versions keep
 * the indexes they were created with (per thread, context, device and
 * kind; a primary key on jobs); they cost a run appended to such a file
 * its recording speed, not its results. */
const char db_schema_v1_sql[] =
    DB_SQL_RUNS
    DB_SQL_THREADS
    "CREATE TABLE slices ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"
    " sc_thread_id INTEGER, sc_notification TEXT,"
    " start_time INTEGER NOT NULL, end_time INTEGER NOT NULL);"
    "CREATE TABLE jobs ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"
    " job INTEGER NOT NULL, release_time INTEGER NOT NULL, start_time INTEGER,"
    " finish_time INTEGER, deadline_time INTEGER, response INTEGER,"
    " missed INTEGER NOT NULL CHECK (missed = 0 OR missed = 1));"
    DB_SQL_BUDGET_EVENTS_V1_COLS ");"
    "CREATE TABLE irqs ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), device TEXT NOT NULL,"
    " line INTEGER NOT NULL, arrival INTEGER NOT NULL, delivered INTEGER,"
    " lost INTEGER NOT NULL CHECK (lost = 0 OR lost = 1));"
    DB_SQL_EVENTS_V1_COLS ");"
    DB_SQL_EXPECTATIONS
    DB_SQL_FINAL_REFILLS;

/*
 * Schema version 2, applied to a new file after version 1 and to a
 * version-1 file when it is opened (so older files gain the columns and
 * tables; their runs have NULLs there):
 * - irqs.handler, irqs.handler_start: the thread a delivery woke and when
 *   it first ran (interrupt latency = handler_start - arrival);
 * - kernel_stats: the kernel entries made from each thread, by kind;
 * - scenario_files: the text of every scenario run, by its sha256, so
 *   that `mcsim check` needs nothing but the database;
 * (Version 2 also made the stats and run_stats views, which version 4
 * makes again over the run_* views, and an index of irqs by handler.)
 */
const char db_schema_v2_sql[] =
    "ALTER TABLE irqs ADD COLUMN handler INTEGER;"
    "ALTER TABLE irqs ADD COLUMN handler_start INTEGER;"
    DB_SQL_KERNEL_STATS
    DB_SQL_SCENARIO_FILES;

/* run_stats' columns after jobs and misses (versions 3 and 4). */
#define RUN_STATS_REST                                                                             \
    " (SELECT count(*) FROM run_irqs i WHERE i.run_id = r.run_id AND i.handler_start IS NOT NULL)" \
    "  AS irqs_handled,"                                                                           \
    " (SELECT max(i.handler_start - i.arrival) FROM run_irqs i WHERE i.run_id = r.run_id)"         \
    "  AS worst_irq_latency,"                                                                      \
    " (SELECT avg(i.handler_start - i.arrival) FROM run_irqs i WHERE i.run_id = r.run_id)"         \
    "  AS avg_irq_latency,"                                                                        \
    " (SELECT sum(k.entries) FROM kernel_stats k WHERE k.run_id = r.run_id) AS kernel_entries,"    \
    " (SELECT sum(k.cycles) FROM kernel_stats k WHERE k.run_id = r.run_id) AS kernel_cycles,"      \
    " (SELECT sum(k.decisions) FROM kernel_stats k WHERE k.run_id = r.run_id) AS decisions,"       \
    " (SELECT 1.0 * sum(k.decision_cycles) / nullif(sum(k.decisions), 0) FROM kernel_stats k"      \
    "  WHERE k.run_id = r.run_id) AS cycles_per_decision,"                                         \
    " (SELECT sum(k.decisions) FROM kernel_stats k WHERE k.run_id = r.run_id"                      \
    "  AND k.kind = 'syscall') AS syscall_decisions,"                                              \
    " (SELECT 1.0 * sum(k.decision_cycles) / nullif(sum(k.decisions), 0) FROM kernel_stats k"      \
    "  WHERE k.run_id = r.run_id AND k.kind = 'syscall') AS syscall_cycles_per_decision,"          \
    " (SELECT sum(k.timer_programs) FROM kernel_stats k WHERE k.run_id = r.run_id)"                \
    "  AS timer_programs"                                                                          \
    " FROM runs r;"

/*
 * Schema version 3: the trace tables' rows are written in blocks
 * (db_rows.c), and trace_blocks says where each block is: its run, table,
 * key (thread_id: who ran, whose job, whose event, an interrupt's handler,
 * the thread a budget event on a notification's context happened to;
 * sc_thread_id: the context of a slice or a budget event; device: an
 * interrupt's; kind: a budget event's or an event's),
 * its rowids first_row..last_row, and the times its rows span (slices:
 * start to end; jobs: release; the others: time or arrival), at most
 * DB_BLOCK_ROWS rows. Applied to an older file, it describes the runs
 * already there with one block per run and key, spanning the key's first
 * to last rowid; other rows in that span are told apart by the views'
 * conditions, so old runs read right, only less quickly
 * (db_blocks_of_rows_sql).
 *
 * The run_* views are the trace tables read through their blocks: the
 * same columns, and block_start, block_end (the block's times, for a
 * window query to skip blocks: `block_end >= FROM AND block_start < TO`)
 * and row (the rowid: the order the sink wrote a block's rows in). A
 * query by run and thread (or context, or device) reads only that key's
 * blocks; the same query of the table scans the table.
 *
 * Version 3 also made the stats and run_stats views again over the run_*
 * views, and run_slices, run_jobs and run_irqs. Versions 4 and 5 are
 * applied with version 3 to every older file when it is upgraded (and a
 * new file gets what they leave), and version 5 makes those three views
 * again over its own
 * tables, and the stats views after them (db_schema_stats_sql), so version
 * 3 makes none of them any more (their parsing and dropping cost a new
 * file instructions for nothing); a file written as version 3 keeps its own.
 * A throttle lasts until the context's next replenish: a context's budget
 * events of one kind form one key, whose rows arrive in time order, so
 * its blocks follow each other in time and the next replenish at or after
 * a time is in the first replenish block that ends there or later
 * (DB_THREAD_THROTTLED).
 */
const char db_schema_v3_sql[] =
    "ALTER TABLE slices ADD COLUMN seq INTEGER;"
    "ALTER TABLE jobs ADD COLUMN seq INTEGER;"
    "ALTER TABLE budget_events ADD COLUMN seq INTEGER;"
    "ALTER TABLE irqs ADD COLUMN seq INTEGER;"
    "CREATE TABLE trace_blocks ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id),"
    " tbl TEXT NOT NULL CHECK (tbl = 'slices' OR tbl = 'jobs' OR tbl = 'budget_events' OR"
    " tbl = 'irqs' OR tbl = 'events'),"
    " thread_id INTEGER, sc_thread_id INTEGER, device TEXT, kind TEXT,"
    " first_row INTEGER NOT NULL, last_row INTEGER NOT NULL,"
    " min_time INTEGER, max_time INTEGER);"
    DB_SQL_TRACE_BLOCKS_INDEXES
    DB_SQL_RUN_BUDGET_EVENTS
    "CREATE VIEW run_events AS SELECT b.run_id AS run_id, e.seq AS seq, e.time AS time,"
    " b.kind AS kind, b.thread_id AS thread_id, e.object AS object, e.arg AS arg,"
    " b.min_time AS block_start, b.max_time AS block_end, e.rowid AS row"
    " FROM trace_blocks b JOIN events e ON e.rowid BETWEEN b.first_row AND b.last_row"
    " WHERE b.tbl = 'events' AND e.run_id = b.run_id AND e.thread_id IS b.thread_id"
    " AND e.kind = b.kind;"
    "";

/* Nanoseconds of cycles `c` at the run's `hz` (SQL expressions): an
 * integer when exact, else the exact decimal cut after 12 digits, as text
 * (as dec_ratio: no float noise). Overflow-free for c < 2^63 and hz below
 * 9.2 GHz. */
#define DB_NS_REM(c, hz) "((" c ") % (" hz ") * 1000000000 % (" hz "))"
#define DB_NS(c, hz)                                                                               \
    "(CASE WHEN (" c ") IS NULL THEN NULL WHEN " DB_NS_REM(                                        \
        c, hz) " = 0 THEN"                                                                         \
               " (" c ") / (" hz ") * 1000000000 + (" c ") % (" hz ") * 1000000000 / (" hz         \
               ") ELSE"                                                                            \
               " printf('%d.', (" c ") / (" hz ") * 1000000000 + (" c ") % (" hz                   \
               ") * 1000000000 / (" hz "))"                                                        \
               " || rtrim(printf('%06d%06d', " DB_NS_REM(                                          \
                   c, hz) " * 1000000 / (" hz "),"                                                 \
                          " " DB_NS_REM(c, hz) " * 1000000 % (" hz ") * 1000000 / (" hz            \
                                               ")), '0') END)"

/* The stats view's figures of thread t of run r, in cycles. */
#define ST_FAILED                                                                                  \
    "(SELECT coalesce(sum(" DB_JOB_FAILED_IN(                                                      \
        "r.duration") "), 0) FROM run_jobs j"                                                      \
                      "  WHERE j.run_id = t.run_id AND j.thread_id = t.thread_id)"
#define ST_LOST DB_LOST_RELEASES_IN("t.run_id", "t.thread_id")
#define ST_ABORTED                                                                                 \
    "(SELECT coalesce(sum(" DB_JOB_ABORTED_SQL "), 0) FROM run_jobs j"                             \
    "  WHERE j.run_id = t.run_id AND j.thread_id = t.thread_id)"
#define ST_WORST                                                                                   \
    "(SELECT max(j.response) FROM run_jobs j WHERE j.run_id = t.run_id"                            \
    "  AND j.thread_id = t.thread_id)"
#define ST_MEAN                                                                                    \
    "(SELECT CAST(round(avg(j.response)) AS INTEGER) FROM run_jobs j WHERE j.run_id = t.run_id"    \
    "  AND j.thread_id = t.thread_id)"
#define ST_CPU                                                                                     \
    "(SELECT coalesce(sum(s.end_time - s.start_time), 0) FROM run_slices s"                        \
    "  WHERE s.run_id = t.run_id AND s.thread_id = t.thread_id)"
#define ST_CHARGED                                                                                 \
    "((SELECT coalesce(sum(s.end_time - s.start_time), 0) FROM run_slices s"                       \
    "  WHERE s.run_id = t.run_id AND s.thread_id = t.thread_id"                                    \
    "  AND s.sc_thread_id = t.thread_id)"                                                          \
    " + (SELECT coalesce(sum(end_time - start_time), 0) FROM run_slices"                           \
    "  WHERE run_id = t.run_id AND sc_thread_id = t.thread_id"                                     \
    "  AND " DB_SLICES_DONATED "))"
#define ST_THROTTLED DB_THREAD_THROTTLED
#define ST_IRQ_WORST                                                                               \
    "(SELECT max(i.handler_start - i.arrival) FROM run_irqs i WHERE i.run_id = t.run_id"           \
    "  AND i.handler = t.thread_id)"
#define ST_IRQ_MEAN                                                                                \
    "(SELECT CAST(round(avg(i.handler_start - i.arrival)) AS INTEGER) FROM run_irqs i"             \
    "  WHERE i.run_id = t.run_id AND i.handler = t.thread_id)"
#define ST_KCYCLES                                                                                 \
    "(SELECT coalesce(sum(k.cycles), 0) FROM kernel_stats k WHERE k.run_id = t.run_id"             \
    "  AND k.thread_id = t.thread_id)"

/*
 * Schema version 4:
 * - refills: a periodic context's refill list whenever the kernel changed
 *   it (its head refill, the refills in use and the list's capacity),
 *   written in blocks by context (trace_blocks.tbl 'refills', whose CHECK
 *   is made again: SQLite cannot alter one, so the table is copied), read
 *   through run_refills;
 * - events.arg2: the kind's second argument (a signal's: the thread it
 *   woke, NULL if none);
 * - the stats view counts as the per-thread accounting does (tstats.h):
 *   jobs with the releases lost, misses with the jobs whose call was
 *   aborted and the releases lost (new columns lost, aborted_jobs), and
 *   gains each duration in nanoseconds (`*_ns`, DB_NS); avg_response and
 *   avg_irq_latency become the mean rounded to a cycle;
 * - run_stats counts jobs and misses the same way.
 * (The stats views are dropped if the file has them: one of version 2 or
 * 3 does, a new file does not.) An older file's runs have NULL in arg2 and
 * no refills rows. Since version 5, the run_refills view and the stats
 * views are made by version 5 and db_schema_stats_sql, applied after this
 * to every file; a file written as version 4 keeps its own until then.
 */
const char db_schema_v4_sql[] =
    "DROP VIEW run_events;"
    "DROP VIEW IF EXISTS stats;"
    "DROP VIEW IF EXISTS run_stats;"
    "ALTER TABLE events ADD COLUMN arg2 INTEGER;"
    "CREATE TABLE refills ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"
    " sc_thread_id INTEGER, time INTEGER NOT NULL, head_time INTEGER NOT NULL,"
    " head_amount INTEGER NOT NULL, count INTEGER NOT NULL, capacity INTEGER NOT NULL,"
    " seq INTEGER);"
    "PRAGMA legacy_alter_table = ON;"
    "ALTER TABLE trace_blocks RENAME TO trace_blocks_v3;"
    DB_SQL_TRACE_BLOCKS
    "INSERT INTO trace_blocks SELECT * FROM trace_blocks_v3 ORDER BY rowid;"
    "DROP TABLE trace_blocks_v3;"
    "PRAGMA legacy_alter_table = OFF;"
    DB_SQL_TRACE_BLOCKS_INDEXES
    DB_SQL_RUN_EVENTS;

/*
 * The stats and run_stats views (made by version 4, and since version 5
 * made last, after the tables and run_* views they read: a new file parses
 * them once, and an upgraded file drops and makes them again once).
 */
const char db_schema_stats_sql[] =
    /* each figure once, in cycles, in the inner SELECT; the outer adds the
     * nanoseconds of the durations from those columns (the figures written
     * out again in each DB_NS made the view's text 20 KB, whose parsing
     * cost a new file 14 M instructions) */
    "CREATE VIEW stats AS SELECT run_id, thread_id, name, criticality, n_jobs + lost AS jobs,"
    " failed + lost AS misses, lost, aborted_jobs, worst_response, avg_response, cpu, charged,"
    " throttled, timeout_faults, irqs_handled, worst_irq_latency, avg_irq_latency,"
    " kernel_entries, kernel_cycles,"
    /* clang-format off */
    " " DB_NS("worst_response", "hz") " AS worst_response_ns,"
    " " DB_NS("avg_response", "hz") " AS avg_response_ns,"
    " " DB_NS("cpu", "hz") " AS cpu_ns,"
    " " DB_NS("charged", "hz") " AS charged_ns,"
    " " DB_NS("throttled", "hz") " AS throttled_ns,"
    " " DB_NS("worst_irq_latency", "hz") " AS worst_irq_latency_ns,"
    " " DB_NS("avg_irq_latency", "hz") " AS avg_irq_latency_ns,"
    " " DB_NS("kernel_cycles", "hz") " AS kernel_ns"
    /* clang-format on */
    " FROM (SELECT t.run_id AS run_id, t.thread_id AS thread_id, t.name AS name,"
    " t.criticality AS criticality,"
    " (SELECT count(*) FROM run_jobs j WHERE j.run_id = t.run_id AND j.thread_id = t.thread_id)"
    "  AS n_jobs,"
    " " ST_FAILED " AS failed, " ST_LOST " AS lost, " ST_ABORTED " AS aborted_jobs,"
    " " ST_WORST " AS worst_response, " ST_MEAN " AS avg_response,"
    " " ST_CPU " AS cpu, " ST_CHARGED " AS charged, " ST_THROTTLED " AS throttled,"
    " " DB_THREAD_TIMEOUT_FAULTS " AS timeout_faults,"
    " (SELECT count(*) FROM run_irqs i WHERE i.run_id = t.run_id AND i.handler = t.thread_id"
    "  AND i.handler_start IS NOT NULL) AS irqs_handled,"
    " " ST_IRQ_WORST " AS worst_irq_latency, " ST_IRQ_MEAN " AS avg_irq_latency,"
    " (SELECT coalesce(sum(k.entries), 0) FROM kernel_stats k WHERE k.run_id = t.run_id"
    "  AND k.thread_id = t.thread_id) AS kernel_entries,"
    " " ST_KCYCLES " AS kernel_cycles, r.cpu_hz AS hz"
    " FROM threads t JOIN runs r ON r.run_id = t.run_id);"
    "CREATE VIEW run_stats AS SELECT r.run_id, r.scenario, r.scheduler,"
    " (SELECT sum(s.jobs) FROM stats s WHERE s.run_id = r.run_id) AS jobs,"
    " (SELECT sum(s.misses) FROM stats s WHERE s.run_id = r.run_id) AS misses," RUN_STATS_REST;

/*
 * The run_* views of a file older than version 3 opened read-only (it
 * cannot be upgraded): the tables themselves, with each row its own
 * block, as temporary views; the file's own indexes serve their queries.
 * A version-1 file has no irqs.handler or handler_start: NULL there.
 */
#define DB_READ_NO_REFILLS                                                                         \
    "CREATE TEMP VIEW run_refills AS SELECT NULL AS run_id, NULL AS thread_id,"                    \
    " NULL AS sc_thread_id, NULL AS time, NULL AS head_time, NULL AS head_amount, NULL AS count,"  \
    " NULL AS capacity, NULL AS seq, NULL AS block_start, NULL AS block_end, NULL AS row"          \
    " WHERE 0;"

/* A version-3 file read-only: its events have no arg2 and it has no
 * refills; temporary views of the same names hide its own. */
#define DB_READ_VIEWS_V3_SQL                                                                       \
    "CREATE TEMP VIEW run_events AS SELECT b.run_id AS run_id, e.seq AS seq, e.time AS time,"      \
    " b.kind AS kind, b.thread_id AS thread_id, e.object AS object, e.arg AS arg,"                 \
    " NULL AS arg2, b.min_time AS block_start, b.max_time AS block_end, e.rowid AS row"            \
    " FROM main.trace_blocks b JOIN main.events e ON e.rowid BETWEEN b.first_row AND b.last_row"   \
    " WHERE b.tbl = 'events' AND e.run_id = b.run_id AND e.thread_id IS b.thread_id"               \
    " AND e.kind = b.kind;" DB_READ_NO_REFILLS

#define DB_READ_VIEWS_SQL(handler, handler_start)                                                  \
    "CREATE TEMP VIEW run_slices AS SELECT run_id, thread_id, sc_thread_id, sc_notification,"      \
    " start_time, end_time, NULL AS seq, start_time AS block_start, end_time AS block_end,"        \
    " rowid AS row"                                                                                \
    " FROM main.slices;"                                                                           \
    "CREATE TEMP VIEW run_jobs AS SELECT run_id, thread_id, job, release_time, start_time,"        \
    " finish_time, deadline_time, response, missed, NULL AS seq, release_time AS block_start,"     \
    " release_time AS block_end, rowid AS row FROM main.jobs;"                                     \
    "CREATE TEMP VIEW run_budget_events AS SELECT run_id, thread_id, sc_thread_id, time, kind,"    \
    " amount, NULL AS seq, time AS block_start, time AS block_end, rowid AS row"                   \
    " FROM main.budget_events;"                                                                    \
    "CREATE TEMP VIEW run_irqs AS SELECT run_id, device, line, arrival, delivered, lost, " handler \
    " AS handler, " handler_start " AS handler_start, NULL AS seq, arrival AS block_start,"        \
    " arrival AS block_end, rowid AS row FROM main.irqs;"                                          \
    "CREATE TEMP VIEW run_events AS SELECT run_id, seq, time, kind, thread_id, object, arg,"       \
    " NULL AS arg2, time AS block_start, time AS block_end, rowid AS row FROM "                    \
    "main.events;" DB_READ_NO_REFILLS

int db_read_views(sqlite3 *sq)
{
    sqlite3_stmt *st;
    int version = 0;

    if (sqlite3_prepare_v2(sq, "PRAGMA main.user_version", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (version >= 4)
        return 0;
    return sqlite3_exec(sq,
                        version == 3   ? DB_READ_VIEWS_V3_SQL
                        : version >= 2 ? DB_READ_VIEWS_SQL("handler", "handler_start")
                                       : DB_READ_VIEWS_SQL("NULL", "NULL"),
                        NULL, NULL, NULL) == SQLITE_OK
               ? 0
               : -1;
}
