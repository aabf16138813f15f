/*
 * The Chrome trace export against the Trace Event Format's rules
 * (tests/support/trace_check.h) for every example scenario under both
 * schedulers, and what --from, --to and --threads keep: only the window's
 * events of those threads, spans clipped to it; jobs as spans with their
 * deadline and response; flows bound at both ends.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
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

#include "json.h"
#include "spawn.h"
#include "sqlq.h"
#include "trace_check.h"
#include "workdir.h"

#define EXAMPLES MCSIM_SOURCE_DIR "/scenarios"
#define NETWORK EXAMPLES "/network_driver.yaml"
#define SHARED EXAMPLES "/shared_server.yaml"

static struct json *load_trace(const char *name)
{
    size_t len;
    char msg[256] = "";
    char *text = workdir_read(name, &len);
    struct json *v;

    assert_non_null(text);
    if (strstr(text, "null") != NULL)
        fail_msg("%s holds a null", name);
    v = json_parse(text, len, msg, sizeof msg);
    if (!v)
        fail_msg("%s is not strict JSON: %s", name, msg);
    free(text);
    return v;
}

static struct json *checked_trace(const char *name, struct trace_counts *n)
{
    struct json *t = load_trace(name);
    char err[300];

    if (trace_check(t, n, err, sizeof err) != 0)
        fail_msg("%s breaks the Trace Event Format: %s", name, err);
    return t;
}

static const char *str(const struct json *v, const char *key)
{
    const struct json *m = json_get(v, key);
    return m && m->type == JSON_STRING ? m->text : "";
}

static double num(const struct json *v, const char *key)
{
    const struct json *m = json_get(v, key);
    assert_non_null(m);
    return m->number;
}

static size_t count(const struct json *trace, const char *ph, const char *cat)
{
    const struct json *ev = json_get(trace, "traceEvents");
    size_t n = 0;
    for (size_t i = 0; i < ev->count; i++)
        n += strcmp(str(ev->items[i], "ph"), ph) == 0 &&
             (!cat || strcmp(str(ev->items[i], "cat"), cat) == 0);
    return n;
}

/* ---- the checker itself catches each broken rule ---- */

static void test_export_chrome_checker(void **state)
{
#define EV(x) "{\"traceEvents\":[" x "]}"
#define X(tid, ts, dur) "{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur "}"
    static const struct {
        const char *json, *error; /* NULL: valid */
    } cases[] = {
        {EV(X(1, 0, 10) "," X(1, 2, 3) "," X(1, 10, 0)), NULL},
        {EV(X(1, 0, 10) "," X(1, 5, 10)), "X overlaps an earlier span"},
        {EV(X(1, 5, 1) "," X(1, 2, 1)), "ts goes back on its track"},
        {EV(X(1, 5, 1) "," X(2, 2, 1)), NULL},
        {EV("{\"name\":\"a\",\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"x\":null}}"),
         "a null member"},
        {EV("{\"name\":\"a\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1}"), "a B never ended"},
        {EV("{\"name\":\"a\",\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":1}"), "an E without its B"},
        {EV(X(1, 0, 10) ",{\"name\":\"f\",\"cat\":\"c\",\"ph\":\"s\",\"pid\":1,"
            "\"tid\":1,\"ts\":10,\"id\":7},{\"name\":\"f\",\"cat\":\"c\",\"ph\":\"f\","
            "\"pid\":1,\"tid\":2,\"ts\":15,\"id\":7}," X(2, 20, 5)),
         NULL},
        {EV(X(1, 0, 10) ",{\"name\":\"f\",\"cat\":\"c\",\"ph\":\"s\",\"pid\":1,"
            "\"tid\":1,\"ts\":11,\"id\":7},{\"name\":\"f\",\"cat\":\"c\",\"ph\":\"f\","
            "\"pid\":1,\"tid\":2,\"ts\":15,\"id\":7}," X(2, 20, 5)),
         "is bound to no span"},
        {EV(X(1, 0, 10) ",{\"name\":\"f\",\"cat\":\"c\",\"ph\":\"s\",\"pid\":1,"
            "\"tid\":1,\"ts\":5,\"id\":7}"),
         "has 1 starts and 0 ends"},
        {EV("{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":-1}"),
         "needs a dur >= 0"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[300] = "", msg[200];
        struct trace_counts n;
        struct json *t = json_parse(cases[i].json, strlen(cases[i].json), msg, sizeof msg);
        int rc;
        if (t == NULL)
            fail_msg("case %zu: %s", i, msg);
        rc = trace_check(t, &n, err, sizeof err);
        json_free(t);
        if (cases[i].error ? rc == 0 || strstr(err, cases[i].error) == NULL : rc != 0)
            fail_msg("case %zu: got %d '%s', expected '%s'", i, rc, err,
                     cases[i].error ? cases[i].error : "valid");
    }
#undef X
#undef EV
}

/* ---- every example scenario ---- */

static void test_export_chrome_rules_examples(void **state)
{
    DIR *dir = opendir(EXAMPLES);
    struct dirent *e;
    size_t checked = 0;
    (void)state;

    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        static const char *const schedulers[] = {"mcs", "classic"};
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        for (size_t s = 0; s < 2; s++) {
            struct trace_counts n;
            struct json *t;
            if (spawn_shell("run '%s/%s' -o ex.db --scheduler %s --quiet", EXAMPLES, e->d_name,
                            schedulers[s]) > 1 ||
                spawn_shell("export ex.db --format chrome -o ex.json") != 0)
                fail_msg("%s (%s): %s", e->d_name, schedulers[s], spawn_err);
            t = checked_trace("ex.json", &n);
            assert_true(n.spans > 0);
            json_free(t);
            checked++;
        }
    }
    closedir(dir);
    assert_true(checked >= 22); /* 11 scenarios, 2 schedulers */
}

/* With --trace full: message and reply flows, each bound at both ends. */
static void test_export_chrome_ipc_flows(void **state)
{
    struct trace_counts n;
    struct json *t;
    sqlite3 *db;
    (void)state;

    assert_int_equal(spawn_shell("run '%s' -o full.db --trace full --quiet", SHARED), 0);
    assert_int_equal(spawn_shell("export full.db --format chrome -o full.json"), 0);
    t = checked_trace("full.json", &n);
    db = sqlq_open(workdir_file("full.db"), false);
    /* interrupt flows: one per delivery whose handler ran */
    assert_int_equal(count(t, "s", "irq"),
                     (size_t)sqlq_int(db, "SELECT count(*) FROM irqs WHERE handler IS NOT NULL "
                                          "AND handler_start IS NOT NULL"));
    /* a message to the passive server donates the caller's context */
    assert_true(count(t, "s", "ipc") > 100);
    char *text = workdir_read("full.json", NULL);
    assert_non_null(strstr(text, "\"message, context donated\""));
    assert_non_null(strstr(text, "\"name\":\"reply\",\"cat\":\"ipc\""));
    free(text);
    sqlite3_close(db);
    json_free(t);
}

/* Signal -> wake (issue 14): tests/data/export/signal.yaml signals `go`
 * twice; the first wakes consumer, the second finds it runnable and stays
 * pending. The events table keeps the thread each woke (arg2), and the
 * export has exactly one flow, from producer's slice at 2ms to consumer's
 * next slice (which begins at 3.5ms; the second wait does not block, so
 * the slice runs on to 6.5ms), with the signal's events row as id. */
static void test_export_chrome_signal_flows(void **state)
{
    struct trace_counts n;
    struct json *t;
    const struct json *ev;
    sqlite3 *db;
    char got[512] = "", want[512];
    size_t len = 0;
    (void)state;

    assert_int_equal(spawn_shell("run '%s' -o sig.db --trace full --quiet",
                                 MCSIM_SOURCE_DIR "/tests/data/export/signal.yaml"),
                     0);
    assert_int_equal(spawn_shell("export sig.db --format chrome -o sig.json"), 0);
    db = sqlq_open(workdir_file("sig.db"), false);
    sqlq_assert_rows(db,
                     "SELECT e.time, p.name, w.name FROM events e JOIN threads p"
                     " ON p.run_id = e.run_id AND p.thread_id = e.thread_id LEFT JOIN threads w"
                     " ON w.run_id = e.run_id AND w.thread_id = e.arg2 WHERE e.kind = 'signal'"
                     " ORDER BY e.seq",
                     "2000000|producer|consumer\n3000000|producer|NULL\n");
    sqlq_assert_rows(db, "SELECT start_time, end_time FROM slices WHERE thread_id = 2 ORDER BY seq",
                     "3500000|6500000\n");
    snprintf(want, sizeof want,
             "s signal, wakes tid=1 ts=2000 id=%lld bp=e\nf signal, wakes tid=2 ts=2000 id=%lld"
             " bp=-\n",
             (long long)sqlq_int(db, "SELECT rowid FROM events WHERE kind = 'signal'"
                                     " AND arg2 IS NOT NULL"),
             (long long)sqlq_int(db, "SELECT rowid FROM events WHERE kind = 'signal'"
                                     " AND arg2 IS NOT NULL"));
    t = checked_trace("sig.json", &n);
    ev = json_get(t, "traceEvents");
    for (size_t i = 0; i < ev->count; i++) {
        const struct json *e = ev->items[i];
        if (strcmp(str(e, "cat"), "signal") != 0)
            continue;
        len += (size_t)snprintf(got + len, sizeof got - len, "%s %s tid=%g ts=%g id=%g bp=%s\n",
                                str(e, "ph"), str(e, "name"), num(e, "tid"), num(e, "ts"),
                                num(e, "id"), json_get(e, "bp") ? str(e, "bp") : "-");
    }
    assert_string_equal(got, want);
    /* without --trace full no signal is recorded, and no flow written */
    assert_int_equal(spawn_shell("run '%s' -o sched.db --quiet",
                                 MCSIM_SOURCE_DIR "/tests/data/export/signal.yaml"),
                     0);
    assert_int_equal(spawn_shell("export sched.db --format chrome -o sched.json"), 0);
    json_free(t);
    t = checked_trace("sched.json", &n);
    assert_int_equal(count(t, "s", "signal") + count(t, "f", "signal"), 0);
    json_free(t);
    sqlite3_close(db);
}

/* ---- a window ---- */

#define FROM 20000000 /* cycles: 20ms at 1GHz */
#define TO 30000000

/* Every event of the window export lies in [20ms, 30ms) (a span within
 * it), is of control or of a device, and the slices, jobs and throttles
 * are those the tables have in the window. */
static void test_export_chrome_window(void **state)
{
    struct trace_counts n;
    struct json *t;
    const struct json *ev;
    sqlite3 *db;
    size_t slices = 0, jobs = 0;
    (void)state;

    assert_int_equal(spawn_shell("run '%s' -o net.db --quiet", NETWORK), 0);
    assert_int_equal(spawn_shell("export net.db --format chrome -o w.json --from 20ms --to 30ms "
                                 "--threads control"),
                     0);
    t = checked_trace("w.json", &n);
    ev = json_get(t, "traceEvents");
    db = sqlq_open(workdir_file("net.db"), false);
    for (size_t i = 0; i < ev->count; i++) {
        const struct json *e = ev->items[i];
        const char *ph = str(e, "ph");
        double ts, end;
        if (strcmp(ph, "M") == 0)
            continue;
        ts = num(e, "ts");
        end = strcmp(ph, "X") == 0 ? ts + num(e, "dur") : ts;
        if (ts < 20000 || end > 30000 || (strcmp(ph, "X") != 0 && ts >= 30000))
            fail_msg("event %zu (%s) at %g..%g is outside the window", i, str(e, "name"), ts,
                     end);
        if (strcmp(ph, "C") == 0) {
            assert_string_equal(str(e, "name"), "budget control");
            continue;
        }
        /* control is thread 1: its track, its jobs' lanes, its context's;
         * device tracks come after the threads (3 + line) */
        double tid = num(e, "tid");
        if (!(tid == 1 || tid == 1000000 + 1 || tid == 1100000 + 1 || tid == 2000000 + 1 ||
              (tid >= 3 && tid < 1000)))
            fail_msg("event %zu (%s) is on track %.0f, not control's or a device's", i,
                     str(e, "name"), tid);
        slices += strcmp(str(e, "cat"), "slice") == 0;
        jobs += strcmp(ph, "X") == 0 && strcmp(str(e, "cat"), "job") == 0;
    }
    assert_int_equal(slices, (size_t)sqlq_int(db, "SELECT count(*) FROM slices WHERE thread_id "
                                                  "= 1 AND start_time < 30000000 AND "
                                                  "end_time > 20000000"));
    assert_int_equal(jobs, (size_t)sqlq_int(db, "SELECT count(*) FROM jobs WHERE thread_id = 1 "
                                                "AND release_time < 30000000 AND "
                                                "coalesce(finish_time, 200000000) >= 20000000"));
    assert_int_equal(count(t, "X", "irq"),
                     (size_t)sqlq_int(db, "SELECT count(*) FROM irqs WHERE arrival >= 20000000 "
                                          "AND arrival < 30000000 AND delivered IS NOT NULL"));
    assert_true(slices > 0 && jobs > 0);
    /* net_driver's handler flows end on a track not exported: none kept */
    assert_int_equal(count(t, "s", "irq"), count(t, "f", "irq"));
    sqlite3_close(db);
    json_free(t);
}

/* Jobs are spans from release to completion, with deadline and response
 * as arguments, equal to the jobs table's. */
static void test_export_chrome_jobs(void **state)
{
    struct trace_counts n;
    struct json *t;
    const struct json *ev;
    sqlite3 *db;
    size_t jobs = 0;
    (void)state;

    assert_int_equal(spawn_shell("export net.db --format chrome -o j.json --threads control"), 0);
    t = checked_trace("j.json", &n);
    ev = json_get(t, "traceEvents");
    db = sqlq_open(workdir_file("net.db"), false);
    for (size_t i = 0; i < ev->count; i++) {
        const struct json *e = ev->items[i], *a = json_get(e, "args");
        char sql[200];
        if (strcmp(str(e, "ph"), "X") != 0 || strcmp(str(e, "cat"), "job") != 0)
            continue;
        jobs++;
        snprintf(sql, sizeof sql, "SELECT response FROM jobs WHERE thread_id = 1 AND job = %d",
                 (int)num(a, "job"));
        assert_int_equal(llround(num(a, "response_us") * 1000), sqlq_int(db, sql));
        assert_true(num(e, "dur") == num(a, "response_us"));
        snprintf(sql, sizeof sql,
                 "SELECT deadline_time FROM jobs WHERE thread_id = 1 AND job = %d",
                 (int)num(a, "job"));
        assert_int_equal(llround(num(a, "deadline_us") * 1000), sqlq_int(db, sql));
    }
    assert_int_equal(jobs, (size_t)sqlq_int(db, "SELECT count(*) FROM jobs WHERE thread_id = 1"));
    sqlite3_close(db);
    json_free(t);
}

static void test_export_chrome_window_errors(void **state)
{
    static const struct {
        const char *args, *message;
    } cases[] = {
        {"--from 300ms", "mcsim: export: --from 300ms is not before the end of run 1\n"},
        {"--from 5ms --to 5ms", "mcsim: export: --to 5ms is not after --from 5ms\n"},
        {"--from 5", "mcsim: export: --from '5': a number other than 0 needs a unit"},
        {"--threads control,nosuch", "mcsim: export: --threads: run 1 has no thread 'nosuch'\n"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = spawn_shell("export net.db --format chrome -o bad.json %s", cases[i].args);
        if (rc != 2 || strncmp(spawn_err, cases[i].message, strlen(cases[i].message)) != 0)
            fail_msg("%s: exit %d, '%s'", cases[i].args, rc, spawn_err);
        assert_false(workdir_exists("bad.json"));
    }
    assert_int_equal(spawn_shell("export net.db --format csv --from 5ms"), 2);
    assert_non_null(strstr(spawn_err, "--from, --to and --threads are for --format chrome"));
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("export_chrome");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_chrome_checker),
        cmocka_unit_test(test_export_chrome_rules_examples),
        cmocka_unit_test(test_export_chrome_ipc_flows),
        cmocka_unit_test(test_export_chrome_signal_flows),
        cmocka_unit_test(test_export_chrome_window),
        cmocka_unit_test(test_export_chrome_jobs),
        cmocka_unit_test(test_export_chrome_window_errors),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
