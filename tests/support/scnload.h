/*
 * Loading a scenario file in a unit test: the loader's messages printed,
 * the test failed, if the file does not load.
 */
#ifndef MCSIM_TESTS_SCNLOAD_H
#define MCSIM_TESTS_SCNLOAD_H

#include "scenario.h"

/* Load `path` into *s (scenario_release it), or fail the running test. */
void scnload_must(const char *path, struct scenario *s);

#endif /* MCSIM_TESTS_SCNLOAD_H */
