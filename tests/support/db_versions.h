/*
 * Older schema versions, made from a new file for the upgrade tests:
 * DB_TEST_DROP_V3 takes a version-3 file back to version 2's tables (the
 * stats views, which version 3 makes again, are dropped with the run_*
 * views they read; trace_blocks and the seq columns go). The caller then
 * sets PRAGMA user_version.
 */
#ifndef MCSIM_TEST_DB_VERSIONS_H
#define MCSIM_TEST_DB_VERSIONS_H

#define DB_TEST_DROP_V3                                                                            \
    "DROP VIEW stats; DROP VIEW run_stats; DROP VIEW run_slices; DROP VIEW run_jobs;"              \
    " DROP VIEW run_budget_events; DROP VIEW run_irqs; DROP VIEW run_events;"                      \
    " DROP TABLE trace_blocks; ALTER TABLE slices DROP COLUMN seq;"                                \
    " ALTER TABLE jobs DROP COLUMN seq; ALTER TABLE budget_events DROP COLUMN seq;"                \
    " ALTER TABLE irqs DROP COLUMN seq;"

#endif /* MCSIM_TEST_DB_VERSIONS_H */
