/*
 * Older schema versions, made from a new file for the upgrade tests:
 * DB_TEST_DROP_V5 takes a version-5 file back to version 4's tables (its
 * stats views dropped: version 5 makes them again); DB_TEST_DROP_V4 takes
 * such a version-4 file back to version 3's tables (no refills, no
 * events.arg2; version 3's run_events; trace_blocks stays as version 4
 * made it, which reads the same); DB_TEST_DROP_V3 takes it back to version
 * 2's tables (the run_* views, trace_blocks and the seq columns go). The
 * caller then sets PRAGMA user_version. A committed file written by
 * version 4 itself is tests/data/db/v4.db (unit.db_v5).
 */
#ifndef MCSIM_TEST_DB_VERSIONS_H
#define MCSIM_TEST_DB_VERSIONS_H

/* A version-5 file whose runs carry nothing (no interrupts, no refills)
 * back to version 4's tables and views (without the stats views, which
 * version 5 makes again anyway). */
#define DB_TEST_DROP_V5                                                                            \
    "DROP VIEW stats; DROP VIEW run_stats; DROP VIEW run_slices; DROP VIEW run_jobs;"              \
    " DROP VIEW run_irqs; DROP VIEW run_refills; DROP VIEW slices; DROP VIEW jobs;"                \
    " DROP VIEW irqs; DROP VIEW refills;"                                                          \
    " ALTER TABLE slice_rows DROP COLUMN start_head_time;"                                         \
    " ALTER TABLE slice_rows DROP COLUMN start_head_amount;"                                       \
    " ALTER TABLE slice_rows DROP COLUMN start_count;"                                             \
    " ALTER TABLE slice_rows DROP COLUMN start_capacity;"                                          \
    " ALTER TABLE slice_rows DROP COLUMN start_seq;"                                               \
    " ALTER TABLE slice_rows DROP COLUMN end_head_time;"                                           \
    " ALTER TABLE slice_rows DROP COLUMN end_head_amount;"                                         \
    " ALTER TABLE slice_rows DROP COLUMN end_count;"                                               \
    " ALTER TABLE slice_rows DROP COLUMN end_capacity;"                                            \
    " ALTER TABLE slice_rows DROP COLUMN end_seq;"                                                 \
    " ALTER TABLE job_rows DROP COLUMN irq_device; ALTER TABLE job_rows DROP COLUMN irq_line;"     \
    " ALTER TABLE job_rows DROP COLUMN irq_delivered;"                                             \
    " ALTER TABLE job_rows DROP COLUMN irq_handler_start;"                                         \
    " ALTER TABLE job_rows DROP COLUMN irq_seq;"                                                   \
    " ALTER TABLE slice_rows RENAME TO slices; ALTER TABLE job_rows RENAME TO jobs;"               \
    " ALTER TABLE irq_rows RENAME TO irqs; ALTER TABLE refill_rows RENAME TO refills;"             \
    " CREATE VIEW run_slices AS SELECT b.run_id AS run_id, b.thread_id AS thread_id,"              \
    " b.sc_thread_id AS sc_thread_id, s.sc_notification AS sc_notification,"                       \
    " s.start_time AS start_time, s.end_time AS end_time, s.seq AS seq, b.min_time AS block_start,"\
    " b.max_time AS block_end, s.rowid AS row"                                                     \
    " FROM trace_blocks b JOIN slices s ON s.rowid BETWEEN b.first_row AND b.last_row"             \
    " WHERE b.tbl = 'slices' AND s.run_id = b.run_id AND s.thread_id IS b.thread_id"               \
    " AND s.sc_thread_id IS b.sc_thread_id;"                                                       \
    " CREATE VIEW run_jobs AS SELECT b.run_id AS run_id, b.thread_id AS thread_id, j.job AS job,"  \
    " j.release_time AS release_time, j.start_time AS start_time,"                                 \
    " j.finish_time AS finish_time, j.deadline_time AS deadline_time, j.response AS response,"     \
    " j.missed AS missed, j.seq AS seq, b.min_time AS block_start, b.max_time AS block_end,"       \
    " j.rowid AS row"                                                                              \
    " FROM trace_blocks b JOIN jobs j ON j.rowid BETWEEN b.first_row AND b.last_row"               \
    " WHERE b.tbl = 'jobs' AND j.run_id = b.run_id AND j.thread_id = b.thread_id;"                 \
    " CREATE VIEW run_irqs AS SELECT b.run_id AS run_id, b.device AS device, i.line AS line,"      \
    " i.arrival AS arrival, i.delivered AS delivered, i.lost AS lost, b.thread_id AS handler,"     \
    " i.handler_start AS handler_start, i.seq AS seq, b.min_time AS block_start,"                  \
    " b.max_time AS block_end, i.rowid AS row"                                                     \
    " FROM trace_blocks b JOIN irqs i ON i.rowid BETWEEN b.first_row AND b.last_row"               \
    " WHERE b.tbl = 'irqs' AND i.run_id = b.run_id AND i.device = b.device"                        \
    " AND i.handler IS b.thread_id;"                                                               \
    " CREATE VIEW run_refills AS SELECT b.run_id AS run_id, r.thread_id AS thread_id,"             \
    " b.sc_thread_id AS sc_thread_id, r.time AS time, r.head_time AS head_time,"                   \
    " r.head_amount AS head_amount, r.count AS count, r.capacity AS capacity, r.seq AS seq,"       \
    " b.min_time AS block_start, b.max_time AS block_end, r.rowid AS row"                          \
    " FROM trace_blocks b JOIN refills r ON r.rowid BETWEEN b.first_row AND b.last_row"            \
    " WHERE b.tbl = 'refills' AND r.run_id = b.run_id AND r.sc_thread_id IS b.sc_thread_id"        \
    " AND (b.sc_thread_id IS NOT NULL OR r.thread_id IS b.thread_id);"

#define DB_TEST_DROP_V4                                                                            \
    "DROP VIEW run_refills; DROP TABLE refills; DROP VIEW run_events;"                             \
    " CREATE VIEW run_events AS SELECT b.run_id AS run_id, e.seq AS seq, e.time AS time,"          \
    " b.kind AS kind, b.thread_id AS thread_id, e.object AS object, e.arg AS arg,"                 \
    " b.min_time AS block_start, b.max_time AS block_end, e.rowid AS row"                          \
    " FROM trace_blocks b JOIN events e ON e.rowid BETWEEN b.first_row AND b.last_row"             \
    " WHERE b.tbl = 'events' AND e.run_id = b.run_id AND e.thread_id IS b.thread_id"               \
    " AND e.kind = b.kind; ALTER TABLE events DROP COLUMN arg2;"

#define DB_TEST_DROP_V3                                                                            \
    "DROP VIEW run_slices; DROP VIEW run_jobs;"                                                    \
    " DROP VIEW run_budget_events; DROP VIEW run_irqs; DROP VIEW run_events;"                      \
    " DROP VIEW run_refills; DROP TABLE refills; ALTER TABLE events DROP COLUMN arg2;"             \
    " DROP TABLE trace_blocks; ALTER TABLE slices DROP COLUMN seq;"                                \
    " ALTER TABLE jobs DROP COLUMN seq; ALTER TABLE budget_events DROP COLUMN seq;"                \
    " ALTER TABLE irqs DROP COLUMN seq;"

#endif /* MCSIM_TEST_DB_VERSIONS_H */
