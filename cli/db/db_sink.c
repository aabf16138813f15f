/*
 * The SQLite trace sink (db.h, db_sink): statements prepared once per
 * handle and reused with sqlite3_reset; the trace rows are held and
 * written in blocks, several rows per statement, with no per-row index
 * (db_rows.c); rows accumulate in one transaction committed every
 * DB_BATCH_ROWS rows (a commit writes and may sync the log), which with
 * the blocks makes recording cheap: under a microsecond a row.
 */
#include "db_int.h"

#include <stdio.h>

#include <mcsim/bootinfo.h>

static const char *const db_stmt_sql[ST_COUNT] = {
    [ST_RUN] = "INSERT INTO runs (scenario, path, sha256, seed, duration, cpu_hz, timer_hz,"
               " scheduler, hal, version, created_at, finished, trace) VALUES (?1, ?2, ?3,"
               " ?4, ?5, ?6, ?7, ?8, ?9, ?10, strftime('%Y-%m-%dT%H:%M:%SZ', ?11,"
               " 'unixepoch'), 0, ?12)",
    [ST_THREAD] = "INSERT INTO threads (run_id, thread_id, name, priority, criticality,"
                  " criticality_rank, budget, period, deadline, passive, sporadic)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    [ST_EXPECT] = "INSERT OR REPLACE INTO expectations (run_id, idx, text, passed, detail,"
                  " applicable) VALUES (?1, ?2, ?3, ?4, ?5, 1)",
    [ST_FINISH] = "UPDATE runs SET finished = 1 WHERE run_id = ?1",
    [ST_REFILL] = "INSERT INTO final_refills (run_id, thread_id, idx, time, amount)"
                  " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_KSTATS] = "INSERT INTO kernel_stats (run_id, thread_id, kind, entries, cycles,"
                  " decisions, decision_cycles, sched_cycles, timer_programs, timer_cycles)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_FILE] = "INSERT OR IGNORE INTO scenario_files (sha256, text) VALUES (?1, ?2)",
};

static const char *const db_entry_kind[] = {
    [ENTRY_SYSCALL] = "syscall", [ENTRY_IRQ] = "irq", [ENTRY_TIMER] = "timer",
    [ENTRY_EXIT] = "exit",
};

static int db_prepare_all(struct db *db)
{
    for (int i = 0; i < ST_COUNT; i++) {
        if (!db->st[i] && sqlite3_prepare_v3(db->sq, db_stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                             &db->st[i], NULL) != SQLITE_OK) {
            db_sqlite_error(db);
            return -1;
        }
    }
    return 0;
}

/* Run one bound statement to completion and leave it ready for reuse. */
static int db_step(struct db *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    if (rc != SQLITE_DONE)
        db_sqlite_error(db);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- the run and its threads ---- */

static const char *db_scheduler_name(uint8_t mode)
{
    return mode == SCHED_CLASSIC ? "classic" : "mcs";
}

/* The scenario's text, once per distinct file (by its sha256), so that
 * `mcsim check` can read a run's expectations from the database alone. */
static int db_insert_file(struct db *db, const struct scenario *s, const char *hex)
{
    sqlite3_stmt *st = db->st[ST_FILE];

    if (!s->text)
        return 0;
    db_bind_text(st, 1, hex);
    sqlite3_bind_text(st, 2, s->text, (int)s->text_len, SQLITE_STATIC);
    return db_step(db, st);
}

static int db_insert_run(struct db *db, const struct scenario *s, const struct sink_run_meta *m)
{
    sqlite3_stmt *st = db->st[ST_RUN];
    char hex[2 * sizeof s->sha256 + 1];

    for (size_t i = 0; i < sizeof s->sha256; i++)
        snprintf(hex + 2 * i, 3, "%02x", s->sha256[i]);
    db_bind_text(st, 1, s->name);
    db_bind_text(st, 2, s->path);
    db_bind_text(st, 3, hex);
    db_bind_u64(st, 4, m->seed);
    db_bind_u64(st, 5, m->duration);
    db_bind_u64(st, 6, s->cpu_hz);
    db_bind_u64(st, 7, s->timer_hz);
    db_bind_text(st, 8, db_scheduler_name(m->scheduler));
    db_bind_text(st, 9, m->hal);
    db_bind_text(st, 10, m->version);
    sqlite3_bind_int64(st, 11, db->created_at);
    db_bind_text(st, 12, m->trace_full ? "full" : "sched");
    if (db_step(db, st) != 0)
        return -1;
    db->run_id = sqlite3_last_insert_rowid(db->sq);
    return db_insert_file(db, s, hex);
}

/* The root task: thread 0, at the highest priority, with a round-robin
 * context sized by the simulator (not recorded: it is not the scenario's). */
static int db_insert_root(struct db *db, const struct scenario *s)
{
    sqlite3_stmt *st = db->st[ST_THREAD];

    sqlite3_bind_int64(st, 1, db->run_id);
    sqlite3_bind_int64(st, 2, 0);
    db_bind_text(st, 3, "(root)");
    sqlite3_bind_int64(st, 4, s->priorities ? s->priorities - 1 : 255);
    sqlite3_bind_int(st, 10, 0);
    sqlite3_bind_int(st, 11, 0);
    return db_step(db, st); /* criticality, rank, budget, period, deadline: NULL */
}

static int db_insert_thread(struct db *db, const struct scenario *s, uint32_t i)
{
    const struct scn_thread *t = &s->threads[i];
    sqlite3_stmt *st = db->st[ST_THREAD];

    sqlite3_bind_int64(st, 1, db->run_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
    db_bind_text(st, 3, t->name);
    sqlite3_bind_int64(st, 4, t->priority);
    db_bind_text(st, 5, t->criticality < s->n_levels ? s->levels[t->criticality] : NULL);
    sqlite3_bind_int64(st, 6, t->criticality);
    if (t->sc.present) {
        db_bind_u64(st, 7, t->sc.budget);
        db_bind_u64(st, 8, t->sc.period);
    }
    if (t->has_deadline)
        db_bind_u64(st, 9, t->deadline);
    sqlite3_bind_int(st, 10, t->passive);
    sqlite3_bind_int(st, 11, t->sc.present && t->sc.sporadic);
    return db_step(db, st);
}

/* The run row and the threads are committed at once, before any trace
 * row, so that a run interrupted at any later point is visible as
 * unfinished. */
static int db_run_begin(void *self, const struct scenario *s, const struct sink_run_meta *m)
{
    struct db *db = self;

    if (db->s && !db->failed) {
        db_error(db, "a run is already in progress (run %lld)", (long long)db->run_id);
        return -1;
    }
    db->errmsg[0] = '\0';
    db->s = NULL;
    db->failed = false;
    db->pending = 0;
    if (db_prepare_all(db) != 0 || db_exec(db, "BEGIN IMMEDIATE") != 0)
        return db_fail(db);
    if (db_insert_run(db, s, m) != 0 || db_rows_begin(db, s->n_threads + 1) != 0 || db_insert_root(db, s) != 0)
        return db_fail(db);
    for (uint32_t i = 0; i < s->n_threads; i++) {
        if (db_insert_thread(db, s, i) != 0)
            return db_fail(db);
    }
    if (db_exec(db, "COMMIT") != 0)
        return db_fail(db);
    db->s = s;
    return 0;
}

/* ---- trace rows ---- */

/* Check that a row may be written and open a batch if none is open;
 * returns 0, or -1 after a failure. */
static int db_row_check(struct db *db)
{
    if (db->failed)
        return -1;
    if (!db->s) {
        db_error(db, "no run in progress");
        return -1;
    }
    if (sqlite3_get_autocommit(db->sq) && db_exec(db, "BEGIN") != 0)
        return db_fail(db);
    return 0;
}

/* The statement of a row written at once, with the run id bound; NULL
 * after a failure. */
static sqlite3_stmt *db_row(struct db *db, enum db_stmt k)
{
    if (db_row_check(db) != 0)
        return NULL;
    sqlite3_bind_int64(db->st[k], 1, db->run_id);
    return db->st[k];
}

/* A row is in (or queued): commit the batch once it is DB_BATCH_ROWS
 * rows, the queued ones inserted first. */
static int db_row_counted(struct db *db)
{
    if (++db->pending < DB_BATCH_ROWS)
        return 0;
    db->pending = 0;
    if (db_rows_flush(db) != 0 || db_exec(db, "COMMIT") != 0)
        return db_fail(db);
    return 0;
}

static int db_row_done(struct db *db, sqlite3_stmt *st)
{
    if (db_step(db, st) != 0)
        return db_fail(db);
    return db_row_counted(db);
}

/* Queue a trace row the caller has checked. */
static int db_row_queue(struct db *db, enum db_row_kind k, const union db_row *r)
{
    if (db_rows_add(db, k, r) != 0)
        return db_fail(db);
    return db_row_counted(db);
}

/* A row names something the scenario does not have: an engine bug. */
static int db_bad_index(struct db *db, sqlite3_stmt *st, const char *what, uint32_t i)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    db_error(db, "internal error: trace row names %s %u, which the scenario does not have", what,
             i);
    return db_fail(db);
}

static int db_slice(void *self, const struct sink_slice *r)
{
    struct db *db = self;

    if (db_row_check(db) != 0)
        return -1;
    if (r->sc_thread == SINK_NO_THREAD && r->sc_notification != SINK_NO_THREAD &&
        r->sc_notification >= db->s->n_notifications)
        return db_bad_index(db, NULL, "notification", r->sc_notification);
    return db_row_queue(db, ROW_SLICE, &(union db_row){.slice = *r});
}

static int db_job(void *self, const struct sink_job *r)
{
    struct db *db = self;

    if (db_row_check(db) != 0)
        return -1;
    return db_row_queue(db, ROW_JOB, &(union db_row){.job = *r});
}

static int db_budget_event(void *self, const struct sink_budget_event *r)
{
    struct db *db = self;

    if (db_row_check(db) != 0)
        return -1;
    if (!db_budget_kind_valid(r->kind))
        return db_bad_index(db, NULL, "budget event kind", (uint32_t)r->kind);
    return db_row_queue(db, ROW_BUDGET, &(union db_row){.budget = *r});
}

static int db_irq(void *self, const struct sink_irq *r)
{
    struct db *db = self;

    if (db_row_check(db) != 0)
        return -1;
    if (r->device >= db->s->n_devices)
        return db_bad_index(db, NULL, "device", r->device);
    return db_row_queue(db, ROW_IRQ, &(union db_row){.irq = *r});
}

static int db_event(void *self, const struct sink_event *r)
{
    struct db *db = self;

    if (db_row_check(db) != 0)
        return -1;
    return db_row_queue(db, ROW_EVENT, &(union db_row){.event = *r});
}

static int db_refill(void *self, const struct sink_refill *r)
{
    struct db *db = self;

    if (db_row_check(db) != 0)
        return -1;
    return db_row_queue(db, ROW_REFILL, &(union db_row){.refill = *r});
}

static int db_kernel_stats(void *self, const struct sink_kernel_stats *r)
{
    struct db *db = self;
    sqlite3_stmt *st = db_row(db, ST_KSTATS);

    if (!st)
        return -1;
    if ((unsigned)r->kind >= sizeof db_entry_kind / sizeof db_entry_kind[0])
        return db_bad_index(db, st, "kernel entry kind", (uint32_t)r->kind);
    db_bind_thread(st, 2, r->thread);
    db_bind_text(st, 3, db_entry_kind[r->kind]);
    db_bind_u64(st, 4, r->entries);
    db_bind_u64(st, 5, r->cycles);
    db_bind_u64(st, 6, r->decisions);
    db_bind_u64(st, 7, r->decision_cycles);
    db_bind_u64(st, 8, r->sched_cycles);
    db_bind_u64(st, 9, r->timer_programs);
    db_bind_u64(st, 10, r->timer_cycles);
    return db_row_done(db, st);
}

static int db_final_refill(void *self, const struct sink_final_refill *r)
{
    struct db *db = self;
    sqlite3_stmt *st = db_row(db, ST_REFILL);

    if (!st)
        return -1;
    db_bind_thread(st, 2, r->thread);
    sqlite3_bind_int64(st, 3, r->idx);
    db_bind_u64(st, 4, r->time);
    db_bind_u64(st, 5, r->amount);
    return db_row_done(db, st);
}

static int db_expectation(void *self, const struct sink_expectation *r)
{
    struct db *db = self;
    sqlite3_stmt *st = db_row(db, ST_EXPECT);

    if (!st)
        return -1;
    sqlite3_bind_int64(st, 2, r->idx);
    db_bind_text(st, 3, r->text);
    sqlite3_bind_int(st, 4, r->passed);
    db_bind_text(st, 5, r->detail);
    return db_row_done(db, st);
}

/* finished = 1 is written in the same transaction as the last rows: the
 * run is either complete and marked so, or unfinished (unless the
 * commands mark it later, with its verdicts: db_defer_finish). */
static int db_run_end(void *self, bool finished)
{
    struct db *db = self;
    sqlite3_stmt *st = db_row(db, ST_FINISH);

    if (!st)
        return -1;
    if (db_rows_flush(db) != 0 || (finished && !db->defer_finish && db_step(db, st) != 0))
        return db_fail(db);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (db_exec(db, "COMMIT") != 0)
        return db_fail(db);
    /* The arena and the INSERTs are made again by the next run: what
     * follows a run (checks, charts) needs memory more than they do. */
    db_rows_release(db);
    db->s = NULL;
    db->pending = 0;
    return 0;
}

void db_defer_finish(struct db *db)
{
    db->defer_finish = true;
}

int db_finish_run(struct db *db)
{
    sqlite3_stmt *st;
    int rc;

    if (db->run_id < 0 || sqlite3_prepare_v2(db->sq, "UPDATE runs SET finished = 1 WHERE run_id = ?1",
                                             -1, &st, NULL) != SQLITE_OK) {
        db_sqlite_error(db);
        return -1;
    }
    sqlite3_bind_int64(st, 1, db->run_id);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        db_sqlite_error(db);
        return -1;
    }
    return 0;
}

static const struct trace_sink_ops db_sink_ops = {
    .run_begin = db_run_begin,
    .slice = db_slice,
    .job = db_job,
    .budget_event = db_budget_event,
    .irq = db_irq,
    .event = db_event,
    .refill = db_refill,
    .expectation = db_expectation,
    .final_refill = db_final_refill,
    .kernel_stats = db_kernel_stats,
    .run_end = db_run_end,
};

struct trace_sink db_sink(struct db *db, int64_t created_at)
{
    db->created_at = created_at;
    return (struct trace_sink){.ops = &db_sink_ops, .self = db};
}
