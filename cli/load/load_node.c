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

size_t ld_distance(const char *a, const char *b)
{
    size_t lb = strlen(b), row[SCN_NAME_MAX + 1];
    if (strlen(a) > SCN_NAME_MAX || lb > SCN_NAME_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* "; did you mean 'x'?" for the closest of `words` within 2 edits, else "". */
static void suggest(const char *key, const char *const *words, char *buf, size_t len)
{
    const char *best = NULL;
    size_t best_d = 3;
    for (; *words; words++) {
        size_t d = ld_distance(key, *words);
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

bool ld_check_keys(struct loader *l, const yaml_node_t *map, const char *what,
                   const char *const *keys)
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
        } else if (keys && !is_word(ld_scalar(key), keys)) {
            unknown_key(l, key, what, keys);
            ok = false;
        }
    }
    return ok;
}

bool ld_map(struct loader *l, const yaml_node_t *n, const char *what, const char *expected,
            const char *const *keys)
{
    if (!ld_want_map(l, n, what, expected))
        return false;
    ld_check_keys(l, n, what, keys);
    return true;
}

yaml_node_t *ld_get(const struct loader *l, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = ld_scalar(ld_node(l, p->key));
        if (k && strcmp(k, key) == 0)
            return ld_node(l, p->value);
    }
    return NULL;
}

yaml_node_t *ld_need(struct loader *l, const yaml_node_t *map, const char *key, const char *what,
                     const char *expected)
{
    yaml_node_t *v = ld_get(l, map, key);
    if (!v)
        ld_error(l, ld_loc(map), "%s is missing '%s' (expected %s)", what, key, expected);
    return v;
}
