/*
 * Schema version 5 (db_schema.c has versions 1 to 4): fewer rows per job.
 *
 * Most interrupts release a job: the interrupt's handler is the job's
 * thread and its arrival is the job's release. Most refill-list changes
 * happen at the kernel entry that starts or ends a slice of the context's
 * own thread: at the charge of a preemption, block or yield, and at the
 * unblock check of a wake-up. Recording each as a row of its own cost
 * bench/rm10.yaml 87,000 of its 152,000 rows. Version 5 carries them on
 * the row they come with:
 * - job_rows (the jobs table, renamed) gains irq_device, irq_line,
 *   irq_delivered, irq_handler_start and irq_seq: the interrupt whose
 *   handler is the job's thread, whose arrival is its release_time and
 *   that was not lost (irq_seq NULL: none is carried);
 * - slice_rows (slices) gains start_head_time, start_head_amount,
 *   start_count, start_capacity, start_seq: the refill row of the slice's
 *   context at its start_time, naming the same thread and context (a
 *   thread's context: sc_thread_id not NULL), and end_* likewise at its
 *   end_time (*_seq NULL: none is carried);
 * - irq_rows (irqs) and refill_rows (refills) hold the others.
 * The names of version 4 are views with version 4's columns: slices, jobs,
 * irqs, refills (each row once: a table's own rows, then the carried
 * ones), and the run_* views read through trace_blocks as before
 * (trace_blocks.tbl 'slices', 'jobs', 'irqs', 'refills' name the blocks of
 * slice_rows, job_rows, irq_rows and refill_rows; a carried row's
 * block_start, block_end and row are its carrier's). A view's rows come
 * in no particular order: order by seq (each row keeps the seq it had).
 *
 * An older file's four tables are copied into the new ones with their
 * rowids (so trace_blocks stays right) and dropped with their indexes
 * (files before version 3 had some); its runs carry nothing. The stats
 * views (db_schema_stats_sql) are made after this; a file of version 4
 * has them, so they are dropped first.
 */
#include "db_int.h"
#include "db_schema_sql.h"

#define V5_SLICE_COLS "run_id, thread_id, sc_thread_id, sc_notification, start_time, end_time, seq"
#define V5_JOB_COLS                                                                                \
    "run_id, thread_id, job, release_time, start_time, finish_time, deadline_time, response,"     \
    " missed, seq"
#define V5_IRQ_COLS "run_id, device, line, arrival, delivered, lost, handler, handler_start, seq"
#define V5_REFILL_COLS                                                                             \
    "run_id, thread_id, sc_thread_id, time, head_time, head_amount, count, capacity, seq"

/* A refill carried on a slice at its start or end (W: start or end, at
 * the slice's start_time or end_time): refills' columns. */
#define V5_CARRIED_REFILL(W, AT)                                                                   \
    "run_id, thread_id, sc_thread_id, " AT ", " W "_head_time, " W "_head_amount, " W "_count, " W \
    "_capacity, " W "_seq"

/* The same through the slice's block (run_refills' columns). */
#define V5_RUN_CARRIED_REFILL(W, AT)                                                               \
    " SELECT b.run_id, b.thread_id, b.sc_thread_id, s." AT ", s." W "_head_time,"                  \
    " s." W "_head_amount, s." W "_count, s." W "_capacity, s." W "_seq, b.min_time, b.max_time,"  \
    " s.rowid FROM trace_blocks b JOIN slice_rows s ON s.rowid BETWEEN b.first_row AND b.last_row" \
    " WHERE b.tbl = 'slices' AND s.run_id = b.run_id AND s.thread_id IS b.thread_id"               \
    " AND s.sc_thread_id IS b.sc_thread_id AND s." W "_seq IS NOT NULL"

#define DB_SQL_SLICE_ROWS                                                                          \
    "CREATE TABLE slice_rows ("                                                                    \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"                        \
    " sc_thread_id INTEGER, sc_notification TEXT,"                                                 \
    " start_time INTEGER NOT NULL, end_time INTEGER NOT NULL, seq INTEGER,"                        \
    " start_head_time INTEGER, start_head_amount INTEGER, start_count INTEGER,"                    \
    " start_capacity INTEGER, start_seq INTEGER,"                                                  \
    " end_head_time INTEGER, end_head_amount INTEGER, end_count INTEGER,"                          \
    " end_capacity INTEGER, end_seq INTEGER);"

#define DB_SQL_JOB_ROWS                                                                            \
    "CREATE TABLE job_rows ("                                                                      \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"               \
    " job INTEGER NOT NULL, release_time INTEGER NOT NULL, start_time INTEGER,"                    \
    " finish_time INTEGER, deadline_time INTEGER, response INTEGER,"                               \
    " missed INTEGER NOT NULL CHECK (missed = 0 OR missed = 1), seq INTEGER,"                      \
    " irq_device TEXT, irq_line INTEGER, irq_delivered INTEGER, irq_handler_start INTEGER,"        \
    " irq_seq INTEGER);"

#define DB_SQL_IRQ_ROWS                                                                            \
    "CREATE TABLE irq_rows ("                                                                      \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), device TEXT NOT NULL,"                     \
    " line INTEGER NOT NULL, arrival INTEGER NOT NULL, delivered INTEGER,"                         \
    " lost INTEGER NOT NULL CHECK (lost = 0 OR lost = 1), handler INTEGER,"                        \
    " handler_start INTEGER, seq INTEGER);"

#define DB_SQL_REFILL_ROWS                                                                         \
    "CREATE TABLE refill_rows ("                                                                   \
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER,"                        \
    " sc_thread_id INTEGER, time INTEGER NOT NULL, head_time INTEGER NOT NULL,"                    \
    " head_amount INTEGER NOT NULL, count INTEGER NOT NULL, capacity INTEGER NOT NULL,"            \
    " seq INTEGER);"

/* Version 4's names as views of the tables, and the run_* views through the blocks. */
#define DB_SQL_V5_VIEWS                                                                            \
    "CREATE VIEW slices AS SELECT " V5_SLICE_COLS " FROM slice_rows;"                              \
    "CREATE VIEW jobs AS SELECT " V5_JOB_COLS " FROM job_rows;"                                    \
    "CREATE VIEW irqs AS SELECT " V5_IRQ_COLS " FROM irq_rows"                                     \
    " UNION ALL SELECT run_id, irq_device, irq_line, release_time, irq_delivered, 0, thread_id,"   \
    " irq_handler_start, irq_seq FROM job_rows WHERE irq_seq IS NOT NULL;"                         \
    "CREATE VIEW refills AS SELECT " V5_REFILL_COLS " FROM refill_rows"                            \
    " UNION ALL SELECT " V5_CARRIED_REFILL("start", "start_time") " FROM slice_rows"               \
    " WHERE start_seq IS NOT NULL"                                                                 \
    " UNION ALL SELECT " V5_CARRIED_REFILL("end", "end_time") " FROM slice_rows"                   \
    " WHERE end_seq IS NOT NULL;"                                                                  \
    "CREATE VIEW run_slices AS SELECT b.run_id AS run_id, b.thread_id AS thread_id,"               \
    " b.sc_thread_id AS sc_thread_id, s.sc_notification AS sc_notification,"                       \
    " s.start_time AS start_time, s.end_time AS end_time, s.seq AS seq,"                           \
    " b.min_time AS block_start,"                                                                  \
    " b.max_time AS block_end, s.rowid AS row"                                                     \
    " FROM trace_blocks b JOIN slice_rows s ON s.rowid BETWEEN b.first_row AND b.last_row"         \
    " WHERE b.tbl = 'slices' AND s.run_id = b.run_id AND s.thread_id IS b.thread_id"               \
    " AND s.sc_thread_id IS b.sc_thread_id;"                                                       \
    "CREATE VIEW run_jobs AS SELECT b.run_id AS run_id, b.thread_id AS thread_id, j.job AS job,"   \
    " j.release_time AS release_time, j.start_time AS start_time,"                                 \
    " j.finish_time AS finish_time, j.deadline_time AS deadline_time, j.response AS response,"     \
    " j.missed AS missed, j.seq AS seq, b.min_time AS block_start, b.max_time AS block_end,"       \
    " j.rowid AS row"                                                                              \
    " FROM trace_blocks b JOIN job_rows j ON j.rowid BETWEEN b.first_row AND b.last_row"           \
    " WHERE b.tbl = 'jobs' AND j.run_id = b.run_id AND j.thread_id = b.thread_id;"                 \
    "CREATE VIEW run_irqs AS SELECT b.run_id AS run_id, b.device AS device, i.line AS line,"       \
    " i.arrival AS arrival, i.delivered AS delivered, i.lost AS lost, b.thread_id AS handler,"     \
    " i.handler_start AS handler_start, i.seq AS seq, b.min_time AS block_start,"                  \
    " b.max_time AS block_end, i.rowid AS row"                                                     \
    " FROM trace_blocks b JOIN irq_rows i ON i.rowid BETWEEN b.first_row AND b.last_row"           \
    " WHERE b.tbl = 'irqs' AND i.run_id = b.run_id AND i.device = b.device"                        \
    " AND i.handler IS b.thread_id"                                                                \
    " UNION ALL SELECT b.run_id, j.irq_device, j.irq_line, j.release_time, j.irq_delivered, 0,"    \
    " b.thread_id, j.irq_handler_start, j.irq_seq, b.min_time, b.max_time, j.rowid"                \
    " FROM trace_blocks b JOIN job_rows j ON j.rowid BETWEEN b.first_row AND b.last_row"           \
    " WHERE b.tbl = 'jobs' AND j.run_id = b.run_id AND j.thread_id = b.thread_id"                  \
    " AND j.irq_seq IS NOT NULL;"                                                                  \
    "CREATE VIEW run_refills AS SELECT b.run_id AS run_id, r.thread_id AS thread_id,"              \
    " b.sc_thread_id AS sc_thread_id, r.time AS time, r.head_time AS head_time,"                   \
    " r.head_amount AS head_amount, r.count AS count, r.capacity AS capacity, r.seq AS seq,"       \
    " b.min_time AS block_start, b.max_time AS block_end, r.rowid AS row"                          \
    " FROM trace_blocks b JOIN refill_rows r ON r.rowid BETWEEN b.first_row AND b.last_row"        \
    " WHERE b.tbl = 'refills' AND r.run_id = b.run_id AND r.sc_thread_id IS b.sc_thread_id"        \
    " AND (b.sc_thread_id IS NOT NULL OR r.thread_id IS b.thread_id)"                              \
    " UNION ALL" V5_RUN_CARRIED_REFILL("start", "start_time")                                      \
    " UNION ALL" V5_RUN_CARRIED_REFILL("end", "end_time") ";"

const char db_schema_v5_sql[] =
    "DROP VIEW IF EXISTS run_slices;"
    "DROP VIEW IF EXISTS run_jobs;"
    "DROP VIEW IF EXISTS run_irqs;"
    "DROP VIEW IF EXISTS run_refills;"
    "DROP VIEW IF EXISTS stats;"
    "DROP VIEW IF EXISTS run_stats;"
    DB_SQL_SLICE_ROWS
    "INSERT INTO slice_rows (rowid, " V5_SLICE_COLS ") SELECT rowid, " V5_SLICE_COLS
    " FROM slices ORDER BY rowid;"
    "DROP TABLE slices;"
    DB_SQL_JOB_ROWS
    "INSERT INTO job_rows (rowid, " V5_JOB_COLS ") SELECT rowid, " V5_JOB_COLS
    " FROM jobs ORDER BY rowid;"
    "DROP TABLE jobs;"
    DB_SQL_IRQ_ROWS
    "INSERT INTO irq_rows (rowid, " V5_IRQ_COLS ") SELECT rowid, " V5_IRQ_COLS
    " FROM irqs ORDER BY rowid;"
    "DROP TABLE irqs;"
    DB_SQL_REFILL_ROWS
    "INSERT INTO refill_rows (rowid, " V5_REFILL_COLS ") SELECT rowid, " V5_REFILL_COLS
    " FROM refills ORDER BY rowid;"
    "DROP TABLE refills;"
    DB_SQL_V5_VIEWS;

/*
 * The whole schema of a new file (then db_schema_stats_sql): every object
 * of version 5, with the text and in the order that versions 1 to 5
 * applied one after the other leave (unit.db compares the two
 * sqlite_master tables), made in one go: each DROP or ALTER TABLE of the
 * versions makes SQLite parse the whole schema again, and their tables
 * made and dropped cost parsing too (about 20 M instructions through the
 * versions, 8 M this way, before the stats views).
 */
const char db_schema_new_sql[] =
    DB_SQL_RUNS
    DB_SQL_THREADS
    DB_SQL_BUDGET_EVENTS_V1_COLS ", seq INTEGER);"
    DB_SQL_EVENTS_V1_COLS ", arg2 INTEGER);"
    DB_SQL_EXPECTATIONS
    DB_SQL_FINAL_REFILLS
    DB_SQL_KERNEL_STATS
    DB_SQL_SCENARIO_FILES
    DB_SQL_RUN_BUDGET_EVENTS
    DB_SQL_TRACE_BLOCKS
    DB_SQL_TRACE_BLOCKS_INDEXES
    DB_SQL_RUN_EVENTS
    DB_SQL_SLICE_ROWS
    DB_SQL_JOB_ROWS
    DB_SQL_IRQ_ROWS
    DB_SQL_REFILL_ROWS
    DB_SQL_V5_VIEWS;

/*
 * One block per run and key for every trace row of the file: describes the
 * runs of a file upgraded from before version 3 (in the same transaction,
 * after version 5's tables exist), or of a file whose rows were written by
 * hand with SQL (into the tables: slice_rows, job_rows, irq_rows,
 * refill_rows, budget_events, events), once.
 */
const char db_blocks_of_rows_sql[] =
    "INSERT INTO trace_blocks SELECT run_id, 'slices', thread_id, sc_thread_id, NULL, NULL, "
    "min(rowid),"
    " max(rowid), min(start_time), max(end_time) FROM slice_rows"
    " GROUP BY run_id, thread_id, sc_thread_id;"
    "INSERT INTO trace_blocks SELECT run_id, 'jobs', thread_id, NULL, NULL, NULL, min(rowid),"
    " max(rowid), min(release_time), max(release_time) FROM job_rows GROUP BY run_id, thread_id;"
    "INSERT INTO trace_blocks SELECT run_id, 'budget_events',"
    " CASE WHEN sc_thread_id IS NULL THEN thread_id END, sc_thread_id, NULL,"
    " kind, min(rowid), max(rowid), min(time), max(time) FROM budget_events"
    " GROUP BY run_id, sc_thread_id, kind, CASE WHEN sc_thread_id IS NULL THEN thread_id END;"
    "INSERT INTO trace_blocks SELECT run_id, 'irqs', handler, NULL, device, NULL, min(rowid),"
    " max(rowid), min(arrival), max(arrival) FROM irq_rows GROUP BY run_id, handler, device;"
    "INSERT INTO trace_blocks SELECT run_id, 'events', thread_id, NULL, NULL, kind, min(rowid),"
    " max(rowid), min(time), max(time) FROM events GROUP BY run_id, thread_id, kind;"
    "INSERT INTO trace_blocks SELECT run_id, 'refills',"
    " CASE WHEN sc_thread_id IS NULL THEN thread_id END, sc_thread_id, NULL, NULL,"
    " min(rowid), max(rowid), min(time), max(time) FROM refill_rows"
    " GROUP BY run_id, sc_thread_id, CASE WHEN sc_thread_id IS NULL THEN thread_id END;";
