/*
 * A hint for libyaml's errors that bad indentation causes (issue 14):
 * libyaml reports where its grammar broke, which is often not the line
 * whose indentation is wrong, and in terms ("did not find expected key",
 * "mapping values are not allowed in this context") that do not say
 * "indentation". From the text before the error, this finds the line
 * whose indentation lines up with no block above it, or that is indented
 * under a key that already has a value, and names it.
 */
#include "load_int.h"

#include <stdio.h>
#include <string.h>

/* One line of the text: where its content starts and what it holds. */
struct text_line {
    uint32_t number;  /* 1-based */
    uint32_t indent;  /* spaces before the content */
    uint32_t key_col; /* 0-based column of its key: after any "- " */
    bool content;     /* not blank, not only a comment */
    bool has_value;   /* "key: value" or "- value": a scalar ends it */
    bool opens_text;  /* "key: |" or "key: >": deeper lines are its text */
    bool item;        /* begins with "- " */
};

/* Read the line starting at text[*pos] (of len bytes) into `l` as line
 * `number`, and move *pos past it; false at the end of the text. */
static bool next_line(const char *text, size_t len, size_t *pos, uint32_t number,
                      struct text_line *l)
{
    size_t i = *pos;

    if (i >= len)
        return false;
    size_t end = i;
    while (end < len && text[end] != '\n')
        end++;
    *pos = end + 1;
    memset(l, 0, sizeof *l);
    l->number = number;
    size_t c = i;
    while (c < end && text[c] == ' ')
        c++;
    l->indent = (uint32_t)(c - i);
    l->content = c < end && text[c] != '#' && text[c] != '\r';
    if (!l->content)
        return true;
    while (c + 1 < end && text[c] == '-' && text[c + 1] == ' ') {
        l->item = true;
        c += 2;
        while (c < end && text[c] == ' ')
            c++;
    }
    l->key_col = (uint32_t)(c - i);
    /* the value after "key:", if the line has one */
    const char *colon = NULL;
    for (size_t k = c; k < end; k++) {
        if (text[k] == '#' && k > c && text[k - 1] == ' ')
            break;
        if (text[k] == ':' && (k + 1 == end || text[k + 1] == ' ' || text[k + 1] == '\r')) {
            colon = text + k;
            break;
        }
    }
    const char *v = colon ? colon + 1 : (l->item ? text + c : NULL);
    if (!v)
        return true;
    while (v < text + end && *v == ' ')
        v++;
    if (v < text + end && *v != '#' && *v != '\r') {
        l->opens_text = *v == '|' || *v == '>';
        l->has_value = !l->opens_text && *v != '&' && *v != '!';
    }
    return true;
}

/* What the text says before the line in error: the blocks open there. */
struct before {
    struct text_line last;                        /* the content line just before */
    uint32_t open[LD_MAX_NESTING], lines[LD_MAX_NESTING]; /* indentations, outermost first,
                                                            and the lines opening them */
    bool list[LD_MAX_NESTING];                    /* a list's items, not a mapping's keys */
    size_t n;
    bool found;
};

/*
 * Read text[0..len) up to line `number` into `b`, and that line into
 * `at`; false if the text is shorter. A line's key column opens a block;
 * a line at a smaller indentation closes the deeper ones. Blank lines,
 * comments and the text of block scalars ("key: |") are skipped.
 */
static bool read_upto(const char *text, size_t len, uint32_t number, struct before *b,
                      struct text_line *at)
{
    struct text_line l;
    size_t pos = 0;
    bool in_text = false;

    memset(b, 0, sizeof *b);
    for (uint32_t i = 1; next_line(text, len, &pos, i, &l); i++) {
        if (i == number) {
            *at = l;
            return true;
        }
        if (!l.content || (in_text && l.indent > b->last.indent))
            continue;
        in_text = l.opens_text;
        b->last = l;
        b->found = true;
        while (b->n > 0 && b->open[b->n - 1] > l.indent)
            b->n--;
        if ((b->n == 0 || b->open[b->n - 1] < l.indent) && b->n < LD_MAX_NESTING) {
            b->lines[b->n] = i;
            b->list[b->n] = l.item;
            b->open[b->n++] = l.indent;
        }
        if (l.item && l.key_col > l.indent && b->n < LD_MAX_NESTING) {
            b->lines[b->n] = i;
            b->list[b->n] = false;
            b->open[b->n++] = l.key_col;
        }
    }
    return false;
}

bool ld_indent_hint(const char *text, size_t len, const char *path, const char *problem,
                    uint32_t line, char *out, size_t out_len)
{
    struct before b;
    struct text_line at;

    if (!problem || !read_upto(text, len, line, &b, &at) || !at.content || !b.found)
        return false;
    const struct text_line *before = &b.last;
    if (strcmp(problem, "mapping values are not allowed in this context") == 0) {
        /* a key indented under one that has its value already */
        if (at.indent <= before->key_col || !before->has_value)
            return false;
        snprintf(out, out_len,
                 "hint: %s:%u:%u is indented %u space%s, deeper than the key above it at "
                 "%u:%u, which has its value already, so YAML reads the line as more of "
                 "that value: indent it as the lines it belongs with",
                 path, line, at.indent + 1, at.indent, at.indent == 1 ? "" : "s",
                 before->number, before->key_col + 1);
        return true;
    }
    if (strncmp(problem, "did not find expected", 21) != 0 &&
        strcmp(problem, "block sequence entries are not allowed in this context") != 0)
        return false;
    /* a line that lines up with no block open above it */
    const uint32_t *open = b.open, *lines = b.lines;
    size_t n = b.n, outer = n;
    while (outer > 0 && open[outer - 1] > at.indent)
        outer--;
    if (outer > 0 && open[outer - 1] == at.indent && at.item && !b.list[outer - 1]) {
        snprintf(out, out_len,
                 "hint: %s:%u:%u is a list item lined up with the keys of the mapping from "
                 "%u:%u: indent it as the items of its list",
                 path, line, at.indent + 1, lines[outer - 1], open[outer - 1] + 1);
        return true;
    }
    if ((outer > 0 && open[outer - 1] == at.indent) || outer == n)
        return false; /* it lines up, or is deeper than every block: not this */
    int w = snprintf(out, out_len,
                     "hint: %s:%u:%u is indented %u space%s, lining up with no block above it "
                     "(the block from %u:%u is indented %u",
                     path, line, at.indent + 1, at.indent, at.indent == 1 ? "" : "s",
                     lines[outer], open[outer] + 1,
                     open[outer]);
    if (outer > 0 && w >= 0 && (size_t)w < out_len)
        w += snprintf(out + w, out_len - (size_t)w, ", the one from %u:%u %u",
                      lines[outer - 1], open[outer - 1] + 1, open[outer - 1]);
    if (w >= 0 && (size_t)w < out_len)
        snprintf(out + w, out_len - (size_t)w, "): indent it as the lines it belongs with");
    return true;
}
