/*
 * Private to the refcase module: what refcase_compare.c and
 * refcase_events.c share while comparing a run (refcase.h is the public
 * surface).
 */
#ifndef MCSIM_TESTS_SUPPORT_REFCASE_INT_H
#define MCSIM_TESTS_SUPPORT_REFCASE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "refcase.h"

#define TIME_TEXT_MAX 32
#define PAIR_TEXT_MAX 80
#define COLUMN_WIDTH 30
#define LIST_ROWS_MAX 40

struct refcase_report {
    char *buf;
    size_t len;
    size_t used;
};

/* A comparison in progress: the run, its units, and the verdict so far. */
struct refcase_cmp {
    sqlite3 *db;
    int64_t run_id;
    cycles_t duration;
    uint64_t hz;
    struct refcase_report *r;
    int status; /* 0 equal, 1 something differs, -1 the run cannot be read */
};

/* Append to the report, printf-style; once full it ends in "...". */
void refcase_say(struct refcase_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Mark the comparison as failed (unless it already cannot be read). */
void refcase_differ(struct refcase_cmp *c);

/* Report an SQL failure reading `what` and mark the run unreadable. */
void refcase_db_fail(struct refcase_cmp *c, const char *what);

/* `t` cycles as text (TIME_TEXT_MAX bytes of buf) in the largest unit that
 * shows it exactly: 3ms, 3990us, 3990.001us, or cycles (12c). */
const char *refcase_time_text(const struct refcase_cmp *c, cycles_t t, char *buf);

/* A prepared statement with ?1 bound to the run id; NULL after reporting
 * the error (status -1). The caller finalizes it. */
sqlite3_stmt *refcase_prepare(struct refcase_cmp *c, const char *sql, const char *what);

/* Step `st`, a COUNT(*) query, and finalize it: the count, or -1 after
 * reporting the error. */
int64_t refcase_query_count(struct refcase_cmp *c, sqlite3_stmt *st, const char *what);

/* threads.thread_id of `name` in the run: 0 if found, 1 if the run has no
 * such thread (reported, the comparison fails), -1 on an SQL error. */
int refcase_thread_id(struct refcase_cmp *c, const char *name, int64_t *id);

/* The name of the thread whose id is column `col` of the current row of
 * `row` ("-" for NULL, "#id" for an unknown id), in buf (len bytes). */
const char *refcase_thread_name(struct refcase_cmp *c, sqlite3_stmt *row, int col, char *buf,
                                size_t len);

/* The comparisons of refcase_events.c; each appends what differs. */
void refcase_compare_events(struct refcase_cmp *c, const struct refcase_expected *e);
void refcase_compare_counts(struct refcase_cmp *c, const struct refcase_expected *e);
void refcase_compare_paid_by(struct refcase_cmp *c, const struct refcase_paid_by *pb);
void refcase_compare_aborted(struct refcase_cmp *c, const struct refcase_aborted *ab);

#endif /* MCSIM_TESTS_SUPPORT_REFCASE_INT_H */
