/*
 * What a Microkit system becomes: the scenario (docs/scenario-format.md)
 * of a system and its sidecar, as YAML text, for `mcsim sdf export` to
 * write and `mcsim sdf run` to load and run. Each protection domain is a
 * thread whose program is its init, then a serve step (its event loop);
 * pp channel ends are badged calls, notify ends badged signals, <irq>
 * elements devices signalling the PD's notification; a passive PD's
 * budget moves to its notification. docs/sdf.md, "What a system becomes".
 */
#ifndef MCSIM_SDF_BUILD_H
#define MCSIM_SDF_BUILD_H

#include "sdf/sdf.h"
#include "sdf/sidecar.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* Write the scenario of `s` on core `core` with sidecar `sc` into `out`.
 * What cannot be simulated (PDs on other cores, virtual machines, a
 * passive PD's init, actions on channels that do not allow them,
 * interrupt lines renumbered) is reported as warnings at the element.
 * Returns 0, or -1 out of memory. */
int sdf_build(const struct sdf_system *s, const struct sdf_sidecar *sc, uint32_t core,
              struct strbuf *out, struct diag *d);

/* The scenario name of each PD (`names[i]` for PD i, SCN_NAME_MAX bytes
 * each): lower case, [a-z0-9_], unique, starting with a letter. */
void sdf_build_names(const struct sdf_system *s, char (*names)[64]);

#endif /* MCSIM_SDF_BUILD_H */
