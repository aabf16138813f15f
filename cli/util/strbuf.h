/*
 * A growing string for text built piece by piece (DOT, messages). Out of
 * memory is sticky: the string keeps what it had, `failed` is set, and
 * later appends do nothing, so a caller checks once at the end.
 */
#ifndef MCSIM_CLI_STRBUF_H
#define MCSIM_CLI_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__)
#define SB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SB_PRINTF(fmt, args)
#endif

/* Zero-initialised is empty; `buf` is NULL until something is added, else
 * NUL-terminated. */
struct strbuf {
    char *buf;
    size_t len, cap;
    bool failed;
};

/* Append printf-formatted text. */
void sb_printf(struct strbuf *sb, const char *fmt, ...) SB_PRINTF(2, 3);

/* Append `s` as is. */
void sb_puts(struct strbuf *sb, const char *s);

/* The text so far: never NULL ("" when empty). Valid until the next
 * append or sb_release. */
const char *sb_str(const struct strbuf *sb);

/* Free the text and make `sb` empty. */
void sb_release(struct strbuf *sb);

#endif /* MCSIM_CLI_STRBUF_H */
