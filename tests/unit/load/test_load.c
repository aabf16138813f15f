/*
 * cli/load: the scenario loader. Good files load with every field exact
 * (durations in cycles, decimals exact, defaults as docs/scenario-format.md
 * gives them); every bad file in tests/data/load/ gives exactly the
 * FILE:LINE:COL errors listed here, all of them; the reference cases in
 * tests/scenarios/kernel/ load.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "util/diag.h"
#include "load/load.h"
#include "util/sha256.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/load/"
#define KERNEL_CASES_DIR MCSIM_SOURCE_DIR "/tests/scenarios/kernel/"
#define MS(x) ((uint64_t)(x)*2000000u) /* milliseconds at good_full's 2GHz */

static char *data_path(const char *dir, const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s%s", dir, name);
    return path;
}

/* Load `name` from tests/data/load/ and insist that it is valid. */
static void load_good(const char *name, struct scenario *s)
{
    struct diag d;
    diag_init(&d);
    int rc = load_scenario(data_path(DATA_DIR, name), s, &d);
    diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    assert_int_equal(diag_count(&d), 0);
    diag_release(&d);
}

static void test_load_good_full_top(void **state)
{
    (void)state;
    struct scenario s;
    load_good("good_full.yaml", &s);
    assert_string_equal(s.name, "full-scenario");
    assert_string_equal(s.description, "Every field of the format.");
    assert_string_equal(s.path, DATA_DIR "good_full.yaml");
    assert_int_equal(s.seed, UINT64_MAX);
    assert_int_equal(s.duration, 3000000u); /* 1.5ms at 2GHz, though written above platform */
    assert_int_equal(s.cpu_hz, 2000000000u);
    assert_int_equal(s.timer_hz, 62500000u);
    assert_int_equal(s.costs.entry, 1);
    assert_int_equal(s.costs.exit, 2);
    assert_int_equal(s.costs.syscall, 3);
    assert_int_equal(s.costs.ipc, 4);
    assert_int_equal(s.costs.schedule, 5);
    assert_int_equal(s.costs.timer_program, 6);
    assert_int_equal(s.costs.irq, 7);
    assert_int_equal(s.costs.tick, 8);
    assert_int_equal(s.scheduler, SCHED_CLASSIC);
    assert_int_equal(s.priorities, 64);
    assert_int_equal(s.min_budget, 1000);
    assert_int_equal(scenario_min_budget(&s), 1000);
    assert_int_equal(s.tick, MS(1));
    assert_int_equal(s.timeslice, 3);
    assert_int_equal(s.n_levels, 3);
    assert_string_equal(s.levels[0], "low");
    assert_string_equal(s.levels[1], "mid");
    assert_string_equal(s.levels[2], "high");
    scenario_release(&s);
}

static void test_load_good_full_objects(void **state)
{
    (void)state;
    struct scenario s;
    load_good("good_full.yaml", &s);
    assert_int_equal(s.n_endpoints, 2);
    assert_string_equal(s.endpoints[1].name, "faults");
    assert_int_equal(s.endpoints[1].loc.line, 19);
    assert_int_equal(s.endpoints[1].loc.col, 21);
    assert_int_equal(s.n_notifications, 2);
    assert_string_equal(s.notifications[0].name, "net_rx");
    assert_true(s.notifications[0].sc.present);
    assert_int_equal(s.notifications[0].sc.budget, 400000u);
    assert_int_equal(s.notifications[0].sc.period, MS(1));
    assert_int_equal(s.notifications[0].sc.extra_refills, 3);
    assert_true(s.notifications[0].sc.sporadic);
    assert_false(s.notifications[1].sc.present);
    assert_int_equal(s.notifications[1].loc.line, 22);
    assert_int_equal(s.notifications[1].loc.col, 3);
    scenario_release(&s);
}

static void test_load_good_full_devices(void **state)
{
    (void)state;
    struct scenario s;
    load_good("good_full.yaml", &s);
    assert_int_equal(s.n_devices, 4);
    const struct scn_device *net = &s.devices[0], *disk = &s.devices[1];
    const struct scn_device *clock = &s.devices[2], *bursty = &s.devices[3];
    assert_string_equal(net->name, "net");
    assert_int_equal(net->irq, 33);
    assert_int_equal(net->notification, 0);
    assert_int_equal(net->kind, ARRIVAL_PERIODIC);
    assert_int_equal(net->period, MS(1));
    assert_int_equal(net->jitter, 100000u);
    assert_int_equal(net->offset, 20000u);
    assert_int_equal(disk->irq, 0);
    assert_int_equal(disk->notification, 1);
    assert_int_equal(disk->kind, ARRIVAL_SPORADIC);
    assert_int_equal(disk->min, MS(1));
    assert_int_equal(disk->max, MS(3));
    assert_int_equal(disk->offset, 0);
    assert_int_equal(clock->irq, 255);
    assert_int_equal(clock->kind, ARRIVAL_AT);
    assert_int_equal(clock->at_count, 3);
    assert_int_equal(s.times[clock->at_first], MS(1));
    assert_int_equal(s.times[clock->at_first + 1], 2400000u);
    assert_int_equal(s.times[clock->at_first + 2], MS(9));
    assert_int_equal(bursty->kind, ARRIVAL_BURST);
    assert_int_equal(bursty->every, MS(10));
    assert_int_equal(bursty->count, 4);
    assert_int_equal(bursty->gap, 40000u);
    scenario_release(&s);
}

static void test_load_good_full_threads(void **state)
{
    (void)state;
    struct scenario s;
    load_good("good_full.yaml", &s);
    assert_int_equal(s.n_threads, 4);
    const struct scn_thread *c = &s.threads[0], *srv = &s.threads[1], *drv = &s.threads[2];
    assert_string_equal(c->name, "control");
    assert_int_equal(c->loc.line, 29);
    assert_int_equal(c->loc.col, 3);
    assert_int_equal(c->priority, 60);
    assert_int_equal(c->mcp, 63);
    assert_int_equal(c->criticality, 2);
    assert_true(c->sc.present);
    assert_int_equal(c->sc.budget, MS(2));
    assert_int_equal(c->sc.period, MS(10));
    assert_int_equal(c->sc.extra_refills, 1);
    assert_true(c->sc.sporadic);
    assert_false(c->passive);
    assert_true(c->has_deadline);
    assert_int_equal(c->deadline, MS(8));
    assert_int_equal(c->start, 1200);
    assert_int_equal(c->timeout_endpoint, 1);
    assert_true(srv->passive);
    assert_false(srv->sc.present);
    assert_false(srv->has_deadline);
    assert_int_equal(srv->mcp, 61);
    assert_int_equal(srv->timeout_endpoint, SCN_NONE);
    assert_true(drv->passive);
    assert_true(drv->has_deadline);
    assert_int_equal(drv->deadline, MS(1));
    assert_int_equal(drv->criticality, 1);
    assert_int_equal(s.threads[3].deadline, MS(1)); /* handler: deadline = period */
    scenario_release(&s);
}

/* control: [loop [job [compute, call], yield]]; bodies follow their list. */
static void test_load_good_full_steps(void **state)
{
    (void)state;
    struct scenario s;
    load_good("good_full.yaml", &s);
    const struct scn_step *st = s.steps;
    assert_int_equal(s.threads[0].prog_first, 0);
    assert_int_equal(s.threads[0].prog_count, 1);
    assert_int_equal(st[0].kind, STEP_LOOP);
    assert_int_equal(st[0].body_first, 1);
    assert_int_equal(st[0].body_count, 2);
    assert_int_equal(st[1].kind, STEP_JOB);
    assert_int_equal(st[1].body_first, 3);
    assert_int_equal(st[1].body_count, 2);
    assert_int_equal(st[2].kind, STEP_YIELD);
    assert_int_equal(st[3].kind, STEP_COMPUTE);
    assert_int_equal(st[3].min, MS(1));
    assert_int_equal(st[3].max, 3600000u);
    assert_int_equal(st[4].kind, STEP_CALL);
    assert_int_equal(st[4].object, 0);
    assert_int_equal(st[4].loc.line, 44);
    assert_int_equal(st[4].loc.col, 17);
    /* sensor_server: [recv, loop [compute 800ns, reply_recv]] */
    assert_int_equal(s.threads[1].prog_first, 5);
    assert_int_equal(st[5].kind, STEP_RECV);
    assert_int_equal(st[6].body_first, 7);
    assert_int_equal(st[7].min, 1600);
    assert_int_equal(st[7].max, 1600);
    assert_int_equal(st[8].kind, STEP_REPLY_RECV);
    scenario_release(&s);
}

static void test_load_good_full_more_steps(void **state)
{
    (void)state;
    static const enum scn_step_kind driver[] = {STEP_WAIT,   STEP_REPEAT, STEP_SEND, STEP_NBSEND,
                                                STEP_SIGNAL, STEP_POLL,   STEP_REPLY};
    struct scenario s;
    load_good("good_full.yaml", &s);
    const struct scn_step *st = s.steps;
    assert_int_equal(s.threads[2].prog_first, 9);
    assert_int_equal(s.threads[2].prog_count, 7);
    for (uint32_t i = 0; i < 7; i++)
        assert_int_equal(st[9 + i].kind, driver[i]);
    assert_int_equal(st[10].count, 5);
    assert_int_equal(st[10].body_first, 16);
    assert_int_equal(st[10].body_count, 3);
    assert_int_equal(st[16].max, 0);
    assert_int_equal(st[17].kind, STEP_IRQ_ACK);
    assert_int_equal(st[17].object, 0);
    assert_int_equal(st[13].object, 1);
    assert_int_equal(s.threads[3].prog_first, 19);
    assert_int_equal(st[19].kind, STEP_HANDLE_TIMEOUTS);
    assert_int_equal(st[19].timeouts.endpoint, 1);
    assert_int_equal(st[19].timeouts.action, TIMEOUT_INHERIT);
    assert_int_equal(st[20].timeouts.action, TIMEOUT_RESET);
    assert_int_equal(st[21].timeouts.action, TIMEOUT_EMERGENCY_BUDGET);
    assert_int_equal(st[21].timeouts.emergency, MS(1) / 2);
    assert_int_equal(s.n_steps, 22);
    scenario_release(&s);
}

static void test_load_good_full_expects(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "deadlines: met, criticality: mid",
        "deadlines: missed, threads: [control, driver] (scheduler: classic)",
        "max_response: control at_most 4ms",
        "count: throttle of driver at_least 1",
        "count: irq on net at_least 2 at_most 9 (scheduler: mcs)",
        "budget: respected",
        "deadlines: met",
    };
    struct scenario s;
    load_good("good_full.yaml", &s);
    const struct scn_expect *e = s.expects;
    assert_int_equal(s.n_expects, 7);
    for (uint32_t i = 0; i < 7; i++)
        assert_string_equal(e[i].text, texts[i]);
    assert_int_equal(e[0].kind, EXPECT_DEADLINES_MET);
    assert_int_equal(e[0].criticality, 1);
    assert_int_equal(e[0].scheduler, SCN_ANY_SCHEDULER);
    assert_int_equal(e[1].kind, EXPECT_DEADLINES_MISSED);
    assert_int_equal(e[1].scheduler, SCHED_CLASSIC);
    assert_int_equal(e[1].thread_count, 2);
    assert_int_equal(s.thread_refs[e[1].thread_first + 1], 2);
    assert_int_equal(e[2].kind, EXPECT_MAX_RESPONSE);
    assert_int_equal(e[2].thread, 0);
    assert_int_equal(e[2].at_most_time, MS(4));
    assert_int_equal(e[3].event, EV_THROTTLE);
    assert_true(e[3].has_at_least);
    assert_false(e[3].has_at_most);
    assert_int_equal(e[4].event, EV_IRQ);
    assert_int_equal(e[4].device, 0);
    assert_int_equal(e[4].thread, SCN_NONE);
    assert_int_equal(e[4].at_most, 9);
    assert_int_equal(e[4].scheduler, SCHED_MCS);
    assert_int_equal(e[5].kind, EXPECT_BUDGET_RESPECTED);
    assert_int_equal(e[6].criticality, SCN_NONE);
    assert_int_equal(e[6].thread_count, 0);
    scenario_release(&s);
}

static void test_load_defaults(void **state)
{
    (void)state;
    static const struct scn_costs costs = {120, 100, 80, 150, 120, 250, 100, 90};
    struct scenario s;
    load_good("good_defaults.yaml", &s);
    assert_string_equal(s.name, "good_defaults"); /* the file's stem */
    assert_null(s.description);
    assert_int_equal(s.seed, 0);
    assert_int_equal(s.duration, 1500000u); /* 1.5ms at 1GHz */
    assert_int_equal(s.cpu_hz, 1000000000u);
    assert_int_equal(s.timer_hz, 1000000000u);
    assert_memory_equal(&s.costs, &costs, sizeof costs);
    assert_int_equal(s.scheduler, SCHED_MCS);
    assert_int_equal(s.priorities, 256);
    assert_int_equal(s.min_budget, 0);
    assert_int_equal(scenario_min_budget(&s), 1940); /* 2 x (120+80+300+120+250+100) */
    assert_int_equal(s.tick, 2000000u);
    assert_int_equal(s.timeslice, 5);
    assert_int_equal(s.n_levels, 2);
    assert_string_equal(s.levels[0], "lo");
    assert_string_equal(s.levels[1], "hi");
    assert_int_equal(s.threads[0].mcp, 10);
    assert_int_equal(s.threads[0].deadline, 10000000u);
    assert_int_equal(s.threads[0].start, 0);
    assert_int_equal(s.threads[0].sc.extra_refills, 0);
    assert_false(s.threads[0].sc.sporadic);
    assert_int_equal(s.n_endpoints + s.n_notifications + s.n_devices + s.n_expects, 0);
    scenario_release(&s);
}

static int load_text(const char *text, struct scenario *s, struct diag *d)
{
    return load_scenario_text("t.yaml", text, strlen(text), s, d);
}

/* Exact decimals, converted with the cpu_hz written after them. */
static void test_load_exact_decimals(void **state)
{
    (void)state;
    struct scenario s;
    struct diag d;
    diag_init(&d);
    assert_int_equal(load_text("mcsim: 1\nduration: 1.5ms\n"
                               "threads: {a: {priority: 0, criticality: lo, budget: 1.000001ms,"
                               " period: 10ms, program: [{compute: 0.1us}]}}\n"
                               "platform: {cpu_hz: 62.5MHz, timer_hz: 32768Hz, kernel_costs: "
                               "{entry: 0, exit: 0, syscall: 0, ipc: 0, schedule: 0, "
                               "timer_program: 0}}\n",
                               &s, &d),
                     0);
    assert_int_equal(s.cpu_hz, 62500000u);
    assert_int_equal(s.timer_hz, 32768u);
    assert_int_equal(s.duration, 93750u);
    assert_int_equal(s.threads[0].sc.budget, 62500u); /* 62500.0625 rounded down */
    assert_int_equal(s.steps[0].min, 6);              /* 6.25 rounded down */
    assert_int_equal(scenario_min_budget(&s), 1908);  /* one timer tick, rounded up */
    scenario_release(&s);
    diag_release(&d);
}

static void test_load_sha256_and_path(void **state)
{
    (void)state;
    struct scenario s;
    uint8_t want[SHA256_BYTES];
    static char bytes[4096];
    FILE *f = fopen(DATA_DIR "good_defaults.yaml", "rb");
    assert_non_null(f);
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    sha256_digest(bytes, n, want);
    load_good("good_defaults.yaml", &s);
    assert_memory_equal(s.sha256, want, SHA256_BYTES);
    assert_string_equal(s.path, DATA_DIR "good_defaults.yaml");
    scenario_release(&s);
}

static void test_load_second_document(void **state)
{
    (void)state;
    struct scenario s;
    struct diag d;
    diag_init(&d);
    assert_int_equal(load_scenario(DATA_DIR "good_second_doc.yaml", &s, &d), 0);
    assert_int_equal(diag_count(&d), 0);
    assert_int_equal(s.n_threads, 1);
    scenario_release(&s);
    diag_release(&d);
}

/* The reference cases (copies of ../shared/reference-cases) load, each
 * being its first document. */
static void test_load_reference_cases(void **state)
{
    (void)state;
    DIR *dir = opendir(KERNEL_CASES_DIR);
    struct dirent *e;
    size_t loaded = 0;
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        struct scenario s;
        struct diag d;
        if (len < 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        diag_init(&d);
        int rc = load_scenario(data_path(KERNEL_CASES_DIR, e->d_name), &s, &d);
        diag_print(&d, stderr);
        assert_int_equal(rc, 0);
        assert_int_equal(diag_count(&d), 0);
        assert_true(s.n_threads > 0);
        scenario_release(&s);
        diag_release(&d);
        loaded++;
    }
    closedir(dir);
    assert_true(loaded >= 30);
}

static void test_load_missing_file(void **state)
{
    (void)state;
    struct scenario s;
    struct diag d;
    char line[256];
    diag_init(&d);
    assert_int_equal(load_scenario(DATA_DIR "no_such_file.yaml", &s, &d), -1);
    assert_int_equal(diag_count(&d), 1);
    diag_format(&d.msgs[0], line, sizeof line);
    assert_string_equal(line, DATA_DIR "no_such_file.yaml: error: cannot read the file: No "
                                       "such file or directory");
    diag_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_good_full_top),
        cmocka_unit_test(test_load_good_full_objects),
        cmocka_unit_test(test_load_good_full_devices),
        cmocka_unit_test(test_load_good_full_threads),
        cmocka_unit_test(test_load_good_full_steps),
        cmocka_unit_test(test_load_good_full_more_steps),
        cmocka_unit_test(test_load_good_full_expects),
        cmocka_unit_test(test_load_defaults),
        cmocka_unit_test(test_load_exact_decimals),
        cmocka_unit_test(test_load_sha256_and_path),
        cmocka_unit_test(test_load_second_document),
        cmocka_unit_test(test_load_reference_cases),
        cmocka_unit_test(test_load_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
