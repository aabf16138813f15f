/*
 * The release queue's index changes only the cost, not the order
 * (kernel/relq.h): random scenarios of 1,000 threads, most of them
 * released by their refills (yield threads, throttled device threads),
 * give the same rows from `mcsim run` as from mcsim_relq_reference, the
 * same mcsim with the release queue of tests/relq/relq_reference.c (a
 * walk of the list from its head, as seL4 does it). One set of threads
 * shares one period, so that many are due at the same time and the order
 * among equals (first queued, first released) decides.
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

#include "gen/gen.h"
#include "spawn.h"
#include "workdir.h"

static int setup(void **state)
{
    (void)state;
    return workdir_create("relq");
}

/* Every recorded row of run 1 but runs.created_at, in recorded order. */
static const char dump_sql[] =
    "SELECT 'slice', seq, thread_id, sc_thread_id, sc_notification, start_time, end_time "
    "FROM slices; "
    "SELECT 'job', seq, thread_id, job, release_time, start_time, finish_time, missed FROM jobs; "
    "SELECT 'budget', seq, thread_id, sc_thread_id, time, kind, amount FROM budget_events; "
    "SELECT 'irq', seq, device, line, arrival, delivered, lost, handler, handler_start FROM irqs; "
    "SELECT 'event', seq, time, kind, thread_id, object, arg FROM events; "
    "SELECT 'stats', * FROM kernel_stats; SELECT 'refill', * FROM final_refills;";

/* Run `bin` (an environment variable naming an mcsim) on scenario.yaml
 * into NAME.db and dump its rows, sorted, into NAME.txt. */
static void run_dump(const char *bin_var, const char *name)
{
    const char *bin = getenv(bin_var);
    char cmd[1024];

    assert_non_null(bin);
    snprintf(cmd, sizeof cmd, "'%s' run scenario.yaml -o %s.db --quiet > /dev/null", bin, name);
    assert_int_equal(spawn_sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "sqlite3 %s.db \"%s\" | sort > %s.txt", name, dump_sql, name);
    assert_int_equal(spawn_sh(cmd), 0);
}

/* How often `needle` occurs in `text`. */
static long occurrences(const char *text, const char *needle)
{
    long n = 0;

    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void compare(const struct gen_knobs *k, uint64_t seed)
{
    struct scenario s;
    struct strbuf y;
    struct diag d;
    size_t a_len, b_len;

    memset(&y, 0, sizeof y);
    diag_init(&d);
    assert_int_equal(gen_scenario(k, seed, &s, &y, &d), 0);
    assert_int_equal(s.n_threads >= 1000, 1);
    scenario_release(&s);
    workdir_write("scenario.yaml", sb_str(&y));
    sb_release(&y);
    diag_release(&d);

    run_dump("MCSIM_BIN", "index");
    run_dump("MCSIM_RELQ_REF_BIN", "list");
    char *a = workdir_must_read("index.txt", &a_len), *b = workdir_must_read("list.txt", &b_len);
    /* the release queue was used: each replenish is a thread leaving it */
    if (occurrences(a, "|replenish|") < 1000)
        fail_msg("seed %llu: only %ld threads left the release queue",
                 (unsigned long long)seed, occurrences(a, "|replenish|"));
    if (a_len != b_len || memcmp(a, b, a_len) != 0)
        fail_msg("seed %llu: the rows differ between the release index and the list walk",
                 (unsigned long long)seed);
    free(a);
    free(b);
    workdir_clear();
}

static void knobs(struct gen_knobs *k)
{
    gen_knobs_default(k);
    k->threads_min = k->threads_max = 1000;
    k->util_min = k->util_max = 0;
    k->total_util = 400;
    k->cost_max = 100;
    k->yield_share = 700;
    k->rr_share = 0;          /* every context can be throttled */
    k->extra_refills_max = 0; /* a yield gives up the one refill: the thread waits */
    k->priority_levels = 6;
    k->period_min = 1000000; /* 1 ms */
    k->period_max = 4000000;
    k->periods = 8;
}

static void test_relq_periods_drawn(void **state)
{
    struct gen_knobs k;
    (void)state;

    knobs(&k);
    compare(&k, 18);
}

static void test_relq_one_period(void **state)
{
    struct gen_knobs k;
    (void)state;

    knobs(&k);
    k.period_min = k.period_max = 2000000;
    compare(&k, 1018);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relq_periods_drawn),
        cmocka_unit_test(test_relq_one_period),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
