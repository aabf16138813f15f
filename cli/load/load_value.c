/*
 * The loader's scalar values: whole numbers, booleans, durations, fixed
 * words, names and references to named objects.
 */
#include "load_int.h"

#include "util/grow.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"

static void range_text(uint64_t lo, uint64_t hi, char *buf, size_t len)
{
    if (hi == UINT64_MAX && lo == 0)
        snprintf(buf, len, "a whole number");
    else if (hi == UINT64_MAX)
        snprintf(buf, len, "a whole number of at least %llu", (unsigned long long)lo);
    else
        snprintf(buf, len, "a whole number from %llu to %llu", (unsigned long long)lo,
                 (unsigned long long)hi);
}

/* Plain decimal digits into *out; false if not digits or past 64 bits. */
static bool parse_digits(const char *v, uint64_t *out)
{
    *out = 0;
    if (!*v)
        return false;
    for (; *v; v++) {
        uint64_t d = (uint64_t)(*v - '0');
        if (*v < '0' || *v > '9' || *out > (UINT64_MAX - d) / 10)
            return false;
        *out = *out * 10 + d;
    }
    return true;
}

bool ld_uint(struct loader *l, const yaml_node_t *n, const char *what, uint64_t lo, uint64_t hi,
             uint64_t *out)
{
    char expected[96];
    uint64_t v;
    const char *text = ld_scalar(n);
    if (!text || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !parse_digits(text, &v) ||
        v < lo || v > hi) {
        range_text(lo, hi, expected, sizeof expected);
        ld_wrong(l, n, what, expected);
        return false;
    }
    *out = v;
    return true;
}

bool ld_bool(struct loader *l, const yaml_node_t *n, const char *what, bool *out)
{
    const char *text = ld_scalar(n);
    bool plain = text && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (plain && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) {
        *out = text[0] == 't';
        return true;
    }
    ld_wrong(l, n, what, "true or false");
    return false;
}

bool ld_duration(struct loader *l, const yaml_node_t *n, const char *what, bool positive,
                 cycles_t *out)
{
    char why[256];
    struct units_duration dur;
    const char *text = ld_scalar(n);
    if (!text || ld_is_null(n)) {
        ld_wrong(l, n, what, "a duration such as 250us, 1.5ms, 2s, 800ns or 1200c");
        return false;
    }
    if (!units_parse_duration(text, &dur, why, sizeof why) ||
        !units_to_cycles(&dur, l->cpu_hz, out, why, sizeof why)) {
        ld_error(l, ld_loc(n), "%s is '%s': %s", what, text, why);
        return false;
    }
    if (*out == 0 && !units_duration_is_zero(&dur)) {
        ld_error(l, ld_loc(n),
                 "%s is '%s', less than one CPU cycle at %llu Hz, so it rounds "
                 "down to 0 (expected 0 or at least one cycle)",
                 what, text, (unsigned long long)l->cpu_hz);
        return false;
    }
    if (*out == 0 && positive) {
        ld_error(l, ld_loc(n), "%s is 0 (expected a duration of more than 0)", what);
        return false;
    }
    return true;
}

static void word_list(const char *const *words, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    while (words[n])
        n++;
    if (n == 2) {
        snprintf(buf, len, "%s or %s", words[0], words[1]);
        return;
    }
    used = (size_t)snprintf(buf, len, "one of:");
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s %s", i ? "," : "", words[i]);
}

bool ld_word(struct loader *l, const yaml_node_t *n, const char *what, const char *const *words,
             uint32_t *index)
{
    char expected[256];
    const char *text = ld_scalar(n);
    for (uint32_t i = 0; text && words[i]; i++) {
        if (strcmp(text, words[i]) == 0) {
            *index = i;
            return true;
        }
    }
    word_list(words, expected, sizeof expected);
    const char *meant = text ? suggest_closest(text, words) : NULL;
    if (meant) {
        char found[64];
        ld_error(l, ld_loc(n), "%s is %s; did you mean '%s'? (expected %s)", what,
                 ld_found(n, found, sizeof found), meant, expected);
    } else {
        ld_wrong(l, n, what, expected);
    }
    return false;
}

bool ld_level(struct loader *l, const yaml_node_t *n, const char *what, uint32_t *index)
{
    const char *words[SCN_MAX_LEVELS + 1];
    uint32_t i;
    for (i = 0; i < l->s->n_levels; i++)
        words[i] = l->s->levels[i];
    words[i] = NULL;
    if (i == 0)
        return false; /* the criticality list is wrong, and reported */
    return ld_word(l, n, what, words, index);
}

static bool valid_name(const char *v)
{
    if (!(v[0] >= 'a' && v[0] <= 'z'))
        return false;
    for (v++; *v; v++)
        if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_'))
            return false;
    return true;
}

bool ld_name(struct loader *l, const yaml_node_t *n, const char *what, char out[SCN_NAME_MAX])
{
    const char *text = ld_scalar(n);
    if (text && strlen(text) >= SCN_NAME_MAX) {
        ld_error(l, ld_loc(n),
                 "%s '%.40s...' is %zu characters long (expected a name of at "
                 "most %d characters)",
                 what, text, strlen(text), SCN_NAME_MAX - 1);
        return false;
    }
    if (!text || ld_is_null(n) || !valid_name(text)) {
        ld_wrong(l, n, what,
                 "a name of lower-case letters, digits and _, starting with a "
                 "letter, as in net_driver");
        return false;
    }
    memcpy(out, text, strlen(text) + 1);
    return true;
}

static const char *const kind_names[] = {"thread", "endpoint", "notification", "device"};
static const char *const kind_a[] = {"a thread", "an endpoint", "a notification", "a device"};
static const char *const kind_lists[] = {"threads", "endpoints", "notifications", "devices"};

/* "one of: a, b" (at most ten names), or a hint where to declare one. */
static void candidates(const struct scenario *s, enum ld_kind k, char *buf, size_t len)
{
    struct scn_loc loc;
    uint32_t n = ld_kind_count(s, k);
    size_t used;
    if (n == 0) {
        snprintf(buf, len, "a name declared under '%s'; there are none", kind_lists[k]);
        return;
    }
    used = (size_t)snprintf(buf, len, "one of:");
    for (uint32_t i = 0; i < n && i < 10 && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s %s", i ? "," : "",
                                 ld_kind_name_at(s, k, i, &loc));
    if (n > 10 && used < len)
        snprintf(buf + used, len - used, ", ...");
}

/* "; did you mean 'x'?" for a name of kind `k` within 2 edits. */
static void closest(const struct scenario *s, enum ld_kind k, const char *name, char *buf,
                    size_t len)
{
    struct scn_loc loc;
    const char *best = NULL;
    size_t best_d = 3;
    buf[0] = '\0';
    for (uint32_t i = 0; i < ld_kind_count(s, k); i++) {
        const char *other = ld_kind_name_at(s, k, i, &loc);
        size_t d = suggest_distance(name, other);
        if (d < best_d) {
            best_d = d;
            best = other;
        }
    }
    if (best)
        snprintf(buf, len, "; did you mean '%s'?", best);
}

static void dangling(struct loader *l, const yaml_node_t *n, enum ld_kind kind, const char *what,
                     const char *name)
{
    char expected[512], hint[96];
    struct scn_loc loc;
    for (int k = LD_THREAD; k <= LD_DEVICE; k++) {
        if (k != (int)kind && ld_find(l, (enum ld_kind)k, name, &loc) != SCN_NONE) {
            ld_error(l, ld_loc(n),
                     "%s names '%s', which is %s, not %s (expected the name of "
                     "%s)",
                     what, name, kind_a[k], kind_a[kind], kind_a[kind]);
            return;
        }
    }
    candidates(l->s, kind, expected, sizeof expected);
    closest(l->s, kind, name, hint, sizeof hint);
    ld_error(l, ld_loc(n), "%s names '%s', which is not a declared %s%s (expected %s)", what, name,
             kind_names[kind], hint, expected);
}

bool ld_ref(struct loader *l, const yaml_node_t *n, enum ld_kind kind, const char *what,
            uint32_t *index)
{
    char name[SCN_NAME_MAX], expected[64];
    struct scn_loc loc;
    ld_whatf(expected, sizeof expected, "the name of %s", kind_a[kind]);
    if (!ld_scalar(n) || ld_is_null(n)) {
        ld_wrong(l, n, what, expected);
        return false;
    }
    if (!ld_name(l, n, what, name))
        return false;
    *index = ld_find(l, kind, name, &loc);
    if (*index == SCN_NONE) {
        dangling(l, n, kind, what, name);
        return false;
    }
    return true;
}

bool ld_claim(struct loader *l, const char *name, enum ld_kind kind, struct scn_loc at)
{
    struct scn_loc other;
    for (int k = LD_THREAD; k <= LD_DEVICE; k++) {
        if (ld_find(l, (enum ld_kind)k, name, &other) == SCN_NONE)
            continue;
        if (k == (int)kind) {
            ld_error(l, at, "duplicate %s '%s' (first at %u:%u; expected each name once)",
                     kind_names[kind], name, (unsigned)other.line, (unsigned)other.col);
            return false;
        }
        bool later = at.line > other.line || (at.line == other.line && at.col > other.col);
        struct scn_loc here = later ? at : other, there = later ? other : at;
        ld_error(l, here,
                 "name '%s' of this %s is already used by the %s at %u:%u (threads, "
                 "endpoints, notifications and devices share one namespace; expected a "
                 "different name)",
                 name, kind_names[later ? (int)kind : k], kind_names[later ? k : (int)kind],
                 (unsigned)there.line, (unsigned)there.col);
        return true;
    }
    return true;
}

bool ld_reserve(struct loader *l, void **array, uint32_t *cap, uint32_t need, size_t size)
{
    size_t new_cap = *cap;
    if (!grow_array(array, &new_cap, need, size, 8)) {
        ld_no_memory(l);
        return false;
    }
    *cap = new_cap > UINT32_MAX ? need : (uint32_t)new_cap;
    return true;
}
