/*
 * The sink that accumulates the run's accounting on the rows' way to the
 * database (tacc_sink.h).
 */
#include "tacc_sink.h"

#include "scenario.h"

static int tee_run_begin(void *self, const struct scenario *s, const struct sink_run_meta *m)
{
    struct tacc_tee *t = self;
    int rc = t->inner.ops->run_begin(t->inner.self, s, m);

    tacc_tee_release(t);
    if (rc == 0 && tacc_init(&t->acc, s->n_threads + 1, m->duration) == 0)
        t->begun = true;
    return rc;
}

#define TEE(op, type, feed)                                                                        \
    static int tee_##op(void *self, const type *r)                                                 \
    {                                                                                              \
        struct tacc_tee *t = self;                                                                 \
        int rc = t->inner.ops->op(t->inner.self, r);                                               \
                                                                                                   \
        if (rc == 0 && t->begun)                                                                   \
            feed(&t->acc, r);                                                                      \
        return rc;                                                                                 \
    }
TEE(slice, struct sink_slice, tacc_slice)
TEE(job, struct sink_job, tacc_job)
TEE(budget_event, struct sink_budget_event, tacc_budget)
TEE(irq, struct sink_irq, tacc_irq)
TEE(event, struct sink_event, tacc_event)
#undef TEE

#define PASS(op, type)                                                                             \
    static int tee_##op(void *self, const type *r)                                                 \
    {                                                                                              \
        struct tacc_tee *t = self;                                                                 \
                                                                                                   \
        return t->inner.ops->op ? t->inner.ops->op(t->inner.self, r) : 0;                          \
    }
PASS(refill, struct sink_refill)
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
