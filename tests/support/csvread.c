/*
 * The strict RFC 4180 reader (csvread.h), one field at a time.
 */
#include "csvread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
    const char *s;
    size_t len, pos, line;
    struct csv_table *t;
    size_t cap, row_fields;
    char *err;
    size_t err_len;
};

static int fail(struct reader *r, const char *what)
{
    snprintf(r->err, r->err_len, "line %zu: %s", r->line, what);
    return -1;
}

static int push(struct reader *r, char *text, size_t n, int quoted)
{
    struct csv_table *t = r->t;
    size_t count = t->n_cells;
    if (count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct csv_field *cells = realloc(t->cells, cap * sizeof *cells);
        if (!cells) {
            free(text);
            return fail(r, "out of memory");
        }
        t->cells = cells;
        r->cap = cap;
    }
    t->cells[count] = (struct csv_field){text, n, quoted != 0};
    t->n_cells++;
    r->row_fields++;
    return 0;
}

/* A quoted field, from its opening quote. */
static int quoted_field(struct reader *r)
{
    char *buf = malloc(r->len - r->pos + 1);
    size_t n = 0;
    if (!buf)
        return fail(r, "out of memory");
    r->pos++;
    for (;;) {
        if (r->pos >= r->len) {
            free(buf);
            return fail(r, "an unterminated quoted field");
        }
        if (r->s[r->pos] == '"') {
            if (r->pos + 1 < r->len && r->s[r->pos + 1] == '"') {
                buf[n++] = '"';
                r->pos += 2;
                continue;
            }
            r->pos++;
            break;
        }
        if (r->s[r->pos] == '\n')
            r->line++;
        buf[n++] = r->s[r->pos++];
    }
    buf[n] = '\0';
    return push(r, buf, n, 1);
}

static int plain_field(struct reader *r)
{
    size_t start = r->pos;
    char *buf;
    while (r->pos < r->len && r->s[r->pos] != ',' && r->s[r->pos] != '\r') {
        if (r->s[r->pos] == '"')
            return fail(r, "a quote in an unquoted field");
        if (r->s[r->pos] == '\n')
            return fail(r, "a bare LF (expected CRLF)");
        r->pos++;
    }
    if (!(buf = malloc(r->pos - start + 1)))
        return fail(r, "out of memory");
    memcpy(buf, r->s + start, r->pos - start);
    buf[r->pos - start] = '\0';
    return push(r, buf, r->pos - start, 0);
}

/* The end of a record: check its width. */
static int end_record(struct reader *r)
{
    struct csv_table *t = r->t;
    if (t->rows == 0)
        t->cols = r->row_fields;
    else if (r->row_fields != t->cols)
        return fail(r, "a record with another number of fields than the header");
    t->rows++;
    r->row_fields = 0;
    r->line++;
    return 0;
}

/* One field and what follows it: a comma, CRLF or the end. */
static int field(struct reader *r)
{
    int rc = r->pos < r->len && r->s[r->pos] == '"' ? quoted_field(r) : plain_field(r);
    if (rc != 0)
        return rc;
    if (r->pos >= r->len)
        return end_record(r);
    if (r->s[r->pos] == ',') {
        r->pos++;
        return r->pos >= r->len ? fail(r, "a comma at the end of the text") : 0;
    }
    if (r->s[r->pos] == '\r' && r->pos + 1 < r->len && r->s[r->pos + 1] == '\n') {
        r->pos += 2;
        return end_record(r);
    }
    return fail(r,
                r->s[r->pos] == '\r' ? "a bare CR (expected CRLF)" : "text after a quoted field");
}

int csv_parse(const char *text, size_t len, struct csv_table *out, char *err, size_t err_len)
{
    struct reader r = {text, len, 0, 1, out, 0, 0, err, err_len};
    memset(out, 0, sizeof *out);
    while (r.pos < r.len) {
        if (field(&r) != 0) {
            csv_release(out);
            return -1;
        }
    }
    return 0;
}

const struct csv_field *csv_at(const struct csv_table *t, size_t r, size_t c)
{
    return r < t->rows && c < t->cols ? &t->cells[r * t->cols + c] : NULL;
}

int csv_column(const struct csv_table *t, const char *name)
{
    for (size_t c = 0; t->rows > 0 && c < t->cols; c++)
        if (strcmp(t->cells[c].text, name) == 0)
            return (int)c;
    return -1;
}

void csv_release(struct csv_table *t)
{
    for (size_t i = 0; i < t->n_cells; i++)
        free(t->cells[i].text);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
