/*
 * The loader's first pass (load_int.h ld_shape): libyaml's events over the
 * whole file, before any document is built, so that the work a file costs
 * is bounded by its size. Two shapes cost far more than their bytes:
 *
 * - nesting: libyaml's scanner checks every open flow level at each token,
 *   so `[[[[...` of n levels takes time in n^2 (100,000 levels: 36 s).
 *   The pass stops at the first node deeper than LD_MAX_NESTING.
 * - aliases: a document keeps an alias as one node, but the loader reads
 *   it where it stands, every time: ten aliases to a list of ten aliases
 *   to ... make a 177-byte file read as millions of nodes (and one error
 *   each). The pass counts the nodes every alias stands for (a node and
 *   everything under it) and stops at the alias that takes the file past
 *   LD_MAX_NODES_BASE + LD_MAX_NODES_PER_BYTE nodes a byte; an alias to a
 *   node it is inside would stand for infinitely many, and is refused.
 *
 * Every document of the file is read, so that whatever follows the
 * scenario (a reference case's expected schedule) is YAML too: `validate`
 * and `run` accept the same files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_int.h"

/* An anchor and the nodes its node counts (itself and everything under
 * it); OPEN while that node is a list or mapping not yet closed. */
#define OPEN UINT64_MAX

struct anchor {
    char *name;
    uint64_t nodes;
};

/* The anchors of one document: open addressing, grown at half full. */
struct anchors {
    struct anchor *slots;
    size_t cap, used;
};

/* A list or mapping being read: the file's node count before it, and its
 * anchor's slot. */
struct open_node {
    uint64_t before;
    struct anchor *anchor;
};

struct shape {
    const char *path;
    struct diag *d;
    uint64_t nodes, limit; /* nodes read so far, aliases read where they stand */
    struct open_node stack[LD_MAX_NESTING];
    size_t depth;
    struct anchors anchors;
};

static size_t hash(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void anchors_clear(struct anchors *a)
{
    for (size_t i = 0; i < a->cap; i++)
        free(a->slots[i].name);
    free(a->slots);
    memset(a, 0, sizeof *a);
}

/* The slot of `name`: its own, or the empty one where it would go. */
static struct anchor *anchors_slot(const struct anchors *a, const char *name)
{
    size_t i = hash(name) & (a->cap - 1);
    while (a->slots[i].name && strcmp(a->slots[i].name, name) != 0)
        i = (i + 1) & (a->cap - 1);
    return &a->slots[i];
}

static struct anchor *anchors_find(const struct anchors *a, const char *name)
{
    struct anchor *s = a->cap ? anchors_slot(a, name) : NULL;
    return s && s->name ? s : NULL;
}

static bool anchors_grow(struct anchors *a)
{
    size_t cap = a->cap ? 2 * a->cap : 64;
    struct anchors bigger = {calloc(cap, sizeof *a->slots), cap, a->used};
    if (!bigger.slots)
        return false;
    for (size_t i = 0; i < a->cap; i++)
        if (a->slots[i].name)
            *anchors_slot(&bigger, a->slots[i].name) = a->slots[i];
    free(a->slots);
    *a = bigger;
    return true;
}

/* The slot of anchor `name` (a later anchor of the same name replaces it,
 * as in YAML), or NULL when memory ran out. */
static struct anchor *anchors_add(struct anchors *a, const char *name)
{
    struct anchor *s;
    if (2 * (a->used + 1) > a->cap && !anchors_grow(a))
        return NULL;
    s = anchors_slot(a, name);
    if (!s->name) {
        if (!(s->name = malloc(strlen(name) + 1)))
            return NULL;
        strcpy(s->name, name);
        a->used++;
    }
    return s;
}

static void error_at(struct shape *sh, yaml_mark_t at, const char *fmt, ...) DIAG_PRINTF(3, 4);

static void error_at(struct shape *sh, yaml_mark_t at, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    diag_error(sh->d, sh->path, (uint32_t)at.line + 1, (uint32_t)at.column + 1, "%s", text);
}

/* Count `nodes` more, read at `at` (through the alias *alias, or NULL). */
static bool count(struct shape *sh, uint64_t nodes, yaml_mark_t at, const char *alias)
{
    if (nodes <= sh->limit - sh->nodes) {
        sh->nodes += nodes;
        return true;
    }
    if (alias)
        error_at(sh, at,
                 "the alias *%s makes the file more than %llu YAML nodes (%u + %u a byte), "
                 "each alias counted as the nodes it names (expected fewer aliases to "
                 "large nodes)",
                 alias, (unsigned long long)sh->limit, LD_MAX_NODES_BASE, LD_MAX_NODES_PER_BYTE);
    else
        error_at(sh, at, "the file has more than %llu YAML nodes (%u + %u a byte)",
                 (unsigned long long)sh->limit, LD_MAX_NODES_BASE, LD_MAX_NODES_PER_BYTE);
    return false;
}

static bool no_memory(struct shape *sh, yaml_mark_t at)
{
    error_at(sh, at, "out of memory while reading the file's anchors");
    return false;
}

/* A list or a mapping starts, with its anchor (or NULL). */
static bool open_node(struct shape *sh, const yaml_event_t *e, const yaml_char_t *anchor)
{
    struct open_node *n;
    if (sh->depth == LD_MAX_NESTING) {
        error_at(sh, e->start_mark,
                 "the YAML nests deeper than %d lists and mappings here (expected a "
                 "scenario, whose programs nest at most %d steps deep)",
                 LD_MAX_NESTING, LD_MAX_DEPTH);
        return false;
    }
    n = &sh->stack[sh->depth++];
    n->before = sh->nodes;
    n->anchor = NULL;
    if (anchor && !(n->anchor = anchors_add(&sh->anchors, (const char *)anchor)))
        return no_memory(sh, e->start_mark);
    if (n->anchor)
        n->anchor->nodes = OPEN;
    return count(sh, 1, e->start_mark, NULL);
}

static void close_node(struct shape *sh)
{
    struct open_node n = sh->stack[--sh->depth];
    if (n.anchor)
        n.anchor->nodes = sh->nodes - n.before;
}

static bool alias(struct shape *sh, const yaml_event_t *e)
{
    const char *name = (const char *)e->data.alias.anchor;
    const struct anchor *a = anchors_find(&sh->anchors, name);
    if (!a)
        return count(sh, 1, e->start_mark, NULL); /* undefined: the loader reports it */
    if (a->nodes == OPEN) {
        error_at(sh, e->start_mark,
                 "the alias *%s stands inside the node it names, which would nest for ever "
                 "(expected an alias to a node written before it, outside it)",
                 name);
        return false;
    }
    return count(sh, a->nodes, e->start_mark, name);
}

static bool scalar(struct shape *sh, const yaml_event_t *e)
{
    const char *name = (const char *)e->data.scalar.anchor;
    struct anchor *a = NULL;
    if (name && !(a = anchors_add(&sh->anchors, name)))
        return no_memory(sh, e->start_mark);
    if (a)
        a->nodes = 1;
    return count(sh, 1, e->start_mark, NULL);
}

/* One event: false once the file is refused. */
static bool event(struct shape *sh, const yaml_event_t *e)
{
    switch (e->type) {
    case YAML_DOCUMENT_START_EVENT:
        anchors_clear(&sh->anchors);
        return true;
    case YAML_SEQUENCE_START_EVENT:
        return open_node(sh, e, e->data.sequence_start.anchor);
    case YAML_MAPPING_START_EVENT:
        return open_node(sh, e, e->data.mapping_start.anchor);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        close_node(sh);
        return true;
    case YAML_ALIAS_EVENT:
        return alias(sh, e);
    case YAML_SCALAR_EVENT:
        return scalar(sh, e);
    default:
        return true;
    }
}

int ld_shape(const char *path, const char *text, size_t len, struct diag *d)
{
    struct shape sh = {.path = path, .d = d};
    yaml_parser_t p;
    yaml_event_t e;
    bool ok = true, done = false;

    sh.limit = LD_MAX_NODES_BASE + (uint64_t)LD_MAX_NODES_PER_BYTE * len;
    if (!yaml_parser_initialize(&p)) {
        diag_error(d, path, 0, 0, "out of memory while reading YAML");
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    while (ok && !done) {
        if (!yaml_parser_parse(&p, &e)) {
            ld_syntax_error(&p, path, text, len, d);
            ok = false;
            break;
        }
        done = e.type == YAML_STREAM_END_EVENT;
        ok = event(&sh, &e);
        yaml_event_delete(&e);
    }
    anchors_clear(&sh.anchors);
    yaml_parser_delete(&p);
    return ok ? 0 : -1;
}
