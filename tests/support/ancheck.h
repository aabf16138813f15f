/*
 * The analysis tests' by-hand check: a scenario's bounds, asserted
 * exactly, and its simulated worst responses within them.
 */
#ifndef MCSIM_TESTS_ANCHECK_H
#define MCSIM_TESTS_ANCHECK_H

#include <stdint.h>

#include "analysis/analysis.h"
#include "scenario.h"

/* Analyse `s` under `sched`, compare each named thread's bound with
 * `bounds` (cycles), run it with two seeds and check every observed worst
 * against its bound (each thread must finish a job); fails the running
 * test otherwise. */
void ancheck_bounds(const struct scenario *s, uint8_t sched, const char *const *names,
                    const cycles_t *bounds, uint32_t n);

/* The same for the scenario in file `path`, under mcs (bounds `mcs`) and
 * then classic (bounds `classic`). */
void ancheck_file_each(const char *path, const char *const *names, const cycles_t *mcs,
                       const cycles_t *classic, uint32_t n);

/* ancheck_file_each with the same bounds under both. */
void ancheck_file_both(const char *path, const char *const *names, const cycles_t *bounds,
                       uint32_t n);

/* The first term of `t`'s bound of `kind` (from `thread`, or any if
 * SCN_NONE); NULL if none. */
const struct analysis_term *ancheck_term(const struct analysis_thread *t,
                                         enum analysis_term_kind kind, uint32_t thread);

#endif /* MCSIM_TESTS_ANCHECK_H */
