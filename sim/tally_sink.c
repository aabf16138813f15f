/*
 * The tally sink (tally_sink.h): the null sink with a job op that counts.
 */
#include "tally_sink.h"

#include <stdlib.h>
#include <string.h>

#include "null_sink.h"

static int tally_job(void *self, const struct sink_job *r)
{
    struct tally *t = self;
    struct tally_thread *th;
    if (r->thread == 0 || r->thread > t->n_threads)
        return 0;
    th = &t->threads[r->thread - 1];
    th->jobs++;
    th->missed += r->missed;
    if (r->finish == SINK_NO_TIME)
        th->unfinished++;
    else if (r->response > th->worst)
        th->worst = r->response;
    return 0;
}

int tally_init(struct tally *t, uint32_t n_threads)
{
    memset(t, 0, sizeof *t);
    t->threads = calloc(n_threads ? n_threads : 1, sizeof *t->threads);
    if (!t->threads)
        return -1;
    t->n_threads = n_threads;
    t->ops = null_sink_ops;
    t->ops.job = tally_job;
    return 0;
}

void tally_reset(struct tally *t)
{
    memset(t->threads, 0, t->n_threads * sizeof *t->threads);
}

struct trace_sink tally_sink(struct tally *t)
{
    return (struct trace_sink){.ops = &t->ops, .self = t};
}

void tally_release(struct tally *t)
{
    free(t->threads);
    memset(t, 0, sizeof *t);
}
