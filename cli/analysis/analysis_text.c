/*
 * The analysis result for people: verdict names, the bound's composition
 * in one line, and the result's lifecycle (analysis.h).
 */
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"

const char *analysis_verdict_name(enum analysis_verdict v)
{
    switch (v) {
    case ANALYSIS_SCHEDULABLE:
        return "schedulable";
    case ANALYSIS_UNSCHEDULABLE:
        return "unschedulable";
    case ANALYSIS_UNKNOWN:
        return "unknown";
    case ANALYSIS_NO_JOBS:
        return "no jobs";
    }
    return "?";
}

bool analysis_all_schedulable(const struct analysis_result *r)
{
    for (uint32_t i = 0; i < r->n_threads; i++) {
        const struct analysis_thread *t = &r->threads[i];
        if (t->has_deadline && t->verdict != ANALYSIS_NO_JOBS &&
            t->verdict != ANALYSIS_SCHEDULABLE)
            return false;
    }
    return true;
}

void analysis_release(struct analysis_result *r)
{
    free(r->threads);
    memset(r, 0, sizeof *r);
}

/* Append to buf at *at, keeping track of the length needed. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, const char *a, const char *b)
{
    int n = snprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, a, b);
    if (n > 0)
        *at += (size_t)n;
}

int analysis_compose(const struct scenario *s, const struct analysis_thread *t, char *buf,
                     size_t len)
{
    char d[DEC_BUF];
    size_t at = 0;
    if (len > 0)
        buf[0] = '\0';
    if (t->verdict == ANALYSIS_NO_JOBS || t->bound == ANALYSIS_NO_BOUND) {
        put(buf, len, &at, "%s%s", "no bound: ", t->reason[0] ? t->reason : "not modelled");
        return (int)at;
    }
    dec_duration(d, sizeof d, t->bound, s->cpu_hz);
    put(buf, len, &at, "%s =%s", d, "");
    for (uint32_t k = 0; k < t->n_terms; k++) {
        const struct analysis_term *m = &t->terms[k];
        dec_duration(d, sizeof d, m->cycles, s->cpu_hz);
        put(buf, len, &at, k ? " + %s" : " %s", d, "");
        put(buf, len, &at, " %s%s", m->text, "");
    }
    if (t->later_release > 0) {
        char q[32];
        dec_duration(d, sizeof d, t->later_release, s->cpu_hz);
        snprintf(q, sizeof q, "%llu", (unsigned long long)t->worst_job);
        put(buf, len, &at, " - %s (job %s", d, q);
        put(buf, len, &at, " of the busy window, released %s after the first)", d, "");
    }
    return (int)at;
}
