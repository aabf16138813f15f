/*
 * Diagnostics: the errors and warnings a library finds, collected instead
 * of printed, so that a loader can report every mistake in a file and the
 * command decides where they go and what the exit status is. Each message
 * is one line `FILE:LINE:COL: error: what is wrong (what was expected)`.
 */
#ifndef MCSIM_CLI_DIAG_H
#define MCSIM_CLI_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define DIAG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define DIAG_PRINTF(fmt, args)
#endif

enum diag_severity { DIAG_ERROR, DIAG_WARNING };

/* One message. `file` is NULL for a message about no file; `line` and
 * `col` are 1-based, 0 when the place is not known. */
struct diag_msg {
    enum diag_severity severity;
    char *file;
    uint32_t line, col;
    char *text;
    size_t seq; /* order of arrival, to keep sorting stable */
};

/* At most this many messages are kept: the rest are counted, neither
 * formatted nor stored, so that an input's mistakes cost bounded memory
 * and output however many there are. */
#define DIAG_MAX_KEPT 1000u

/*
 * Messages "like" each other are of one severity and file and differ only
 * in numbers and in what is quoted ('t5', 'prioty'): the same mistake
 * made in many places. diag_print shows DIAG_SHOWN_LIKE of each kind, then
 * counts the rest: "FILE: note: ... and 133,052 more like it". Kinds are
 * counted as messages arrive, kept or not, up to DIAG_MAX_KINDS kinds.
 */
#define DIAG_SHOWN_LIKE 3u
#define DIAG_MAX_KINDS 256u

struct diag_kind; /* diag.c */

/* A growable list of messages. Zero-initialised (or diag_init) is empty. */
struct diag {
    struct diag_msg *msgs;
    size_t count, cap;
    size_t errors;  /* messages of severity DIAG_ERROR, stored or not */
    size_t dropped; /* messages past DIAG_MAX_KEPT, counted only */
    bool lost;      /* a message could not be stored (out of memory) */
    size_t next_seq;
    struct diag_kind *kinds; /* the kinds of message seen, and how many of each */
    size_t n_kinds;
};

/* Make `d` empty; it needs diag_release afterwards. */
void diag_init(struct diag *d);

/* Free every message and make `d` empty again. */
void diag_release(struct diag *d);

/* Add an error at FILE:LINE:COL (file may be NULL, line/col 0). The text is
 * printf-formatted, without the place, the severity or a newline. Never
 * fails: out of memory, the error still counts and `lost` is set. */
void diag_error(struct diag *d, const char *file, uint32_t line, uint32_t col, const char *fmt, ...)
    DIAG_PRINTF(5, 6);

/* Add a warning, as diag_error; warnings do not make an input invalid. */
void diag_warning(struct diag *d, const char *file, uint32_t line, uint32_t col, const char *fmt,
                  ...) DIAG_PRINTF(5, 6);

/* The number of messages stored, errors and warnings (at most
 * DIAG_MAX_KEPT). */
size_t diag_count(const struct diag *d);

/* The number of errors reported (including any that could not be stored). */
size_t diag_errors(const struct diag *d);

/* Order the messages from index `from` on by file, line and column (stable:
 * messages at one place keep their order) and drop exact repeats, as an
 * alias to one YAML node reports the same mistake twice. */
void diag_sort(struct diag *d, size_t from);

/* Write message `m` as one line, without the newline, into `buf` (always
 * NUL-terminated when len > 0). Returns the length it needed, as snprintf. */
int diag_format(const struct diag_msg *m, char *buf, size_t len);

/* Print the messages, one line each, in order, at most DIAG_SHOWN_LIKE of
 * each kind: after the last shown of a kind with more, one line "FILE:
 * note: ... and N more like it" (N with thousands separated by commas);
 * then, if messages of no counted kind were dropped past DIAG_MAX_KEPT,
 * one line saying how many. */
void diag_print(const struct diag *d, FILE *f);

/* A command's bad usage: prints "mcsim: CMD: " + fmt (one %s, `arg`) and
 * "(see 'mcsim help CMD')" to stderr; returns 2, the exit status. */
int diag_usage(const char *cmd, const char *fmt, const char *arg);

/* An unknown command-line option: prints "mcsim: CMD: unknown option
 * 'ARG'", "; did you mean '--x'?" for the closest option of `usage` (the
 * command's usage text, util/suggest.h), and the pointer to the help, to
 * stderr; returns 2, the exit status. */
int diag_unknown_option(const char *cmd, const char *arg, const char *usage);

/* A malloc'ed copy of `s`, or NULL when memory runs out. */
char *diag_strdup(const char *s);

#endif /* MCSIM_CLI_DIAG_H */
