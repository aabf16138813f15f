/*
 * The trace tables' columns as the sink's rows give them (db_int.h,
 * db_row_tables): the values of a row held in the arena, read by the
 * mcsim_rows virtual table (db_vrows.c) when its block is written
 * (db_rows.c); and the binding of the rows written one at a time
 * (db_sink.c). The sink's "none" values become NULL.
 */
#include "db_int.h"

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

/* ---- a held row's values: the sink's "none" values become NULL ---- */

void db_val_u64(struct db_row_vals *v, int c, uint64_t x)
{
    v->type[c] = DB_VAL_INT;
    v->val[c].i = (int64_t)x;
}

void db_val_time(struct db_row_vals *v, int c, cycles_t t)
{
    if (t == SINK_NO_TIME)
        v->type[c] = DB_VAL_NULL;
    else
        db_val_u64(v, c, t);
}

void db_val_thread(struct db_row_vals *v, int c, uint32_t thread)
{
    if (thread == SINK_NO_THREAD)
        v->type[c] = DB_VAL_NULL;
    else
        db_val_u64(v, c, thread);
}

/* Not copied: a scenario's names and the kinds' names live until the run
 * ends, and every row held is written before. */
void db_val_text(struct db_row_vals *v, int c, const char *text)
{
    v->type[c] = text ? DB_VAL_TEXT : DB_VAL_NULL;
    v->val[c].s = text;
}

static void fill_slice(const struct db *db, uint32_t i, struct db_row_vals *v)
{
    const struct sink_slice *r = &db->arena.row[i].slice;
    bool ntfn = r->sc_thread == SINK_NO_THREAD && r->sc_notification != SINK_NO_THREAD;

    db_val_thread(v, 0, r->thread);
    db_val_thread(v, 1, r->sc_thread);
    db_val_text(v, 2, ntfn ? db->s->notifications[r->sc_notification].name : NULL);
    db_val_time(v, 3, r->start);
    db_val_time(v, 4, r->end);
    db_val_u64(v, 5, db->arena.seq[i]);
    db_carry_fill(db, ROW_SLICE, i, v, 6);
}

static void fill_job(const struct db *db, uint32_t i, struct db_row_vals *v)
{
    const struct sink_job *r = &db->arena.row[i].job;

    db_val_thread(v, 0, r->thread);
    db_val_u64(v, 1, r->job);
    db_val_time(v, 2, r->release);
    db_val_time(v, 3, r->start);
    db_val_time(v, 4, r->finish);
    db_val_time(v, 5, r->deadline);
    db_val_time(v, 6, r->response);
    db_val_u64(v, 7, r->missed);
    db_val_u64(v, 8, db->arena.seq[i]);
    db_carry_fill(db, ROW_JOB, i, v, 9);
}

const char *const db_budget_kind[] = {
    [BUDGET_EXHAUSTED] = "exhausted", [BUDGET_THROTTLE] = "throttle",
    [BUDGET_REPLENISH] = "replenish", [BUDGET_TIMEOUT_FAULT] = "timeout_fault",
    [BUDGET_EMERGENCY] = "emergency",
};

bool db_budget_kind_valid(enum sink_budget_kind kind)
{
    return (unsigned)kind < sizeof db_budget_kind / sizeof db_budget_kind[0];
}

static void fill_budget(const struct db *db, uint32_t i, struct db_row_vals *v)
{
    const struct sink_budget_event *r = &db->arena.row[i].budget;

    db_val_thread(v, 0, r->thread);
    db_val_thread(v, 1, r->sc_thread);
    db_val_time(v, 2, r->time);
    db_val_text(v, 3, db_budget_kind[r->kind]);
    db_val_u64(v, 4, r->amount);
    db_val_u64(v, 5, db->arena.seq[i]);
}

static void fill_irq(const struct db *db, uint32_t i, struct db_row_vals *v)
{
    const struct sink_irq *r = &db->arena.row[i].irq;

    db_val_text(v, 0, db->s->devices[r->device].name);
    db_val_u64(v, 1, r->line);
    db_val_time(v, 2, r->arrival);
    db_val_time(v, 3, r->delivered);
    db_val_u64(v, 4, r->lost);
    db_val_thread(v, 5, r->handler);
    db_val_time(v, 6, r->handler_start);
    db_val_u64(v, 7, db->arena.seq[i]);
}

static void fill_event(const struct db *db, uint32_t i, struct db_row_vals *v)
{
    const struct sink_event *r = &db->arena.row[i].event;

    db_val_u64(v, 0, r->seq);
    db_val_time(v, 1, r->time);
    db_val_text(v, 2, r->kind);
    db_val_thread(v, 3, r->thread);
    db_val_u64(v, 4, r->object);
    db_val_u64(v, 5, r->arg);
    if (r->arg2 == SINK_NO_ARG)
        v->type[6] = DB_VAL_NULL;
    else
        db_val_u64(v, 6, r->arg2);
}

static void fill_refill(const struct db *db, uint32_t i, struct db_row_vals *v)
{
    const struct sink_refill *r = &db->arena.row[i].refill;

    db_val_thread(v, 0, r->thread);
    db_val_thread(v, 1, r->sc_thread);
    db_val_time(v, 2, r->time);
    db_val_u64(v, 3, r->head_time);
    db_val_u64(v, 4, r->head_amount);
    db_val_u64(v, 5, r->count);
    db_val_u64(v, 6, r->max);
    db_val_u64(v, 7, db->arena.seq[i]);
}

const struct db_row_table db_row_tables[ROW_KINDS] = {
    [ROW_SLICE] = {"slice_rows",
                   "thread_id, sc_thread_id, sc_notification, start_time, end_time, seq,"
                   " start_head_time, start_head_amount, start_count, start_capacity, start_seq,"
                   " end_head_time, end_head_amount, end_count, end_capacity, end_seq",
                   16, true, fill_slice},
    [ROW_JOB] = {"job_rows",
                 "thread_id, job, release_time, start_time, finish_time, deadline_time,"
                 " response, missed, seq, irq_device, irq_line, irq_delivered, irq_handler_start,"
                 " irq_seq",
                 14, true, fill_job},
    [ROW_BUDGET] = {"budget_events", "thread_id, sc_thread_id, time, kind, amount, seq", 6, true,
                    fill_budget},
    [ROW_IRQ] = {"irq_rows", "device, line, arrival, delivered, lost, handler, handler_start, seq",
                 8, true, fill_irq},
    [ROW_EVENT] = {"events", "seq, time, kind, thread_id, object, arg, arg2", 7, false, fill_event},
    [ROW_REFILL] = {"refill_rows",
                    "thread_id, sc_thread_id, time, head_time, head_amount, count, capacity, seq",
                    8, true, fill_refill},
};

