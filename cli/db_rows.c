/*
 * The trace rows of the SQLite sink (db_int.h, db_rows_): slices, jobs,
 * budget events, interrupts and events are queued per table and inserted
 * DB_ROWS_PER_INSERT at a time by one multi-row INSERT. A statement's
 * fixed cost (opening a cursor per table and index, starting and halting
 * the VM, resetting) was a third of the cost of recording a row inserted
 * alone; run DB_ROWS_PER_INSERT rows through one statement and it is paid
 * once.
 * The rows keep their order: the VALUES of one statement are inserted in
 * the order written, so rowids follow the order the sink received them.
 */
#include "db_int.h"

#include <stdio.h>

/* A table's columns after run_id, which is ?1 of every row. */
struct db_row_table {
    const char *name;
    const char *columns;
    int ncols; /* not counting run_id */
    void (*bind)(const struct db *db, sqlite3_stmt *st, int base, const union db_row *r);
};

/* ---- binding: the sink's "none" values become NULL ---- */

void db_bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

void db_bind_time(sqlite3_stmt *st, int i, cycles_t t)
{
    if (t == SINK_NO_TIME)
        sqlite3_bind_null(st, i);
    else
        db_bind_u64(st, i, t);
}

void db_bind_thread(sqlite3_stmt *st, int i, uint32_t thread)
{
    if (thread == SINK_NO_THREAD)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, thread);
}

/* A copy of the text per row would be a malloc, a memcpy and a free. */
void db_bind_text(sqlite3_stmt *st, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

/* Every parameter is bound for every row: bindings outlive a reset, and
 * the queue's statements keep theirs (run_id, bound once per run). The
 * texts bound are a scenario's names and trace kind names, alive until
 * the run ends; every queued row is inserted before run_end returns. */
static void bind_slice(const struct db *db, sqlite3_stmt *st, int b, const union db_row *u)
{
    const struct sink_slice *r = &u->slice;
    bool ntfn = r->sc_thread == SINK_NO_THREAD && r->sc_notification != SINK_NO_THREAD;

    db_bind_thread(st, b + 2, r->thread);
    db_bind_thread(st, b + 3, r->sc_thread);
    db_bind_text(st, b + 4, ntfn ? db->s->notifications[r->sc_notification].name : NULL);
    db_bind_time(st, b + 5, r->start);
    db_bind_time(st, b + 6, r->end);
}

static void bind_job(const struct db *db, sqlite3_stmt *st, int b, const union db_row *u)
{
    const struct sink_job *r = &u->job;

    (void)db;
    db_bind_thread(st, b + 2, r->thread);
    sqlite3_bind_int64(st, b + 3, r->job);
    db_bind_time(st, b + 4, r->release);
    db_bind_time(st, b + 5, r->start);
    db_bind_time(st, b + 6, r->finish);
    db_bind_time(st, b + 7, r->deadline);
    db_bind_time(st, b + 8, r->response);
    sqlite3_bind_int(st, b + 9, r->missed);
}

static const char *const db_budget_kind[] = {
    [BUDGET_EXHAUSTED] = "exhausted", [BUDGET_THROTTLE] = "throttle",
    [BUDGET_REPLENISH] = "replenish", [BUDGET_TIMEOUT_FAULT] = "timeout_fault",
    [BUDGET_EMERGENCY] = "emergency",
};

bool db_budget_kind_valid(enum sink_budget_kind kind)
{
    return (unsigned)kind < sizeof db_budget_kind / sizeof db_budget_kind[0];
}

static void bind_budget(const struct db *db, sqlite3_stmt *st, int b, const union db_row *u)
{
    const struct sink_budget_event *r = &u->budget;

    (void)db;
    db_bind_thread(st, b + 2, r->thread);
    db_bind_thread(st, b + 3, r->sc_thread);
    db_bind_time(st, b + 4, r->time);
    db_bind_text(st, b + 5, db_budget_kind[r->kind]);
    db_bind_u64(st, b + 6, r->amount);
}

static void bind_irq(const struct db *db, sqlite3_stmt *st, int b, const union db_row *u)
{
    const struct sink_irq *r = &u->irq;

    db_bind_text(st, b + 2, db->s->devices[r->device].name);
    sqlite3_bind_int64(st, b + 3, r->line);
    db_bind_time(st, b + 4, r->arrival);
    db_bind_time(st, b + 5, r->delivered);
    sqlite3_bind_int(st, b + 6, r->lost);
    db_bind_thread(st, b + 7, r->handler);
    db_bind_time(st, b + 8, r->handler_start);
}

static void bind_event(const struct db *db, sqlite3_stmt *st, int b, const union db_row *u)
{
    const struct sink_event *r = &u->event;

    (void)db;
    db_bind_u64(st, b + 2, r->seq);
    db_bind_time(st, b + 3, r->time);
    db_bind_text(st, b + 4, r->kind);
    db_bind_thread(st, b + 5, r->thread);
    db_bind_u64(st, b + 6, r->object);
    db_bind_u64(st, b + 7, r->arg);
}

static const struct db_row_table db_row_tables[ROW_KINDS] = {
    [ROW_SLICE] = {"slices", "thread_id, sc_thread_id, sc_notification, start_time, end_time", 5,
                   bind_slice},
    [ROW_JOB] = {"jobs",
                 "thread_id, job, release_time, start_time, finish_time, deadline_time,"
                 " response, missed",
                 8, bind_job},
    [ROW_BUDGET] = {"budget_events", "thread_id, sc_thread_id, time, kind, amount", 5, bind_budget},
    [ROW_IRQ] = {"irqs", "device, line, arrival, delivered, lost, handler, handler_start", 7,
                 bind_irq},
    [ROW_EVENT] = {"events", "seq, time, kind, thread_id, object, arg", 6, bind_event},
};

/* ---- statements ---- */

/* INSERT OR FAIL, not the default ABORT: an aborting statement that
 * inserts several rows must be able to undo its own rows, so SQLite keeps
 * a statement journal of every page it changes (a copy of each index
 * page touched, for every statement). A failure fails the whole run
 * anyway: db_fail rolls the open batch back. */
static int db_rows_sql(const struct db_row_table *t, int rows, char *sql, size_t size)
{
    size_t n = (size_t)snprintf(sql, size, "INSERT OR FAIL INTO %s (run_id, %s) VALUES", t->name,
                                t->columns);

    for (int r = 0; r < rows && n < size; r++) {
        n += (size_t)snprintf(sql + n, size - n, "%s(?1", r ? ", " : " ");
        for (int c = 0; c < t->ncols && n < size; c++)
            n += (size_t)snprintf(sql + n, size - n, ", ?%d", 2 + r * t->ncols + c);
        if (n < size)
            n += (size_t)snprintf(sql + n, size - n, ")");
    }
    return n < size ? 0 : -1;
}

static int db_rows_prepare_one(struct db *db, const struct db_row_table *t, int rows,
                               sqlite3_stmt **st)
{
    char sql[DB_ROWS_PER_INSERT * 96 + 256];

    if (*st)
        return 0;
    if (db_rows_sql(t, rows, sql, sizeof sql) != 0) {
        db_error(db, "internal error: the INSERT of %d rows into %s is too long", rows, t->name);
        return -1;
    }
    if (sqlite3_prepare_v3(db->sq, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        db_sqlite_error(db);
        return -1;
    }
    return 0;
}

int db_rows_begin(struct db *db)
{
    for (int k = 0; k < ROW_KINDS; k++) {
        struct db_queue *q = &db->rows[k];

        if (db_rows_prepare_one(db, &db_row_tables[k], 1, &q->one) != 0 ||
            db_rows_prepare_one(db, &db_row_tables[k], DB_ROWS_PER_INSERT, &q->many) != 0)
            return -1;
        q->n = 0;
        sqlite3_bind_int64(q->one, 1, db->run_id);
        sqlite3_bind_int64(q->many, 1, db->run_id);
    }
    return 0;
}

/* Run one bound statement to completion and leave it ready for reuse,
 * its bindings kept. */
static int db_rows_step(struct db *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return 0;
    db_sqlite_error(db);
    return -1;
}

static int db_rows_insert_full(struct db *db, enum db_row_kind k)
{
    const struct db_row_table *t = &db_row_tables[k];
    struct db_queue *q = &db->rows[k];

    for (uint32_t i = 0; i < q->n; i++)
        t->bind(db, q->many, (int)i * t->ncols, &q->row[i]);
    q->n = 0;
    return db_rows_step(db, q->many);
}

int db_rows_add(struct db *db, enum db_row_kind k, const union db_row *r)
{
    struct db_queue *q = &db->rows[k];

    q->row[q->n++] = *r;
    return q->n == DB_ROWS_PER_INSERT ? db_rows_insert_full(db, k) : 0;
}

int db_rows_flush(struct db *db)
{
    for (int k = 0; k < ROW_KINDS; k++) {
        const struct db_row_table *t = &db_row_tables[k];
        struct db_queue *q = &db->rows[k];
        uint32_t n = q->n;

        q->n = 0;
        for (uint32_t i = 0; i < n; i++) {
            t->bind(db, q->one, 0, &q->row[i]);
            if (db_rows_step(db, q->one) != 0)
                return -1;
        }
    }
    return 0;
}

void db_rows_discard(struct db *db)
{
    for (int k = 0; k < ROW_KINDS; k++) {
        db->rows[k].n = 0;
        if (db->rows[k].one)
            sqlite3_clear_bindings(db->rows[k].one);
        if (db->rows[k].many)
            sqlite3_clear_bindings(db->rows[k].many);
    }
}

void db_rows_release(struct db *db)
{
    for (int k = 0; k < ROW_KINDS; k++) {
        sqlite3_finalize(db->rows[k].one);
        sqlite3_finalize(db->rows[k].many);
        db->rows[k].one = db->rows[k].many = NULL;
    }
}
