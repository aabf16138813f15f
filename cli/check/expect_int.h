/*
 * Private to the expect module (expect.c: dispatch, deadlines, response
 * times, counts, recording and printing; expect_budget.c: budget:
 * respected): the run under evaluation and the query helpers both use.
 */
#ifndef MCSIM_CLI_EXPECT_INT_H
#define MCSIM_CLI_EXPECT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "acct/tacc.h"
#include "db/db.h"
#include "expect.h"

#define EXPECT_WHO_MAX 128

/* The run being evaluated, as its `runs` row describes it. */
struct expect_run {
    sqlite3 *db;
    int64_t run_id;
    const struct scenario *s;
    cycles_t allowance; /* one kernel entry, for budget: respected */
    uint8_t scheduler;  /* enum sched_mode */
    cycles_t duration;
    uint64_t cpu_hz;
    uint64_t timer_hz;  /* contexts hold whole ticks of this rate */
    char *errmsg;
    size_t errmsg_size;
    /* the run's accounting (every kind but budget: respected): accumulated
     * as it was recorded, or NULL until expect_acc scans the tables into
     * `scanned` */
    const struct tacc *acc;
    struct tacc scanned;
};

/* Set the diagnostic from SQLite's last message ("mcsim: DB: message");
 * returns -1. */
int expect_sql_fail(struct expect_run *run);

/* Prepare the SQL printed from fmt with ?1 bound to the run id; NULL
 * after setting the diagnostic. The caller finalizes the statement. */
sqlite3_stmt *expect_prepare(struct expect_run *run, const char *fmt, ...);

/* Step st: 0 with *row telling whether a row came, or -1 with the
 * diagnostic set. */
int expect_step(struct expect_run *run, sqlite3_stmt *st, bool *row);

/* Step a statement that yields one integer and finalize it: 0 with *out
 * set (0 when no row or NULL), or -1 with the diagnostic set. */
int expect_query_int(struct expect_run *run, sqlite3_stmt *st, int64_t *out);

/* A duration or an instant in cycles at cpu_hz, exactly, in the largest
 * unit of s, ms, us, ns that keeps it at least 1, with up to six decimals
 * (dec_duration: "4.5ms", "12.06611ms", "120ns"; "0" for 0). */
void expect_fmt_time(char *buf, size_t n, int64_t cycles, uint64_t cpu_hz);

/* Format out->detail, truncating to EXPECT_DETAIL_MAX. */
void expect_detail(struct expect_result *out, const char *fmt, ...);

/* The scenario name of thread index `thread` ("?" if out of range). */
const char *expect_thread_name(const struct expect_run *run, uint32_t thread);

/* The name of thread id `id` (0: the root task, EXPECT_ROOT_NAME), as the
 * threads table records it. */
#define EXPECT_ROOT_NAME "(root)" /* db_sink's name of the root task */
const char *expect_id_name(const struct expect_run *run, uint32_t id);

/* The run's accounting (acct/tacc.h), from which every verdict but
 * budget: respected's is made: the one given, else the tables scanned once
 * (tacc_scan); NULL after setting the diagnostic. */
const struct tacc *expect_acc(struct expect_run *run);

/* Whether thread id `id` (0: the root task) is one of a deadlines
 * expectation's: its threads, its criticality and above, or all. */
bool expect_in_set(const struct scn_expect *e, const struct scenario *s, uint32_t id);

/* Evaluate a count expectation (expect_count.c) for an applicable run. */
int expect_count(struct expect_run *run, const struct scn_expect *e, struct expect_result *out);

/* Evaluate budget: respected (expect_budget.c) for an applicable run. */
int expect_budget(struct expect_run *run, struct expect_result *out);

#endif /* MCSIM_CLI_EXPECT_INT_H */
