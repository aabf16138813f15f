/*
 * The trace rows of the SQLite sink (db_int.h, db_rows_): slices, jobs,
 * budget events, interrupts, events and refills are written in blocks, with no
 * per-row index (interrupts and refills mostly on the rows of jobs and
 * slices: db_carry.c, schema version 5). A row is held in an arena until the arena is full or the
 * batch commits; then the arena's rows are inserted grouped by their block
 * key (a table and the thread, context or device queries select them by,
 * db_block_key), each group in the order the sink received it, as one
 * contiguous range of rowids, and one trace_blocks row says which run, key,
 * rowid range and time range the block holds.
 *
 * Why: an index whose new entries land in twenty places (one per thread)
 * costs a search from the root at every insert, about a microsecond a
 * row on the benchmark's machine, four times the cost of the row itself;
 * even an index appended to costs as much as the row. A block is found
 * through trace_blocks' indexes (one entry per block, hundreds of rows)
 * and its rows by rowid, so the queries of a thread or a context still
 * read only that thread's or context's rows (the run_* views, db.c).
 *
 * The rows of a block are inserted DB_ROWS_PER_INSERT at a time by one
 * multi-row INSERT: a statement's fixed cost (opening a cursor per table
 * and index, starting and halting the VM, resetting) is paid once. The
 * rest of a block goes in by the statements of 16, 8, ... 1 rows its
 * count has bits for: a statement per count up to DB_ROWS_PER_INSERT cost
 * more to prepare (32 statements a table, 56 M instructions a run of
 * bench/rm10.yaml) than it saved.
 */
#include "db_int.h"

_Static_assert(1u << (DB_INSERT_SIZES - 1) == DB_ROWS_PER_INSERT,
               "DB_INSERT_SIZES statements, the largest of DB_ROWS_PER_INSERT rows");

#include <stdio.h>

/* A table's columns after run_id, which is ?1 of every row. */
struct db_row_table {
    const char *name;
    const char *columns;
    int ncols; /* not counting run_id */
    bool seq;  /* the table has the recorder's seq column (the bind function binds it) */
    /* bind arena row i's columns as parameters base + 2 .. base + ncols + 1 */
    void (*bind)(const struct db *db, sqlite3_stmt *st, int base, uint32_t i);
};

#include <stdlib.h>
#include <string.h>

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
static void bind_slice(const struct db *db, sqlite3_stmt *st, int b, uint32_t i)
{
    const struct sink_slice *r = &db->arena.row[i].slice;
    bool ntfn = r->sc_thread == SINK_NO_THREAD && r->sc_notification != SINK_NO_THREAD;

    db_bind_thread(st, b + 2, r->thread);
    db_bind_thread(st, b + 3, r->sc_thread);
    db_bind_text(st, b + 4, ntfn ? db->s->notifications[r->sc_notification].name : NULL);
    db_bind_time(st, b + 5, r->start);
    db_bind_time(st, b + 6, r->end);
    db_bind_u64(st, b + 7, db->arena.seq[i]);
    db_carry_bind(db, st, b + 8, ROW_SLICE, i);
}

static void bind_job(const struct db *db, sqlite3_stmt *st, int b, uint32_t i)
{
    const struct sink_job *r = &db->arena.row[i].job;

    db_bind_thread(st, b + 2, r->thread);
    sqlite3_bind_int64(st, b + 3, r->job);
    db_bind_time(st, b + 4, r->release);
    db_bind_time(st, b + 5, r->start);
    db_bind_time(st, b + 6, r->finish);
    db_bind_time(st, b + 7, r->deadline);
    db_bind_time(st, b + 8, r->response);
    sqlite3_bind_int(st, b + 9, r->missed);
    db_bind_u64(st, b + 10, db->arena.seq[i]);
    db_carry_bind(db, st, b + 11, ROW_JOB, i);
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

static void bind_budget(const struct db *db, sqlite3_stmt *st, int b, uint32_t i)
{
    const struct sink_budget_event *r = &db->arena.row[i].budget;

    db_bind_thread(st, b + 2, r->thread);
    db_bind_thread(st, b + 3, r->sc_thread);
    db_bind_time(st, b + 4, r->time);
    db_bind_text(st, b + 5, db_budget_kind[r->kind]);
    db_bind_u64(st, b + 6, r->amount);
    db_bind_u64(st, b + 7, db->arena.seq[i]);
}

static void bind_irq(const struct db *db, sqlite3_stmt *st, int b, uint32_t i)
{
    const struct sink_irq *r = &db->arena.row[i].irq;

    db_bind_text(st, b + 2, db->s->devices[r->device].name);
    sqlite3_bind_int64(st, b + 3, r->line);
    db_bind_time(st, b + 4, r->arrival);
    db_bind_time(st, b + 5, r->delivered);
    sqlite3_bind_int(st, b + 6, r->lost);
    db_bind_thread(st, b + 7, r->handler);
    db_bind_time(st, b + 8, r->handler_start);
    db_bind_u64(st, b + 9, db->arena.seq[i]);
}

static void bind_event(const struct db *db, sqlite3_stmt *st, int b, uint32_t i)
{
    const struct sink_event *r = &db->arena.row[i].event;

    db_bind_u64(st, b + 2, r->seq);
    db_bind_time(st, b + 3, r->time);
    db_bind_text(st, b + 4, r->kind);
    db_bind_thread(st, b + 5, r->thread);
    db_bind_u64(st, b + 6, r->object);
    db_bind_u64(st, b + 7, r->arg);
    if (r->arg2 == SINK_NO_ARG)
        sqlite3_bind_null(st, b + 8);
    else
        db_bind_u64(st, b + 8, r->arg2);
}

static void bind_refill(const struct db *db, sqlite3_stmt *st, int b, uint32_t i)
{
    const struct sink_refill *r = &db->arena.row[i].refill;

    db_bind_thread(st, b + 2, r->thread);
    db_bind_thread(st, b + 3, r->sc_thread);
    db_bind_time(st, b + 4, r->time);
    db_bind_u64(st, b + 5, r->head_time);
    db_bind_u64(st, b + 6, r->head_amount);
    sqlite3_bind_int64(st, b + 7, r->count);
    sqlite3_bind_int64(st, b + 8, r->max);
    db_bind_u64(st, b + 9, db->arena.seq[i]);
}

static const struct db_row_table db_row_tables[ROW_KINDS] = {
    [ROW_SLICE] = {"slice_rows",
                   "thread_id, sc_thread_id, sc_notification, start_time, end_time, seq,"
                   " start_head_time, start_head_amount, start_count, start_capacity, start_seq,"
                   " end_head_time, end_head_amount, end_count, end_capacity, end_seq",
                   16, true, bind_slice},
    [ROW_JOB] = {"job_rows",
                 "thread_id, job, release_time, start_time, finish_time, deadline_time,"
                 " response, missed, seq, irq_device, irq_line, irq_delivered, irq_handler_start,"
                 " irq_seq",
                 14, true, bind_job},
    [ROW_BUDGET] = {"budget_events", "thread_id, sc_thread_id, time, kind, amount, seq", 6, true,
                    bind_budget},
    [ROW_IRQ] = {"irq_rows", "device, line, arrival, delivered, lost, handler, handler_start, seq",
                 8, true, bind_irq},
    [ROW_EVENT] = {"events", "seq, time, kind, thread_id, object, arg, arg2", 7, false, bind_event},
    [ROW_REFILL] = {"refill_rows",
                    "thread_id, sc_thread_id, time, head_time, head_amount, count, capacity, seq",
                    8, true, bind_refill},
};

/* trace_blocks.tbl of each table's blocks: version 4's names. */
static const char *const db_block_tbl[ROW_KINDS] = {
    [ROW_SLICE] = "slices", [ROW_JOB] = "jobs",     [ROW_BUDGET] = "budget_events",
    [ROW_IRQ] = "irqs",     [ROW_EVENT] = "events", [ROW_REFILL] = "refills",
};

/* ---- block keys ---- */

/* The key a row's block is found by (trace_blocks' thread_id,
 * sc_thread_id, device and kind columns) and the times it spans (min_time,
 * max_time: what a window query of the table compares). */
static struct db_block_key db_row_key(enum db_row_kind k, const union db_row *r)
{
    switch (k) {
    case ROW_SLICE:
        return (struct db_block_key){k, r->slice.thread, r->slice.sc_thread, NULL};
    case ROW_JOB:
        return (struct db_block_key){k, r->job.thread, SINK_NO_THREAD, NULL};
    case ROW_BUDGET: /* by context: the thread only names a notification's */
        return (struct db_block_key){
            k, r->budget.sc_thread == SINK_NO_THREAD ? r->budget.thread : SINK_NO_THREAD,
            r->budget.sc_thread, db_budget_kind[r->budget.kind]};
    case ROW_IRQ:
        return (struct db_block_key){k, r->irq.handler, r->irq.device, NULL};
    case ROW_REFILL: /* by context, as budget events */
        return (struct db_block_key){
            k, r->refill.sc_thread == SINK_NO_THREAD ? r->refill.thread : SINK_NO_THREAD,
            r->refill.sc_thread, NULL};
    default:
        return (struct db_block_key){k, r->event.thread, SINK_NO_THREAD, r->event.kind};
    }
}

static void db_row_times(enum db_row_kind k, const union db_row *r, cycles_t *lo, cycles_t *hi)
{
    switch (k) {
    case ROW_SLICE:
        *lo = r->slice.start, *hi = r->slice.end;
        break;
    case ROW_JOB:
        *lo = *hi = r->job.release;
        break;
    case ROW_BUDGET:
        *lo = *hi = r->budget.time;
        break;
    case ROW_IRQ:
        *lo = *hi = r->irq.arrival;
        break;
    case ROW_REFILL:
        *lo = *hi = r->refill.time;
        break;
    default:
        *lo = *hi = r->event.time;
        break;
    }
}

static uint32_t db_key_hash(const struct db_block_key *key)
{
    /* The kind's address: its name is a static string, one per kind (two
     * copies of a name would make two keys, each with blocks of its own).
     * Only where a key sits in the hash table depends on the address, not
     * the order keys are kept in. */
    uint64_t h = ((uint64_t)key->table << 56) ^ ((uint64_t)key->a << 24) ^ key->b ^
                 (uint64_t)(uintptr_t)key->kind;

    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static bool db_key_equal(const struct db_block_key *x, const struct db_block_key *y)
{
    return x->table == y->table && x->a == y->a && x->b == y->b && x->kind == y->kind;
}

/* Double the keys' room and rebuild the hash table at twice that size
 * (so it is never more than half full); nothing changes on failure. */
static int db_keys_grow(struct db *db)
{
    struct db_arena *ar = &db->arena;
    uint32_t cap = ar->cap_keys ? 2 * ar->cap_keys : 64;
    uint32_t hcap = 2 * cap;
    uint32_t *hash = calloc(hcap, sizeof *hash);
    struct db_block_state *keys = hash ? realloc(ar->keys, cap * sizeof *keys) : NULL;

    if (!keys) {
        free(hash);
        db_error(db, "out of memory");
        return -1;
    }
    ar->keys = keys;
    ar->cap_keys = cap;
    for (uint32_t i = 0; i < ar->n_keys; i++) {
        uint32_t h = db_key_hash(&keys[i].key) & (hcap - 1);

        while (hash[h])
            h = (h + 1) & (hcap - 1);
        hash[h] = i + 1;
    }
    free(ar->hash);
    ar->hash = hash;
    ar->hash_cap = hcap;
    return 0;
}

/* The index of the key's block state, made on first use; keys are kept in
 * the order first seen, which is the order their blocks are written. */
static int db_key_find(struct db *db, const struct db_block_key *key, uint32_t *out)
{
    struct db_arena *ar = &db->arena;
    uint32_t h;

    if (ar->n_keys == ar->cap_keys && db_keys_grow(db) != 0)
        return -1;
    h = db_key_hash(key) & (ar->hash_cap - 1);
    for (;; h = (h + 1) & (ar->hash_cap - 1)) {
        uint32_t i = ar->hash[h];

        if (!i)
            break;
        if (db_key_equal(&ar->keys[i - 1].key, key)) {
            *out = i - 1;
            return 0;
        }
    }
    ar->keys[ar->n_keys] = (struct db_block_state){.key = *key};
    ar->hash[h] = ar->n_keys + 1;
    *out = ar->n_keys++;
    return 0;
}

/* ---- statements ---- */

/* INSERT OR FAIL, not the default ABORT: an aborting statement that
 * inserts several rows must be able to undo its own rows, so SQLite keeps
 * a statement journal of every page it changes. A failure fails the whole
 * run anyway: db_fail rolls the open batch back. */
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

static int db_prepare_sql(struct db *db, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v3(db->sq, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        db_sqlite_error(db);
        return -1;
    }
    return 0;
}

static int db_arena_alloc(struct db *db)
{
    struct db_arena *ar = &db->arena;

    if (ar->row)
        return 0;
    ar->row = malloc(DB_ARENA_ROWS * sizeof *ar->row);
    ar->key_of = malloc(DB_ARENA_ROWS * sizeof *ar->key_of);
    ar->order = malloc(DB_ARENA_ROWS * sizeof *ar->order);
    ar->seq = malloc(DB_ARENA_ROWS * sizeof *ar->seq);
    if (!ar->row || !ar->key_of || !ar->order || !ar->seq) {
        db_error(db, "out of memory");
        return -1;
    }
    return 0;
}

int db_rows_begin(struct db *db, uint32_t threads)
{
    struct db_arena *ar = &db->arena;

    if (db_arena_alloc(db) != 0 || db_carry_alloc(db, threads) != 0)
        return -1;
    if (!ar->block &&
        db_prepare_sql(db,
                       "INSERT INTO trace_blocks (run_id, tbl, thread_id, sc_thread_id, device,"
                       " kind, first_row, last_row, min_time, max_time)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                       &ar->block) != 0)
        return -1;
    for (int k = 0; k < ROW_KINDS; k++)
        for (int m = 0; m < DB_INSERT_SIZES; m++)
            if (ar->insert[k][m])
                sqlite3_bind_int64(ar->insert[k][m], 1, db->run_id);
    sqlite3_bind_int64(ar->block, 1, db->run_id);
    ar->n = 0;
    ar->n_keys = 0;
    ar->next_seq = 0;
    if (ar->hash)
        memset(ar->hash, 0, ar->hash_cap * sizeof *ar->hash);
    return 0;
}

/* The statement that inserts m = 2^i rows (1 <= m <= DB_ROWS_PER_INSERT)
 * into table k, prepared when first needed, with the run id bound; NULL
 * after an error. */
static sqlite3_stmt *db_rows_insert(struct db *db, enum db_row_kind k, uint32_t i)
{
    const struct db_row_table *t = &db_row_tables[k];
    sqlite3_stmt **st = &db->arena.insert[k][i];
    uint32_t m = 1u << i;
    char sql[DB_ROWS_PER_INSERT * 160 + 256];

    if (*st)
        return *st;
    if (db_rows_sql(t, (int)m, sql, sizeof sql) != 0) {
        db_error(db, "internal error: the INSERT of %u rows into %s is too long", m, t->name);
        return NULL;
    }
    if (db_prepare_sql(db, sql, st) != 0)
        return NULL;
    sqlite3_bind_int64(*st, 1, db->run_id);
    return *st;
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

/* ---- writing a block ---- */

/* The block's trace_blocks row: its key, rowids and times. */
static int db_block_row(struct db *db, const struct db_block_state *b, int64_t last, uint32_t n,
                        cycles_t lo, cycles_t hi)
{
    sqlite3_stmt *st = db->arena.block;
    enum db_row_kind k = (enum db_row_kind)b->key.table;

    db_bind_text(st, 2, db_block_tbl[k]);
    db_bind_thread(st, 3, b->key.a);
    if (k == ROW_SLICE || k == ROW_BUDGET || k == ROW_REFILL)
        db_bind_thread(st, 4, b->key.b);
    else
        sqlite3_bind_null(st, 4);
    db_bind_text(st, 5, k == ROW_IRQ ? db->s->devices[b->key.b].name : NULL);
    db_bind_text(st, 6, b->key.kind);
    sqlite3_bind_int64(st, 7, last - (int64_t)n + 1);
    sqlite3_bind_int64(st, 8, last);
    db_bind_time(st, 9, lo);
    db_bind_time(st, 10, hi);
    return db_rows_step(db, st);
}

/* Insert the n arena rows idx[0..n) of one key, in that order: a new
 * rowid is one above the table's largest, so they get consecutive rowids,
 * the last one sqlite3_last_insert_rowid's. */
static int db_block_write(struct db *db, const struct db_block_state *b, const uint32_t *idx,
                          uint32_t n)
{
    struct db_arena *ar = &db->arena;
    enum db_row_kind k = (enum db_row_kind)b->key.table;
    const struct db_row_table *t = &db_row_tables[k];
    cycles_t lo = SINK_NO_TIME, hi = 0;
    uint32_t i = 0;

    while (i < n) {
        uint32_t size = DB_INSERT_SIZES - 1; /* the largest 2^size <= the rows left */
        while ((1u << size) > n - i)
            size--;
        uint32_t m = 1u << size;
        sqlite3_stmt *st = db_rows_insert(db, k, size);

        if (!st)
            return -1;
        for (uint32_t j = 0; j < m; j++, i++) {
            cycles_t rlo, rhi;

            t->bind(db, st, (int)j * t->ncols, idx[i]);
            db_row_times(k, &ar->row[idx[i]], &rlo, &rhi);
            if (rlo < lo)
                lo = rlo;
            if (rhi != SINK_NO_TIME && rhi > hi)
                hi = rhi;
        }
        if (db_rows_step(db, st) != 0)
            return -1;
    }
    return db_block_row(db, b, sqlite3_last_insert_rowid(db->sq), n, lo, hi);
}

/* Write every row of the arena, by key in the order the keys were first
 * seen (a stable counting sort of the arena by key), in blocks of at most
 * DB_BLOCK_ROWS rows. */
int db_rows_flush(struct db *db)
{
    struct db_arena *ar = &db->arena;
    uint32_t at = 0;

    if (ar->n == 0)
        return 0;
    for (uint32_t k = 0; k < ar->n_keys; k++) {
        ar->keys[k].at = at;
        at += ar->keys[k].n;
    }
    for (uint32_t i = 0; i < ar->n; i++)
        if (ar->key_of[i] != DB_KEY_CARRIED)
            ar->order[ar->keys[ar->key_of[i]].at++] = i;
    ar->n = 0;
    db_carry_reset(db);
    for (uint32_t k = 0; k < ar->n_keys; k++) {
        struct db_block_state *b = &ar->keys[k];
        uint32_t n = b->n;

        b->n = 0;
        for (uint32_t i = 0; i < n; i += DB_BLOCK_ROWS) {
            uint32_t m = n - i < DB_BLOCK_ROWS ? n - i : DB_BLOCK_ROWS;

            if (db_block_write(db, b, ar->order + b->at - n + i, m) != 0)
                return -1;
        }
    }
    return 0;
}

int db_rows_add(struct db *db, enum db_row_kind k, const union db_row *r)
{
    struct db_arena *ar = &db->arena;
    struct db_block_key key = db_row_key(k, r);
    uint32_t i;

    if (ar->n == DB_ARENA_ROWS && db_rows_flush(db) != 0)
        return -1;
    if (db_key_find(db, &key, &i) != 0)
        return -1;
    ar->row[ar->n] = *r;
    ar->seq[ar->n] = db_row_tables[k].seq ? ar->next_seq++ : 0;
    ar->key_of[ar->n] = i;
    ar->keys[i].n++;
    db_carry_add(db, k, ar->n++);
    return 0;
}

void db_rows_discard(struct db *db)
{
    struct db_arena *ar = &db->arena;

    ar->n = 0;
    for (uint32_t k = 0; k < ar->n_keys; k++)
        ar->keys[k].n = 0;
    if (ar->cand_refill)
        db_carry_reset(db);
    for (int k = 0; k < ROW_KINDS; k++)
        for (int m = 0; m < DB_INSERT_SIZES; m++)
            if (ar->insert[k][m])
                sqlite3_clear_bindings(ar->insert[k][m]);
    if (ar->block)
        sqlite3_clear_bindings(ar->block);
}

void db_rows_release(struct db *db)
{
    struct db_arena *ar = &db->arena;

    for (int k = 0; k < ROW_KINDS; k++)
        for (int m = 0; m < DB_INSERT_SIZES; m++)
            sqlite3_finalize(ar->insert[k][m]);
    sqlite3_finalize(ar->block);
    ar->block = NULL;
    free(ar->row);
    free(ar->key_of);
    free(ar->order);
    free(ar->seq);
    free(ar->keys);
    free(ar->hash);
    db_carry_free(ar);
    *ar = (struct db_arena){0};
}
