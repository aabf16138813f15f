/*
 * "Did you mean" hints: the closest of a list of words to one mistyped,
 * for the loader's keys and names, units, command-line options and event
 * names alike.
 */
#ifndef MCSIM_CLI_UTIL_SUGGEST_H
#define MCSIM_CLI_UTIL_SUGGEST_H

#include <stddef.h>

#define SUGGEST_WORD_MAX 64 /* longer words are never close to anything */

/* The edit distance (insertions, deletions, substitutions) between two
 * words, SIZE_MAX if either is longer than SUGGEST_WORD_MAX. */
size_t suggest_distance(const char *a, const char *b);

/* The word of the NULL-terminated list `words` closest to `word`, at most
 * 2 edits away (and fewer than the word has letters, so that "x" is not
 * said to be "s"), the first of equals; NULL if none is. */
const char *suggest_closest(const char *word, const char *const *words);

/* The option named in `usage` (a command's usage text: every word that
 * begins with '-' after a space, a '[' or a '|') closest to `arg`, as
 * suggest_closest; NULL if none is close. The result points into a static
 * buffer, valid until the next call. */
const char *suggest_option(const char *arg, const char *usage);

#endif /* MCSIM_CLI_UTIL_SUGGEST_H */
