/*
 * A recorded run's verdicts stored and the run marked finished (`mcsim
 * run`, `mcsim qemu`, `mcsim run --seeds --record`): one transaction, once
 * the run's rows are in the file itself, so that a run whose rows or
 * verdicts are not all in the file never looks finished.
 */
#include "expect_int.h"

#include <stdio.h>

int expect_store(struct db *db, const struct scenario *s, const struct expect_result *r,
                 char *err, size_t err_len, const char **advice)
{
    sqlite3 *sq = db_sqlite(db);

    *advice = NULL;
    /* the write-ahead log into the file first: if that fails (a full
     * disk, an I/O error) the run must stay unfinished */
    if (db_unlog(db) != 0) {
        snprintf(err, err_len, "%s", db_errmsg(db));
        *advice = db_failure_advice(db);
        return -1;
    }
    if (sqlite3_exec(sq, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, err_len, "mcsim: %s", sqlite3_errmsg(sq));
        *advice = db_environment_advice(sq);
        return -1;
    }
    if (expect_record(sq, db_run_id(db), s, r, err, err_len) != 0 || db_finish_run(db) != 0) {
        if (err[0] == '\0')
            snprintf(err, err_len, "%s", db_errmsg(db));
        /* taken before the rollback, which resets the connection's error */
        *advice = db_environment_advice(sq) ? db_environment_advice(sq) : db_failure_advice(db);
        sqlite3_exec(sq, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, err_len, "mcsim: %s", sqlite3_errmsg(sq));
        *advice = db_environment_advice(sq);
        sqlite3_exec(sq, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
