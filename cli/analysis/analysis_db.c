/*
 * The `analysis` table (docs/database.md): one row per thread of a run,
 * the bound the analysis gives it under the run's scheduler. The table is
 * made when first written (CREATE TABLE IF NOT EXISTS), so databases of
 * every schema version take it and runs recorded without an analysis
 * have no rows there. Rows of a run are replaced as a whole, in one
 * transaction: nothing is half-written.
 */
#include "analysis/analysis.h"

#include <stdio.h>
#include <string.h>

#include <mcsim/bootinfo.h>

#include "util/sha256.h"

static const char create_sql[] =
    "CREATE TABLE IF NOT EXISTS analysis ("
    " run_id INTEGER NOT NULL REFERENCES runs (run_id), thread_id INTEGER NOT NULL,"
    " scheduler TEXT NOT NULL CHECK (scheduler = 'mcs' OR scheduler = 'classic'),"
    " work INTEGER, bound INTEGER, deadline INTEGER,"
    " verdict TEXT NOT NULL CHECK (verdict = 'schedulable' OR verdict = 'unschedulable' OR"
    " verdict = 'unknown' OR verdict = 'no jobs'),"
    " composition TEXT NOT NULL, reason TEXT NOT NULL,"
    " may_throttle INTEGER NOT NULL CHECK (may_throttle = 0 OR may_throttle = 1),"
    " may_lose_irq INTEGER NOT NULL CHECK (may_lose_irq = 0 OR may_lose_irq = 1),"
    " PRIMARY KEY (run_id, thread_id));";

static int fail(sqlite3 *sq, char *err, size_t len, const char *what)
{
    snprintf(err, len, "%s: %s", what, sqlite3_errmsg(sq));
    sqlite3_exec(sq, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static void bind_cycles(sqlite3_stmt *st, int col, bool present, cycles_t c)
{
    if (present && c != ANALYSIS_NO_BOUND && c <= INT64_MAX)
        sqlite3_bind_int64(st, col, (sqlite3_int64)c);
    else
        sqlite3_bind_null(st, col);
}

static int insert(sqlite3_stmt *st, int64_t run_id, const struct scenario *s,
                  const struct analysis_result *r, uint32_t i)
{
    const struct analysis_thread *t = &r->threads[i];
    char line[1024];
    bool jobs = t->verdict != ANALYSIS_NO_JOBS;
    analysis_compose(s, t, line, sizeof line);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1); /* threads.thread_id */
    sqlite3_bind_text(st, 3, r->scheduler == SCHED_CLASSIC ? "classic" : "mcs", -1,
                      SQLITE_STATIC);
    bind_cycles(st, 4, jobs, t->work);
    bind_cycles(st, 5, jobs, t->bound);
    bind_cycles(st, 6, t->has_deadline, t->deadline);
    sqlite3_bind_text(st, 7, analysis_verdict_name(t->verdict), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, line, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 9, t->reason, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 10, t->may_throttle);
    sqlite3_bind_int(st, 11, t->may_lose_irq);
    return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

int analysis_db_store(sqlite3 *sq, int64_t run_id, const struct scenario *s,
                      const struct analysis_result *r, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    char del[96];
    if (sqlite3_exec(sq, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return fail(sq, err, len, "cannot start a transaction");
    if (sqlite3_exec(sq, create_sql, NULL, NULL, NULL) != SQLITE_OK)
        return fail(sq, err, len, "cannot make the analysis table");
    snprintf(del, sizeof del, "DELETE FROM analysis WHERE run_id = %lld", (long long)run_id);
    if (sqlite3_exec(sq, del, NULL, NULL, NULL) != SQLITE_OK)
        return fail(sq, err, len, "cannot replace the run's analysis");
    if (sqlite3_prepare_v2(sq,
                           "INSERT INTO analysis VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                           "?10, ?11)",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(sq, err, len, "cannot prepare the analysis rows");
    for (uint32_t i = 0; i < r->n_threads; i++)
        if (insert(st, run_id, s, r, i) != 0) {
            sqlite3_finalize(st);
            return fail(sq, err, len, "cannot write the analysis rows");
        }
    sqlite3_finalize(st);
    if (sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(sq, err, len, "cannot commit the analysis");
    return 0;
}

int64_t analysis_db_find_run(sqlite3 *sq, const struct scenario *s, uint8_t scheduler)
{
    sqlite3_stmt *st;
    char hex[2 * SHA256_BYTES + 1];
    int64_t id = 0;
    sha256_hex(s->sha256, hex);
    if (sqlite3_prepare_v2(sq,
                           "SELECT MAX(run_id) FROM runs WHERE sha256 = ?1 AND scheduler = ?2 "
                           "AND finished = 1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, hex, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, scheduler == SCHED_CLASSIC ? "classic" : "mcs", -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

int analysis_db_observed(sqlite3 *sq, int64_t run_id, const struct scenario *s, cycles_t end,
                         cycles_t *worst)
{
    sqlite3_stmt *st;
    int rc = 0;
    for (uint32_t i = 0; i < s->n_threads; i++)
        worst[i] = ANALYSIS_NO_BOUND;
    /* a finished job's response; an unfinished one's age at the end */
    if (sqlite3_prepare_v2(sq,
                           "SELECT thread_id, MAX(COALESCE(response, ?2 - release_time))"
                           " FROM jobs WHERE run_id = ?1 GROUP BY thread_id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)end);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id >= 1 && id <= (int64_t)s->n_threads)
            worst[id - 1] = (cycles_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}
