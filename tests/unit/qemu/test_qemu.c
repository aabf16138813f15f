/*
 * mcsim qemu on the kernel image: the statistics a QEMU run records. For
 * scenarios/network_driver.yaml under mcs and classic, kernel_stats holds
 * exactly the kernel entries the image counted (its END frame), their
 * cycles sum to the instructions it measured, and every delivered
 * interrupt that woke its handler has the handler's start after its
 * arrival, as many of them as in the simulated run of the same file; and
 * a signal the kernel deferred (B12) keeps the release of the call that
 * eventually makes it.
 * Needs qemu-system-aarch64 and the image ($MCSIM_QEMU_IMAGE, set by
 * CTest from the cache variable of tests/qemu.cmake): without them it
 * prints "mcsim qemu test skipped" and passes (CTest reports it skipped).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "qemu/qemu_run.h"
#include "spawn.h"
#include "sqlq.h"
#include "workdir.h"

#define NETWORK_DRIVER MCSIM_SOURCE_DIR "/scenarios/network_driver.yaml"

static const char *image;

/* Run 1: the QEMU run, run 2: the simulated one; the QEMU run's END. */
static void run_both(const char *scheduler, struct wire_record *end)
{
    struct qemu_trace t = {0};

    assert_int_equal(spawn_mcsim("qemu", NETWORK_DRIVER, "-o", "q.db", "--image", image,
                                 "--scheduler", scheduler, "--keep", "keep", "--quiet", NULL),
                     0);
    assert_int_equal(
        spawn_mcsim("run", NETWORK_DRIVER, "-o", "q.db", "--scheduler", scheduler, "--quiet", NULL),
        0);
    assert_int_equal(qemu_trace_read(&t, workdir_file("keep/uart.bin")), 0);
    assert_true(t.has_end);
    *end = t.end;
    qemu_trace_release(&t);
}

static int64_t q(const char *sql)
{
    return sqlq_path_int(workdir_file("q.db"), sql);
}

/* The scenario runs at 1 GHz: a cycle is an instruction. */
static void check_kernel_stats(const struct wire_record *end, bool mcs)
{
    assert_int_equal(q("SELECT count(*) FROM runs WHERE run_id = 1 AND hal = 'qemu'"), 1);
    assert_int_equal(q("SELECT sum(entries) FROM kernel_stats WHERE run_id = 1"),
                     end->u.end.kernel_entries);
    assert_int_equal(q("SELECT sum(cycles) FROM kernel_stats WHERE run_id = 1"),
                     end->u.end.entry_insns);
    assert_true(end->u.end.entry_insns > 0 && end->u.end.entry_insns < end->u.end.kernel_insns);
    /* every row is whole: its parts within it */
    assert_int_equal(q("SELECT count(*) FROM kernel_stats WHERE run_id = 1 AND (cycles <= 0"
                       " OR decisions > entries OR timer_programs > entries"
                       " OR decision_cycles > cycles OR sched_cycles > decision_cycles"
                       " OR timer_cycles > cycles OR (decisions = 0) <> (sched_cycles = 0))"),
                     0);
    assert_int_equal(q("SELECT count(DISTINCT kind) FROM kernel_stats WHERE run_id = 1"
                       " AND kind IN ('syscall', 'irq', 'timer')"),
                     3);
    assert_true(q("SELECT decisions FROM run_stats WHERE run_id = 1") > 0);
    /* classic's tick sets the timer without accounting a reprogramming,
     * on either platform */
    if (mcs)
        assert_true(q("SELECT timer_programs FROM run_stats WHERE run_id = 1") > 0);
    else
        assert_int_equal(q("SELECT timer_programs FROM run_stats WHERE run_id = 1"), 0);
}

static void check_irqs(bool mcs)
{
    /* a delivery that woke a thread has its first instruction after the
     * delivery; one that woke nobody has neither */
    assert_int_equal(q("SELECT count(*) FROM irqs WHERE run_id = 1 AND delivered IS NOT NULL"
                       " AND NOT ((handler IS NOT NULL AND delivered >= arrival"
                       "  AND handler_start > delivered)"
                       " OR (handler IS NULL AND handler_start IS NULL))"),
                     0);
    assert_true(q("SELECT irqs_handled FROM run_stats WHERE run_id = 1") > 0);
    assert_int_equal(q("SELECT irqs_handled FROM run_stats WHERE run_id = 1"),
                     q("SELECT irqs_handled FROM run_stats WHERE run_id = 2"));
    assert_true(q("SELECT worst_irq_latency FROM run_stats WHERE run_id = 1") > 0);
    /* lost arrivals are still recorded (mcs throttles the driver: the
     * flood's packets are lost meanwhile) */
    assert_int_equal(q("SELECT count(*) FROM irqs WHERE run_id = 1 AND lost = 1"),
                     q("SELECT count(*) FROM irqs WHERE run_id = 2 AND lost = 1"));
    if (mcs)
        assert_true(q("SELECT count(*) FROM irqs WHERE run_id = 1 AND lost = 1") > 0);
}

static void test_qemu_network_driver_mcs(void **state)
{
    struct wire_record end;

    (void)state;
    run_both("mcs", &end);
    check_kernel_stats(&end, true);
    check_irqs(true);
}

static void test_qemu_network_driver_classic(void **state)
{
    struct wire_record end;

    (void)state;
    run_both("classic", &end);
    check_kernel_stats(&end, false);
    check_irqs(false);
}

/* B12 on the image: h's signal at 3.99ms is deferred (10us of budget
 * left, MIN_BUDGET 20us) and made again at its refill, 9.99ms. The job it
 * releases is released by that second call, as in the simulation (where
 * it is exactly 9.99ms): after the refill and before w runs. Before the
 * image had the interpreter make a restarted call again (it re-executed
 * the `svc` alone), the release was lost and the job's start stood in. */
static void test_qemu_deferred_signal_release(void **state)
{
    (void)state;
    assert_int_equal(spawn_mcsim("qemu",
                                 MCSIM_SOURCE_DIR "/tests/scenarios/kernel/b12_min_budget.yaml",
                                 "-o", "q.db", "--image", image, "--quiet", NULL),
                     0);
    assert_int_equal(q("SELECT count(*) FROM jobs WHERE run_id = 1"), 1);
    assert_true(q("SELECT release_time FROM jobs WHERE run_id = 1") >= 9990000);
    assert_true(q("SELECT release_time < start_time FROM jobs WHERE run_id = 1"));
    assert_true(q("SELECT start_time FROM jobs WHERE run_id = 1") < 9990000 + 10000);
}

static int setup(void **state)
{
    (void)state;
    return workdir_create("qemu");
}

/* Why the test cannot run here, or NULL. */
static const char *missing(void)
{
    static char why[4200];
    char path[4096];
    struct stat st;

    if (qemu_find_program("qemu-system-aarch64", path, sizeof path) != 0)
        return "qemu-system-aarch64 is not installed (Debian package qemu-system-arm)";
    image = getenv("MCSIM_QEMU_IMAGE");
    if (image == NULL || *image == 0 || stat(image, &st) != 0) {
        snprintf(why, sizeof why,
                 "no image %s (cmake --preset aarch64-qemu && cmake --build --preset "
                 "aarch64-qemu)",
                 image ? image : "($MCSIM_QEMU_IMAGE is not set)");
        return why;
    }
    return NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_qemu_network_driver_mcs, workdir_empty),
        cmocka_unit_test_setup(test_qemu_network_driver_classic, workdir_empty),
        cmocka_unit_test_setup(test_qemu_deferred_signal_release, workdir_empty),
    };
    const char *why = missing();

    if (why) {
        printf("mcsim qemu test skipped: %s\n", why);
        return 0;
    }
    return cmocka_run_group_tests(tests, setup, workdir_teardown);
}
