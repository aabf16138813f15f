/*
 * The analysis for people and programs (analysis.h): a table per thread
 * with the bound's composition, and exactly one JSON object. Only
 * integers and fixed text are printed, so the output is the same on every
 * machine.
 */
#include "analysis/analysis.h"

#include <stdio.h>
#include <string.h>

#include <mcsim/bootinfo.h>

#include "util/decimal.h"

static const char *sched_name(uint8_t s)
{
    return s == SCHED_CLASSIC ? "classic" : "mcs";
}

static void duration(char *buf, size_t len, const struct scenario *s, cycles_t c)
{
    if (c == ANALYSIS_NO_BOUND)
        snprintf(buf, len, "-");
    else
        dec_duration(buf, len, c, s->cpu_hz);
}

void analysis_print_table(FILE *f, const struct scenario *s, const struct analysis_result *r)
{
    char work[DEC_BUF], bound[DEC_BUF], dl[DEC_BUF], slack[DEC_BUF], line[1024];
    fprintf(f, "analysis of %s under %s (bounds on the response time of every job)\n", s->name,
            sched_name(r->scheduler));
    fprintf(f, "  %-16s %4s %-5s %10s %10s %10s %10s  %s\n", "thread", "prio", "crit", "work",
            "bound", "deadline", "slack", "verdict");
    for (uint32_t i = 0; i < r->n_threads; i++) {
        const struct analysis_thread *t = &r->threads[i];
        const struct scn_thread *th = &s->threads[i];
        duration(work, sizeof work, s, t->verdict == ANALYSIS_NO_JOBS ? ANALYSIS_NO_BOUND : t->work);
        duration(bound, sizeof bound, s, t->bound);
        duration(dl, sizeof dl, s, t->has_deadline ? t->deadline : ANALYSIS_NO_BOUND);
        if (t->bound != ANALYSIS_NO_BOUND && t->has_deadline && t->bound <= t->deadline)
            duration(slack, sizeof slack, s, t->deadline - t->bound);
        else if (t->bound != ANALYSIS_NO_BOUND && t->has_deadline) {
            dec_duration(slack + 1, sizeof slack - 1, t->bound - t->deadline, s->cpu_hz);
            slack[0] = '-';
        } else
            snprintf(slack, sizeof slack, "-");
        fprintf(f, "  %-16s %4u %-5s %10s %10s %10s %10s  %s\n", th->name, th->priority,
                s->levels[th->criticality], work, bound, dl, slack,
                analysis_verdict_name(t->verdict));
    }
    for (uint32_t i = 0; i < r->n_threads; i++) {
        const struct analysis_thread *t = &r->threads[i];
        analysis_compose(s, t, line, sizeof line);
        fprintf(f, "  %s: %s\n", s->threads[i].name, line);
        if (t->reason[0] && t->bound != ANALYSIS_NO_BOUND)
            fprintf(f, "  %*s  note: %s\n", (int)strlen(s->threads[i].name), "", t->reason);
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_cycles(FILE *f, bool present, cycles_t c)
{
    if (present && c != ANALYSIS_NO_BOUND)
        fprintf(f, "%llu", (unsigned long long)c);
    else
        fputs("null", f);
}

static const char *const term_kinds[] = {
    [TERM_OWN] = "own",         [TERM_INTERFERENCE] = "interference",
    [TERM_BLOCKING] = "blocking", [TERM_BUDGET] = "budget",
    [TERM_KERNEL] = "kernel",
};

static void json_thread(FILE *f, const struct scenario *s, const struct analysis_thread *t)
{
    const struct scn_thread *th = &s->threads[t->thread];
    bool jobs = t->verdict != ANALYSIS_NO_JOBS;
    fputs("{\"name\": ", f);
    json_str(f, th->name);
    fprintf(f, ", \"priority\": %u, \"criticality\": ", th->priority);
    json_str(f, s->levels[th->criticality]);
    fputs(", \"work\": ", f);
    json_cycles(f, jobs, t->work);
    fputs(", \"bound\": ", f);
    json_cycles(f, jobs, t->bound);
    fputs(", \"deadline\": ", f);
    json_cycles(f, t->has_deadline, t->deadline);
    fprintf(f, ", \"schedulable\": %s, \"reason\": ",
            t->verdict == ANALYSIS_SCHEDULABLE     ? "true"
            : t->verdict == ANALYSIS_UNSCHEDULABLE ? "false"
                                                   : "null");
    json_str(f, t->reason);
    fputs(", \"verdict\": ", f);
    json_str(f, analysis_verdict_name(t->verdict));
    fprintf(f, ", \"may_throttle\": %s, \"may_lose_irq\": %s, \"worst_job\": %llu, "
               "\"later_release\": %llu, \"terms\": [",
            t->may_throttle ? "true" : "false", t->may_lose_irq ? "true" : "false",
            (unsigned long long)t->worst_job, (unsigned long long)t->later_release);
    for (uint32_t k = 0; k < t->n_terms; k++) {
        fprintf(f, "%s{\"kind\": \"%s\", \"cycles\": %llu, \"text\": ", k ? ", " : "",
                term_kinds[t->terms[k].kind], (unsigned long long)t->terms[k].cycles);
        json_str(f, t->terms[k].text);
        fputc('}', f);
    }
    fputs("]}", f);
}

void analysis_print_json(FILE *f, const struct scenario *s, const struct analysis_result *r)
{
    fputs("{\"scenario\": ", f);
    json_str(f, s->name);
    fprintf(f, ", \"scheduler\": \"%s\", \"threads\": [", sched_name(r->scheduler));
    for (uint32_t i = 0; i < r->n_threads; i++) {
        fputs(i ? ", " : "", f);
        json_thread(f, s, &r->threads[i]);
    }
    fprintf(f, "], \"schedulable\": %u, \"unschedulable\": %u, \"unknown\": %u}\n",
            r->n_schedulable, r->n_unschedulable, r->n_unknown);
}

uint32_t analysis_print_against(FILE *f, const struct scenario *s,
                                const struct analysis_result *r, const cycles_t *observed)
{
    char bound[DEC_BUF], seen[DEC_BUF];
    uint32_t over = 0;
    fprintf(f, "analysis (%s): bound and observed worst response per thread\n",
            sched_name(r->scheduler));
    for (uint32_t i = 0; i < r->n_threads; i++) {
        const struct analysis_thread *t = &r->threads[i];
        bool exceeds = t->bound != ANALYSIS_NO_BOUND && observed[i] != ANALYSIS_NO_BOUND &&
                       observed[i] > t->bound;
        if (t->verdict == ANALYSIS_NO_JOBS)
            continue;
        duration(bound, sizeof bound, s, t->bound);
        duration(seen, sizeof seen, s, observed[i]);
        fprintf(f, "  %-16s bound %10s  observed %10s  %s%s\n", s->threads[i].name, bound, seen,
                analysis_verdict_name(t->verdict), exceeds ? "  EXCEEDS THE BOUND" : "");
        over += exceeds;
    }
    return over;
}
