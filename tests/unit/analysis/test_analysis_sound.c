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
 * MCSIM_SOUND_SCENARIOS (default 150), MCSIM_SOUND_SERVER_SCENARIOS (100,
 * test_analysis_sound_servers' knobs), MCSIM_SOUND_SEEDS (2) and
 * MCSIM_SOUND_FIRST (0) choose the scenarios; the long target
 * analysis_soundness_long runs 1,000 of each with 3 seeds each.
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
#include "sound_shapes.h"

static uint64_t env_or(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

/* Pessimism buckets: bound / observed worst at most 1.1, 1.5, 2, 5, 10, more. */
static const double edges[] = {1.1, 1.5, 2.0, 5.0, 10.0};
#define N_BUCKETS 6

#define N_CLASSES 32

struct tally {
    uint64_t threads, finite, observed, violations, lost_claims;
    uint64_t bucket[N_BUCKETS];
    double ratio_sum;
    /* per class of sound_classes: threads with jobs, with a finite bound */
    uint64_t cls[N_CLASSES], cls_finite[N_CLASSES];
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
    for (size_t c = 0; c < sound_n_classes; c++)
        printf("%s: %s: %llu of %llu finite\n", what, sound_classes[c].what,
               (unsigned long long)t->cls_finite[c], (unsigned long long)t->cls[c]);
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
        for (size_t c = 0; c < sound_n_classes; c++)
            if (sound_classes[c].is(s, i)) {
                t->cls[c]++;
                t->cls_finite[c] += a->bound != ANALYSIS_NO_BOUND;
            }
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

/* Analyses and simulates the scenarios of knobs `k`, seeds [first, first
 * + n), `seeds` runs each per scheduler; asserts no violation, and for a
 * range (n > 1) that each scheduler bounded something. */
static void sound(const struct gen_knobs *kn, uint64_t first, uint64_t n, uint64_t seeds)
{
    struct tally mcs = {0}, classic = {0};
    struct gen_knobs k = *kn;
    assert_true(sound_n_classes <= N_CLASSES);
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
    assert_true(n == 1 || (mcs.finite > 0 && classic.finite > 0));
}

static void test_analysis_sound_random(void **state)
{
    struct gen_knobs k;
    (void)state;
    gen_knobs_default(&k);
    /* the shapes and rules added to the model (docs/analysis.md): threads
     * woken by messages, always-ready threads at equal priorities, the
     * classic tick's round robin */
    k.message_share = 300;
    k.background_share = 300;
    k.classic_tick = true;
    k.tick_min = 100000;   /* 100 us at 1 GHz */
    k.tick_max = 2000000;  /* 2 ms */
    /* serve loops of a device bit and a signalled bit, second senders */
    k.serve_share = 300;
    /* blocking sends: half the recv threads of one sender */
    k.send_share = 500;
    /* background senders: 30% of the single-sender message threads */
    k.bgsend_share = 300;
    /* passive servers written as Microkit PDs serving protected procedures */
    k.ppc_share = 500;
    /* 30% of the serve loops and device threads passive, on their
     * notification's context */
    k.passive_share = 300;
    /* ... half of those serve loops with an endpoint nothing calls */
    k.ntfnep_share = 500;
    /* half of the protected handlers with a nested call make it twice */
    k.twice_share = 500;
    /* half of the servers with a nested call call a second server too */
    k.two_share = 500;
    /* ... some of them active: a round-robin context of their own */
    k.active_share = 300;
    /* background loops that call a server: half of those that call none */
    k.bgcall_share = 500;
    /* background loops that start late and compute outside their job */
    k.bgshape_share = 300;
    /* half the serve loops call a server in their handlers */
    k.srvcall_share = 500;
    /* half the serve loops with a context run an init job first, half the
     * passive protected-procedure servers notify a serve loop */
    k.init_share = 500;
    /* half the active servers have a budget below their period; half the
     * threads that call a server call an active server above them */
    k.active_above = 500;
    /* half the passive protected-procedure servers interrupted too */
    k.ppc_signalled = 500;
    /* a third of the systems' kernel costs dominated by the trap (entry,
     * exit): each interrupt held on a masked line costs nearly E more */
    k.entry_heavy = 333;
    sound(&k, env_or("MCSIM_SOUND_FIRST", 0), env_or("MCSIM_SOUND_SCENARIOS", 150),
          env_or("MCSIM_SOUND_SEEDS", 2));
}

/* Servers under stress: with the default knobs a request is at most 6% of
 * the shortest client period and budgets rarely run out inside a server
 * (25 of 107 scenarios with an `inherit` handler had any timeout fault),
 * so the policies' terms were hardly tried: the `inherit` term missed the
 * wait of a client that queues after a fault nobody was queued for
 * (docs/analysis.md). Here most job threads call, requests are long
 * (up to 40% of the shortest period), every server has a timeout endpoint
 * and budgets are often below the work: budgets run out inside servers
 * under every policy. MCSIM_SOUND_SERVER_SCENARIOS (default 100). */
static void server_stress(struct gen_knobs *k)
{
    gen_knobs_default(k);
    k->call_share = 900;
    k->server_util_max = 400;
    k->timeout_share = 1000;
    k->budget_min = 300;
    k->budget_max = 1500;
}

static void test_analysis_sound_servers(void **state)
{
    struct gen_knobs k;
    (void)state;
    server_stress(&k);
    k.background_share = 300;
    sound(&k, env_or("MCSIM_SOUND_FIRST", 0), env_or("MCSIM_SOUND_SERVER_SCENARIOS", 100),
          env_or("MCSIM_SOUND_SEEDS", 2));
    /* always, whatever the range: the two of the first 1,000 that the old
     * `inherit` term failed (seeds 220 and 595, each in its second run) */
    sound(&k, 220, 1, 2);
    sound(&k, 595, 1, 2);
}

/* Microkit's servers under stress: the knobs of the set above, but no
 * timeout handler (a Microkit PD has none: a client whose budget runs out
 * in a server leaves it waiting for that client's refill while the others
 * queue) and every server written as a passive PD's serve loop with an
 * endpoint (docs/analysis.md, "Protected procedures").
 * MCSIM_SOUND_SERVER_SCENARIOS (default 100). */
static void test_analysis_sound_ppc(void **state)
{
    struct gen_knobs k;
    (void)state;
    server_stress(&k);
    k.timeout_share = 0;
    k.ppc_share = 1000;
    k.twice_share = 500;
    k.two_share = 500;
    sound(&k, env_or("MCSIM_SOUND_FIRST", 0), env_or("MCSIM_SOUND_SERVER_SCENARIOS", 100),
          env_or("MCSIM_SOUND_SEEDS", 2));
}

/* Microkit's active servers under stress: the set above with every
 * serve-loop server without a nested call given a round-robin context of
 * its own (docs/analysis.md, "Active servers"): its callers' requests run
 * on it and interfere. MCSIM_SOUND_SERVER_SCENARIOS (default 100). */
static void test_analysis_sound_active(void **state)
{
    struct gen_knobs k;
    (void)state;
    server_stress(&k);
    k.timeout_share = 0;
    k.ppc_share = 1000;
    k.active_share = 1000;
    k.active_above = 500; /* budgets below the period, calls from below them */
    sound(&k, env_or("MCSIM_SOUND_FIRST", 0), env_or("MCSIM_SOUND_SERVER_SCENARIOS", 100),
          env_or("MCSIM_SOUND_SEEDS", 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analysis_sound_random),
        cmocka_unit_test(test_analysis_sound_servers),
        cmocka_unit_test(test_analysis_sound_ppc),
        cmocka_unit_test(test_analysis_sound_active),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
