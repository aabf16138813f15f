/*
 * cli/analysis: served threads (docs/analysis.md, "Several senders and
 * serve loops"): serve loops as interferers of the critical instant, and
 * calls in the handlers of serve loops of several handlers or streams
 * (the Microkit PD whose notified handlers ppcall a passive server).
 * Small scenarios of tests/data/analysis/ whose bounds are computed by hand
 * below and asserted exactly, and simulated: every observed worst
 * response is within its bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "analysis/analysis.h"
#include "ancheck.h"
#include "scnload.h"

#define DATA MCSIM_SOURCE_DIR "/tests/data/analysis/"
#define MS 1000000u /* cycles at 1 GHz */
#define US 1000u

/* serve_crit.yaml, zero kernel costs (E = 0), round-robin contexts (never
 * throttled). srv (prio 30): a serve loop of two device bits, d_a (bit 0,
 * every 10ms) handled in 4ms and d_b (bit 1, every 20ms) in 4ms, each
 * acknowledged by its own bit's handler; lo (10): 2ms every 20ms.
 *  - srv: extra = 2 (a device bit). Batches ahead 3 x 8 = 24ms. Busy
 *    window: L: no run counted yet, the worst stream's one, 4ms -> both
 *    once (eta(4ms) = 1 each) 8ms -> 8ms; offsets below 8ms: 0 and 1
 *    (delta(1) + 1 of each device). x = 0: runs min(eta(0) + 2, eta(w))
 *    = 1 each: 8ms, bound 8ms; x = 1: 8ms - 1. Bound 8ms (both devices
 *    at 0: the two handlers 0..4 and 4..8ms).
 *  - lo: srv makes no call, serves none, is never throttled, and each of
 *    its devices is acknowledged by its own bit's handler: it is an
 *    interferer of the critical instant (an_serve_crit), as a device
 *    thread: w = 2 + 4 ceil(w / 10) + 4 ceil(w / 20): 2 -> 10 -> 10ms.
 *    Bound 10ms, the observed worst (every device at 0: srv 0..8ms, lo
 *    8..10ms).
 * Before (served threads never critical-instant interferers), srv's runs
 * in lo's window were min(eta_m(w) + 2, eta_m(w + 8ms), 2 + eta_dev(w)):
 * 2 -> 2 + 4 x 2 + 4 x 1 = 14 -> 2 + 4 x 3 + 4 x 2 = 22 -> 22ms, above
 * lo's 20ms deadline. The same under classic. */
static void test_serve_crit(void **state)
{
    static const char *const names[] = {"srv", "lo"};
    static const cycles_t bounds[] = {8 * MS, 10 * MS};
    (void)state;
    ancheck_file_both(DATA "serve_crit.yaml", names, bounds, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve_crit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
