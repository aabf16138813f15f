/*
 * analysis_run(): the analysis of a whole scenario (analysis.h,
 * docs/analysis.md). NEEDSWORK: first version, every thread is reported
 * unknown until the model lands; the interface is final.
 */
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int analysis_run(const struct scenario *s, uint8_t scheduler, struct analysis_result *r)
{
    memset(r, 0, sizeof *r);
    r->scheduler = scheduler;
    r->threads = calloc(s->n_threads ? s->n_threads : 1, sizeof *r->threads);
    if (!r->threads)
        return -1;
    r->n_threads = s->n_threads;
    for (uint32_t i = 0; i < s->n_threads; i++) {
        struct analysis_thread *t = &r->threads[i];
        t->thread = i;
        t->verdict = ANALYSIS_UNKNOWN;
        t->bound = ANALYSIS_NO_BOUND;
        t->has_deadline = s->threads[i].has_deadline;
        t->deadline = s->threads[i].deadline;
        snprintf(t->reason, sizeof t->reason, "not modelled yet");
        if (t->has_deadline)
            r->n_unknown++;
    }
    return 0;
}
