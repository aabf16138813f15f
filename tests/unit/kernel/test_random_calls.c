/*
 * The random system-call test (issue 19): 10^5 system calls (CI; the
 * target random-calls-long makes 10^6, MCSIM_RANDOM_CALLS sets any
 * number) from five worker threads with CSpaces of their own, drawn by
 * kfuzz.h's generator from a fixed seed, under MCS and under classic, in
 * worlds of WORLD_CALLS calls each.
 * After every kernel entry the bench runs the invariant checker (counted
 * here, not stopping the run); after every call the sentinel thread and
 * context, which no worker holds a capability to, must be unchanged; and
 * no call may panic the kernel. Prints the count of calls, of invariant
 * violations, and the share of the workers' invocations that were
 * performed (not refused by decode), which must be most of them: the
 * generator makes 90% of its invocations well-formed and, knowing the
 * world (kfuzz_valid.c), ones the kernel can perform (at least
 * MIN_PERFORMED_MCS / _CLASSIC percent are; 81.5% and 74.4% at the
 * suite's counts, from 43.8% and 20.5% before).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "kfuzz.h"
#include "ktest.h"

/* A fresh world every so many calls: the workers' own calls wear theirs
 * down (contexts unbound, priorities lowered, CSpaces replaced) faster
 * than the root task repairs it. */
#define WORLD_CALLS 5000u

/* The share of the workers' invocations that must be performed, percent:
 * most, the other 10% of invocations being malformed on purpose and some
 * guesses wrong. */
#define MIN_PERFORMED_MCS 75u
#define MIN_PERFORMED_CLASSIC 70u

/* splitmix64: the test's draws, fixed by its seed. */
static uint64_t next_draw(void *ctx, uint64_t n)
{
    uint64_t *s = ctx;
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return n == UINT64_MAX ? z : z % n;
}

static uint64_t calls_wanted(void)
{
    const char *e = getenv("MCSIM_RANDOM_CALLS");

    return e && *e ? strtoull(e, NULL, 10) : 100000u;
}

static void run_random(uint8_t scheduler, uint64_t seed, uint64_t calls, unsigned min_performed)
{
    struct kfuzz_src src = {next_draw, &seed};
    struct kfuzz_stats st = {0};
    const char *what = NULL;
    uint64_t worlds = 0, next_world = 0;

    ktest_count_violations(true);
    while (st.calls < calls) {
        if (st.calls >= next_world) {
            kfuzz_setup(scheduler);
            worlds++;
            next_world = st.calls + WORLD_CALLS;
        }
        kfuzz_step(&src, &st);
        if (!kfuzz_sentinel_intact(&what))
            fail_msg("after call %llu: %s changed without a capability that allows it",
                     (unsigned long long)st.calls, what);
    }
    printf("%s: %llu calls in %llu worlds (%llu by workers' invocations, %llu by the root task),"
           " %llu invariant violations; invocations performed %llu of %llu (%.1f%%), refused"
           " %llu; idle %llu\n",
           scheduler == SCHED_MCS ? "mcs" : "classic", (unsigned long long)st.calls,
           (unsigned long long)worlds, (unsigned long long)st.invocations,
           (unsigned long long)st.root_calls, (unsigned long long)ktest_violations(),
           (unsigned long long)st.performed, (unsigned long long)st.invocations,
           st.invocations ? 100.0 * (double)st.performed / (double)st.invocations : 0.0,
           (unsigned long long)st.refused, (unsigned long long)st.idle);
    assert_int_equal(ktest_violations(), 0);
    assert_int_equal(st.performed + st.refused, st.invocations);
    if (st.performed * 100 < st.invocations * min_performed)
        fail_msg("only %llu of %llu invocations performed, fewer than %u%%",
                 (unsigned long long)st.performed, (unsigned long long)st.invocations,
                 min_performed);
    ktest_count_violations(false);
}

static void test_random_calls_mcs(void **state)
{
    (void)state;
    run_random(SCHED_MCS, 19, calls_wanted(), MIN_PERFORMED_MCS);
}

static void test_random_calls_classic(void **state)
{
    (void)state;
    run_random(SCHED_CLASSIC, 1919, calls_wanted() / 5, MIN_PERFORMED_CLASSIC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_calls_mcs),
        cmocka_unit_test(test_random_calls_classic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
