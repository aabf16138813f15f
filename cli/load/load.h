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

struct load_opts {
    /* Read only the first YAML document of the file and ignore the rest
     * (reference cases carry their expected schedule in a second one).
     * false (the default): a second document is an error. */
    bool first_document_only;
};

/*
 * Load the scenario in the file at `path` with default options. On success
 * returns 0 and `out` holds the scenario (release it with
 * scenario_release); warnings may have been added to `d`. On any error
 * returns -1 with every error added to `d` (in file order) and `out`
 * released (zeroed). `out` need not be initialised before the call.
 */
int load_scenario(const char *path, struct scenario *out, struct diag *d);

/* As load_scenario, with `opts` (NULL = defaults). */
int load_scenario_opts(const char *path, const struct load_opts *opts, struct scenario *out,
                       struct diag *d);

/*
 * As load_scenario_opts, from `len` bytes of YAML at `text` (need not be
 * NUL-terminated), reported and recorded as if read from `path` (used for
 * messages, the default name and scenario.path). For tests and fuzzing.
 */
int load_scenario_text(const char *path, const char *text, size_t len, const struct load_opts *opts,
                       struct scenario *out, struct diag *d);

/* The format's top-level keys, NULL-terminated, in the order of
 * docs/scenario-format.md (`mcsim help format` lists them). */
extern const char *const load_top_keys[];

/* A program step's name as a scenario writes it ("compute", "call", ...);
 * "?" for a value that is no step kind. */
const char *load_step_name(enum scn_step_kind kind);

#endif /* MCSIM_CLI_LOAD_H */
