/*
 * The trace rows in blocks (cli/db/db_rows.c, db_schema.c): the arena written
 * when full, a block per key with exact rowids and times; a version-2 file
 * (rows of threads interleaved, no trace_blocks) and a version-3 file (no
 * refills, no events.arg2) upgraded when opened for writing, and read
 * through temporary views when opened read-only.
 * test_db.c covers the rows themselves and one block per key.
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

#include "db/db.h"
#include "db_versions.h"
#include "sqlq.h"
#include "workdir.h"

static void db_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s", workdir_file(name));
}

/* Two periodic threads, a and b (ids 1 and 2); nothing else. */
static struct scn_thread two_threads[2];

static void two_thread_scenario(struct scenario *s)
{
    memset(s, 0, sizeof *s);
    memset(two_threads, 0, sizeof two_threads);
    snprintf(s->name, sizeof s->name, "blocks");
    s->cpu_hz = 1000000000;
    s->timer_hz = 62500000;
    s->priorities = 256;
    s->n_levels = 1;
    snprintf(s->levels[0], SCN_NAME_MAX, "lo");
    for (int i = 0; i < 2; i++) {
        struct scn_thread *t = &two_threads[i];

        snprintf(t->name, sizeof t->name, "%c", 'a' + i);
        t->priority = t->mcp = 10;
        t->timeout_endpoint = SCN_NONE;
        t->sc = (struct scn_context){.present = true, .budget = 1000, .period = 10000};
    }
    s->threads = two_threads;
    s->n_threads = 2;
}

static const struct sink_run_meta meta = {.hal = "sim", .version = "0.1.0", .duration = 1000000};

static struct db *open_db(const char *path)
{
    char err[DB_ERRMSG_MAX] = "";
    struct db *db = NULL;

    if (db_open(path, &db, err, sizeof err) != 0)
        fail_msg("db_open(%s): %s", path, err);
    return db;
}

/* A run of n slices alternating between a (even i) and b (odd i): slice i
 * runs from 10 i to 10 i + 5. */
static void run_alternating(const char *path, uint32_t n)
{
    struct scenario s;
    struct db *db = open_db(path);
    struct trace_sink k = db_sink(db, 0);

    two_thread_scenario(&s);
    assert_int_equal(k.ops->run_begin(k.self, &s, &meta), 0);
    for (uint32_t i = 0; i < n; i++) {
        struct sink_slice r = {.thread = 1 + i % 2,
                               .sc_thread = 1 + i % 2,
                               .sc_notification = SINK_NO_THREAD,
                               .start = 10 * (cycles_t)i,
                               .end = 10 * (cycles_t)i + 5};

        assert_int_equal(k.ops->slice(k.self, &r), 0);
    }
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
}

/* A full arena is written before the next row is held: each thread's
 * DB_ARENA_ROWS / 2 rows in blocks of DB_BLOCK_ROWS, a's first; then the
 * last rows in one more block each at the end of the run. */
static void test_blocks_arena_full(void **state)
{
    char path[256];
    const uint32_t n = DB_ARENA_ROWS + 6;

    (void)state;
    assert_int_equal(DB_ARENA_ROWS, 16384); /* the figures below */
    assert_int_equal(DB_BLOCK_ROWS, 512);
    db_path(path, sizeof path, "full.db");
    run_alternating(path, n);
    sqlq_assert_path_rows(path,
                          "SELECT thread_id, count(*), min(first_row), max(last_row),"
                          " sum(last_row - first_row + 1), max(last_row - first_row + 1)"
                          " FROM trace_blocks WHERE run_id = 1 AND tbl = 'slices'"
                          " GROUP BY thread_id ORDER BY thread_id",
                          "1|17|1|16387|8195|512\n2|17|8193|16390|8195|512\n");
    sqlq_assert_path_rows(path,
                          "SELECT thread_id, sc_thread_id, first_row, last_row, min_time, max_time"
                          " FROM trace_blocks WHERE run_id = 1 AND tbl = 'slices'"
                          " AND rowid IN (1, 2, 16, 17, 33, 34) ORDER BY rowid",
                          "1|1|1|512|0|10225\n"
                          "1|1|513|1024|10240|20465\n"
                          "1|1|7681|8192|153600|163825\n"
                          "2|2|8193|8704|10|10235\n"
                          "1|1|16385|16387|163840|163885\n"
                          "2|2|16388|16390|163850|163895\n");
    /* Every row is in exactly one block of its thread, and seq is the
     * order the sink received the rows in. */
    sqlq_assert_path_rows(path,
                          "SELECT thread_id, count(*), min(start_time), max(start_time),"
                          " sum(seq * 10 = start_time) FROM run_slices WHERE run_id = 1"
                          " GROUP BY thread_id ORDER BY thread_id",
                          "1|8195|0|163880|8195\n2|8195|10|163890|8195\n");
    sqlq_assert_path_rows(path,
                          "SELECT count(*) FROM run_slices WHERE run_id = 1 AND thread_id = 2"
                          " AND block_end >= 163860 AND block_start < 163880"
                          " AND start_time >= 163860 AND start_time < 163880",
                          "1\n");
}

/* More keys than the first hash table holds (64): it grows and keeps
 * them all, in the order first seen, each thread's rows in one block. */
static void test_blocks_many_keys(void **state)
{
    char path[256];
    struct scenario s;
    struct db *db;
    struct trace_sink k;

    (void)state;
    db_path(path, sizeof path, "keys.db");
    two_thread_scenario(&s);
    db = open_db(path);
    k = db_sink(db, 0);
    assert_int_equal(k.ops->run_begin(k.self, &s, &meta), 0);
    for (uint32_t round = 0; round < 3; round++)
        for (uint32_t t = 1; t <= 300; t++) {
            struct sink_slice r = {.thread = t,
                                   .sc_thread = t,
                                   .sc_notification = SINK_NO_THREAD,
                                   .start = 1000 * (cycles_t)round + t,
                                   .end = 1000 * (cycles_t)round + t + 1};

            assert_int_equal(k.ops->slice(k.self, &r), 0);
        }
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
    sqlq_assert_path_rows(path,
                          "SELECT count(*), sum(thread_id = rowid), sum(first_row = 3 * rowid - 2),"
                          " sum(last_row = 3 * rowid), sum(min_time = thread_id),"
                          " sum(max_time = 2000 + thread_id + 1) FROM trace_blocks",
                          "300|300|300|300|300|300\n");
    sqlq_assert_path_rows(path,
                          "SELECT start_time FROM run_slices WHERE run_id = 1 AND thread_id = 299"
                          " ORDER BY seq",
                          "299\n1299\n2299\n");
}

/* A version-2 file as mcsim wrote it before blocks: run 1's slices of a
 * and b interleaved, in time order. */
static void make_v2_file(const char *path)
{
    struct db *db = open_db(path);
    sqlite3 *sq;

    db_close(db);
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq,
                                  DB_TEST_DROP_V5 " " DB_TEST_DROP_V3
                                  " INSERT INTO runs (scenario, seed, duration, cpu_hz, timer_hz,"
                                  " scheduler, hal, version, created_at, finished) VALUES"
                                  " ('blocks', 1, 1000, 1000000000, 62500000, 'mcs', 'sim',"
                                  " '0.1.0', '2024-05-01T12:00:00Z', 1);"
                                  " INSERT INTO slices VALUES (1, 1, 1, NULL, 0, 5),"
                                  " (1, 2, 2, NULL, 5, 10), (1, 1, 1, NULL, 10, 15),"
                                  " (1, 2, 2, NULL, 15, 20);"
                                  " PRAGMA user_version = 2;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
}

/* Opened for writing, the file gains one block per run and key spanning
 * the key's rowids; the views tell the interleaved rows apart, and a run
 * appended afterwards is written in blocks of its own. */
static void test_blocks_upgrade_v2(void **state)
{
    char path[256];
    struct db *db;

    (void)state;
    db_path(path, sizeof path, "v2.db");
    make_v2_file(path);
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT run_id, tbl, thread_id, sc_thread_id, first_row, last_row, min_time,"
                     " max_time FROM trace_blocks ORDER BY rowid",
                     "1|slices|1|1|1|3|0|15\n1|slices|2|2|2|4|5|20\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT thread_id, start_time, seq FROM run_slices WHERE run_id = 1"
                     " AND thread_id = 1 ORDER BY start_time",
                     "1|0|NULL\n1|10|NULL\n");
    db_close(db);
    run_alternating(path, 4);
    sqlq_assert_path_rows(path,
                          "SELECT run_id, thread_id, start_time, seq FROM run_slices"
                          " WHERE thread_id = 2 ORDER BY run_id, start_time",
                          "1|2|5|NULL\n1|2|15|NULL\n2|2|10|1\n2|2|30|3\n");
    sqlq_assert_path_rows(path,
                          "SELECT name, cpu, charged FROM stats WHERE run_id = 2"
                          " ORDER BY thread_id",
                          "(root)|0|0\na|10|10\nb|10|10\n");
}

/* Opened read-only (export, diff), a version-2 file stays as it is and is
 * read through temporary views of its tables. */
static void test_blocks_read_only_v2(void **state)
{
    char path[256];
    sqlite3 *sq;

    (void)state;
    db_path(path, sizeof path, "v2ro.db");
    make_v2_file(path);
    assert_int_equal(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(db_read_views(sq), 0);
    sqlq_assert_rows(sq,
                     "SELECT thread_id, start_time, block_start, block_end, seq FROM run_slices"
                     " WHERE run_id = 1 AND thread_id = 2 ORDER BY start_time",
                     "2|5|5|10|NULL\n2|15|15|20|NULL\n");
    sqlq_assert_rows(sq, "PRAGMA user_version", "2\n");
    sqlq_assert_rows(sq, "SELECT count(*) FROM sqlite_master WHERE name = 'trace_blocks'", "0\n");
    sqlite3_close(sq);
}

/* A version-3 file: one run of 4 alternating slices and an event, then
 * back to version 3's tables (no refills, no events.arg2). */
static void make_v3_file(const char *path)
{
    sqlite3 *sq;

    run_alternating(path, 4);
    assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq,
                                  DB_TEST_DROP_V5 " " DB_TEST_DROP_V4
                                  " INSERT INTO events VALUES (1, 0, 7, 'signal', 1, 99, 4);"
                                  " INSERT INTO trace_blocks VALUES (1, 'events', 1, NULL, NULL,"
                                  " 'signal', last_insert_rowid(), last_insert_rowid(), 7, 7);"
                                  " PRAGMA user_version = 3;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
}

/* Opened for writing, a version-3 file becomes version 4: its blocks are
 * kept (trace_blocks copied, its CHECK now allowing 'refills'), its events
 * have NULL in arg2, it has no refills; a run appended records refills in
 * blocks of their own. */
static void test_blocks_upgrade_v3(void **state)
{
    char path[256];
    struct db *db;
    struct scenario s;
    struct trace_sink k;

    (void)state;
    db_path(path, sizeof path, "v3.db");
    make_v3_file(path);
    db = open_db(path);
    sqlq_assert_rows(db_sqlite(db), "PRAGMA user_version", "5\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT tbl, thread_id, first_row, last_row, min_time, max_time"
                     " FROM trace_blocks ORDER BY rowid",
                     "slices|1|1|2|0|25\nslices|2|3|4|10|35\nevents|1|1|1|7|7\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT time, kind, thread_id, arg, arg2 FROM run_events",
                     "7|signal|1|4|NULL\n");
    sqlq_assert_rows(db_sqlite(db), "SELECT count(*) FROM run_refills", "0\n");
    sqlq_assert_rows(db_sqlite(db),
                     "SELECT name, cpu, cpu_ns FROM stats WHERE run_id = 1 ORDER BY thread_id",
                     "(root)|0|0\na|10|10\nb|10|10\n");
    k = db_sink(db, 0);
    two_thread_scenario(&s);
    assert_int_equal(k.ops->run_begin(k.self, &s, &meta), 0);
    assert_int_equal(k.ops->refill(k.self, &(struct sink_refill){.thread = 2, .sc_thread = 2,
                                                                 .time = 40, .head_time = 40,
                                                                 .head_amount = 1000, .count = 1,
                                                                 .max = 2}),
                     0);
    assert_int_equal(k.ops->run_end(k.self, true), 0);
    db_close(db);
    sqlq_assert_path_rows(path,
                          "SELECT run_id, thread_id, sc_thread_id, time, head_time, head_amount,"
                          " count, capacity, block_start, block_end FROM run_refills",
                          "2|2|2|40|40|1000|1|2|40|40\n");
}

/* Opened read-only, a version-3 file is read through temporary views that
 * add what version 4 has: NULL arg2 and no refills. */
static void test_blocks_read_only_v3(void **state)
{
    char path[256];
    sqlite3 *sq;

    (void)state;
    db_path(path, sizeof path, "v3ro.db");
    make_v3_file(path);
    assert_int_equal(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(db_read_views(sq), 0);
    sqlq_assert_rows(sq, "SELECT time, kind, arg, arg2, block_start FROM run_events",
                     "7|signal|4|NULL|7\n");
    sqlq_assert_rows(sq, "SELECT count(*) FROM run_refills", "0\n");
    sqlq_assert_rows(sq, "PRAGMA user_version", "3\n");
    sqlite3_close(sq);
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("db-blocks");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_arena_full),
        cmocka_unit_test(test_blocks_many_keys),
        cmocka_unit_test(test_blocks_upgrade_v2),
        cmocka_unit_test(test_blocks_read_only_v2),
        cmocka_unit_test(test_blocks_upgrade_v3),
        cmocka_unit_test(test_blocks_read_only_v3),
    };

    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
