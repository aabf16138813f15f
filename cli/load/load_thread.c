/*
 * The loader's threads: priorities, criticality, scheduling context or
 * passive, deadline, start, timeout endpoint and program
 * (docs/scenario-format.md, "threads").
 */
#include "load_int.h"

#include <stdio.h>
#include <string.h>

static const char *const thread_keys[] = {
    "priority",      "mcp",      "criticality", "budget", "period",
    "extra_refills", "sporadic", "deadline",    "start",  "timeout_endpoint",
    "passive",       "program",  "label",       NULL};

static void priorities(struct loader *l, const yaml_node_t *map, const char *what,
                       struct scn_thread *t)
{
    char field[128], expected[64];
    uint64_t v, top = l->s->priorities - 1;
    ld_whatf(expected, sizeof expected, "priority: a whole number from 0 to %llu",
             (unsigned long long)top);
    const yaml_node_t *n = ld_need(l, map, "priority", what, expected);
    ld_whatf(field, sizeof field, "priority of %s", what);
    if (n && ld_uint(l, n, field, 0, top, &v))
        t->priority = (uint32_t)v;
    t->mcp = t->priority;
    ld_whatf(field, sizeof field, "mcp of %s", what);
    if ((n = ld_get(l, map, "mcp")) != NULL && ld_uint(l, n, field, 0, top, &v))
        t->mcp = (uint32_t)v;
}

static void criticality(struct loader *l, const yaml_node_t *map, const char *what,
                        struct scn_thread *t)
{
    char field[128];
    const yaml_node_t *n =
        ld_need(l, map, "criticality", what, "criticality: one of the criticality levels");
    ld_whatf(field, sizeof field, "criticality of %s", what);
    if (n)
        ld_level(l, n, field, &t->criticality);
}

/* The context, or passive: true; exactly one of the two. */
static void context(struct loader *l, const yaml_node_t *key, const yaml_node_t *map,
                    const char *what, struct scn_thread *t)
{
    char field[128];
    const yaml_node_t *n = ld_get(l, map, "passive");
    ld_whatf(field, sizeof field, "passive of %s", what);
    if (n)
        ld_bool(l, n, field, &t->passive);
    ld_context(l, map, what, !t->passive, &t->sc);
    if (!t->passive && !ld_get(l, map, "budget") && !ld_get(l, map, "period"))
        ld_error(l, ld_loc(key),
                 "%s has no scheduling context (expected budget and period, "
                 "or passive: true)",
                 what);
}

static void timing(struct loader *l, const yaml_node_t *map, const char *what, struct scn_thread *t)
{
    char field[128];
    const yaml_node_t *n = ld_get(l, map, "deadline");
    ld_whatf(field, sizeof field, "deadline of %s", what);
    if (n) {
        t->has_deadline = ld_duration(l, n, field, true, &t->deadline);
    } else if (t->sc.present) {
        t->has_deadline = true;
        t->deadline = t->sc.period;
    }
    ld_whatf(field, sizeof field, "start of %s", what);
    if ((n = ld_get(l, map, "start")) != NULL)
        ld_duration(l, n, field, false, &t->start);
    ld_whatf(field, sizeof field, "timeout_endpoint of %s", what);
    if ((n = ld_get(l, map, "timeout_endpoint")) != NULL)
        ld_ref(l, n, LD_ENDPOINT, field, &t->timeout_endpoint);
}

/* A passive thread must be waiting before anything can run on it. */
static void passive_start(struct loader *l, const char *what, const struct scn_thread *t)
{
    const struct scenario *s = l->s;
    const struct scn_step *first = ld_first_step(s, t->prog_first, t->prog_count);
    if (!first || first->kind == STEP_RECV)
        return;
    if (first->kind == STEP_SERVE) {
        if (first->object == SCN_NONE && first->ntfn != SCN_NONE &&
            !s->notifications[first->ntfn].sc.present)
            ld_error(l, first->loc,
                     "passive %s serves only notification '%s', which has no scheduling "
                     "context of its own, so nothing could run the thread (expected an "
                     "endpoint, or budget and period on the notification)",
                     what, s->notifications[first->ntfn].name);
        return;
    }
    if (first->kind == STEP_WAIT && first->object != SCN_NONE &&
        !s->notifications[first->object].sc.present) {
        ld_error(l, first->loc,
                 "passive %s first waits on notification '%s', which has no "
                 "scheduling context of its own, so nothing could run the thread (expected "
                 "recv on an endpoint, or wait on a notification with budget and period)",
                 what, s->notifications[first->object].name);
    } else if (first->kind != STEP_WAIT) {
        ld_error(l, first->loc,
                 "passive %s starts with '%s', but it has no scheduling "
                 "context to run it on (expected its first step to be recv on an endpoint, or "
                 "wait on a notification with a scheduling context of its own)",
                 what, load_step_name(first->kind));
    }
}

static void thread(struct loader *l, const yaml_node_t *key, const yaml_node_t *map)
{
    char what[96];
    struct scenario *s = l->s;
    struct scn_thread *t = &s->threads[s->n_threads];
    memset(t, 0, sizeof *t);
    t->loc = ld_loc(key);
    t->timeout_endpoint = SCN_NONE;
    /* A thread with a bad or duplicate name is still checked, in a slot the
     * next thread reuses, so that every mistake in it is reported too. */
    if (ld_name(l, key, "thread name", t->name) && ld_claim(l, t->name, LD_THREAD, t->loc))
        s->n_threads++;
    else if (t->name[0] == '\0')
        snprintf(t->name, sizeof t->name, "%.40s", ld_scalar(key) ? ld_scalar(key) : "?");
    ld_whatf(what, sizeof what, "thread '%s'", t->name);
    if (!ld_map(l, map, what, "a mapping with priority, criticality and program", thread_keys))
        return;
    priorities(l, map, what, t);
    criticality(l, map, what, t);
    context(l, key, map, what, t);
    timing(l, map, what, t);
    const yaml_node_t *lab = ld_get(l, map, "label");
    if (lab && (!ld_scalar(lab) || strlen(ld_scalar(lab)) >= SCN_LABEL_MAX))
        ld_wrong(l, lab, "label", "a name of at most 79 characters");
    else if (lab)
        snprintf(t->label, sizeof t->label, "%s", ld_scalar(lab));
    const yaml_node_t *prog = ld_need(l, map, "program", what, "program: a list of steps");
    if (!prog)
        return;
    ld_program(l, prog, t);
    if (t->passive)
        passive_start(l, what, t);
}

void ld_threads(struct loader *l, const yaml_node_t *n)
{
    uint32_t cap = 0;
    if (!ld_want_map(l, n, "threads", "a mapping of thread names to threads"))
        return;
    uint32_t len = (uint32_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (len == 0) {
        ld_error(l, ld_loc(n), "threads is empty (expected at least one thread)");
        return;
    }
    if (len > SCN_MAX_THREADS)
        len = SCN_MAX_THREADS;
    if (!ld_reserve(l, (void **)&l->s->threads, &cap, len, sizeof *l->s->threads))
        return;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        if (p - n->data.mapping.pairs.start == SCN_MAX_THREADS) {
            ld_error(l, ld_loc(ld_node(l, p->key)),
                     "thread '%s' is one too many: a scenario has at most %d threads",
                     ld_scalar(ld_node(l, p->key)) ? ld_scalar(ld_node(l, p->key)) : "?",
                     SCN_MAX_THREADS);
            return;
        }
        thread(l, ld_node(l, p->key), ld_node(l, p->value));
    }
}
