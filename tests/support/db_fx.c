/* db_fx.h: the recorder's tests' fixture. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mcsim/bootinfo.h>

#include "db_fx.h"

static char tmpdir[] = "/tmp/mcsim-test-db-XXXXXX";

static struct scn_thread fx_threads[3];
static struct scn_notification fx_ntfns[2];
static struct scn_device fx_devices[1];
static char fx_path[] = "scenarios/fixture.yaml";

static void fx_thread(uint32_t i, const char *name, uint32_t prio, uint32_t crit, cycles_t budget,
                      cycles_t period, bool sporadic)
{
    struct scn_thread *t = &fx_threads[i];

    snprintf(t->name, sizeof t->name, "%s", name);
    t->priority = t->mcp = prio;
    t->criticality = crit;
    t->timeout_endpoint = SCN_NONE;
    if (period) {
        t->sc = (struct scn_context){
            .present = true, .sporadic = sporadic, .budget = budget, .period = period};
        t->has_deadline = true;
        t->deadline = period;
    } else {
        t->passive = true;
    }
}

void fx_scenario(struct scenario *s)
{
    memset(s, 0, sizeof *s);
    memset(fx_threads, 0, sizeof fx_threads);
    memset(fx_ntfns, 0, sizeof fx_ntfns);
    memset(fx_devices, 0, sizeof fx_devices);
    snprintf(s->name, sizeof s->name, "fixture");
    s->path = fx_path;
    for (int i = 0; i < 32; i++)
        s->sha256[i] = (uint8_t)(0xa0 + i);
    s->seed = 7;
    s->duration = 100000000;
    s->cpu_hz = 1000000000;
    s->timer_hz = 62500000;
    s->priorities = 256;
    s->n_levels = 2;
    snprintf(s->levels[0], SCN_NAME_MAX, "lo");
    snprintf(s->levels[1], SCN_NAME_MAX, "hi");
    fx_thread(0, "control", 200, 1, 2000000, 10000000, false);
    fx_thread(1, "logger", 10, 0, 1000000, 5000000, true);
    fx_thread(2, "server", 210, 1, 0, 0, false);
    s->threads = fx_threads;
    s->n_threads = 3;
    snprintf(fx_ntfns[0].name, SCN_NAME_MAX, "net_rx");
    fx_ntfns[0].sc = (struct scn_context){.present = true, .budget = 200000, .period = 1000000};
    snprintf(fx_ntfns[1].name, SCN_NAME_MAX, "tick");
    s->notifications = fx_ntfns;
    s->n_notifications = 2;
    snprintf(fx_devices[0].name, SCN_NAME_MAX, "net");
    fx_devices[0].irq = 33;
    s->devices = fx_devices;
    s->n_devices = 1;
}

const struct sink_run_meta fx_meta = {.hal = "sim",
                                             .version = "0.1.0",
                                             .seed = 7,
                                             .duration = 100000000,
                                             .scheduler = SCHED_MCS,
                                             .trace_full = false};


void db_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

struct db *open_db(const char *path)
{
    char err[DB_ERRMSG_MAX] = "";
    struct db *db = NULL;

    if (db_open(path, &db, err, sizeof err) != 0)
        fail_msg("db_open(%s): %s", path, err);
    return db;
}

struct trace_sink begin_fixture_run(struct scenario *s, char *path, size_t n,
                                           const char *name, struct db **db)
{
    struct trace_sink k;

    fx_scenario(s);
    db_path(path, n, name);
    *db = open_db(path);
    k = db_sink(*db, FIXED_TIME);
    assert_int_equal(k.ops->run_begin(k.self, s, &fx_meta), 0);
    return k;
}

void add_slices(struct trace_sink *k, uint32_t n, cycles_t from)
{
    for (uint32_t i = 0; i < n; i++) {
        struct sink_slice r = {.thread = 1,
                               .sc_thread = 1,
                               .sc_notification = SINK_NO_THREAD,
                               .start = from + 10 * i,
                               .end = from + 10 * i + 5};

        assert_int_equal(k->ops->slice(k->self, &r), 0);
    }
}


void write_one_of_each(struct trace_sink *k)
{
    const struct sink_slice slices[] = {
        {1, 1, SINK_NO_THREAD, 0, 1500},
        {3, 1, SINK_NO_THREAD, 1500, 1800}, /* server on control's context */
        {3, SINK_NO_THREAD, 0, 1800, 1900}, /* server on net_rx's context */
        {2, SINK_NO_THREAD, SINK_NO_THREAD, 1900, 2000},
    };
    const struct sink_job jobs[] = {
        {1, 1, 0, 10, 1800, 10000000, 1800, false},
        {2, 1, 1900, 1900, SINK_NO_TIME, 5001900, SINK_NO_TIME, false},
    };
    const struct sink_budget_event budget[] = {
        {1, 1, 1500, BUDGET_EXHAUSTED, 1500},
        {1, 1, 1500, BUDGET_THROTTLE, 0},
        {1, 1, 10000000, BUDGET_REPLENISH, 2000000},
        {3, 1, 1700, BUDGET_TIMEOUT_FAULT, 200},
        {3, 1, 1750, BUDGET_EMERGENCY, 500000},
        {3, SINK_NO_THREAD, 1900, BUDGET_EXHAUSTED, 100},
    };
    const struct sink_irq irqs[] = {
        {0, 33, 1000, 1800, false, 2, 2400},
        {0, 33, 1100, SINK_NO_TIME, true, SINK_NO_THREAD, SINK_NO_TIME}};
    const struct sink_event events[] = {
        {1, 1500, "preempt", 1, 0, 3, 0},
        {2, 1600, "timer", SINK_NO_THREAD, 0, 12345, SINK_NO_ARG},
        {3, 1700, "signal", 3, UINT64_MAX, 1, 2},
    };
    const struct sink_expectation ex = {0, "deadlines: met", true, "none of 1 jobs missed"};

    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++)
        assert_int_equal(k->ops->slice(k->self, &slices[i]), 0);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++)
        assert_int_equal(k->ops->job(k->self, &jobs[i]), 0);
    for (size_t i = 0; i < sizeof budget / sizeof budget[0]; i++)
        assert_int_equal(k->ops->budget_event(k->self, &budget[i]), 0);
    for (size_t i = 0; i < sizeof irqs / sizeof irqs[0]; i++)
        assert_int_equal(k->ops->irq(k->self, &irqs[i]), 0);
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        assert_int_equal(k->ops->event(k->self, &events[i]), 0);
    assert_int_equal(k->ops->expectation(k->self, &ex), 0);
}


int db_fx_setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

int db_fx_teardown(void **state)
{
    char cmd[64];

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}
