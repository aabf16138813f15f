/*
 * Schema version 5 (cli/db/db_schema_v5.c, db_carry.c): interrupts carried
 * on job rows and refill lists on slice rows lose nothing.
 *
 * - Every scenario, reference case and refill test scenario, under both
 *   schedulers (the scenarios also with --trace full): the rows the
 *   recorder handed the database (slices, jobs, interrupts, refills,
 *   captured by a sink in front of db_sink and written out as version 4's
 *   tables hold them, seq counted as db_rows.c counts it) equal what the
 *   views slices, jobs, irqs, refills and run_slices, run_jobs, run_irqs,
 *   run_refills return, row for row, ordered by seq; and the corpus both
 *   carries rows and leaves some on their own.
 * - tests/data/db/v4.db, written by version 4 (mcsim at cb5b825: three
 *   runs of scenarios/network_driver.yaml, lo_overrun.yaml under classic
 *   and shared_server.yaml, 30 ms each; lost interrupts, interrupts that
 *   woke nobody, refills), opened for writing becomes version 5 with every
 *   table, view and stats row as it was (rowids, blocks and all), and a
 *   run appended to it reads back right.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "db/db.h"
#include "engine.h"
#include "load/load.h"
#include "sqlq.h"
#include "scnload.h"
#include "util/diag.h"
#include "workdir.h"

/* ---- the rows the recorder handed the database ---- */

enum { T_SLICES, T_JOBS, T_IRQS, T_REFILLS, T_COUNT };

static const char *const table_name[T_COUNT] = {"slices", "jobs", "irqs", "refills"};

/* The views' columns of version 4's tables. */
static const char *const table_cols[T_COUNT] = {
    "run_id, thread_id, sc_thread_id, sc_notification, start_time, end_time, seq",
    "run_id, thread_id, job, release_time, start_time, finish_time, deadline_time, response,"
    " missed, seq",
    "run_id, device, line, arrival, delivered, lost, handler, handler_start, seq",
    "run_id, thread_id, sc_thread_id, time, head_time, head_amount, count, capacity, seq",
};

struct capture {
    struct trace_sink next;
    const struct scenario *s;
    uint64_t seq; /* slices, jobs, budget events, interrupts, refills: db_rows.c's count */
    char *text[T_COUNT];
    size_t len[T_COUNT];
    FILE *f[T_COUNT];
};

static void put_u(FILE *f, uint64_t v, uint64_t none)
{
    if (v == none)
        fputs("|NULL", f);
    else
        fprintf(f, "|%llu", (unsigned long long)v);
}

static int cap_run_begin(void *self, const struct scenario *s, const struct sink_run_meta *m)
{
    struct capture *c = self;

    c->s = s;
    return c->next.ops->run_begin(c->next.self, s, m);
}

static int cap_slice(void *self, const struct sink_slice *r)
{
    struct capture *c = self;
    FILE *f = c->f[T_SLICES];
    bool ntfn = r->sc_thread == SINK_NO_THREAD && r->sc_notification != SINK_NO_THREAD;

    fputs("1", f);
    put_u(f, r->thread, SINK_NO_THREAD);
    put_u(f, r->sc_thread, SINK_NO_THREAD);
    fprintf(f, "|%s", ntfn ? c->s->notifications[r->sc_notification].name : "NULL");
    put_u(f, r->start, SINK_NO_TIME);
    put_u(f, r->end, SINK_NO_TIME);
    fprintf(f, "|%llu\n", (unsigned long long)c->seq++);
    return c->next.ops->slice(c->next.self, r);
}

static int cap_job(void *self, const struct sink_job *r)
{
    struct capture *c = self;
    FILE *f = c->f[T_JOBS];

    fputs("1", f);
    put_u(f, r->thread, SINK_NO_THREAD);
    fprintf(f, "|%u", r->job);
    put_u(f, r->release, SINK_NO_TIME);
    put_u(f, r->start, SINK_NO_TIME);
    put_u(f, r->finish, SINK_NO_TIME);
    put_u(f, r->deadline, SINK_NO_TIME);
    put_u(f, r->response, SINK_NO_TIME);
    fprintf(f, "|%d|%llu\n", r->missed, (unsigned long long)c->seq++);
    return c->next.ops->job(c->next.self, r);
}

static int cap_budget(void *self, const struct sink_budget_event *r)
{
    struct capture *c = self;

    c->seq++;
    return c->next.ops->budget_event(c->next.self, r);
}

static int cap_irq(void *self, const struct sink_irq *r)
{
    struct capture *c = self;
    FILE *f = c->f[T_IRQS];

    fprintf(f, "1|%s|%u", c->s->devices[r->device].name, r->line);
    put_u(f, r->arrival, SINK_NO_TIME);
    put_u(f, r->delivered, SINK_NO_TIME);
    fprintf(f, "|%d", r->lost);
    put_u(f, r->handler, SINK_NO_THREAD);
    put_u(f, r->handler_start, SINK_NO_TIME);
    fprintf(f, "|%llu\n", (unsigned long long)c->seq++);
    return c->next.ops->irq(c->next.self, r);
}

static int cap_event(void *self, const struct sink_event *r)
{
    struct capture *c = self;

    return c->next.ops->event(c->next.self, r);
}

static int cap_refill(void *self, const struct sink_refill *r)
{
    struct capture *c = self;
    FILE *f = c->f[T_REFILLS];

    fputs("1", f);
    put_u(f, r->thread, SINK_NO_THREAD);
    put_u(f, r->sc_thread, SINK_NO_THREAD);
    put_u(f, r->time, SINK_NO_TIME);
    fprintf(f, "|%llu|%llu|%u|%u|%llu\n", (unsigned long long)r->head_time,
            (unsigned long long)r->head_amount, r->count, r->max, (unsigned long long)c->seq++);
    return c->next.ops->refill(c->next.self, r);
}

static int cap_expectation(void *self, const struct sink_expectation *r)
{
    struct capture *c = self;

    return c->next.ops->expectation(c->next.self, r);
}

static int cap_final_refill(void *self, const struct sink_final_refill *r)
{
    struct capture *c = self;

    return c->next.ops->final_refill(c->next.self, r);
}

static int cap_kernel_stats(void *self, const struct sink_kernel_stats *r)
{
    struct capture *c = self;

    return c->next.ops->kernel_stats(c->next.self, r);
}

static int cap_run_end(void *self, bool finished)
{
    struct capture *c = self;

    return c->next.ops->run_end(c->next.self, finished);
}

static const struct trace_sink_ops cap_ops = {
    .run_begin = cap_run_begin,
    .slice = cap_slice,
    .job = cap_job,
    .budget_event = cap_budget,
    .irq = cap_irq,
    .event = cap_event,
    .refill = cap_refill,
    .expectation = cap_expectation,
    .final_refill = cap_final_refill,
    .kernel_stats = cap_kernel_stats,
    .run_end = cap_run_end,
};

/* ---- every scenario ---- */

struct reach {
    int runs;
    int64_t carried[T_COUNT], alone[T_COUNT]; /* irqs and refills: on a job or slice, or not */
};

/* The view `view` (one of version 4's names, or its run_* view) ordered by
 * seq must be the captured text of table t. */
static void same_rows(sqlite3 *sq, const char *what, const char *view, int t, const char *want)
{
    char sql[512];
    char *got;

    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE run_id = 1 ORDER BY seq", table_cols[t],
             view);
    got = sqlq_rows(sq, sql);
    if (strcmp(got, want) != 0) {
        size_t i = 0;
        while (got[i] && got[i] == want[i])
            i++;
        while (i > 0 && want[i - 1] != '\n')
            i--;
        fail_msg("%s: %s differs from the rows recorded at byte %zu:\nrecorded: %.200s\nview:     "
                 "%.200s",
                 what, view, i, want + i, got + i);
    }
    free(got);
}

static void compare_one(const char *path, uint8_t scheduler, bool full, void *ctx)
{
    struct reach *r = ctx;
    struct scenario s;
    struct db *db;
    struct capture c = {0};
    struct eng_options o;
    struct eng_result res;
    char what[512];

    if (scnload_run_begin(path, scheduler, full, "v5", &s, &db, &o, what, sizeof what) != 0)
        return;
    c.next = db_sink(db, 0);
    for (int t = 0; t < T_COUNT; t++) {
        c.f[t] = open_memstream(&c.text[t], &c.len[t]);
        assert_non_null(c.f[t]);
    }
    o.sink = (struct trace_sink){.ops = &cap_ops, .self = &c};
    enum eng_status st = eng_run(&s, &o, &res);
    for (int t = 0; t < T_COUNT; t++)
        fclose(c.f[t]);
    if (st == ENG_OK) {
        sqlite3 *sq = db_sqlite(db);
        char view[64];

        for (int t = 0; t < T_COUNT; t++) {
            same_rows(sq, what, table_name[t], t, c.text[t]);
            snprintf(view, sizeof view, "run_%s", table_name[t]);
            same_rows(sq, what, view, t, c.text[t]);
        }
        r->runs++;
        r->alone[T_IRQS] += sqlq_int(sq, "SELECT count(*) FROM irq_rows");
        r->carried[T_IRQS] += sqlq_int(sq, "SELECT count(*) FROM job_rows WHERE irq_seq NOT NULL");
        r->alone[T_REFILLS] += sqlq_int(sq, "SELECT count(*) FROM refill_rows");
        r->carried[T_REFILLS] +=
            sqlq_int(sq, "SELECT count(start_seq) + count(end_seq) FROM slice_rows");
    }
    for (int t = 0; t < T_COUNT; t++)
        free(c.text[t]);
    scnload_run_end(&s, db);
}

static void test_v5_views_are_the_rows_recorded(void **state)
{
    struct reach r = {0};

    (void)state;
    scnload_corpus_run(compare_one, &r);
    print_message("%d runs: interrupts %lld on jobs, %lld alone; refills %lld on slices,"
                  " %lld alone\n",
                  r.runs, (long long)r.carried[T_IRQS], (long long)r.alone[T_IRQS],
                  (long long)r.carried[T_REFILLS], (long long)r.alone[T_REFILLS]);
    /* both arms of each view are reached, so each comparison can fail */
    assert_true(r.runs >= 80);
    assert_true(r.carried[T_IRQS] > 0 && r.alone[T_IRQS] > 0);
    assert_true(r.carried[T_REFILLS] > 0 && r.alone[T_REFILLS] > 0);
}

/* ---- a file of version 4 ---- */

/* What must not change: every row of the tables and views version 4 had,
 * in their order (seq, then rowid: runs before seq have none). */
static const char *const v4_queries[] = {
    "SELECT rowid, * FROM runs ORDER BY rowid",
    "SELECT * FROM threads ORDER BY run_id, thread_id",
    "SELECT * FROM slices ORDER BY run_id, seq",
    "SELECT * FROM jobs ORDER BY run_id, seq",
    "SELECT * FROM irqs ORDER BY run_id, seq",
    "SELECT * FROM refills ORDER BY run_id, seq",
    "SELECT * FROM budget_events ORDER BY run_id, seq",
    "SELECT * FROM events ORDER BY run_id, seq",
    "SELECT * FROM run_slices ORDER BY run_id, seq",
    "SELECT * FROM run_jobs ORDER BY run_id, seq",
    "SELECT * FROM run_irqs ORDER BY run_id, seq",
    "SELECT * FROM run_refills ORDER BY run_id, seq",
    "SELECT * FROM run_budget_events ORDER BY run_id, seq",
    "SELECT * FROM run_events ORDER BY run_id, seq",
    "SELECT * FROM trace_blocks ORDER BY rowid",
    "SELECT * FROM stats ORDER BY run_id, thread_id",
    "SELECT * FROM run_stats ORDER BY run_id",
    "SELECT * FROM expectations ORDER BY run_id, idx",
    "SELECT * FROM final_refills ORDER BY run_id, thread_id, idx",
    "SELECT * FROM kernel_stats ORDER BY rowid",
    "SELECT * FROM scenario_files ORDER BY sha256",
};
#define N_V4_QUERIES (sizeof v4_queries / sizeof v4_queries[0])

static void test_v5_upgrades_a_v4_file(void **state)
{
    char *before[N_V4_QUERIES], err[DB_ERRMSG_MAX];
    const char *path = workdir_file("v4.db");
    sqlite3 *sq;
    struct db *db;

    (void)state;
    workdir_copy(MCSIM_SOURCE_DIR "/tests/data/db/v4.db", "v4.db");
    /* read-only, as it is */
    assert_int_equal(db_open_read(path, &sq, err, sizeof err), 0);
    sqlq_assert_rows(sq, "PRAGMA user_version", "4\n");
    sqlq_assert_rows(sq, "SELECT count(*) FROM irqs WHERE lost = 1", "91\n");
    sqlq_assert_rows(sq, "SELECT count(*) FROM irqs WHERE lost = 0 AND handler IS NULL", "12\n");
    sqlq_assert_rows(sq, "SELECT count(*) FROM refills", "124\n");
    for (size_t i = 0; i < N_V4_QUERIES; i++)
        before[i] = sqlq_rows(sq, v4_queries[i]);
    sqlite3_close(sq);
    /* opened to write: version 5, the same rows */
    assert_int_equal(db_open(path, &db, err, sizeof err), 0);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    for (size_t i = 0; i < N_V4_QUERIES; i++)
        sqlq_assert_rows(db_sqlite(db), v4_queries[i], before[i]);
    /* nothing is carried in the runs moved: the four tables hold them all */
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT (SELECT count(*) FROM irq_rows), (SELECT count(*) FROM irqs),"
                     " (SELECT count(*) FROM refill_rows), (SELECT count(*) FROM refills),"
                     " (SELECT count(*) FROM job_rows WHERE irq_seq IS NOT NULL),"
                     " (SELECT count(start_seq) + count(end_seq) FROM slice_rows)",
                     "138|138|124|124|0|0\n");
    db_close(db);
    for (size_t i = 0; i < N_V4_QUERIES; i++)
        sqlq_assert_path_rows(path, v4_queries[i], before[i]);
    for (size_t i = 0; i < N_V4_QUERIES; i++)
        free(before[i]);
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("db_v5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v5_views_are_the_rows_recorded),
        cmocka_unit_test(test_v5_upgrades_a_v4_file),
    };

    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
