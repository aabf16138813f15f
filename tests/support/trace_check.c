/*
 * The Trace Event Format's rules (trace_check.h). Events are read once
 * into records; each rule is then a pass over them (tests' traces are
 * thousands of events: the passes are simple rather than fast).
 */
#include "trace_check.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 ps_t; /* picoseconds */

struct rec {
    size_t index; /* in traceEvents */
    char ph;
    double pid, tid; /* tid: NAN-free; has_tid says whether it was there */
    bool has_tid;
    const char *name, *cat;
    double id;
    bool has_id, enclosing; /* "bp":"e" */
    ps_t ts, dur;
};

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* A JSON number of microseconds as picoseconds (decimals past the 6th
 * dropped); false if it is not a plain decimal. */
static bool to_ps(const struct json *v, ps_t *out)
{
    ps_t whole = 0, frac = 0;
    int places = 0;
    const char *p;

    if (v == NULL || v->type != JSON_NUMBER || v->text[0] == '-')
        return false;
    for (p = v->text; *p >= '0' && *p <= '9'; p++)
        whole = whole * 10 + (*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            if (places < 6) {
                frac = frac * 10 + (*p - '0');
                places++;
            }
    if (*p != '\0')
        return false;
    while (places++ < 6)
        frac *= 10;
    *out = whole * 1000000 + frac;
    return true;
}

static bool has_null(const struct json *v)
{
    if (v->type == JSON_NULL)
        return true;
    for (size_t i = 0; (v->type == JSON_ARRAY || v->type == JSON_OBJECT) && i < v->count; i++)
        if (has_null(v->items[i]))
            return true;
    return false;
}

static const char *text_of(const struct json *e, const char *key)
{
    const struct json *m = json_get(e, key);
    return m && m->type == JSON_STRING ? m->text : NULL;
}

static double number_of(const struct json *e, const char *key, bool *present)
{
    const struct json *m = json_get(e, key);
    *present = m && m->type == JSON_NUMBER;
    return *present ? m->number : 0;
}

/* Read event i into r; -1 if a member it must have is missing. */
static int read_event(const struct json *e, size_t i, struct rec *r, char *err, size_t len)
{
    const char *ph = text_of(e, "ph");
    bool has_pid;

    memset(r, 0, sizeof *r);
    r->index = i;
    if (e->type != JSON_OBJECT || ph == NULL || strlen(ph) != 1 || text_of(e, "name") == NULL)
        return fail(err, len, "event %zu: no name or phase", i);
    if (has_null(e))
        return fail(err, len, "event %zu (%s): a null member", i, text_of(e, "name"));
    r->ph = ph[0];
    r->name = text_of(e, "name");
    r->cat = text_of(e, "cat") ? text_of(e, "cat") : "";
    r->pid = number_of(e, "pid", &has_pid);
    r->tid = number_of(e, "tid", &r->has_tid);
    r->id = number_of(e, "id", &r->has_id);
    r->enclosing = text_of(e, "bp") && strcmp(text_of(e, "bp"), "e") == 0;
    if (!has_pid)
        return fail(err, len, "event %zu (%s): no pid", i, r->name);
    if (r->ph != 'M' && !to_ps(json_get(e, "ts"), &r->ts))
        return fail(err, len, "event %zu (%s): no ts, or not a time", i, r->name);
    if (r->ph == 'X' && !to_ps(json_get(e, "dur"), &r->dur))
        return fail(err, len, "event %zu (%s): an X event needs a dur >= 0", i, r->name);
    if ((r->ph == 's' || r->ph == 'f') && !r->has_id)
        return fail(err, len, "event %zu (%s): a flow event needs an id", i, r->name);
    return 0;
}

/* Same track: pid and tid; a counter's, pid and name. */
static bool same_track(const struct rec *a, const struct rec *b)
{
    if (a->pid != b->pid || (a->ph == 'C') != (b->ph == 'C'))
        return false;
    if (a->ph == 'C')
        return strcmp(a->name, b->name) == 0;
    return a->has_tid == b->has_tid && a->tid == b->tid;
}

/* ts monotonic per track, B/E matched, X spans nested: one pass per track
 * (each record starts the pass of its track if none did before it). */
static int check_track(const struct rec *r, size_t n, size_t first, char *err, size_t len)
{
    ps_t *stack = malloc((n + 1) * sizeof *stack);
    size_t depth = 0;
    long open = 0;
    ps_t last = 0;
    int rc = 0;

    for (size_t i = first; rc == 0 && i < n; i++) {
        if (r[i].ph == 'M' || !same_track(&r[first], &r[i]))
            continue;
        if (r[i].ts < last)
            rc = fail(err, len, "event %zu (%s): ts goes back on its track", r[i].index,
                      r[i].name);
        last = r[i].ts;
        if (r[i].ph == 'B')
            open++;
        if (r[i].ph == 'E' && --open < 0)
            rc = fail(err, len, "event %zu (%s): an E without its B", r[i].index, r[i].name);
        if (r[i].ph == 'X') {
            while (depth > 0 && stack[depth - 1] <= r[i].ts)
                depth--;
            if (depth > 0 && r[i].ts + r[i].dur > stack[depth - 1])
                rc = fail(err, len, "event %zu (%s): X overlaps an earlier span of its track",
                          r[i].index, r[i].name);
            stack[depth++] = r[i].ts + r[i].dur;
        }
    }
    if (rc == 0 && open > 0)
        rc = fail(err, len, "event %zu (%s): a B never ended", r[first].index, r[first].name);
    free(stack);
    return rc;
}

/* A flow end's span: enclosing its ts, or starting at or after it. */
static bool bound(const struct rec *r, size_t n, const struct rec *end)
{
    bool enclosing = end->ph == 's' || end->enclosing;
    for (size_t i = 0; i < n; i++)
        if (r[i].ph == 'X' && r[i].pid == end->pid && r[i].has_tid && r[i].tid == end->tid &&
            (enclosing ? r[i].ts <= end->ts && end->ts <= r[i].ts + r[i].dur
                       : r[i].ts >= end->ts))
            return true;
    return false;
}

static int check_flows(const struct rec *r, size_t n, size_t *flows, char *err, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        size_t s = 0, f = 0, si = i, fi = i;
        if (r[i].ph != 's' && r[i].ph != 'f')
            continue;
        for (size_t k = 0; k < n; k++)
            if ((r[k].ph == 's' || r[k].ph == 'f') && r[k].id == r[i].id &&
                strcmp(r[k].cat, r[i].cat) == 0) {
                if (r[k].ph == 's')
                    s++, si = k;
                else
                    f++, fi = k;
            }
        if (s != 1 || f != 1)
            return fail(err, len, "event %zu: flow %s/%.0f has %zu starts and %zu ends",
                        r[i].index, r[i].cat, r[i].id, s, f);
        if (r[fi].ts < r[si].ts)
            return fail(err, len, "event %zu: flow %s/%.0f ends before it starts", r[fi].index,
                        r[i].cat, r[i].id);
        if (!bound(r, n, &r[i]))
            return fail(err, len, "event %zu: flow %s/%.0f's '%c' is bound to no span",
                        r[i].index, r[i].cat, r[i].id, r[i].ph);
        *flows += r[i].ph == 's';
    }
    return 0;
}

int trace_check(const struct json *trace, struct trace_counts *n, char *err, size_t err_len)
{
    const struct json *ev = json_get(trace, "traceEvents");
    struct rec *r;
    int rc = 0;

    memset(n, 0, sizeof *n);
    if (ev == NULL || ev->type != JSON_ARRAY)
        return fail(err, err_len, "no traceEvents array");
    r = calloc(ev->count + 1, sizeof *r);
    for (size_t i = 0; rc == 0 && i < ev->count; i++)
        rc = read_event(ev->items[i], i, &r[i], err, err_len);
    for (size_t i = 0; rc == 0 && i < ev->count; i++) {
        bool seen = false;
        for (size_t k = 0; !seen && k < i; k++)
            seen = r[k].ph != 'M' && same_track(&r[k], &r[i]);
        if (r[i].ph != 'M' && !seen)
            rc = check_track(r, ev->count, i, err, err_len);
        n->spans += r[i].ph == 'X';
        n->instants += r[i].ph == 'i';
        n->counters += r[i].ph == 'C';
        n->metadata += r[i].ph == 'M';
    }
    if (rc == 0)
        rc = check_flows(r, ev->count, &n->flows, err, err_len);
    n->events = ev->count;
    free(r);
    return rc;
}
