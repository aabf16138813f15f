/*
 * A strict RFC 4180 reader for tests: records end in CRLF (the last may
 * end the text without one), fields are separated by commas, a field that
 * holds a comma, a quote, CR or LF must be quoted, a quote inside a quoted
 * field is doubled, a quote may not appear in an unquoted field, and every
 * record has as many fields as the first (the header).
 */
#ifndef MCSIM_TESTS_CSVREAD_H
#define MCSIM_TESTS_CSVREAD_H

#include <stdbool.h>
#include <stddef.h>

struct csv_field {
    char *text; /* decoded, NUL-terminated */
    size_t len;
    bool quoted; /* written in quotes (so "" is an empty text, not a missing value) */
};

struct csv_table {
    size_t rows, cols;       /* rows include the header */
    struct csv_field *cells; /* rows x cols, row by row */
    size_t n_cells;          /* cells stored (rows x cols once parsed) */
};

/*
 * Parse `len` bytes at `text`. Returns 0 and fills `out` (release it with
 * csv_release), or -1 with "line N: what" in err.
 */
int csv_parse(const char *text, size_t len, struct csv_table *out, char *err, size_t err_len);

/* The field at row r, column c (row 0 is the header). */
const struct csv_field *csv_at(const struct csv_table *t, size_t r, size_t c);

/* The column named `name` in the header, or -1. */
int csv_column(const struct csv_table *t, const char *name);

/* Free every field and make `t` empty. */
void csv_release(struct csv_table *t);

#endif /* MCSIM_TESTS_CSVREAD_H */
