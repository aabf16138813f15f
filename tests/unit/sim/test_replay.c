/*
 * sim/replay: a QEMU run's records become the rows a simulated run makes,
 * through the same recorder. Kernel entries (wire.h ENTRY, each before
 * its kernel records) fill kernel_stats; a delivered interrupt is taken
 * where its record stands, the entry that handles it names the thread it
 * woke, and its row gets the handler's start from the first entry that
 * returns to that thread;
 * lost and undelivered arrivals stay rows of their own; entries that do
 * not add up to the END's count, or name a thread or a kind that does not
 * exist, fail the run.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <mcsim/kernel.h>

#include "db/db.h"
#include "util/diag.h"
#include "load/load.h"
#include "replay.h"
#include "sink.h"
#include "sqlq.h"
#include "workdir.h"

/* Thread 1 handles the nic's interrupts; thread 2 computes. */
static const char scenario_yaml[] =
    "mcsim: 1\n"
    "name: replayed\n"
    "duration: 1ms\n"
    "criticality: [lo]\n"
    "notifications: [rx]\n"
    "devices:\n"
    "  nic: {irq: 33, notification: rx, arrivals: {periodic: 100us}}\n"
    "threads:\n"
    "  handler:\n"
    "    {priority: 200, criticality: lo, budget: 100us, period: 1ms,\n"
    "     program: [{loop: [{wait: rx}, {irq_ack: nic}]}]}\n"
    "  worker:\n"
    "    {priority: 100, criticality: lo, budget: 1ms, period: 1ms, program: [{compute: 1ms}]}\n";

static struct wire_record irq(uint64_t arrival, uint64_t delivered, bool lost)
{
    struct wire_record r = {.type = WIRE_IRQ};
    r.u.irq.device = 0;
    r.u.irq.line = 33;
    r.u.irq.arrival = arrival;
    r.u.irq.delivered = delivered;
    r.u.irq.lost = lost;
    return r;
}

static struct wire_record entry(enum sink_entry_kind kind, uint32_t from, uint32_t to,
                                uint32_t insns, uint64_t end)
{
    struct wire_record r = {.type = WIRE_ENTRY};
    r.u.entry.kind = (uint8_t)kind;
    r.u.entry.from = from;
    r.u.entry.to = to;
    r.u.entry.insns = insns;
    r.u.entry.end = end;
    return r;
}

static struct wire_record end_record(uint64_t entries, uint64_t insns)
{
    struct wire_record r = {.type = WIRE_END};
    r.u.end.end = 1000000;
    r.u.end.kernel_entries = entries;
    r.u.end.entry_insns = insns;
    return r;
}

/* A run: the nic's first arrival wakes the handler, which first runs at
 * the end of a later entry; the second is lost; the third finds the
 * handler busy (it wakes nobody); the fourth never arrives before the
 * end. */
static size_t sample_run(struct wire_record *r)
{
    size_t n = 0;

    r[n++] = (struct wire_record){.type = WIRE_TIMELINE};
    r[n++] = irq(100000, 100300, false);
    r[n] = entry(ENTRY_IRQ, 2, 2, 500, 100900); /* not to the handler: still held */
    r[n++].u.entry.woken = 1;
    r[n] = entry(ENTRY_SYSCALL, 2, 1, 800, 105000);
    r[n].u.entry.flags = WIRE_ENTRY_SCHEDULED | WIRE_ENTRY_TIMER;
    r[n].u.entry.sched_insns = 200;
    r[n++].u.entry.timer_insns = 40;
    r[n].type = WIRE_KTRACE; /* the entry's kernel records follow it */
    r[n++].u.ktrace = (struct trace_record){TR_SWITCH, 1, 1, 2, 0, 104200};
    r[n++] = irq(200000, UINT64_MAX, true);
    r[n++] = irq(300000, 300300, false);
    r[n++] = entry(ENTRY_IRQ, 1, 1, 600, 301000);
    r[n++] = entry(ENTRY_TIMER, TRACE_IDLE, TRACE_IDLE, 300, 400000);
    r[n++] = irq(900000, UINT64_MAX, false);
    r[n++] = end_record(4, 2200);
    return n;
}

/* Replay recs[0..n) into workdir/replay.db; the result's status. */
static enum eng_status replay_at(uint64_t tick_hz, const struct wire_record *recs, size_t n,
                                 struct eng_result *r)
{
    struct scenario s;
    struct diag d;
    struct db *db;
    char err[256];
    enum eng_status st;

    diag_init(&d);
    assert_int_equal(
        load_scenario_text("replayed.yaml", scenario_yaml, strlen(scenario_yaml), &s, &d), 0);
    diag_release(&d);
    if (db_open(workdir_file("replay.db"), &db, err, sizeof err) != 0)
        fail_msg("db_open: %s", err);
    struct eng_options o = {.seed = s.seed,
                            .duration = s.duration,
                            .scheduler = s.scheduler,
                            .version = "test",
                            .sink = db_sink(db, 0)};
    memset(r, 0, sizeof *r);
    st = replay_run(&s, &o, "qemu", tick_hz, recs, n, r);
    db_close(db);
    scenario_release(&s);
    return st;
}

static enum eng_status replay(const struct wire_record *recs, size_t n, struct eng_result *r)
{
    return replay_at(1000000000u, recs, n, r);
}

static void test_replay_kernel_stats_and_irq_latency(void **state)
{
    struct wire_record recs[16];
    size_t n = sample_run(recs);
    struct eng_result r;
    const char *db = workdir_file("replay.db");

    (void)state;
    assert_int_equal(replay(recs, n, &r), ENG_OK);
    assert_int_equal(r.kernel_entries, 4);
    assert_int_equal(r.kernel_cycles, 2200);
    sqlq_assert_path_rows(db,
                          "SELECT thread_id, kind, entries, cycles, decisions, decision_cycles,"
                          " sched_cycles, timer_programs, timer_cycles FROM kernel_stats"
                          " ORDER BY thread_id, kind",
                          "NULL|timer|1|300|0|0|0|0|0\n"
                          "1|irq|1|600|0|0|0|0|0\n"
                          "2|irq|1|500|0|0|0|0|0\n"
                          "2|syscall|1|800|1|800|200|1|40\n");
    sqlq_assert_path_rows(db,
                          "SELECT arrival, delivered, lost, handler, handler_start FROM irqs"
                          " ORDER BY arrival",
                          "100000|100300|0|1|105000\n"
                          "200000|NULL|1|1|NULL\n" /* lost: the release of the thread waiting (1) */
                          "300000|300300|0|NULL|NULL\n"
                          "900000|NULL|0|NULL|NULL\n");
    sqlq_assert_path_rows(db, "SELECT thread_id, start_time, end_time FROM slices",
                          "1|104200|1000000\n");
    sqlq_assert_path_rows(db,
                          "SELECT irqs_handled, worst_irq_latency, kernel_entries, kernel_cycles,"
                          " decisions FROM run_stats",
                          "1|5000|4|2200|1\n");
}

/* The END must count the entries replayed; each entry must be one. */
static void test_replay_bad_entries_fail(void **state)
{
    struct wire_record recs[16];
    size_t n;
    struct eng_result r;

    (void)state;
    n = sample_run(recs);
    recs[n - 1].u.end.kernel_entries = 5; /* one went missing */
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);
    assert_non_null(strstr(r.error, "kernel entries"));

    n = sample_run(recs);
    recs[n - 1].u.end.entry_insns = 2201;
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);

    n = sample_run(recs);
    recs[2].u.entry.to = 3; /* the scenario has threads 0..2 */
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);
    assert_non_null(strstr(r.error, "kernel entry"));

    n = sample_run(recs);
    recs[2].u.entry.kind = 4;
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);

    n = sample_run(recs);
    recs[2].u.entry.flags = 4;
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);

    n = sample_run(recs);
    recs[2].u.entry.woken = TRACE_IDLE; /* only a thread can be woken */
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);

    n = sample_run(recs);
    recs[1].u.irq.line = 1024; /* a delivery on no device line (HAL_SIM_DEVICE_LINES) */
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);

    /* a lost one on no device line (found by fuzz_replay: the recorder
     * indexed its lines with it, UBSan in recorder.c) */
    n = sample_run(recs);
    recs[1].u.irq.line = 8448;
    recs[1].u.irq.lost = true;
    assert_int_equal(replay(recs, n, &r), ENG_INTERNAL_ERROR);
    assert_string_equal(r.error, "replay: an interrupt on line 8448, which is no device line");

    /* a HELLO that gives a timer of 0 Hz (found by fuzz_replay: every tick
     * conversion divided by it) */
    n = sample_run(recs);
    assert_int_equal(replay_at(0, recs, n, &r), ENG_INTERNAL_ERROR);
    assert_string_equal(r.error, "replay: the run's HELLO record gives its timer 0 ticks a "
                                 "second");
}


/* A frame stream that ends before the root task was built (a board reset
 * during boot): the END counts no entries, nothing ran. Replay records the
 * run, and asks nothing of the host's kernel, which never booted in this
 * process: its inspection API answers -1 for every slot rather than index
 * a root CNode that does not exist (issue 19: UBSan, inspect.c). */
static void test_replay_ends_before_boot(void **state)
{
    struct wire_record recs[1] = {end_record(0, 0)};
    struct kinspect_thread k;
    struct kinspect_sc sc;
    struct eng_result r;

    (void)state;
    assert_int_equal(kernel_inspect_thread(0, &k), -1);
    assert_int_equal(kernel_inspect_thread(ROOT_TCB, &k), -1);
    assert_int_equal(kernel_inspect_sc(ROOT_SC, &sc), -1);
    assert_int_equal(replay(recs, 1, &r), ENG_OK);
    sqlq_assert_path_rows(workdir_file("replay.db"),
                          "SELECT (SELECT count(*) FROM slices), (SELECT count(*) FROM jobs),"
                          " finished FROM runs",
                          "0|0|1\n");
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("replay");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_replay_kernel_stats_and_irq_latency, workdir_empty),
        cmocka_unit_test_setup(test_replay_bad_entries_fail, workdir_empty),
        cmocka_unit_test_setup(test_replay_ends_before_boot, workdir_empty),
    };
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
