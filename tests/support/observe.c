/*
 * The observing sink (observe.h): every op succeeds; jobs and interrupts
 * are folded into per-thread and per-device figures as they arrive.
 */
#include "observe.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"

static int ok_begin(void *self, const struct scenario *s, const struct sink_run_meta *m)
{
    (void)self, (void)s, (void)m;
    return 0;
}
static int ok_slice(void *self, const struct sink_slice *r)
{
    (void)self, (void)r;
    return 0;
}
static int ok_budget(void *self, const struct sink_budget_event *r)
{
    (void)self, (void)r;
    return 0;
}
static int ok_event(void *self, const struct sink_event *r)
{
    (void)self, (void)r;
    return 0;
}
static int ok_expect(void *self, const struct sink_expectation *r)
{
    (void)self, (void)r;
    return 0;
}
static int ok_end(void *self, bool finished)
{
    (void)self, (void)finished;
    return 0;
}

static int on_job(void *self, const struct sink_job *r)
{
    struct observed *o = self;
    struct observed_thread *t;
    if (r->thread == 0 || r->thread > o->n_threads)
        return 0; /* the root task */
    t = &o->threads[r->thread - 1];
    if (r->finish == SINK_NO_TIME) {
        if (t->oldest_open == SINK_NO_TIME || r->release < t->oldest_open)
            t->oldest_open = r->release;
        return 0;
    }
    if (t->jobs == 0)
        t->first = r->response;
    t->jobs++;
    if (r->response > t->worst)
        t->worst = r->response;
    return 0;
}

static int on_irq(void *self, const struct sink_irq *r)
{
    struct observed *o = self;
    if (r->lost && r->device < o->n_devices)
        o->lost[r->device]++;
    return 0;
}

static const struct trace_sink_ops observe_ops = {
    .run_begin = ok_begin,
    .slice = ok_slice,
    .job = on_job,
    .budget_event = ok_budget,
    .irq = on_irq,
    .event = ok_event,
    .expectation = ok_expect,
    .run_end = ok_end,
};

int observe_run(const struct scenario *s, uint8_t scheduler, uint64_t seed, struct observed *o,
                cycles_t *end)
{
    struct eng_options opt = {
        .seed = seed,
        .duration = s->duration,
        .scheduler = scheduler,
        .version = "test",
    };
    struct eng_result r;
    memset(o, 0, sizeof *o);
    o->n_threads = s->n_threads;
    o->n_devices = s->n_devices;
    o->threads = calloc(s->n_threads ? s->n_threads : 1, sizeof *o->threads);
    o->lost = calloc(s->n_devices ? s->n_devices : 1, sizeof *o->lost);
    if (!o->threads || !o->lost) {
        observe_release(o);
        return -1;
    }
    for (uint32_t i = 0; i < s->n_threads; i++) {
        o->threads[i].first = SINK_NO_TIME;
        o->threads[i].oldest_open = SINK_NO_TIME;
    }
    opt.sink.ops = &observe_ops;
    opt.sink.self = o;
    if (eng_run(s, &opt, &r) != ENG_OK) {
        observe_release(o);
        return -1;
    }
    *end = r.end;
    return 0;
}

void observe_release(struct observed *o)
{
    free(o->threads);
    free(o->lost);
    memset(o, 0, sizeof *o);
}
