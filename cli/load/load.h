/*
 * The scenario loader: reads a YAML file in the format of
 * docs/scenario-format.md, checks every rule of the format and fills a
 * struct scenario (sim/scenario.h) with every duration in CPU cycles.
 * Every mistake found is reported into a struct diag as
 * `FILE:LINE:COL: error: ...`, all of them, not only the first; nothing is
 * printed and nothing exits.
 */
#ifndef MCSIM_CLI_LOAD_H
#define MCSIM_CLI_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "util/diag.h"
#include "scenario.h"

/* Scenario files larger than this are refused rather than read. */
#define LOAD_MAX_FILE_BYTES (16u << 20)

/*
 * Load the scenario in the file at `path`: its first YAML document. What
 * follows it must be YAML too, but is not read (reference cases carry
 * their expected schedule in a second document); `validate`, `run` and
 * every other command read a file this one way. On success
 * returns 0 and `out` holds the scenario (release it with
 * scenario_release); warnings may have been added to `d`. On any error
 * returns -1 with every error added to `d` (in file order) and `out`
 * released (zeroed). `out` need not be initialised before the call.
 */
int load_scenario(const char *path, struct scenario *out, struct diag *d);

/*
 * As load_scenario, from `len` bytes of YAML at `text` (need not be
 * NUL-terminated), reported and recorded as if read from `path` (used for
 * messages, the default name and scenario.path). For tests and fuzzing.
 */
int load_scenario_text(const char *path, const char *text, size_t len, struct scenario *out,
                       struct diag *d);

/* The format's top-level keys, NULL-terminated, in the order of
 * docs/scenario-format.md (`mcsim help format` lists them). */
extern const char *const load_top_keys[];

/* A program step's name as a scenario writes it ("compute", "call", ...);
 * "?" for a value that is no step kind. */
const char *load_step_name(enum scn_step_kind kind);

/*
 * The checks of a scenario that follows the format but still cannot run:
 * a duration shorter than the root task's context may be under MCS, a loop
 * that makes system calls for ever at one instant (every kernel cost 0),
 * a reset handler serving a thread that is not passive. Every load that
 * found no mistake ends with them; a command that changes the scenario
 * (run's --duration and --scheduler) calls them again on what it will
 * run, so that `validate` and `run` refuse the same files the same way.
 * Returns 0, or -1 with FILE:LINE:COL errors added to `d` (a place of 0:0
 * when the value is not the file's, as duration_loc after --duration).
 */
int load_check_runnable(const struct scenario *s, struct diag *d);

#endif /* MCSIM_CLI_LOAD_H */
