/*
 * The null trace sink (null_sink.h). Each op ignores its arguments; the
 * ops table is shared and constant.
 */
#include "null_sink.h"

#include <stddef.h>

static int null_run_begin(void *self, const struct scenario *s, const struct sink_run_meta *m)
{
    (void)self, (void)s, (void)m;
    return 0;
}

static int null_slice(void *self, const struct sink_slice *r)
{
    (void)self, (void)r;
    return 0;
}

static int null_job(void *self, const struct sink_job *r)
{
    (void)self, (void)r;
    return 0;
}

static int null_budget_event(void *self, const struct sink_budget_event *r)
{
    (void)self, (void)r;
    return 0;
}

static int null_irq(void *self, const struct sink_irq *r)
{
    (void)self, (void)r;
    return 0;
}

static int null_event(void *self, const struct sink_event *r)
{
    (void)self, (void)r;
    return 0;
}

static int null_expectation(void *self, const struct sink_expectation *r)
{
    (void)self, (void)r;
    return 0;
}

static int null_run_end(void *self, bool finished)
{
    (void)self, (void)finished;
    return 0;
}

const struct trace_sink_ops null_sink_ops = {
    .run_begin = null_run_begin,
    .slice = null_slice,
    .job = null_job,
    .budget_event = null_budget_event,
    .irq = null_irq,
    .event = null_event,
    .expectation = null_expectation,
    .run_end = null_run_end,
};

struct trace_sink null_sink(void)
{
    return (struct trace_sink){.ops = &null_sink_ops, .self = NULL};
}

bool null_sink_is(struct trace_sink k)
{
    return k.ops == &null_sink_ops;
}
