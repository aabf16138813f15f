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
#include "scnload.h"

#define US 1000u /* cycles at 1 GHz */

/*
 * Each job's work is its compute, 80us x 2^k-ish, plus its own three
 * entries' share charged to it, 2.62us (82.62us for task1). In task1's,
 * task2's and task3's windows (all shorter than 1ms) the kernel's entries
 * are: one in progress at the release, one arrival of each of the ten
 * devices, and one timer entry of each lower context that may run out
 * and stands still there (below the level, calling no server, no idle
 * time): task4..task10, 7 (task1..task3 are shown never to run out:
 * none of their own). 18 x 1310 = 23.58us.
 *  - task1: 82.62 + 23.58 = 106.2us.
 *  - task2: 162.62 + 23.58 + one job of task1 82.62 = 268.82us.
 *  - task3: 322.62 + 23.58 + 162.62 + 82.62 = 591.44us (one job each:
 *    591.44us < 1ms).
 * Each is below its budget less MIN_BUDGET, 3 E and 2 ticks (160, 320,
 * 640us), so each job starts with its whole budget in one refill and
 * never runs out ("Never runs out"). task4 (402.62us of work, 800us
 * budget, response above 800us) really is throttled in the simulation
 * (100 throttles in 2s), and is counted as running out: 1 timer entry in
 * the windows above. Simulated (ancheck_bounds: two seeds of 10s, every
 * observed worst within its bound; `mcsim run --analyze --duration 2s`
 * with seed 1 observes 84.65, 245.62 and 566.59us).
 */
static void test_rm10(void **state)
{
    static const char *const names[] = {"task1", "task2", "task3"};
    static const cycles_t bounds[] = {106200, 268820, 591440};
    struct scenario s;
    struct analysis_result r;
    (void)state;
    scnload_must(MCSIM_SOURCE_DIR "/bench/rm10.yaml", &s);
    ancheck_bounds(&s, SCHED_MCS, names, bounds, 3);
    assert_int_equal(analysis_run(&s, SCHED_MCS, &r), 0);
    for (uint32_t i = 0; i < 3; i++) {
        assert_false(r.threads[i].may_throttle);
        assert_int_equal(r.threads[i].n_terms, 2 + i);
        assert_string_equal(r.threads[i].terms[1].text, "kernel");
        assert_int_equal(r.threads[i].terms[1].cycles, 18 * 1310);
    }
    assert_true(r.threads[3].may_throttle);
    analysis_release(&r);
    scenario_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rm10),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
