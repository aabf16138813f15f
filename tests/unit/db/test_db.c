/*
 * Unit tests of the SQLite recorder (cli/db/db.h) and the null sink: the
 * schema against DESIGN.md, the plans of the queries the narrowed indexes
 * serve, every row kind written through the sink and read back exactly
 * (queued and inserted in order), appending runs, batches, interrupted
 * runs, injected write failures, and refusing files that are not mcsim
 * databases.
 * Longer than 600 lines because it is one module's tests (STYLE.md
 * "Tests"), most of them expected table contents spelled out.
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
#include "sqlq.h"

#define FIXED_TIME 1714564800 /* 2024-05-01T12:00:00Z */

static char tmpdir[] = "/tmp/mcsim-test-db-XXXXXX";

/* ---- a hand-built scenario ---- */

static struct scn_thread fx_threads[3];
static struct scn_notification fx_ntfns[2];
static struct scn_device fx_devices[1];
static char fx_path[] = "scenarios/fixture.yaml";

static void fx_thread(uint32_t i, const char *name, uint32_t prio, uint32_t crit, cycles_t budget,
                      cycles_t period, bool sporadic)
{
    struct scn_thread *t = &fx_threads[i];

    snprintf(t->name, sizeof t->name, "%s", name);
    t->priority = t->mcp = prio;
    t->criticality = crit;
    t->timeout_endpoint = SCN_NONE;
    if (period) {
        t->sc = (struct scn_context){
            .present = true, .sporadic = sporadic, .budget = budget, .period = period};
        t->has_deadline = true;
        t->deadline = period;
    } else {
        t->passive = true;
    }
}

/* control (hi, 2ms/10ms), logger (lo, sporadic 1ms/5ms), server (hi,
 * passive); notifications net_rx (own context) and tick; device net. */
static void fx_scenario(struct scenario *s)
{
    memset(s, 0, sizeof *s);
    memset(fx_threads, 0, sizeof fx_threads);
    memset(fx_ntfns, 0, sizeof fx_ntfns);
    memset(fx_devices, 0, sizeof fx_devices);
    snprintf(s->name, sizeof s->name, "fixture");
    s->path = fx_path;
    for (int i = 0; i < 32; i++)
        s->sha256[i] = (uint8_t)(0xa0 + i);
    s->seed = 7;
    s->duration = 100000000;
    s->cpu_hz = 1000000000;
    s->timer_hz = 62500000;
    s->priorities = 256;
    s->n_levels = 2;
    snprintf(s->levels[0], SCN_NAME_MAX, "lo");
    snprintf(s->levels[1], SCN_NAME_MAX, "hi");
    fx_thread(0, "control", 200, 1, 2000000, 10000000, false);
    fx_thread(1, "logger", 10, 0, 1000000, 5000000, true);
    fx_thread(2, "server", 210, 1, 0, 0, false);
    s->threads = fx_threads;
    s->n_threads = 3;
    snprintf(fx_ntfns[0].name, SCN_NAME_MAX, "net_rx");
    fx_ntfns[0].sc = (struct scn_context){.present = true, .budget = 200000, .period = 1000000};
    snprintf(fx_ntfns[1].name, SCN_NAME_MAX, "tick");
    s->notifications = fx_ntfns;
    s->n_notifications = 2;
    snprintf(fx_devices[0].name, SCN_NAME_MAX, "net");
    fx_devices[0].irq = 33;
    s->devices = fx_devices;
    s->n_devices = 1;
}

static const struct sink_run_meta fx_meta = {.hal = "sim",
                                             .version = "0.1.0",
                                             .seed = 7,
                                             .duration = 100000000,
                                             .scheduler = SCHED_MCS,
                                             .trace_full = false};

/* ---- helpers ---- */

static void db_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

static struct db *open_db(const char *path)
{
    char err[DB_ERRMSG_MAX] = "";
    struct db *db = NULL;

    if (db_open(path, &db, err, sizeof err) != 0)
        fail_msg("db_open(%s): %s", path, err);
    return db;
}

/* The fixture scenario's run begun in a new database `name`: its sink, with
 * the handle in *db and the file's path in path. */
static struct trace_sink begin_fixture_run(struct scenario *s, char *path, size_t n,
                                           const char *name, struct db **db)
{
    struct trace_sink k;

    fx_scenario(s);
    db_path(path, n, name);
    *db = open_db(path);
    k = db_sink(*db, FIXED_TIME);
    assert_int_equal(k.ops->run_begin(k.self, s, &fx_meta), 0);
    return k;
}

static void add_slices(struct trace_sink *k, uint32_t n, cycles_t from)
{
    for (uint32_t i = 0; i < n; i++) {
        struct sink_slice r = {.thread = 1,
                               .sc_thread = 1,
                               .sc_notification = SINK_NO_THREAD,
                               .start = from + 10 * i,
                               .end = from + 10 * i + 5};

        assert_int_equal(k->ops->slice(k->self, &r), 0);
    }
}

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

static void write_one_of_each(struct trace_sink *k)
{
    const struct sink_slice slices[] = {
        {1, 1, SINK_NO_THREAD, 0, 1500},
        {3, 1, SINK_NO_THREAD, 1500, 1800}, /* server on control's context */
        {3, SINK_NO_THREAD, 0, 1800, 1900}, /* server on net_rx's context */
        {2, SINK_NO_THREAD, SINK_NO_THREAD, 1900, 2000},
    };
    const struct sink_job jobs[] = {
        {1, 1, 0, 10, 1800, 10000000, 1800, false},
        {2, 1, 1900, 1900, SINK_NO_TIME, 5001900, SINK_NO_TIME, false},
    };
    const struct sink_budget_event budget[] = {
        {1, 1, 1500, BUDGET_EXHAUSTED, 1500},
        {1, 1, 1500, BUDGET_THROTTLE, 0},
        {1, 1, 10000000, BUDGET_REPLENISH, 2000000},
        {3, 1, 1700, BUDGET_TIMEOUT_FAULT, 200},
        {3, 1, 1750, BUDGET_EMERGENCY, 500000},
        {3, SINK_NO_THREAD, 1900, BUDGET_EXHAUSTED, 100},
    };
    const struct sink_irq irqs[] = {
        {0, 33, 1000, 1800, false, 2, 2400},
        {0, 33, 1100, SINK_NO_TIME, true, SINK_NO_THREAD, SINK_NO_TIME}};
    const struct sink_event events[] = {
        {1, 1500, "preempt", 1, 0, 3, 0},
        {2, 1600, "timer", SINK_NO_THREAD, 0, 12345, SINK_NO_ARG},
        {3, 1700, "signal", 3, UINT64_MAX, 1, 2},
    };
    const struct sink_expectation ex = {0, "deadlines: met", true, "none of 1 jobs missed"};

    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++)
        assert_int_equal(k->ops->slice(k->self, &slices[i]), 0);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++)
        assert_int_equal(k->ops->job(k->self, &jobs[i]), 0);
    for (size_t i = 0; i < sizeof budget / sizeof budget[0]; i++)
        assert_int_equal(k->ops->budget_event(k->self, &budget[i]), 0);
    for (size_t i = 0; i < sizeof irqs / sizeof irqs[0]; i++)
        assert_int_equal(k->ops->irq(k->self, &irqs[i]), 0);
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        assert_int_equal(k->ops->event(k->self, &events[i]), 0);
    assert_int_equal(k->ops->expectation(k->self, &ex), 0);
}

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

/* ---- refusing files ---- */

static void assert_refused(const char *path, const char *reason)
{
    char err[DB_ERRMSG_MAX] = "", want[DB_ERRMSG_MAX];
    struct db *db = (struct db *)&err; /* any non-NULL value: db_open must clear it */

    assert_int_equal(db_open(path, &db, err, sizeof err), -1);
    assert_null(db);
    snprintf(want, sizeof want, "mcsim: %s: %s", path, reason);
    assert_string_equal(err, want);
}

static void test_db_refuses_other_files(void **state)
{
    char path[256], sql[300];
    sqlite3 *sq;
    FILE *f;

    (void)state;
    db_path(path, sizeof path, "other.db");
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq, "CREATE TABLE contacts (name TEXT)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
    assert_refused(path, "not an mcsim database (it holds another program's tables;"
                         " give another file with -o)");
    /* Untouched: still only its own table. */
    sqlq_assert_path_rows(path, "SELECT name FROM sqlite_master", "contacts\n");

    db_path(path, sizeof path, "notes.txt");
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 100; i++)
        fputs("these are not the pages of a database\n", f);
    fclose(f);
    assert_refused(path, "not an mcsim database (not an SQLite file)");

    db_path(path, sizeof path, "newer.db");
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    snprintf(sql, sizeof sql,
             "PRAGMA application_id = %d; PRAGMA user_version = 9;"
             " CREATE TABLE runs (run_id INTEGER PRIMARY KEY)",
             DB_APPLICATION_ID);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sq);
    assert_refused(path, "written by a newer mcsim (schema version 9; this mcsim reads up to 5)");

    db_path(path, sizeof path, "no-such-dir/x.db");
    assert_refused(path, "unable to open database file");
}

/* An empty file (as `touch` leaves it) is an empty database: it gets the
 * schema. */
static void test_db_empty_file(void **state)
{
    char path[256];
    struct db *db;
    FILE *f;

    (void)state;
    db_path(path, sizeof path, "empty.db");
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    db_close(db);
}

/* A file written with schema version 1 gains version 2's columns, tables
 * and views when it is opened; its rows stay. */
static void test_db_upgrade_v1(void **state)
{
    char path[256];
    struct db *db;
    sqlite3 *sq;

    (void)state;
    db_path(path, sizeof path, "v1.db");
    db = open_db(path);
    db_close(db);
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq,
                                  DB_TEST_DROP_V5 " " DB_TEST_DROP_V3
                                  " DROP TABLE kernel_stats;"
                                  " DROP TABLE scenario_files;"
                                  " ALTER TABLE irqs DROP COLUMN handler_start;"
                                  " ALTER TABLE irqs DROP COLUMN handler;"
                                  " INSERT INTO irqs VALUES (1, 'net', 33, 10, 20, 0);"
                                  " PRAGMA user_version = 1;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM irqs", "1|net|33|10|20|0|NULL|NULL|NULL\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM trace_blocks",
                     "1|irqs|NULL|NULL|net|NULL|1|1|10|10\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT device, arrival, handler, seq, row FROM run_irqs",
                     "net|10|NULL|NULL|1\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT count(*) FROM sqlite_master", "32\n");
    db_close(db);
}

/* A new file's schema (db_schema_new_sql, made in one go) is the one that
 * versions 1 to 5 leave when a version-1 file made by version 1's SQL
 * itself is upgraded: the same objects, with the same text, in the same
 * order (sqlite_master's rowid order, which `.dump` follows). */
static void test_db_new_schema_is_the_upgraded_one(void **state)
{
    const char *master = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid";
    char path[256], old[256], pragmas[128];
    struct db *db;
    sqlite3 *sq;
    char *fresh, *upgraded;

    (void)state;
    db_path(path, sizeof path, "fresh.db");
    db = open_db(path);
    fresh = sqlq_rows(db_sqlite(db), master);
    db_close(db);
    db_path(old, sizeof old, "v1_sql.db");
    assert_int_equal(sqlite3_open(old, &sq), SQLITE_OK);
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = 1;",
             DB_APPLICATION_ID);
    assert_int_equal(sqlite3_exec(sq, db_schema_v1_sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq, pragmas, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sq);
    db = open_db(old);
    upgraded = sqlq_rows(db_sqlite(db), master);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    db_close(db);
    assert_string_equal(fresh, upgraded);
    assert_non_null(strstr(fresh, "view|stats|stats|CREATE VIEW stats AS"));
    free(fresh);
    free(upgraded);
}

/* kernel_stats rows, the scenario's text (once per distinct file) and the
 * stats views over them. */
static void test_db_kernel_stats_and_file(void **state)
{
    const struct sink_kernel_stats ks[] = {
        {1, ENTRY_SYSCALL, 10, 5000, 4, 2400, 480, 3, 750},
        {SINK_NO_THREAD, ENTRY_IRQ, 2, 1000, 2, 1000, 240, 2, 500},
    };
    static char text[] = "mcsim: 1\n";
    struct scenario s;
    char path[256];
    struct db *db;
    struct trace_sink k;

    (void)state;
    fx_scenario(&s);
    s.text = text;
    s.text_len = strlen(s.text);
    db_path(path, sizeof path, "kstats.db");
    db = open_db(path);
    k = db_sink(db, FIXED_TIME);
    for (int run = 0; run < 2; run++) {
        assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
        write_one_of_each(&k);
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            assert_int_equal(k.ops->kernel_stats(k.self, &ks[i]), 0);
        assert_int_equal(k.ops->run_end(k.self, true), 0);
    }
    /* the rows of each run name it (the inserts have the run's id
     * written in, db_rows.c) */
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT run_id, (SELECT count(*) FROM slice_rows s WHERE s.run_id = r.run_id),"
                     " (SELECT count(*) FROM job_rows j WHERE j.run_id = r.run_id),"
                     " (SELECT count(*) FROM events e WHERE e.run_id = r.run_id),"
                     " (SELECT count(*) FROM budget_events b WHERE b.run_id = r.run_id),"
                     " (SELECT count(*) FROM irqs q WHERE q.run_id = r.run_id)"
                     " FROM runs r ORDER BY run_id",
                     "1|4|2|3|6|2\n2|4|2|3|6|2\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT * FROM kernel_stats WHERE run_id = 1 ORDER BY cycles",
                     "1|NULL|irq|2|1000|2|1000|240|2|500\n1|1|syscall|10|5000|4|2400|480|3|750\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT count(*), min(text) FROM scenario_files",
                     "1|mcsim: 1\n\n");
    sqlq_assert_rows(
        db_sqlite(db),
        "SELECT name, jobs, misses, cpu, charged, throttled, timeout_faults,"
        " kernel_entries, kernel_cycles FROM stats WHERE run_id = 1 ORDER BY thread_id",
        "(root)|0|0|0|0|0|0|0|0\n"
        "control|1|0|1500|1800|9998500|0|10|5000\n"
        "logger|1|1|100|0|0|0|0|0\n"
        "server|0|0|400|0|0|1|0|0\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT name, irqs_handled, worst_irq_latency FROM stats WHERE run_id = 1"
                     " AND thread_id = 2",
                     "logger|1|1400\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT jobs, misses, kernel_entries, kernel_cycles, decisions,"
                     " cycles_per_decision, syscall_decisions, syscall_cycles_per_decision,"
                     " timer_programs FROM run_stats WHERE run_id = 2",
                     "2|1|12|6000|6|566.666666666667|4|600.0|5\n");
    db_close(db);
}

/* ---- misuse and engine bugs ---- */

static void test_db_misuse(void **state)
{
    struct scenario s;
    char path[256], want[DB_ERRMSG_MAX];
    struct db *db;
    struct trace_sink k;
    struct sink_slice slice = {1, 1, SINK_NO_THREAD, 0, 5};

    (void)state;
    fx_scenario(&s);
    db_path(path, sizeof path, "misuse.db");
    db = open_db(path);
    k = db_sink(db, FIXED_TIME);
    assert_string_equal(db_errmsg(db), "");
    assert_int_equal(k.ops->slice(k.self, &slice), -1);
    snprintf(want, sizeof want, "mcsim: %s: no run in progress", path);
    assert_string_equal(db_errmsg(db), want);

    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), -1);
    snprintf(want, sizeof want, "mcsim: %s: a run is already in progress (run 1)", path);
    assert_string_equal(db_errmsg(db), want);
    assert_int_equal(k.ops->slice(k.self, &slice), 0);
    assert_int_equal(
        k.ops->irq(k.self, &(struct sink_irq){5, 40, 1, 2, false, SINK_NO_THREAD, SINK_NO_TIME}),
        -1);
    snprintf(want, sizeof want,
             "mcsim: %s: internal error: trace row names device 5, which the scenario does not"
             " have",
             path);
    assert_string_equal(db_errmsg(db), want);
    assert_int_equal(k.ops->run_end(k.self, true), -1);
    /* A new run may begin after a failed one. */
    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
    assert_int_equal(db_run_id(db), 2);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
    sqlq_assert_path_rows(path, "SELECT run_id, finished FROM runs", "1|0\n2|1\n");
    db_close(NULL);
}

static void test_db_null_sink(void **state)
{
    struct scenario s;
    struct trace_sink k = null_sink();

    (void)state;
    fx_scenario(&s);
    assert_int_equal(k.ops->run_begin(k.self, &s, &fx_meta), 0);
    assert_int_equal(k.ops->slice(k.self, &(struct sink_slice){1, 1, 0, 0, 1}), 0);
    assert_int_equal(k.ops->job(k.self, &(struct sink_job){.thread = 1, .job = 1}), 0);
    assert_int_equal(k.ops->budget_event(k.self, &(struct sink_budget_event){.thread = 1}), 0);
    assert_int_equal(k.ops->irq(k.self, &(struct sink_irq){.device = 9}), 0);
    assert_int_equal(k.ops->event(k.self, &(struct sink_event){.kind = "switch"}), 0);
    assert_int_equal(k.ops->expectation(k.self, &(struct sink_expectation){.text = "x"}), 0);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
}

static int setup_dir(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    char cmd[64];

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
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
        cmocka_unit_test(test_db_refuses_other_files),
        cmocka_unit_test(test_db_empty_file),
        cmocka_unit_test(test_db_upgrade_v1),
        cmocka_unit_test(test_db_new_schema_is_the_upgraded_one),
        cmocka_unit_test(test_db_kernel_stats_and_file),
        cmocka_unit_test(test_db_misuse),
        cmocka_unit_test(test_db_null_sink),
    };

    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
