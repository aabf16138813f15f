/*
 * The property test of issue 19: random *valid* scenarios (cli/gen: up to
 * hundreds of threads, tiny and huge budgets, round-robin, sporadic and
 * extra refills, passive servers and chains of calls, bursts and every
 * other arrival form, every timeout policy, coarse timers, zero and
 * non-zero kernel costs, both schedulers), each loaded, run in process
 * and recorded into a database in memory. Whatever the scenario:
 *   - it loads and can run under its scheduler (the generator writes only
 *     valid files), and the run reaches its end (no internal error, no
 *     violated kernel invariant: the debug preset checks them after every
 *     kernel entry, under ASan and UBSan, where any report fails the test);
 *   - `budget: respected` holds, with `mcsim check`'s allowance;
 *   - no two slices overlap on the one CPU;
 *   - every row lies inside the run, [0, duration], with its times in
 *     order: a slice ends after it starts; a job is released, starts, then
 *     finishes; an interrupt arrives, is delivered, then handled.
 * A broken property prints the scenario's YAML and the property, and the
 * next scenario runs; the test then fails naming every scenario that broke
 * one (the first 16).
 *
 * MCSIM_PROPERTY_SCENARIOS (default 100) and MCSIM_PROPERTY_FIRST (0)
 * choose the scenarios (scenario i: knobs and seed from stream
 * "property" of seed i); the suite runs 1,000 (200 under the sanitizers),
 * the target property-long 5,000.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>
#include <sqlite3.h>

#include "check/expect.h"
#include "db/db.h"
#include "engine.h"
#include "gen/gen.h"
#include "load/load.h"
#include "rng.h"
#include "util/diag.h"
#include "util/strbuf.h"

static uint64_t env_or(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static uint32_t share(struct rng *r)
{
    return (uint32_t)rng_uniform(r, 0, 1000);
}

/* Knobs over the generator's whole range, drawn from `r`. */
static void draw_knobs(struct rng *r, struct gen_knobs *k, uint8_t *scheduler)
{
    /* Coarse timers: whole numbers of CPU cycles a tick, and 32768Hz
     * (30517.578 cycles a tick), where `budget: respected` counts in ticks
     * as the kernel does. */
    static const uint64_t timers[] = {1000000000u, 100000000u, 10000000u, 1000000u, 32768u};

    gen_knobs_default(k);
    k->threads_min = 1;
    k->threads_max = rng_uniform(r, 0, 9) == 0 ? (uint32_t)rng_uniform(r, 100, 300)
                                               : (uint32_t)rng_uniform(r, 1, 12);
    k->distinct_priorities = rng_uniform(r, 0, 1);
    k->priority_levels = (uint32_t)rng_uniform(r, 1, 8);
    k->budget_min = (uint32_t)rng_uniform(r, 50, 1500); /* tiny (the job overruns) ... */
    k->budget_max = k->budget_min + (uint32_t)rng_uniform(r, 0, 3000); /* ... to slack */
    k->rr_share = share(r);
    k->sporadic_share = share(r);
    k->extra_refills_max = (uint32_t)rng_uniform(r, 0, 8);
    k->yield_share = share(r);
    k->w_periodic = (uint32_t)rng_uniform(r, 0, 4);
    k->w_jitter = (uint32_t)rng_uniform(r, 0, 4);
    k->w_sporadic = (uint32_t)rng_uniform(r, 0, 4);
    k->w_burst = (uint32_t)rng_uniform(r, 0, 4);
    k->w_at = (uint32_t)rng_uniform(r, 0, 4);
    if (k->w_periodic + k->w_jitter + k->w_sporadic + k->w_burst + k->w_at == 0)
        k->w_periodic = 1;
    k->burst_count_max = (uint32_t)rng_uniform(r, 1, 20);
    k->offset_share = share(r);
    k->servers_max = (uint32_t)rng_uniform(r, 0, 6);
    k->call_share = share(r);
    k->nested_share = share(r);
    k->timeout_share = share(r);
    k->policy_reset = rng_uniform(r, 0, 1);
    k->policy_emergency = rng_uniform(r, 0, 1);
    k->policy_inherit = rng_uniform(r, 0, 1);
    k->kernel_costs = rng_uniform(r, 0, 1);
    k->cost_max = (uint32_t)rng_uniform(r, 0, 2000);
    k->timer_hz = timers[rng_uniform(r, 0, 4)];
    k->hi_share = share(r);
    k->periods = (uint32_t)rng_uniform(r, 1, 4);
    *scheduler = rng_uniform(r, 0, 3) == 0 ? SCHED_CLASSIC : SCHED_MCS;
}

/* Rows outside the run or with their times out of order: each query
 * counts them (?1 = the duration). */
static const char *const outside[] = {
    "SELECT count(*) FROM run_slices WHERE run_id = 1 AND "
    "(start_time < 0 OR end_time < start_time OR end_time > ?1)",
    "SELECT count(*) FROM run_jobs WHERE run_id = 1 AND (release_time < 0 OR release_time > ?1 "
    "OR start_time < release_time OR start_time > ?1 OR finish_time > ?1 "
    "OR finish_time < COALESCE(start_time, release_time))",
    "SELECT count(*) FROM run_budget_events WHERE run_id = 1 AND (time < 0 OR time > ?1)",
    "SELECT count(*) FROM run_irqs WHERE run_id = 1 AND (arrival < 0 OR arrival > ?1 "
    "OR delivered < arrival OR delivered > ?1 OR handler_start < delivered "
    "OR handler_start > ?1)",
    "SELECT count(*) FROM run_events WHERE run_id = 1 AND (time < 0 OR time > ?1)",
    /* one CPU: a slice starting before the one before it ended */
    "SELECT count(*) FROM (SELECT start_time, lag(end_time) OVER (ORDER BY start_time, "
    "end_time) AS prev_end FROM run_slices WHERE run_id = 1) WHERE start_time < prev_end",
};

static int64_t count(sqlite3 *sq, const char *sql, cycles_t duration)
{
    sqlite3_stmt *st;
    int64_t n = -1;

    if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(sq));
    sqlite3_bind_int64(st, 1, (int64_t)duration);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

struct tally {
    uint64_t scenarios, unsatisfiable, classic, threads, max_threads, slices, jobs, throttles;
    uint64_t n_broken, broken[16]; /* the scenarios that broke a property (the first 16) */
};

/* A broken property: its scenario's YAML and what broke, on stderr; the
 * scenario is counted and the next one runs. */
static void broken(struct tally *t, uint64_t i, const struct strbuf *yaml, const char *what,
                   const char *detail)
{
    fprintf(stderr, "%s\n---\nscenario %llu: property broken: %s: %s\n", sb_str(yaml),
            (unsigned long long)i, what, detail);
    if (t->n_broken < sizeof t->broken / sizeof t->broken[0])
        t->broken[t->n_broken] = i;
    t->n_broken++;
}

/* The run's properties (run_id 1 of sq): budget: respected, every row
 * inside the run with its times in order, one slice at a time; false
 * after reporting the first that broke. */
static bool run_holds(struct tally *t, uint64_t i, const struct strbuf *yaml, sqlite3 *sq,
                      const struct scenario *s)
{
    struct expect_result budget;
    struct scn_expect respected = {.kind = EXPECT_BUDGET_RESPECTED,
                                   .scheduler = SCN_ANY_SCHEDULER};
    struct scenario only = *s;
    char err[DB_ERRMSG_MAX];

    only.expects = &respected;
    only.n_expects = 1;
    if (expect_evaluate(sq, 1, &only, expect_entry_allowance(&s->costs), &budget, err,
                        sizeof err) != 0)
        fail_msg("budget: respected: %s", err);
    if (budget.applicable && !budget.passed) {
        broken(t, i, yaml, "budget: respected", budget.detail);
        return false;
    }
    for (size_t q = 0; q < sizeof outside / sizeof outside[0]; q++) {
        int64_t n = count(sq, outside[q], s->duration);
        if (n != 0) {
            snprintf(err, sizeof err, "%lld rows", (long long)n);
            broken(t, i, yaml, outside[q], err);
            return false;
        }
    }
    return true;
}

/* Scenario i: generate, run, check. */
static void one(uint64_t i, struct tally *t)
{
    struct rng r;
    struct gen_knobs k;
    struct scenario s;
    struct strbuf yaml = {0};
    struct diag d;
    struct db *db = NULL;
    struct eng_result res;
    char err[DB_ERRMSG_MAX];
    uint8_t scheduler;

    rng_seed_stream(&r, i, "property");
    draw_knobs(&r, &k, &scheduler);
    diag_init(&d);
    if (gen_scenario(&k, rng_next(&r), &s, &yaml, &d) != 0) {
        if (diag_count(&d) > 0 && d.msgs[0].file) { /* the loader refused its text */
            diag_print(&d, stderr);
            broken(t, i, &yaml, "the generated scenario loads", "it does not");
        } else {
            t->unsatisfiable++; /* knobs the generator cannot meet, said in d */
        }
        sb_release(&yaml);
        diag_release(&d);
        return;
    }
    s.scheduler = scheduler;
    if (load_check_runnable(&s, &d) != 0) {
        diag_print(&d, stderr);
        broken(t, i, &yaml, "the generated scenario can run under its scheduler", "it cannot");
        goto out;
    }
    if (db_open(":memory:", &db, err, sizeof err) != 0)
        fail_msg("an in-memory database: %s", err);
    struct eng_options o = {
        .seed = s.seed,
        .duration = s.duration,
        .scheduler = s.scheduler,
        .version = "property",
        .sink = db_sink(db, 0),
    };
    if (eng_run(&s, &o, &res) != ENG_OK) {
        broken(t, i, &yaml, "the run reaches its end", res.error);
        goto out;
    }
    sqlite3 *sq = db_sqlite(db);
    if (!run_holds(t, i, &yaml, sq, &s))
        goto out;
    t->scenarios++;
    t->classic += scheduler == SCHED_CLASSIC;
    t->threads += s.n_threads;
    if (s.n_threads > t->max_threads)
        t->max_threads = s.n_threads;
    t->slices += (uint64_t)count(sq, "SELECT count(*) FROM run_slices WHERE run_id = 1", 0);
    t->jobs += (uint64_t)count(sq, "SELECT count(*) FROM run_jobs WHERE run_id = 1", 0);
    t->throttles += (uint64_t)count(
        sq, "SELECT count(*) FROM run_budget_events WHERE run_id = 1 AND kind = 'throttle'", 0);
out:
    if (db)
        db_close(db);
    scenario_release(&s);
    sb_release(&yaml);
    diag_release(&d);
}

static void test_property_random_valid(void **state)
{
    (void)state;
    uint64_t first = env_or("MCSIM_PROPERTY_FIRST", 0);
    uint64_t n = env_or("MCSIM_PROPERTY_SCENARIOS", 100);
    struct tally t = {0};

    for (uint64_t i = first; i < first + n; i++)
        one(i, &t);
    printf("property: scenarios %llu..%llu: %llu run (%llu under classic), %llu knob sets the "
           "generator cannot meet; %llu threads (at most %llu in one), %llu slices, %llu jobs, "
           "%llu throttles; ",
           (unsigned long long)first, (unsigned long long)(first + n - 1),
           (unsigned long long)t.scenarios, (unsigned long long)t.classic,
           (unsigned long long)t.unsatisfiable, (unsigned long long)t.threads,
           (unsigned long long)t.max_threads, (unsigned long long)t.slices,
           (unsigned long long)t.jobs, (unsigned long long)t.throttles);
    if (t.n_broken == 0)
        printf("every property held\n");
    else {
        printf("%llu broke a property:", (unsigned long long)t.n_broken);
        for (uint64_t b = 0; b < t.n_broken && b < sizeof t.broken / sizeof t.broken[0]; b++)
            printf(" %llu", (unsigned long long)t.broken[b]);
        printf("%s\n", t.n_broken > sizeof t.broken / sizeof t.broken[0] ? " ..." : "");
    }
    assert_int_equal(t.n_broken, 0);
    /* the test tests something: most knob sets run, and they do things
     * (a range of 100 or more; one scenario alone is a reproduction) */
    if (n >= 100) {
        assert_true(t.scenarios * 10 >= n * 9);
        assert_true(t.throttles > 0 && t.classic > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_property_random_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
