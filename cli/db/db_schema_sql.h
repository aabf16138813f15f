/*
 * Private to the db module: the SQL of the schema's objects that the
 * versions share (db_schema.c, db_schema_v5.c). A version's string makes
 * an object with its macro, and the whole schema of a new file
 * (db_schema_new_sql) makes every object of the latest version with the
 * same macros, in the order the versions leave them, so that a new file
 * and an upgraded one have the same sqlite_master (unit.db). A table that
 * a later version gains columns in (ALTER TABLE ADD COLUMN appends ", NAME
 * TYPE" to its text) has its first columns as a macro here.
 */
#ifndef MCSIM_CLI_DB_SCHEMA_SQL_H
#define MCSIM_CLI_DB_SCHEMA_SQL_H

/* ---- version 1 ---- */

#define DB_SQL_RUNS                                                                                \
    "CREATE TABLE runs ("                                                                          \
    " run_id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, path TEXT, sha256 TEXT,"                 \
    " seed INTEGER NOT NULL, duration INTEGER NOT NULL, cpu_hz INTEGER NOT NULL,"                  \
    " timer_hz INTEGER NOT NULL,"                                                                  \
    " scheduler TEXT NOT NULL CHECK (scheduler = 'mcs' OR scheduler = 'classic'),"                 \
    " hal TEXT NOT NULL, version TEXT NOT NULL, created_at TEXT NOT NULL,"                         \
    " finished INTEGER NOT NULL DEFAULT 0 CHECK (finished = 0 OR finished = 1),"                   \
    " trace TEXT CHECK (trace = 'sched' OR trace = 'full'));"

#define DB_SQL_THREADS                                                                             \
    "CREATE TABLE threads ("                                                                       \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"               \
    " name TEXT NOT NULL, priority INTEGER NOT NULL, criticality TEXT,"                            \
    " criticality_rank INTEGER, budget INTEGER, period INTEGER, deadline INTEGER,"                 \
    " passive INTEGER NOT NULL CHECK (passive = 0 OR passive = 1),"                                \
    " sporadic INTEGER NOT NULL DEFAULT 0 CHECK (sporadic = 0 OR sporadic = 1),"                   \
    " PRIMARY KEY (run_id, thread_id));"

/* CHECKs are written as OR-ed equalities, not IN lists: SQLite evaluates a
 * constant IN list by building a temporary index at every insert, a third
 * of the cost of recording a row. Version 3 adds seq. */
#define DB_SQL_BUDGET_EVENTS_V1_COLS                                                               \
    "CREATE TABLE budget_events ("                                                                 \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"                        \
    " sc_thread_id INTEGER, time INTEGER NOT NULL,"                                                \
    " kind TEXT NOT NULL CHECK (kind = 'exhausted' OR kind = 'throttle' OR"                        \
    " kind = 'replenish' OR kind = 'timeout_fault' OR kind = 'emergency'),"                        \
    " amount INTEGER NOT NULL"

/* Version 4 adds arg2. */
#define DB_SQL_EVENTS_V1_COLS                                                                      \
    "CREATE TABLE events ("                                                                        \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), seq INTEGER NOT NULL,"                     \
    " time INTEGER NOT NULL, kind TEXT NOT NULL, thread_id INTEGER,"                               \
    " object INTEGER, arg INTEGER"

#define DB_SQL_EXPECTATIONS                                                                        \
    "CREATE TABLE expectations ("                                                                  \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), idx INTEGER NOT NULL,"                     \
    " text TEXT NOT NULL, passed INTEGER NOT NULL CHECK (passed = 0 OR passed = 1),"               \
    " detail TEXT, applicable INTEGER NOT NULL DEFAULT 1 CHECK (applicable = 0 OR applicable = 1),"\
    " PRIMARY KEY (run_id, idx));"

#define DB_SQL_FINAL_REFILLS                                                                       \
    "CREATE TABLE final_refills ("                                                                 \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"               \
    " idx INTEGER NOT NULL, time INTEGER NOT NULL, amount INTEGER NOT NULL,"                       \
    " PRIMARY KEY (run_id, thread_id, idx));"

/* ---- version 2 ---- */

#define DB_SQL_KERNEL_STATS                                                                        \
    "CREATE TABLE kernel_stats ("                                                                  \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"                        \
    " kind TEXT NOT NULL CHECK (kind = 'syscall' OR kind = 'irq' OR kind = 'timer' OR kind = "     \
    "'exit'),"                                                                                     \
    " entries INTEGER NOT NULL, cycles INTEGER NOT NULL, decisions INTEGER NOT NULL,"              \
    " decision_cycles INTEGER NOT NULL, sched_cycles INTEGER NOT NULL,"                            \
    " timer_programs INTEGER NOT NULL, timer_cycles INTEGER NOT NULL);"

#define DB_SQL_SCENARIO_FILES                                                                      \
    "CREATE TABLE scenario_files (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL);"

/* ---- version 3 ---- */

#define DB_SQL_RUN_BUDGET_EVENTS                                                                   \
    "CREATE VIEW run_budget_events AS SELECT b.run_id AS run_id, e.thread_id AS thread_id,"        \
    " b.sc_thread_id AS sc_thread_id, e.time AS time, b.kind AS kind, e.amount AS amount,"         \
    " e.seq AS seq,"                                                                               \
    " b.min_time AS block_start, b.max_time AS block_end, e.rowid AS row"                          \
    " FROM trace_blocks b JOIN budget_events e ON e.rowid BETWEEN b.first_row AND b.last_row"      \
    " WHERE b.tbl = 'budget_events' AND e.run_id = b.run_id"                                       \
    " AND e.sc_thread_id IS b.sc_thread_id AND e.kind = b.kind"                                    \
    " AND (b.sc_thread_id IS NOT NULL OR e.thread_id IS b.thread_id);"

#define DB_SQL_TRACE_BLOCKS_INDEXES                                                                \
    "CREATE INDEX trace_blocks_by_thread ON trace_blocks (run_id, tbl, thread_id, max_time);"      \
    "CREATE INDEX trace_blocks_by_context ON trace_blocks (run_id, tbl, sc_thread_id, kind, "      \
    "max_time);"                                                                                   \
    "CREATE INDEX trace_blocks_by_device ON trace_blocks (run_id, tbl, device, max_time);"

/* ---- version 4 ---- */

#define DB_SQL_TRACE_BLOCKS                                                                        \
    "CREATE TABLE trace_blocks ("                                                                  \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id),"                                           \
    " tbl TEXT NOT NULL CHECK (tbl = 'slices' OR tbl = 'jobs' OR tbl = 'budget_events' OR"         \
    " tbl = 'irqs' OR tbl = 'events' OR tbl = 'refills'),"                                         \
    " thread_id INTEGER, sc_thread_id INTEGER, device TEXT, kind TEXT,"                            \
    " first_row INTEGER NOT NULL, last_row INTEGER NOT NULL,"                                      \
    " min_time INTEGER, max_time INTEGER);"

#define DB_SQL_RUN_EVENTS                                                                          \
    "CREATE VIEW run_events AS SELECT b.run_id AS run_id, e.seq AS seq, e.time AS time,"           \
    " b.kind AS kind, b.thread_id AS thread_id, e.object AS object, e.arg AS arg,"                 \
    " e.arg2 AS arg2, b.min_time AS block_start, b.max_time AS block_end, e.rowid AS row"          \
    " FROM trace_blocks b JOIN events e ON e.rowid BETWEEN b.first_row AND b.last_row"             \
    " WHERE b.tbl = 'events' AND e.run_id = b.run_id AND e.thread_id IS b.thread_id"               \
    " AND e.kind = b.kind;"

#endif /* MCSIM_CLI_DB_SCHEMA_SQL_H */
