/*
 * mcsim_rows: the arena rows of the block being written, as a virtual
 * table (db_int.h). db_rows.c inserts a block with one statement per
 * table, INSERT OR FAIL INTO T (run_id, ...) SELECT RUN, c0, c1, ... FROM
 * mcsim_rows, after pointing db->arena.vt_* at the block's rows; the
 * columns are read from the arena as SQLite asks for them (no parameter
 * bound per value, no copy of the rows).
 *
 * It is eponymous-only (no xCreate): it needs no CREATE VIRTUAL TABLE,
 * exists on mcsim's own connection alone and is nothing in the file, so
 * the file reads the same with any SQLite and the schema does not change.
 * Its rows come in the arena order given, which is the order of their
 * rowids in the table.
 */
#include "db_int.h"

#include <stdio.h>
#include <string.h>

struct vrows_tab {
    sqlite3_vtab base;
    const struct db *db;
};

struct vrows_cursor {
    sqlite3_vtab_cursor base;
    uint32_t at;             /* index in vt_idx */
    struct db_row_vals vals; /* row vt_idx[at]'s values, set once the row is reached */
};

static int vrows_connect(sqlite3 *sq, void *aux, int argc, const char *const *argv,
                         sqlite3_vtab **out, char **err)
{
    char sql[32 + 4 * DB_ROW_COLS_MAX];
    size_t n = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE x(c0");
    struct vrows_tab *t;
    int rc;

    (void)argc, (void)argv, (void)err;
    for (int c = 1; c < DB_ROW_COLS_MAX && n < sizeof sql; c++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ",c%d", c);
    if (n < sizeof sql)
        snprintf(sql + n, sizeof sql - n, ")");
    rc = sqlite3_declare_vtab(sq, sql);
    if (rc != SQLITE_OK)
        return rc;
    t = sqlite3_malloc(sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    t->db = aux;
    *out = &t->base;
    return SQLITE_OK;
}

static int vrows_disconnect(sqlite3_vtab *t)
{
    sqlite3_free(t);
    return SQLITE_OK;
}

/* One way to read it: from the first row to the last. */
static int vrows_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
    (void)t;
    info->estimatedCost = DB_BLOCK_ROWS;
    info->estimatedRows = DB_BLOCK_ROWS;
    return SQLITE_OK;
}

static int vrows_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
    struct vrows_cursor *c = sqlite3_malloc(sizeof *c);

    (void)t;
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int vrows_close(sqlite3_vtab_cursor *c)
{
    sqlite3_free(c);
    return SQLITE_OK;
}

/* Row `at` reached: its values, all at once (one call per row rather
 * than per column). */
static void vrows_load(struct vrows_cursor *c)
{
    const struct db *db = ((const struct vrows_tab *)c->base.pVtab)->db;
    const struct db_arena *ar = &db->arena;

    if (c->at < ar->vt_n)
        db_row_tables[ar->vt_kind].fill(db, ar->vt_idx[c->at], &c->vals);
}

static int vrows_filter(sqlite3_vtab_cursor *c, int idx, const char *idx_str, int argc,
                        sqlite3_value **argv)
{
    (void)idx, (void)idx_str, (void)argc, (void)argv;
    ((struct vrows_cursor *)c)->at = 0;
    vrows_load((struct vrows_cursor *)c);
    return SQLITE_OK;
}

static int vrows_next(sqlite3_vtab_cursor *c)
{
    ((struct vrows_cursor *)c)->at++;
    vrows_load((struct vrows_cursor *)c);
    return SQLITE_OK;
}

static int vrows_eof(sqlite3_vtab_cursor *c)
{
    const struct db *db = ((const struct vrows_tab *)c->pVtab)->db;

    return ((struct vrows_cursor *)c)->at >= db->arena.vt_n;
}

/* Column col of the current row (the statements read only the table's
 * columns); SQLite starts every column as NULL. The texts are not copied
 * (SQLITE_STATIC): see struct db_row_vals. */
static int vrows_column(sqlite3_vtab_cursor *c, sqlite3_context *cx, int col)
{
    const struct db_row_vals *v = &((struct vrows_cursor *)c)->vals;

    switch (v->type[col]) {
    case DB_VAL_INT:
        sqlite3_result_int64(cx, v->val[col].i);
        break;
    case DB_VAL_TEXT:
        sqlite3_result_text(cx, v->val[col].s, -1, SQLITE_STATIC);
        break;
    default:
        break;
    }
    return SQLITE_OK;
}

static int vrows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
    *rowid = ((struct vrows_cursor *)c)->at;
    return SQLITE_OK;
}

static const sqlite3_module vrows_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous-only */
    .xConnect = vrows_connect,
    .xBestIndex = vrows_best_index,
    .xDisconnect = vrows_disconnect,
    .xDestroy = vrows_disconnect,
    .xOpen = vrows_open,
    .xClose = vrows_close,
    .xFilter = vrows_filter,
    .xNext = vrows_next,
    .xEof = vrows_eof,
    .xColumn = vrows_column,
    .xRowid = vrows_rowid,
};

int db_vrows_register(struct db *db)
{
    if (db->vrows)
        return 0;
    if (sqlite3_create_module(db->sq, "mcsim_rows", &vrows_module, db) != SQLITE_OK) {
        db_sqlite_error(db);
        return -1;
    }
    db->vrows = true;
    return 0;
}
