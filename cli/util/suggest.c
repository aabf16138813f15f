/*
 * "Did you mean" hints (suggest.h): Levenshtein's distance over one row.
 */
#include "suggest.h"

#include <stdint.h>
#include <string.h>

size_t suggest_distance(const char *a, const char *b)
{
    size_t lb = strlen(b), row[SUGGEST_WORD_MAX + 1];
    if (strlen(a) > SUGGEST_WORD_MAX || lb > SUGGEST_WORD_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *suggest_closest(const char *word, const char *const *words)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(word);

    for (; *words; words++) {
        size_t d = suggest_distance(word, *words);
        if (d < best_d && d < len) {
            best_d = d;
            best = *words;
        }
    }
    return best;
}

#define MAX_OPTIONS 64

const char *suggest_option(const char *arg, const char *usage)
{
    static char words[MAX_OPTIONS][SUGGEST_WORD_MAX + 1];
    const char *list[MAX_OPTIONS + 1];
    size_t n = 0;

    for (const char *p = usage; *p && n < MAX_OPTIONS; p++) {
        size_t len;
        if (*p != '-' || (p > usage && p[-1] != ' ' && p[-1] != '[' && p[-1] != '|'))
            continue;
        len = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
        if (len < 2 || len > SUGGEST_WORD_MAX || p[1] == ' ')
            continue;
        memcpy(words[n], p, len);
        words[n][len] = '\0';
        list[n] = words[n];
        n++;
        p += len - 1;
    }
    list[n] = NULL;
    return suggest_closest(arg, list);
}
