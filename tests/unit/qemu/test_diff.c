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
    assert_true(diff_parse_tolerance("0.02", &v));
    assert_true(v > 0.01999 && v < 0.02001);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
