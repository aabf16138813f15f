/*
 * mcsim sdf analyze: a Microkit system imported and analysed as `mcsim
 * analyze` analyses the scenario `mcsim sdf export` writes of it: the same
 * table, JSON and exit status, byte for byte, for the examples with their
 * sidecars; the exact verdicts of the passive_server, timer and echo
 * server examples (a one-interrupt driver bounded as a device thread)
 * (the network systems' are in test_sdf_analyze_net.c); -o DB stores the bounds with the latest `mcsim sdf run` of the system;
 * bad input exits 2 and writes nothing.
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
#include "sqlq.h"
#include "workdir.h"

#define DIR MCSIM_SOURCE_DIR "/tests/data/sdf/"

static int setup(void **state)
{
    (void)state;
    return workdir_create("sdf_analyze");
}

static void clean(void)
{
    static const char *const files[] = {"e.yaml", "r.db"};
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    char path[1024];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        for (size_t k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s%s", workdir_file(files[i]), suffixes[k]);
            remove(path);
        }
}

static const struct {
    const char *system, *sidecar; /* sidecar NULL: none */
} systems[] = {
    {"microkit-passive_server.system", "passive_server.mcsim.yaml"},
    {"microkit-timer.system", "timer.mcsim.yaml"},
    {"sddf-echo_server-maaxboard.system", "echo_server_flood.mcsim.yaml"},
    {"sddf-echo_server-maaxboard.system", "timer.mcsim.yaml"},
    {"sddf-echo_server-maaxboard.system", "timer_calls.mcsim.yaml"},
    {"lionsos-firewall.system", "firewall_flood.mcsim.yaml"},
    {"lionsos-firewall.system", "firewall_path.mcsim.yaml"},
    {"lionsos-firewall.system", NULL},
    {"microkit-hello.system", NULL},
};

/* `sdf analyze S` = `analyze` of `sdf export S`: stdout and status, with
 * the table, with --json and under classic. */
static void test_same_as_export(void **state)
{
    static const char *const modes[][2] = {{NULL, NULL}, {"--json", NULL},
                                           {"--scheduler", "classic"}};
    (void)state;
    for (size_t i = 0; i < sizeof systems / sizeof systems[0]; i++) {
        char sys[512], side[512];
        snprintf(sys, sizeof sys, DIR "examples/%s", systems[i].system);
        snprintf(side, sizeof side, DIR "sidecars/%s", systems[i].sidecar ? systems[i].sidecar : "");
        /* without a sidecar, --core 0 (the default) stands in the argument list */
        const char *sc = systems[i].sidecar ? "--sidecar" : "--core";
        if (!systems[i].sidecar)
            strcpy(side, "0");
        assert_int_equal(spawn_mcsim("sdf", "export", sys, "-o", "e.yaml", sc, side, NULL), 0);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            int want = spawn_mcsim("analyze", workdir_file("e.yaml"), modes[m][0], modes[m][1],
                                   NULL);
            char *out = strdup(spawn_out);
            /* the scenario's name is the system's: the export names it alike */
            int got = spawn_mcsim("sdf", "analyze", sys, sc, side, modes[m][0], modes[m][1], NULL);
            assert_true(want == 0 || want == 1);
            if (got != want || strcmp(out, spawn_out) != 0)
                fail_msg("%s %s: analyze of the export (exit %d):\n%s\nsdf analyze (exit "
                         "%d):\n%s%s",
                         systems[i].system, modes[m][0] ? modes[m][0] : "", want, out, got,
                         spawn_out, spawn_err);
            free(out);
        }
        clean();
    }
}

/* Microkit's passive_server: the server is a passive PD serving a
 * protected procedure (docs/analysis.md "Protected procedures"): its
 * request is 200us + one signal (an entry, E = 1.31us with the default
 * costs) + the call and the reply (2E) = 203.93us, and its jobs lie inside
 * its caller's. The client's init job (100us and a call) runs once before
 * its serve loop, whose one handler (100us and a call) is released by the
 * server's signal, made inside the client's own calls (docs/analysis.md
 * "Init steps before a serve loop"): no arrival curve, the batches-ahead
 * bound. Each run, the init's too, is 100us + 203.93us + E (its receive)
 * = 305.24us; ahead of a run at most the previous run or the init: own
 * work 610.48us. The kernel's entries in the window: the client's
 * round-robin context's expiries, ceil(d / 1ms) + 1 = 2, the server
 * notification's context's, 2, and one in progress: 5E = 6.55us. Bound
 * 617.03us for both (the server's jobs inside the client's); observed
 * 303.2us and 201.46us (a run waits for nothing of the previous one but
 * its reply). Before, both were unknown. */
static void test_passive_server(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", DIR "examples/microkit-passive_server.system",
                                 "--sidecar", DIR "sidecars/passive_server.mcsim.yaml", NULL),
                     0);
    assert_string_equal(
        spawn_out,
        "analysis of microkit_passive_server under mcs (bounds on the response time of every "
        "job)\n"
        "  thread           prio crit        work      bound   deadline      slack  verdict\n"
        "  server            100 lo      203.93us   617.03us          -          -  schedulable\n"
        "  client             99 lo      305.24us   617.03us        1ms   382.97us  schedulable\n"
        "  server: 617.03us = 617.03us within a job of its caller client, less its own least "
        "compute\n"
        "  client: 617.03us = 610.48us own + the batches ahead + 6.55us kernel\n");
    assert_int_equal(spawn_mcsim("sdf", "run", DIR "examples/microkit-passive_server.system",
                                 "--sidecar", DIR "sidecars/passive_server.mcsim.yaml", "-o",
                                 "r.db", "--analyze", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "  server           bound   617.03us  observed   201.46us"
                                      "  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  client           bound   617.03us  observed    303.2us"
                                      "  schedulable\n"));
    clean();
}

/* Microkit's timer example as a driver (sidecar: 50us per 1ms interrupt,
 * deadline 200us, default 1000us round-robin context, priority 0). With
 * the default costs E = 120 + 100 + 80 + 100 + 3 x 150 + 120 + 250 + 90 =
 * 1310 cycles (1.31us at 1GHz): the work is 50us + 2E (the receive and the
 * acknowledgement) = 52.62us; the kernel's entries in the window are one
 * interrupt arrival, two round-robin expiries (ceil(d / 1ms) + 1) and one
 * entry in progress (none held on the masked line: the window starts at a
 * critical instant, the thread waiting after its irq_ack,
 * docs/analysis.md "Kernel K(d)"): 4E = 5.24us; bound 57.86us. The same
 * bound as the thread written as a device loop; observed 51.58us. */
static void test_timer_driver(void **state)
{
    const char *sys = DIR "examples/microkit-timer.system";
    const char *side = DIR "sidecars/timer.mcsim.yaml";
    static const char serve[] = "      - serve:\n"
                                "          notification: ntfn_timer\n"
                                "          notified:\n"
                                "            0: [compute: 50us, irq_ack: irq_timer_0]\n";
    static const char loop[] = "      - loop: [wait: ntfn_timer, job: [compute: 50us], irq_ack: "
                               "irq_timer_0]\n";
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, NULL), 0);
    assert_string_equal(
        spawn_out,
        "analysis of microkit_timer under mcs (bounds on the response time of every job)\n"
        "  thread           prio crit        work      bound   deadline      slack  verdict\n"
        "  timer               0 lo       52.62us    57.86us      200us   142.14us  schedulable\n"
        "  timer: 57.86us = 52.62us own + 5.24us kernel\n");
    /* the serve loop and the device loop: the same bound, term by term */
    assert_int_equal(spawn_mcsim("sdf", "export", sys, "--sidecar", side, "-o", "e.yaml", NULL), 0);
    char *yaml = workdir_must_read("e.yaml", NULL);
    char *at = strstr(yaml, serve);
    assert_non_null(at);
    size_t head = (size_t)(at - yaml);
    char *as_loop = malloc(strlen(yaml) + sizeof loop);
    memcpy(as_loop, yaml, head);
    strcpy(as_loop + head, loop);
    strcat(as_loop, at + strlen(serve));
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "--json", NULL), 0);
    char *json = strdup(spawn_out);
    workdir_write("e.yaml", as_loop);
    assert_int_equal(spawn_mcsim("analyze", "e.yaml", "--json", NULL), 0);
    assert_string_equal(json, spawn_out);
    assert_non_null(strstr(json, "\"bound\": 57860,"));
    free(json);
    free(as_loop);
    free(yaml);
    /* simulated: the worst response within the bound */
    assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db", "--analyze",
                                 NULL),
                     0);
    assert_non_null(strstr(spawn_out, "  timer            bound    57.86us  observed    51.58us"
                                      "  schedulable\n"));
    clean();
}

/* sDDF's echo server under a flood: its Ethernet driver (hi, 100us every
 * 400us, deadline 400us) also takes two virtualisers' notifications, a
 * serve loop of several handlers (docs/analysis.md "Several senders and
 * serve loops"): its job is 30us + 3 kernel entries (receive, notify,
 * ack) = 33.93us. The passive timer PD at its priority serves protected
 * procedures (docs/analysis.md "Protected procedures") and nothing calls
 * it nor signals it here: no jobs, and no interference (before, as an
 * unmodelled program with no context of its own, it left eth and
 * net_virt_rx without a bound: "overload"). Now both are bounded: under
 * mcs eth 3.00877ms (unschedulable: its own throttling under the flood,
 * the phase bound of docs/analysis.md "Own throttling": 3 + 2 floor(need
 * / (100us - MIN_BUDGET 20us)) = 9 phases of 400us - 100us, 2.7ms; at w =
 * 3.00877ms the window's K = 1 in progress + 3 held (one interrupt on
 * each of the three acknowledged lines: eth, uart, timer) + 60 of the
 * burst + its own timers 3 x 2 x (ceil(w / 400us) + 1) = 54 + the
 * round-robin contexts' expiries, 5 x (ceil(w / 1ms) + 1) + 5 x (ceil(w /
 * 20ms) + 1) + the timer PD's notification's 5 = 40: 158 x 1.31us =
 * 206.98us; need = its 101.79us + the 118 entries charged to it (not the
 * 40: "what a window charges") 154.58us = 256.37us, 3 runs of 80us;
 * 101.79us + 2.7ms + 206.98us = 3.00877ms. 2.38126ms (7 phases) before
 * the held interrupts were counted, 2.99698ms when need counted every
 * entry, 18.5577ms with the earlier episodes; `sdf run` shows it
 * throttled 15 times, observed 360.87us), net_virt_rx 168.95us (observed
 * 99.37us; 165.02us without the three held interrupts, 171.57us before
 * the lower contexts that stand still counted one timer entry each,
 * docs/analysis.md "Kernel"); under classic eth 117.51us (observed
 * 62.38us), net_virt_rx 2.13619ms (observed 1.19436ms), each 3E above
 * the bounds without held interrupts. The PDs nothing signals have no
 * jobs. */
static void test_echo_server_flood(void **state)
{
    const char *sys = DIR "examples/sddf-echo_server-maaxboard.system";
    const char *side = DIR "sidecars/echo_server_flood.mcsim.yaml";
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, NULL), 1);
    assert_non_null(strstr(spawn_out, "  eth               101 hi       33.93us  3.00877ms      "
                                      "400us -2.60877ms  unschedulable\n"));
    assert_non_null(strstr(spawn_out, "  net_virt_rx        99 lo        6.31us   168.95us        "
                                      "1ms   831.05us  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  timer             101 lo             -          -        "
                                      "  -          -  no jobs\n"));
    assert_non_null(strstr(spawn_out, "  timer: no bound: nothing calls it: its protected "
                                      "handlers never run\n"));
    assert_non_null(strstr(spawn_out, "  copy0: no bound: nothing releases its jobs: no device "
                                      "of its notification, no signal to it\n"));
    /* the run's expectation (eth throttled at least once) fails under
     * classic: the exit status says nothing of the bounds, the lines do */
    assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db", "--analyze",
                                 "--seed", "1", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "  eth              bound  3.00877ms  observed   360.87us"
                                      "  unschedulable\n"));
    assert_non_null(strstr(spawn_out, "  net_virt_rx      bound   168.95us  observed    99.37us"
                                      "  schedulable\n"));
    spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db", "--analyze", "--seed", "1",
                "--scheduler", "classic", NULL);
    assert_non_null(strstr(spawn_out, "  eth              bound   117.51us  observed    62.38us"
                                      "  schedulable\n"));
    assert_non_null(strstr(spawn_out, "  net_virt_rx      bound  2.13619ms  observed  1.19436ms"
                                      "  unschedulable\n"));
    clean();
}

/* sDDF's echo server with the timer sidecar (timer.mcsim.yaml: the timer
 * PD's interrupt every 1ms, 50us of work, deadline 200us). The timer PD is
 * passive (priority 101, Microkit's default 1000us round-robin context
 * bound to its notification) and serves protected procedures (client0
 * and client1 may call it), but nothing calls it here and its interrupt
 * fires: its protected handlers never run, so it is the serve loop on
 * its notification's context (docs/analysis.md "Protected procedures").
 * Before it was unknown ("program not modelled: a passive serve loop
 * whose notification is signalled"). E = 1.31us: its work is 50us + 2E
 * (receive, ack) = 52.62us; bits 1 and 2 have no sources. Nothing above
 * or at 101 has jobs. Kernel entries in a window of about 90us under
 * mcs: one interrupt, eth's context at 101 (100us / 400us, 2 refills)
 * 3 x 2 x (ceil(d / 400us) + 1) = 12, two expiries (ceil(d / 1ms) + 1) of
 * the round-robin contexts of bench (102) and of the timer's notification,
 * one of each of the nine PDs' below 101 (their contexts stand still in
 * the window: docs/analysis.md "Kernel"), one in progress, three held
 * (one interrupt on each acknowledged line: timer, eth, uart,
 * docs/analysis.md "Kernel K(d)"): 30E = 39.3us, bound 91.92us (27E and
 * 87.99us before the held ones were counted, 36E and 99.78us when the
 * nine counted two each). Classic: one interrupt, two ticks, one in
 * progress, three held: 7E = 9.17us, bound 61.79us. Observed 51.58us
 * (mcs) and 51.76us (classic). */
static void test_echo_server_timer(void **state)
{
    static const struct {
        const char *sched, *row, *terms, *run;
    } want[] = {
        {"mcs", "  timer             101 lo       52.62us    91.92us      200us   108.08us  "
                "schedulable\n",
         "  timer: 91.92us = 52.62us own + the runs queued + 39.3us kernel\n",
         "  timer            bound    91.92us  observed    51.58us  schedulable\n"},
        {"classic", "  timer             101 lo       52.62us    61.79us      200us   138.21us  "
                    "schedulable\n",
         "  timer: 61.79us = 52.62us own + the runs queued + 9.17us kernel\n",
         "  timer            bound    61.79us  observed    51.76us  schedulable\n"},
    };
    const char *sys = DIR "examples/sddf-echo_server-maaxboard.system";
    const char *side = DIR "sidecars/timer.mcsim.yaml";
    (void)state;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "--scheduler",
                                     want[k].sched, NULL),
                         0);
        assert_non_null(strstr(spawn_out, want[k].row));
        assert_non_null(strstr(spawn_out, want[k].terms));
        /* simulated: the worst response within the bound */
        assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db",
                                     "--analyze", "--scheduler", want[k].sched, NULL),
                         0);
        assert_non_null(strstr(spawn_out, want[k].run));
    }
    clean();
}

/* Under each scheduler: `sdf analyze SYS --sidecar SIDE` exits 0 and prints
 * every row of `rows`, and `sdf run --analyze` (the worst responses
 * simulated within their bounds) exits 0 and prints every line of `run`. */
static void both_schedulers(const char *sys, const char *side, const char *const *rows,
                            size_t n_rows, const char *const *run, size_t n_run)
{
    static const char *const sched[] = {"mcs", "classic"};
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(
            spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "--scheduler", sched[k], NULL),
            0);
        for (size_t r = 0; r < n_rows; r++)
            assert_non_null(strstr(spawn_out, rows[r]));
        assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db",
                                     "--analyze", "--scheduler", sched[k], NULL),
                         0);
        for (size_t r = 0; r < n_run; r++)
            assert_non_null(strstr(spawn_out, run[r]));
    }
    clean();
}

/* A protected handler calling two PDs (tests/data/sdf/ppc_two.system,
 * sidecars/ppc_two.mcsim.yaml; docs/analysis.md "Nested calls"): client
 * (10, its interrupt every 10ms) works 1ms and ppcalls api (30, passive),
 * whose handler works 300us and ppcalls store (50, 100us) and log (40,
 * 200us), both passive. Zero kernel costs. api's request r = 0.3 + 0.1 +
 * 0.2 = 0.6ms on client's donated context; client, a serve loop of one
 * stream (bit 1; bit 0 has no source), w = 1 + 0.6 = 1.6ms, nothing else
 * runs; each PD's job lies inside client's, 1.6ms (client's least compute
 * is not known for a serve loop: 0). Observed under both schedulers:
 * client 1.6ms (the bound), api 600us, store 100us, log 200us. Before,
 * api was "program not modelled" and nothing had a bound. */
static void test_ppc_two(void **state)
{
    static const char *const rows[] = {
        "  store              50 lo         100us      1.6ms          -          -  schedulable\n",
        "  log                40 lo         200us      1.6ms          -          -  schedulable\n",
        "  api                30 lo         600us      1.6ms          -          -  schedulable\n",
        "  client             10 lo         1.6ms      1.6ms       10ms      8.4ms  schedulable\n",
        "  api: 1.6ms = 1.6ms within a job of its caller client, less its own least compute\n",
    };
    static const char *const run[] = {
        "  client           bound      1.6ms  observed      1.6ms",
        "  api              bound      1.6ms  observed      600us",
    };
    (void)state;
    both_schedulers(DIR "ppc_two.system", DIR "sidecars/ppc_two.mcsim.yaml", rows,
                    sizeof rows / sizeof rows[0], run, sizeof run / sizeof run[0]);
}

/* A passive PD both called and signalled (tests/data/sdf/called_signalled
 * .system, sidecars/called_signalled.mcsim.yaml; docs/analysis.md "Called
 * and signalled"): drv at 20, its interrupt every 10ms (1ms on its
 * notification's context, Microkit's default budget = period: round
 * robin), its protected procedure 2ms on client's context; client at 10,
 * a serve loop of its interrupt (every 10ms): 1ms then the ppcall. Zero
 * kernel costs. drv's notified runs: W = 1ms, the request in progress (2ms
 * of client's below its level, once), 1 + 2 = 3ms (batches ahead: 1 + 2 +
 * 2 = 5ms). client, one stream, W = 3ms at level 10, drv's runs 1ms
 * (min(eta(d) + 2, eta(d + 3ms), 2 + eta(d)) = 1 for d <= 7ms): 4ms
 * (batches ahead 3 + 2 x 3 + 2 = 11ms). drv's requests inside client's
 * jobs (a serve loop: no least compute subtracted) 4ms, the larger of its
 * two kinds of jobs. Both interrupts at 0: drv runs 0-1ms, client 1-2ms
 * and its call 2-4ms: observed client 4ms (the bound), drv 2ms, under
 * both schedulers. Before, drv was "program not modelled" and client had
 * no bound. */
static void test_called_signalled(void **state)
{
    static const char *const rows[] = {
        "  drv                20 lo           2ms        4ms          -          -  schedulable\n",
        "  client             10 lo           3ms        4ms       10ms        6ms  schedulable\n",
    };
    static const char *const run[] = {
        "  client           bound        4ms  observed        4ms",
        "  drv              bound        4ms  observed        2ms",
    };
    (void)state;
    both_schedulers(DIR "called_signalled.system", DIR "sidecars/called_signalled.mcsim.yaml",
                    rows, sizeof rows / sizeof rows[0], run, sizeof run / sizeof run[0]);
}

/* -o DB: the bounds stored with the latest `sdf run` of the same system
 * (the same scenario text); with no such run, exit 2 and no file. */
static void test_store(void **state)
{
    const char *sys = DIR "examples/microkit-passive_server.system";
    const char *side = DIR "sidecars/passive_server.mcsim.yaml";
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "-o", "r.db", NULL),
                     2);
    assert_non_null(strstr(spawn_err, "r.db: no such database (record a run first)"));
    assert_int_equal(workdir_count(), 0);
    assert_int_equal(spawn_mcsim("sdf", "run", sys, "--sidecar", side, "-o", "r.db", "--quiet",
                                 NULL),
                     0);
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "-o", "r.db",
                                 "--scheduler", "classic", NULL),
                     2);
    assert_non_null(strstr(spawn_err, "record one with 'mcsim sdf run "));
    assert_int_equal(spawn_mcsim("sdf", "analyze", sys, "--sidecar", side, "-o", "r.db", NULL),
                     0);
    assert_non_null(strstr(spawn_out, "stored as the analysis of run 1 in r.db\n"));
    sqlq_assert_path_rows(workdir_file("r.db"),
                          "SELECT t.name, a.verdict, a.bound IS NULL FROM analysis a JOIN threads"
                          " t ON t.run_id = a.run_id AND t.thread_id = a.thread_id ORDER BY"
                          " t.name",
                          "client|schedulable|0\nserver|schedulable|0\n");
    clean();
}

/* Bad input: exit 2, nothing written. */
static void test_bad(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("sdf", "analyze", DIR "microkit/ch_invalid_pd.system", NULL), 2);
    assert_int_equal(spawn_mcsim("sdf", "analyze", DIR "bad/min_budget.system", NULL), 2);
    assert_non_null(strstr(spawn_err, "MIN_BUDGET"));
    assert_int_equal(spawn_mcsim("sdf", "analyze", DIR "examples/microkit-timer.system",
                                 "--scheduler", "edf", NULL),
                     2);
    assert_non_null(strstr(spawn_err, "--scheduler takes 'mcs' or 'classic', not 'edf'"));
    assert_int_equal(spawn_mcsim("sdf", "analyze", NULL), 2);
    assert_int_equal(workdir_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_export),
        cmocka_unit_test(test_passive_server),
        cmocka_unit_test(test_timer_driver),
        cmocka_unit_test(test_echo_server_flood),
        cmocka_unit_test(test_echo_server_timer),
        cmocka_unit_test(test_ppc_two),
        cmocka_unit_test(test_called_signalled),
        cmocka_unit_test(test_store),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
