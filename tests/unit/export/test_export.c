/*
 * cli/export*: `mcsim export` as a user runs it (MCSIM_BIN, set by
 * CTest) on runs recorded by `mcsim run`, the output read back with the
 * strict parsers of tests/support (json.h, csvread.h) and compared with
 * the database row by row, times exactly; the budget counter against the
 * refill lists of reference cases computed by hand; exact decimals.
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

#include "csvread.h"
#include "db/db.h"
#include "util/decimal.h"
#include "export/export.h"
#include "json.h"
#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define SCENARIO MCSIM_SOURCE_DIR "/tests/data/export/donation.yaml"
#define KERNEL_DIR MCSIM_SOURCE_DIR "/tests/scenarios/kernel"

/* A file name with a quote, a comma and a newline: the scenario's name
 * (its stem) and path must survive both formats' quoting. */
#define ODD_NAME "we\"ird,na\nme"

/* ---- files and commands ---- */

/* Run `mcsim ARGS` in the work directory, standard output to out.txt;
 * returns the exit status, standard error in spawn_err. */
static int run(const char *args)
{
    return spawn_shell("%s >out.txt", args);
}

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

static void test_export_decimal(void **state)
{
    static const struct {
        uint64_t cycles, hz;
        const char *us, *human;
    } cases[] = {
        {1234567, 1000000000, "1234.567", "1.234567ms"},
        {0, 1000000000, "0", "0"},
        {2000000, 1000000000, "2000", "2ms"},
        {1, 32768, "30.517578125", "30.517578us"},
        {1, 62500000, "0.016", "16ns"},
        {150000, 1000000000, "150", "150us"},
        {1, 3000000000u, "0.000333333333", "0.333333ns"},
        {3000000000u, 1000000000, "3000000", "3s"},
        {UINT64_MAX, 1, "18446744073709551615000000", "18446744073709551615s"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[DEC_BUF];
        dec_cycles_us(buf, sizeof buf, cases[i].cycles, cases[i].hz);
        assert_string_equal(buf, cases[i].us);
        dec_duration(buf, sizeof buf, cases[i].cycles, cases[i].hz);
        assert_string_equal(buf, cases[i].human);
    }
}

/* ---- the Chrome trace ---- */

static struct json *parse_json_file(const char *name)
{
    size_t len;
    char msg[256] = "";
    char *text = workdir_read(name, &len);
    struct json *v;
    assert_non_null(text);
    v = json_parse(text, len, msg, sizeof msg);
    if (!v)
        fail_msg("%s is not strict JSON: %s", name, msg);
    free(text);
    assert_int_equal(v->type, JSON_OBJECT);
    return v;
}

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
    assert_int_equal(run("export t.db --format chrome -o t.json"), 0);
    assert_string_equal(spawn_err, "");
    trace = parse_json_file("t.json");
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
    assert_int_equal(run("export --run 1 --format chrome t.db"), 0);
    trace = parse_json_file("out.txt");
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
    assert_int_equal(run("run " KERNEL_DIR "/b08_cb_fragmentation.yaml -o b8.db --quiet"), 0);
    assert_int_equal(run("export b8.db --format chrome -o b8.json"), 0);
    trace = parse_json_file("b8.json");
    samples_of(events_of(trace), "budget h", got, sizeof got);
    assert_string_equal(got, "0=4000 1000=3000 6000=0 10000=1000 11000=0 13000=3000 16000=0"
                             " 20000=1000 21000=0 23000=3000 26000=0");
    json_free(trace);
    /* B11a: E in [1, 2) and [3, 4); at 3 the used {12,1} merges into the
     * tail: {11,2}; h is throttled from 6 to 11 with nothing left, where
     * the sliding-window model showed budget back at 10 */
    assert_int_equal(run("run " KERNEL_DIR "/b11a_full_buffer.yaml -o b11.db --quiet"), 0);
    assert_int_equal(run("export b11.db --format chrome -o b11.json"), 0);
    trace = parse_json_file("b11.json");
    samples_of(events_of(trace), "budget h", got, sizeof got);
    assert_string_equal(got, "0=4000 1000=3000 3000=2000 6000=0 11000=2000 13000=0 14000=2000"
                             " 16000=0 21000=2000 23000=0 24000=2000 26000=0");
    json_free(trace);
    /* a window opening at 5ms while h runs on the head {4,2} it has used
     * 1ms of since 4: 1ms left, 0 at 6 */
    assert_int_equal(run("export b11.db --format chrome --from 5ms --to 15ms -o w.json"), 0);
    trace = parse_json_file("w.json");
    samples_of(events_of(trace), "budget h", got, sizeof got);
    assert_string_equal(got, "5000=1000 6000=0 11000=2000 13000=0 14000=2000");
    json_free(trace);
}

/* ---- CSV ---- */

static struct csv_table parse_csv(const char *name)
{
    struct csv_table t;
    size_t len;
    char msg[256] = "", *text = workdir_read(name, &len);
    if (!text)
        fail_msg("no file %s", name);
    if (csv_parse(text, len, &t, msg, sizeof msg) != 0)
        fail_msg("%s is not RFC 4180: %s", name, msg);
    free(text);
    return t;
}

/* c cycles at hz in nanoseconds, exactly (at most 12 decimals, cut, no
 * trailing zeros), worked out here by long division. */
static void ns_text(char *buf, size_t n, uint64_t c, uint64_t hz)
{
    unsigned __int128 num = (unsigned __int128)c * 1000000000u;
    uint64_t rem = (uint64_t)(num % hz);
    size_t len = (size_t)snprintf(buf, n, "%llu", (unsigned long long)(num / hz));

    if (rem == 0)
        return;
    buf[len++] = '.';
    for (int d = 0; d < 12 && rem != 0 && len + 1 < n; d++) {
        unsigned __int128 r = (unsigned __int128)rem * 10;
        buf[len++] = (char)('0' + (int)(r / hz));
        rem = (uint64_t)(r % hz);
    }
    while (buf[len - 1] == '0')
        len--;
    buf[len] = '\0';
}

/* The CSV file of one table holds exactly its rows of the run: header,
 * count, every cell as SQLite gives it as text, NULL as an empty field;
 * a column NAME followed by NAME_ns in the file holds cycles, and NAME_ns
 * is that time in nanoseconds at the run's cpu_hz (empty for NULL). */
static void check_table(sqlite3 *db, const char *dir, const char *table, const char *where,
                        uint64_t cpu_hz)
{
    char name[256], *sql;
    struct csv_table t;
    sqlite3_stmt *st;
    size_t row = 1, ns_cols = 0;
    int ncols;
    snprintf(name, sizeof name, "%s/%s.csv", dir, table);
    t = parse_csv(name);
    sql = sqlite3_mprintf("SELECT * FROM \"%w\" %s", table, where);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_free(sql);
    ncols = sqlite3_column_count(st);
    bool *ns = calloc((size_t)ncols + 1, sizeof *ns);
    size_t *at = calloc((size_t)ncols + 1, sizeof *at);
    assert_non_null(ns);
    assert_non_null(at);
    for (int c = 0; c < ncols; c++) {
        char want[96];
        at[c] = (size_t)c + ns_cols;
        assert_true(at[c] < t.cols);
        assert_string_equal(csv_at(&t, 0, at[c])->text, sqlite3_column_name(st, c));
        snprintf(want, sizeof want, "%s_ns", sqlite3_column_name(st, c));
        ns[c] = at[c] + 1 < t.cols && strcmp(csv_at(&t, 0, at[c] + 1)->text, want) == 0 &&
                strcmp(table, "stats") != 0;
        ns_cols += ns[c];
    }
    assert_int_equal(t.cols, (size_t)ncols + ns_cols);
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(row < t.rows);
        for (int c = 0; c < ncols; c++) {
            const struct csv_field *f = csv_at(&t, row, at[c]);
            if (sqlite3_column_type(st, c) == SQLITE_NULL)
                assert_true(f->len == 0 && !f->quoted);
            else if (sqlite3_column_type(st, c) != SQLITE_FLOAT)
                assert_string_equal(f->text, (const char *)sqlite3_column_text(st, c));
            if (ns[c]) {
                char want[96] = "";
                if (sqlite3_column_type(st, c) == SQLITE_INTEGER)
                    ns_text(want, sizeof want, (uint64_t)sqlite3_column_int64(st, c), cpu_hz);
                assert_string_equal(csv_at(&t, row, at[c] + 1)->text, want);
            }
        }
        row++;
    }
    sqlite3_finalize(st);
    free(ns);
    free(at);
    if (row != t.rows)
        fail_msg("%s: %zu rows in the file, %zu in the database", table, t.rows - 1, row - 1);
    csv_release(&t);
}

static void check_all_tables(sqlite3 *db, const char *dir, int64_t run)
{
    sqlite3_stmt *st;
    size_t tables = 0;
    char hz_sql[96];
    snprintf(hz_sql, sizeof hz_sql, "SELECT cpu_hz FROM runs WHERE run_id = %lld", (long long)run);
    uint64_t cpu_hz = (uint64_t)sqlq_int(db, hz_sql);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT name, name IN " DB_ACCESS_OBJECTS " FROM"
                                        " sqlite_master WHERE type IN ('table', 'view') AND"
                                        " name NOT LIKE 'sqlite%' ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(st, 0);
        bool seq = strcmp(table, "slices") == 0 || strcmp(table, "jobs") == 0 ||
                   strcmp(table, "budget_events") == 0 || strcmp(table, "irqs") == 0 ||
                   strcmp(table, "events") == 0 || strcmp(table, "refills") == 0;
        char where[160], name[256];
        if (sqlite3_column_int(st, 1)) {
            /* What finds rows, not data: not exported. */
            snprintf(name, sizeof name, "%s/%s.csv", dir, table);
            assert_null(workdir_read(name, &(size_t){0}));
            continue;
        }
        if (strcmp(table, "scenario_files") == 0)
            snprintf(where, sizeof where,
                     "WHERE sha256 IN (SELECT sha256 FROM runs WHERE run_id = %lld)",
                     (long long)run);
        else
            snprintf(where, sizeof where, "WHERE run_id = %lld%s", (long long)run,
                     strcmp(table, "stats") == 0 || strcmp(table, "run_stats") == 0 ? ""
                     : seq ? " ORDER BY seq, rowid"
                           : " ORDER BY rowid");
        check_table(db, dir, table, where, cpu_hz);
        tables++;
    }
    sqlite3_finalize(st);
    assert_true(tables >= 9);
}

static void test_export_csv(void **state)
{
    sqlite3 *db = sqlq_open(workdir_file("t.db"), true);
    struct csv_table t;
    (void)state;
    assert_int_equal(run("export t.db --format csv -o csv/a/b"), 0);
    assert_string_equal(spawn_err, "");
    check_all_tables(db, "csv/a/b", 2);
    /* Every column of cycles has its nanoseconds beside it. */
    static const char *const with_ns[][2] = {
        {"runs", "duration_ns"},       {"threads", "budget_ns"},
        {"threads", "period_ns"},      {"threads", "deadline_ns"},
        {"slices", "start_time_ns"},   {"slices", "end_time_ns"},
        {"jobs", "release_time_ns"},   {"jobs", "start_time_ns"},
        {"jobs", "finish_time_ns"},    {"jobs", "deadline_time_ns"},
        {"jobs", "response_ns"},       {"budget_events", "time_ns"},
        {"budget_events", "amount_ns"}, {"irqs", "arrival_ns"},
        {"irqs", "delivered_ns"},      {"irqs", "handler_start_ns"},
        {"events", "time_ns"},         {"final_refills", "time_ns"},
        {"final_refills", "amount_ns"}, {"refills", "time_ns"},
        {"refills", "head_time_ns"},   {"refills", "head_amount_ns"},
        {"kernel_stats", "cycles_ns"}, {"run_stats", "kernel_cycles_ns"},
        {"stats", "cpu_ns"},
    };
    for (size_t i = 0; i < sizeof with_ns / sizeof with_ns[0]; i++) {
        char file[128];
        snprintf(file, sizeof file, "csv/a/b/%s.csv", with_ns[i][0]);
        t = parse_csv(file);
        if (csv_column(&t, with_ns[i][1]) < 0)
            fail_msg("%s has no column %s", file, with_ns[i][1]);
        csv_release(&t);
    }
    /* Quoting: the path and the scenario's name come back whole. */
    t = parse_csv("csv/a/b/runs.csv");
    assert_int_equal(t.rows, 2);
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "scenario"))->text, ODD_NAME);
    assert_true(csv_at(&t, 1, (size_t)csv_column(&t, "scenario"))->quoted);
    csv_release(&t);
    /* Another run, into a directory that exists. */
    assert_int_equal(run("export t.db --format csv --run 1 -o csv/a"), 0);
    check_all_tables(db, "csv/a", 1);
    sqlite3_close(db);
}

/* Nanoseconds exactly at a clock that does not divide a second into whole
 * nanoseconds: 3 MHz, a cycle is 333.333... ns (cut after 12 decimals),
 * in the CSV's NAME_ns columns and in the stats view's *_ns. */
static void test_export_csv_ns(void **state)
{
    char path[512], msg[256];
    struct db *w;
    sqlite3 *db;
    struct csv_table t;
    (void)state;
    snprintf(path, sizeof path, "%s", workdir_file("ns.db"));
    assert_int_equal(db_open(path, &w, msg, sizeof msg), 0);
    assert_int_equal(
        sqlite3_exec(db_sqlite(w),
                     "INSERT INTO runs (scenario, seed, duration, cpu_hz, timer_hz, scheduler,"
                     " hal, version, created_at, finished) VALUES ('ns', 0, 3000, 3000000,"
                     " 1000000, 'mcs', 'sim', '0', '2024-01-01T00:00:00Z', 1);"
                     "INSERT INTO threads (run_id, thread_id, name, priority, budget, period,"
                     " passive) VALUES (1, 1, 'a', 1, 300, 3000, 0), (1, 2, 'b', 1, NULL, NULL, 1);"
                     "INSERT INTO slices (run_id, thread_id, sc_thread_id, start_time, end_time)"
                     " VALUES (1, 1, 1, 100, 250), (1, 2, 1, 250, 350);",
                     NULL, NULL, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_exec(db_sqlite(w), db_blocks_of_rows_sql, NULL, NULL, NULL),
                     SQLITE_OK);
    db_close(w);
    assert_int_equal(export_open(path, &db, msg, sizeof msg), 0);
    assert_int_equal(export_csv(db, 1, workdir_file("ns"), msg, sizeof msg), 0);
    sqlite3_close(db);
    t = parse_csv("ns/slices.csv");
    assert_int_equal(t.rows, 3);
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "start_time_ns"))->text,
                        "33333.333333333333");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "end_time_ns"))->text, "83333.333333333333");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "end_time_ns"))->text,
                        "116666.666666666666");
    csv_release(&t);
    t = parse_csv("ns/threads.csv");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "period_ns"))->text, "1000000");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "period_ns"))->text, "");
    csv_release(&t);
    /* a: 150 cycles of its own (50us), charged 250 (b ran 100 on its context) */
    t = parse_csv("ns/stats.csv");
    assert_int_equal(t.rows, 3);
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "name"))->text, "a");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "cpu_ns"))->text, "50000");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "charged_ns"))->text,
                        "83333.333333333333");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "name"))->text, "b");
    assert_string_equal(csv_at(&t, 2, (size_t)csv_column(&t, "cpu_ns"))->text, "33333.333333333333");
    assert_string_equal(csv_at(&t, 1, (size_t)csv_column(&t, "worst_response_ns"))->text, "");
    csv_release(&t);
}

/* ---- choosing the run, and mistakes ---- */

static void test_export_errors(void **state)
{
    sqlite3 *db;
    (void)state;
    assert_int_equal(run("export nope.db --format csv"), 2);
    assert_string_equal(spawn_err, "mcsim: nope.db: No such file or directory\n");
    assert_false(workdir_exists("nope.db"));
    assert_int_equal(run("export '" SCENARIO "' --format chrome"), 2);
    assert_non_null(strstr(spawn_err, "not an mcsim database"));
    assert_int_equal(run("export t.db --format chrome --run 99"), 2);
    assert_string_equal(spawn_err, "mcsim: t.db: no run 99\n");
    assert_int_equal(run("export t.db --format xml"), 2);
    assert_int_equal(run("export t.db"), 2);
    assert_non_null(strstr(spawn_err, "no format given"));
    assert_int_equal(run("export t.db --format csv --run 0"), 2);
    assert_int_equal(run("export t.db --format chrome -o no/such/dir/t.json"), 2);
    assert_int_equal(run("help export"), 0);
    /* An interrupted run is never the default, but may be asked for. */
    db = sqlq_open(workdir_file("t.db"), true);
    assert_int_equal(
        sqlite3_exec(db, "UPDATE runs SET finished = 0 WHERE run_id = 2", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(run("export t.db --format chrome -o u.json"), 0);
    struct json *trace = parse_json_file("u.json");
    assert_int_equal((int)json_get(json_get(trace, "otherData"), "run_id")->number, 1);
    json_free(trace);
    assert_int_equal(run("export t.db --format chrome --run 2 -o u.json"), 0);
    assert_string_equal(spawn_err, "mcsim: export: warning: run 2 is unfinished (interrupted): its "
                                   "rows stop where it stopped\n");
    db = sqlq_open(workdir_file("t.db"), true);
    assert_int_equal(
        sqlite3_exec(db, "UPDATE runs SET finished = 1 WHERE run_id = 2", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
}

/* ---- fixtures ---- */

/* Two runs of the scenario under an odd file name: run 1 classic, run 2
 * mcs. */
static int setup(void **state)
{
    (void)state;
    if (workdir_create("export") != 0)
        return -1;
    workdir_copy(SCENARIO, ODD_NAME ".yaml");
    if (run("run '" ODD_NAME ".yaml' -o t.db --scheduler classic --quiet") > 1 ||
        run("run '" ODD_NAME ".yaml' -o t.db --quiet") > 1) {
        print_message("mcsim run failed: %s\n", spawn_err);
        return -1;
    }
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_decimal),
        cmocka_unit_test(test_export_chrome),
        cmocka_unit_test(test_export_chrome_classic_stdout),
        cmocka_unit_test(test_export_budget_refills),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_export_csv_ns),
        cmocka_unit_test(test_export_errors),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
