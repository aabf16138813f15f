/*
 * The loader's access to libyaml document nodes: places, node types and
 * mapping keys, each mistake reported where it was written.
 */
#include "load_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

yaml_node_t *ld_node(const struct loader *l, int id)
{
    return yaml_document_get_node(l->doc, id);
}

struct scn_loc ld_loc(const yaml_node_t *n)
{
    struct scn_loc loc = {(uint32_t)n->start_mark.line + 1, (uint32_t)n->start_mark.column + 1};
    return loc;
}

void ld_whatf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

void ld_error(struct loader *l, struct scn_loc at, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    diag_error(l->d, l->file, at.line, at.col, "%s", text);
}

void ld_no_memory(struct loader *l)
{
    if (!l->no_memory)
        diag_error(l->d, l->file, 0, 0, "out of memory while loading the scenario");
    l->no_memory = true;
}

const char *ld_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

bool ld_is_null(const yaml_node_t *n)
{
    const char *v = ld_scalar(n);
    if (!v || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return strcmp(v, "") == 0 || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

const char *ld_found(const yaml_node_t *n, char *buf, size_t len)
{
    const char *v = ld_scalar(n);
    if (!n)
        snprintf(buf, len, "nothing");
    else if (n->type == YAML_SEQUENCE_NODE)
        snprintf(buf, len, "a list");
    else if (n->type == YAML_MAPPING_NODE)
        snprintf(buf, len, "a mapping");
    else if (ld_is_null(n))
        snprintf(buf, len, "empty");
    else if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        snprintf(buf, len, "the quoted text '%.40s%s'", v, strlen(v) > 40 ? "..." : "");
    else
        snprintf(buf, len, "'%.40s%s'", v, strlen(v) > 40 ? "..." : "");
    return buf;
}

void ld_wrong(struct loader *l, const yaml_node_t *n, const char *what, const char *expected)
{
    char found[64];
    ld_error(l, ld_loc(n), "%s is %s (expected %s)", what, ld_found(n, found, sizeof found),
             expected);
}

bool ld_want_map(struct loader *l, const yaml_node_t *n, const char *what, const char *expected)
{
    if (n->type == YAML_MAPPING_NODE)
        return true;
    ld_wrong(l, n, what, expected);
    return false;
}

bool ld_want_seq(struct loader *l, const yaml_node_t *n, const char *what, const char *expected)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return true;
    ld_wrong(l, n, what, expected);
    return false;
}

static bool is_word(const char *key, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(key, *words) == 0)
            return true;
    return false;
}

/* "; did you mean 'x'?" for the closest of `words` within 2 edits, else "". */
static void suggest(const char *key, const char *const *words, char *buf, size_t len)
{
    const char *best = NULL;
    size_t best_d = 3;
    for (; *words; words++) {
        size_t d = suggest_distance(key, *words);
        if (d < best_d) {
            best_d = d;
            best = *words;
        }
    }
    if (best)
        snprintf(buf, len, "; did you mean '%s'?", best);
    else if (len > 0)
        buf[0] = '\0';
}

static void join(const char *const *words, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *const *w = words; *w && used < len; w++) {
        int n = snprintf(buf + used, len - used, "%s%s", w == words ? "" : ", ", *w);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void unknown_key(struct loader *l, const yaml_node_t *key, const char *what,
                        const char *const *keys)
{
    char hint[96], list[512];
    suggest(ld_scalar(key), keys, hint, sizeof hint);
    join(keys, list, sizeof list);
    ld_error(l, ld_loc(key), "unknown key '%s' in %s%s (expected one of: %s)", ld_scalar(key), what,
             hint, list);
}

/* The pair before `pair` in `map` with the same scalar key, or NULL. */
static const yaml_node_pair_t *earlier_key(const struct loader *l, const yaml_node_t *map,
                                           const yaml_node_pair_t *pair)
{
    const char *k = ld_scalar(ld_node(l, pair->key));
    for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < pair; p++) {
        const char *other = ld_scalar(ld_node(l, p->key));
        if (other && strcmp(other, k) == 0)
            return p;
    }
    return NULL;
}

/* YAML's merge key (`<<: *base`, or `<<: [*a, *b]`): the mappings whose
 * keys a mapping takes where it has none of its own. At most MERGE_DEPTH
 * merges deep (a base may merge another). */
#define MERGE_KEY "<<"
#define MERGE_DEPTH 8

static const yaml_node_t *merged(const struct loader *l, const yaml_node_t *map)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = ld_scalar(ld_node(l, p->key));
        if (k && strcmp(k, MERGE_KEY) == 0)
            return ld_node(l, p->value);
    }
    return NULL;
}

/* The i-th mapping a merge value names (a mapping, or a sequence of them),
 * or NULL past the last or for anything else. */
static const yaml_node_t *merged_map(const struct loader *l, const yaml_node_t *v, size_t i)
{
    if (v && v->type == YAML_MAPPING_NODE)
        return i == 0 ? v : NULL;
    if (!v || v->type != YAML_SEQUENCE_NODE ||
        i >= (size_t)(v->data.sequence.items.top - v->data.sequence.items.start))
        return NULL;
    const yaml_node_t *m = ld_node(l, v->data.sequence.items.start[i]);
    return m && m->type == YAML_MAPPING_NODE ? m : NULL;
}

/* The top level of a file may hold keys beginning `x-` that mcsim skips:
 * a place for anchors (`x-worker: &worker {budget: 1ms}`) to merge from. */
static bool extension_key(const char *key, const char *const *keys)
{
    return keys == load_top_keys && strncmp(key, "x-", 2) == 0;
}

static bool check_keys(struct loader *l, const yaml_node_t *map, const char *what,
                       const char *const *keys, int depth);

/* The value of a merge key: mappings (whose keys are checked as the
 * mapping's own), nothing else. */
static bool check_merge(struct loader *l, const yaml_node_t *key, const yaml_node_t *v,
                        const char *what, const char *const *keys, int depth)
{
    const yaml_node_t *m;
    bool ok = true;
    size_t i = 0;

    if (depth >= MERGE_DEPTH) {
        ld_error(l, ld_loc(key), "merge keys in %s nest deeper than %d (expected a base that "
                                 "merges at most %d others in turn)",
                 what, MERGE_DEPTH, MERGE_DEPTH - 1);
        return false;
    }
    if (!merged_map(l, v, 0)) {
        ld_error(l, ld_loc(key), "the merge key '<<' in %s takes a mapping or a list of them "
                                 "(expected <<: *name, the alias of a mapping's anchor)",
                 what);
        return false;
    }
    while ((m = merged_map(l, v, i++)) != NULL)
        ok &= check_keys(l, m, what, keys, depth + 1);
    return ok;
}

static bool check_keys(struct loader *l, const yaml_node_t *map, const char *what,
                       const char *const *keys, int depth)
{
    bool ok = true;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *key = ld_node(l, p->key);
        const yaml_node_pair_t *first;
        if (!ld_scalar(key) || ld_is_null(key)) {
            char found[64];
            ld_error(l, ld_loc(key), "a key in %s is %s (expected a plain name)", what,
                     ld_found(key, found, sizeof found));
            ok = false;
        } else if ((first = earlier_key(l, map, p)) != NULL) {
            struct scn_loc at = ld_loc(ld_node(l, first->key));
            ld_error(l, ld_loc(key),
                     "duplicate key '%s' in %s (first at %u:%u; expected each "
                     "key once)",
                     ld_scalar(key), what, (unsigned)at.line, (unsigned)at.col);
            ok = false;
        } else if (keys && strcmp(ld_scalar(key), MERGE_KEY) == 0) {
            ok &= check_merge(l, key, ld_node(l, p->value), what, keys, depth);
        } else if (keys && !is_word(ld_scalar(key), keys) &&
                   !extension_key(ld_scalar(key), keys)) {
            unknown_key(l, key, what, keys);
            ok = false;
        }
    }
    return ok;
}

bool ld_check_keys(struct loader *l, const yaml_node_t *map, const char *what,
                   const char *const *keys)
{
    return check_keys(l, map, what, keys, 0);
}

bool ld_map(struct loader *l, const yaml_node_t *n, const char *what, const char *expected,
            const char *const *keys)
{
    if (!ld_want_map(l, n, what, expected))
        return false;
    ld_check_keys(l, n, what, keys);
    return true;
}

static yaml_node_t *get(const struct loader *l, const yaml_node_t *map, const char *key, int depth)
{
    const yaml_node_t *m, *v;
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = ld_scalar(ld_node(l, p->key));
        if (k && strcmp(k, key) == 0)
            return ld_node(l, p->value);
    }
    /* not its own: the first of the mappings it merges that has it */
    v = depth < MERGE_DEPTH ? merged(l, map) : NULL;
    for (size_t i = 0; (m = merged_map(l, v, i)) != NULL; i++) {
        yaml_node_t *found = get(l, m, key, depth + 1);
        if (found)
            return found;
    }
    return NULL;
}

yaml_node_t *ld_get(const struct loader *l, const yaml_node_t *map, const char *key)
{
    return get(l, map, key, 0);
}

/* An unknown key of `map` (or of a mapping it merges) that is a misspelling
 * of `key`: its "did you mean" error says all, a "missing" one would be a
 * second error for one mistake. */
static bool misspelt(const struct loader *l, const yaml_node_t *map, const char *key, int depth);

bool ld_misspelt(const struct loader *l, const yaml_node_t *map, const char *key)
{
    return map && map->type == YAML_MAPPING_NODE && misspelt(l, map, key, 0);
}

static bool misspelt(const struct loader *l, const yaml_node_t *map, const char *key, int depth)
{
    const yaml_node_t *m;
    const char *only[2] = {key, NULL};
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = ld_scalar(ld_node(l, p->key));
        if (k && strcmp(k, MERGE_KEY) != 0 && suggest_closest(k, only) != NULL)
            return true;
    }
    for (size_t i = 0; depth < MERGE_DEPTH && (m = merged_map(l, merged(l, map), i)) != NULL; i++)
        if (misspelt(l, m, key, depth + 1))
            return true;
    return false;
}

yaml_node_t *ld_need(struct loader *l, const yaml_node_t *map, const char *key, const char *what,
                     const char *expected)
{
    yaml_node_t *v = ld_get(l, map, key);
    if (!v && !ld_misspelt(l, map, key))
        ld_error(l, ld_loc(map), "%s is missing '%s' (expected %s)", what, key, expected);
    return v;
}
