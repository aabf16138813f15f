/*
 * The expectation tests' fixture (expect_fx.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include <mcsim/bootinfo.h>

#include "db/db.h"
#include "check/expect.h"

#include "expect_fx.h"

static void fx_thread(struct fx *f, uint32_t i, const char *name, uint32_t crit, cycles_t budget,
                      cycles_t period, bool sporadic)
{
    struct scn_thread *t = &f->threads[i];

    snprintf(t->name, sizeof t->name, "%s", name);
    t->priority = t->mcp = 100 + i;
    t->criticality = crit;
    t->timeout_endpoint = SCN_NONE;
    t->prog_first = 5; /* a lone compute step */
    t->prog_count = 1;
    if (period) {
        t->sc = (struct scn_context){
            .present = true, .sporadic = sporadic, .budget = budget, .period = period};
        t->has_deadline = true;
        t->deadline = period;
    } else {
        t->passive = true;
    }
}

/* net_driver's program: loop [wait net_rx, job [compute], irq_ack net]. */
static void fx_program(struct fx *f)
{
    f->steps[0] = (struct scn_step){.kind = STEP_LOOP, .body_first = 1, .body_count = 3};
    f->steps[1] = (struct scn_step){.kind = STEP_WAIT, .object = 0};
    f->steps[2] = (struct scn_step){.kind = STEP_JOB, .body_first = 4, .body_count = 1};
    f->steps[3] = (struct scn_step){.kind = STEP_IRQ_ACK, .object = NET};
    f->steps[4] = (struct scn_step){.kind = STEP_COMPUTE, .min = 120, .max = 120};
    f->steps[5] = (struct scn_step){.kind = STEP_COMPUTE, .min = 10, .max = 10};
    f->threads[3].prog_first = 0;
    f->s.steps = f->steps;
    f->s.n_steps = 6;
}

/* Levels lo, hi. control (hi, 2000/10000), logger (lo, sporadic
 * 1000/5000), server (hi, passive), net_driver (hi, 500/10000);
 * notifications net_rx (200/1000) and tick; devices net -> net_rx, disk ->
 * tick. The run is begun in an in-memory database. */
void fx_begin_hz(struct fx *f, uint8_t scheduler, cycles_t duration, uint64_t timer_hz)
{
    struct scenario *s = &f->s;
    struct sink_run_meta meta = {
        .hal = "sim", .version = "test", .duration = duration, .scheduler = scheduler};
    char err[DB_ERRMSG_MAX];

    memset(f, 0, sizeof *f);
    snprintf(s->name, sizeof s->name, "expect");
    s->duration = duration;
    s->cpu_hz = 1000000000;
    s->timer_hz = timer_hz;
    s->scheduler = scheduler;
    s->priorities = 256;
    s->n_levels = 2;
    snprintf(s->levels[0], SCN_NAME_MAX, "lo");
    snprintf(s->levels[1], SCN_NAME_MAX, "hi");
    fx_thread(f, 0, "control", 1, 2000, 10000, false);
    fx_thread(f, 1, "logger", 0, 1000, 5000, true);
    fx_thread(f, 2, "server", 1, 0, 0, false);
    fx_thread(f, 3, "net_driver", 1, 500, 10000, false);
    s->threads = f->threads;
    s->n_threads = 4;
    fx_program(f);
    snprintf(f->ntfns[0].name, SCN_NAME_MAX, "net_rx");
    f->ntfns[0].sc = (struct scn_context){.present = true, .budget = 200, .period = 1000};
    snprintf(f->ntfns[1].name, SCN_NAME_MAX, "tick");
    s->notifications = f->ntfns;
    s->n_notifications = 2;
    f->devices[NET] = (struct scn_device){.name = "net", .irq = 33, .notification = 0};
    f->devices[DISK] = (struct scn_device){.name = "disk", .irq = 34, .notification = 1};
    s->devices = f->devices;
    s->n_devices = 2;
    s->expects = f->expects;
    s->thread_refs = f->refs;
    if (db_open(":memory:", &f->db, err, sizeof err) != 0)
        fail_msg("%s", err);
    f->k = db_sink(f->db, 0);
    f->allowance = ALLOWANCE;
    assert_int_equal(f->k.ops->run_begin(f->k.self, s, &meta), 0);
}

void fx_begin(struct fx *f, uint8_t scheduler, cycles_t duration)
{
    fx_begin_hz(f, scheduler, duration, 1000000000);
}

void fx_end(struct fx *f)
{
    db_close(f->db);
}

void fx_job(struct fx *f, uint32_t thread, uint32_t job, cycles_t release, cycles_t finish,
                   cycles_t deadline)
{
    struct sink_job r = {.thread = thread,
                         .job = job,
                         .release = release,
                         .start = release,
                         .finish = finish,
                         .deadline = deadline,
                         .response = finish == SINK_NO_TIME ? SINK_NO_TIME : finish - release,
                         .missed = finish != SINK_NO_TIME && finish > deadline};

    assert_int_equal(f->k.ops->job(f->k.self, &r), 0);
}

void fx_slice(struct fx *f, uint32_t thread, uint32_t sc, cycles_t start, cycles_t end)
{
    struct sink_slice r = {thread, sc, SINK_NO_THREAD, start, end};

    assert_int_equal(f->k.ops->slice(f->k.self, &r), 0);
}

void fx_ntfn_slice(struct fx *f, uint32_t ntfn, cycles_t start, cycles_t end)
{
    struct sink_slice r = {NET_DRIVER, SINK_NO_THREAD, ntfn, start, end};

    assert_int_equal(f->k.ops->slice(f->k.self, &r), 0);
}

void fx_budget(struct fx *f, uint32_t thread, uint32_t sc, cycles_t time,
                      enum sink_budget_kind kind, uint64_t amount)
{
    struct sink_budget_event r = {thread, sc, time, kind, amount};

    assert_int_equal(f->k.ops->budget_event(f->k.self, &r), 0);
}

void fx_event(struct fx *f, const char *kind, uint32_t thread, cycles_t time)
{
    struct sink_event r = {.seq = time, .time = time, .kind = kind, .thread = thread};

    assert_int_equal(f->k.ops->event(f->k.self, &r), 0);
}

void fx_irq(struct fx *f, uint32_t device, cycles_t arrival, cycles_t delivered, bool lost)
{
    struct sink_irq r = {device, 33 + device, arrival, delivered, lost, SINK_NO_THREAD,
                         SINK_NO_TIME};

    assert_int_equal(f->k.ops->irq(f->k.self, &r), 0);
}

/* Append an expectation; its filters default to "none". */
struct scn_expect *fx_expect(struct fx *f, enum scn_expect_kind kind, const char *text)
{
    struct scn_expect *e = &f->expects[f->s.n_expects++];

    assert_true(f->s.n_expects <= MAX_EXPECTS);
    *e = (struct scn_expect){.kind = kind,
                             .scheduler = SCN_ANY_SCHEDULER,
                             .criticality = SCN_NONE,
                             .thread = SCN_NONE,
                             .device = SCN_NONE};
    snprintf(e->text, sizeof e->text, "%s", text);
    return e;
}

struct scn_expect *fx_deadlines(struct fx *f, bool met, const char *text, int n, ...)
{
    struct scn_expect *e = fx_expect(f, met ? EXPECT_DEADLINES_MET : EXPECT_DEADLINES_MISSED, text);
    va_list ap;

    e->thread_first = f->s.n_thread_refs;
    e->thread_count = (uint32_t)n;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        f->refs[f->s.n_thread_refs++] = (uint32_t)va_arg(ap, int) - 1;
    va_end(ap);
    return e;
}

struct scn_expect *fx_count(struct fx *f, enum scn_count_event ev, uint32_t thread,
                                   uint32_t device, const char *text)
{
    struct scn_expect *e = fx_expect(f, EXPECT_COUNT, text);

    e->event = ev;
    e->thread = thread ? thread - 1 : SCN_NONE;
    e->device = device;
    return e;
}

void at_least(struct scn_expect *e, uint64_t n)
{
    e->has_at_least = true;
    e->at_least = n;
}

void at_most(struct scn_expect *e, uint64_t n)
{
    e->has_at_most = true;
    e->at_most = n;
}

void fx_eval(struct fx *f)
{
    char err[512] = "";

    if (expect_evaluate(db_sqlite(f->db), db_run_id(f->db), &f->s, f->allowance, f->results, err,
                        sizeof err) != 0)
        fail_msg("expect_evaluate: %s", err);
}

/* Verdict i is `verdict` ("PASS", "FAIL", "N/A") with this detail. */
void assert_verdict(const struct fx *f, uint32_t i, const char *verdict, const char *detail)
{
    const struct expect_result *r = &f->results[i];
    const char *got = !r->applicable ? "N/A" : r->passed ? "PASS" : "FAIL";

    if (strcmp(got, verdict) != 0 || strcmp(r->detail, detail) != 0)
        fail_msg("expectation %u (%s):\nexpected: %s (%s)\nactual:   %s (%s)", i,
                 f->expects[i].text, verdict, detail, got, r->detail);
}

void fx_budget_expect(struct fx *f)
{
    fx_expect(f, EXPECT_BUDGET_RESPECTED, "budget: respected");
}

int fx_setup(void **state)
{
    *state = calloc(1, sizeof(struct fx));
    return *state ? 0 : -1;
}

int fx_teardown(void **state)
{
    free(*state);
    return 0;
}
