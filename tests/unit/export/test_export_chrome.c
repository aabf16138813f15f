/*
 * `mcsim export --format chrome` (cli/export/) on runs recorded by `mcsim
 * run`, read back with the strict JSON parser of tests/support and compared
 * with the database row by row, times exactly in microseconds; the budget
 * counter against the refill lists of reference cases computed by hand.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "db/db.h"
#include "export_fx.h"
#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define KERNEL_DIR MCSIM_SOURCE_DIR "/tests/scenarios/kernel"

/* ---- exact microseconds ---- */

__extension__ typedef unsigned __int128 u128;

/* True if the JSON number `text` is exactly `cycles` at `hz` in
 * microseconds: text = M / 10^k and M * hz = cycles * 10^6 * 10^k. */
static bool us_equals(const char *text, uint64_t cycles, uint64_t hz)
{
    u128 m = 0, scale = 1;
    bool frac = false;
    for (const char *p = text; *p; p++) {
        if (*p == '.' && !frac) {
            frac = true;
            continue;
        }
        if (*p < '0' || *p > '9')
            return false;
        m = m * 10 + (u128)(*p - '0');
        if (frac)
            scale *= 10;
    }
    return m * hz == (u128)cycles * 1000000u * scale;
}

/* The cycles a JSON number of microseconds stands for, at `hz` (exact). */
static uint64_t us_cycles(const struct json *v, uint64_t hz)
{
    u128 m = 0, scale = 1;
    bool frac = false;
    assert_int_equal(v->type, JSON_NUMBER);
    for (const char *p = v->text; *p; p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        m = m * 10 + (u128)(*p - '0');
        if (frac)
            scale *= 10;
    }
    assert_true((m * hz) % (1000000u * scale) == 0);
    return (uint64_t)(m * hz / (1000000u * scale));
}

/* ---- the Chrome trace ---- */

static const struct json *events_of(const struct json *trace)
{
    const struct json *ev = json_get(trace, "traceEvents");
    assert_non_null(ev);
    assert_int_equal(ev->type, JSON_ARRAY);
    return ev;
}

static const char *str(const struct json *v, const char *key)
{
    const struct json *m = json_get(v, key);
    return m && m->type == JSON_STRING ? m->text : NULL;
}

static size_t count_events(const struct json *ev, const char *ph, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < ev->count; i++)
        n += strcmp(str(ev->items[i], "ph"), ph) == 0 &&
             (!name || strcmp(str(ev->items[i], "name"), name) == 0);
    return n;
}

static size_t count_cat(const struct json *ev, const char *ph, const char *cat)
{
    size_t n = 0;
    for (size_t i = 0; i < ev->count; i++)
        n += strcmp(str(ev->items[i], "ph"), ph) == 0 && str(ev->items[i], "cat") &&
             strcmp(str(ev->items[i], "cat"), cat) == 0;
    return n;
}

/* Every slice of the run is a complete event on its thread's track, in
 * order, with exact times. */
static void check_slices(sqlite3 *db, int64_t run, uint64_t hz, const struct json *ev)
{
    sqlite3_stmt *st;
    char sql[128];
    size_t i = 0;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT thread_id, start_time, end_time FROM slices"
                                        " WHERE run_id = ?1 ORDER BY start_time, rowid",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, run);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const struct json *e;
        while (i < ev->count && (strcmp(str(ev->items[i], "ph"), "X") != 0 ||
                                 strcmp(str(ev->items[i], "cat"), "slice") != 0))
            i++;
        assert_true(i < ev->count);
        e = ev->items[i++];
        assert_int_equal((int64_t)json_get(e, "tid")->number, sqlite3_column_int64(st, 0));
        assert_true(us_equals(json_get(e, "ts")->text, (uint64_t)sqlite3_column_int64(st, 1), hz));
        assert_true(us_equals(json_get(e, "dur")->text,
                              (uint64_t)(sqlite3_column_int64(st, 2) - sqlite3_column_int64(st, 1)),
                              hz));
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM slices WHERE run_id = %lld", (long long)run);
    assert_int_equal(count_cat(ev, "X", "slice"), (size_t)sqlq_int(db, sql));
}

/* Instant events: as many as the rows they come from. */
static void check_instants(sqlite3 *db, int64_t run, const struct json *ev)
{
    static const struct {
        const char *name, *sql;
    } kinds[] = {
        {"release", "SELECT count(*) FROM jobs WHERE run_id = %lld"},
        {"complete", "SELECT count(finish_time) FROM jobs WHERE run_id = %lld"},
        {"deadline_miss", "SELECT count(*) FROM jobs WHERE run_id = %lld AND missed = 1"},
        {"throttle",
         "SELECT count(*) FROM budget_events WHERE run_id = %lld AND kind = 'throttle'"},
        {"replenish",
         "SELECT count(*) FROM budget_events WHERE run_id = %lld AND kind = 'replenish'"},
        {"timeout_fault",
         "SELECT count(*) FROM budget_events WHERE run_id = %lld AND kind = 'timeout_fault'"},
        {"emergency",
         "SELECT count(*) FROM budget_events WHERE run_id = %lld AND kind = 'emergency'"},
        /* a delivered interrupt is a span, arrival to delivery */
        {"irq", "SELECT count(*) FROM irqs WHERE run_id = %lld AND lost = 0 AND delivered IS NULL"},
        {"irq_lost", "SELECT count(*) FROM irqs WHERE run_id = %lld AND lost = 1"},
        {"preempt", "SELECT count(*) FROM events WHERE run_id = %lld AND kind = 'preempt'"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, kinds[i].sql, (long long)run);
        if (count_events(ev, "i", kinds[i].name) != (size_t)sqlq_int(db, sql))
            fail_msg("%s: %zu events, %lld rows", kinds[i].name,
                     count_events(ev, "i", kinds[i].name), (long long)sqlq_int(db, sql));
    }
}

/* The counter's value at `t`: its last sample at or before t. */
static uint64_t value_at(const uint64_t *ts, const uint64_t *vs, size_t n, uint64_t t)
{
    uint64_t v = vs[0];
    for (size_t i = 0; i < n && ts[i] <= t; i++)
        v = vs[i];
    return v;
}

/* What the kernel's records say about context `thread`: at each refills
 * row (the last of its instant) the counter is the head's amount if the
 * head is due, else 0; after a throttle, 0. */
static void check_anchors(sqlite3 *db, int64_t run, int64_t thread, const uint64_t *ts,
                          const uint64_t *vs, size_t n)
{
    sqlite3_stmt *st;
    size_t rows = 0;
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "SELECT r.time, CASE WHEN r.head_time > r.time THEN 0"
                           " ELSE r.head_amount END, 'refill' FROM refills r"
                           " WHERE r.run_id = ?1 AND r.sc_thread_id = ?2 AND NOT EXISTS"
                           " (SELECT 1 FROM refills q WHERE q.run_id = r.run_id"
                           " AND q.sc_thread_id = r.sc_thread_id AND q.time = r.time"
                           " AND q.seq > r.seq)"
                           " UNION ALL SELECT b.time, 0, 'throttle' FROM budget_events b"
                           " WHERE b.run_id = ?1 AND b.sc_thread_id = ?2 AND b.kind = 'throttle'",
                           -1, &st, NULL),
        SQLITE_OK);
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, thread);
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint64_t t = (uint64_t)sqlite3_column_int64(st, 0);
        uint64_t want = (uint64_t)sqlite3_column_int64(st, 1);
        if (value_at(ts, vs, n, t) != want)
            fail_msg("context %lld at %llu (%s): counter %llu, expected %llu", (long long)thread,
                     (unsigned long long)t, (const char *)sqlite3_column_text(st, 2),
                     (unsigned long long)value_at(ts, vs, n, t), (unsigned long long)want);
        rows++;
    }
    sqlite3_finalize(st);
    assert_true(rows > 1);
}

/* The counter of a periodic context: time-ordered, from its first refill
 * record, within [0, budget + grants], anchored as check_anchors says.
 * Returns its number of samples. */
static size_t check_counter(sqlite3 *db, int64_t run, uint64_t hz, const struct json *ev,
                            int64_t thread, const char *name, uint64_t budget)
{
    char label[128], sql[256];
    uint64_t grants, *ts = calloc(ev->count, sizeof *ts), *vs = calloc(ev->count, sizeof *vs);
    size_t n = 0;
    assert_true(ts && vs);
    snprintf(label, sizeof label, "budget %s", name);
    snprintf(sql, sizeof sql,
             "SELECT coalesce(sum(amount), 0) FROM budget_events WHERE run_id = %lld AND"
             " sc_thread_id = %lld AND kind = 'emergency'",
             (long long)run, (long long)thread);
    grants = (uint64_t)sqlq_int(db, sql);
    snprintf(sql, sizeof sql, "SELECT min(time) FROM refills WHERE run_id = %lld AND"
             " sc_thread_id = %lld", (long long)run, (long long)thread);
    for (size_t i = 0; i < ev->count; i++) {
        const struct json *e = ev->items[i];
        if (strcmp(str(e, "ph"), "C") != 0 || strcmp(str(e, "name"), label) != 0)
            continue;
        ts[n] = us_cycles(json_get(e, "ts"), hz);
        vs[n] = us_cycles(json_get(json_get(e, "args"), "remaining_us"), hz);
        assert_true(n == 0 ? ts[n] == (uint64_t)sqlq_int(db, sql) : ts[n] > ts[n - 1]);
        assert_true(n == 0 || vs[n] != vs[n - 1]);
        assert_true(vs[n] <= budget + grants);
        n++;
    }
    if (n > 0)
        check_anchors(db, run, thread, ts, vs, n);
    free(ts);
    free(vs);
    return n;
}

static void test_export_chrome(void **state)
{
    sqlite3 *db = sqlq_open(workdir_file("t.db"), true);
    struct json *trace;
    const struct json *ev, *other;
    sqlite3_stmt *st;
    (void)state;
    assert_int_equal(export_run("export t.db --format chrome -o t.json"), 0);
    assert_string_equal(spawn_err, "");
    trace = export_json_file("t.json");
    other = json_get(trace, "otherData");
    assert_int_equal((int)json_get(other, "run_id")->number, 2); /* the latest finished */
    assert_string_equal(str(other, "scenario"), ODD_NAME);
    assert_string_equal(str(other, "scheduler"), "mcs");
    ev = events_of(trace);
    check_slices(db, 2, 1000000000u, ev);
    check_instants(db, 2, ev);
    /* Metadata: the process and every thread named, with a track for its
     * jobs if it had any */
    assert_string_equal(str(json_get(ev->items[0], "args"), "name"), ODD_NAME " (run 2, mcs)");
    assert_true(count_events(ev, "M", "thread_name") >=
                (size_t)sqlq_int(db, "SELECT count(*) FROM threads WHERE run_id = 2") +
                    (size_t)sqlq_int(db, "SELECT count(DISTINCT thread_id) FROM jobs WHERE run_id = 2") +
                    (size_t)sqlq_int(db, "SELECT count(DISTINCT line) FROM irqs"
                                         " WHERE run_id = 2"));
    /* A counter per thread with a periodic context of its own (control,
     * fault_handler, flood_handler, hog); none for the round-robin spinner
     * (its list is not recorded) or a passive thread. */
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT thread_id, name, budget, period > budget"
                                        " FROM threads WHERE run_id = 2 AND passive = 0"
                                        " AND budget IS NOT NULL",
                                        -1, &st, NULL),
                     SQLITE_OK);
    size_t periodic = 0, rr = 0, samples = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t n = check_counter(db, 2, 1000000000u, ev, sqlite3_column_int64(st, 0),
                                 (const char *)sqlite3_column_text(st, 1),
                                 (uint64_t)sqlite3_column_int64(st, 2));
        samples += n;
        if (sqlite3_column_int(st, 3)) {
            assert_true(n > 1);
            periodic++;
        } else {
            assert_int_equal(n, 0);
            rr++;
        }
    }
    sqlite3_finalize(st);
    assert_int_equal(periodic, 4);
    assert_int_equal(rr, 1);
    assert_int_equal(count_events(ev, "C", NULL), samples);
    json_free(trace);
    sqlite3_close(db);
}

static void test_export_chrome_classic_stdout(void **state)
{
    sqlite3 *db = sqlq_open(workdir_file("t.db"), true);
    struct json *trace;
    const struct json *ev;
    (void)state;
    assert_int_equal(export_run("export --run 1 --format chrome t.db"), 0);
    trace = export_json_file("out.txt");
    ev = events_of(trace);
    assert_string_equal(str(json_get(trace, "otherData"), "scheduler"), "classic");
    assert_int_equal(count_events(ev, "C", NULL), 0); /* no contexts under classic */
    check_slices(db, 1, 1000000000u, ev);
    check_instants(db, 1, ev);
    json_free(trace);
    sqlite3_close(db);
}

/* ---- the budget counter against hand-computed refills ---- */

static void samples_of(const struct json *ev, const char *counter, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ev->count; i++) {
        const struct json *e = ev->items[i];
        if (strcmp(str(e, "ph"), "C") != 0 || strcmp(str(e, "name"), counter) != 0)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", json_get(e, "ts")->text,
                              json_get(json_get(e, "args"), "remaining_us")->text);
    }
}

/* h's counter of reference cases B8 and B11a (tests/scenarios/kernel,
 * zero kernel costs; h: 4ms every 10ms, 2 refills), from their refill
 * lists computed by hand in tests/unit/summary/test_fragment.c: the
 * head's amount once due, 0 until then, falling by what h ran; it changes
 * at the records and where h's slices end, one sample an instant, in us. */
static void test_export_budget_refills(void **state)
{
    char got[1024];
    struct json *trace;
    (void)state;
    /* B8: E preempts h in [1, 3); {1,3} with {10,1} used; at 6 the head
     * {3,3} is used whole and goes to {13,3}: the list holds {10,1}
     * {13,3}, then {20,1} {23,3}, ... */
    assert_int_equal(export_run("run " KERNEL_DIR "/b08_cb_fragmentation.yaml -o b8.db --quiet"), 0);
    assert_int_equal(export_run("export b8.db --format chrome -o b8.json"), 0);
    trace = export_json_file("b8.json");
    samples_of(events_of(trace), "budget h", got, sizeof got);
    assert_string_equal(got, "0=4000 1000=3000 6000=0 10000=1000 11000=0 13000=3000 16000=0"
                             " 20000=1000 21000=0 23000=3000 26000=0");
    json_free(trace);
    /* B11a: E in [1, 2) and [3, 4); at 3 the used {12,1} merges into the
     * tail: {11,2}; h is throttled from 6 to 11 with nothing left, where
     * the sliding-window model showed budget back at 10 */
    assert_int_equal(export_run("run " KERNEL_DIR "/b11a_full_buffer.yaml -o b11.db --quiet"), 0);
    assert_int_equal(export_run("export b11.db --format chrome -o b11.json"), 0);
    trace = export_json_file("b11.json");
    samples_of(events_of(trace), "budget h", got, sizeof got);
    assert_string_equal(got, "0=4000 1000=3000 3000=2000 6000=0 11000=2000 13000=0 14000=2000"
                             " 16000=0 21000=2000 23000=0 24000=2000 26000=0");
    json_free(trace);
    /* a window opening at 5ms while h runs on the head {4,2} it has used
     * 1ms of since 4: 1ms left, 0 at 6 */
    assert_int_equal(export_run("export b11.db --format chrome --from 5ms --to 15ms -o w.json"), 0);
    trace = export_json_file("w.json");
    samples_of(events_of(trace), "budget h", got, sizeof got);
    assert_string_equal(got, "5000=1000 6000=0 11000=2000 13000=0 14000=2000");
    json_free(trace);
}

static int setup(void **state)
{
    (void)state;
    return export_setup("export_chrome");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_chrome),
        cmocka_unit_test(test_export_chrome_classic_stdout),
        cmocka_unit_test(test_export_budget_refills),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
