/*
 * Loading a scenario file in a unit test: the loader's messages printed,
 * the test failed, if the file does not load; every scenario of a folder.
 */
#ifndef MCSIM_TESTS_SCNLOAD_H
#define MCSIM_TESTS_SCNLOAD_H

#include "scenario.h"

/* Load `path` into *s (scenario_release it), or fail the running test. */
void scnload_must(const char *path, struct scenario *s);

/* Call fn(path, ctx) for every .yaml file of folder `dir` (at least one,
 * else the test fails; at most 256), in name order. */
void scnload_each(const char *dir, void (*fn)(const char *path, void *ctx), void *ctx);

/* Call fn(path, scheduler, full, ctx) for every .yaml file of folder `dir`
 * (as scnload_each), under mcs and then classic; `full` is passed on (the
 * tests that compare two records of a run use it for --trace full). */
void scnload_each_run(const char *dir, bool full,
                      void (*fn)(const char *path, uint8_t scheduler, bool full, void *ctx),
                      void *ctx);

/* scnload_each_run over the corpus the tests that compare two records of
 * a run share: scenarios/ (without and with --trace full), the kernel
 * reference cases (tests/scenarios/kernel) and tests/data/refills. */
void scnload_corpus_run(void (*fn)(const char *path, uint8_t scheduler, bool full, void *ctx),
                        void *ctx);

#endif /* MCSIM_TESTS_SCNLOAD_H */
