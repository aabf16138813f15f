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

/* A corpus run's setup (the fn of scnload_corpus_run): *s is `path`
 * loaded for `scheduler` and runnable under it, `what` names the run
 * ("PATH (mcs, --trace full)"), *db is an empty database in memory, and
 * *o the engine's options for it (seed, duration, scheduler, --trace full,
 * `version`; the sink is the caller's). Returns 0 when ready (release with
 * scnload_run_end), 1 when the file is a test of the loader's refusals or
 * cannot run under that scheduler (nothing to release). */
struct db;
struct eng_options;
int scnload_run_begin(const char *path, uint8_t scheduler, bool full, const char *version,
                      struct scenario *s, struct db **db, struct eng_options *o, char *what,
                      size_t what_len);

/* Release what scnload_run_begin set up. */
void scnload_run_end(struct scenario *s, struct db *db);

#endif /* MCSIM_TESTS_SCNLOAD_H */
