/*
 * The accounting's two sources give the same figures (cli/acct/tacc.h,
 * issue 18): on every scenario, reference case and refill test scenario,
 * under both schedulers, the accumulator fed the rows on their way to the
 * database (tacc_sink.h: what `mcsim run`'s summary prints) equals the one
 * fed one scan of the recorded tables (tacc_scan.h: `mcsim check`,
 * `mcsim stats`), thread by thread and in the run's totals, and so do the
 * scenario's verdicts (`deadlines:` counts from the accumulator); and the corpus
 * reaches every figure (aborted jobs, releases lost, throttles, timeout
 * faults, grants, interrupts handled). unit.accounting checks the scanned
 * figures against SQL over the tables.
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
#include <mcsim/bootinfo.h>

#include "check/expect.h"
#include "db/db.h"
#include "engine.h"
#include "load/load.h"
#include "acct/tacc_scan.h"
#include "acct/tacc_sink.h"
#include "util/diag.h"

/* What the corpus reached, summed over every run compared. */
struct reach {
    int runs;
    int64_t jobs, aborted, lost, throttles, throttled, faults, grants, handled, charged_other;
};

static void assert_same_thread(const char *what, uint32_t i, const struct tacc_thread *x,
                               const struct tacc_thread *y)
{
#define SAME(f)                                                                                    \
    do {                                                                                           \
        if (x->f != y->f)                                                                          \
            fail_msg("%s thread %u: " #f " live %lld, scanned %lld", what, i, (long long)x->f,    \
                     (long long)y->f);                                                             \
    } while (0)
    SAME(jobs);
    SAME(failed);
    SAME(aborted);
    SAME(lost);
    SAME(finished);
    SAME(resp_sum);
    SAME(worst);
    SAME(cpu);
    SAME(charged);
    SAME(throttles);
    SAME(throttled);
    SAME(timeout_faults);
    SAME(grants);
    SAME(aborted_calls);
#undef SAME
}

static void assert_same(const char *what, const struct tacc *x, const struct tacc *y)
{
    assert_int_equal(x->n, y->n);
#define SAME(f)                                                                                    \
    do {                                                                                           \
        if (x->f != y->f)                                                                          \
            fail_msg("%s: " #f " live %lld, scanned %lld", what, (long long)x->f,                 \
                     (long long)y->f);                                                             \
    } while (0)
    SAME(throttles);
    SAME(timeout_faults);
    SAME(irqs_delivered);
    SAME(irqs_lost);
    SAME(irqs_handled);
    SAME(latency_worst);
    SAME(latency_sum);
#undef SAME
    for (uint32_t i = 0; i < x->n; i++)
        assert_same_thread(what, i, &x->t[i], &y->t[i]);
}

/* The scenario's verdicts with `deadlines:` counted from the rows as they
 * were recorded (mcsim run) and from the tables (mcsim check). */
static void same_verdicts(const char *what, struct db *db, const struct scenario *s,
                          const struct tacc *live)
{
    struct expect_result *x = calloc(s->n_expects + 1, sizeof *x);
    struct expect_result *y = calloc(s->n_expects + 1, sizeof *y);
    char err[DB_ERRMSG_MAX];
    cycles_t allowance = expect_entry_allowance(&s->costs);

    assert_non_null(x);
    assert_non_null(y);
    if (expect_evaluate_acc(db_sqlite(db), db_run_id(db), s, allowance, live, x, err,
                            sizeof err) != 0 ||
        expect_evaluate(db_sqlite(db), db_run_id(db), s, allowance, y, err, sizeof err) != 0)
        fail_msg("%s: %s", what, err);
    for (uint32_t i = 0; i < s->n_expects; i++) {
        if (x[i].passed != y[i].passed || x[i].applicable != y[i].applicable ||
            strcmp(x[i].detail, y[i].detail) != 0)
            fail_msg("%s: expectation %u: live %d %d \"%s\", scanned %d %d \"%s\"", what, i,
                     x[i].applicable, x[i].passed, x[i].detail, y[i].applicable, y[i].passed,
                     y[i].detail);
    }
    free(x);
    free(y);
}

/* Run `path` under `scheduler` through the accumulating sink into a
 * database in memory, scan the database, compare; a file that cannot run
 * under that scheduler is skipped. */
static void compare_one(const char *path, uint8_t scheduler, bool full, struct reach *r)
{
    struct scenario s;
    struct diag d;
    struct db *db = NULL;
    struct tacc_tee tee;
    struct tacc scanned;
    struct eng_result res;
    char err[DB_ERRMSG_MAX], what[512];

    diag_init(&d);
    if (load_scenario(path, &s, &d) != 0) {
        diag_release(&d);
        return; /* a test of the loader's refusals */
    }
    s.scheduler = scheduler;
    if (load_check_runnable(&s, &d) != 0)
        goto out;
    snprintf(what, sizeof what, "%s (%s%s)", path, scheduler == SCHED_CLASSIC ? "classic" : "mcs",
             full ? ", --trace full" : "");
    if (db_open(":memory:", &db, err, sizeof err) != 0)
        fail_msg("an in-memory database: %s", err);
    struct eng_options o = {
        .seed = s.seed,
        .duration = s.duration,
        .scheduler = s.scheduler,
        .trace_full = full,
        .version = "tacc",
        .sink = tacc_tee_sink(&tee, db_sink(db, 0)),
    };
    if (eng_run(&s, &o, &res) != ENG_OK) {
        tacc_tee_release(&tee);
        goto out; /* a scenario made to fail (a livelock): no summary */
    }
    const struct tacc *live = tacc_tee_result(&tee);
    if (!live)
        fail_msg("%s: no accounting accumulated", what);
    if (tacc_scan(db_sqlite(db), db_run_id(db), s.n_threads + 1, s.duration, &scanned, err,
                  sizeof err) != 0)
        fail_msg("%s: %s", what, err);
    assert_same(what, live, &scanned);
    same_verdicts(what, db, &s, live);
    r->runs++;
    for (uint32_t i = 0; i < live->n; i++) {
        r->jobs += live->t[i].jobs;
        r->aborted += live->t[i].aborted;
        r->lost += live->t[i].lost;
        r->throttles += live->t[i].throttles;
        r->throttled += live->t[i].throttled;
        r->faults += live->t[i].timeout_faults;
        r->grants += live->t[i].grants;
        r->charged_other += live->t[i].charged != live->t[i].cpu;
    }
    r->handled += live->irqs_handled;
    tacc_release(&scanned);
    tacc_tee_release(&tee);
out:
    if (db)
        db_close(db);
    scenario_release(&s);
    diag_release(&d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .yaml of `dir`, in name order, under both schedulers. */
static void compare_dir(const char *dir, bool full, struct reach *r)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char *names[256];
    size_t n = 0;

    assert_non_null(dp);
    while ((e = readdir(dp)) && n < sizeof names / sizeof names[0]) {
        size_t len = strlen(e->d_name);

        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    assert_true(n > 0);
    qsort(names, n, sizeof names[0], by_name);
    for (size_t i = 0; i < n; i++) {
        char path[1024];

        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        compare_one(path, SCHED_MCS, full, r);
        compare_one(path, SCHED_CLASSIC, full, r);
        free(names[i]);
    }
}

static void test_tacc_live_equals_scan(void **state)
{
    struct reach r = {0};

    (void)state;
    compare_dir(MCSIM_SOURCE_DIR "/scenarios", false, &r);
    compare_dir(MCSIM_SOURCE_DIR "/scenarios", true, &r);
    compare_dir(MCSIM_SOURCE_DIR "/tests/scenarios/kernel", false, &r);
    compare_dir(MCSIM_SOURCE_DIR "/tests/data/refills", false, &r);
    print_message("%d runs: %lld jobs, %lld aborted, %lld releases lost, %lld throttles"
                  " (%lld cycles), %lld timeout faults, %lld grants, %lld interrupts handled,"
                  " %lld threads charged other than their cpu\n",
                  r.runs, (long long)r.jobs, (long long)r.aborted, (long long)r.lost,
                  (long long)r.throttles, (long long)r.throttled, (long long)r.faults,
                  (long long)r.grants, (long long)r.handled, (long long)r.charged_other);
    /* the corpus reaches every figure, so each comparison can fail */
    assert_true(r.runs >= 80);
    assert_true(r.aborted > 0);
    assert_true(r.lost > 0);
    assert_true(r.throttles > 0 && r.throttled > 0);
    assert_true(r.faults > 0);
    assert_true(r.grants > 0);
    assert_true(r.handled > 0);
    assert_true(r.charged_other > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tacc_live_equals_scan),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
