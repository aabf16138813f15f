/*
 * tests/support/refcase: every reference case parses; exact values of a
 * few; malformed expected documents fail loudly; the comparator accepts a
 * hand-built database (DESIGN.md's tables) that matches a case and
 * rejects, with a report naming what differs, one that is a cycle off.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "refcase.h"

#define MS(x) ((cycles_t)(x)*1000000u)
#define US(x) ((cycles_t)(x)*1000u)

/* Where the reference cases are: the repository's copies, or the shared
 * originals while those are not copied yet. */
static const char *cases_dir(void)
{
    static const char *const dirs[] = {
        MCSIM_SOURCE_DIR "/tests/scenarios/kernel",
        MCSIM_SHARED_DIR "/reference-cases",
    };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char probe[1024];
        snprintf(probe, sizeof probe, "%s/b12_min_budget.yaml", dirs[i]);
        FILE *f = fopen(probe, "r");
        if (f != NULL) {
            fclose(f);
            return dirs[i];
        }
    }
    fail_msg("no reference cases in %s or %s", dirs[0], dirs[1]);
    return NULL;
}

static void load_case(struct refcase_expected *e, const char *stem)
{
    char path[1024], err[REFCASE_ERR_MAX];

    snprintf(path, sizeof path, "%s/%s.yaml", cases_dir(), stem);
    if (refcase_load(e, path, REFCASE_DEFAULT_HZ, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static const struct refcase_thread_list *list_of(const struct refcase_thread_list *l, size_t n,
                                                 const char *thread)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(l[i].thread, thread) == 0)
            return &l[i];
    fail_msg("no list for thread %s", thread);
    return NULL;
}

static void test_refcase_every_case_parses(void **state)
{
    (void)state;
    const char *dir = cases_dir();
    DIR *d = opendir(dir);
    struct dirent *de;
    int parsed = 0;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0)
            continue;
        char path[1024], err[REFCASE_ERR_MAX];
        struct refcase_expected e;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (refcase_load(&e, path, REFCASE_DEFAULT_HZ, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(e.n_slices + e.n_jobs + e.n_irqs + e.n_events > 0);
        refcase_release(&e);
        parsed++;
    }
    closedir(d);
    print_message("%d reference cases parsed from %s\n", parsed, dir);
    assert_true(parsed >= 30);
}

/* b12: microsecond times, jobs and events. */
static void test_refcase_b12_values(void **state)
{
    (void)state;
    struct refcase_expected e;

    load_case(&e, "b12_min_budget");
    assert_int_equal(e.n_slices, 2);
    const struct refcase_thread_list *h = list_of(e.slices, e.n_slices, "h");
    assert_int_equal(h->n, 2);
    assert_int_equal(h->items[0].first, 0);
    assert_int_equal(h->items[0].second, 3990000);
    assert_int_equal(h->items[1].first, 10990000);
    assert_int_equal(h->items[1].second, 14990000);
    const struct refcase_thread_list *w = list_of(e.jobs, e.n_jobs, "w");
    assert_int_equal(w->n, 1);
    assert_int_equal(w->items[0].first, US(9990));
    assert_int_equal(w->items[0].second, US(10990));
    assert_false(w->items[0].second_null);
    assert_int_equal(e.n_events, 3);
    assert_string_equal(e.events[0].kind, "exhausted");
    assert_string_equal(e.events[0].thread, "h");
    assert_int_equal(e.events[0].time, US(3990));
    assert_false(e.events[0].has_amount);
    assert_string_equal(e.events[2].kind, "replenish");
    assert_int_equal(e.events[2].time, US(9990));
    assert_false(e.has_irqs);
    refcase_release(&e);
}

/* b16: paid_by, an event with an amount, aborted, counts. */
static void test_refcase_b16_values(void **state)
{
    (void)state;
    struct refcase_expected e;

    load_case(&e, "b16_timeout_fault");
    assert_int_equal(e.n_paid_by, 1);
    assert_string_equal(e.paid_by[0].thread, "s");
    assert_string_equal(e.paid_by[0].payer, "c");
    assert_int_equal(e.n_events, 2);
    assert_string_equal(e.events[0].kind, "timeout_fault");
    assert_true(e.events[0].has_amount);
    assert_int_equal(e.events[0].amount, MS(2));
    assert_int_equal(e.n_aborted, 1);
    assert_string_equal(e.aborted[0].thread, "c");
    assert_int_equal(e.aborted[0].time, MS(2));
    assert_int_equal(e.n_counts, 2);
    assert_string_equal(e.counts[0].event, "timeout_fault");
    assert_int_equal(e.counts[0].n, 1);
    assert_string_equal(e.counts[1].event, "call_aborted");
    assert_int_equal(e.counts[1].n, 1);
    refcase_release(&e);
}

/* b26: irqs with a null delivery; b10: final_refills; b22: empty lists. */
static void test_refcase_irqs_refills_empty(void **state)
{
    (void)state;
    struct refcase_expected e;

    load_case(&e, "b26_irq_masked");
    assert_true(e.has_irqs);
    assert_int_equal(e.n_irqs, 3);
    assert_int_equal(e.irqs[1].arrival, MS(2));
    assert_int_equal(e.irqs[1].delivered, MS(5));
    assert_true(e.irqs[2].delivered_null);
    assert_true(e.irqs[2].lost);
    refcase_release(&e);

    load_case(&e, "b10_no_fragment");
    const struct refcase_thread_list *h = list_of(e.final_refills, e.n_final_refills, "h");
    assert_int_equal(h->n, 1);
    assert_int_equal(h->items[0].first, MS(11));
    assert_int_equal(h->items[0].second, MS(4));
    assert_int_equal(list_of(e.slices, e.n_slices, "l")->items[0].second, US(500));
    refcase_release(&e);

    load_case(&e, "b22_send_to_passive");
    assert_int_equal(e.n_slices, 4);
    assert_int_equal(list_of(e.slices, e.n_slices, "s")->n, 0);
    assert_int_equal(list_of(e.slices, e.n_slices, "t")->n, 1);
    refcase_release(&e);
}

#define SCENARIO_DOC "mcsim: 1\nduration: 10ms\nthreads: {}\n---\n"

/* Malformed expected documents, each with the words its error must say. */
static void test_refcase_bad_documents_fail(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *says;
    } cases[] = {
        {SCENARIO_DOC "slices: {a: [[0ms, 1ms]]}\nexpected_slices: {}\n",
         "unknown key 'expected_slices'"},
        {SCENARIO_DOC "slices: {a: [[0ms, 1ms]]}\n", NULL},
        {"mcsim: 1\n", "no expected schedule"},
        {"", "empty file"},
        {SCENARIO_DOC "slices: {a: [[0ms, 1ms]]}\n---\nslices: {}\n", "a third YAML document"},
        {SCENARIO_DOC "slices: {a: [[0, 3]]}\n", "bad time '3'"},
        {SCENARIO_DOC "slices: {a: [[0ms, 1ms], [1ms, 2ms]]}\n", "merged"},
        {SCENARIO_DOC "slices: {a: [[2ms, 1ms]]}\n", "reversed"},
        {SCENARIO_DOC "slices: {a: [[0ms, 1ms, 2ms]]}\n", "not a list of 3"},
        {SCENARIO_DOC "slices: {a: []}\nslices: {}\n", "given twice"},
        {SCENARIO_DOC "slices: {a: [], a: []}\n", "listed twice"},
        {SCENARIO_DOC "events: [[throttled, a, 1ms]]\n", "unknown budget event 'throttled'"},
        {SCENARIO_DOC "counts: {preempts: 1}\n", "unknown count event 'preempts'"},
        {SCENARIO_DOC "counts: {throttle: -1}\n", "bad number"},
        {SCENARIO_DOC "irqs: [[1ms, 1ms, 2]]\n", "lost flag"},
        {SCENARIO_DOC "jobs: {A: []}\n", "bad thread name 'A'"},
        {SCENARIO_DOC "slices: [a]\n", "thread -> list"},
        {SCENARIO_DOC "slices: {a: [[0ms, 1ms]\n", "not valid YAML"},
        {SCENARIO_DOC "- slices\n", "expected the expected schedule"},
        {SCENARIO_DOC "aborted: [[c, 0.5ns]]\n", "less than one cycle"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct refcase_expected e;
        char err[REFCASE_ERR_MAX];
        int rc = refcase_load_string(&e, cases[i].text, strlen(cases[i].text), "case.yaml",
                                     REFCASE_DEFAULT_HZ, err, sizeof err);
        if (cases[i].says == NULL) {
            assert_int_equal(rc, 0);
            refcase_release(&e);
            continue;
        }
        if (rc == 0 || strstr(err, cases[i].says) == NULL || strncmp(err, "case.yaml:", 10) != 0)
            fail_msg("case %zu: rc %d, error '%s', expected one saying '%s'", i, rc, err,
                     cases[i].says);
        assert_null(e.slices);
    }
}

/* The DESIGN.md tables, written here from DESIGN.md (not from cli/db/db.c),
 * plus final_refills as the lead specified it. */
static const char schema[] =
    "CREATE TABLE runs (run_id INTEGER PRIMARY KEY, scenario TEXT, path TEXT, sha256 TEXT,"
    " seed INTEGER, duration INTEGER, cpu_hz INTEGER, timer_hz INTEGER, scheduler TEXT,"
    " hal TEXT, version TEXT, created_at TEXT, finished INTEGER);"
    "CREATE TABLE threads (run_id INTEGER, thread_id INTEGER, name TEXT, priority INTEGER,"
    " criticality TEXT, criticality_rank INTEGER, budget INTEGER, period INTEGER,"
    " deadline INTEGER, passive INTEGER);"
    "CREATE TABLE slices (run_id INTEGER, thread_id INTEGER, sc_thread_id INTEGER,"
    " sc_notification TEXT, start_time INTEGER, end_time INTEGER);"
    "CREATE TABLE jobs (run_id INTEGER, thread_id INTEGER, job INTEGER, release_time INTEGER,"
    " start_time INTEGER, finish_time INTEGER, deadline_time INTEGER, response INTEGER,"
    " missed INTEGER);"
    "CREATE TABLE budget_events (run_id INTEGER, thread_id INTEGER, sc_thread_id INTEGER,"
    " time INTEGER, kind TEXT, amount INTEGER);"
    "CREATE TABLE irqs (run_id INTEGER, device TEXT, line INTEGER, arrival INTEGER,"
    " delivered INTEGER, lost INTEGER);"
    "CREATE TABLE events (run_id INTEGER, seq INTEGER, time INTEGER, kind TEXT,"
    " thread_id INTEGER, object INTEGER, arg INTEGER);"
    "CREATE TABLE expectations (run_id INTEGER, idx INTEGER, text TEXT, passed INTEGER,"
    " detail TEXT);"
    "CREATE TABLE final_refills (run_id INTEGER, thread_id INTEGER, idx INTEGER,"
    " time INTEGER, amount INTEGER);";

static void exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
}

/* b16 recorded as the kernel should: run 2 (run 1 is another, unrelated
 * run in the same file). Thread ids as sim/sink.h: root 0, scenario
 * thread i is i + 1. s's first slice is split, c has a slice past the
 * duration (clipped away), and the throttle at 2ms happens to s, running
 * on c's context. */
static sqlite3 *b16_db(void)
{
    sqlite3 *db;

    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec(db, schema);
    exec(db, "INSERT INTO runs (run_id, scenario, duration, cpu_hz, finished) VALUES"
             " (1, 'other', 1000, 1000000000, 1), (2, 'b16_timeout_fault', 25000000,"
             " 1000000000, 1);"
             "INSERT INTO threads (run_id, thread_id, name) VALUES (1, 1, 's'),"
             " (2, 0, 'root'), (2, 1, 'c'), (2, 2, 's'), (2, 3, 't');"
             "INSERT INTO slices VALUES (1, 1, 1, NULL, 0, 5),"
             " (2, 2, 1, NULL, 0, 1500000), (2, 2, 1, NULL, 1500000, 2000000),"
             " (2, 1, 1, NULL, 10000000, 12000000), (2, 1, 1, NULL, 20000000, 22000000),"
             " (2, 1, 1, NULL, 25000000, 26000000);"
             "INSERT INTO budget_events VALUES (2, 2, 1, 2000000, 'exhausted', 0),"
             " (2, 2, 1, 2000000, 'timeout_fault', 2000000),"
             " (2, 2, 1, 2000000, 'throttle', 0), (2, 1, 1, 10000000, 'replenish', 2000000),"
             " (1, 1, 1, 3, 'timeout_fault', 0);"
             "INSERT INTO events VALUES (2, 7, 2000000, 'call_aborted', 1, 0, 0),"
             " (1, 1, 3, 'call_aborted', 1, 0, 0);");
    return db;
}

/* Compare case `stem` with run 2 of `db`: the status, and the report
 * printed when it is not 0. */
static int compare_case(const char *stem, sqlite3 *db, char *report, size_t len)
{
    struct refcase_expected e;

    load_case(&e, stem);
    int rc = refcase_compare(&e, db, 2, report, len);
    refcase_release(&e);
    if (rc != 0)
        print_message("--- %s report:\n%s", stem, report);
    return rc;
}

static void assert_says(const char *report, const char *words)
{
    if (strstr(report, words) == NULL)
        fail_msg("the report does not say '%s':\n%s", words, report);
}

static void test_refcase_compare_b16_matches(void **state)
{
    (void)state;
    sqlite3 *db = b16_db();
    char report[8192];

    assert_int_equal(compare_case("b16_timeout_fault", db, report, sizeof report), 0);
    assert_string_equal(report, "");
    sqlite3_close(db);
}

/* One mutation of b16_db and the words its report must contain. */
static const struct {
    const char *sql;
    const char *says[3];
} b16_mutations[] = {
    {"UPDATE slices SET end_time = 22000001 WHERE run_id = 2 AND start_time = 20000000",
     {"slices of c: DIFFERENT", "[20ms, 22ms)", "!= [20ms, 22000.001us)"}},
    {"UPDATE slices SET start_time = 1500001 WHERE run_id = 2 AND start_time = 1500000",
     {"slices of s: DIFFERENT", "[0ms, 2ms)", "[0ms, 1500us)"}},
    {"DELETE FROM slices WHERE run_id = 2 AND start_time = 10000000",
     {"slices of c: DIFFERENT", "[10ms, 12ms)", "slices of s: same"}},
    {"UPDATE slices SET sc_thread_id = 2 WHERE run_id = 2 AND start_time = 1500000",
     {"paid_by", "[1500us, 2ms) paid by s"}},
    {"UPDATE slices SET sc_thread_id = NULL, sc_notification = 'n' WHERE run_id = 2 AND"
     " start_time = 0",
     {"paid by notification n"}},
    {"UPDATE budget_events SET time = 2000001 WHERE run_id = 2 AND kind = 'throttle'",
     {"[throttle, c, 2ms]", "MISSING", "[throttle, s, 2000.001us, 0ms] (c)"}},
    {"UPDATE budget_events SET amount = 1999999 WHERE run_id = 2 AND kind = 'timeout_fault'",
     {"[timeout_fault, s, 2ms, 2ms]", "MISSING"}},
    {"UPDATE budget_events SET thread_id = 1 WHERE run_id = 2 AND kind = 'timeout_fault'",
     {"[timeout_fault, s, 2ms, 2ms]", "MISSING"}},
    {"INSERT INTO budget_events VALUES (2, 2, 1, 12000000, 'timeout_fault', 0)",
     {"count of timeout_fault: expected 1, recorded 2"}},
    {"UPDATE events SET time = 1999999 WHERE run_id = 2",
     {"no call_aborted event of c at 2ms", "[c, 1999.999us]"}},
    {"UPDATE events SET kind = 'call_returned' WHERE run_id = 2",
     {"count of call_aborted: expected 1, recorded 0"}},
    {"UPDATE threads SET name = 'client' WHERE run_id = 2 AND name = 'c'",
     {"thread 'c' is not in the run's threads table"}},
};

static void test_refcase_compare_b16_one_cycle_off(void **state)
{
    (void)state;
    char report[8192];

    for (size_t i = 0; i < sizeof b16_mutations / sizeof b16_mutations[0]; i++) {
        sqlite3 *db = b16_db();
        exec(db, b16_mutations[i].sql);
        assert_int_equal(compare_case("b16_timeout_fault", db, report, sizeof report), 1);
        for (size_t w = 0; w < 3 && b16_mutations[i].says[w] != NULL; w++)
            assert_says(report, b16_mutations[i].says[w]);
        sqlite3_close(db);
    }
}

/* b26 recorded: jobs and irqs, compared as whole lists. */
static sqlite3 *b26_db(void)
{
    sqlite3 *db;

    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec(db, schema);
    exec(db, "INSERT INTO runs (run_id, duration, cpu_hz) VALUES (2, 10000000, 1000000000);"
             "INSERT INTO threads (run_id, thread_id, name) VALUES (2, 1, 'h');"
             "INSERT INTO slices VALUES (2, 1, 1, NULL, 1000000, 5000000),"
             " (2, 1, 1, NULL, 5000000, 6000000);"
             "INSERT INTO jobs (run_id, thread_id, job, release_time, finish_time, missed)"
             " VALUES (2, 1, 2, 2000000, 6000000, 0), (2, 1, 1, 1000000, 5000000, 0);"
             "INSERT INTO irqs VALUES (2, 'dev', 7, 3000000, NULL, 1),"
             " (2, 'dev', 7, 1000000, 1000000, 0), (2, 'dev', 7, 2000000, 5000000, 0);");
    return db;
}

static void test_refcase_compare_jobs_irqs(void **state)
{
    (void)state;
    char report[8192];
    sqlite3 *db = b26_db();

    assert_int_equal(compare_case("b26_irq_masked", db, report, sizeof report), 0);
    exec(db, "UPDATE irqs SET delivered = NULL, lost = 1 WHERE arrival = 2000000;"
             "UPDATE jobs SET finish_time = NULL WHERE job = 2");
    assert_int_equal(compare_case("b26_irq_masked", db, report, sizeof report), 1);
    assert_says(report, "jobs of h: DIFFERENT");
    assert_says(report, "!= [2ms, null]");
    assert_says(report, "[2ms, 5ms, 0]");
    assert_says(report, "!= [2ms, null, 1]");
    sqlite3_close(db);
}

/* b10: final_refills in idx order; b22: `[]` means no slice at all. */
static void test_refcase_compare_refills_and_empty(void **state)
{
    (void)state;
    char report[8192];
    sqlite3 *db;

    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec(db, schema);
    exec(db, "INSERT INTO runs (run_id, duration, cpu_hz) VALUES (2, 6000000, 1000000000);"
             "INSERT INTO threads (run_id, thread_id, name) VALUES (2, 1, 'h'), (2, 2, 'l');"
             "INSERT INTO slices VALUES (2, 1, 1, NULL, 1000000, 5000000),"
             " (2, 2, 2, NULL, 0, 500000), (2, 2, 2, NULL, 5000000, 5500000);"
             "INSERT INTO final_refills VALUES (2, 1, 0, 11000000, 4000000);");
    assert_int_equal(compare_case("b10_no_fragment", db, report, sizeof report), 0);
    exec(db, "UPDATE final_refills SET amount = 3000000;"
             "INSERT INTO final_refills VALUES (2, 1, 1, 13000000, 1000000)");
    assert_int_equal(compare_case("b10_no_fragment", db, report, sizeof report), 1);
    assert_says(report, "final_refills of h: DIFFERENT");
    assert_says(report, "[11ms, 4ms]");
    assert_says(report, "!= [11ms, 3ms]");
    assert_says(report, "!= [13ms, 1ms]");
    exec(db, "DROP TABLE final_refills");
    assert_int_equal(compare_case("b10_no_fragment", db, report, sizeof report), -1);
    assert_says(report, "no such table: final_refills");
    sqlite3_close(db);

    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec(db, schema);
    exec(db, "INSERT INTO runs (run_id, duration, cpu_hz) VALUES (2, 10000000, 1000000000);"
             "INSERT INTO threads (run_id, thread_id, name) VALUES (2, 1, 's'), (2, 2, 't'),"
             " (2, 3, 'u'), (2, 4, 'v');"
             "INSERT INTO slices VALUES (2, 2, 2, NULL, 0, 1000000);");
    assert_int_equal(compare_case("b22_send_to_passive", db, report, sizeof report), 0);
    exec(db, "INSERT INTO slices VALUES (2, 1, 2, NULL, 1000000, 1000001)");
    assert_int_equal(compare_case("b22_send_to_passive", db, report, sizeof report), 1);
    assert_says(report, "slices of s: DIFFERENT");
    assert_says(report, "!= [1ms, 1000.001us)");
    sqlite3_close(db);
}

static void test_refcase_compare_no_run(void **state)
{
    (void)state;
    char report[256];
    sqlite3 *db = b16_db();

    struct refcase_expected e;
    load_case(&e, "b16_timeout_fault");
    assert_int_equal(refcase_compare(&e, db, 9, report, sizeof report), -1);
    assert_says(report, "no run 9");
    /* A report too small for everything ends in "...". */
    exec(db, "DELETE FROM slices; DELETE FROM budget_events");
    char tiny[64];
    assert_int_equal(refcase_compare(&e, db, 2, tiny, sizeof tiny), 1);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_string_equal(tiny + sizeof tiny - 5, "...\n");
    refcase_release(&e);
    sqlite3_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refcase_every_case_parses),
        cmocka_unit_test(test_refcase_b12_values),
        cmocka_unit_test(test_refcase_b16_values),
        cmocka_unit_test(test_refcase_irqs_refills_empty),
        cmocka_unit_test(test_refcase_bad_documents_fail),
        cmocka_unit_test(test_refcase_compare_b16_matches),
        cmocka_unit_test(test_refcase_compare_b16_one_cycle_off),
        cmocka_unit_test(test_refcase_compare_jobs_irqs),
        cmocka_unit_test(test_refcase_compare_refills_and_empty),
        cmocka_unit_test(test_refcase_compare_no_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
