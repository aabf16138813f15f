/*
 * mcsim sdf analyze of the network systems, each with its exact verdicts
 * computed by hand and simulated within its bounds: the LionsOS
 * firewall's packet path (serve loops of several streams) and Microkit's
 * Ethernet example (an active PD serving protected procedures, a
 * constant-bandwidth context that really runs out). The other systems are
 * in test_sdf_analyze.c.
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

#include "spawn.h"
#include "workdir.h"

#define DIR MCSIM_SOURCE_DIR "/tests/data/sdf/"

static int setup(void **state)
{
    (void)state;
    return workdir_create("sdf_analyze_net");
}

/* The LionsOS firewall's packet path (sidecars/firewall_path.mcsim.yaml):
 * every PD with handlers is a serve loop of several streams
 * (docs/analysis.md "Several senders and serve loops"): a driver's bit 0
 * its interrupt, bit 1 its transmit virtualiser's signal; each
 * virtualiser and forwarder woken by the PD before it on the path. The
 * PDs nothing signals (bench, benchIdle, uart without interrupts,
 * serial_virt_tx) have no jobs. Every window counts an interrupt held on
 * each of the three acknowledged lines (eth0, eth1, timer:
 * docs/analysis.md "Kernel K(d)"), 3E = 3.93us. Under classic all eight
 * with jobs are bounded (the drivers 80.96us once the passes may go on
 * until nothing changes, 99.65us after three before the held interrupts;
 * observed 32.46us); under mcs all eight too: the drivers (100us every
 * 400us) 3.31213ms (unschedulable: 2.7ms of it their throttling, 9 phases
 * of 300us by the phase bound of docs/analysis.md "Own throttling": at w
 * = 3.31213ms, K = 1 in progress + 3 held + 2 x ceil((w + 100us) / 1ms)
 * = 8 arrivals + 2 x 3 x 2 x (ceil(w / 400us) + 1) = 120 timer entries of
 * the two drivers' contexts + 10 round-robin contexts' 5 expiries = 182
 * (238.42us), of which the 132 but those expiries can be charged to it
 * ("what a window charges"): need 105.72us + 172.92us = 278.64us, 3 runs
 * of 80us; 105.72us own + 2.7ms + 238.42us + 267.99us of the other
 * driver = 3.31213ms; 3.3082ms before the held interrupts, 3.96178ms with
 * 11 phases when need counted all entries; before the phase bound their
 * throttling's episodes outgrew the window and they had no bound;
 * observed 32.96us and 35.75us), and the other six lower than before
 * the phase bound (the drivers' bounds shift their receivers' arrivals
 * less: eth0_forwarder 788.05us -> 750.19us -> 708.64us -> 712.57us with
 * the held interrupts, eth0_virt_rx 596.85us -> 558.99us -> 540.06us ->
 * 543.99us, eth1_virt_tx 543.99us -> 506.13us -> 394.8us -> 398.73us).
 * Since session 11 need counts of the other driver's timer entries only
 * its releases, 2 per 400us - MIN_BUDGET (20us) - 2 ticks ("what a
 * window charges"): at w = 2.61842ms K = 1 + 3 held + 6 arrivals + 2 x 3
 * x 2 x 8 = 96 timer entries + 10 x 4 expiries = 146 (191.26us); charged
 * 1 + 3 + 6 + its own 48 + 2 x (ceil(w / 379.998us) + 1) = 16 = 74
 * (96.94us), need 202.66us, 2 runs of 80us: 7 phases, 2.1ms; 105.72us +
 * 2.1ms + 191.26us + 221.44us of eth1 = 2.61842ms (eth0_forwarder
 * 655.78us, eth0_virt_rx 383.49us, eth1_virt_tx 375.87us).
 * Then
 * simulated with two seeds under each scheduler: every observed worst
 * within its bound (`sdf run --analyze` exits 1 otherwise). */
static void test_firewall_path(void **state)
{
    const char *sys = DIR "examples/lionsos-firewall.system";
    const char *side = DIR "sidecars/firewall_path.mcsim.yaml";
    static const char *const seeds[] = {"1", "2"};
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, NULL), 1);
    assert_non_null(strstr(spawn_out, "  eth0_forwarder    194 lo       22.62us   655.78us        "
                                      "1ms   344.22us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth0_virt_rx      197 lo        7.62us   383.49us        "
                                      "1ms   616.51us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth1_virt_tx      197 lo        7.62us   375.87us        "
                                      "1ms   624.13us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth0              199 lo       23.93us  2.61842ms      "
                                      "400us -2.21842ms  unschedulable\n"));
    assert_non_null(strstr(spawn_out, "  uart               99 lo             -          -        "
                                      "1ms          -  no jobs\n"));
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "--scheduler",
                                 "classic", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "  eth0              199 lo       23.93us    80.96us      "
                                      "400us   319.04us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth1              199 lo       23.93us    80.96us      "
                                      "400us   319.04us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth0_forwarder    194 lo       22.62us   156.68us        "
                                      "1ms   843.32us  schedulable\n"));
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db",
                                     "--analyze", "--quiet", "--seed", seeds[k], NULL),
                         0);
        assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db",
                                     "--analyze", "--quiet", "--seed", seeds[k], "--scheduler",
                                     "classic", NULL),
                         0);
    }
    workdir_clear();
    /* no sidecar: no interrupt arrives and no handler signals: no jobs */
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, NULL), 0);
    assert_non_null(strstr(spawn_out, "  eth0: no bound: nothing releases its jobs: no device of "
                                      "its notification, no signal to it\n"));
}

/* Microkit's Ethernet example with sidecars/ethernet.mcsim.yaml: gpt (254)
 * is an active PD serving protected procedures on its own round-robin
 * context (docs/analysis.md "Active servers"), before "program not
 * modelled: a serve loop with an endpoint". Nothing calls it here (pass's
 * ppcall would be a call in a notified handler), so its streams are its
 * timer interrupt (bit 3, 20us every 1ms) and pass's notification (bit
 * 1): bounded as a serve loop, 101.2us under mcs and 39.41us under
 * classic; pass (woken by eth_outer, 10us, notifies gpt) 88.82us and
 * 52.03us, each with 3E for an interrupt held on each of the three
 * acknowledged lines (docs/analysis.md "Kernel K(d)"; 97.27us, 35.48us,
 * 84.89us and 48.1us without; under mcs 114.3us and 100.61us before eth_outer's and
 * eth_inner's contexts, below both, counted one timer entry each in their
 * windows, docs/analysis.md "Kernel"). Without a sidecar gpt has no jobs
 * (it was unknown). Simulated with three seeds under each scheduler: gpt
 * observed 21.58us (mcs), 21.49us (classic).
 *
 * eth_outer (99, a constant-bandwidth context of 1ms every 100ms with
 * Microkit's two refills; 30us, its irq_ack and its notify to pass every
 * 10ms, jitter 100us) really runs out: its eleven runs a period, each
 * split by gpt's and pass's preemptions, are more chunks than one free
 * refill holds, the tail is delayed past the head, and the head is used
 * up (`sdf run --duration 2s --seed 1`: 5 throttles of about 99ms, worst
 * response 99.0497ms; 99.07ms in 20s). Under mcs it had no bound: Theta's need
 * counted every entry of its window, the three round-robin contexts'
 * (gpt, pass, eth_inner, 1ms each) ceil(w / 1ms) + 1 expiries too, 4.03
 * entries (5.28us) per ms, and two phases of 99ms per 980us of need
 * outgrew the window. Only entries taken while eth_outer's context runs
 * are charged to it (docs/analysis.md, "Own throttling", what a window
 * charges); a round-robin context's timer fires only while it runs.
 * By hand, E = 1.31us, at w = 305.8233ms (three batches, the run and
 * the two ahead):
 *   own 3 x 33.93us = 101.79us;
 *   K(w) = 1 in progress + 3 held + gpt's line ceil(w / 1ms) = 306 +
 *     eth_outer's ceil((w + 100us) / 10ms) = 31 + eth_outer's timers 3 x
 *     2 x (ceil(w / 100ms) + 1) = 30 + 3 x 307 round-robin expiries =
 *     1292: 1.69252ms;
 *   charged K_c(w) = 1292 - 921 = 371 (486.01us): need 587.8us <
 *     b - MIN_BUDGET = 980us, Theta = 3 x (100ms - 1ms) = 297ms;
 *   gpt 306 x 22.62us + (2 + 5) x 6.31us (pass's notifications: 2 + its
 *     runs) = 6.96589ms; pass 5 x 12.62us = 63.1us (2 + 3 batches);
 *   101.79us + 297ms + 1.69252ms + 6.96589ms + 63.1us = 305.8233ms
 *   (305.81937ms before the held interrupts).
 * Under classic 85.96us (no budgets). */
static void test_ethernet_active(void **state)
{
    const char *sys = DIR "examples/microkit-ethernet.system";
    const char *side = DIR "sidecars/ethernet.mcsim.yaml";
    static const char *const seeds[] = {"1", "2", "3"};
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, NULL), 1);
    assert_non_null(strstr(spawn_out, "  gpt               254 lo       22.62us    101.2us      "
                                      "200us     98.8us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  pass              100 lo       12.62us    88.82us        "
                                      "1ms   911.18us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth_outer          99 lo       33.93us 305.8233ms        "
                                      "1ms -304.8233ms  unschedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth_outer: 305.8233ms = 101.79us own + the batches ahead "
                                      "+ 297ms throttled (own budget 1ms/100ms) + 1.69252ms kernel "
                                      "+ 6.96589ms gpt + 63.1us pass\n"));
    assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db", "--analyze",
                                 "--seed", "1", "--duration", "2s", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "  eth_outer        bound 305.8233ms  observed  99.0497ms"
                                      "  unschedulable\n"));
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "--scheduler",
                                 "classic", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "  gpt               254 lo       22.62us    39.41us      "
                                      "200us   160.59us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  eth_outer          99 lo       33.93us    85.96us        "
                                      "1ms   914.04us  schedulable\n"));
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db",
                                     "--analyze", "--seed", seeds[k], NULL),
                         0);
        assert_non_null(strstr(spawn_out, "  gpt              bound    101.2us  observed    "
                                          "21.58us  schedulable\n"));
        assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db",
                                     "--analyze", "--seed", seeds[k], "--scheduler", "classic",
                                     NULL),
                         0);
        assert_non_null(strstr(spawn_out, "  gpt              bound    39.41us  observed"));
    }
    workdir_clear();
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, NULL), 0);
    assert_non_null(strstr(spawn_out, "  gpt: no bound: nothing releases its jobs: no device of "
                                      "its notification, no signal to it\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_firewall_path),
        cmocka_unit_test(test_ethernet_active),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
