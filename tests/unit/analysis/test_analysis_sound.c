/*
 * cli/analysis soundness: random scenarios of cli/gen (contexts constant
 * bandwidth and sporadic, equal and distinct priorities, devices with
 * jitter, bursts, sporadic and listed arrivals, passive servers with
 * nested calls and every timeout policy, non-zero kernel costs), each
 * analysed under mcs and classic and simulated with several seeds: no
 * thread's observed response (nor the age of a job unfinished at the end)
 * may exceed its finite bound, and no interrupt may be lost on a line
 * whose thread the analysis says loses none. Prints the share of threads
 * with a finite bound and the pessimism (bound / observed worst).
 *
 * MCSIM_SOUND_SCENARIOS (default 150), MCSIM_SOUND_SEEDS (2) and
 * MCSIM_SOUND_FIRST (0) choose the scenarios; the long target
 * analysis_soundness_long runs 1,000 with 3 seeds each.
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

#include "analysis/analysis.h"
#include "gen/gen.h"
#include "observe.h"

static uint64_t env_or(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

/* Pessimism buckets: bound / observed worst at most 1.1, 1.5, 2, 5, 10, more. */
static const double edges[] = {1.1, 1.5, 2.0, 5.0, 10.0};
#define N_BUCKETS 6

struct tally {
    uint64_t threads, finite, observed, violations, lost_claims;
    uint64_t bucket[N_BUCKETS];
    double ratio_sum;
};

static void report(const char *what, const struct tally *t)
{
    printf("%s: %llu threads with jobs, %llu with a finite bound (%.1f%%), %llu compared "
           "with an observed worst, %llu violations, %llu wrong 'no interrupt lost' claims\n",
           what, (unsigned long long)t->threads, (unsigned long long)t->finite,
           t->threads ? 100.0 * (double)t->finite / (double)t->threads : 0.0,
           (unsigned long long)t->observed, (unsigned long long)t->violations,
           (unsigned long long)t->lost_claims);
    printf("%s: pessimism bound/observed: <=1.1 %llu, <=1.5 %llu, <=2 %llu, <=5 %llu, "
           "<=10 %llu, >10 %llu; mean %.2f\n",
           what, (unsigned long long)t->bucket[0], (unsigned long long)t->bucket[1],
           (unsigned long long)t->bucket[2], (unsigned long long)t->bucket[3],
           (unsigned long long)t->bucket[4], (unsigned long long)t->bucket[5],
           t->observed ? t->ratio_sum / (double)t->observed : 0.0);
}

/* Compare one run with the analysis; count violations. */
static void compare(const struct scenario *s, const struct analysis_result *r,
                    const struct observed *o, cycles_t end, uint64_t gen_seed, uint64_t run_seed,
                    struct tally *t, cycles_t *worst)
{
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct analysis_thread *a = &r->threads[i];
        const struct observed_thread *ob = &o->threads[i];
        cycles_t open_age = ob->oldest_open == SINK_NO_TIME ? 0 : end - ob->oldest_open;
        if (ob->jobs > 0 && ob->worst > worst[i])
            worst[i] = ob->worst;
        if (a->bound == ANALYSIS_NO_BOUND)
            continue;
        if ((ob->jobs > 0 && ob->worst > a->bound) || open_age > a->bound) {
            t->violations++;
            fprintf(stderr,
                    "VIOLATION: scenario seed %llu, run seed %llu, %s, thread %s: bound %llu, "
                    "observed worst %llu, unfinished for %llu\n",
                    (unsigned long long)gen_seed, (unsigned long long)run_seed,
                    r->scheduler == SCHED_CLASSIC ? "classic" : "mcs", s->threads[i].name,
                    (unsigned long long)a->bound, (unsigned long long)ob->worst,
                    (unsigned long long)open_age);
        }
    }
    for (uint32_t d = 0; d < s->n_devices; d++)
        for (uint32_t i = 0; i < s->n_threads; i++)
            if (o->lost[d] > 0 && r->threads[i].bound != ANALYSIS_NO_BOUND &&
                !r->threads[i].may_lose_irq && r->threads[i].thread == i &&
                s->devices[d].notification != SCN_NONE &&
                strstr(s->devices[d].name, s->threads[i].name) != NULL &&
                strlen(s->devices[d].name) == strlen(s->threads[i].name) + 2) {
                t->lost_claims++;
                fprintf(stderr, "WRONG CLAIM: scenario seed %llu, thread %s loses interrupts\n",
                        (unsigned long long)gen_seed, s->threads[i].name);
            }
}

static void one_scheduler(const struct scenario *s, uint8_t sched, uint64_t gen_seed,
                          uint64_t seeds, struct tally *t)
{
    struct analysis_result r;
    cycles_t *worst = calloc(s->n_threads, sizeof *worst);
    assert_non_null(worst);
    assert_int_equal(analysis_run(s, sched, &r), 0);
    for (uint64_t k = 0; k < seeds; k++) {
        struct observed o;
        cycles_t end;
        assert_int_equal(observe_run(s, sched, gen_seed * 1000 + k, &o, &end), 0);
        compare(s, &r, &o, end, gen_seed, gen_seed * 1000 + k, t, worst);
        observe_release(&o);
    }
    for (uint32_t i = 0; i < s->n_threads; i++) {
        const struct analysis_thread *a = &r.threads[i];
        if (a->verdict == ANALYSIS_NO_JOBS)
            continue;
        t->threads++;
        if (a->bound == ANALYSIS_NO_BOUND)
            continue;
        t->finite++;
        if (worst[i] == 0)
            continue;
        double ratio = (double)a->bound / (double)worst[i];
        int b = 0;
        while (b < N_BUCKETS - 1 && ratio > edges[b])
            b++;
        t->bucket[b]++;
        t->observed++;
        t->ratio_sum += ratio;
    }
    analysis_release(&r);
    free(worst);
}

static void test_analysis_sound_random(void **state)
{
    uint64_t n = env_or("MCSIM_SOUND_SCENARIOS", 150), seeds = env_or("MCSIM_SOUND_SEEDS", 2);
    uint64_t first = env_or("MCSIM_SOUND_FIRST", 0);
    struct tally mcs = {0}, classic = {0};
    struct gen_knobs k;
    (void)state;
    gen_knobs_default(&k);
    for (uint64_t seed = first; seed < first + n; seed++) {
        struct scenario s;
        struct diag d;
        diag_init(&d);
        assert_int_equal(gen_scenario(&k, seed, &s, NULL, &d), 0);
        diag_release(&d);
        one_scheduler(&s, SCHED_MCS, seed, seeds, &mcs);
        one_scheduler(&s, SCHED_CLASSIC, seed, seeds, &classic);
        scenario_release(&s);
    }
    printf("%llu scenarios (seeds %llu..%llu), %llu runs each per scheduler\n",
           (unsigned long long)n, (unsigned long long)first,
           (unsigned long long)(first + n - 1), (unsigned long long)seeds);
    report("mcs", &mcs);
    report("classic", &classic);
    assert_int_equal(mcs.violations + classic.violations, 0);
    assert_int_equal(mcs.lost_claims + classic.lost_claims, 0);
    /* the analysis must bound something: a share of zero would pass vacuously */
    assert_true(mcs.finite > 0 && classic.finite > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analysis_sound_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
