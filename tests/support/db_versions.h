/*
 * Older schema versions, made from a new file for the upgrade tests:
 * DB_TEST_DROP_V4 takes a version-4 file back to version 3's tables (no
 * refills, no events.arg2; version 3's run_events; the stats views and
 * trace_blocks stay as version 4 made them, which reads the same);
 * DB_TEST_DROP_V3 takes a version-4 file back to version 2's tables (the
 * stats views, which version 3 makes again, are dropped with the run_*
 * views they read; trace_blocks and the seq columns go). The caller then
 * sets PRAGMA user_version.
 */
#ifndef MCSIM_TEST_DB_VERSIONS_H
#define MCSIM_TEST_DB_VERSIONS_H

#define DB_TEST_DROP_V4                                                                            \
    "DROP VIEW run_refills; DROP TABLE refills; DROP VIEW run_events;"                             \
    " CREATE VIEW run_events AS SELECT b.run_id AS run_id, e.seq AS seq, e.time AS time,"          \
    " b.kind AS kind, b.thread_id AS thread_id, e.object AS object, e.arg AS arg,"                 \
    " b.min_time AS block_start, b.max_time AS block_end, e.rowid AS row"                          \
    " FROM trace_blocks b JOIN events e ON e.rowid BETWEEN b.first_row AND b.last_row"             \
    " WHERE b.tbl = 'events' AND e.run_id = b.run_id AND e.thread_id IS b.thread_id"               \
    " AND e.kind = b.kind; ALTER TABLE events DROP COLUMN arg2;"

#define DB_TEST_DROP_V3                                                                            \
    "DROP VIEW stats; DROP VIEW run_stats; DROP VIEW run_slices; DROP VIEW run_jobs;"              \
    " DROP VIEW run_budget_events; DROP VIEW run_irqs; DROP VIEW run_events;"                      \
    " DROP VIEW run_refills; DROP TABLE refills; ALTER TABLE events DROP COLUMN arg2;"             \
    " DROP TABLE trace_blocks; ALTER TABLE slices DROP COLUMN seq;"                                \
    " ALTER TABLE jobs DROP COLUMN seq; ALTER TABLE budget_events DROP COLUMN seq;"                \
    " ALTER TABLE irqs DROP COLUMN seq;"

#endif /* MCSIM_TEST_DB_VERSIONS_H */
