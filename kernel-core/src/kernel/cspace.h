/*
 * CSpace lookup: walk CNodes by guard and radix. seL4: src/kernel/cspace.c.
 */
#ifndef MCSIM_KERNEL_CSPACE_H
#define MCSIM_KERNEL_CSPACE_H

#include "kernel/structures.h"

/* Resolve `cptr` (depth bits, 64 for a full CPtr) in t's CSpace to a slot.
 * Returns ERR_NONE and *slot, or ERR_FAILED_LOOKUP (also when the walk
 * ends early or a guard mismatches), with detail in ks.err. */
enum kerr cspace_lookup_slot(struct tcb *t, cptr_t cptr, unsigned depth, struct cte **slot);

/* Same from a given CNode capability (CNode invocations' index/depth). */
enum kerr cspace_lookup_from(const struct cap *root, cptr_t cptr, unsigned depth,
                             struct cte **slot);

/* Look up a capability; a NULL cap is ERR_INVALID_CAPABILITY. */
enum kerr cspace_lookup_cap(struct tcb *t, cptr_t cptr, struct cte **slot);

#endif /* MCSIM_KERNEL_CSPACE_H */
