/*
 * The sink that accumulates the run's accounting on the rows' way to the
 * database (tacc_sink.h).
 */
#include "tacc_sink.h"

#include <stdlib.h>

#include "scenario.h"

/* The window checks of the run begun, as the tee was asked. */
static void win_begin(struct tacc_tee *t, const struct scenario *s, cycles_t duration)
{
    if (!t->want.budget && !t->want.fragment)
        return;
    t->acc.win = malloc(sizeof *t->acc.win);
    if (!t->acc.win || twin_init_scenario(t->acc.win, s, duration, &t->want) != 0) {
        free(t->acc.win);
        t->acc.win = NULL;
        t->acc.failed = true;
    }
}

static int tee_run_begin(void *self, const struct scenario *s, const struct sink_run_meta *m)
{
    struct tacc_tee *t = self;
    int rc = t->inner.ops->run_begin(t->inner.self, s, m);

    tacc_tee_release(t);
    if (rc == 0 && tacc_init(&t->acc, s->n_threads + 1, s->n_devices, m->duration) == 0) {
        t->acc.ordered = true; /* the recorder's order (tacc.h) */
        t->begun = true;
        win_begin(t, s, m->duration);
    }
    return rc;
}

/* The window checks' feeds: a slice is written when it ends, and every
 * row after it lies at or after its end (twin.h). */
static void win_slice(struct tacc *a, const struct sink_slice *r)
{
    tacc_slice(a, r);
    if (a->win) {
        twin_slice(a->win, r);
        twin_advance(a->win, r->end);
    }
}

static void win_budget(struct tacc *a, const struct sink_budget_event *r)
{
    tacc_budget(a, r);
    if (a->win)
        twin_budget(a->win, r);
}

static void win_event(struct tacc *a, const struct sink_event *r)
{
    tacc_event(a, r);
    if (a->win)
        twin_event(a->win, r);
}

static void win_refill(struct tacc *a, const struct sink_refill *r)
{
    if (a->win)
        twin_refill(a->win, r);
}

#define TEE(op, type, feed)                                                                        \
    static int tee_##op(void *self, const type *r)                                                 \
    {                                                                                              \
        struct tacc_tee *t = self;                                                                 \
        int rc = t->inner.ops->op ? t->inner.ops->op(t->inner.self, r) : 0;                        \
                                                                                                   \
        if (rc == 0 && t->begun)                                                                   \
            feed(&t->acc, r);                                                                      \
        return rc;                                                                                 \
    }
TEE(slice, struct sink_slice, win_slice)
TEE(job, struct sink_job, tacc_job)
TEE(budget_event, struct sink_budget_event, win_budget)
TEE(irq, struct sink_irq, tacc_irq)
TEE(event, struct sink_event, win_event)
TEE(refill, struct sink_refill, win_refill)
#undef TEE

#define PASS(op, type)                                                                             \
    static int tee_##op(void *self, const type *r)                                                 \
    {                                                                                              \
        struct tacc_tee *t = self;                                                                 \
                                                                                                   \
        return t->inner.ops->op ? t->inner.ops->op(t->inner.self, r) : 0;                          \
    }
PASS(expectation, struct sink_expectation)
PASS(final_refill, struct sink_final_refill)
PASS(kernel_stats, struct sink_kernel_stats)
#undef PASS

static int tee_run_end(void *self, bool finished)
{
    struct tacc_tee *t = self;
    int rc = t->inner.ops->run_end(t->inner.self, finished);

    if (t->begun) {
        tacc_end(&t->acc);
        if (t->acc.win)
            twin_end(t->acc.win);
        t->complete = rc == 0 && finished && !t->acc.failed;
    }
    return rc;
}

static const struct trace_sink_ops tee_ops = {
    .run_begin = tee_run_begin,
    .slice = tee_slice,
    .job = tee_job,
    .budget_event = tee_budget_event,
    .irq = tee_irq,
    .event = tee_event,
    .refill = tee_refill,
    .expectation = tee_expectation,
    .final_refill = tee_final_refill,
    .kernel_stats = tee_kernel_stats,
    .run_end = tee_run_end,
};

struct trace_sink tacc_tee_sink(struct tacc_tee *t, struct trace_sink inner)
{
    *t = (struct tacc_tee){.inner = inner};
    return (struct trace_sink){.ops = &tee_ops, .self = t};
}

void tacc_tee_want(struct tacc_tee *t, const struct twin_want *want)
{
    t->want = *want;
}

const struct tacc *tacc_tee_result(const struct tacc_tee *t)
{
    return t->begun && t->complete ? &t->acc : NULL;
}

void tacc_tee_release(struct tacc_tee *t)
{
    if (t->begun)
        tacc_release(&t->acc);
    t->begun = t->complete = false;
}
