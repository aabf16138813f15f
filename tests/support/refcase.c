/*
 * Reading a reference case's expected schedule (refcase.h) with libyaml's
 * document API: the whole second document is loaded as a node tree and
 * walked key by key, each key with its own parser in one table. Times are
 * converted by cli/units, the scenario loader's own duration rules, so the
 * expected and the simulated time of "3990us" are the same cycle count.
 */
#define _POSIX_C_SOURCE 200809L

#include "refcase.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "util/units.h"

struct parse {
    yaml_document_t *doc;
    const char *name;
    uint64_t hz;
    char *err;
    size_t err_len;
    struct refcase_expected *e;
};

/* The three per-thread list keys differ only in what they allow. */
enum list_kind { LIST_SLICES, LIST_JOBS, LIST_REFILLS };

static const char *const budget_kinds[] = {
    "exhausted", "throttle", "replenish", "timeout_fault", "emergency", NULL,
};

/* Event names `counts` knows how to count in the recorded tables. */
static const char *const count_events[] = {
    "exhausted", "throttle", "replenish", "timeout_fault", "emergency", "call_aborted",
    "irq",       "irq_lost", "job",       "deadline_miss", NULL,
};

static int fail_at(struct parse *p, const yaml_mark_t *m, const char *fmt, ...)
{
    int n =
        snprintf(p->err, p->err_len, "%s:%zu:%zu: error: ", p->name, m->line + 1, m->column + 1);
    va_list ap;

    if (n >= 0 && (size_t)n < p->err_len) {
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->err_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define fail(p, node, ...) fail_at((p), &(node)->start_mark, __VA_ARGS__)

static yaml_node_t *node_at(struct parse *p, int index)
{
    return yaml_document_get_node(p->doc, index);
}

static const char *text_of(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static bool in_list(const char *word, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(word, list[i]) == 0)
            return true;
    return false;
}

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *t = text_of(n);
    return strcmp(t, "null") == 0 || strcmp(t, "~") == 0 || strcmp(t, "Null") == 0 ||
           strcmp(t, "NULL") == 0 || t[0] == 0;
}

static int want_scalar(struct parse *p, const yaml_node_t *n, const char *what)
{
    if (n->type != YAML_SCALAR_NODE)
        return fail(p, n, "expected %s, not a %s", what,
                    n->type == YAML_MAPPING_NODE ? "mapping" : "list");
    return 0;
}

/* A sequence of `min`..`max` items; returns its length or -1. */
static int want_seq(struct parse *p, const yaml_node_t *n, int min, int max, const char *what)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(p, n, "expected %s", what);
    int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len < min || len > max)
        return fail(p, n, "expected %s, not a list of %d", what, len);
    return len;
}

static yaml_node_t *item(struct parse *p, const yaml_node_t *seq, int i)
{
    return node_at(p, seq->data.sequence.items.start[i]);
}

static int want_map(struct parse *p, const yaml_node_t *n, const char *what)
{
    if (n->type != YAML_MAPPING_NODE)
        return fail(p, n, "expected %s", what);
    return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

/* A duration with its unit, converted at p->hz (docs/scenario-format.md: a
 * non-zero duration that rounds to 0 cycles is an error). */
static int parse_time(struct parse *p, const yaml_node_t *n, cycles_t *out)
{
    struct units_duration d;
    char why[160];

    if (want_scalar(p, n, "a time with its unit, as 3ms") < 0)
        return -1;
    if (!units_parse_duration(text_of(n), &d, why, sizeof why) ||
        !units_to_cycles(&d, p->hz, out, why, sizeof why))
        return fail(p, n, "bad time '%s': %s", text_of(n), why);
    if (*out == 0 && !units_duration_is_zero(&d))
        return fail(p, n, "time '%s' is less than one cycle", text_of(n));
    return 0;
}

/* A name as docs/scenario-format.md allows: [a-z][a-z0-9_]*. */
static int parse_name(struct parse *p, const yaml_node_t *n, char *out, size_t len,
                      const char *what)
{
    if (want_scalar(p, n, what) < 0)
        return -1;
    const char *t = text_of(n);
    size_t tl = strlen(t);
    bool ok = tl > 0 && tl < len && t[0] >= 'a' && t[0] <= 'z';
    for (size_t i = 1; ok && i < tl; i++)
        ok = (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9') || t[i] == '_';
    if (!ok)
        return fail(p, n, "bad %s '%s' (expected [a-z][a-z0-9_]*, under %zu characters)", what, t,
                    len);
    memcpy(out, t, tl + 1);
    return 0;
}

static int parse_count(struct parse *p, const yaml_node_t *n, uint64_t *out)
{
    if (want_scalar(p, n, "a number") < 0)
        return -1;
    const char *t = text_of(n);
    uint64_t v = 0;
    if (t[0] == 0)
        return fail(p, n, "expected a number");
    for (const char *c = t; *c != 0; c++) {
        if (*c < '0' || *c > '9' || v > (UINT64_MAX - 9) / 10)
            return fail(p, n, "bad number '%s' (expected a whole number >= 0)", t);
        v = v * 10 + (uint64_t)(*c - '0');
    }
    *out = v;
    return 0;
}

static int parse_lost(struct parse *p, const yaml_node_t *n, bool *out)
{
    uint64_t v;

    if (parse_count(p, n, &v) < 0 || v > 1)
        return fail(p, n, "bad lost flag (expected 0 or 1)");
    *out = v == 1;
    return 0;
}

/* A time, or null where `nullable`. */
static int parse_opt_time(struct parse *p, const yaml_node_t *n, bool nullable, cycles_t *out,
                          bool *null_out)
{
    *null_out = nullable && is_null(n);
    if (*null_out) {
        *out = 0;
        return 0;
    }
    return parse_time(p, n, out);
}

/* The rules that make a list comparable with the recorded one: slices are
 * non-empty, ascending and already merged (each starts after the previous
 * ended); jobs finish no earlier than they are released. */
static int check_pair(struct parse *p, const yaml_node_t *n, enum list_kind kind,
                      const struct refcase_pair *prev, const struct refcase_pair *cur)
{
    if (kind == LIST_SLICES && cur->first >= cur->second)
        return fail(p, n, "empty or reversed slice (expected [start, end) with start < end)");
    if (kind == LIST_SLICES && prev != NULL && cur->first <= prev->second)
        return fail(p, n,
                    "slice overlaps or touches the one before (expected merged, "
                    "ascending intervals)");
    if (kind == LIST_JOBS && !cur->second_null && cur->second < cur->first)
        return fail(p, n, "job finishes before its release");
    return 0;
}

static int parse_pair_list(struct parse *p, const yaml_node_t *seq, enum list_kind kind,
                           struct refcase_thread_list *out)
{
    static const char *const what[] = {
        "a list of [start, end] intervals",
        "a list of [release, finish] pairs",
        "a list of [time, amount] refills",
    };
    int len = want_seq(p, seq, 0, 1 << 20, what[kind]);
    if (len < 0)
        return -1;
    out->items = calloc((size_t)len + 1, sizeof *out->items);
    if (out->items == NULL)
        return fail(p, seq, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_t *pair = item(p, seq, i);
        struct refcase_pair *cur = &out->items[i];
        if (want_seq(p, pair, 2, 2, what[kind]) < 0 ||
            parse_time(p, item(p, pair, 0), &cur->first) < 0 ||
            parse_opt_time(p, item(p, pair, 1), kind == LIST_JOBS, &cur->second,
                           &cur->second_null) < 0 ||
            check_pair(p, pair, kind, i > 0 ? cur - 1 : NULL, cur) < 0)
            return -1;
        out->n++;
    }
    return 0;
}

/* thread -> list, for slices, jobs and final_refills. */
static int parse_thread_lists(struct parse *p, const yaml_node_t *map, enum list_kind kind,
                              struct refcase_thread_list **lists, size_t *n)
{
    int len = want_map(p, map, "a mapping of thread -> list");
    if (len < 0)
        return -1;
    *lists = calloc((size_t)len + 1, sizeof **lists);
    if (*lists == NULL)
        return fail(p, map, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_pair_t *kv = &map->data.mapping.pairs.start[i];
        struct refcase_thread_list *l = &(*lists)[i];
        yaml_node_t *key = node_at(p, kv->key);
        if (parse_name(p, key, l->thread, sizeof l->thread, "thread name") < 0)
            return -1;
        for (size_t j = 0; j < *n; j++)
            if (strcmp((*lists)[j].thread, l->thread) == 0)
                return fail(p, key, "thread '%s' is listed twice", l->thread);
        (*n)++;
        if (parse_pair_list(p, node_at(p, kv->value), kind, l) < 0)
            return -1;
    }
    return 0;
}

static int parse_slices(struct parse *p, const yaml_node_t *v)
{
    return parse_thread_lists(p, v, LIST_SLICES, &p->e->slices, &p->e->n_slices);
}

static int parse_jobs(struct parse *p, const yaml_node_t *v)
{
    return parse_thread_lists(p, v, LIST_JOBS, &p->e->jobs, &p->e->n_jobs);
}

static int parse_final_refills(struct parse *p, const yaml_node_t *v)
{
    return parse_thread_lists(p, v, LIST_REFILLS, &p->e->final_refills, &p->e->n_final_refills);
}

static int parse_irqs(struct parse *p, const yaml_node_t *v)
{
    const char *what = "a list of [arrival, delivered|null, lost]";
    int len = want_seq(p, v, 0, 1 << 20, what);
    if (len < 0)
        return -1;
    p->e->has_irqs = true;
    p->e->irqs = calloc((size_t)len + 1, sizeof *p->e->irqs);
    if (p->e->irqs == NULL)
        return fail(p, v, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_t *t = item(p, v, i);
        struct refcase_irq *q = &p->e->irqs[i];
        if (want_seq(p, t, 3, 3, what) < 0 || parse_time(p, item(p, t, 0), &q->arrival) < 0 ||
            parse_opt_time(p, item(p, t, 1), true, &q->delivered, &q->delivered_null) < 0 ||
            parse_lost(p, item(p, t, 2), &q->lost) < 0)
            return -1;
        if (!q->delivered_null && q->delivered < q->arrival)
            return fail(p, t, "interrupt delivered before it arrived");
        if (i > 0 && q->arrival < q[-1].arrival)
            return fail(p, t, "interrupts out of order (expected ascending arrival times)");
        p->e->n_irqs++;
    }
    return 0;
}

static int parse_kind(struct parse *p, const yaml_node_t *n, const char *const *allowed, char *out,
                      const char *what)
{
    if (want_scalar(p, n, what) < 0)
        return -1;
    if (!in_list(text_of(n), allowed) || strlen(text_of(n)) >= REFCASE_KIND_MAX) {
        char list[256] = "";
        for (size_t i = 0; allowed[i] != NULL; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     allowed[i]);
        return fail(p, n, "unknown %s '%s' (expected one of %s)", what, text_of(n), list);
    }
    snprintf(out, REFCASE_KIND_MAX, "%s", text_of(n));
    return 0;
}

static int parse_events(struct parse *p, const yaml_node_t *v)
{
    const char *what = "a list of [kind, thread, time] or [kind, thread, time, amount]";
    int len = want_seq(p, v, 0, 1 << 20, what);
    if (len < 0)
        return -1;
    if (p->e->events != NULL)
        return fail(p, v, "events given twice (events and budget_events are one key)");
    p->e->events = calloc((size_t)len + 1, sizeof *p->e->events);
    if (p->e->events == NULL)
        return fail(p, v, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_t *t = item(p, v, i);
        struct refcase_event *ev = &p->e->events[i];
        int n = want_seq(p, t, 3, 4, what);
        if (n < 0 || parse_kind(p, item(p, t, 0), budget_kinds, ev->kind, "budget event") < 0 ||
            parse_name(p, item(p, t, 1), ev->thread, sizeof ev->thread, "thread name") < 0 ||
            parse_time(p, item(p, t, 2), &ev->time) < 0)
            return -1;
        ev->has_amount = n == 4;
        if (ev->has_amount && parse_time(p, item(p, t, 3), &ev->amount) < 0)
            return -1;
        p->e->n_events++;
    }
    return 0;
}

static int parse_paid_by(struct parse *p, const yaml_node_t *v)
{
    int len = want_map(p, v, "a mapping of thread -> paying thread");
    if (len < 0)
        return -1;
    p->e->paid_by = calloc((size_t)len + 1, sizeof *p->e->paid_by);
    if (p->e->paid_by == NULL)
        return fail(p, v, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_pair_t *kv = &v->data.mapping.pairs.start[i];
        struct refcase_paid_by *pb = &p->e->paid_by[i];
        yaml_node_t *key = node_at(p, kv->key);
        if (parse_name(p, key, pb->thread, sizeof pb->thread, "thread name") < 0 ||
            parse_name(p, node_at(p, kv->value), pb->payer, sizeof pb->payer, "thread name") < 0)
            return -1;
        for (size_t j = 0; j < p->e->n_paid_by; j++)
            if (strcmp(p->e->paid_by[j].thread, pb->thread) == 0)
                return fail(p, key, "thread '%s' is listed twice", pb->thread);
        p->e->n_paid_by++;
    }
    return 0;
}

static int parse_aborted(struct parse *p, const yaml_node_t *v)
{
    const char *what = "a list of [thread, time]";
    int len = want_seq(p, v, 0, 1 << 20, what);
    if (len < 0)
        return -1;
    p->e->aborted = calloc((size_t)len + 1, sizeof *p->e->aborted);
    if (p->e->aborted == NULL)
        return fail(p, v, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_t *t = item(p, v, i);
        struct refcase_aborted *a = &p->e->aborted[i];
        if (want_seq(p, t, 2, 2, what) < 0 ||
            parse_name(p, item(p, t, 0), a->thread, sizeof a->thread, "thread name") < 0 ||
            parse_time(p, item(p, t, 1), &a->time) < 0)
            return -1;
        p->e->n_aborted++;
    }
    return 0;
}

static int parse_counts(struct parse *p, const yaml_node_t *v)
{
    int len = want_map(p, v, "a mapping of event -> number");
    if (len < 0)
        return -1;
    p->e->counts = calloc((size_t)len + 1, sizeof *p->e->counts);
    if (p->e->counts == NULL)
        return fail(p, v, "out of memory");
    for (int i = 0; i < len; i++) {
        yaml_node_pair_t *kv = &v->data.mapping.pairs.start[i];
        struct refcase_count *c = &p->e->counts[i];
        yaml_node_t *key = node_at(p, kv->key);
        if (parse_kind(p, key, count_events, c->event, "count event") < 0 ||
            parse_count(p, node_at(p, kv->value), &c->n) < 0)
            return -1;
        for (size_t j = 0; j < p->e->n_counts; j++)
            if (strcmp(p->e->counts[j].event, c->event) == 0)
                return fail(p, key, "event '%s' is counted twice", c->event);
        p->e->n_counts++;
    }
    return 0;
}

/* Every key the expected document may hold, and its parser. */
static const struct {
    const char *key;
    int (*parse)(struct parse *p, const yaml_node_t *value);
} keys[] = {
    {"slices", parse_slices},
    {"jobs", parse_jobs},
    {"irqs", parse_irqs},
    {"events", parse_events},
    {"budget_events", parse_events},
    {"paid_by", parse_paid_by},
    {"aborted", parse_aborted},
    {"counts", parse_counts},
    {"final_refills", parse_final_refills},
};

static int parse_key(struct parse *p, const yaml_node_t *key, const yaml_node_t *value)
{
    char list[256] = "";

    if (want_scalar(p, key, "a key") < 0)
        return -1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(text_of(key), keys[i].key) == 0)
            return keys[i].parse(p, value);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 keys[i].key);
    return fail(p, key, "unknown key '%s' in the expected schedule (expected one of %s)",
                text_of(key), list);
}

static int parse_expected(struct parse *p, const yaml_node_t *root)
{
    int len = want_map(p, root, "the expected schedule: a mapping of slices, jobs, ...");
    if (len < 0)
        return -1;
    for (int i = 0; i < len; i++) {
        yaml_node_pair_t *kv = &root->data.mapping.pairs.start[i];
        yaml_node_t *key = node_at(p, kv->key);
        for (int j = 0; j < i; j++) {
            yaml_node_t *prev = node_at(p, root->data.mapping.pairs.start[j].key);
            if (key->type == YAML_SCALAR_NODE && prev->type == YAML_SCALAR_NODE &&
                strcmp(text_of(key), text_of(prev)) == 0)
                return fail(p, key, "key '%s' given twice", text_of(key));
        }
        if (parse_key(p, key, node_at(p, kv->value)) < 0)
            return -1;
    }
    return 0;
}

/* Load the next document of `parser` into `doc`; 1 if there was one, 0 at
 * the end of the stream, -1 on a YAML error. */
static int next_document(struct parse *p, yaml_parser_t *parser, yaml_document_t *doc)
{
    if (!yaml_parser_load(parser, doc)) {
        fail_at(p, &parser->problem_mark, "not valid YAML: %s",
                parser->problem ? parser->problem : "unknown error");
        return -1;
    }
    if (yaml_document_get_root_node(doc) == NULL) {
        yaml_document_delete(doc);
        return 0;
    }
    return 1;
}

/* The scenario document is skipped; the expected one parsed; nothing may
 * follow it. */
static int parse_stream(struct parse *p, yaml_parser_t *parser)
{
    static const char empty[] = "empty file (expected a scenario, ---, an expected schedule)";
    static const char no_second[] = "no expected schedule (expected a second document after ---)";
    static const char third[] = "a third YAML document (expected a scenario and its schedule)";
    yaml_document_t doc;
    yaml_mark_t start = {0, 0, 0};
    int rc = next_document(p, parser, &doc);

    if (rc <= 0)
        return rc < 0 ? -1 : fail_at(p, &start, empty);
    yaml_document_delete(&doc);
    rc = next_document(p, parser, &doc);
    if (rc <= 0)
        return rc < 0 ? -1 : fail_at(p, &parser->mark, no_second);
    p->doc = &doc;
    rc = parse_expected(p, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    p->doc = NULL;
    if (rc < 0)
        return -1;
    rc = next_document(p, parser, &doc);
    if (rc > 0) {
        fail_at(p, &doc.start_mark, third);
        yaml_document_delete(&doc);
        return -1;
    }
    return rc;
}

/* Read the expected schedule from `parser`, whose input is set. */
static int load(struct refcase_expected *e, yaml_parser_t *parser, const char *name,
                uint64_t cpu_hz, char *err, size_t err_len)
{
    struct parse p = {NULL, name, cpu_hz, err, err_len, e};
    yaml_mark_t start = {0, 0, 0};

    if (cpu_hz == 0)
        return fail_at(&p, &start, "cpu_hz is 0");
    if (parse_stream(&p, parser) < 0) {
        refcase_release(e);
        return -1;
    }
    return 0;
}

int refcase_load_string(struct refcase_expected *e, const char *text, size_t len, const char *name,
                        uint64_t cpu_hz, char *err, size_t err_len)
{
    yaml_parser_t parser;

    memset(e, 0, sizeof *e);
    if (err_len > 0)
        err[0] = 0;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, err_len, "%s: error: out of memory", name);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = load(e, &parser, name, cpu_hz, err, err_len);
    yaml_parser_delete(&parser);
    return rc;
}

int refcase_load(struct refcase_expected *e, const char *path, uint64_t cpu_hz, char *err,
                 size_t err_len)
{
    yaml_parser_t parser;
    FILE *f = fopen(path, "rb");

    memset(e, 0, sizeof *e);
    if (err_len > 0)
        err[0] = 0;
    if (f == NULL) {
        snprintf(err, err_len, "%s: error: cannot read the file: %s", path, strerror(errno));
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        snprintf(err, err_len, "%s: error: out of memory", path);
        return -1;
    }
    yaml_parser_set_input_file(&parser, f);
    int rc = load(e, &parser, path, cpu_hz, err, err_len);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

static void release_lists(struct refcase_thread_list *lists, size_t n)
{
    for (size_t i = 0; lists != NULL && i < n; i++)
        free(lists[i].items);
    free(lists);
}

void refcase_release(struct refcase_expected *e)
{
    release_lists(e->slices, e->n_slices);
    release_lists(e->jobs, e->n_jobs);
    release_lists(e->final_refills, e->n_final_refills);
    free(e->irqs);
    free(e->events);
    free(e->paid_by);
    free(e->aborted);
    free(e->counts);
    memset(e, 0, sizeof *e);
}
