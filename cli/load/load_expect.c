/*
 * The loader's expectations (docs/scenario-format.md, "Expectations"): what a
 * run must show, each with a one-line canonical text for its verdict.
 */
#include "load_int.h"

#include <mcsim/bootinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const expect_keys[] = {"deadlines", "criticality", "threads",   "max_response",
                                          "count",     "budget",      "scheduler", NULL};
/* The keys that say what is checked, in enum scn_expect_kind's order
 * (deadlines stands for both met and missed). */
static const char *const kind_keys[] = {"deadlines", "max_response", "count", "budget", NULL};
static const char *const event_names[] = {
#define X(id, name) name,
    SCN_COUNT_EVENTS(X)
#undef X
        NULL};
#define EXPECT_FORMS "one of: deadlines, max_response, count, budget"

/* Append to the expectation's text; a text that does not fit ends in "...". */
static void text_add(struct scn_expect *e, const char *fmt, ...) DIAG_PRINTF(2, 3);
static void text_add(struct scn_expect *e, const char *fmt, ...)
{
    size_t used = strlen(e->text), size = sizeof e->text;
    va_list ap;
    va_start(ap, fmt);
    int n = used + 1 < size ? vsnprintf(e->text + used, size - used, fmt, ap) : -1;
    va_end(ap);
    if (n < 0 || used + (size_t)n >= size)
        memcpy(e->text + size - 4, "...", 4);
}

static void deadline_threads(struct loader *l, const yaml_node_t *n, const char *what,
                             struct scn_expect *e)
{
    struct scenario *s = l->s;
    char field[96];
    if (!ld_want_seq(l, n, what, "a list of thread names, as in [control, logger]"))
        return;
    uint32_t len = (uint32_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len == 0) {
        ld_error(l, ld_loc(n),
                 "threads of %s is empty (expected at least one thread, or no "
                 "threads key for every thread)",
                 what);
        return;
    }
    if (!ld_reserve(l, (void **)&s->thread_refs, &l->cap_refs, s->n_thread_refs + len,
                    sizeof *s->thread_refs))
        return;
    e->thread_first = s->n_thread_refs;
    ld_whatf(field, sizeof field, "a thread of %s", what);
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        uint32_t t;
        if (ld_ref(l, ld_node(l, *i), LD_THREAD, field, &t)) {
            s->thread_refs[s->n_thread_refs++] = t;
            e->thread_count++;
        }
    }
}

static void deadlines(struct loader *l, const yaml_node_t *map, const char *what,
                      struct scn_expect *e)
{
    static const char *const words[] = {"met", "missed", NULL};
    char field[96];
    uint32_t w;
    const yaml_node_t *crit = ld_get(l, map, "criticality"), *threads = ld_get(l, map, "threads");
    ld_whatf(field, sizeof field, "deadlines of %s", what);
    if (ld_word(l, ld_get(l, map, "deadlines"), field, words, &w))
        e->kind = w == 0 ? EXPECT_DEADLINES_MET : EXPECT_DEADLINES_MISSED;
    if (crit && threads) {
        ld_error(l, ld_loc(threads),
                 "%s has both criticality and "
                 "threads (expected one of the two, or neither for every thread)",
                 what);
        return;
    }
    ld_whatf(field, sizeof field, "criticality of %s", what);
    if (crit)
        ld_level(l, crit, field, &e->criticality);
    if (threads)
        deadline_threads(l, threads, what, e);
}

static void max_response(struct loader *l, const yaml_node_t *map, const char *what,
                         struct scn_expect *e)
{
    static const char *const keys[] = {"thread", "at_most", NULL};
    char field[96];
    const yaml_node_t *v = ld_get(l, map, "max_response");
    e->kind = EXPECT_MAX_RESPONSE;
    ld_whatf(field, sizeof field, "max_response of %s", what);
    if (!ld_map(l, v, field, "{thread: T, at_most: D}", keys))
        return;
    const yaml_node_t *t = ld_need(l, v, "thread", field, "thread: the thread whose jobs count");
    const yaml_node_t *at_most = ld_need(l, v, "at_most", field, "at_most: the longest response");
    ld_whatf(field, sizeof field, "thread of %s", what);
    if (t)
        ld_ref(l, t, LD_THREAD, field, &e->thread);
    ld_whatf(field, sizeof field, "at_most of %s", what);
    if (at_most)
        ld_duration(l, at_most, field, false, &e->at_most_time);
}

static void count_bounds(struct loader *l, const yaml_node_t *v, const char *what,
                         struct scn_expect *e)
{
    char field[96];
    const yaml_node_t *least = ld_get(l, v, "at_least"), *most = ld_get(l, v, "at_most");
    ld_whatf(field, sizeof field, "at_least of %s", what);
    if (least)
        e->has_at_least = ld_uint(l, least, field, 0, UINT64_MAX, &e->at_least);
    ld_whatf(field, sizeof field, "at_most of %s", what);
    if (most)
        e->has_at_most = ld_uint(l, most, field, 0, UINT64_MAX, &e->at_most);
    if (!least && !most)
        ld_error(l, ld_loc(v),
                 "count of %s has no bound (expected at_least: N, at_most: N or "
                 "both)",
                 what);
    if (e->has_at_least && e->has_at_most && e->at_least > e->at_most)
        ld_error(l, ld_loc(least),
                 "at_least of %s (%llu) is more than its at_most (%llu) "
                 "(expected at_least <= at_most)",
                 what, (unsigned long long)e->at_least, (unsigned long long)e->at_most);
}

static void count(struct loader *l, const yaml_node_t *map, const char *what, struct scn_expect *e)
{
    static const char *const keys[] = {"event", "thread", "device", "at_least", "at_most", NULL};
    char field[96];
    uint32_t ev = EV_COUNT;
    const yaml_node_t *v = ld_get(l, map, "count"), *n;
    e->kind = EXPECT_COUNT;
    ld_whatf(field, sizeof field, "count of %s", what);
    if (!ld_map(l, v, field, "{event: E, thread: T, at_least: N, at_most: N}", keys))
        return;
    ld_whatf(field, sizeof field, "event of %s", what);
    if ((n = ld_need(l, v, "event", what, "event: the name of an event")) != NULL &&
        ld_word(l, n, field, event_names, &ev))
        e->event = (enum scn_count_event)ev;
    ld_whatf(field, sizeof field, "thread of %s", what);
    if ((n = ld_get(l, v, "thread")) != NULL)
        ld_ref(l, n, LD_THREAD, field, &e->thread);
    ld_whatf(field, sizeof field, "device of %s", what);
    if ((n = ld_get(l, v, "device")) != NULL && ev != EV_COUNT && ev != EV_IRQ && ev != EV_IRQ_LOST)
        ld_error(l, ld_loc(n),
                 "%s filters by device, but event %s is not an interrupt "
                 "(expected device only with irq or irq_lost)",
                 what, event_names[ev]);
    else if (n)
        ld_ref(l, n, LD_DEVICE, field, &e->device);
    count_bounds(l, v, what, e);
}

static void budget(struct loader *l, const yaml_node_t *map, const char *what, struct scn_expect *e)
{
    static const char *const words[] = {"respected", NULL};
    char field[96];
    uint32_t w;
    e->kind = EXPECT_BUDGET_RESPECTED;
    ld_whatf(field, sizeof field, "budget of %s", what);
    ld_word(l, ld_get(l, map, "budget"), field, words, &w);
}

/* The key that says what `map` checks; false (reported) if none or two. */
static bool expect_kind(struct loader *l, const yaml_node_t *map, const char *what, uint32_t *kind)
{
    bool found = false, ok = true;
    for (uint32_t k = 0; kind_keys[k]; k++) {
        const yaml_node_t *v = ld_get(l, map, kind_keys[k]);
        if (v && found) {
            ld_error(l, ld_loc(v),
                     "%s checks %s and %s at once (expected exactly %s; write "
                     "two expectations)",
                     what, kind_keys[*kind], kind_keys[k], EXPECT_FORMS);
            ok = false;
        } else if (v) {
            found = true;
            *kind = k;
        }
    }
    for (uint32_t k = 0; !found && kind_keys[k]; k++)
        if (ld_misspelt(l, map, kind_keys[k]))
            return false; /* its "did you mean" error says it all */
    if (!found)
        ld_error(l, ld_loc(map), "%s says nothing to check (expected %s)", what, EXPECT_FORMS);
    return found && ok;
}

/* criticality and threads belong to deadlines only. */
static void deadline_keys_only(struct loader *l, const yaml_node_t *map, const char *what,
                               uint32_t kind)
{
    static const char *const keys[] = {"criticality", "threads", NULL};
    for (uint32_t i = 0; keys[i] && kind != 0; i++) {
        const yaml_node_t *v = ld_get(l, map, keys[i]);
        if (v)
            ld_error(l, ld_loc(v),
                     "%s is a %s check and cannot take %s (expected %s only "
                     "with deadlines)",
                     what, kind_keys[kind], keys[i], keys[i]);
    }
}

static void scheduler(struct loader *l, const yaml_node_t *map, const char *what,
                      struct scn_expect *e)
{
    static const char *const words[] = {"mcs", "classic", NULL};
    char field[96];
    uint32_t w;
    const yaml_node_t *n = ld_get(l, map, "scheduler");
    e->scheduler = SCN_ANY_SCHEDULER;
    ld_whatf(field, sizeof field, "scheduler of %s", what);
    if (n && ld_word(l, n, field, words, &w))
        e->scheduler = w == 0 ? SCHED_MCS : SCHED_CLASSIC;
}

/* The canonical text: "deadlines: met, criticality: hi",
 * "count: throttle of net_driver at_least 1 (scheduler: mcs)". */
static void render(const struct loader *l, const yaml_node_t *map, struct scn_expect *e)
{
    const struct scenario *s = l->s;
    const yaml_node_t *mr = ld_get(l, map, "max_response");
    if (e->kind == EXPECT_DEADLINES_MET || e->kind == EXPECT_DEADLINES_MISSED)
        text_add(e, "deadlines: %s", e->kind == EXPECT_DEADLINES_MET ? "met" : "missed");
    if (e->criticality != SCN_NONE)
        text_add(e, ", criticality: %s", s->levels[e->criticality]);
    for (uint32_t i = 0; i < e->thread_count; i++)
        text_add(e, "%s%s", i ? ", " : ", threads: [",
                 s->threads[s->thread_refs[e->thread_first + i]].name);
    if (e->thread_count)
        text_add(e, "]");
    if (e->kind == EXPECT_MAX_RESPONSE)
        text_add(e, "max_response: %s at_most %s", s->threads[e->thread].name,
                 ld_scalar(ld_get(l, mr, "at_most")));
    if (e->kind == EXPECT_COUNT)
        text_add(e, "count: %s", event_names[e->event]);
    if (e->kind == EXPECT_COUNT && e->thread != SCN_NONE)
        text_add(e, " of %s", s->threads[e->thread].name);
    if (e->device != SCN_NONE)
        text_add(e, " on %s", s->devices[e->device].name);
    if (e->has_at_least)
        text_add(e, " at_least %llu", (unsigned long long)e->at_least);
    if (e->has_at_most)
        text_add(e, " at_most %llu", (unsigned long long)e->at_most);
    if (e->kind == EXPECT_BUDGET_RESPECTED)
        text_add(e, "budget: respected");
    if (e->scheduler != SCN_ANY_SCHEDULER)
        text_add(e, " (scheduler: %s)", e->scheduler == SCHED_MCS ? "mcs" : "classic");
}

static void expectation(struct loader *l, const yaml_node_t *map, struct scn_expect *e,
                        uint32_t number)
{
    char what[48];
    uint32_t kind = 0;
    size_t errors = diag_errors(l->d);
    ld_whatf(what, sizeof what, "expectation %u", (unsigned)number);
    if (!ld_map(l, map, what, "a mapping such as {deadlines: met, criticality: hi}", expect_keys) ||
        !expect_kind(l, map, what, &kind))
        return;
    deadline_keys_only(l, map, what, kind);
    scheduler(l, map, what, e);
    if (kind == 0)
        deadlines(l, map, what, e);
    else if (kind == 1)
        max_response(l, map, what, e);
    else if (kind == 2)
        count(l, map, what, e);
    else
        budget(l, map, what, e);
    if (diag_errors(l->d) == errors)
        render(l, map, e);
}

void ld_expects(struct loader *l, const yaml_node_t *n)
{
    struct scenario *s = l->s;
    if (!ld_want_seq(l, n, "expect", "a list of expectations"))
        return;
    uint32_t len = (uint32_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!ld_reserve(l, (void **)&s->expects, &l->cap_expects, len, sizeof *s->expects))
        return;
    for (uint32_t i = 0; i < len; i++) {
        struct scn_expect *e = &s->expects[s->n_expects++];
        const yaml_node_t *item = ld_node(l, n->data.sequence.items.start[i]);
        memset(e, 0, sizeof *e);
        e->loc = ld_loc(item);
        e->scheduler = SCN_ANY_SCHEDULER;
        e->criticality = SCN_NONE;
        e->thread = SCN_NONE;
        e->device = SCN_NONE;
        expectation(l, item, e, i + 1);
    }
}
