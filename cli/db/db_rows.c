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
 * The rows of a block are inserted by one statement, INSERT ... SELECT
 * from the virtual table mcsim_rows (eponymous: it exists on mcsim's own
 * connection only, never in the file), whose rows are the block's arena
 * rows and whose columns read them where they are (a row's values set
 * once, when the cursor reaches it). Binding each value as a parameter of
 * a multi-row INSERT cost a call into SQLite and a copy of the value per
 * column, and a statement per 32 rows: bench/rm10.yaml's 65,544 rows cost
 * 51 M instructions more that way (of 460 M for the whole run).
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * run anyway: db_fail rolls the open batch back. The run's id is a
 * literal, not a parameter: SQLite copies a parameter's value into each
 * row (bench/rm10.yaml: 1.6 M instructions of 65,544 rows), and the
 * statements are prepared again for another run on the connection. */
static int db_rows_sql(const struct db_row_table *t, int64_t run_id, char *sql, size_t size)
{
    size_t n = (size_t)snprintf(sql, size, "INSERT OR FAIL INTO %s (run_id, %s) SELECT %lld",
                                t->name, t->columns, (long long)run_id);

    for (int c = 0; c < t->ncols && n < size; c++)
        n += (size_t)snprintf(sql + n, size - n, ", c%d", c);
    if (n < size)
        n += (size_t)snprintf(sql + n, size - n, " FROM mcsim_rows");
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

    if (db_arena_alloc(db) != 0 || db_carry_alloc(db, threads) != 0 || db_vrows_register(db) != 0)
        return -1;
    if (!ar->block &&
        db_prepare_sql(db,
                       "INSERT INTO trace_blocks (run_id, tbl, thread_id, sc_thread_id, device,"
                       " kind, first_row, last_row, min_time, max_time)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                       &ar->block) != 0)
        return -1;
    if (ar->insert_run != db->run_id)
        for (int k = 0; k < ROW_KINDS; k++) {
            sqlite3_finalize(ar->insert[k]);
            ar->insert[k] = NULL;
        }
    ar->insert_run = db->run_id;
    sqlite3_bind_int64(ar->block, 1, db->run_id);
    ar->n = 0;
    ar->n_keys = 0;
    ar->next_seq = 0;
    if (ar->hash)
        memset(ar->hash, 0, ar->hash_cap * sizeof *ar->hash);
    return 0;
}

/* The statement that inserts mcsim_rows' rows into table k, prepared
 * when first needed, with the run id written in; NULL after an error. */
static sqlite3_stmt *db_rows_insert(struct db *db, enum db_row_kind k)
{
    const struct db_row_table *t = &db_row_tables[k];
    sqlite3_stmt **st = &db->arena.insert[k];
    char sql[512 + 8 * DB_ROW_COLS_MAX];

    if (*st)
        return *st;
    if (db_rows_sql(t, db->arena.insert_run, sql, sizeof sql) != 0) {
        db_error(db, "internal error: the INSERT into %s is too long", t->name);
        return NULL;
    }
    if (db_prepare_sql(db, sql, st) != 0)
        return NULL;
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
    sqlite3_stmt *st = db_rows_insert(db, k);
    cycles_t lo = SINK_NO_TIME, hi = 0;

    if (!st)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        cycles_t rlo, rhi;

        db_row_times(k, &ar->row[idx[i]], &rlo, &rhi);
        if (rlo < lo)
            lo = rlo;
        if (rhi != SINK_NO_TIME && rhi > hi)
            hi = rhi;
    }
    ar->vt_kind = k;
    ar->vt_idx = idx;
    ar->vt_n = n;
    if (db_rows_step(db, st) != 0)
        return -1;
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
    if (ar->block)
        sqlite3_clear_bindings(ar->block);
}

void db_rows_release(struct db *db)
{
    struct db_arena *ar = &db->arena;

    for (int k = 0; k < ROW_KINDS; k++)
        sqlite3_finalize(ar->insert[k]);
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
