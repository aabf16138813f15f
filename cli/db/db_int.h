/*
 * Private to the db module (db.c: opening and schema; db_sink.c: the trace
 * sink; db_rows.c: its trace rows, inserted several at a time): the
 * handle's layout and the helpers the files share.
 */
#ifndef MCSIM_CLI_DB_INT_H
#define MCSIM_CLI_DB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db.h"

/* The sink's statements for the rows written one at a time, in
 * struct db.st. */
enum db_stmt { ST_RUN, ST_THREAD, ST_EXPECT, ST_FINISH, ST_REFILL, ST_KSTATS, ST_FILE, ST_COUNT };

struct db_row_vals; /* one held row's values (below) */

/* The trace rows, queued per table (db_rows.c). */
enum db_row_kind { ROW_SLICE, ROW_JOB, ROW_BUDGET, ROW_IRQ, ROW_EVENT, ROW_REFILL, ROW_KINDS };

union db_row {
    struct sink_slice slice;
    struct sink_job job;
    struct sink_budget_event budget;
    struct sink_irq irq;
    struct sink_event event;
    struct sink_refill refill;
};

/* What a block's rows share (db_rows.c): their table and the thread,
 * context, device or kind its queries select them by. */
struct db_block_key {
    uint8_t table;    /* enum db_row_kind */
    uint32_t a;       /* the thread (an interrupt's: its handler; a budget event's or a
                         refill's: only on a notification's context, else SINK_NO_THREAD) */
    uint32_t b;       /* slices, budget events, refills: the context's thread; irqs: the
                         device */
    const char *kind; /* budget events, events: the kind's name (a static string); or NULL */
};

struct db_block_state {
    struct db_block_key key;
    uint32_t n;  /* its rows in the arena */
    uint32_t at; /* db_rows_flush's scratch */
};

/* key_of of a row carried on another (db_carry.c): written with it. */
#define DB_KEY_CARRIED UINT32_MAX

/* The rows not yet written, and the statements that write them. */
struct db_arena {
    union db_row *row; /* DB_ARENA_ROWS rows, in the order received */
    uint32_t *key_of;  /* each row's index in keys, or DB_KEY_CARRIED */
    uint32_t *order;   /* db_rows_flush's scratch */
    uint64_t *seq;     /* each row's seq: the run's trace rows counted in the order received */
    uint64_t next_seq;
    uint32_t n;                  /* rows held */
    struct db_block_state *keys; /* the run's keys, in the order first seen */
    uint32_t n_keys, cap_keys;
    uint32_t *hash; /* index in keys + 1, or 0; hash_cap is a power of two */
    uint32_t hash_cap;
    /* insert[k]: INSERT into table k of the rows of mcsim_rows, prepared
     * when first needed (db_rows_insert) with run insert_run's id written
     * in (a literal: no parameter copied per row) */
    sqlite3_stmt *insert[ROW_KINDS];
    int64_t insert_run;
    sqlite3_stmt *block; /* INSERT of a trace_blocks row */
    /* the rows mcsim_rows gives (db_vrows.c): arena rows vt_idx[0 ..
     * vt_n), of table vt_kind */
    const uint32_t *vt_idx;
    uint32_t vt_n;
    enum db_row_kind vt_kind;
    /* db_carry.c: carried[2 i], carried[2 i + 1]: the rows row i carries
     * (index + 1, or 0): a slice's refills at its start and its end, a
     * job's interrupt (the first); cand_refill[2 c], [2 c + 1]: the latest
     * and the one before of context c's refill rows not carried yet
     * (index + 1, or 0), cand_irq likewise per handler; slots: contexts
     * and handlers 0 .. slots - 1 (the run's threads) */
    uint32_t *carried;
    uint32_t *cand_refill, *cand_irq;
    uint32_t slots;
};

struct db {
    sqlite3 *sq;
    char *path;
    char errmsg[DB_ERRMSG_MAX];
    sqlite3_stmt *st[ST_COUNT]; /* prepared by the sink's first run_begin */
    struct db_arena arena;      /* prepared by the same run_begin */
    const struct scenario *s;   /* the run in progress, NULL between runs */
    int64_t run_id;
    int64_t created_at;
    uint32_t pending;  /* rows in the open batch, queued ones included */
    bool failed;       /* the run in progress hit an error: refuse the rest */
    int code;          /* SQLite's extended code of the last error (db_sqlite_error) */
    bool defer_finish; /* run_end leaves finished = 0: db_finish_run marks it */
    bool vrows;        /* mcsim_rows is known to the connection (db_vrows_register) */
};

/* The schema, by version (db_schema.c): every version applies to the
 * file the previous ones made. */
extern const char db_schema_v1_sql[];
extern const char db_schema_v2_sql[];
extern const char db_schema_v3_sql[];
extern const char db_schema_v4_sql[];
extern const char db_schema_v5_sql[];    /* db_schema_v5.c */
extern const char db_schema_new_sql[];   /* a new file: versions 1 to 5 in one (db_schema_v5.c) */
extern const char db_schema_stats_sql[]; /* the stats views: applied after the last version */


/* Set db->errmsg to "mcsim: PATH: " and the formatted text. */
void db_error(struct db *db, const char *fmt, ...);

/* Set db->errmsg from SQLite's message for the last failed call. */
void db_sqlite_error(struct db *db);

/*
 * Abandon the run in progress: roll back the open batch (SQLite may already
 * have done so after SQLITE_FULL or SQLITE_IOERR) and make every later row
 * of the run fail, so that nothing is recorded after a gap. The diagnostic
 * must already be set. Returns -1.
 */
int db_fail(struct db *db);

/* Run SQL without results; on failure set the diagnostic and return -1. */
int db_exec(struct db *db, const char *sql);

/*
 * The trace rows (db_rows.c). db_rows_begin prepares the statements once
 * per handle and binds the run id of the run that db_run_begin has just
 * inserted. db_rows_add holds a row that the caller has checked (its
 * device and notification exist in db->s, its budget kind is valid) and
 * writes the arena's rows when it is full; db_rows_flush writes every row
 * held, in blocks, in the open transaction; db_rows_discard drops them and
 * forgets the bound texts (after a failure, and at the end of a run).
 * The failing ones set the diagnostic and return -1; the caller then
 * calls db_fail.
 */
int db_rows_begin(struct db *db, uint32_t threads);
int db_rows_add(struct db *db, enum db_row_kind k, const union db_row *r);
int db_rows_flush(struct db *db);
void db_rows_discard(struct db *db);

/* Finalize the statements of db_rows_begin and free the arena (at the end
 * of a run, and db_close). */
void db_rows_release(struct db *db);

/*
 * Rows carried on others (db_carry.c, schema version 5: db_schema_v5.c).
 * db_carry_alloc makes the arena's tables for `slots` threads (-1 when out
 * of memory); db_carry_reset forgets the candidates (the arena was
 * written); db_carry_add looks at arena row i as db_rows_add holds it: a
 * refill or an interrupt becomes a candidate, a slice or a job carries
 * the candidates that match it (their key_of becomes DB_KEY_CARRIED and
 * their key loses a row). db_carry_fill sets a slice's or a job's
 * carried columns, from v's column c on.
 */
int db_carry_alloc(struct db *db, uint32_t slots);
void db_carry_reset(struct db *db);
void db_carry_add(struct db *db, enum db_row_kind k, uint32_t i);
void db_carry_fill(const struct db *db, enum db_row_kind k, uint32_t i, struct db_row_vals *v,
                   int c);
void db_carry_free(struct db_arena *ar);

/* The values of one held row, as mcsim_rows gives them (db_vrows.c). */
enum db_val_type { DB_VAL_NULL, DB_VAL_INT, DB_VAL_TEXT };

#define DB_ROW_COLS_MAX 16 /* the most columns after run_id: slice_rows' */

struct db_row_vals {
    uint8_t type[DB_ROW_COLS_MAX]; /* enum db_val_type */
    union {
        int64_t i;
        const char *s; /* not copied: alive until the run ends */
    } val[DB_ROW_COLS_MAX];
};

/* Set column c of v (db_row_cols.c): as db_bind_* bind them (the sink's
 * "none" values are NULL). */
void db_val_u64(struct db_row_vals *v, int c, uint64_t x);
void db_val_time(struct db_row_vals *v, int c, cycles_t t);
void db_val_thread(struct db_row_vals *v, int c, uint32_t thread);
void db_val_text(struct db_row_vals *v, int c, const char *text);

/* A trace table as the arena's rows fill it (db_row_cols.c): its columns
 * after run_id, and the function that gives arena row i's values of
 * them, every one of columns 0 .. ncols - 1. */
struct db_row_table {
    const char *name;
    const char *columns;
    int ncols; /* not counting run_id */
    bool seq;  /* the table has the recorder's seq column (its fill function gives it) */
    void (*fill)(const struct db *db, uint32_t i, struct db_row_vals *v);
};

extern const struct db_row_table db_row_tables[ROW_KINDS];

/* budget_events.kind of each enum sink_budget_kind */
extern const char *const db_budget_kind[];

/*
 * The virtual table mcsim_rows (db_vrows.c): db_vrows_register makes it
 * known to the connection (once); its rows are then the arena rows that
 * db->arena.vt_idx and vt_n name, its columns c0 .. c15 those of
 * db_row_tables[vt_kind]. -1 and the diagnostic on failure.
 */
int db_vrows_register(struct db *db);

/*
 * Bind parameter i of st (db_row_cols.c): a u64 as SQLite's int64 (cycle
 * counts stay below 2^63; an object word above it is stored as its two's
 * complement); a time or a thread, NULL for the sink's SINK_NO_TIME and
 * SINK_NO_THREAD; a text or NULL, not copied (SQLITE_STATIC): it must
 * stay alive until the statement has been stepped and reset.
 */
void db_bind_u64(sqlite3_stmt *st, int i, uint64_t v);
void db_bind_time(sqlite3_stmt *st, int i, cycles_t t);
void db_bind_thread(sqlite3_stmt *st, int i, uint32_t thread);
void db_bind_text(sqlite3_stmt *st, int i, const char *text);

/* A budget event kind the budget_events table has a name for. */
bool db_budget_kind_valid(enum sink_budget_kind kind);

#endif /* MCSIM_CLI_DB_INT_H */
