/*
 * cli/analysis: the kernel's timer entries in a window (docs/analysis.md,
 * "Kernel") and the first round of passes that assumes every context
 * never runs out until its analysis says otherwise ("The bound"), on
 * bench/rm10.yaml: ten periodic device threads, priorities by rate, each
 * with a constant-bandwidth context of twice the compute it needs (six
 * refills), the default kernel costs (E = 1310 cycles, the longest entry:
 * entry + exit + syscall + irq + 3 ipc + schedule + timer_program + tick =
 * 120 + 100 + 80 + 100 + 450 + 120 + 250 + 90). Before, every context that
 * might run out counted 3 x 6 timer entries per period at every level,
 * 36 of each lower context in a window shorter than its period: task1's
 * window held about 440us of kernel time for 82.62us of work, so no
 * context was shown never to run out and task1 (53.27ms) and task2
 * (381.6ms) were "unschedulable", task3..task10 had no bound.
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
#include "ancheck.h"
#include "load/load.h"
#include "observe.h"
#include "scnload.h"

#define US 1000u /* cycles at 1 GHz */

/*
 * Each job's work is its compute, 80us x 2^k-ish, plus its own three
 * entries' share charged to it, 2.62us (82.62us for task1). In task1's,
 * task2's and task3's windows (all shorter than 1ms) the kernel's entries
 * are: one in progress at the release, one arrival of each of the ten
 * devices, one interrupt held on a masked line (docs/analysis.md, "Kernel
 * K(d)": at a critical instant the lines of the threads at or above the
 * level hold nothing, and those below can be acknowledged only by the
 * entry in progress), and one timer entry of each lower context that may
 * run out and stands still there (below the level, calling no server, no
 * idle time): task4..task10, 7 (task1..task3 are shown never to run out:
 * none of their own). 19 x 1310 = 24.89us.
 *  - task1: 82.62 + 24.89 = 107.51us.
 *  - task2: 162.62 + 24.89 + one job of task1 82.62 = 270.13us.
 *  - task3: 322.62 + 24.89 + 162.62 + 82.62 = 592.75us (one job each:
 *    592.75us < 1ms).
 * Each is below its budget less MIN_BUDGET, 3 E and 2 ticks (160, 320,
 * 640us), so each job starts with its whole budget in one refill and
 * never runs out ("Never runs out"). task4 (402.62us of work, 800us
 * budget, response above 800us) really is throttled in the simulation
 * (100 throttles in 2s), and is counted as running out: 1 timer entry in
 * the windows above. Simulated (ancheck_bounds: two seeds of 10s, every
 * observed worst within its bound; `mcsim run --analyze --duration 2s`
 * with seed 1 observes 84.65, 245.62 and 566.59us).
 *
 * task4..task10 may run out (task4, task6 and task8 are throttled in the
 * run, task6's and task8's lists fill): each bound is the two-job one,
 * its throttling the phase bound (docs/analysis.md, "Own throttling"),
 * (3 + 2 floor(need / (b - MIN_BUDGET))) (T - b), MIN_BUDGET 1.94us, with
 * need = 2 W + E x the entries that can be charged to the context: the
 * window's (the "kernel" term) but for the other contexts' timer entries,
 * of which only their releases count, 6 per T - MIN_BUDGET - 2 ticks
 * instead of 18 per T (docs/analysis.md, "What a window charges"). The
 * window's kernel term is an upper bound on that part of need, so the
 * phases are at most those of "own + kernel":
 *  - task4: 805.24us + at most 774.21us, floor(/798.06us) = 1: 5 x
 *    4.2ms = 21ms; bound 30.32355ms (observed 967.56us);
 *  - task5: 1285.24 + <= 1177.69us, / 1.27806ms: 1, 5 x 6.72 = 33.6ms;
 *  - task6: 1605.24 + <= 1687.28us, / 1.59806ms: 1 (2 before, when
 *    need counted all 18 per period: 58.8ms), 5 x 8.4 = 42ms;
 *  - task7: 2565.24 + <= 2739.21us, / 2.55806ms: 1 (was 2), 5 x 13.44 =
 *    67.2ms;
 *  - task8: 3205.24 + <= 4091.13us, / 3.19806ms: 1 (was 2), 5 x 16.8 =
 *    84ms;
 *  - task9: 6405.24 + <= 9564.31us, / 6.39806ms: 1 (was 3), 5 x 33.6 =
 *    168ms;
 *  - task10: 8005.24 + <= 15653.19us, / 7.99806ms: at most 2; the
 *    charged part, below 7.99ms, gives 1 (was 5): 5 x 42 = 210ms.
 * Before need counted every timer entry of the other contexts (18 per
 * period each; with the held interrupts of "Kernel K(d)"): task6
 * 109.49074ms, task7 204.58726ms, task8 309.05277ms, task9 952.99551ms,
 * task10 2.22938755s.
 * Before the phase bound task4 was 100.87548ms, task5 338.73512ms, and
 * task6..task10 had no bound (the episodes of 2T - b + m + E and the
 * window's preemption again outgrew the window). The rest of each bound
 * (kernel entries, interference) is the fixed point's, not by hand.
 */
static void test_rm10(void **state)
{
    static const char *const names[] = {"task1", "task2", "task3", "task4", "task5",
                                        "task6", "task7", "task8", "task9", "task10"};
    static const cycles_t bounds[] = {107510,   270130,    592750,    30323550,  54993750,
                                      81513640, 149376910, 228746630, 553483150, 918062610};
    static const cycles_t theta[] = {21000000, 33600000, 42000000, 67200000,
                                     84000000, 168000000, 210000000};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/bench/rm10.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, bounds, 10);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    for (uint32_t i = 3; i < 10; i++) {
        const struct analysis_thread *a = &r.threads[i];
        const struct scn_thread *th = &s.threads[i];
        cycles_t need = 0, budget = 0, run = th->sc.budget - scenario_min_budget(&s);
        assert_true(a->may_throttle);
        for (uint32_t k = 0; k < a->n_terms; k++) {
            if (a->terms[k].kind == TERM_OWN || a->terms[k].kind == TERM_KERNEL)
                need += a->terms[k].cycles;
            if (a->terms[k].kind == TERM_BUDGET)
                budget = a->terms[k].cycles;
        }
        assert_int_equal(budget, theta[i - 3]);
        assert_int_equal(run, th->sc.budget - 1940);
        /* need <= own + kernel: the charged entries are some of the window's */
        assert_true(budget <= (3 + 2 * (need / run)) * (th->sc.period - th->sc.budget));
        assert_true(budget >= 3 * (th->sc.period - th->sc.budget));
    }
    for (uint32_t i = 0; i < 3; i++) {
        assert_false(r.threads[i].may_throttle);
        assert_int_equal(r.threads[i].n_terms, 2 + i);
        assert_string_equal(r.threads[i].terms[1].text, "kernel");
        assert_int_equal(r.threads[i].terms[1].cycles, 19 * 1310);
    }
    assert_true(r.threads[3].may_throttle);
    analysis_release(&r);
    scenario_release(&s);
}

/*
 * tests/data/analysis/rr_charged.yaml: what a window charges to a context
 * that throttles (docs/analysis.md, "Own throttling"). lo (10, 2ms of
 * 10ms, two refills, 2.5ms every 20ms) is throttled in every job; hi
 * above it (20, 100us every 1ms) has a round-robin context of 250us.
 * Every entry costs entry = 25us (the other costs 0: E = 25us), MIN_BUDGET
 * 100us; W: hi 100 + 2 x 25 = 150us, lo 2500 + 50 = 2550us.
 * mcs, lo's two-job bound at w = 177.15ms:
 *   own 2 x 2.55ms = 5.1ms; hi 178 x 150us = 26.7ms (ceil(w / 1ms));
 *   K(w) = 1 in progress + 2 held (one interrupt on each acknowledged
 *     line) + th 178 + tl ceil(w / 20ms) = 9 + lo's timers 3 x 2 x
 *     (ceil(w / 10ms) + 1) = 114 + hi's round-robin expiries
 *     ceil(w / 250us) + 1 = 710: 1014 x 25us = 25.35ms;
 *   charged, without hi's expiries (its timer fires only while hi runs):
 *     304 x 25us = 7.6ms, need 5.1 + 7.6 = 12.7ms, floor(/ (2ms -
 *     100us)) = 6: Theta = (3 + 12) x 8ms = 120ms;
 *   5.1 + 120 + 25.35 + 26.7 = 177.15ms.
 * Before, need counted hi's expiries too (4 per ms, 100us), and the two
 * phases of 8ms per 1.9ms of need grew faster than the window: no bound.
 * hi (a critical instant: hi's line holds nothing at its start, lo's can
 * be acknowledged only by the entry in progress, one held): 150us + 8
 * entries (1 + 1 held + th 1 + tl 1 + its own 3 + lo's 1: below hi it
 * stands still) = 350us. classic (tick 2ms): hi 150 + 6 x 25 (1 + 1 + 1 +
 * 1 + ticks ceil(w / 2ms) + 1 = 2) = 300us; lo (both lines at or above its
 * level: none held) 2.55ms + 4 x 150us + 9 x 25us (1 + th 4 + tl 1 +
 * ticks 3) = 3.375ms. Simulated (ancheck_bounds; 2s
 * with seed 1 observes lo 11.25ms under mcs, 3.3ms under classic).
 */
static void test_rr_charged(void **state)
{
    static const char *const names[] = {"hi", "lo"};
    static const cycles_t mcs[] = {350 * US, 177150 * US};
    static const cycles_t classic[] = {300 * US, 3375 * US};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/tests/data/analysis/rr_charged.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 2);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, 2);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_true(r.threads[1].may_throttle);
    for (uint32_t k = 0; k < r.threads[1].n_terms; k++) {
        if (r.threads[1].terms[k].kind == TERM_BUDGET)
            assert_int_equal(r.threads[1].terms[k].cycles, 120000 * US);
        if (r.threads[1].terms[k].kind == TERM_KERNEL)
            assert_int_equal(r.threads[1].terms[k].cycles, 1014 * 25 * US);
    }
    analysis_release(&r);
    scenario_release(&s);
}

/*
 * tests/data/analysis/held_entries.yaml: an interrupt held on a masked
 * line enters the kernel at the irq_ack that unmasks it, an entry the
 * window counts once per acknowledged line (docs/analysis.md, "Kernel
 * K(d)"). entry = 10us, the rest 0: E = 10us. hi (20): 100us per dh
 * interrupt (1ms, 1.05ms, 5ms), W = 100 + 2E = 120us; lo (10): 2ms per dl
 * interrupt (every 10ms), W = 2.02ms; dq (every 5ms) nobody waits on or
 * acknowledges. Round-robin contexts of 40ms/40ms.
 * Both bounds are critical-instant windows (device threads of
 * round-robin contexts): at the start of a level's busy period the lines
 * of its device threads at or above the level hold nothing (each thread
 * waits, after the irq_ack that ended its last job); a line of one below
 * can be acknowledged in the window only by the entry in progress at its
 * start: one held delivery for hi's level (dl), none for lo's. dq is
 * never acknowledged: nothing held.
 *  - mcs, hi: the busy window holds both early jobs, w = 240us + E K(w),
 *    K = 1 in progress + 1 held + dh 2 + dl 1 + dq 1 + hi's expiries
 *    (ceil(w / 40ms) + 1) 2 + lo's 1 (it stands still below hi) = 9: w =
 *    330us, job 2 released 50us after job 1: 280us.
 *  - mcs, lo: R = 2.02ms + 2 x 120us + E K(R), K = 1 + dh 2 + dl 1 + dq
 *    ceil(R / 5ms) 1 + hi's 2 + lo's 2 = 9: 2.35ms.
 *  - classic (tick 2ms): hi K = 1 + 1 + 2 + 1 + 1 + ticks (ceil(w / 2ms)
 *    + 1) 2 = 8: w = 320us, 270us; lo K = 1 + 2 + 1 + 1 + 3 = 8: 2.34ms.
 * A window that does not start at a critical instant counts one per
 * acknowledged line (dh, dl; the kernel fact: unit.kernel
 * test_interrupt_b26_masked_until_ack). The run shows
 * the delivery: dh's second interrupt arrives at 1.05ms while hi runs,
 * its line masked, and is delivered at 1.12ms, the end of hi's job (120us
 * after 1ms: its delivery entry, 100us, its irq_ack's entry); observed
 * worst hi 190us, lo 2.3ms.
 */
static void test_held_entries(void **state)
{
    static const char *const names[] = {"hi", "lo"};
    static const cycles_t mcs[] = {280 * US, 2350 * US};
    static const cycles_t classic[] = {270 * US, 2340 * US};
    struct scenario s;
    struct observed o;
    cycles_t end;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/tests/data/analysis/held_entries.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 2);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, 2);
    assert_int_equal(observe_run(&s, SCHED_MCS, s.seed, &o, &end), 0);
    assert_int_equal(o.threads[scenario_find_thread(&s, "hi")].worst, 190 * US);
    assert_int_equal(o.threads[scenario_find_thread(&s, "lo")].worst, 2300 * US);
    observe_release(&o);
    scenario_release(&s);
}

/*
 * tests/data/analysis/release_charged.yaml: another periodic context's
 * timer entries are charged to a context only for its releases
 * (docs/analysis.md, "What a window charges"). lo (10, 2ms of 10ms, two
 * refills, 2.5ms every 20ms) and hi above it (20, 200us of 1ms, two
 * refills, 100us every 1ms) both may run out. E = entry = 5us (the other
 * costs 0), MIN_BUDGET 100us, 1 GHz, timer at 1 GHz (a tick is a cycle);
 * W: hi 100 + 2 x 5 = 110us, lo 2500 + 10 = 2510us. Release gaps (T -
 * MIN_BUDGET - 2 ticks): hi 899,998, lo 9,899,998 cycles.
 * mcs, lo's two-job bound at w = 90.835ms:
 *   own 2 x 2.51ms = 5.02ms; hi (ceil(w / 1ms) + 2) x 110us = 93 x 110us
 *   = 10.23ms (its demand, below its supply 91 x 205us);
 *   K(w) = 1 in progress + 2 held (th, tl) + th 91 + tl ceil(w / 20ms) = 5
 *     + hi's timers 3 x 2 x (91 + 1) = 552 + lo's 3 x 2 x (ceil(w / 10ms)
 *     + 1) = 66: 717 x 5us = 3.585ms;
 *   charged: hi's releases only, 2 x (ceil(w / 899,998) + 1) = 2 x 102 =
 *     204: 1 + 2 + 91 + 5 + 66 + 204 = 369 x 5us = 1.845ms, need 5.02 +
 *     1.845 = 6.865ms, floor(/ (2ms - 100us)) = 3: Theta = (3 + 6) x 8ms
 *     = 72ms;
 *   5.02 + 72 + 3.585 + 10.23 = 90.835ms (109.615ms, before the held
 *   interrupts of "Kernel K(d)", when need counted
 *   all 552 of hi's timer entries).
 * hi's two-job bound at w = 16.155ms: own 220us; K(w) = 1 + 2 held + th
 *   17 + tl 1 + its own 3 x 2 x 18 = 108 + lo's 3 x 2 x 3 = 18: 147 x 5us
 *   = 735us (lo counts in full: the throttled window may idle); charged,
 *   lo's releases 2 x (ceil(w / 9,899,998) + 1) = 6: 135 x 5us = 675us,
 *   need 895us, floor(/ 100us) = 8: Theta = (3 + 16) x 800us = 15.2ms;
 *   0.22 + 15.2 + 0.735 = 16.155ms (17.78ms before, on that tree).
 * classic (tick 2ms, a critical instant: no line at or above the level
 * holds an interrupt): hi 110 + 6 x 5 (1 + 1 held, tl + th 1 + tl 1 +
 * ticks 2) = 140us; lo 2.51ms + 3 x 110us + 8 x 5us (1 + th 3 + tl 1 +
 * ticks 3) = 2.88ms.
 */
static void test_release_charged(void **state)
{
    static const char *const names[] = {"hi", "lo"};
    static const cycles_t mcs[] = {16155 * US, 90835 * US};
    static const cycles_t classic[] = {140 * US, 2880 * US};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/tests/data/analysis/release_charged.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, mcs, 2);
    ancheck_bounds(&s, SCHED_CLASSIC, names, classic, 2);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    assert_true(r.threads[0].may_throttle && r.threads[1].may_throttle);
    for (uint32_t k = 0; k < r.threads[1].n_terms; k++) {
        if (r.threads[1].terms[k].kind == TERM_BUDGET)
            assert_int_equal(r.threads[1].terms[k].cycles, 72000 * US);
        if (r.threads[1].terms[k].kind == TERM_KERNEL)
            assert_int_equal(r.threads[1].terms[k].cycles, 717 * 5 * US);
    }
    analysis_release(&r);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rm10),
        cmocka_unit_test(test_rr_charged),
        cmocka_unit_test(test_held_entries),
        cmocka_unit_test(test_release_charged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
