/*
 * Private to chart_query.c, chart_window.c and chart_budget_read.c: the
 * helpers they use to run statements and grow the arrays of a struct
 * chart_data.
 */
#ifndef MCSIM_CLI_CHART_QUERY_INT_H
#define MCSIM_CLI_CHART_QUERY_INT_H

#include <string.h>

#include "chart_query.h"
#include "util/grow.h"

/* Append a zeroed element to array `name` of d; NULL if out of memory. */
#define CQ_PUSH(d, name)                                                                           \
    (!grow_one(&(d)->name, &(d)->cap_##name, (d)->n_##name, sizeof *(d)->name)                   \
         ? NULL                                                                                    \
         : memset(&(d)->name[(d)->n_##name++], 0, sizeof *(d)->name))

/* Write a message into err and return st. */
enum chart_status cq_fail(char *err, size_t errlen, enum chart_status st, const char *fmt, ...);

/* CHART_EINTERNAL with SQLite's last message on db. */
enum chart_status cq_sql_fail(sqlite3 *db, char *err, size_t errlen);

/* CHART_EINTERNAL: out of memory. */
enum chart_status cq_oom(char *err, size_t errlen);

/* Column `col` of the current row as text into dst ("" for NULL). */
void cq_copy_text(char *dst, size_t len, sqlite3_stmt *st, int col);

/* Column `col` as an integer, dflt where it is NULL. */
int64_t cq_column_or(sqlite3_stmt *st, int col, int64_t dflt);

/* Prepare `sql` with ?1 bound to run_id; NULL on error (see cq_sql_fail). */
sqlite3_stmt *cq_prepare(sqlite3 *db, const char *sql, int64_t run_id);

/* Reset st and bind ?2, ?3, ... to the n values v. */
void cq_rebind(sqlite3_stmt *st, int n, const int64_t *v);

/* The index in d->threads of thread `id`, or -1. */
int cq_thread_index(const struct chart_data *d, int64_t id);

/* The two statements of a per-thread walk over slices: the last row that
 * starts before the window (it may reach into it), then the rows that
 * start inside it. Both are written from query(cond), the slices of the
 * run ?1 and the thread or context ?2 that meet `cond`; ?3 and ?4 are the
 * window. The last slice starting before the window starts no earlier
 * than the last block of the thread's or context's (column `key`) slices
 * starting before it, so only blocks that end there or later can hold
 * it: the earlier ones are not read. */
#define LAST_BLOCK_START(key)                                                                      \
    "(SELECT coalesce(max(min_time), 0) FROM trace_blocks WHERE run_id = ?1"                       \
    " AND tbl = 'slices' AND " key " = ?2 AND min_time < ?3)"
#define WINDOW_BEFORE(query, key)                                                                  \
    query(" AND block_end >= " LAST_BLOCK_START(                                                   \
        key) " AND start_time < ?3") " ORDER BY start_time DESC LIMIT 1"
#define WINDOW_INSIDE(query)                                                                       \
    query(" AND block_end >= ?3 AND block_start < ?4"                                              \
          " AND start_time >= ?3 AND start_time < ?4") " ORDER BY start_time"

#endif /* MCSIM_CLI_CHART_QUERY_INT_H */
