/*
 * Growing strings (strbuf.h): doubling capacity, formatted with two
 * vsnprintf passes (size, then text).
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make room for `more` bytes and the NUL; false (and failed) if not. */
static bool reserve(struct strbuf *sb, size_t more)
{
    size_t need = sb->len + more + 1, cap;
    char *p;
    if (sb->failed || need < more) {
        sb->failed = true;
        return false;
    }
    if (need <= sb->cap)
        return true;
    cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    if (!(p = realloc(sb->buf, cap))) {
        sb->failed = true;
        return false;
    }
    sb->buf = p;
    sb->cap = cap;
    return true;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap, again;
    int n;
    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0)
        sb->failed = true;
    else if (reserve(sb, (size_t)n)) {
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
    va_end(ap);
}

void sb_puts(struct strbuf *sb, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(sb, n))
        return;
    memcpy(sb->buf + sb->len, s, n + 1);
    sb->len += n;
}

const char *sb_str(const struct strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

void sb_release(struct strbuf *sb)
{
    free(sb->buf);
    memset(sb, 0, sizeof *sb);
}
