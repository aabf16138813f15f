/*
 * Unit tests of the SQLite recorder (cli/db/db.h): the schema against
 * DESIGN.md, the plans of the queries the narrowed indexes serve, every
 * row kind written through the sink and read back exactly (queued and
 * inserted in order), appending runs, batches, interrupted runs and
 * injected write failures. unit.db_files: the files it refuses, upgrades,
 * kernel statistics, misuse and the null sink.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sqlite3.h>

#include <mcsim/bootinfo.h>

#include "db/db.h"
#include "db/db_int.h"
#include "db_versions.h"
#include "null_sink.h"
#include "db_fx.h"
#include "sqlq.h"


/* ---- schema ---- */

static const char *const schema_columns[][2] = {
    {"runs", "run_id,scenario,path,sha256,seed,duration,cpu_hz,timer_hz,scheduler,hal,version,"
             "created_at,finished"},
    {"threads", "run_id,thread_id,name,priority,criticality,criticality_rank,budget,period,"
                "deadline,passive"},
    {"slices", "run_id,thread_id,sc_thread_id,sc_notification,start_time,end_time"},
    {"jobs", "run_id,thread_id,job,release_time,start_time,finish_time,deadline_time,response,"
             "missed"},
    {"budget_events", "run_id,thread_id,sc_thread_id,time,kind,amount"},
    {"irqs", "run_id,device,line,arrival,delivered,lost"},
    {"events", "run_id,seq,time,kind,thread_id,object,arg"},
    {"expectations", "run_id,idx,text,passed,detail"},
    {"final_refills", "run_id,thread_id,idx,time,amount"}, /* mcsim's own, not in DESIGN.md */
};

/* Columns mcsim adds to DESIGN.md's, after them. */
static const char *schema_extra(const char *table)
{
    if (strcmp(table, "runs") == 0)
        return ",trace";
    if (strcmp(table, "threads") == 0)
        return ",sporadic";
    if (strcmp(table, "expectations") == 0)
        return ",applicable";
    if (strcmp(table, "irqs") == 0)
        return ",handler,handler_start,seq";
    if (strcmp(table, "events") == 0)
        return ",arg2";
    if (strcmp(table, "slices") == 0 || strcmp(table, "jobs") == 0 ||
        strcmp(table, "budget_events") == 0)
        return ",seq";
    return "";
}

static void table_columns(sqlite3 *sq, const char *table, char *buf, size_t n)
{
    char sql[128];
    char *rows;

    snprintf(sql, sizeof sql, "SELECT group_concat(name, ',') FROM pragma_table_info('%s')", table);
    rows = sqlq_rows(sq, sql);
    snprintf(buf, n, "%s", rows);
    buf[strcspn(buf, "\n")] = '\0';
    free(rows);
}

/* DESIGN.md's table row for `table`: the back-quoted names outside
 * parentheses, comma-separated; "" when the file cannot be read. */
static void design_columns(const char *table, char *out, size_t n)
{
    char want[64], line[2048];
    FILE *f = fopen(MCSIM_SHARED_DIR "/DESIGN.md", "r");

    out[0] = '\0';
    snprintf(want, sizeof want, "| `%s` |", table);
    while (f && fgets(line, sizeof line, f)) {
        const char *p = line + strlen(want);
        int depth = 0;
        size_t at = 0;

        if (strncmp(line, want, strlen(want)) != 0)
            continue;
        for (; *p; p++) {
            depth += (*p == '(') - (*p == ')');
            if (*p != '`' || depth)
                continue;
            size_t len = strcspn(p + 1, "`");
            at += (size_t)snprintf(out + at, n - at, "%s%.*s", at ? "," : "", (int)len, p + 1);
            p += len + 1;
        }
        break;
    }
    if (f) {
        fclose(f);
        if (out[0] == '\0')
            fail_msg("DESIGN.md has no row for table %s", table);
    }
}

static void test_db_schema(void **state)
{
    char path[256], got[512], want[512], design[512];
    struct db *db;

    (void)state;
    db_path(path, sizeof path, "schema.db");
    db = open_db(path);
    for (size_t i = 0; i < sizeof schema_columns / sizeof schema_columns[0]; i++) {
        const char *table = schema_columns[i][0];

        table_columns(db_sqlite(db), table, got, sizeof got);
        snprintf(want, sizeof want, "%s%s", schema_columns[i][1], schema_extra(table));
        if (strcmp(got, want) != 0)
            fail_msg("table %s: expected columns %s, actual %s", table, want, got);
        if (strcmp(table, "final_refills") == 0)
            continue;
        design_columns(table, design, sizeof design);
        if (design[0] && strcmp(design, schema_columns[i][1]) != 0)
            fail_msg("DESIGN.md table %s: %s, the test expects %s", table, design,
                     schema_columns[i][1]);
    }
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    sqlq_assert_rows(db_sqlite(db), "PRAGMA application_id", "1835234157\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                     " ORDER BY name",
                     "trace_blocks_by_context\ntrace_blocks_by_device\ntrace_blocks_by_thread\n");
    assert_int_equal(db_run_id(db), -1);
    db_close(db);
    /* Opening it again finds the schema and changes nothing. */
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "SELECT count(*) FROM sqlite_master", "32\n");
    db_close(db);
}

/* A plan scans a table (not the rows a view's arms gave it: "SCAN
 * run_irqs" reads the co-routine of run_irqs' two arms). */
static bool scans_a_table(const char *plan)
{
    for (const char *p = strstr(plan, "SCAN "); p; p = strstr(p + 5, "SCAN "))
        if (strncmp(p + 5, "run_", 4) != 0)
            return true;
    return false;
}

/* The queries of a thread's, a context's or a device's rows read that
 * key's blocks from trace_blocks' index and their rows by rowid: no table
 * is scanned (run_irqs by device: the device's blocks of irq_rows, and the
 * run's job blocks, whose rows carry most interrupts: schema version 5). */
static void test_db_query_plans(void **state)
{
    static const struct {
        const char *sql, *index;
    } plans[] = {
        {DB_SLICES_PAID_BY("start_time, end_time", "?2", "") " ORDER BY start_time",
         "trace_blocks_by_context"},
        {"SELECT start_time FROM run_slices WHERE run_id = ?1 AND thread_id = ?2"
         " AND block_end >= ?3 AND block_start < ?4 AND start_time >= ?3 AND start_time < ?4",
         "trace_blocks_by_thread"},
        {"SELECT arrival FROM run_irqs WHERE run_id = ?1 AND device = ?2 AND block_end >= ?3",
         "trace_blocks_by_device"},
        {"SELECT count(*) FROM run_events WHERE run_id = ?1 AND kind = ?2 "
         "AND " DB_EVENTS_SCHED_KINDS,
         "trace_blocks_by_"},
        {"SELECT count(*) FROM run_jobs WHERE run_id = ?1 AND thread_id = ?2 AND missed = 1",
         "trace_blocks_by_thread"},
    };
    char path[256], sql[1024];
    struct db *db;

    (void)state;
    db_path(path, sizeof path, "plans.db");
    db = open_db(path);
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        char *plan;

        snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN %s", plans[i].sql);
        plan = sqlq_rows(db_sqlite(db), sql);
        if (!strstr(plan, plans[i].index) ||
            !strstr(plan, "INTEGER PRIMARY KEY (rowid>? AND rowid<?)") || scans_a_table(plan))
            fail_msg("%s\nexpected: a search of %s, then of rowids\nactual:\n%s", plans[i].sql,
                     plans[i].index, plan);
        free(plan);
    }
    db_close(db);
}

/* ---- rows ---- */

static void test_db_rows(void **state)
{
    struct scenario s;
    char path[256];
    struct db *db;
    struct trace_sink k;

    (void)state;
    k = begin_fixture_run(&s, path, sizeof path, "rows.db", &db);
    assert_int_equal(db_run_id(db), 1);
    /* The run row is committed at once, unfinished. */
    sqlq_assert_path_rows(path, "SELECT run_id, finished FROM runs", "1|0\n");
    write_one_of_each(&k);
    assert_int_equal(k.ops->run_end(k.self, true), 0);

    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM runs",
                     "1|fixture|scenarios/fixture.yaml|"
                     "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf|7|100000000|"
                     "1000000000|62500000|mcs|sim|0.1.0|2024-05-01T12:00:00Z|1|sched\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM threads ORDER BY thread_id",
                     "1|0|(root)|255|NULL|NULL|NULL|NULL|NULL|0|0\n"
                     "1|1|control|200|hi|1|2000000|10000000|10000000|0|0\n"
                     "1|2|logger|10|lo|0|1000000|5000000|5000000|0|1\n"
                     "1|3|server|210|hi|1|NULL|NULL|NULL|1|0\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM slices ORDER BY start_time",
                     "1|1|1|NULL|0|1500|0\n1|3|1|NULL|1500|1800|1\n1|3|NULL|net_rx|1800|1900|2\n"
                     "1|2|NULL|NULL|1900|2000|3\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM jobs ORDER BY thread_id, job",
                     "1|1|1|0|10|1800|10000000|1800|0|4\n"
                     "1|2|1|1900|1900|NULL|5001900|NULL|0|5\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM budget_events ORDER BY seq",
                     "1|1|1|1500|exhausted|1500|6\n1|1|1|1500|throttle|0|7\n"
                     "1|1|1|10000000|replenish|2000000|8\n1|3|1|1700|timeout_fault|200|9\n"
                     "1|3|1|1750|emergency|500000|10\n1|3|NULL|1900|exhausted|100|11\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM irqs ORDER BY arrival",
                     "1|net|33|1000|1800|0|2|2400|12\n1|net|33|1100|NULL|1|NULL|NULL|13\n");
    /* One block per key, in the order the keys were first seen, each with
     * its rowids and the times it spans. */
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT tbl, thread_id, sc_thread_id, device, kind, first_row, last_row,"
                     " min_time, max_time FROM trace_blocks WHERE run_id = 1 ORDER BY rowid",
                     "slices|1|1|NULL|NULL|1|1|0|1500\n"
                     "slices|3|1|NULL|NULL|2|2|1500|1800\n"
                     "slices|3|NULL|NULL|NULL|3|3|1800|1900\n"
                     "slices|2|NULL|NULL|NULL|4|4|1900|2000\n"
                     "jobs|1|NULL|NULL|NULL|1|1|0|0\n"
                     "jobs|2|NULL|NULL|NULL|2|2|1900|1900\n"
                     "budget_events|NULL|1|NULL|exhausted|1|1|1500|1500\n"
                     "budget_events|NULL|1|NULL|throttle|2|2|1500|1500\n"
                     "budget_events|NULL|1|NULL|replenish|3|3|10000000|10000000\n"
                     "budget_events|NULL|1|NULL|timeout_fault|4|4|1700|1700\n"
                     "budget_events|NULL|1|NULL|emergency|5|5|1750|1750\n"
                     "budget_events|3|NULL|NULL|exhausted|6|6|1900|1900\n"
                     "irqs|2|NULL|net|NULL|1|1|1000|1000\n"
                     "irqs|NULL|NULL|net|NULL|2|2|1100|1100\n"
                     "events|1|NULL|NULL|preempt|1|1|1500|1500\n"
                     "events|NULL|NULL|NULL|timer|2|2|1600|1600\n"
                     "events|3|NULL|NULL|signal|3|3|1700|1700\n");
    /* The run_* views read the same rows through the blocks. */
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT thread_id, start_time FROM run_slices WHERE run_id = 1"
                     " AND sc_thread_id = 1 ORDER BY start_time",
                     "1|0\n3|1500\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT kind, seq FROM run_budget_events WHERE run_id = 1 AND thread_id = 3"
                     " ORDER BY seq",
                     "timeout_fault|9\nemergency|10\nexhausted|11\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT handler, arrival FROM run_irqs WHERE run_id = 1 AND device = 'net'"
                     " ORDER BY arrival",
                     "2|1000\nNULL|1100\n");
    sqlq_assert_rows(
        db_sqlite(db), "SELECT * FROM events ORDER BY seq",
        "1|1|1500|preempt|1|0|3|0\n1|2|1600|timer|NULL|0|12345|NULL\n1|3|1700|signal|3|-1|1|2\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM expectations",
                     "1|0|deadlines: met|1|none of 1 jobs missed|1\n");
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT finished FROM runs", "1\n");
}

static void run_slices(const char *path, struct scenario *s, uint8_t scheduler, bool full,
                       uint32_t n)
{
    struct db *db = open_db(path);
    struct trace_sink k = db_sink(db, FIXED_TIME);
    struct sink_run_meta meta = fx_meta;

    meta.scheduler = scheduler;
    meta.trace_full = full;
    assert_int_equal(k.ops->run_begin(k.self, s, &meta), 0);
    add_slices(&k, n, 0);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
}

static void test_db_append(void **state)
{
    struct scenario s;
    char path[256];

    (void)state;
    fx_scenario(&s);
    db_path(path, sizeof path, "append.db");
    run_slices(path, &s, SCHED_MCS, false, 3);
    run_slices(path, &s, SCHED_CLASSIC, true, 2);
    sqlq_assert_path_rows(path, "SELECT run_id, scheduler, trace, finished FROM runs",
                          "1|mcs|sched|1\n2|classic|full|1\n");
    sqlq_assert_path_rows(path, "SELECT run_id, count(*) FROM slices GROUP BY run_id",
                          "1|3\n2|2\n");
    sqlq_assert_path_rows(path, "SELECT run_id, count(*) FROM threads GROUP BY run_id",
                          "1|4\n2|4\n");
}

/* Two runs in one process through one handle and one sink. */
static void test_db_two_runs_one_handle(void **state)
{
    struct scenario s;
    char path[256];
    struct db *db;
    struct trace_sink k;

    (void)state;
    fx_scenario(&s);
    db_path(path, sizeof path, "two.db");
    db = open_db(path);
    k = db_sink(db, FIXED_TIME);
    for (int run = 1; run <= 2; run++) {
        assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
        assert_int_equal(db_run_id(db), run);
        add_slices(&k, (uint32_t)run, 0);
        assert_int_equal(k.ops->run_end(k.self, true), 0);
    }
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT run_id, count(*) FROM slices GROUP BY run_id",
                          "1|1\n2|2\n");
}

static void test_db_batches(void **state)
{
    struct scenario s;
    char path[256], want[64];
    struct db *db;
    struct trace_sink k;

    (void)state;
    k = begin_fixture_run(&s, path, sizeof path, "batches.db", &db);
    add_slices(&k, DB_BATCH_ROWS + 5, 0);
    snprintf(want, sizeof want, "%d|0\n", DB_BATCH_ROWS);
    sqlq_assert_path_rows(path, "SELECT count(*), (SELECT finished FROM runs) FROM slices", want);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    snprintf(want, sizeof want, "%d|1\n", DB_BATCH_ROWS + 5);
    sqlq_assert_path_rows(path, "SELECT count(*), (SELECT finished FROM runs) FROM slices", want);
    db_close(db);
}

/* Trace rows of every kind, interleaved, more than fill a block twice:
 * each table holds them all, in the order written (rowid i + 1 is row i),
 * whether a full block or the rest inserted them (no interrupt is carried
 * on a job: each comes after the job of its arrival). */
static void test_db_queued_rows(void **state)
{
    enum { N = 2 * DB_BLOCK_ROWS + 3 };
    struct scenario s;
    char path[256], want[64];
    struct db *db;
    struct trace_sink k;

    (void)state;
    k = begin_fixture_run(&s, path, sizeof path, "queued.db", &db);
    for (uint32_t i = 0; i < N; i++) {
        cycles_t t = 10 * i;

        add_slices(&k, 1, t);
        assert_int_equal(
            k.ops->job(k.self, &(struct sink_job){1, i + 1, t, t, t + 1, t + 9, 1, false}), 0);
        assert_int_equal(
            k.ops->budget_event(k.self, &(struct sink_budget_event){1, 1, t, BUDGET_REPLENISH, i}),
            0);
        assert_int_equal(k.ops->irq(k.self, &(struct sink_irq){0, 33, t, t + 1, false, 1, t + 2}),
                         0);
        assert_int_equal(k.ops->event(k.self, &(struct sink_event){i, t, "preempt", 1, 0, i, 0}), 0);
    }
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
    snprintf(want, sizeof want, "%d|0\n", N);
    sqlq_assert_path_rows(path, "SELECT count(*), sum(start_time <> 10 * (rowid - 1)) FROM slice_rows",
                          want);
    sqlq_assert_path_rows(path, "SELECT count(*), sum(job <> rowid) FROM job_rows", want);
    sqlq_assert_path_rows(path, "SELECT count(*), sum(amount <> rowid - 1) FROM budget_events",
                          want);
    sqlq_assert_path_rows(path, "SELECT count(*), sum(arrival <> 10 * (rowid - 1)) FROM irq_rows",
                          want);
    sqlq_assert_path_rows(path, "SELECT count(*), sum(seq <> rowid - 1) FROM events", want);
}

/* run_end never called: the committed batches stay, the run unfinished. */
static void test_db_interrupted(void **state)
{
    struct scenario s;
    char path[256];
    struct db *db;
    struct trace_sink k;

    (void)state;
    k = begin_fixture_run(&s, path, sizeof path, "interrupted.db", &db);
    add_slices(&k, 10, 0);
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT run_id, finished, (SELECT count(*) FROM threads) FROM runs",
                          "1|0|4\n");
    sqlq_assert_path_rows(path, "SELECT count(*) FROM slices", "0\n");
}

/* run_end(false): everything is kept, the run still unfinished. */
static void test_db_run_end_unfinished(void **state)
{
    struct scenario s;
    char path[256];
    struct db *db;
    struct trace_sink k;

    (void)state;
    k = begin_fixture_run(&s, path, sizeof path, "unfinished.db", &db);
    add_slices(&k, 10, 0);
    assert_int_equal(k.ops->run_end(k.self, false), 0);
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT finished, (SELECT count(*) FROM slices) FROM runs",
                          "0|10\n");
}

/* A full disk, injected: the file may not grow past its size at the
 * start of the run. */
static void test_db_disk_full(void **state)
{
    struct scenario s;
    char path[256], want[DB_ERRMSG_MAX];
    struct db *db;
    struct trace_sink k;
    int rc = 0;
    uint32_t n = 0;
    char *pages;

    (void)state;
    k = begin_fixture_run(&s, path, sizeof path, "full.db", &db);
    pages = sqlq_rows(db_sqlite(db), "PRAGMA page_count");
    snprintf(want, sizeof want, "PRAGMA max_page_count = %ld", strtol(pages, NULL, 10));
    free(pages);
    assert_int_equal(sqlite3_exec(db_sqlite(db), want, NULL, NULL, NULL), SQLITE_OK);
    while (rc == 0 && n < 10 * DB_BATCH_ROWS) {
        struct sink_slice r = {1, 1, SINK_NO_THREAD, 10 * n, 10 * n + 5};

        rc = k.ops->slice(k.self, &r);
        n++;
    }
    assert_int_equal(rc, -1);
    snprintf(want, sizeof want, "mcsim: %s: database or disk is full", path);
    assert_string_equal(db_errmsg(db), want);
    /* Every later op fails with the same diagnostic; the run stays unfinished. */
    assert_int_equal(
        k.ops->irq(k.self, &(struct sink_irq){0, 33, 1, 2, false, SINK_NO_THREAD, SINK_NO_TIME}),
        -1);
    assert_int_equal(k.ops->run_end(k.self, true), -1);
    assert_string_equal(db_errmsg(db), want);
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT finished FROM runs", "0\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_schema),
        cmocka_unit_test(test_db_query_plans),
        cmocka_unit_test(test_db_rows),
        cmocka_unit_test(test_db_append),
        cmocka_unit_test(test_db_two_runs_one_handle),
        cmocka_unit_test(test_db_batches),
        cmocka_unit_test(test_db_queued_rows),
        cmocka_unit_test(test_db_interrupted),
        cmocka_unit_test(test_db_run_end_unfinished),
        cmocka_unit_test(test_db_disk_full),
    };

    return cmocka_run_group_tests(tests, db_fx_setup, db_fx_teardown);
}
