/*
 * The sweep specification loader (docs/sweep.md): reads a YAML file
 * starting with `mcsim_sweep: 1` into a struct sweep_spec
 * (cli/sweep/spec.h), checking every field, and reports each mistake as
 * `FILE:LINE:COL: error: ...` into a struct diag, all of them; it never
 * prints. Durations take the units of scenario files and are converted
 * with the spec's own platform.cpu_hz; `platform` reads exactly as a
 * scenario's.
 */
#ifndef MCSIM_CLI_LOAD_SWEEP_H
#define MCSIM_CLI_LOAD_SWEEP_H

#include "diag.h"
#include "sweep/spec.h"

/*
 * Load the spec in the file at `path`. Returns 0 with `out` filled (release
 * it with sweep_spec_release), or -1 with every error added to `d` and
 * `out` zeroed. `out` need not be initialised.
 */
int load_sweep_spec(const char *path, struct sweep_spec *out, struct diag *d);

/* As load_sweep_spec, from `len` bytes at `text`, reported as `path`. */
int load_sweep_spec_text(const char *path, const char *text, size_t len, struct sweep_spec *out,
                         struct diag *d);

#endif /* MCSIM_CLI_LOAD_SWEEP_H */
