/*
 * The accounting's two sources give the same figures (cli/acct/tacc.h,
 * issue 18): on every scenario, reference case and refill test scenario
 * (and a run on a timer slower than the CPU), under both schedulers, the accumulator fed the rows on their way to the
 * database (tacc_sink.h: what `mcsim run`'s summary prints) equals the one
 * fed one scan of the recorded tables (tacc_scan.h: `mcsim check`,
 * `mcsim stats`), thread by thread and in the run's totals, and so do the
 * scenario's verdicts (`deadlines:` counts from the accumulator); and the corpus
 * reaches every figure (aborted jobs, releases lost, throttles, timeout
 * faults, grants, interrupts handled). unit.accounting checks the scanned
 * figures against SQL over the tables.
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

#include "check/expect.h"
#include "db/db.h"
#include "engine.h"
#include "load/load.h"
#include "acct/tacc_scan.h"
#include "acct/tacc_sink.h"
#include "acct/twin.h"
#include "null_sink.h"
#include "scnload.h"
#include "tacc_same.h"
#include "util/diag.h"

/* What the corpus reached, summed over every run compared. */
struct reach {
    int runs;
    int64_t jobs, aborted, lost, throttles, throttled, faults, grants, handled, charged_other;
    /* the window checks: contexts, those over budget; runs whose worst
     * window is a sporadic context's, holds a grant, is counted in ticks;
     * contexts diagnosed fragmented, their throttles counted */
    int64_t contexts, sporadic, over, worst_granted, coarse, fragmented, fragment_throttles;
    /* every expectation kind asked of every run (same_kinds): verdicts
     * compared; those naming a failed job, an unfinished job, a worst
     * response; counts above 0 by kind; runs with a thread stuck */
    int64_t verdicts, first_missed, unfinished, worst, counted[EV_COUNT], stuck;
};

/* The scenario's verdicts with `deadlines:` counted from the rows as they
 * were recorded (mcsim run) and from the tables (mcsim check). */
static void same_verdicts(const char *what, struct db *db, const struct scenario *s,
                          const struct tacc *live, struct reach *reach)
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
            fail_msg("%s: %s: live %d %d \"%s\", scanned %d %d \"%s\"", what,
                     s->expects[i].text, x[i].applicable, x[i].passed, x[i].detail,
                     y[i].applicable, y[i].passed, y[i].detail);
        if (reach) {
            const struct scn_expect *e = &s->expects[i];

            reach->verdicts++;
            reach->first_missed += strstr(x[i].detail, "; first: job") != NULL;
            reach->unfinished += strstr(x[i].detail, " unfinished after ") != NULL;
            reach->worst += strstr(x[i].detail, "worst response of") != NULL;
            reach->counted[e->event] += e->kind == EXPECT_COUNT && !strstr(x[i].detail, ": 0 (");
        }
    }
    free(x);
    free(y);
}

/* Expectation k of e, of `kind`, every thread, device and scheduler's. */
static struct scn_expect *add(struct scn_expect *e, size_t *k, enum scn_expect_kind kind)
{
    struct scn_expect *x = &e[*k];

    *x = (struct scn_expect){.kind = kind,
                             .scheduler = SCN_ANY_SCHEDULER,
                             .criticality = SCN_NONE,
                             .thread = SCN_NONE,
                             .device = SCN_NONE};
    snprintf(x->text, sizeof x->text, "#%zu", *k);
    (*k)++;
    return x;
}

/* Every expectation kind the live accounting evaluates, asked of run
 * `s` whatever it expects, live and scanned (same_verdicts): deadlines
 * met of all threads and of each level, missed of each thread; the worst response of
 * each thread against 1ns and 1000s (the unfinished and the finished
 * jobs named); a count of each event of any thread, of each thread, and
 * for interrupts of each device (waking each thread); and the progress
 * guarantee. */
static void same_kinds(const char *what, struct db *db, const struct scenario *s,
                       const struct tacc *live, const struct tacc *scanned, struct reach *r)
{
    uint32_t n = s->n_threads, d = s->n_devices;
    size_t cap = 1 + n + s->n_levels + 2 * n + EV_COUNT * (1 + n) + 2 * d * (1 + n);
    struct scn_expect *e = calloc(cap, sizeof *e);
    uint32_t *refs = calloc(n + 1, sizeof *refs);
    struct scenario all = *s;
    struct expect_result px, py;
    struct scn_expect *x;
    size_t k = 0;

    assert_non_null(e);
    assert_non_null(refs);
    for (uint32_t i = 0; i < n; i++)
        refs[i] = i;
    add(e, &k, EXPECT_DEADLINES_MET);
    for (uint32_t i = 0; i < n; i++) {
        x = add(e, &k, EXPECT_DEADLINES_MISSED);
        x->thread_first = i;
        x->thread_count = 1;
    }
    for (uint32_t l = 0; l < s->n_levels; l++)
        add(e, &k, EXPECT_DEADLINES_MET)->criticality = l;
    for (uint32_t i = 0; i < n; i++) {
        x = add(e, &k, EXPECT_MAX_RESPONSE);
        x->thread = i;
        x->at_most_time = 1;
        x = add(e, &k, EXPECT_MAX_RESPONSE);
        x->thread = i;
        x->at_most_time = 1000 * s->cpu_hz;
    }
    for (int ev = 0; ev < EV_COUNT; ev++) {
        bool irq = ev == EV_IRQ || ev == EV_IRQ_LOST;

        for (uint32_t dv = 0; dv <= (irq ? d : 0); dv++)
            for (uint32_t t = 0; t <= n; t++) {
                x = add(e, &k, EXPECT_COUNT);
                x->event = (enum scn_count_event)ev;
                x->thread = t < n ? t : SCN_NONE;
                x->device = dv < d && irq ? dv : SCN_NONE;
            }
    }
    assert_true(k <= cap);
    all.expects = e;
    all.n_expects = (uint32_t)k;
    all.thread_refs = refs;
    same_verdicts(what, db, &all, live, r);
    expect_progress(live, s, &px);
    expect_progress(scanned, s, &py);
    if (px.passed != py.passed || strcmp(px.detail, py.detail) != 0)
        fail_msg("%s: progress: live \"%s\", scanned \"%s\"", what, px.detail, py.detail);
    r->stuck += !px.passed;
    free(e);
    free(refs);
}

static void assert_same_window(const char *what, const struct bwin_window *x,
                               const struct bwin_window *y)
{
    if (x->any != y->any || x->start != y->start || x->end != y->end || x->k != y->k ||
        x->paid != y->paid || x->grants != y->grants || x->excess != y->excess ||
        strcmp(x->ctx.name, y->ctx.name) != 0 || x->ctx.budget != y->ctx.budget ||
        x->ctx.period != y->ctx.period)
        fail_msg("%s: budget: respected's worst window: live %s [%lld, %lld) k %lld paid %lld"
                 " grants %lld excess %lld, scanned %s [%lld, %lld) k %lld paid %lld grants %lld"
                 " excess %lld",
                 what, x->ctx.name, (long long)x->start, (long long)x->end, (long long)x->k,
                 (long long)x->paid, (long long)x->grants, (long long)x->excess, y->ctx.name,
                 (long long)y->start, (long long)y->end, (long long)y->k, (long long)y->paid,
                 (long long)y->grants, (long long)y->excess);
}

/* The window checks (twin.h) accumulated live equal those of one
 * time-ordered scan of the tables: budget: respected's verdict (every
 * context counted, those over, the worst window) and, since its text is
 * made from it, the verdict of a `budget: respected` evaluated both ways
 * whatever the scenario expects; the fragmentation diagnosis context by
 * context. The rows came in the order the live checks need (else mcsim
 * run would scan). */
static void same_windows(const char *what, struct db *db, const struct scenario *s,
                         const struct tacc *live, struct reach *r)
{
    const struct twin *w = live->win;
    struct twin scanned;
    struct bwin_verdict x, y;
    struct twin_want want = {.budget = true, .fragment = true,
                             .allowance = expect_entry_allowance(&s->costs)};
    struct bwin_clock clock = w->budget.clock;
    struct fragment *fx, *fy;
    size_t nx, ny;
    char err[DB_ERRMSG_MAX];

    if (!twin_ok(w))
        fail_msg("%s: the window checks' rows came out of order", what);
    if (twin_scan(db_sqlite(db), db_run_id(db), s, &clock, &want, &scanned, err, sizeof err) != 0)
        fail_msg("%s: %s", what, err);
    bwin_verdict(&w->budget, &x);
    bwin_verdict(&scanned.budget, &y);
    if (x.contexts != y.contexts || x.over != y.over)
        fail_msg("%s: budget: respected: live %u of %u over, scanned %u of %u", what, x.over,
                 x.contexts, y.over, y.contexts);
    assert_same_window(what, &x.worst, &y.worst);
    assert_int_equal(tfrag_result(&w->frag, &fx, &nx), 0);
    assert_int_equal(tfrag_result(&scanned.frag, &fy, &ny), 0);
    if (nx != ny)
        fail_msg("%s: fragmented contexts: live %zu, scanned %zu", what, nx, ny);
    for (size_t i = 0; i < nx; i++)
        if (fx[i].thread_id != fy[i].thread_id || fx[i].throttles != fy[i].throttles ||
            fx[i].capacity != fy[i].capacity || fx[i].most_unused != fy[i].most_unused ||
            fx[i].budget != fy[i].budget || strcmp(fx[i].name, fy[i].name) != 0)
            fail_msg("%s: %s fragmented: live %lld throttles (capacity %lld, unused %lld),"
                     " scanned %lld (%lld, %lld)",
                     what, fx[i].name, (long long)fx[i].throttles, (long long)fx[i].capacity,
                     (long long)fx[i].most_unused, (long long)fy[i].throttles,
                     (long long)fy[i].capacity, (long long)fy[i].most_unused);
    r->contexts += x.contexts;
    r->over += x.over;
    r->worst_granted += x.worst.any && x.worst.grants > 0;
    r->coarse += bwin_coarse(&clock);
    r->sporadic += x.worst.any && x.worst.k > 0;
    r->fragmented += (int64_t)nx;
    for (size_t i = 0; i < nx; i++)
        r->fragment_throttles += fx[i].throttles;
    free(fx);
    free(fy);
    twin_release(&scanned);

    /* the verdict's text, evaluated both ways */
    struct scenario one = *s;
    struct scn_expect e = {.kind = EXPECT_BUDGET_RESPECTED, .scheduler = SCN_ANY_SCHEDULER,
                           .text = "budget: respected"};
    struct expect_result vx = {0}, vy = {0};

    one.expects = &e;
    one.n_expects = 1;
    if (expect_evaluate_acc(db_sqlite(db), db_run_id(db), &one, want.allowance, live, &vx, err,
                            sizeof err) != 0 ||
        expect_evaluate(db_sqlite(db), db_run_id(db), &one, want.allowance, &vy, err,
                        sizeof err) != 0)
        fail_msg("%s: %s", what, err);
    if (vx.passed != vy.passed || vx.applicable != vy.applicable ||
        strcmp(vx.detail, vy.detail) != 0)
        fail_msg("%s: budget: respected: live %d \"%s\", scanned %d \"%s\"", what, vx.passed,
                 vx.detail, vy.passed, vy.detail);
}

/* Run `path` under `scheduler` through the accumulating sink into a
 * database in memory, scan the database, compare; a file that cannot run
 * under that scheduler is skipped. */
static void compare_one(const char *path, uint8_t scheduler, bool full, void *ctx)
{
    struct reach *r = ctx;
    struct scenario s;
    struct db *db;
    struct tacc_tee tee;
    struct tacc scanned;
    struct eng_options o;
    struct eng_result res;
    char err[DB_ERRMSG_MAX], what[512];

    if (scnload_run_begin(path, scheduler, full, "tacc", &s, &db, &o, what, sizeof what) != 0)
        return;
    o.sink = tacc_tee_sink(&tee, db_sink(db, 0));
    tacc_tee_want(&tee, &(struct twin_want){.budget = true,
                                             .fragment = true,
                                             .allowance = expect_entry_allowance(&s.costs)});
    if (eng_run(&s, &o, &res) != ENG_OK) {
        tacc_tee_release(&tee);
        goto out; /* a scenario made to fail (a livelock): no summary */
    }
    const struct tacc *live = tacc_tee_result(&tee);
    if (!live)
        fail_msg("%s: no accounting accumulated", what);
    if (tacc_scan(db_sqlite(db), db_run_id(db), s.n_threads + 1, &s, s.duration, &scanned, err,
                  sizeof err) != 0)
        fail_msg("%s: %s", what, err);
    assert_same(what, live, &scanned);
    same_verdicts(what, db, &s, live, NULL);
    same_kinds(what, db, &s, live, &scanned, r);
    same_windows(what, db, &s, live, r);
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
    scnload_run_end(&s, db);
}

static void test_tacc_live_equals_scan(void **state)
{
    struct reach r = {0};

    (void)state;
    scnload_corpus_run(compare_one, &r);
    compare_one(MCSIM_SOURCE_DIR "/tests/data/run/coarse_timer.yaml", SCHED_MCS, false, &r);
    compare_one(MCSIM_SOURCE_DIR "/tests/data/run/coarse_timer.yaml", SCHED_MCS, true, &r);
    compare_one(MCSIM_SOURCE_DIR "/tests/data/run/no_progress.yaml", SCHED_MCS, false, &r);
    print_message("%d runs: %lld jobs, %lld aborted, %lld releases lost, %lld throttles"
                  " (%lld cycles), %lld timeout faults, %lld grants, %lld interrupts handled,"
                  " %lld threads charged other than their cpu\n",
                  r.runs, (long long)r.jobs, (long long)r.aborted, (long long)r.lost,
                  (long long)r.throttles, (long long)r.throttled, (long long)r.faults,
                  (long long)r.grants, (long long)r.handled, (long long)r.charged_other);
    print_message("budget: respected: %lld contexts, %lld over; worst windows: %lld sporadic,"
                  " %lld with grants, %lld runs in ticks; %lld contexts fragmented"
                  " (%lld throttles)\n",
                  (long long)r.contexts, (long long)r.over, (long long)r.sporadic,
                  (long long)r.worst_granted, (long long)r.coarse, (long long)r.fragmented,
                  (long long)r.fragment_throttles);
    print_message("every kind: %lld verdicts, %lld naming a failed job, %lld an unfinished one,"
                  " %lld a worst response; %lld runs with a thread stuck; counts above 0:",
                  (long long)r.verdicts, (long long)r.first_missed, (long long)r.unfinished,
                  (long long)r.worst, (long long)r.stuck);
    for (int ev = 0; ev < EV_COUNT; ev++)
        print_message(" %lld", (long long)r.counted[ev]);
    print_message("\n");
    /* the corpus reaches every figure, so each comparison can fail */
    assert_true(r.first_missed > 0 && r.unfinished > 0 && r.worst > 0 && r.stuck > 0);
    for (int ev = 0; ev < EV_COUNT; ev++)
        assert_true(r.counted[ev] > 0);
    assert_true(r.runs >= 80);
    assert_true(r.aborted > 0);
    assert_true(r.lost > 0);
    assert_true(r.throttles > 0 && r.throttled > 0);
    assert_true(r.faults > 0);
    assert_true(r.grants > 0);
    assert_true(r.handled > 0);
    assert_true(r.charged_other > 0);
    assert_true(r.contexts > 0 && r.sporadic > 0 && r.worst_granted > 0 && r.coarse > 0);
    assert_true(r.fragmented > 0 && r.fragment_throttles > 0);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tacc_live_equals_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
