/*
 * The recorded schedule: an SQLite database holding any number of runs in
 * the tables of DESIGN.md "The recorded schedule (SQLite)", and a trace
 * sink (sim/sink.h) that writes a run into it.
 *
 * Tables and columns beyond DESIGN.md's (allowed there, never renamed):
 * runs.trace ('sched' or 'full'), threads.sporadic (0/1),
 * expectations.applicable (0/1), final_refills; from schema version 2,
 * irqs.handler and irqs.handler_start, kernel_stats, scenario_files and
 * the views stats and run_stats; from version 3, trace_blocks and the
 * run_* views, through which the trace tables are read; from version 4,
 * refills and run_refills, events.arg2, and the stats view counting
 * releases lost and aborted jobs, with time columns in ns; from version 5,
 * slices, jobs, irqs and refills are views of slice_rows, job_rows,
 * irq_rows and refill_rows, an interrupt that released a job carried on
 * its job's row and a refill list on the slice it began or ended
 * (db_schema.c, db_schema_v5.c; an
 * older file is upgraded when opened for writing, and given equivalent
 * temporary views when opened read-only: db_read_views). The file is
 * marked with
 * PRAGMA application_id = DB_APPLICATION_ID and PRAGMA user_version =
 * DB_SCHEMA_VERSION, so that another program's database is refused rather
 * than written into.
 *
 * Writing is batched: rows go into one transaction that is committed every
 * DB_BATCH_ROWS rows and at run_end; the trace rows are held and written
 * in blocks (db_rows.c) at most DB_ARENA_ROWS at a time, and every row
 * held is written before a commit; an interrupted run loses at most its
 * last batch. The `runs` row is
 * committed on its own at run_begin with finished = 0, and set to 1 only
 * in the transaction that commits the run's last rows, so an interrupted
 * run is visible and never looks complete.
 *
 * Errors: every function that can fail returns -1 and leaves a one-line
 * diagnostic "mcsim: PATH: what went wrong" (SQLite's message for I/O
 * errors, a full disk, a locked file); nothing here prints or exits.
 */
#ifndef MCSIM_CLI_DB_H
#define MCSIM_CLI_DB_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "sink.h"

#define DB_SCHEMA_VERSION 5
#define DB_APPLICATION_ID 0x6d63736d /* "mcsm" */
#define DB_BATCH_ROWS 100000
#define DB_ARENA_ROWS 16384   /* trace rows held before they are written in blocks */
#define DB_BLOCK_ROWS 512     /* the most rows of a block: what a window query reads past */
#define DB_ERRMSG_MAX 512

/*
 * What finds the trace tables' rows rather than holding data of its own
 * (db_schema.c), and since version 5 the tables that store slices, jobs,
 * irqs and refills (db_schema_v5.c), whose rows the views of those names
 * give: the CSV export leaves them out.
 */
#define DB_ACCESS_OBJECTS                                                                          \
    "('trace_blocks', 'run_slices', 'run_jobs', 'run_budget_events', 'run_irqs', 'run_events',"   \
    " 'run_refills', 'slice_rows', 'job_rows', 'irq_rows', 'refill_rows')"

/*
 * The event kinds a --trace sched run records in events, the only kinds
 * expectations and the Chrome export read.
 */
#define DB_EVENTS_SCHED_KINDS "kind IN ('preempt', 'call_aborted')"

/*
 * The slices a context paid for another thread (a passive server on its
 * caller's context, a thread on a notification's). The slices context
 * `ctx` (an SQL expression, such as "?2") paid for, its own thread's and
 * others', are DB_SLICES_PAID_BY's rows, `cond` (" AND ..." or "") added;
 * they come from the context's blocks, in no particular order.
 */
#define DB_SLICES_DONATED "sc_thread_id IS NOT thread_id"
#define DB_SLICES_PAID_BY(cols, ctx, cond)                                                         \
    "SELECT " cols " FROM run_slices WHERE run_id = ?1 AND sc_thread_id = " ctx cond

/* A job missed its deadline: the engine said so, it finished after its
 * deadline, or it is unfinished and its deadline fell inside the run
 * (SCENARIO-FORMAT.md "Jobs"). For run_jobs as `j`, ?2 the run's duration. */
#define DB_JOB_MISSED_SQL DB_JOB_MISSED_IN("?2")
/* The same with the run's duration an SQL expression (the stats view). */
#define DB_JOB_MISSED_IN(duration)                                                                 \
    "(j.missed = 1 OR j.finish_time > j.deadline_time"                                             \
    " OR (j.finish_time IS NULL AND j.deadline_time < " duration "))"

/* A job whose call was aborted (call_aborted of its thread between its
 * first instruction and its completion). For run_jobs as `j`. */
#define DB_JOB_ABORTED_SQL                                                                         \
    "EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = j.run_id"                                 \
    " AND e.thread_id = j.thread_id AND e.kind = 'call_aborted'"                                   \
    " AND e.time >= coalesce(j.start_time, j.release_time)"                                        \
    " AND (j.finish_time IS NULL OR e.time <= j.finish_time))"

/*
 * The same for the jobs of run ?1, as cheap as the thread's events allow:
 * the EXISTS above (a search of the thread's event blocks, as costly as
 * reading the job itself) runs only for a thread that has a call_aborted
 * block in the run (the IN list is made once per statement). SQLite
 * evaluates both sides of an OR or AND that is a value (sum(a OR b)), so
 * the order is a CASE's: 0 or 1.
 */
#define DB_JOB_ABORTED_RUN_SQL                                                                     \
    "(CASE WHEN j.thread_id IN (SELECT thread_id FROM trace_blocks WHERE run_id = ?1"              \
    " AND tbl = 'events' AND kind = 'call_aborted') THEN " DB_JOB_ABORTED_SQL " ELSE 0 END)"

/* A failed job: missed or aborted. DB_JOB_FAILED_SQL for the jobs of run
 * ?1 (1 or 0), DB_JOB_FAILED_IN in the stats view (1, 0 or NULL where the
 * job has no deadline: sum() counts the same). */
#define DB_JOB_FAILED_SQL                                                                          \
    "(CASE WHEN " DB_JOB_MISSED_SQL " THEN 1 ELSE " DB_JOB_ABORTED_RUN_SQL " END)"
#define DB_JOB_FAILED_IN(duration) "(" DB_JOB_MISSED_IN(duration) " OR " DB_JOB_ABORTED_SQL ")"

/* The time thread t's context waited for a refill (from each throttle to
 * the context's next replenish, or the end of the run), and the timeout
 * faults it took: for threads as `t` and runs as `r` (the stats view,
 * summary/tstats.c). */
#define DB_THREAD_THROTTLED                                                                        \
    "(SELECT coalesce(sum(coalesce((SELECT min(p.time) FROM run_budget_events p"                   \
    "   WHERE p.run_id = b.run_id AND p.sc_thread_id IS b.sc_thread_id"                            \
    "   AND (b.sc_thread_id IS NOT NULL OR p.thread_id = b.thread_id)"                             \
    "   AND p.block_end = (SELECT min(a.max_time)"                                                 \
    "   FROM trace_blocks a WHERE a.run_id = b.run_id AND a.tbl = 'budget_events'"                 \
    "   AND a.sc_thread_id IS b.sc_thread_id AND a.kind = 'replenish'"                             \
    "   AND (b.sc_thread_id IS NOT NULL OR a.thread_id = b.thread_id) AND a.max_time >= b.time)"   \
    "   AND p.kind = 'replenish' AND p.time >= b.time),"                                           \
    "   r.duration) - b.time), 0)"                                                                 \
    "  FROM run_budget_events b WHERE b.run_id = t.run_id AND b.thread_id = t.thread_id"           \
    "  AND b.kind = 'throttle')"
#define DB_THREAD_TIMEOUT_FAULTS                                                                   \
    "(SELECT count(*) FROM run_budget_events b WHERE b.run_id = t.run_id"                          \
    "  AND b.thread_id = t.thread_id AND b.kind = 'timeout_fault')"

/* The releases of thread `tid` (an SQL expression) lost with their
 * interrupt, for irqs as a whole in run ?1. */
#define DB_LOST_RELEASES_SQL(tid) DB_LOST_RELEASES_IN("?1", tid)
#define DB_LOST_RELEASES_IN(run, tid)                                                              \
    "(SELECT count(*) FROM run_irqs i WHERE i.run_id = " run " AND i.handler = " tid               \
    " AND i.lost = 1)"

struct db;

/* db_open's return when the environment, not the file's content, failed:
 * the file or its folder cannot be opened or written, the disk is full, an
 * I/O error, or another process kept the file locked past the 5 s wait. */
#define DB_ENVIRONMENT (-2)

/* The exit status of a command stopped by such a failure (distinct from 2,
 * bad input, and 3, mcsim's own bug). */
#define DB_EXIT_ENVIRONMENT 4

/*
 * Whether the last failure on connection `sq` (any mcsim connection) was
 * the environment's, as DB_ENVIRONMENT: then what to do about it, one
 * clause ("free space on its disk, or record to another file with -o");
 * else NULL (the file's content, or mcsim's bug).
 */
const char *db_environment_advice(sqlite3 *sq);

/* As db_environment_advice, for the last failure of `db` or its sink
 * (kept: a rollback after it resets the connection's error code). */
const char *db_failure_advice(const struct db *db);

/*
 * Open the database at `path` for reading and appending, creating the file
 * and the schema when the file does not exist or is empty. The handle and
 * its connection must be used by one thread at a time (SQLite's
 * multi-thread mode: the connection takes no lock of its own). On success
 * stores a handle in *out (release it with db_close) and returns 0. On
 * failure returns -1, sets *out to NULL and writes the diagnostic into
 * errmsg (errmsg_size bytes, DB_ERRMSG_MAX is enough): the file is not an
 * SQLite database, holds another program's tables, or was written by a
 * newer mcsim (a higher schema version). Returns DB_ENVIRONMENT instead
 * when the environment failed (db_environment_advice), the advice then
 * ending errmsg.
 */
int db_open(const char *path, struct db **out, char *errmsg, size_t errmsg_size);

/*
 * Close the database and free the handle; NULL is allowed. Rows of a run
 * still in progress (run_end not called) are rolled back to the last
 * committed batch; the run stays unfinished. The file is left in
 * rollback-journal mode (its write-ahead log checkpointed and removed)
 * unless another connection still has it open, so that it can be read
 * from a folder the reader cannot write (db_open_read).
 */
void db_close(struct db *db);

/*
 * What db_close does to the file, now, so that a failure can fail the run
 * before it is marked finished (cli/runcmd: before the verdicts'
 * transaction): the write-ahead log checkpointed into the file and removed,
 * the file back in rollback-journal mode, in which what follows (the
 * verdicts, finished = 1) is written into the file itself. Returns 0 (also
 * when another connection has the file open: not waited for, the last to
 * close converts it), DB_ENVIRONMENT when the environment failed (the log
 * could not be written into the file: a full disk, an I/O error, a file or
 * folder that cannot be written; db_failure_advice says what to do), or
 * -1; db_errmsg says why. The run's rows then stay in the -wal file beside
 * it, with the run unfinished.
 */
int db_unlog(struct db *db);

/*
 * The diagnostic of the last failure of `db` or of its sink ("" if none).
 * The string lives as long as the handle.
 */
const char *db_errmsg(const struct db *db);

/*
 * The SQLite connection, for queries (expect_evaluate, exports, checks).
 * Rows a sink has written but not yet committed are visible through it
 * (the sink's queued rows are inserted first).
 * The caller must not close it or leave a transaction open on it.
 */
sqlite3 *db_sqlite(struct db *db);

/*
 * The run_id of the run most recently begun through db's sink, or -1 if
 * none has begun since db_open.
 */
int64_t db_run_id(const struct db *db);

/*
 * SQLite's process-wide settings for mcsim: single-threaded, without
 * memory statistics. Only possible before SQLite's first connection in
 * the process, so every open of mcsim's calls it first (db_open,
 * db_open_read, the sweep's results file: cli/sweep/store.c); once is
 * enough, later calls do nothing.
 */
void db_sqlite_config(void);

/*
 * Open the mcsim database at `path` to read it (`check`, `gantt`,
 * `export`, `diff`): nothing is created or written, not even a -wal or
 * -shm file, so a file in a read-only folder opens. The file must exist
 * and carry mcsim's application id and a schema version this mcsim reads;
 * an older file gets the run_* views as db_read_views gives them. On
 * success stores the connection in *out (close it with sqlite3_close) and
 * returns 0; on failure returns -1 with "mcsim: PATH: why" in err.
 */
int db_open_read(const char *path, sqlite3 **out, char *err, size_t err_len);

/*
 * Give a read-only connection to an mcsim database (`mcsim export`,
 * `mcsim diff`) the run_* views the queries read: a file of schema
 * version 3 or later has them; an older one, which cannot be upgraded
 * read-only, gets temporary views of its tables. Returns 0, or -1 with
 * the error in sqlite3_errmsg(sq).
 */
int db_read_views(sqlite3 *sq);

/*
 * SQL that describes every trace row of a file with one block per run and
 * key (trace_blocks): what an upgrade to version 3 runs, and what a file
 * filled by hand with INSERTs needs, once, before the run_* views (and so
 * mcsim's commands) see its rows.
 */
extern const char db_blocks_of_rows_sql[];

/*
 * A sink that records runs into `db`, which must outlive it. `created_at`
 * is the wall-clock time of the run in Unix seconds, stored in
 * runs.created_at as ISO 8601 UTC text ("2024-05-01T12:00:00Z"); it is
 * the only column that is not a function of scenario, seed and version,
 * so tests pass a fixed value.
 *
 * The sink's ops follow sim/sink.h; besides, run_begin keeps a pointer to
 * the scenario (device and notification names are looked up in it), which
 * must stay valid until run_end. A failed op leaves its diagnostic in
 * db_errmsg(db); every later op of that run fails too, and the run stays
 * unfinished. The `expectation` op records a verdict as applicable; use
 * expect_record (cli/check/expect.h) to record verdicts that may be "not
 * applicable".
 */
struct trace_sink db_sink(struct db *db, int64_t created_at);

/*
 * From now on the sink's run_end leaves a complete run finished = 0: the
 * command marks it with db_finish_run once what it adds after the run
 * (the verdicts) is stored, so an interrupted check never leaves a run
 * that looks finished without its verdicts.
 */
void db_defer_finish(struct db *db);

/*
 * Mark the run most recently begun through db's sink finished = 1, in the
 * caller's transaction if one is open. Returns 0, or -1 with the error in
 * db_errmsg(db).
 */
int db_finish_run(struct db *db);

#endif /* MCSIM_CLI_DB_H */
