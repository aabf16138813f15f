/*
 * Private to the db module (db.c: opening and schema; db_sink.c: the trace
 * sink): the handle's layout and the error helpers both files use.
 */
#ifndef MCSIM_CLI_DB_INT_H
#define MCSIM_CLI_DB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db.h"

/* The sink's statements, one per row kind, in struct db.st. */
enum db_stmt {
    ST_RUN,
    ST_THREAD,
    ST_SLICE,
    ST_JOB,
    ST_BUDGET,
    ST_IRQ,
    ST_EVENT,
    ST_EXPECT,
    ST_FINISH,
    ST_REFILL,
    ST_KSTATS,
    ST_FILE,
    ST_COUNT
};

struct db {
    sqlite3 *sq;
    char *path;
    char errmsg[DB_ERRMSG_MAX];
    sqlite3_stmt *st[ST_COUNT]; /* prepared by the sink's first run_begin */
    const struct scenario *s;   /* the run in progress, NULL between runs */
    int64_t run_id;
    int64_t created_at;
    uint32_t pending; /* rows in the open batch */
    bool failed;      /* the run in progress hit an error: refuse the rest */
};

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

#endif /* MCSIM_CLI_DB_INT_H */
