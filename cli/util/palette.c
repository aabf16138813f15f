/*
 * Criticality colours (palette.h). The hues are Tableau 10's without its
 * red (readable by colour-blind viewers); each pale tone is the hue mixed
 * with 55% white, light enough for black text.
 */
#include "palette.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

enum hue { BLUE, ORANGE, GREEN, PURPLE, TEAL, YELLOW, BROWN, PINK };

static const char *const hues[PALETTE_HUES] = {
    [BLUE] = "#4E79A7", [ORANGE] = "#F28E2B", [GREEN] = "#59A14F", [PURPLE] = "#B07AA1",
    [TEAL] = "#76B7B2", [YELLOW] = "#EDC948", [BROWN] = "#9C755F", [PINK] = "#FF9DA7",
};

/* Names scenarios commonly give their levels (case does not matter). */
static const struct {
    const char *name;
    enum hue hue;
} known[] = {
    {"lo", BLUE},        {"low", BLUE},        {"best_effort", BLUE}, {"be", BLUE},
    {"qm", BLUE},        {"mid", GREEN},       {"med", GREEN},        {"medium", GREEN},
    {"hi", ORANGE},      {"high", ORANGE},     {"critical", PURPLE},  {"crit", PURPLE},
    {"safety", PURPLE},  {"highest", PURPLE},
};

/* The hues a name not in `known` may take: those no known name has. */
static const enum hue spare[] = {TEAL, YELLOW, BROWN, PINK};

static enum hue hue_of(const char *name)
{
    uint32_t h = 2166136261u; /* FNV-1a, on the lower-cased name */

    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcasecmp(name, known[i].name) == 0)
            return known[i].hue;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint32_t)tolower((unsigned char)*p)) * 16777619u;
    return spare[h % (sizeof spare / sizeof spare[0])];
}

const char *palette_none(void)
{
    return "#A0A0A0";
}

/* The index of the first earlier name equal to levels[i], or i. */
static size_t first_of(const char *const *levels, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (levels[k] && strcmp(levels[k], levels[i]) == 0)
            return k;
    return i;
}

void palette_levels(const char *const *levels, size_t n, const char **out)
{
    bool taken[PALETTE_HUES] = {false};

    for (size_t i = 0; i < n; i++) {
        size_t h, k;
        if (levels[i] == NULL || levels[i][0] == '\0') {
            out[i] = palette_none();
        } else if ((k = first_of(levels, i)) < i) {
            out[i] = out[k];
        } else {
            h = (size_t)hue_of(levels[i]);
            for (size_t tries = 0; taken[h] && tries < PALETTE_HUES; tries++)
                h = (h + 1) % PALETTE_HUES;
            taken[h] = true;
            out[i] = hues[h];
        }
    }
}
