/*
 * A strict JSON parser for tests (RFC 8259): what it accepts, every JSON
 * reader accepts. No comments, no trailing commas, no NaN or Infinity, no
 * leading zeros or '+', only the four whitespace characters, strings in
 * valid UTF-8 with no raw control characters and only the standard
 * escapes (a \u escape may not leave half a surrogate pair), nothing after
 * the value; duplicate keys in an object are refused too (RFC 8259 says
 * they SHOULD be unique; trace viewers keep only one of them).
 */
#ifndef MCSIM_TESTS_JSON_H
#define MCSIM_TESTS_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_type type;
    bool boolean;
    char *text; /* JSON_NUMBER: the number as written; JSON_STRING: the decoded
                   string (NUL-terminated; `len` bytes, which may hold NULs) */
    size_t len;
    double number;       /* JSON_NUMBER */
    size_t count;        /* JSON_ARRAY, JSON_OBJECT: members */
    struct json **items; /* the elements, or the members' values */
    char **keys;         /* JSON_OBJECT: the members' names */
};

/*
 * Parse `len` bytes at `text` as one JSON value. Returns the value (free
 * it with json_free), or NULL with a message "offset N: what" in err.
 */
struct json *json_parse(const char *text, size_t len, char *err, size_t err_len);

/* Free a value from json_parse; NULL is allowed. */
void json_free(struct json *v);

/* The value of member `key` of object `v`, or NULL (also if `v` is not an
 * object). */
const struct json *json_get(const struct json *v, const char *key);

#endif /* MCSIM_TESTS_JSON_H */
