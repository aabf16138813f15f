/*
 * The fixture of the expectation tests (unit.expect, unit.expect_budget):
 * a hand-built scenario (threads control, logger, server, net_driver; two
 * notifications and devices) and its run's rows written by hand through
 * the SQLite sink into an in-memory database, then expect_evaluate over
 * them and each verdict compared exactly.
 */
#ifndef MCSIM_TESTS_EXPECT_FX_H
#define MCSIM_TESTS_EXPECT_FX_H

#include <stdbool.h>
#include <stdint.h>

#include <mcsim/bootinfo.h>

#include "check/expect.h"
#include "db/db.h"

#define ALLOWANCE 100 /* one kernel entry, cycles */
#define MAX_EXPECTS 32

enum { CONTROL = 1, LOGGER, SERVER, NET_DRIVER }; /* thread ids: index + 1 */
enum { NET, DISK };                               /* device indices */

/* ---- a hand-built scenario and run ---- */

struct fx {
    struct scenario s;
    struct scn_thread threads[4];
    struct scn_notification ntfns[2];
    struct scn_device devices[2];
    struct scn_step steps[6];
    struct scn_expect expects[MAX_EXPECTS];
    uint32_t refs[8];
    struct expect_result results[MAX_EXPECTS];
    cycles_t allowance;
    struct db *db;
    struct trace_sink k;
};

/* Levels lo, hi. control (hi, 2000/10000), logger (lo, sporadic
 * 1000/5000), server (hi, passive), net_driver (hi, 500/10000);
 * notifications net_rx (200/1000) and tick; devices net -> net_rx, disk ->
 * tick. The run is begun in an in-memory database (timer_hz: the kernel's
 * timer; fx_begin: the CPU's rate). */
void fx_begin_hz(struct fx *f, uint8_t scheduler, cycles_t duration, uint64_t timer_hz);
void fx_begin(struct fx *f, uint8_t scheduler, cycles_t duration);
void fx_end(struct fx *f);

/* Rows of the run, through the sink. */
void fx_job(struct fx *f, uint32_t thread, uint32_t job, cycles_t release, cycles_t finish,
            cycles_t deadline);
void fx_slice(struct fx *f, uint32_t thread, uint32_t sc, cycles_t start, cycles_t end);
void fx_ntfn_slice(struct fx *f, uint32_t ntfn, cycles_t start, cycles_t end);
void fx_budget(struct fx *f, uint32_t thread, uint32_t sc, cycles_t time,
               enum sink_budget_kind kind, uint64_t amount);
void fx_event(struct fx *f, const char *kind, uint32_t thread, cycles_t time);
void fx_irq(struct fx *f, uint32_t device, cycles_t arrival, cycles_t delivered, bool lost);

/* Expectations (their filters default to "none"). */
struct scn_expect *fx_expect(struct fx *f, enum scn_expect_kind kind, const char *text);
struct scn_expect *fx_deadlines(struct fx *f, bool met, const char *text, int n, ...);
struct scn_expect *fx_count(struct fx *f, enum scn_count_event ev, uint32_t thread,
                            uint32_t device, const char *text);
void at_least(struct scn_expect *e, uint64_t n);
void at_most(struct scn_expect *e, uint64_t n);
void fx_budget_expect(struct fx *f);

/* Evaluate every expectation into f->results. */
void fx_eval(struct fx *f);

/* Verdict i is `verdict` ("PASS", "FAIL", "N/A") with this detail. */
void assert_verdict(const struct fx *f, uint32_t i, const char *verdict, const char *detail);

/* CMocka setup and teardown: a zeroed struct fx in *state. */
int fx_setup(void **state);
int fx_teardown(void **state);

#endif /* MCSIM_TESTS_EXPECT_FX_H */
