/*
 * cli/diff: comparing two runs. Identical runs agree; a response time
 * beyond the tolerance, a swapped completion or a job finished in one run
 * only in the middle makes them differ; a job the other run's end cut off
 * does not; throttles and misses are counted per thread; the worst
 * difference is found; tolerances parse. Also `mcsim diff` on a database
 * of two runs of one scenario.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "qemu/diff.h"
#include "spawn.h"
#include "sqlq.h"
#include "summary/summary.h"
#include "workdir.h"

#define T1 1u
#define T2 2u

/* Two threads: T1 finishes jobs at 10, 30, 50 (responses 10 each); T2 at
 * 20, 40 (responses 15). */
static void base_run(struct diff_run *r, struct diff_job *jobs, struct diff_thread *threads)
{
    static const struct diff_job j[5] = {
        {T1, 1, true, 10, 10, false}, {T1, 2, true, 30, 10, false}, {T1, 3, true, 50, 10, false},
        {T2, 1, true, 20, 15, false}, {T2, 2, true, 40, 15, true},
    };
    memset(r, 0, sizeof *r);
    memcpy(jobs, j, sizeof j);
    threads[0] = (struct diff_thread){.id = T1, .name = "a", .throttles = 2};
    threads[1] = (struct diff_thread){.id = T2, .name = "b", .throttles = 0};
    r->jobs = jobs;
    r->n_jobs = 5;
    r->threads = threads;
    r->n_threads = 2;
}

struct pair {
    struct diff_run a, b;
    struct diff_job ja[8], jb[8];
    struct diff_thread ta[2], tb[2];
    struct diff_report rep;
};

static void make_pair(struct pair *p)
{
    base_run(&p->a, p->ja, p->ta);
    base_run(&p->b, p->jb, p->tb);
}

static void test_diff_identical_runs_agree(void **state)
{
    struct pair p;

    (void)state;
    make_pair(&p);
    assert_int_equal(diff_compare(&p.a, &p.b, 0.01, &p.rep), 0);
    assert_true(p.rep.order_same);
    assert_int_equal(p.rep.over, 0);
    assert_false(diff_differs(&p.rep));
    assert_int_equal(p.rep.order_len_a, 5);
    assert_int_equal(p.rep.threads[0].throttles_a, 2);
    assert_int_equal(p.rep.threads[1].missed_b, 1);
    assert_true(p.rep.worst_rel == 0);
    diff_report_release(&p.rep);
}

static void test_diff_response_beyond_tolerance(void **state)
{
    struct pair p;

    (void)state;
    make_pair(&p);
    /* T2 job 1: 15 -> 16 (+6.7%), finishing at 21: the order holds */
    p.jb[3].response = 16;
    p.jb[3].finish = 21;
    assert_int_equal(diff_compare(&p.a, &p.b, 0.10, &p.rep), 0);
    assert_false(diff_differs(&p.rep)); /* within 10% */
    diff_report_release(&p.rep);
    assert_int_equal(diff_compare(&p.a, &p.b, 0.01, &p.rep), 0);
    assert_true(diff_differs(&p.rep));
    assert_true(p.rep.order_same);
    assert_int_equal(p.rep.over, 1);
    assert_int_equal(p.rep.worst_thread, T2);
    assert_int_equal(p.rep.worst_job, 1);
    assert_int_equal(p.rep.worst_diff, 1);
    assert_int_equal(p.rep.worst_a, 15);
    assert_int_equal(p.rep.worst_b, 16);
    assert_int_equal(p.rep.threads[1].over, 1);
    assert_int_equal(p.rep.threads[0].over, 0);
    diff_report_release(&p.rep);
}

static void test_diff_swapped_completion(void **state)
{
    struct pair p;

    (void)state;
    make_pair(&p);
    /* T2 job 1 now finishes after T1 job 2 (at 35): the third completion */
    p.jb[3].finish = 35;
    p.jb[3].response = 15;
    assert_int_equal(diff_compare(&p.a, &p.b, 1.0, &p.rep), 0);
    assert_false(p.rep.order_same);
    assert_int_equal(p.rep.first_divergence, 1);
    assert_true(diff_differs(&p.rep));
    /* each thread alone still finishes its jobs in order */
    assert_true(p.rep.threads[0].order_same);
    assert_true(p.rep.threads[1].order_same);
    diff_report_release(&p.rep);
}

static void test_diff_job_cut_off_at_the_end(void **state)
{
    struct pair p;

    (void)state;
    make_pair(&p);
    /* B's end cut T1's job 3 off (unfinished): the same order, one fewer */
    p.jb[2].finished = false;
    assert_int_equal(diff_compare(&p.a, &p.b, 0.01, &p.rep), 0);
    assert_true(p.rep.order_same);
    assert_int_equal(p.rep.order_len_b, 4);
    assert_int_equal(p.rep.threads[0].finished_b, 2);
    assert_false(diff_differs(&p.rep));
    diff_report_release(&p.rep);
}

static void test_diff_job_missing_in_the_middle(void **state)
{
    struct pair p;

    (void)state;
    make_pair(&p);
    /* B never finished T1's job 1 (a timeout reset, say): order differs */
    p.jb[0].finished = false;
    assert_int_equal(diff_compare(&p.a, &p.b, 0.01, &p.rep), 0);
    assert_false(p.rep.order_same);
    assert_int_equal(p.rep.first_divergence, 0);
    assert_false(p.rep.threads[0].order_same);
    assert_true(diff_differs(&p.rep));
    diff_report_release(&p.rep);
}

static void test_diff_two_extra_jobs_of_one_thread(void **state)
{
    struct pair p;

    (void)state;
    make_pair(&p);
    /* B lacks T1's jobs 2 and 3: more than the end can cut off */
    p.jb[1].finished = false;
    p.jb[2].finished = false;
    p.jb[4].finish = 25; /* keep B's remaining order a prefix of A's */
    assert_int_equal(diff_compare(&p.a, &p.b, 1.0, &p.rep), 0);
    assert_false(p.rep.threads[0].order_same);
    assert_true(diff_differs(&p.rep));
    diff_report_release(&p.rep);
}

static void test_diff_parse_tolerance(void **state)
{
    double v;

    (void)state;
    assert_true(diff_parse_tolerance("1%", &v));
    assert_true(v > 0.00999 && v < 0.01001);
    assert_true(diff_parse_tolerance("0.5%", &v));
    assert_true(v > 0.00499 && v < 0.00501);
    assert_false(diff_parse_tolerance("0.02", &v)); /* a fraction or a percentage? */
    assert_false(diff_parse_tolerance("5", &v));
    assert_false(diff_parse_tolerance("", &v));
    assert_false(diff_parse_tolerance("1%%", &v));
    assert_false(diff_parse_tolerance("-1%", &v));
    assert_false(diff_parse_tolerance("abc", &v));
}

/* `mcsim diff` on two simulated runs of one scenario with different seeds
 * (the network driver: same arrivals, different random compute times):
 * the responses differ beyond 1% (exit 1); a run against itself agrees
 * (exit 0); a missing run is bad input (exit 2). */
static void test_diff_command(void **state)
{
    const char *bin = getenv("MCSIM_BIN");
    char db[] = "/tmp/mcsim-test-diff-XXXXXX";
    char cmd[2048];
    int fd = mkstemp(db);

    (void)state;
    assert_non_null(bin);
    assert_true(fd >= 0);
    close(fd);
    remove(db);
    snprintf(cmd, sizeof cmd,
             "%s run %s/scenarios/network_driver.yaml -o %s --quiet --duration 50ms >/dev/null &&"
             " %s run %s/scenarios/network_driver.yaml -o %s --quiet --duration 50ms --seed 9"
             " >/dev/null",
             bin, MCSIM_SOURCE_DIR, db, bin, MCSIM_SOURCE_DIR, db);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s diff %s >/dev/null", bin, db);
    assert_int_equal(WEXITSTATUS(system(cmd)), 1);
    snprintf(cmd, sizeof cmd, "%s diff %s --run 1 --run 1 >/dev/null", bin, db);
    assert_int_equal(WEXITSTATUS(system(cmd)), 0);
    snprintf(cmd, sizeof cmd, "%s diff %s --run 1 --run 7 2>/dev/null", bin, db);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    snprintf(cmd, sizeof cmd, "%s diff %s --tolerance x 2>/dev/null", bin, db);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    remove(db);
}

/* The report of two runs with different seeds and durations, line by
 * line against SQL over their tables. */
static void test_diff_report_against_tables(void **state)
{
    char *out, want[400], sql[600], ra[48], rb[48];
    sqlite3_stmt *st;
    sqlite3 *h;
    (void)state;

    assert_int_equal(workdir_create("diff"), 0);
    assert_int_equal(spawn_shell("run %s/scenarios/network_driver.yaml -o d.db --quiet "
                                 "--duration 50ms",
                                 MCSIM_SOURCE_DIR),
                     0);
    assert_int_equal(spawn_shell("run %s/scenarios/network_driver.yaml -o d.db --quiet "
                                 "--duration 60ms --seed 9",
                                 MCSIM_SOURCE_DIR),
                     0);
    assert_int_equal(spawn_shell("diff d.db --run 1 --run 2"), 1);
    out = spawn_out;
    assert_non_null(strstr(out, "mcsim diff: network-driver: B = run 2 (sim, mcs, seed 9, 60ms) "
                               "against A = run 1 (sim, mcs, seed 0, 50ms); they differ in seed "
                               "and duration\n"));
    assert_non_null(strstr(out, "  thread           finished A/B   order missed A/B (all) "
                               "throttles A/B  worst response diff (job)  over tol\n"));
    h = sqlq_open(workdir_file("d.db"), false);
    /* each thread: finished jobs, missed of all jobs, throttles, per run */
    assert_int_equal(
        sqlite3_prepare_v2(h,
                           "SELECT t.name, (SELECT count(finish_time) FROM jobs j WHERE j.run_id "
                           "= 1 AND j.thread_id = t.thread_id), (SELECT count(finish_time) FROM "
                           "jobs j WHERE j.run_id = 2 AND j.thread_id = t.thread_id), (SELECT "
                           "sum(missed) FROM jobs j WHERE j.run_id = 1 AND j.thread_id = "
                           "t.thread_id), (SELECT sum(missed) FROM jobs j WHERE j.run_id = 2 AND "
                           "j.thread_id = t.thread_id), (SELECT count(*) FROM budget_events b "
                           "WHERE b.run_id = 1 AND b.thread_id = t.thread_id AND b.kind = "
                           "'throttle'), (SELECT count(*) FROM budget_events b WHERE b.run_id = "
                           "2 AND b.thread_id = t.thread_id AND b.kind = 'throttle') FROM "
                           "threads t WHERE t.run_id = 1 AND t.thread_id > 0 ORDER BY "
                           "t.thread_id",
                           -1, &st, NULL),
        SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char fin[32], mis[32], thr[32];
        snprintf(fin, sizeof fin, "%d/%d", sqlite3_column_int(st, 1), sqlite3_column_int(st, 2));
        snprintf(mis, sizeof mis, "%d/%d", sqlite3_column_int(st, 3), sqlite3_column_int(st, 4));
        snprintf(thr, sizeof thr, "%d/%d", sqlite3_column_int(st, 5), sqlite3_column_int(st, 6));
        /* the order column is between: compare around it */
        char head[64], tail[64];
        snprintf(head, sizeof head, "\n  %-16s %12s ", (const char *)sqlite3_column_text(st, 0),
                 fin);
        snprintf(tail, sizeof tail, " %16s %13s ", mis, thr);
        const char *at = strstr(out, head);
        if (at == NULL || strncmp(at + strlen(head) + 7, tail, strlen(tail)) != 0)
            fail_msg("expected '%s ... %s' in\n%s", head, tail, out);
    }
    sqlite3_finalize(st);
    /* the worst relative response difference of a job finished in both */
    snprintf(sql, sizeof sql,
             "SELECT t.name || ' job ' || a.job, a.response, b.response FROM jobs a JOIN jobs "
             "b ON b.run_id = 2 AND b.thread_id = a.thread_id AND b.job = a.job JOIN threads t "
             "ON t.run_id = 1 AND t.thread_id = a.thread_id WHERE a.run_id = 1 AND a.response "
             "IS NOT NULL AND b.response IS NOT NULL ORDER BY abs(b.response - a.response) * "
             "1.0 / a.response DESC LIMIT 1");
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    summary_format_time(ra, sizeof ra, (uint64_t)sqlite3_column_int64(st, 1), 1000000000u);
    summary_format_time(rb, sizeof rb, (uint64_t)sqlite3_column_int64(st, 2), 1000000000u);
    snprintf(want, sizeof want, "%s: %s in run 1, %s in run 2\n",
             (const char *)sqlite3_column_text(st, 0), ra, rb);
    assert_non_null(strstr(out, want));
    sqlite3_finalize(st);
    sqlite3_close(h);
    /* a bare tolerance is refused, and said */
    assert_int_equal(spawn_shell("diff d.db --tolerance 5"), 2);
    assert_string_equal(spawn_err, "mcsim: diff: --tolerance '5': give a percentage with its % "
                                   "sign, such as 5% (a bare number could be a fraction or a "
                                   "percentage)\n(see 'mcsim help diff')\n");
    assert_int_equal(spawn_shell("diff d.db --run 1 --run 2 --tolerance 50%%"), 1);
    assert_non_null(strstr(spawn_out, "differ by more than 50%\n"));
    workdir_teardown(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff_identical_runs_agree),
        cmocka_unit_test(test_diff_response_beyond_tolerance),
        cmocka_unit_test(test_diff_swapped_completion),
        cmocka_unit_test(test_diff_job_cut_off_at_the_end),
        cmocka_unit_test(test_diff_job_missing_in_the_middle),
        cmocka_unit_test(test_diff_two_extra_jobs_of_one_thread),
        cmocka_unit_test(test_diff_parse_tolerance),
        cmocka_unit_test(test_diff_command),
        cmocka_unit_test(test_diff_report_against_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
