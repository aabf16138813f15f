/*
 * The accounting's memory (issue 18): flat in the run's length. The window
 * checks (acct/twin.h) hold a context's last few periods whatever the
 * run's length, and refuse rows out of the order promised; the live
 * accounting (acct/tacc.h, tacc.ordered) keeps each thread's latest
 * aborted call only, while a scan of the tables, whose rows come in any
 * order, keeps every one. unit.tacc checks that the live and scanned
 * figures agree.
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

#include "acct/tacc_scan.h"
#include "acct/tacc_sink.h"
#include "acct/twin.h"
#include "check/expect.h"
#include "db/db.h"
#include "engine.h"
#include "load/load.h"
#include "null_sink.h"
#include "tacc_same.h"
#include "util/diag.h"

/* The most slices one window check held for a context at once, in a run
 * of `path` lasting `duration` (accumulated live, nothing recorded). */
static void held(const char *path, cycles_t duration, size_t *budget, size_t *frag)
{
    struct scenario s;
    struct diag d;
    struct tacc_tee tee;
    struct eng_result res;
    const struct tacc *live;

    diag_init(&d);
    if (load_scenario(path, &s, &d) != 0)
        fail_msg("%s does not load", path);
    struct eng_options o = {.seed = s.seed,
                            .duration = duration,
                            .scheduler = s.scheduler,
                            .version = "tacc",
                            .sink = tacc_tee_sink(&tee, null_sink())};
    tacc_tee_want(&tee, &(struct twin_want){.budget = true,
                                             .fragment = true,
                                             .allowance = expect_entry_allowance(&s.costs)});
    assert_int_equal(eng_run(&s, &o, &res), ENG_OK);
    live = tacc_tee_result(&tee);
    assert_non_null(live);
    assert_non_null(live->win);
    assert_true(twin_ok(live->win));
    *budget = live->win->budget.held_max;
    *frag = live->win->frag.held_max;
    tacc_tee_release(&tee);
    scenario_release(&s);
    diag_release(&d);
}

/* The window checks' memory is flat in the run's length: four times the
 * run, the same most slices held (a context's last few periods). Each
 * run covers every phase of its schedule (bench/rm10.yaml's repeats every
 * 400ms: 500ms held 16 for budget: respected, 1s and 4s 23). */
static void test_twin_memory_flat(void **state)
{
    static const struct {
        const char *path;
        cycles_t duration;
    } cases[] = {{MCSIM_SOURCE_DIR "/bench/rm10.yaml", 1000000000},
                 {MCSIM_SOURCE_DIR "/tests/data/refills/several.yaml", 200000000}};

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t b1, f1, b4, f4;

        held(cases[i].path, cases[i].duration, &b1, &f1);
        held(cases[i].path, 4 * cases[i].duration, &b4, &f4);
        print_message("%s: held %zu / %zu slices (budget, fragmentation), four times as long"
                      " %zu / %zu\n",
                      cases[i].path, b1, f1, b4, f4);
        assert_true(b1 > 0 && f1 > 0);
        assert_int_equal(b4, b1);
        assert_int_equal(f4, f1);
    }
}

/* A row before the instant the feeder promised (twin.h's order) makes
 * the figures unusable: mcsim run's checks then scan the tables. */
static void test_twin_order(void **state)
{
    struct scenario s = {.n_threads = 1, .cpu_hz = 1000000000};
    struct scn_thread t = {.name = "a", .sc = {.present = true, .budget = 10, .period = 100}};
    struct twin w;

    (void)state;
    s.threads = &t;
    assert_int_equal(twin_init_scenario(&w, &s, 1000, &(struct twin_want){.budget = true,
                                                                           .fragment = true}),
                     0);
    twin_slice(&w, &(struct sink_slice){.thread = 1, .sc_thread = 1, .start = 0, .end = 50});
    twin_advance(&w, 50);
    twin_budget(&w, &(struct sink_budget_event){.thread = 1, .sc_thread = 1, .time = 60,
                                                .kind = BUDGET_THROTTLE});
    assert_true(twin_ok(&w));
    twin_slice(&w, &(struct sink_slice){.thread = 1, .sc_thread = 1, .start = 40, .end = 45});
    assert_false(twin_ok(&w));
    twin_release(&w);
}

/* A run of `path` lasting `duration` recorded into memory through the
 * accumulating sink: the most aborted calls' times and open jobs the live
 * accounting (tacc.ordered) held at once, the same of the accounting of
 * one scan of the tables (rows in any order: every aborted call kept), and
 * the aborted calls. The live and scanned figures must agree. */
static void aborts_held(const char *path, cycles_t duration, size_t *live_held,
                        size_t *scan_held, int64_t *calls)
{
    struct scenario s;
    struct diag d;
    struct db *db = NULL;
    struct tacc_tee tee;
    struct tacc scanned;
    struct eng_result res;
    const struct tacc *live;
    char err[DB_ERRMSG_MAX];

    diag_init(&d);
    if (load_scenario(path, &s, &d) != 0)
        fail_msg("%s does not load", path);
    if (db_open(":memory:", &db, err, sizeof err) != 0)
        fail_msg("an in-memory database: %s", err);
    struct eng_options o = {.seed = s.seed,
                            .duration = duration,
                            .scheduler = s.scheduler,
                            .version = "tacc",
                            .sink = tacc_tee_sink(&tee, db_sink(db, 0))};
    assert_int_equal(eng_run(&s, &o, &res), ENG_OK);
    live = tacc_tee_result(&tee);
    assert_non_null(live);
    assert_true(live->ordered);
    if (tacc_scan(db_sqlite(db), db_run_id(db), s.n_threads + 1, &s, duration, &scanned, err,
                  sizeof err) != 0)
        fail_msg("%s: %s", path, err);
    assert_same(path, live, &scanned);
    *live_held = live->held_max;
    *scan_held = scanned.held_max;
    *calls = 0;
    for (uint32_t i = 0; i < live->n; i++)
        *calls += live->t[i].aborted_calls;
    tacc_release(&scanned);
    tacc_tee_release(&tee);
    db_close(db);
    scenario_release(&s);
    diag_release(&d);
}

/* Issue 18: the accounting's memory is flat in the run's length when its
 * calls keep being aborted. server_exhausts_reset.yaml aborts batch's call
 * every 10 ms (and fails that job): ten times the run, ten times the
 * aborted calls and jobs aborted, the same most held live (batch's latest
 * finished job; its aborts' times are not kept), while a scan, whose rows
 * come in any order, holds every aborted call's. */
static void test_tacc_memory_flat(void **state)
{
    static const char path[] = MCSIM_SOURCE_DIR "/scenarios/server_exhausts_reset.yaml";
    size_t live1, scan1, live10, scan10;
    int64_t calls1, calls10;

    (void)state;
    aborts_held(path, 100000000, &live1, &scan1, &calls1);
    aborts_held(path, 1000000000, &live10, &scan10, &calls10);
    print_message("aborted calls %lld / %lld (100 ms / 1 s): held live %zu / %zu, scanned %zu / "
                  "%zu\n",
                  (long long)calls1, (long long)calls10, live1, live10, scan1, scan10);
    assert_int_equal(calls1, 10);
    assert_int_equal(calls10, 100);
    assert_int_equal(live10, live1);
    assert_true(live1 > 0 && live1 <= 3);
    assert_true(scan1 >= (size_t)calls1 && scan10 >= (size_t)calls10);
}

/* Fed as recorded (tacc.ordered), a job is aborted iff the thread's latest
 * abort lies in it; a finished job fed after an abort later than its end
 * breaks the order promised: the figures are not (failed). */
static void test_tacc_ordered(void **state)
{
    struct tacc a;

    (void)state;
    assert_int_equal(tacc_init(&a, 2, 0, 1000), 0);
    a.ordered = true;
    tacc_event(&a, &(struct sink_event){.thread = 1, .time = 20, .kind = "call_aborted"});
    tacc_event(&a, &(struct sink_event){.thread = 1, .time = 30, .kind = "call_aborted"});
    tacc_job(&a, &(struct sink_job){.thread = 1, .job = 1, .release = 10, .start = 10,
                                     .finish = 30, .deadline = SINK_NO_TIME,
                                     .response = 20});
    tacc_job(&a, &(struct sink_job){.thread = 1, .job = 2, .release = 40, .start = 40,
                                     .finish = 50, .deadline = SINK_NO_TIME,
                                     .response = 10});
    assert_int_equal(a.t[1].aborted, 1);
    assert_int_equal(a.t[1].first_failed.job, 1);
    assert_int_equal(a.t[1].aborted_calls, 2);
    assert_false(a.failed);
    /* an unstarted job released before the latest abort: inside it */
    tacc_job(&a, &(struct sink_job){.thread = 1, .job = 3, .release = 25, .start = SINK_NO_TIME,
                                     .finish = SINK_NO_TIME, .deadline = SINK_NO_TIME,
                                     .response = SINK_NO_TIME});
    assert_int_equal(a.t[1].aborted, 2);
    assert_false(a.failed);
    tacc_event(&a, &(struct sink_event){.thread = 1, .time = 70, .kind = "call_aborted"});
    tacc_job(&a, &(struct sink_job){.thread = 1, .job = 4, .release = 55, .start = 55,
                                     .finish = 60, .deadline = SINK_NO_TIME,
                                     .response = 5});
    assert_true(a.failed);
    tacc_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twin_order),
        cmocka_unit_test(test_twin_memory_flat),
        cmocka_unit_test(test_tacc_memory_flat),
        cmocka_unit_test(test_tacc_ordered),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
