/*
 * The classes of threads the analysis's soundness test reports apart
 * (tests/unit/analysis/test_analysis_sound.c): each a shape of program
 * the model learnt in turn, told from the scenario alone, so the test can
 * say how many threads of each shape got a finite bound.
 */
#ifndef MCSIM_TEST_SOUND_SHAPES_H
#define MCSIM_TEST_SOUND_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

struct sound_class {
    const char *what; /* as the report prints it */
    bool (*is)(const struct scenario *s, uint32_t thread);
};

extern const struct sound_class sound_classes[];
extern const size_t sound_n_classes;

#endif
