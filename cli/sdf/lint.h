/*
 * mcsim's own findings on a Microkit system: what its scheduling
 * parameters do at run time that Microkit's tool does not check (budgets
 * below or near MIN_BUDGET, round-robin slices taken for reservations,
 * defaults, overloaded cores, passive PDs that never run or gain nothing,
 * call servers that charge nobody, passive servers that stall a caller,
 * known kernel and Microkit issues, priority ties, vCPUs above PDs). Each
 * finding has a place, a severity and a sentence saying what goes wrong
 * and why.
 */
#ifndef MCSIM_SDF_LINT_H
#define MCSIM_SDF_LINT_H

#include <stdio.h>

#include "sdf/sdf.h"
#include "sdf/sidecar.h"

enum sdf_severity { SDF_NOTE, SDF_WARNING, SDF_ERROR };

struct sdf_finding {
    enum sdf_severity severity;
    struct sdf_loc loc;
    const char *code;  /* a short name: min-budget, near-min-budget, ... */
    char text[512];
};

struct sdf_lint {
    struct sdf_finding *items;
    size_t n, cap;
    bool oom;
};

/* A budget this many MIN_BUDGETs or fewer may never progress (#285). */
#define SDF_LINT_NEAR_MIN_BUDGET 5u

/* Find everything wrong with `s` (parsed with `cfg`), with the sidecar's
 * work and parameters if `sc` is not NULL. Findings in file order. */
void sdf_lint_run(const struct sdf_system *s, const struct sdf_config *cfg,
                  const struct sdf_sidecar *sc, struct sdf_lint *out);

void sdf_lint_release(struct sdf_lint *l);

/* Print each finding as FILE:LINE:COL: SEVERITY: TEXT [CODE]. */
void sdf_lint_print(const struct sdf_lint *l, const char *path, FILE *f);

/* The number of findings of severity warning or error. */
size_t sdf_lint_serious(const struct sdf_lint *l);

#endif /* MCSIM_SDF_LINT_H */
