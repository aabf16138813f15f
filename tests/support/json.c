/*
 * The strict JSON parser (json.h): recursive descent over RFC 8259's
 * grammar, with a depth limit so that a hostile input cannot exhaust the
 * stack.
 */
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 256

struct parser {
    const unsigned char *s;
    size_t len, pos;
    char *err;
    size_t err_len;
    bool failed;
};

static void *fail(struct parser *p, const char *what)
{
    if (!p->failed)
        snprintf(p->err, p->err_len, "offset %zu: %s", p->pos, what);
    p->failed = true;
    return NULL;
}

static int peek(const struct parser *p)
{
    return p->pos < p->len ? p->s[p->pos] : -1;
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static struct json *new_value(struct parser *p, enum json_type type)
{
    struct json *v = calloc(1, sizeof *v);
    if (!v)
        return fail(p, "out of memory");
    v->type = type;
    return v;
}

static struct json *parse_value(struct parser *p, int depth);

/* ---- literals and numbers ---- */

static struct json *parse_literal(struct parser *p)
{
    static const struct {
        const char *word;
        enum json_type type;
        bool value;
    } words[] = {
        {"null", JSON_NULL, false}, {"true", JSON_BOOL, true}, {"false", JSON_BOOL, false}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if (p->len - p->pos >= n && memcmp(p->s + p->pos, words[i].word, n) == 0) {
            struct json *v = new_value(p, words[i].type);
            if (v)
                v->boolean = words[i].value;
            p->pos += n;
            return v;
        }
    }
    return fail(p, "unexpected character");
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static size_t digits(struct parser *p)
{
    size_t n = 0;
    while (is_digit(peek(p))) {
        p->pos++;
        n++;
    }
    return n;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static struct json *parse_number(struct parser *p)
{
    size_t start = p->pos;
    struct json *v;
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
        if (is_digit(peek(p)))
            return fail(p, "leading zero in a number");
    } else if (digits(p) == 0) {
        return fail(p, "a number needs a digit");
    }
    if (peek(p) == '.') {
        p->pos++;
        if (digits(p) == 0)
            return fail(p, "a number needs a digit after '.'");
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (digits(p) == 0)
            return fail(p, "a number needs a digit in its exponent");
    }
    if (!(v = new_value(p, JSON_NUMBER)))
        return NULL;
    v->len = p->pos - start;
    if (!(v->text = malloc(v->len + 1))) {
        free(v);
        return fail(p, "out of memory");
    }
    memcpy(v->text, p->s + start, v->len);
    v->text[v->len] = '\0';
    v->number = strtod(v->text, NULL);
    return v;
}

/* ---- strings ---- */

static size_t utf8_encode(uint32_t cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

static bool hex4(struct parser *p, uint32_t *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek(p);
        uint32_t d;
        if (c >= '0' && c <= '9')
            d = (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (uint32_t)(c - 'A' + 10);
        else
            return false;
        *out = *out << 4 | d;
        p->pos++;
    }
    return true;
}

/* After "\u": one code point, a surrogate pair taken whole. */
static bool unicode_escape(struct parser *p, uint32_t *cp)
{
    uint32_t lo;
    if (!hex4(p, cp))
        return fail(p, "\\u needs four hex digits"), false;
    if (*cp >= 0xdc00 && *cp <= 0xdfff)
        return fail(p, "a lone low surrogate"), false;
    if (*cp < 0xd800 || *cp > 0xdbff)
        return true;
    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
        return fail(p, "a high surrogate without its low half"), false;
    p->pos += 2;
    if (!hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff)
        return fail(p, "a high surrogate without its low half"), false;
    *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
    return true;
}

/* One escape after '\': its bytes into out; how many, 0 on error. */
static size_t escape(struct parser *p, unsigned char *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = peek(p);
    const char *k = c > 0 ? strchr(from, c) : NULL;
    uint32_t cp;
    if (k && *k) {
        p->pos++;
        out[0] = (unsigned char)to[k - from];
        return 1;
    }
    if (c != 'u')
        return fail(p, "an unknown escape"), 0;
    p->pos++;
    return unicode_escape(p, &cp) ? utf8_encode(cp, out) : 0;
}

/* The length of the valid UTF-8 sequence at the position, 0 if none. */
static size_t utf8_valid(const struct parser *p)
{
    const unsigned char *s = p->s + p->pos;
    size_t left = p->len - p->pos;
    size_t n = s[0] < 0x80   ? 1
               : s[0] < 0xc2 ? 0
               : s[0] < 0xe0 ? 2
               : s[0] < 0xf0 ? 3
               : s[0] < 0xf5 ? 4
                             : 0;
    if (n == 0 || n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
        (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* After the opening quote: the decoded string, malloc'd, into *out. */
static bool string_body(struct parser *p, char **out, size_t *out_len)
{
    /* Decoding never makes a string longer than its source, which ends at
     * the first quote not escaped (or at the end of the text). */
    size_t span = 0;
    while (p->pos + span < p->len && p->s[p->pos + span] != '"')
        span += p->s[p->pos + span] == '\\' ? 2 : 1;
    unsigned char *buf = malloc(span + 1);
    size_t n = 0;
    if (!buf)
        return fail(p, "out of memory"), false;
    for (;;) {
        int c = peek(p);
        size_t k;
        if (c < 0 || c < 0x20) {
            free(buf);
            return fail(p,
                        c < 0 ? "an unterminated string" : "a raw control character in a string"),
                   false;
        }
        if (c == '"')
            break;
        if (c == '\\') {
            p->pos++;
            k = escape(p, buf + n);
        } else if ((k = utf8_valid(p)) > 0) {
            memcpy(buf + n, p->s + p->pos, k);
            p->pos += k;
        } else {
            fail(p, "invalid UTF-8 in a string");
        }
        if (k == 0) {
            free(buf);
            return false;
        }
        n += k;
    }
    p->pos++;
    buf[n] = '\0';
    *out = (char *)buf;
    *out_len = n;
    return true;
}

static struct json *parse_string(struct parser *p)
{
    struct json *v = new_value(p, JSON_STRING);
    p->pos++;
    if (v && !string_body(p, &v->text, &v->len)) {
        free(v);
        return NULL;
    }
    return v;
}

/* ---- arrays and objects ---- */

static bool add_item(struct parser *p, struct json *v, struct json *item, char *key, size_t *cap)
{
    if (v->count == *cap) {
        size_t n = *cap ? 2 * *cap : 8;
        struct json **items = realloc(v->items, n * sizeof *items);
        char **keys = items && v->type == JSON_OBJECT ? realloc(v->keys, n * sizeof *keys) : NULL;
        if (items)
            v->items = items;
        if (keys)
            v->keys = keys;
        if (!items || (v->type == JSON_OBJECT && !keys)) {
            json_free(item);
            free(key);
            return fail(p, "out of memory"), false;
        }
        *cap = n;
    }
    v->items[v->count] = item;
    if (key)
        v->keys[v->count] = key;
    v->count++;
    return true;
}

static bool member(struct parser *p, struct json *v, size_t *cap, int depth)
{
    char *key = NULL;
    size_t key_len;
    struct json *item;
    skip_ws(p);
    if (peek(p) != '"')
        return fail(p, "expected a member name in quotes"), false;
    p->pos++;
    if (!string_body(p, &key, &key_len))
        return false;
    if (json_get(v, key)) {
        free(key);
        return fail(p, "a duplicate member name"), false;
    }
    skip_ws(p);
    if (peek(p) != ':') {
        free(key);
        return fail(p, "expected ':' after a member name"), false;
    }
    p->pos++;
    if (!(item = parse_value(p, depth + 1))) {
        free(key);
        return false;
    }
    return add_item(p, v, item, key, cap);
}

/* An array or an object, after its opening bracket. */
static struct json *parse_container(struct parser *p, int depth, enum json_type type)
{
    char close = type == JSON_ARRAY ? ']' : '}';
    struct json *v = new_value(p, type);
    size_t cap = 0;
    if (!v)
        return NULL;
    p->pos++;
    skip_ws(p);
    if (peek(p) == close) {
        p->pos++;
        return v;
    }
    for (;;) {
        bool ok;
        if (type == JSON_ARRAY) {
            struct json *item = parse_value(p, depth + 1);
            ok = item && add_item(p, v, item, NULL, &cap);
        } else {
            ok = member(p, v, &cap, depth);
        }
        if (!ok)
            break;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == close) {
            p->pos++;
            return v;
        }
        fail(p, type == JSON_ARRAY ? "expected ',' or ']'" : "expected ',' or '}'");
        break;
    }
    json_free(v);
    return NULL;
}

static struct json *parse_value(struct parser *p, int depth)
{
    int c;
    if (depth > JSON_MAX_DEPTH)
        return fail(p, "nested too deeply");
    skip_ws(p);
    c = peek(p);
    if (c == '{')
        return parse_container(p, depth, JSON_OBJECT);
    if (c == '[')
        return parse_container(p, depth, JSON_ARRAY);
    if (c == '"')
        return parse_string(p);
    if (c == '-' || is_digit(c))
        return parse_number(p);
    if (c < 0)
        return fail(p, "unexpected end of input");
    return parse_literal(p);
}

struct json *json_parse(const char *text, size_t len, char *err, size_t err_len)
{
    struct parser p = {(const unsigned char *)text, len, 0, err, err_len, false};
    struct json *v = parse_value(&p, 0);
    if (!v)
        return NULL;
    skip_ws(&p);
    if (p.pos != p.len) {
        json_free(v);
        return fail(&p, "text after the value");
    }
    return v;
}

void json_free(struct json *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->count; i++) {
        json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
    free(v);
}

const struct json *json_get(const struct json *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->keys[i], key) == 0)
            return v->items[i];
    return NULL;
}
