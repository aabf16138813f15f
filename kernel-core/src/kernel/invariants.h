/* The kernel's invariant checks (DESIGN.md "Kernel fidelity"); the debug
 * build runs them after every kernel entry. The public entry point is
 * kernel_check_invariants() in mcsim/kernel.h. */
#ifndef MCSIM_KERNEL_INVARIANTS_H
#define MCSIM_KERNEL_INVARIANTS_H

#include <mcsim/kernel.h>
#include "kernel/structures.h"

/* Refills of one context: sum = budget, ordered and disjoint, head at
 * least MIN_BUDGET (not round robin). NULL if they hold, else what failed. */
const char *invariants_check_sc(struct sched_context *sc);

#endif /* MCSIM_KERNEL_INVARIANTS_H */
